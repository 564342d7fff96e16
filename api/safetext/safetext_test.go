package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                 "plain",
		"Padaria Pão Quente ☕":  "Padaria Pão Quente ☕",
		"x\x1b]52;c;AAAA\x07y":  "x ]52;c;AAAA y",
		"a\x1b[1;31mb":          "a [1;31mb",
		"line\r\nbreak\ttab":    "line  break tab",
		"c1\u009b2J":            "c1 2J",
		"bidi\u202eevil\u2066x": "bidievilx",
		"zero\u200bwidth\ufeff": "zerowidth",
		"bad\xffutf":            "bad\ufffdutf",
		"sep\u2028par\u2029":    "sep par ",
		"nul\x00del\x7f":        "nul del ",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31mb", "\u202e", "\xff\xfe", "ok ☕"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q: invalid UTF-8", s, out)
		}
		if strings.ContainsFunc(out, unsafeRune) {
			t.Fatalf("Clean(%q) = %q: a control or invisible character is left", s, out)
		}
		if again := Clean(out); again != out {
			t.Fatalf("Clean is not idempotent: %q then %q", out, again)
		}
	})
}

// Every character Clean must neutralise, one by one: C0, DEL, C1, the bidi embeddings,
// overrides and isolates, the marks, zero-width characters and BOM.
func TestCleanEveryDangerousRune(t *testing.T) {
	var rs []rune
	for r := rune(0); r < 0x20; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x7f); r <= 0x9f; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x202a); r <= 0x202e; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x2066); r <= 0x2069; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x061c, 0xfeff, 0x2028, 0x2029, 0x00ad, 0x2060, 0xe0041)
	for _, r := range rs {
		if got := Clean("a" + string(r) + "b"); got != "ab" && got != "a b" {
			t.Errorf("Clean(a %U b) = %q", r, got)
		}
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"one\ntwo\r\nthree\n":           "one\ntwo\r\nthree\n",
		"\x1b]0;PWNED\x07\n\x1b[2Jx":    " ]0;PWNED \n [2Jx",
		"over\rwrite":                   "over write",
		"c1\u009b31m\u202eevil\u202c\n": "c1 31mevil\n",
		"\ufeffbom":                     "bom",
		"end\r":                         "end ",
		"cut\xe2\x82":                   "cut\ufffd",
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A Writer's output is the same however the input is cut into writes, keeps a leading BOM and
// line breaks, and holds nothing else that drives a terminal.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\ufeffx;y\r\n", "\u009b\u202e", "é\xe2\x82", "\r"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		var whole strings.Builder
		w := NewWriter(&whole)
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		_ = w.Flush()
		k := int(cut) % (len(s) + 1)
		var parts strings.Builder
		w = NewWriter(&parts)
		_, _ = w.Write([]byte(s[:k]))
		_, _ = w.Write([]byte(s[k:]))
		_ = w.Flush()
		if whole.String() != parts.String() {
			t.Fatalf("%q cut at %d: %q, whole %q", s, k, parts.String(), whole.String())
		}
		out := strings.TrimPrefix(whole.String(), "\ufeff")
		if !utf8.ValidString(out) {
			t.Fatalf("%q: invalid UTF-8 %q", s, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.ContainsFunc(strings.TrimSuffix(line, "\r"), unsafeRune) {
				t.Fatalf("%q: %q holds a control or invisible character", s, out)
			}
		}
		if CleanText(s) != strings.TrimPrefix(whole.String(), "\ufeff") && !strings.HasPrefix(s, "\ufeff") {
			t.Fatalf("CleanText(%q) = %q, Writer %q", s, CleanText(s), whole.String())
		}
	})
}
