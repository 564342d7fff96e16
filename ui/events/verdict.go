package events

import (
	"pixdash/state"
	"pixdash/ui/common"
)

// A payment event is a hint until its transaction is read back from the service; the events
// view shows what the service answered: confirmed ✓, disputed ✗ (with pixdash's reason, the
// event not applied), unknown ? (nothing applied), or … while it is being checked.

// verdictClaim is what a row says before its summary about an event that was not applied.
func (v *View) verdictClaim(e *state.EventEntry) string {
	tr := v.C.Tr
	switch e.Verdict {
	case state.VerdictDisputed:
		return tr.F("verdict.disputed", common.VerdictReason(tr, e.VerdictReason))
	case state.VerdictUnknown:
		return tr.T("verdict.unknown_to_the_service")
	}
	return ""
}

// verdictLine is the verdict in full, for the event's detail ("" for an event not read back).
func (v *View) verdictLine(e *state.EventEntry) string {
	tr := v.C.Tr
	if e.Verdict == state.VerdictUnchecked && (e.Event == nil || !e.Event.Kind.ReadBack()) {
		return "" // only the kinds read back against the service (api.EventKind.ReadBack)
	}
	style, sym := v.C.St.StatusLine(e.Verdict)
	var text string
	switch e.Verdict {
	case state.VerdictConfirmed:
		text = tr.T("verdict.confirmed_by_the_service")
	case state.VerdictDisputed:
		text = tr.F("verdict.disputed", common.VerdictReason(tr, e.VerdictReason)) + " · " + tr.T("verdict.not_applied")
	case state.VerdictUnknown:
		text = tr.T("verdict.unknown_to_the_service_nothing_applied")
		if e.VerdictReason != "" {
			text += " (" + common.VerdictReason(tr, e.VerdictReason) + ")"
		}
	default:
		return style.Render(tr.T("verdict.checking"))
	}
	return style.Render(sym + " " + text)
}
