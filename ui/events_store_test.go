package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
)

// TestEventsShowsWhyDeliveriesWereRefused: the Events view says why the last delivery was
// refused and when, and counts the connections the receiver refused (issue 21 item 18, issue
// 22 item 13), in English and Portuguese.
func TestEventsShowsWhyDeliveriesWereRefused(t *testing.T) {
	stats := api.ReceiverStats{Accepted: 9, Rejected: 4, Refused: 7, Slow: 2,
		LastRejection: api.Rejection{At: time.Date(2026, 11, 21, 14, 2, 0, 0, time.UTC), Reason: api.RejectSignature, Remote: "203.0.113.9:4242", Detail: "webhook signature mismatch"}}
	cases := []struct {
		lang Lang
		want []string
	}{
		{LangEN, []string{"rejected 4", "last: bad signature 14:02", "connections refused 7", "too slow 2"}},
		{LangPT, []string{"rejeitados 4", "última: assinatura inválida 14:02", "conexões recusadas 7", "lentos demais 2"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.lang), func(t *testing.T) {
			s, _ := evSession(t, true, stats)
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 160, Height: 30})
			settle(t, m, m.focusActive())
			send(t, m, runeKey("5"))
			out := m.View()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the events view lacks %q:\n%s", w, out)
				}
			}
		})
	}
	// Another day's refusal carries its date.
	stats.LastRejection = api.Rejection{At: time.Date(2026, 11, 19, 9, 5, 0, 0, time.UTC), Reason: api.RejectTimestamp}
	s, _ := evSession(t, true, stats)
	_, v := eventsModel(t, s, 160, 30)
	if got := v.statsText(); !strings.Contains(got, "last: timestamp outside the window 19/11 09:05") {
		t.Errorf("stats %q", got)
	}
}
