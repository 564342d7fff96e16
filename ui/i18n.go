package ui

import "fmt"

// Lang is a user-interface language.
type Lang string

// Supported languages.
const (
	LangEN Lang = "en"
	LangPT Lang = "pt-BR"
)

// ParseLang maps a config value to a Lang (default English).
func ParseLang(s string) Lang {
	switch s {
	case "pt-BR", "pt", "pt_BR", "pt-br":
		return LangPT
	}
	return LangEN
}

// catalog translates the UI's English message ids; every user-facing string goes through it.
type catalog struct{ lang Lang }

// T returns msg in the catalog's language (the id itself in English). An id without a
// translation is sanitized: statuses and reasons from outside are translated through T.
func (c catalog) T(msg string) string {
	if c.lang == LangPT {
		for _, t := range ptBRTables {
			if s, ok := t[msg]; ok {
				return s
			}
		}
	}
	return sanitize(msg)
}

// ptBRTables are the pt-BR catalogs: the shell's and one per view.
var ptBRTables = []map[string]string{ptBR, ptBRInspector, ptBRWallets, ptBRSplit, ptBRBlocks, ptBREvents}

// ptBRHas reports whether msg has a pt-BR translation.
func ptBRHas(msg string) bool {
	for _, t := range ptBRTables {
		if _, ok := t[msg]; ok {
			return true
		}
	}
	return false
}

// F formats a translated format string; the result is sanitized, since its arguments are often
// text from outside (wallet names, service messages).
func (c catalog) F(format string, args ...any) string {
	return sanitize(fmt.Sprintf(c.T(format), args...))
}
