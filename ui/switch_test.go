package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/ui/common"
)

func TestFlowProfileSwitchIntoProductionAsksAndReloads(t *testing.T) {
	sand, _ := demo(t, DemoOptions{})
	sand.Profile, sand.Demo = "loja", false
	var opened atomic.Int32
	open := func(ctx context.Context, name string) (*Session, error) {
		opened.Add(1)
		s, _, err := DemoSession(ctx, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
		if err != nil {
			return nil, err
		}
		s.Profile, s.Demo = name, false
		t.Cleanup(s.Close)
		return s, nil
	}
	m := New(Options{
		Session:     sand,
		Profiles:    []ProfileInfo{{Name: "loja", Env: api.Sandbox}, {Name: "live", Env: api.Production}},
		OpenProfile: open,
		Bell:        func() {}, Clipboard: func(string) {},
	})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	t.Cleanup(func() { stopEngine(t, tm, m) })
	f := &flow{t: t, tm: tm, m: m, out: &screenLog{}}
	f.waitFor("SANDBOX", "profile loja")
	f.keys("P")
	f.waitFor("Switch profile", "loja", "live", "PRODUCTION")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	f.waitFor("Switch to the PRODUCTION profile live? (y/N)")
	f.keys("n")
	f.waitFor("Cancelled")
	if opened.Load() != 0 {
		t.Fatal("a refused switch opened the profile")
	}
	f.keys("P")
	f.waitFor("Switch profile")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	f.waitFor("Switch to the PRODUCTION profile live? (y/N)")
	f.keys("y")
	f.waitFor("PRODUCTION", "profile live", "Switched to profile live (PRODUCTION).", "┌")
	if opened.Load() != 1 {
		t.Fatalf("opened %d times", opened.Load())
	}
}

func TestProfileSwitchWithoutProfilesExplains(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	m.Update(runeKey("P"))
	if v := m.View(); !strings.Contains(v, "No other profiles") {
		t.Fatalf("no explanation:\n%s", v)
	}
}

func TestRepliesForAnOldSessionOrWalletAreDropped(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	old := m.tagNow()
	send(t, m, common.SwitchWalletMsg{Wallet: "loja-sul"})
	if m.app.Wallet != "loja-sul" {
		t.Fatalf("wallet = %q", m.app.Wallet)
	}
	if !m.stale(old) {
		t.Fatal("a reply made for principal is not stale after switching to loja-sul")
	}
	// A projects reply for the old wallet does not reach a form opened in the new one.
	m.Update(runeKey("n"))
	m.Update(reply(m, common.ProjectsMsg{Tag: old, Items: []api.Project{{ID: "00000000-0000-4000-8000-000000000001", Name: "Old wallet project"}}}))
	if !formOf(m).ProjLoad || len(formOf(m).Projects) != 0 {
		t.Fatal("a stale projects reply was applied to the form")
	}
	m.Update(reply(m, common.ProjectsMsg{Tag: m.tagNow(), Items: []api.Project{{ID: "00000000-0000-4000-8000-000000000002", Name: "Loja Sul"}}}))
	if len(formOf(m).Projects) != 1 || formOf(m).Projects[0].Name != "Loja Sul" {
		t.Fatalf("current reply not applied: %+v", formOf(m).Projects)
	}
	// The charges view now lists only the new wallet's charges.
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEsc}); cmd != nil {
		send(t, m, runReply(cmd))
	}
	if v := m.View(); strings.Contains(v, "Café e pão de queijo") || !strings.Contains(v, "Bolo de fubá") {
		t.Fatalf("charges view not scoped to loja-sul:\n%s", v)
	}
	// A reply from before a profile switch (older generation) is dropped too.
	gen := m.app.Gen
	m.setSession(goldenSession(t, api.Production))
	if m.app.Gen == gen || !m.stale(common.Tag{Gen: gen, Wallet: m.app.Wallet}) {
		t.Fatal("the session generation did not change")
	}
}
