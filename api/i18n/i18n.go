// Package i18n is pixdash's message catalog: one table per language (messages_en.go,
// messages_ptbr.go) keyed by message ids such as "day.paid" or "charges.n_charges_n", plural
// forms chosen by the CLDR rules of golang.org/x/text/feature/plural, and the one Lang type and
// parser that the dashboard, the reports, the config and the command line share.
//
// Texts are fmt format strings: the catalog picks the text, fmt formats it. (x/text's
// message.Printer is not used to format: it localizes every %d, so a year, an id or a
// column width would gain a thousands separator.)
//
// The tables are maintained by catalogconv, which turns tr.T("English") call sites into ids;
// see the package's tests for the rules they keep (no missing, unused or doubled id).
package i18n

import (
	"fmt"
	"maps"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// Lang is a language of the dashboard, its reports and its command line.
type Lang string

// The supported languages.
const (
	English    Lang = "en"
	Portuguese Lang = "pt-BR"
)

// Parse reads a language as the config's language and customer_language and the command
// line's --lang say it: "en", or "pt-BR" also written "pt", "pt_BR" or in any case. ok is false
// for anything else.
func Parse(s string) (l Lang, ok bool) {
	switch strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", "-")) {
	case "en":
		return English, true
	case "pt-br", "pt":
		return Portuguese, true
	}
	return "", false
}

// ParseLocale reads a POSIX locale name such as "pt_BR.UTF-8" or "pt_BR@euro": its language
// and territory go through Parse, the codeset and modifier are ignored. "C", "POSIX" and
// anything Parse does not know give ok false.
func ParseLocale(locale string) (Lang, bool) {
	if i := strings.IndexAny(locale, ".@"); i >= 0 {
		locale = locale[:i]
	}
	return Parse(locale)
}

// FromEnv is the language the environment asks for, in POSIX order: the first non-empty of
// LC_ALL, LC_MESSAGES and LANG decides; pt_BR (and pt) give Portuguese, and anything else,
// "C" and "POSIX" included, or no locale at all, English.
func FromEnv(getenv func(string) string) Lang {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			if l, ok := ParseLocale(v); ok {
				return l
			}
			return English
		}
	}
	return English
}

// Message is one catalog entry: Other is the text; One, when set, makes the entry a plural
// message whose singular form it is.
type Message struct {
	One, Other string
}

// tables are the catalog's tables, by language.
var tables = map[Lang]map[string]Message{English: messagesEN, Portuguese: messagesPTBR}

// byText finds the "text." ids by their English text: strings that reach the catalog at run
// time as English data (states, other packages' messages) rather than as an id in the code.
var byText = func() map[string]string {
	m := map[string]string{}
	for id, msg := range messagesEN {
		if strings.HasPrefix(id, TextPrefix) {
			m[msg.Other] = id
		}
	}
	return m
}()

// TextPrefix begins the ids of texts found by their English text (see Catalog.Text).
const TextPrefix = "text."

// Catalog gives the messages of one language.
type Catalog struct{ Lang Lang }

// For is the catalog of l (English for anything but Portuguese).
func For(l Lang) Catalog {
	if l != Portuguese {
		l = English
	}
	return Catalog{Lang: l}
}

func (c Catalog) lookup(id string) (Message, bool) {
	if m, ok := tables[c.Lang][id]; ok {
		return m, true
	}
	m, ok := messagesEN[id]
	return m, ok
}

// T is the text of id in the catalog's language (English when the language lacks it). A
// string that is no id is looked up as English text (Text); failing that it is returned as it came.
func (c Catalog) T(id string) string {
	if m, ok := c.lookup(id); ok {
		return m.Other
	}
	return c.Text(id)
}

// Text translates an English text that reaches the catalog as data, not as an id: a state
// word, a preset's name, another package's message. Texts the catalog does not know come back
// unchanged.
func (c Catalog) Text(english string) string {
	if id, ok := byText[english]; ok {
		if m, ok := c.lookup(id); ok {
			return m.Other
		}
	}
	return english
}

// F formats the text of id with args (fmt verbs).
func (c Catalog) F(id string, args ...any) string {
	return fmt.Sprintf(c.T(id), args...)
}

// N formats the plural message id for the count n: its One or Other form by the language's
// plural rule. args default to n alone, and are given when the format names more figures
// ("%d of %d events": shown, n).
func (c Catalog) N(id string, n int, args ...any) string {
	if len(args) == 0 {
		args = []any{n}
	}
	m, ok := c.lookup(id)
	if !ok {
		return fmt.Sprintf(id, args...)
	}
	if m.One != "" && c.PluralOne(n) {
		return fmt.Sprintf(m.One, args...)
	}
	return fmt.Sprintf(m.Other, args...)
}

// PluralOne reports whether the count n takes the singular form in the catalog's language, by
// the CLDR cardinal rules (golang.org/x/text/feature/plural). One decision of our own: CLDR puts
// 0 in Portuguese's "one" form ("0 cobrança"); the dashboard writes "0 cobranças", as Brazilian
// screens usually do, so zero takes the plural form in every language.
func (c Catalog) PluralOne(n int) bool {
	if n == 0 {
		return false
	}
	tag := language.English
	if c.Lang == Portuguese {
		tag = language.BrazilianPortuguese
	}
	abs := n
	if abs < 0 {
		abs = -abs
	}
	return plural.Cardinal.MatchPlural(tag, abs, 0, 0, 0, 0) == plural.One
}

// IDs is a copy of l's table, by id (for tests and tools).
func IDs(l Lang) map[string]Message {
	return maps.Clone(tables[l])
}
