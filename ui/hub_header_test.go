package ui

import (
	"strings"
	"testing"

	"pixdash/api"
	"pixdash/state/hub"
	"pixdash/state/workflow"
)

// Issue 25: the header shows the hub link honestly: connected, the events still waiting,
// reconnecting or stopped; nothing without a hub, and no sample is asked for then.
func TestHeaderShowsTheHubLink(t *testing.T) {
	for _, tc := range []struct {
		lang Lang
		st   hub.Status
		want string
	}{
		{LangEN, hub.Status{State: hub.StateConnected, Lag: 0}, "⇄ hub"},
		{LangEN, hub.Status{State: hub.StateConnected, Lag: 3}, "⇄ hub · 3 waiting"},
		{LangEN, hub.Status{State: hub.StateReconnecting, Lag: -1}, "⇄ hub reconnecting…"},
		{LangEN, hub.Status{State: hub.StateConnecting, Lag: -1}, "⇄ hub reconnecting…"},
		{LangEN, hub.Status{State: hub.StateStopped, Lag: -1}, "⇄ hub stopped"},
		{LangPT, hub.Status{State: hub.StateConnected, Lag: 12}, "⇄ hub · 12 na fila"},
		{LangPT, hub.Status{State: hub.StateStopped, Lag: -1}, "⇄ hub parado"},
	} {
		m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
		m.c.Tr.Lang = tc.lang
		if strings.Contains(m.View(), "⇄") {
			t.Fatalf("a profile without a hub shows a hub link:\n%s", m.View())
		}
		if m.hubLink() != nil {
			t.Fatal("a session without a hub has a hub link to sample")
		}
		m.Update(hubSampledMsg{gen: m.app.Gen, st: tc.st})
		if got := m.View(); !strings.Contains(got, tc.want) {
			t.Errorf("%s %+v: header lacks %q:\n%s", tc.lang, tc.st, tc.want, got)
		}
		// A sample from a replaced session is dropped.
		m.Update(hubSampledMsg{gen: m.app.Gen + 1, st: hub.Status{State: hub.StateStopped}})
		if tc.st.State != hub.StateStopped && strings.Contains(m.View(), "stopped") {
			t.Errorf("a stale sample was drawn")
		}
	}
}

// Issue 25: a counter fed by the hub is not told to add a webhook receiver: its Events view
// says the events come through the hub.
func TestEventsViewOfAHubCounter(t *testing.T) {
	for lang, want := range map[Lang]string{
		LangEN: "Events arrive through the shop's hub",
		LangPT: "Os eventos chegam pelo hub da loja",
	} {
		s := goldenSession(t, api.Sandbox)
		s.Intake = nil
		s.Hub = &workflow.HubCounter{}
		m := goldenModel(t, s, 120, 40)
		m.c.Tr.Lang = lang
		m.Update(runeKey("5"))
		got := m.View()
		if !strings.Contains(got, want) || strings.Contains(got, "[profiles.") {
			t.Errorf("%s: the events view of a hub counter:\n%s", lang, got)
		}
	}
}
