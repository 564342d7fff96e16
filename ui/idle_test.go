package ui

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/ui/common"
)

// The header's token life is in whole minutes, so an idle dashboard's header is the same
// frame for a minute at a time (issue 27: the countdown in seconds rewrote the header line
// every second), in en and pt-BR.
func TestTokenLifeChangesOncePerMinute(t *testing.T) {
	for _, tc := range []struct {
		lang       common.Lang
		left       time.Duration
		want       string
		sameAsLeft time.Duration // a moment in the same minute: the same text
	}{
		{common.LangEN, 297 * time.Second, "token 4 min", 241 * time.Second},
		{common.LangPT, 297 * time.Second, "sessão 4 min", 250 * time.Second},
		{common.LangEN, 59 * time.Second, "token <1 min", 31 * time.Second},
	} {
		m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
		m.c.Tr = common.Catalog{Lang: tc.lang}
		view := func(left time.Duration) string {
			m.link.token = api.TokenState{Cached: true, Expiry: goldenNow.Add(left)}
			return ansi.Strip(m.tokenView(goldenNow))
		}
		if got := view(tc.left); got != tc.want {
			t.Errorf("%s, %v left: %q, want %q", tc.lang, tc.left, got, tc.want)
		}
		if a, b := view(tc.left), view(tc.sameAsLeft); a != b {
			t.Errorf("%s: the header changes within a minute: %q then %q", tc.lang, a, b)
		}
	}
}
