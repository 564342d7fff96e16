package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// headerLine is the first line of the screen, without styling.
func headerLine(m *Model) string {
	line, _, _ := strings.Cut(m.View(), "\n")
	return ansi.Strip(line)
}

// TestHeaderWarnsAboutPlainWebhookListener: a receiver listening beyond loopback without TLS is
// named in the header (shorter on a narrow terminal, never pushing out the profile and wallet);
// without one the header says nothing about TLS.
func TestHeaderWarnsAboutPlainWebhookListener(t *testing.T) {
	for _, tt := range []struct {
		name    string
		exposed string
		lang    common.Lang
		width   int
		want    string
	}{
		{name: "wide", exposed: ":8787", lang: common.LangEN, width: 120, want: "⚠ webhooks on :8787 without TLS"},
		{name: "wide pt-BR", exposed: "0.0.0.0:8798", lang: common.LangPT, width: 120, want: "⚠ webhooks em 0.0.0.0:8798 sem TLS"},
		{name: "narrow", exposed: "0.0.0.0:8798", lang: common.LangEN, width: 80, want: "⚠ no TLS"},
		{name: "narrow pt-BR", exposed: "0.0.0.0:8798", lang: common.LangPT, width: 80, want: "⚠ sem TLS"},
		{name: "loopback or TLS", lang: common.LangEN, width: 120},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			s.WebhookExposed = tt.exposed
			m := New(Options{Session: s, Lang: tt.lang, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: tt.width, Height: 40})
			h := headerLine(m)
			if tt.want == "" {
				if strings.Contains(h, "TLS") || strings.Contains(h, "⚠") {
					t.Fatalf("header warns without an exposed listener: %q", h)
				}
				return
			}
			if !strings.Contains(h, tt.want) {
				t.Fatalf("header %q does not contain %q", h, tt.want)
			}
			for _, keep := range []string{"loja-centro", "principal"} {
				if !strings.Contains(h, keep) {
					t.Errorf("header %q lost %q to the warning", h, keep)
				}
			}
		})
	}
}

// TestTakeOverTriesFromCommandsAndSwitchesTheReceiver: the take-over is tried from a command
// every takeOverEvery (never inside Update), a busy receiver changes nothing, another failure is
// shown once, and success makes the session receive: the events view says where, the status
// says so, and what the new intake records reaches the view.
func TestTakeOverTriesFromCommandsAndSwitchesTheReceiver(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	s.ReceiverElsewhere = true
	var calls atomic.Int32
	var outcome atomic.Value // error, or nil for success
	outcome.Store(errBox{state.ErrReceiverBusy})
	intake, err := s.Store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = intake.Close() })
	s.TakeOver = func(ctx context.Context) (*Receiving, error) {
		calls.Add(1)
		if err := outcome.Load().(errBox).err; err != nil {
			return nil, err
		}
		return &Receiving{Intake: intake, Stats: func() api.ReceiverStats { return api.ReceiverStats{} }, URL: "http://127.0.0.1:8787/webhook"}, nil
	}
	clock := goldenNow
	m := New(Options{Session: s, Now: func() time.Time { return clock }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	send(t, m, runeKey("5"))
	if v := m.View(); !strings.Contains(v, "Another pixdash receives this profile's webhooks") {
		t.Fatalf("events view before the take-over:\n%s", v)
	}
	t0 := goldenNow
	var tries int32
	try := func(at time.Time) takeOverMsg {
		t.Helper()
		clock = at
		cmd := m.takeOverTick(at)
		if cmd == nil {
			t.Fatalf("no try at %s", at.Sub(t0))
		}
		if calls.Load() != tries {
			t.Fatal("TakeOver ran inside Update")
		}
		msg, ok := runReply(cmd).(takeOverMsg)
		if !ok {
			t.Fatal("the try returned another message")
		}
		tries++
		return msg
	}
	if m.takeOverTick(t0) != nil {
		t.Fatal("tried at once; the first try waits takeOverEvery")
	}
	msg := try(t0.Add(takeOverEvery))
	if m.takeOverTick(t0.Add(3*takeOverEvery)) != nil {
		t.Fatal("a second try started while one is under way")
	}
	m.Update(reply(m, msg))
	if s.Intake != nil || !s.ReceiverElsewhere || strings.Contains(m.View(), "Receiving at") {
		t.Fatal("a busy receiver changed the session")
	}
	if m.takeOverTick(t0.Add(takeOverEvery+takeOverEvery/2)) != nil {
		t.Fatal("tried again before takeOverEvery passed")
	}

	outcome.Store(errBox{errors.New("listen tcp 127.0.0.1:8787: bind: address already in use")})
	m.Update(reply(m, try(t0.Add(2*takeOverEvery))))
	if v := m.View(); !strings.Contains(v, "Could not take over the webhook receiver (trying again)") {
		t.Fatalf("the failure is not shown:\n%s", v)
	}
	m.setStatus("something else", common.StatusInfo)
	m.Update(reply(m, try(t0.Add(3*takeOverEvery))))
	if v := m.View(); strings.Contains(v, "Could not take over") {
		t.Fatal("the same failure was shown again")
	}

	// A reply for a replaced session is dropped.
	outcome.Store(errBox{nil})
	stale := try(t0.Add(4 * takeOverEvery))
	stale.gen--
	m.Update(reply(m, stale))
	if s.Intake != nil {
		t.Fatal("a stale reply was applied")
	}
	m.takeOver.trying = false

	send(t, m, try(t0.Add(5*takeOverEvery)))
	if s.Intake != intake || s.ReceiverElsewhere || s.WebhookURL != "http://127.0.0.1:8787/webhook" {
		t.Fatalf("session after the take-over: intake %v, elsewhere %v, url %q", s.Intake, s.ReceiverElsewhere, s.WebhookURL)
	}
	// What the new receiver records is in the store when Accept returns, and on screen once the
	// dashboard hears of the change.
	if err := s.Intake.Accept([]byte(`{"eventId":"evt-after-takeover","event":"refund_completed","amount":4.56}`)); err != nil {
		t.Fatal(err)
	}
	if _, ok := eventByID(t, s.Store, "evt-after-takeover"); !ok {
		t.Fatal("the intake's event is not in the store")
	}
	storeChanged(t, m)
	v := m.View()
	if !strings.Contains(v, "R$ 4,56") || !strings.Contains(v, "1 event ") {
		t.Errorf("the event received after the take-over is not listed:\n%s", v)
	}
	for _, want := range []string{"Receiving at http://127.0.0.1:8787/webhook", "This window now receives the profile's webhooks"} {
		if !strings.Contains(v, want) {
			t.Errorf("view does not say %q:\n%s", want, v)
		}
	}
	if m.takeOverTick(t0.Add(10*takeOverEvery)) != nil {
		t.Fatal("tried again while receiving")
	}
}

// errBox lets an atomic.Value hold a nil error.
type errBox struct{ err error }
