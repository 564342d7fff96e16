package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
	"pixdash/ui/qr"
	"pixdash/ui/search"
	"pixdash/ui/wallets"
)

// Defect 1: keys read together ("jjj", "1n", "5") are the same keys one by one outside a text
// field, and stay text inside one.
func TestRunesReadTogetherAreKeysOneByOne(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)

	// "jj" in one message moves the cursor two rows, as two messages do.
	one := goldenModel(t, s, 120, 40)
	press(t, one, "j", "j")
	together := goldenModel(t, s, 120, 40)
	send(t, together, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if one.charges.Cursor != 2 || together.charges.Cursor != one.charges.Cursor {
		t.Fatalf("cursor after jj together = %d, one by one = %d (want 2)", together.charges.Cursor, one.charges.Cursor)
	}

	// "3n": the wallets view, then the form; what follows the key that opened a text field is
	// typed into it.
	m := goldenModel(t, s, 120, 40)
	send(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("3n12")})
	if m.view != viewWallets {
		t.Fatalf("view = %d, want wallets", m.view)
	}
	f := formOf(m)
	if f == nil {
		t.Fatal("n did not open the form")
	}
	if got := f.Inputs[newcharge.FAmount].Value(); got != "12" {
		t.Fatalf("amount field = %q, want the rest of the keys, 12", got)
	}

	// Inside the filter, "jjj" is text.
	m = goldenModel(t, s, 120, 40)
	press(t, m, "/")
	send(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("caf")})
	if got := m.charges.Filter.Value(); got != "caf" {
		t.Fatalf("filter = %q, want caf", got)
	}
}

// Defect 8: the help overlay fits 80x24 and scrolls to its last key.
func TestHelpScrollsAt80x24(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 80, 24)
	press(t, m, "?")
	frame := ansi.Strip(m.View())
	if n := strings.Count(frame, "\n") + 1; n != 24 {
		t.Fatalf("help frame has %d lines, want 24", n)
	}
	if !strings.Contains(frame, "scroll") {
		t.Fatalf("help at 80x24 does not say it scrolls:\n%s", frame)
	}
	first, last := "Everywhere", "expire now" // the first section's title, the QR screen's last key
	if !strings.Contains(frame, first) || strings.Contains(frame, last) {
		t.Fatalf("the help at 80x24 should start at its top and not fit:\n%s", frame)
	}
	press(t, m, "G")
	if frame = ansi.Strip(m.View()); !strings.Contains(frame, last) || strings.Contains(frame, first) {
		t.Fatalf("after G the help does not show its end:\n%s", frame)
	}
	press(t, m, "esc")
	if len(m.overlays) != 0 || strings.Contains(ansi.Strip(m.View()), "closes this help") {
		t.Fatal("esc did not close the help")
	}
}

// The overlays are a stack: the top one has the keyboard, esc closes only it, and the next key
// (sent at once) already reaches what is below.
func TestOverlayStackPrecedence(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000001")
	press(t, m, "?")
	if _, ok := m.overlays.Top().(*helpOverlay); !ok || len(m.overlays) != 2 {
		t.Fatalf("stack = %T…, want the help over the QR screen", m.overlays.Top())
	}
	press(t, m, "esc")
	if _, ok := m.overlays.Top().(*qr.View); !ok {
		t.Fatalf("esc closed more than the help: top = %T", m.overlays.Top())
	}
	// esc then 3 in one go: the QR closes at once and 3 reaches the views.
	_, cmd := m.Update(keyMsg("esc"))
	_, cmd2 := m.Update(keyMsg("3"))
	settle(t, m, tea.Batch(cmd, cmd2))
	if len(m.overlays) != 0 || m.view != viewWallets {
		t.Fatalf("after esc,3: %d overlays, view %d; want none and wallets", len(m.overlays), m.view)
	}
}

// A reply goes to the component that asked for it: a wallets reply reaches the wallets view
// only, and one for a view of a replaced session is dropped.
func TestRepliesReachOnlyTheirOwner(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	wv := m.wallets()
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Err: errors.New("boom")}))
	if !strings.Contains(fmt.Sprint(wv.LoadErr()), "boom") {
		t.Fatalf("the wallets view did not get its reply: %v", wv.LoadErr())
	}
}

// Defect 4: the light reflects the last real outcome, not idleness.
func TestLinkLightFollowsTheLastOutcome(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	refused := &api.Error{HTTPStatus: 401, Kind: api.KindUnauthorized, Message: "Invalid credentials"}
	notFound := &api.Error{HTTPStatus: 404, Kind: api.KindNotFound, Message: "not found"}
	down := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	cases := []struct {
		name  string
		steps func(l *linkState)
		want  linkStatus
	}{
		{"nothing yet", func(l *linkState) {}, linkUnknown},
		{"ok, then idle for ten minutes", func(l *linkState) { l.note(nil, t0) }, linkOnline},
		{"a refusal of the request proves the link", func(l *linkState) { l.note(notFound, t0) }, linkOnline},
		{"wrong secret", func(l *linkState) { l.note(nil, t0); l.note(refused, t0.Add(time.Second)) }, linkRefused},
		{"service down", func(l *linkState) { l.note(nil, t0); l.note(down, t0.Add(time.Second)) }, linkOffline},
		{"back after being down", func(l *linkState) { l.note(down, t0); l.note(nil, t0.Add(5*time.Second)) }, linkOnline},
		{"cancelled call says nothing", func(l *linkState) { l.note(nil, t0); l.note(context.Canceled, t0.Add(time.Second)) }, linkOnline},
		{"a background renewal refused", func(l *linkState) {
			l.note(nil, t0)
			l.sample(api.TokenState{Cached: true, Expiry: t0.Add(time.Minute), LastError: refused, Rejected: true, FailedAt: t0.Add(time.Second)}, t0.Add(2*time.Second))
		}, linkRefused},
		{"a background renewal unreachable", func(l *linkState) {
			l.note(nil, t0)
			l.sample(api.TokenState{Cached: true, Expiry: t0.Add(time.Minute), LastError: down, FailedAt: t0.Add(time.Second)}, t0.Add(2*time.Second))
		}, linkOffline},
		{"a background renewal succeeds after an outage", func(l *linkState) {
			l.sample(api.TokenState{Cached: true, Expiry: t0.Add(time.Minute)}, t0)
			l.note(down, t0.Add(time.Second))
			l.sample(api.TokenState{Cached: true, Expiry: t0.Add(6 * time.Minute)}, t0.Add(2*time.Second))
		}, linkOnline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l linkState
			tc.steps(&l)
			if l.status != tc.want {
				t.Fatalf("status = %d, want %d", l.status, tc.want)
			}
		})
	}
}

// The header never says "stale" for an idle, healthy dashboard, and says the credentials are
// refused when they are.
func TestLinkLightInTheHeader(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	m.link.note(nil, goldenNow.Add(-10*time.Minute))
	if h := ansi.Strip(m.View()); !strings.Contains(h, "● online · answered 10m") || strings.Contains(h, "stale") {
		t.Fatalf("idle header:\n%s", strings.SplitN(h, "\n", 3)[1])
	}
	m.link.note(&api.Error{HTTPStatus: 401, Kind: api.KindUnauthorized, Message: "Invalid credentials"}, goldenNow)
	if h := ansi.Strip(m.View()); !strings.Contains(h, "credentials refused") {
		t.Fatalf("refused header:\n%s", strings.SplitN(h, "\n", 3)[1])
	}
}

// Defect 6: a status message lives as long as its cause: OK/info ones expire, an owned one
// goes when its owner clears it, another owner's message is left alone.
func TestStatusMessagesHaveAnOwnerAndALifetime(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	now := goldenNow
	m := New(Options{Session: s, Now: func() time.Time { return now }})
	m.setStatus("Charge R$ 1,00 created.", common.StatusOK)
	now = now.Add(common.StatusLifetime - time.Second)
	m.onTick(now)
	if m.status.Text == "" {
		t.Fatal("an OK message went before its lifetime")
	}
	now = now.Add(2 * time.Second)
	m.onTick(now)
	if m.status.Text != "" {
		t.Fatalf("an OK message outlived its lifetime: %q", m.status.Text)
	}

	m.setStatus("the service is down", common.StatusError)
	now = now.Add(time.Hour)
	m.onTick(now)
	if m.status.Text == "" {
		t.Fatal("an error went by itself")
	}

	m.setOwnedStatus(chargeOwner("c1"), "Payment simulated; waiting…", common.StatusWarn)
	m.clearStatus(chargeOwner("c2"))
	if m.status.Text == "" {
		t.Fatal("another charge cleared the message")
	}
	m.Update(common.StatusMsg{Owner: chargeOwner("c1")})
	if m.status.Text != "" {
		t.Fatalf("the owner's clear left %q", m.status.Text)
	}
}

// Defect 6: "Fix the highlighted fields" goes with the form.
func TestFormStatusGoesWithTheForm(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	press(t, m, "n")
	f := formOf(m)
	if f == nil {
		t.Fatal("no form")
	}
	f.Inputs[newcharge.FDescription].SetValue("")
	cmd := f.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	if cmd == nil {
		t.Fatal("an invalid submit said nothing")
	}
	m.Update(reply(m, runReply(cmd)))
	if m.status.Owner != common.OwnerForm || m.status.Text == "" {
		t.Fatalf("status = %+v, want the form's", m.status)
	}
	m.closeOverlay(f)
	if m.status.Text != "" {
		t.Fatalf("the form closed and left %q", m.status.Text)
	}
}

// A component runs alone under teatest: the charges view, sized, reading its window, with
// its keys.
func TestComponentRunsAlone(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := New(Options{Session: s, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	tm := teatest.NewTestModel(t, common.Standalone{C: m.charges}, teatest.WithInitialTermSize(100, 20))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(string(b), "Café e pão de queijo") && strings.Contains(string(b), "wallet principal")
	}, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// Defect 6: "Opening profile…" is said once the production switch is confirmed, not before.
func TestProductionSwitchSaysOpeningOnlyAfterYes(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := New(Options{Session: s, Now: func() time.Time { return goldenNow },
		Profiles: []ProfileInfo{{Name: "loja", Env: api.Sandbox}, {Name: "live", Env: api.Production}},
		OpenProfile: func(ctx context.Context, name string) (*Session, error) {
			return nil, errors.New("not in this test")
		}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.switchProfile("live")
	if _, ok := m.overlays.Top().(*common.ConfirmDialog); !ok {
		t.Fatalf("top = %T, want the production confirmation", m.overlays.Top())
	}
	if strings.Contains(m.status.Text, "Opening") {
		t.Fatalf("status before the answer: %q", m.status.Text)
	}
	_, cmd := m.Update(runeKey("y"))
	for _, msg := range runAll(cmd) {
		if _, ok := msg.(openProfileMsg); ok {
			m.Update(reply(m, msg))
		}
	}
	if !strings.Contains(m.status.Text, "Opening profile live") {
		t.Fatalf("status after yes: %q", m.status.Text)
	}
}

// runAll runs a command and the batches it returns, without waiting commands (ticks), and
// returns their messages.
func runAll(cmd tea.Cmd) []tea.Msg {
	if cmd == nil || waiting(cmd) {
		return nil
	}
	msg := runReply(cmd)
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runAll(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// A local database error says nothing about the service; a view's failed call turns the light.
func TestLinkLightIgnoresLocalErrorsAndHearsViews(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	var l linkState
	l.note(nil, t0)
	l.note(fmt.Errorf("save: %w", errors.New("disk I/O error")), t0.Add(time.Second))
	if l.status != linkOnline {
		t.Fatalf("a local error turned the light to %d", l.status)
	}
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	m.link.note(nil, goldenNow)
	wv := m.wallets()
	down := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Err: down}))
	if m.link.status != linkOffline {
		t.Fatalf("a wallets call that could not reach the service left the light at %d", m.link.status)
	}
}

// S opens the search in the key's own update: keys typed right after it go into its field.
func TestSearchOpensAtOnce(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 40)
	m.Update(runeKey("S"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E999")})
	o, ok := m.overlays.Top().(*search.Overlay)
	if !ok || o.Input.Value() != "E999" {
		t.Fatalf("top = %T, typed %q", m.overlays.Top(), func() string {
			if ok {
				return o.Input.Value()
			}
			return ""
		}())
	}
}

// A view's ask puts its overlay on the stack in the same update (R's refund form).
func TestPaneAskPushesInTheSameUpdate(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	m.charges.Ask(newHelpOverlay(m.c, m.helpGroups()))
	m.Update(runeKey("j"))
	if _, ok := m.overlays.Top().(*helpOverlay); !ok {
		t.Fatalf("top = %T, want what the view asked for", m.overlays.Top())
	}
}
