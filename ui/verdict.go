package ui

import (
	"github.com/charmbracelet/lipgloss"

	"pixdash/state"
)

// A payment event is a hint until its transaction is read back from the service; the events
// view shows what the service answered: confirmed ✓, disputed ✗ (with pixdash's reason, the
// event not applied), unknown ? (nothing applied), or … while it is being checked.

// verdictSymbol is the compact mark of a row ("" for an event that is not read back).
func verdictSymbol(e *state.EventEntry) string {
	switch e.Verdict {
	case state.VerdictConfirmed:
		return "✓"
	case state.VerdictDisputed:
		return "✗"
	case state.VerdictUnknown:
		return "?"
	}
	if e.Event != nil && e.Event.Kind.IsPayment() {
		return "…"
	}
	return ""
}

// verdictStyle colours a verdict: confirmed green, disputed red, the others muted.
func (v *eventsView) verdictStyle(vd state.Verdict) lipgloss.Style {
	switch vd {
	case state.VerdictConfirmed:
		return v.c.st.OK
	case state.VerdictDisputed:
		return v.c.st.Err
	}
	return v.c.st.Muted
}

// verdictClaim is what a row says before its summary about an event that was not applied.
func (v *eventsView) verdictClaim(e *state.EventEntry) string {
	tr := v.c.tr
	switch e.Verdict {
	case state.VerdictDisputed:
		return tr.F("disputed: %s", orText(e.VerdictReason, "—"))
	case state.VerdictUnknown:
		return tr.T("unknown to the service")
	}
	return ""
}

// verdictLine is the verdict in full, for the event's detail ("" for an event not read back).
func (v *eventsView) verdictLine(e *state.EventEntry) string {
	tr := v.c.tr
	sym := verdictSymbol(e)
	if sym == "" {
		return ""
	}
	var text string
	switch e.Verdict {
	case state.VerdictConfirmed:
		text = tr.T("confirmed by the service")
	case state.VerdictDisputed:
		text = tr.F("disputed: %s", orText(e.VerdictReason, "—")) + " · " + tr.T("not applied")
	case state.VerdictUnknown:
		text = tr.T("unknown to the service: nothing applied")
		if e.VerdictReason != "" {
			text += " (" + sanitize(e.VerdictReason) + ")"
		}
	default:
		return v.verdictStyle(e.Verdict).Render(tr.T("checking…"))
	}
	return v.verdictStyle(e.Verdict).Render(sym + " " + text)
}
