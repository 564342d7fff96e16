package ui

import (
	"strconv"

	"pixdash/api"
	"pixdash/state"
)

// A payment event is a hint until its transaction is read back from the service; the events
// view shows what the service answered: confirmed ✓, disputed ✗ (with pixdash's reason, the
// event not applied), unknown ? (nothing applied), or … while it is being checked.

// verdictClaim is what a row says before its summary about an event that was not applied.
func (v *eventsView) verdictClaim(e *state.EventEntry) string {
	tr := v.c.tr
	switch e.Verdict {
	case state.VerdictDisputed:
		return tr.F("disputed: %s", verdictReason(tr, e.VerdictReason))
	case state.VerdictUnknown:
		return tr.T("unknown to the service")
	}
	return ""
}

// verdictReason words a verdict's reason (state.Reason) in the screen's language; a reason of
// another form is shown as it is, sanitized.
func verdictReason(tr catalog, r string) string {
	code, vals := state.ParseReason(r)
	arg := func(i int) string {
		if i < len(vals) {
			return sanitize(vals[i])
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
		return tr.F("%s, but the service says the charge is %s", tr.Enum(api.EventKind(arg(0))), tr.T(arg(1)))
	case state.ReasonAmount:
		return tr.F("the event says %s, the service %s", money(0), money(1))
	case state.ReasonE2E:
		return tr.T("the event's end-to-end id differs from the service's")
	case state.ReasonOtherTransaction:
		return tr.T("the service answered for another transaction")
	case state.ReasonNoTransaction:
		return tr.T("the event names no transaction")
	case state.ReasonNotFound:
		return tr.F("the service does not know transaction %s in wallet %s", arg(0), arg(1))
	case state.ReasonType:
		return tr.F("%s, but the service says it is a %s line", arg(0), arg(1))
	case state.ReasonNoWallet:
		return tr.F("the account has no wallet %s", arg(0))
	case state.ReasonRefundCharge:
		return tr.F("refund line %s does not belong to charge %s", shortID(arg(0)), shortID(arg(1)))
	case state.ReasonRefundCounted:
		return tr.F("refund line %s is already counted (charge %s)", shortID(arg(0)), shortID(arg(1)))
	case "":
		return "—"
	}
	return sanitize(r)
}

// verdictLine is the verdict in full, for the event's detail ("" for an event not read back).
func (v *eventsView) verdictLine(e *state.EventEntry) string {
	tr := v.c.tr
	if e.Verdict == state.VerdictUnchecked && (e.Event == nil || !e.Event.Kind.ReadBack()) {
		return "" // only the kinds read back against the service (api.EventKind.ReadBack)
	}
	style, sym := v.c.st.status(e.Verdict)
	var text string
	switch e.Verdict {
	case state.VerdictConfirmed:
		text = tr.T("confirmed by the service")
	case state.VerdictDisputed:
		text = tr.F("disputed: %s", verdictReason(tr, e.VerdictReason)) + " · " + tr.T("not applied")
	case state.VerdictUnknown:
		text = tr.T("unknown to the service: nothing applied")
		if e.VerdictReason != "" {
			text += " (" + verdictReason(tr, e.VerdictReason) + ")"
		}
	default:
		return style.Render(tr.T("checking…"))
	}
	return style.Render(sym + " " + text)
}
