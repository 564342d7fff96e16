package ui

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// paidCharge creates a charge of amount on s's emulator, tracks it and has it paid.
func paidCharge(t *testing.T, s *Session, amount api.Money) string {
	t.Helper()
	ctx := context.Background()
	r := workflow.CreateCharge(ctx, s.Client, s.Store, workflow.Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: amount, Description: "Venda"}}, nil)
	if r.Err != nil || r.Charge == nil {
		t.Fatalf("create: %+v", r)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	return r.Charge.ID
}

// onPaidReport waits up to within for the on_paid report of m's engine, as the root's
// message (false when none comes); the engine's other reports are passed over.
func onPaidReport(t *testing.T, m *Model, within time.Duration) (onPaidMsg, bool) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case r := <-engineOf(m).Reports():
			if d, ok := r.(workflow.OnPaidDone); ok {
				return onPaidMsg{gen: m.app.Gen, res: d.Result}, true
			}
		case <-deadline:
			return onPaidMsg{}, false
		}
	}
}

// A charge read paid (here by a refresh; the engine's polls and read-backs alike) runs the
// profile's on_paid once, in the engine; the root shows a failed run.
func TestOnPaidRunsWhenATrackedChargeTurnsPaidAndShowsItsFailure(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		t.Run(string(lang), func(t *testing.T) {
			s, _ := demo(t, DemoOptions{})
			s.OnPaid = &workflow.OnPaidCommand{Argv: []string{"pixdash-no-such-program-xyz", "-d", "balcao"}, Timeout: 5 * time.Second, Profile: s.Profile}
			m := New(Options{Session: s, Lang: lang, CustomerLang: lang, Bell: func() {}})
			t.Cleanup(engineOf(m).Close)
			send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			engineOf(m).Start()
			id := paidCharge(t, s, 2590)
			if tx, ok := m.pollNow(id, api.WalletPrincipal)().(txMsg); !ok || tx.err != nil || tx.after.State() != state.StatePaid {
				t.Fatalf("refresh: %+v", tx)
			}
			got, ok := onPaidReport(t, m, 20*time.Second)
			if !ok || !got.res.Ran || got.res.Err == nil || got.res.ChargeID != id {
				t.Fatalf("on payment: %+v (%v)", got, ok)
			}
			m.Update(reply(m, got))
			want := map[common.Lang]string{
				common.LangEN: "on_paid pixdash-no-such-program-xyz failed: program not found · charge " + id + " (R$ 25,90)",
				common.LangPT: "on_paid pixdash-no-such-program-xyz falhou: programa não encontrado · cobrança " + id + " (R$ 25,90)",
			}[lang]
			if m.status.Text != want || m.status.Kind != common.StatusWarn {
				t.Errorf("status %q (%d), want %q", m.status.Text, m.status.Kind, want)
			}

			// The same payment seen again (a poll, a webhook's read-back): it already ran.
			m.pollNow(id, api.WalletPrincipal)()
			if again, ok := onPaidReport(t, m, 500*time.Millisecond); ok {
				t.Fatalf("second time: %+v", again)
			}

			// A reply for a replaced session is dropped.
			m.status = common.StatusMsg{}
			m.Update(onPaidMsg{gen: m.app.Gen + 1, res: got.res})
			if m.status.Text != "" {
				t.Errorf("stale reply shown: %q", m.status.Text)
			}
		})
	}
}

func TestOnPaidAbsentRunsNothing(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangEN, Bell: func() {}})
	t.Cleanup(engineOf(m).Close)
	engineOf(m).Start()
	id := paidCharge(t, s, 100)
	m.pollNow(id, api.WalletPrincipal)()
	if got, ok := onPaidReport(t, m, 500*time.Millisecond); ok {
		t.Fatalf("ran without a command: %+v", got)
	}
}
