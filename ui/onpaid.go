package ui

import (
	"context"
	"errors"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/state/workflow"
)

// onPaidMsg is how the profile's on_paid command ended for one charge.
type onPaidMsg struct {
	gen uint64
	res workflow.OnPaidResult
}

// onPaidSlack is how long a run may take beyond its own timeout (recording it, its output
// closing) before the command that waits for it gives up.
const onPaidSlack = 15 * time.Second

// runOnPaid runs the profile's on_paid command for a charge the service confirmed paid (the
// workflow runs it once per charge, whichever window sees the payment first). It is bounded by
// its own timeout, not by the session: a profile switch does not cut a receipt half printed.
func (m *Model) runOnPaid(ch state.Charge) tea.Cmd {
	sess := m.app.sess
	if sess == nil || sess.OnPaid == nil || ch.State() != state.StatePaid {
		return nil
	}
	gen, store, c := m.app.gen, sess.Store, sess.OnPaid
	limit := c.Timeout
	if limit <= 0 {
		limit = workflow.DefaultOnPaidTimeout
	}
	return withTimeout(limit+onPaidSlack, func(ctx context.Context) tea.Msg {
		return onPaidMsg{gen: gen, res: workflow.RunOnPaid(ctx, store, c, ch)}
	})
}

// onOnPaid shows a failed run on the status line (the debug log has its output).
func (m *Model) onOnPaid(msg onPaidMsg) tea.Cmd {
	r := msg.res
	if msg.gen != m.app.gen || !r.Failed() {
		return nil
	}
	tr := m.c.tr
	var why string
	var exit *exec.ExitError
	switch {
	case errors.Is(r.Err, workflow.ErrOnPaidNotFound):
		why = tr.T("onpaid.program_not_found")
	case errors.Is(r.Err, workflow.ErrOnPaidTimeout):
		why = tr.T("onpaid.timed_out_killed")
	case errors.As(r.Err, &exit) && r.ExitCode >= 0:
		why = tr.F("onpaid.exit_code", r.ExitCode)
	default:
		why = r.Err.Error()
	}
	m.setStatus(tr.F("onpaid.on_paid_failed_charge", r.Command, why, r.ChargeID, r.Amount), statusWarn)
	return nil
}
