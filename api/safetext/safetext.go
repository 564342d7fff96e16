// Package safetext is the one gate every text from outside (the service, a webhook, the config,
// the local store) passes before a terminal, a log, a report or a printer shows it.
package safetext

import (
	"io"
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

// CleanText is Clean for text of several lines: each line is cleaned as Clean does, and the
// line breaks "\n" and "\r\n" are kept (a lone "\r", which would let a line overwrite itself
// on a terminal, becomes a space).
func CleanText(s string) string {
	var b strings.Builder
	w := &Writer{w: &b, started: true}
	_, _ = w.Write([]byte(s))
	_ = w.Flush()
	return b.String()
}

// Writer passes everything written to it through CleanText on its way to the underlying
// writer, as a stream: a rune or a "\r\n" split between two writes is handled as one. A
// byte-order mark at the very start of the stream is kept (the Brazilian spreadsheet dialect
// starts with one); anywhere else it is dropped like any invisible character. Call Flush when
// done: it writes what an unfinished rune or a last "\r" held back.
type Writer struct {
	w       io.Writer
	pending []byte // the start of a rune cut by the end of a write, or a "\r"
	started bool   // something was written (a byte-order mark is kept only before)
	buf     []byte
}

// NewWriter returns a Writer cleaning what it passes on to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes it on; it returns len(p) when the underlying writer took all of it.
func (c *Writer) Write(p []byte) (int, error) {
	in := p
	if len(c.pending) > 0 {
		in = append(c.pending[:len(c.pending):len(c.pending)], p...)
		c.pending = c.pending[:0]
	}
	out := c.buf[:0]
	for i := 0; i < len(in); {
		b := in[i]
		if b >= 0x20 && b < 0x7f || b == '\n' {
			out = append(out, b)
			i++
			c.started = true
			continue
		}
		if b == '\r' {
			switch {
			case i+1 == len(in):
				c.pending = append(c.pending, '\r')
			case in[i+1] == '\n':
				out = append(out, '\r', '\n')
				i++
			default:
				out = append(out, ' ')
			}
			i++
			c.started = true
			continue
		}
		if b >= utf8.RuneSelf && !utf8.FullRune(in[i:]) {
			c.pending = append(c.pending, in[i:]...)
			break
		}
		r, n := utf8.DecodeRune(in[i:])
		i += n
		switch {
		case r == '\uFEFF' && !c.started:
			out = utf8.AppendRune(out, r)
		case r == utf8.RuneError && n == 1:
			out = utf8.AppendRune(out, utf8.RuneError)
		case blankRune(r):
			out = append(out, ' ')
		case invisibleRune(r):
		default:
			out = utf8.AppendRune(out, r)
		}
		c.started = true
	}
	c.buf = out
	if len(out) > 0 {
		if _, err := c.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what the last write held back: a lone "\r" becomes a space and an unfinished
// rune U+FFFD.
func (c *Writer) Flush() error {
	if len(c.pending) == 0 {
		return nil
	}
	var out string
	if c.pending[0] == '\r' {
		out = " "
	} else {
		out = string(utf8.RuneError)
	}
	c.pending = c.pending[:0]
	_, err := io.WriteString(c.w, out)
	return err
}
