package ui

import (
	"pixdash/state"
	"pixdash/ui/common"
)

// refundLabel is the state cell of a charge row: what happened to its money (Outcome), or the
// refund pixdash asked (r, as the list last read it; "" for none) while the service has not
// confirmed it.
func refundLabel(c *common.Common, r state.RefundState, ch *state.Charge) common.Cell {
	cs := ch.State()
	sty, _ := c.St.StatusLine(cs)
	base := common.Cell{Text: common.StateText(c.Tr, cs), Style: sty}
	if cs != state.StatePaid {
		return base // a confirmed outcome is what the row says
	}
	switch r {
	case state.RefundCompleted:
		return common.Cell{Text: "↩ " + c.Tr.T("refund.refunded"), Style: &c.St.EvRefund}
	case state.RefundPending:
		return common.Cell{Text: "↩ " + c.Tr.T("refund.refunding"), Style: &c.St.Warn}
	case state.RefundRequested, state.RefundUnknown:
		return common.Cell{Text: "? " + c.Tr.T("refund.refund_unknown"), Style: &c.St.Warn}
	}
	return base
}

// ownerWithdrawal owns the status messages of the withdrawal form.
const ownerWithdrawal = "withdrawal"
