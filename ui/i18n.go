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

// T returns msg in the catalog's language (the id itself in English).
func (c catalog) T(msg string) string {
	if c.lang == LangPT {
		if s, ok := ptBR[msg]; ok {
			return s
		}
	}
	return msg
}

// F formats a translated format string.
func (c catalog) F(format string, args ...any) string { return fmt.Sprintf(c.T(format), args...) }
