package ui

import (
	"strconv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// A payment event is a hint until its transaction is read back from the service; the events
// view shows what the service answered: confirmed ✓, disputed ✗ (with pixdash's reason, the
// event not applied), unknown ? (nothing applied), or … while it is being checked.

// verdictClaim is what a row says before its summary about an event that was not applied.
func (v *eventsView) verdictClaim(e *state.EventEntry) string {
	tr := v.c.Tr
	switch e.Verdict {
	case state.VerdictDisputed:
		return tr.F("verdict.disputed", verdictReason(tr, e.VerdictReason))
	case state.VerdictUnknown:
		return tr.T("verdict.unknown_to_the_service")
	}
	return ""
}

// verdictReason words a verdict's reason (state.Reason) in the screen's language; a reason of
// another form is shown as it is, sanitized.
func verdictReason(tr common.Catalog, r string) string {
	code, vals := state.ParseReason(r)
	arg := func(i int) string {
		if i < len(vals) {
			return common.Sanitize(vals[i])
		}
		return "—"
	}
	money := func(i int) string {
		n, err := strconv.ParseInt(arg(i), 10, 64)
		if err != nil {
			return arg(i)
		}
		return api.Money(n).BRL()
	}
	switch code {
	case state.ReasonStatus:
		return tr.F("verdict.but_the_service_says_the_charge", tr.Enum(api.EventKind(arg(0))), tr.T(arg(1)))
	case state.ReasonAmount:
		return tr.F("verdict.the_event_says_the_service", money(0), money(1))
	case state.ReasonE2E:
		return tr.T("verdict.the_event_s_end_to_end")
	case state.ReasonOtherTransaction:
		return tr.T("verdict.the_service_answered_for_another_transaction")
	case state.ReasonNoTransaction:
		return tr.T("verdict.the_event_names_no_transaction")
	case state.ReasonNotFound:
		return tr.F("verdict.the_service_does_not_know_transaction", arg(0), arg(1))
	case state.ReasonType:
		return tr.F("verdict.but_the_service_says_it_is", arg(0), arg(1))
	case state.ReasonNoWallet:
		return tr.F("verdict.the_account_has_no_wallet", arg(0))
	case state.ReasonRefundCharge:
		return tr.F("verdict.refund_line_does_not_belong_to", shortID(arg(0)), shortID(arg(1)))
	case state.ReasonRefundCounted:
		return tr.F("verdict.refund_line_is_already_counted_charge", shortID(arg(0)), shortID(arg(1)))
	case "":
		return "—"
	}
	return common.Sanitize(r)
}

// verdictLine is the verdict in full, for the event's detail ("" for an event not read back).
func (v *eventsView) verdictLine(e *state.EventEntry) string {
	tr := v.c.Tr
	if e.Verdict == state.VerdictUnchecked && (e.Event == nil || !e.Event.Kind.ReadBack()) {
		return "" // only the kinds read back against the service (api.EventKind.ReadBack)
	}
	style, sym := v.c.St.StatusLine(e.Verdict)
	var text string
	switch e.Verdict {
	case state.VerdictConfirmed:
		text = tr.T("verdict.confirmed_by_the_service")
	case state.VerdictDisputed:
		text = tr.F("verdict.disputed", verdictReason(tr, e.VerdictReason)) + " · " + tr.T("verdict.not_applied")
	case state.VerdictUnknown:
		text = tr.T("verdict.unknown_to_the_service_nothing_applied")
		if e.VerdictReason != "" {
			text += " (" + verdictReason(tr, e.VerdictReason) + ")"
		}
	default:
		return style.Render(tr.T("verdict.checking"))
	}
	return style.Render(sym + " " + text)
}
