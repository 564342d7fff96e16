package config

import (
	"strings"
	"testing"
)

// A value of the file with a bidi override or a zero-width character is refused where the
// value must be plain text, and no message about a value ever carries those characters on to
// the terminal: config's texts pass api/safetext like every text from outside.
func TestConfigValuesWithBidiAndZeroWidth(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		wantErr string
	}{
		{"description with a right-to-left override", []string{"default_description = \"Venda \u202egnp.exe\""}, "invisible ones (bidi, zero-width)"},
		{"description with a zero-width space", []string{"default_description = \"Ven\u200bda\""}, "invisible ones (bidi, zero-width)"},
		{"description with a bidi isolate", []string{"default_description = \"Venda \u2066x\u2069\""}, "invisible ones (bidi, zero-width)"},
		{"base_url with a zero-width joiner", []string{"base_url = \"https://api.exam\u200dple.com/v2\""}, "invisible ones (bidi, zero-width)"},
		{"tolerance with a bidi override", []string{"[profiles.shop.webhook]", "tolerance = \"30\u202e0s\""}, "is not a duration"},
		{"signature_header with a zero-width space", []string{"[profiles.shop.webhook]", "signature_header = \"X-Sig\u200bnature\""}, "is not an HTTP header name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseOne(t, profileDoc(tt.lines...), 0o600)
			if err == nil {
				t.Fatalf("accepted %q", tt.lines)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantErr) {
				t.Errorf("no problem says %q:\n%s", tt.wantErr, msg)
			}
			if strings.ContainsAny(msg, "\u202e\u200b\u200d\u2066\u2069") {
				t.Errorf("the message carries an invisible character: %q", msg)
			}
		})
	}
	if got := clean("a\u202eb\u200bc\x1b[2J", 40); got != "abc [2J" {
		t.Errorf("clean = %q, want the safetext form %q", got, "abc [2J")
	}
}
