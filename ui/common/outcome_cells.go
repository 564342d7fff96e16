package common

import (
	"pixdash/state"
)

// RefundLabel is the state cell of a charge row: what happened to its money (Outcome), or the
// refund pixdash asked (r, as the list last read it; "" for none) while the service has not
// confirmed it.
func RefundLabel(c *Common, r state.RefundState, ch *state.Charge) Cell {
	cs := ch.State()
	sty, _ := c.St.StatusLine(cs)
	base := Cell{Text: StateText(c.Tr, cs), Style: sty}
	if cs != state.StatePaid {
		return base // a confirmed outcome is what the row says
	}
	switch r {
	case state.RefundCompleted:
		return Cell{Text: "↩ " + c.Tr.T("refund.refunded"), Style: &c.St.EvRefund}
	case state.RefundPending:
		return Cell{Text: "↩ " + c.Tr.T("refund.refunding"), Style: &c.St.Warn}
	case state.RefundRequested, state.RefundUnknown:
		return Cell{Text: "? " + c.Tr.T("refund.refund_unknown"), Style: &c.St.Warn}
	}
	return base
}

// OwnerWithdrawal owns the status messages of the withdrawal form.
const OwnerWithdrawal = "withdrawal"
