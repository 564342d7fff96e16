package state

import (
	"database/sql/driver"
	"strings"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// Fold is the form the charges filter and the search compare: lower case without accents, so
// "pao" finds "Pão de queijo" and "JOAO" finds "João". Latin letters with a diacritic become
// their base letter (ç → c, ß → ss, æ → ae), combining marks (U+0300–U+036F, as in
// decomposed text) are dropped; other characters are only lower-cased. The haystack the
// filter matches (charges.hay) is stored folded, and migration 0008 folded the rows written
// before.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s) // no allocation when s is already lowercase
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(unicode.ToLower(r))
		case r >= 0x300 && r <= 0x36f:
		default:
			if base, ok := foldTable[r]; ok {
				b.WriteString(base)
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
		}
	}
	return b.String()
}

// foldTable maps the Latin-1 and Latin Extended-A letters (both cases) to their base letters.
var foldTable = func() map[rune]string {
	m := map[rune]string{}
	for base, letters := range map[string]string{
		"a": "àáâãäåāăą", "ae": "æ", "c": "çćĉċč", "d": "ðďđ", "e": "èéêëēĕėęě",
		"g": "ĝğġģ", "h": "ĥħ", "i": "ìíîïĩīĭįıİ", "ij": "ĳ", "j": "ĵ", "k": "ķĸ",
		"l": "ĺļľŀł", "n": "ñńņňŉŋ", "o": "òóôõöøōŏő", "oe": "œ", "r": "ŕŗř",
		"s": "śŝşšſ", "ss": "ß", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range letters {
			m[r] = base
			if u := unicode.ToUpper(r); u != r {
				m[u] = base
			}
		}
	}
	m['Ÿ'] = "y"
	return m
}()

// foldSQL is the SQL function pixdash_fold(text), Fold for migrations (0008 folds the haystacks
// written before). NULL stays NULL.
const foldSQL = "pixdash_fold"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(foldSQL, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return Fold(v), nil
		case []byte:
			return Fold(string(v)), nil
		}
		return args[0], nil
	})
}
