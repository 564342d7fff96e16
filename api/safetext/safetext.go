// Package safetext is the one gate every text from outside (the service, a webhook, the config,
// the local store) passes before a terminal, a log, a report or a printer shows it.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes s safe to show on one line, so it can never drive a terminal or spoof what is
// shown:
//   - C0 controls (ESC, BEL, CR, LF, TAB, NUL…), DEL and C1 controls (U+0080–U+009F, e.g. the
//     one-byte CSI U+009B) and the line and paragraph separators become a space;
//   - invisible format characters are removed: the bidi embeddings, overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C, the zero-width
//     characters U+200B–U+200D and U+FEFF, soft hyphen, tags and the other default-ignorable
//     fillers;
//   - invalid UTF-8 becomes U+FFFD.
//
// Accented text, emoji and their variation selectors are kept. Clean is idempotent.
func Clean(s string) string {
	// Fast path: printable ASCII, or text with nothing to change, is returned as is.
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			break // C0 or DEL
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case blankRune(r):
			b.WriteByte(' ')
		case invisibleRune(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether Clean changes r.
func unsafeRune(r rune) bool { return blankRune(r) || invisibleRune(r) }

// blankRune: controls and line breaks, shown as a space.
func blankRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029'
}

// invisibleRune: format characters (Cf: bidi controls, zero-width characters, BOM, soft hyphen,
// tags) and the other default-ignorable fillers (Hangul fillers and the like), dropped.
func invisibleRune(r rune) bool {
	if r < 0xad {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}
