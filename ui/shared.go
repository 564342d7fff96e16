package ui

import (
	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// blockMeaning says what a block status means for the merchant's money.
func blockMeaning(tr common.Catalog, s api.BlockStatus) string {
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

// orDash shows an empty value as a dash.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// openChargeMsg asks the root to open a charge's QR or result screen.
type openChargeMsg struct {
	charge state.Charge // as the caller knows it; the screen follows the store's newer copies
}

type projectsMsg struct {
	tag   common.Tag
	items []api.Project
	err   error
}

// eventMsg is one webhook event of an eventsMsg, handed to the views.
type eventMsg struct {
	gen uint64
	ev  *api.Event
}

type persistMsg struct{ err error }

type simulatedMsg struct {
	id, wallet string
	err        error
}

// dayReadTimeout bounds a read of the day's figures from the local database.
const dayReadTimeout = 10 * time.Second

// feeEstimate is the fee per payment used where the service reported none: workflow.FeeEstimate,
// the one rule, `pixdash close`'s too.
func feeEstimate(c *common.Common) (api.Money, bool) { return c.App.Sess.FeeEstimate() }

// scopeWallet is the wallet the figures keep: the active one, or "" for all.
func scopeWallet(c *common.Common) string {
	if c.App.AllWallets {
		return ""
	}
	return c.App.Wallet
}

// dayNetText is the period's net as the Sales view and the Today strip both show it
// (state.Totals.DayNet: after fees, refunds and refund fees), "unknown" when a fee is.
func dayNetText(st *common.Styles, tr common.Catalog, t state.Totals) string {
	net, ok := t.DayNet()
	if !ok {
		return st.Label.Render(tr.T("day.net")) + st.Warn.Render(tr.T("day.unknown"))
	}
	return st.Label.Render(tr.T("day.net")) + st.OK.Render(net.BRL())
}

func blockReason(tr common.Catalog, reason string) string {
	if reason == api.ReasonCNPJPayerNotAllowed {
		return tr.T("qr.payments_from_companies_cnpj_are_not")
	}
	return common.Sanitize(reason)
}

func refundLines(tr common.Catalog, st *common.Styles, r *api.Refund, loc *time.Location) []string {
	if r == nil {
		return []string{st.Muted.Render(tr.T("qr.refund_to_the_payer_not_started"))}
	}
	s := tr.T("qr.refund_to_the_payer") + tr.Enum(r.Status)
	out := []string{s}
	if r.E2EID != nil && *r.E2EID != "" {
		out = append(out, st.Label.Render(tr.T("qr.refund_e2eid"))+common.Sanitize(*r.E2EID))
	}
	if r.SettledAt != nil {
		out = append(out, st.Label.Render(tr.T("qr.settled_at"))+r.SettledAt.In(loc).Format("02/01/2006 15:04:05"))
	}
	return out
}

// refundedMsg tells the active view that the service took (or settled) a refund of a charge.
type refundedMsg struct{ id string }

// storeChangedMsg says the store changed (a write of this window or, seen by Refresh, of
// another): the active list reads its window again when what it shows changed.
type storeChangedMsg struct {
	gen                   uint64
	chargesVer, eventsVer uint64
	charges, events       bool // which changed
}

// serviceErr notes a project list's outcome on the header's light.
func (m projectsMsg) serviceErr() error { return m.err }

// spread puts left and right on one line of width w, cutting left when they do not fit.
func spread(left, right string, w int) string {
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = common.TruncateWidth(left, max(w-lipgloss.Width(right)-1, 0))
		gap = w - lipgloss.Width(left) - lipgloss.Width(right)
	}
	if gap < 0 {
		return common.TruncateWidth(left+right, w)
	}
	return left + common.Spaces(gap) + right
}

// fitBlock pads or cuts s to exactly h lines of at most w cells, so the footer never moves.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = common.TruncateWidth(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
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

// withdrawnMsg tells the wallets view that a withdrawal moved a wallet's balance (taken,
// settled): it reads the balance again and shows text on the status line.
type withdrawnMsg struct {
	wallet string
	text   string
	kind   common.StatusKind
}

// shortIDCells is the width of a transaction id shortened to 8 characters and "…".
const shortIDCells = 9

// shortID shortens a transaction id to shortIDCells.
func shortID(id string) string { return common.TruncateWidth(id, shortIDCells) }
