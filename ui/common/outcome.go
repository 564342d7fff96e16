package common

import (
	"pixdash/state"
)

// What happened to a charge's money is state.Charge.Outcome (derived in one place from
// confirmed facts); these helpers word it the same way on every screen that shows a charge:
// the list, the inspector's headline, the search, the QR/result screen.

// StateName is a charge state in the merchant's language.
func StateName(tr Catalog, s state.ChargeState) string {
	switch s {
	case state.StateRefunded:
		return tr.T("outcome.refunded")
	case state.StateReturned:
		return tr.T("outcome.returned")
	case state.StateBlocked:
		return tr.T("outcome.blocked")
	case state.StateNotFound:
		return tr.T("outcome.not_found")
	}
	return tr.T(string(s))
}

// StateText is a charge state with its symbol ("↩ refunded"), short enough for a list column.
func StateText(tr Catalog, s state.ChargeState) string {
	return StateSymbol(s) + " " + StateName(tr, s)
}

// outcomeText says what happened to the money, with the amount that went back or is held:
// "refunded R$ 35,50", "returned to the payer (MED) R$ 100,00", "blocked (MED) R$ 100,00",
// "not found at the service"; the state's name for the others.
func outcomeText(tr Catalog, o state.Outcome) string {
	switch o.State {
	case state.StateRefunded:
		return tr.F("outcome.refunded_2", o.Amount.BRL())
	case state.StateReturned:
		return tr.F("outcome.returned_to_the_payer_med", o.Amount.BRL())
	case state.StateBlocked:
		return tr.F("outcome.blocked_med", o.Amount.BRL())
	case state.StateNotFound:
		return tr.T("outcome.not_found_at_the_service")
	}
	return StateName(tr, o.State)
}

// OutcomeLine is outcomeText with the state's symbol, coloured as the state.
func OutcomeLine(st *Styles, tr Catalog, o state.Outcome) string {
	sty, sym := st.StatusLine(o.State)
	return sty.Render(sym + " " + outcomeText(tr, o))
}

// WentBack reports whether the outcome is money the merchant does not have (refunded, returned,
// blocked): goods must not be handed over on it.
func WentBack(s state.ChargeState) bool {
	return s == state.StateRefunded || s == state.StateReturned || s == state.StateBlocked
}
