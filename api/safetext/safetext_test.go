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
