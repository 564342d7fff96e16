package common

import (
	"strconv"
	"strings"
	"time"

	"pixdash/api"
	"pixdash/state"

	"github.com/charmbracelet/lipgloss"
)

// BlockMeaning says what a block status means for the merchant's money.
func BlockMeaning(tr Catalog, s api.BlockStatus) string {
	switch s {
	case api.BlockAwaitingResponse:
		return tr.T("blocks.awaiting_your_response_the_amount_stays")
	case api.BlockDefended:
		return tr.T("blocks.defence_sent_awaiting_the_decision")
	case api.BlockApproved:
		return tr.T("blocks.approved_the_amount_was_returned_to")
	case api.BlockRejected:
		return tr.T("blocks.rejected_the_amount_is_back_in")
	}
	return tr.T("blocks.status_not_in_the_spec")
}

// OrDash shows an empty value as a dash.
func OrDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// OpenChargeMsg asks the root to open a charge's QR or result screen.
type OpenChargeMsg struct {
	Charge state.Charge // as the caller knows it; the screen follows the store's newer copies
}

// ProjectsMsg carries the wallet's projects for the new-charge form.
type ProjectsMsg struct {
	Tag   Tag
	Items []api.Project
	Err   error
}

// EventMsg is one webhook event of an eventsMsg, handed to the views.
type EventMsg struct {
	Gen uint64
	Ev  *api.Event
}

// PersistMsg reports a local write that failed.
type PersistMsg struct{ Err error }

// SimulatedMsg is the outcome of a simulated payment, CNPJ payment or expiry (sandbox).
type SimulatedMsg struct {
	ID, Wallet string
	Err        error
}

// DayReadTimeout bounds a read of the day's figures from the local database.
const DayReadTimeout = 10 * time.Second

// FeeEstimate is the fee per payment used where the service reported none: workflow.FeeEstimate,
// the one rule, `pixdash close`'s too.
func FeeEstimate(c *Common) (api.Money, bool) { return c.App.Sess.FeeEstimate() }

// ScopeWallet is the wallet the figures keep: the active one, or "" for all.
func ScopeWallet(c *Common) string {
	if c.App.AllWallets {
		return ""
	}
	return c.App.Wallet
}

// DayNetText is the period's net as the Sales view and the Today strip both show it
// (state.Totals.DayNet: after fees, refunds and refund fees), "unknown" when a fee is.
func DayNetText(st *Styles, tr Catalog, t state.Totals) string {
	net, ok := t.DayNet()
	if !ok {
		return st.Label.Render(tr.T("day.net")) + st.Warn.Render(tr.T("day.unknown"))
	}
	return st.Label.Render(tr.T("day.net")) + st.OK.Render(net.BRL())
}

// BlockReason words a block's reason for the merchant.
func BlockReason(tr Catalog, reason string) string {
	if reason == api.ReasonCNPJPayerNotAllowed {
		return tr.T("qr.payments_from_companies_cnpj_are_not")
	}
	return Sanitize(reason)
}

// RefundLines are the lines that describe a refund (amount, state, when).
func RefundLines(tr Catalog, st *Styles, r *api.Refund, loc *time.Location) []string {
	if r == nil {
		return []string{st.Muted.Render(tr.T("qr.refund_to_the_payer_not_started"))}
	}
	s := tr.T("qr.refund_to_the_payer") + tr.Enum(r.Status)
	out := []string{s}
	if r.E2EID != nil && *r.E2EID != "" {
		out = append(out, st.Label.Render(tr.T("qr.refund_e2eid"))+Sanitize(*r.E2EID))
	}
	if r.SettledAt != nil {
		out = append(out, st.Label.Render(tr.T("qr.settled_at"))+r.SettledAt.In(loc).Format("02/01/2006 15:04:05"))
	}
	return out
}

// RefundedMsg tells the active view that the service took (or settled) a refund of a charge.
type RefundedMsg struct{ ID string }

// StoreChangedMsg says the store changed (a write of this window or, seen by Refresh, of
// another): the active list reads its window again when what it shows changed.
type StoreChangedMsg struct {
	Gen                               uint64
	ChargesVer, EventsVer, SettledVer uint64
	Charges, Events                   bool // which changed
	// Settled: events changed in another way than arriving (state.Store.SettledVersion).
	Settled bool
}

// ServiceErr notes a project list's outcome on the header's light.
func (m ProjectsMsg) ServiceErr() error { return m.Err }

// Spread puts left and right on one line of width w, cutting left when they do not fit.
func Spread(left, right string, w int) string {
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = TruncateWidth(left, max(w-lipgloss.Width(right)-1, 0))
		gap = w - lipgloss.Width(left) - lipgloss.Width(right)
	}
	if gap < 0 {
		return TruncateWidth(left+right, w)
	}
	return left + Spaces(gap) + right
}

// FitBlock pads or cuts s to exactly h lines of at most w cells, so the footer never moves.
func FitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = TruncateWidth(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// VerdictReason words a verdict's reason (state.Reason) in the screen's language; a reason of
// another form is shown as it is, sanitized.
func VerdictReason(tr Catalog, r string) string {
	code, vals := state.ParseReason(r)
	arg := func(i int) string {
		if i < len(vals) {
			return Sanitize(vals[i])
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
		return tr.F("verdict.refund_line_does_not_belong_to", ShortID(arg(0)), ShortID(arg(1)))
	case state.ReasonRefundCounted:
		return tr.F("verdict.refund_line_is_already_counted_charge", ShortID(arg(0)), ShortID(arg(1)))
	case "":
		return "—"
	}
	return Sanitize(r)
}

// WithdrawnMsg tells the wallets view that a withdrawal moved a wallet's balance (taken,
// settled): it reads the balance again and shows text on the status line.
type WithdrawnMsg struct {
	Wallet string
	Text   string
	Kind   StatusKind
}

// ShortIDCells is the width of a transaction id shortened to 8 characters and "…".
const ShortIDCells = 9

// ShortID shortens a transaction id to shortIDCells.
func ShortID(id string) string { return TruncateWidth(id, ShortIDCells) }
