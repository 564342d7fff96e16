package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/ui/common"
)

// TestEventsCountsOtherEnvironment: the Events view counts the signed events refused because
// they came from the other environment and names that reason, in English and Portuguese (issue
// 26 item 7).
func TestEventsCountsOtherEnvironment(t *testing.T) {
	stats := api.ReceiverStats{Accepted: 3, WrongEnvironment: 2,
		LastRejection: api.Rejection{At: time.Date(2026, 11, 21, 14, 2, 0, 0, time.UTC), Reason: api.RejectEnvironment, Remote: "203.0.113.9:4242"}}
	for _, tc := range []struct {
		lang common.Lang
		want []string
	}{
		{common.LangEN, []string{"wrong environment 2", "last: wrong environment 14:02"}},
		{common.LangPT, []string{"de outro ambiente 2", "última: de outro ambiente 14:02"}},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			s, _ := evSession(t, true, stats)
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
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
}

// TestInvalidReferenceHint: the service gives every refused sub-account reference the code
// SUB_ACCOUNT_INVALID_REFERENCE (issue 26 item 4); only 'principal' is told it is reserved.
func TestInvalidReferenceHint(t *testing.T) {
	for _, tc := range []struct {
		lang  common.Lang
		value string
		want  string
	}{
		{common.LangEN, "principal", "'principal' is reserved for the main account"},
		{common.LangEN, "", "'principal' is reserved for the main account"},
		{common.LangEN, "Loja Centro", "use only lowercase letters, digits, - and _, starting with a letter or digit"},
		{common.LangPT, "Loja Centro", "use só letras minúsculas"},
	} {
		e := &api.Error{HTTPStatus: 400, Kind: api.KindBadRequest, Code: api.CodeSubAccountInvalidReference,
			Details: map[string]any{"code": api.CodeSubAccountInvalidReference, "field": "reference", "value": tc.value}}
		if got := common.ErrorHint(common.Catalog{Lang: tc.lang}, e); !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: hint %q, want %q", tc.lang, tc.value, got, tc.want)
		}
	}
}
