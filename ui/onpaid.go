package ui

import (
	"errors"
	"os/exec"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// onPaidMsg is how the profile's on_paid command ended for one charge (the engine runs it
// once per payment, whichever window sees the payment first; workflow.OnPaidDone).
type onPaidMsg struct {
	gen uint64
	res workflow.OnPaidResult
}

// onOnPaid shows a failed run on the status line (the debug log has its output).
func (m *Model) onOnPaid(msg onPaidMsg) tea.Cmd {
	r := msg.res
	if msg.gen != m.app.Gen || !r.Failed() {
		return nil
	}
	tr := m.c.Tr
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
	m.setStatus(tr.F("onpaid.on_paid_failed_charge", r.Command, why, r.ChargeID, r.Amount), common.StatusWarn)
	return nil
}
