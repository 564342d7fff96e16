package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// onPaidMsgs runs cmd (and the batches it returns) and collects the on_paid replies.
func onPaidMsgs(t *testing.T, cmd tea.Cmd) []onPaidMsg {
	t.Helper()
	var out []onPaidMsg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := runLeaf(t, c).(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case onPaidMsg:
			out = append(out, msg)
		}
	}
	return out
}

func TestOnPaidRunsWhenATrackedChargeTurnsPaidAndShowsItsFailure(t *testing.T) {
	for _, lang := range []Lang{LangEN, LangPT} {
		t.Run(string(lang), func(t *testing.T) {
			s, _ := demo(t, DemoOptions{})
			s.OnPaid = &workflow.OnPaidCommand{Argv: []string{"pixdash-no-such-program-xyz", "-d", "balcao"}, Timeout: 5 * time.Second, Profile: s.Profile}
			m := New(Options{Session: s, Lang: lang, CustomerLang: lang, Bell: func() {}})
			send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			paidAt := time.Now()
			before := state.Charge{ID: "tx_onpaid", Amount: 2590, Status: api.StatusPending}
			after := before
			after.Status, after.PaidAt = api.StatusCompleted, &paidAt

			// Still pending, or already paid before: nothing runs.
			if got := onPaidMsgs(t, m.onChargeChanged(before, before)); len(got) != 0 {
				t.Fatalf("pending: %+v", got)
			}
			got := onPaidMsgs(t, m.onChargeChanged(before, after))
			if len(got) != 1 || !got[0].res.Ran || got[0].res.Err == nil {
				t.Fatalf("on payment: %+v", got)
			}
			m.Update(reply(m, got[0]))
			want := map[Lang]string{
				LangEN: "on_paid pixdash-no-such-program-xyz failed: program not found · charge tx_onpaid (R$ 25,90)",
				LangPT: "on_paid pixdash-no-such-program-xyz falhou: programa não encontrado · cobrança tx_onpaid (R$ 25,90)",
			}[lang]
			if m.status.text != want || m.status.kind != statusWarn {
				t.Errorf("status %q (%d), want %q", m.status.text, m.status.kind, want)
			}
			if !strings.Contains(m.View(), want) {
				t.Error("the failure is not on screen")
			}

			// The same payment seen again (a poll, a webhook's read-back): it already ran.
			m.setStatus("", statusInfo)
			again := onPaidMsgs(t, m.onChargeChanged(before, after))
			if len(again) != 1 || again[0].res.Ran {
				t.Fatalf("second time: %+v", again)
			}
			m.Update(reply(m, again[0]))
			if m.status.text != "" {
				t.Errorf("status after a run skipped: %q", m.status.text)
			}

			// A reply for a replaced session is dropped.
			m.status = statusMsg{}
			m.Update(onPaidMsg{gen: m.app.gen + 1, res: got[0].res})
			if m.status.text != "" {
				t.Errorf("stale reply shown: %q", m.status.text)
			}
		})
	}
}

func TestOnPaidAbsentRunsNothing(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	m := New(Options{Session: s, Lang: LangEN, CustomerLang: LangEN, Bell: func() {}})
	paidAt := time.Now()
	before := state.Charge{ID: "tx_x", Amount: 100, Status: api.StatusPending}
	after := before
	after.Status, after.PaidAt = api.StatusCompleted, &paidAt
	if got := onPaidMsgs(t, m.onChargeChanged(before, after)); len(got) != 0 {
		t.Fatalf("ran without a command: %+v", got)
	}
}
