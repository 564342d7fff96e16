// Package charges is the dashboard's charges list, its export key and the Today strip.
package charges

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// View lists tracked charges, newest first, for the active wallet. Its list holds a
// window of rows around the cursor, read from the store by commands (see listWindow); rows are
// cached until their charge, the width or the minute shown in a countdown changes.
type View struct {
	common.List[string, chargeStamp, state.Charge]
	common.Asker  // the refund form R opens
	c             *common.Common
	store         *state.Store
	width, height int // the view's; the list has the lines under the two header lines
	Filter        textinput.Model
	filterOn      bool
	status        state.StatusFilter
	Win           common.ListWindow[state.ChargeQuery, state.Charge]
	focused       bool // on screen with the keyboard (between focus and blur)
	started       bool // start ran: the list reads what a resize uncovers
	strip         todayStrip
	// refunds are the refund states of the rows held, read in a command after each read of
	// the rows (refundStatesMsg): the view draws them without touching the store.
	refunds map[string]state.RefundState
}

// RefundStatesMsg carries the refunds pixdash asked for the charges the list holds.
type RefundStatesMsg struct {
	gen     uint64
	refunds map[string]state.RefundState
}

// loadRefunds reads the refund states of the rows held (the store's memory, off Update).
func (v *View) loadRefunds() tea.Cmd {
	store, gen := v.store, v.c.App.Gen
	if store == nil || len(v.Win.Items) == 0 {
		return nil
	}
	ids := make([]string, len(v.Win.Items))
	for i := range v.Win.Items {
		ids[i] = v.Win.Items[i].ID
	}
	return func() tea.Msg {
		m := make(map[string]state.RefundState)
		for _, id := range ids {
			if r, ok := store.PeekRefund(id); ok {
				m[id] = r.State
			}
		}
		return RefundStatesMsg{gen: gen, refunds: m}
	}
}

// chargeStamp is what a charge's row shows besides the width: it is drawn again when it changes.
type chargeStamp struct {
	updated int64
	state   state.ChargeState
	when    string
}

// chargesOwner addresses the charges list's reads.
const chargesOwner = "charges"

// ChargePage is a read of the charges list.
type ChargePage = common.WindowLoadedMsg[state.ChargeQuery, state.Charge]

// NewChargesView makes the charges view.
func NewChargesView(c *common.Common, store *state.Store) *View {
	ti := common.NewInput()
	ti.Prompt = "/ "
	ti.Placeholder = c.Tr.T("charges.filter_id_description_reference_wallet_amount")
	ti.CharLimit = 100
	v := &View{c: c, store: store, Filter: ti, strip: todayStrip{c: c}}
	v.List = common.NewList[string, chargeStamp](&v.Win, func(ch *state.Charge) string { return ch.ID })
	tr := c.Tr
	v.SetColumns([]common.Column{
		{Title: tr.T("charges.status_caps"), Width: 12},
		{Title: tr.T("charges.amount_caps"), Width: 14, Right: true},
		{Title: tr.T("charges.description_caps"), Width: 8, Fill: 1, Wide: 29, WidePriority: 5, Gap: 1},
		{Title: tr.T("charges.reference_caps"), Width: 16, Priority: 4},
		{Title: tr.T("charges.wallet_caps"), Width: 12, Priority: 6},
		{Title: tr.T("charges.created_caps"), Width: 12, Priority: 3},
		{Title: tr.T("charges.expires_paid_caps"), Width: whenWidth, Priority: 7},
	})
	v.Win.SetQuery(v.Query())
	return v
}

// SetSize gives it its room in cells.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.Filter.Width = w - 4
	v.Resize(w, h-4)
	if !v.started {
		return nil // the first read is start's
	}
	return v.load() // the rows a taller list uncovers
}

// CapturesText reports whether the filter input has the keyboard.
func (v *View) CapturesText() bool { return v.filterOn }

// Query is what the list shows: the active wallet (or all of them), the status filter and the
// filter text.
func (v *View) Query() state.ChargeQuery {
	return state.ChargeQuery{Wallet: common.ScopeWallet(v.c), Status: v.status, Text: v.Filter.Value()}
}

// readCharges reads a window of the charges list from the store.
func readCharges(store *state.Store) common.WindowRead[state.ChargeQuery, state.Charge] {
	return func(ctx context.Context, q state.ChargeQuery, offset, limit int) ([]state.Charge, int, bool, error) {
		p, err := store.ChargeWindow(ctx, q, offset, limit)
		return p.Charges, p.Total, p.Capped, err
	}
}

// load asks for the rows on screen when they are not loaded and current.
func (v *View) load() tea.Cmd {
	return v.Win.Need(chargesOwner, v.c.App.Gen, v.Offset, v.Visible(), readCharges(v.store))
}

// requery shows the list for the current wallet and filters, from the top.
func (v *View) requery() tea.Cmd {
	v.Win.SetQuery(v.Query())
	v.Top()
	return v.load()
}

// Title names the view in the tab strip.
func (v *View) Title() string { return v.c.Tr.T("charges.charges") }

// Start scopes the list to the active wallet and reads it. Once that read is in, while the
// list is on screen, its highlight stays on its charge when newer ones arrive above it (defect 3).
func (v *View) Start() tea.Cmd {
	v.focused, v.started = true, true
	strip := v.strip.load()
	if v.Win.Query != v.Query() {
		return tea.Batch(strip, v.requery())
	}
	v.Win.Invalidate()
	return tea.Batch(strip, v.load())
}

// Focus gives the list the keyboard back (an overlay above it closed); it reads nothing (store
// changes reach the view on screen under an overlay too). Once the next read is in, its
// highlight stays on its charge when newer ones arrive above it.
func (v *View) Focus() tea.Cmd {
	v.focused = true
	return nil
}

// Blur keeps the rows as they are. Off screen (under the new-charge form or the QR screen, or
// behind another view), a cursor on the first row stays there as charges arrive: coming back,
// the merchant finds the newest charge, the one they may just have made, highlighted.
func (v *View) Blur() { v.focused, v.StickTop = false, true }

// FullHelp lists the view's keys for the help screen.
func (v *View) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Inspect, k.Filter, k.StatusFilter, k.Refresh, k.Export, k.Refund, k.Scope}}
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.updateKey(msg)
	case common.WalletChangedMsg, common.ScopeChangedMsg:
		return tea.Batch(v.strip.reset(), v.requery())
	case StripMsg:
		return v.strip.onMsg(msg)
	case StripMidnightMsg:
		return v.strip.onMidnight(msg)
	case common.StoreChangedMsg:
		if !msg.Charges {
			if !msg.Settled {
				// Events that only arrived (a webhook is a hint): no row, refund or figure of
				// the day changes until the service's answer is recorded.
				return nil
			}
			// A verdict or an outcome: the rows stay, the day's refunds and the rows' may not.
			return tea.Batch(v.strip.load(), v.loadRefunds())
		}
		v.Win.Invalidate()
		return tea.Batch(v.strip.load(), v.load())
	case ChargePage:
		cmd, _ := v.Win.Reply(msg, chargesOwner, v.c.App.Gen, func(err error) string {
			return v.c.Tr.F("charges.could_not_read_the_charges", err)
		}, v.Hold, v.load)
		v.StickTop = !v.focused // the first read after focus still came from off screen
		return tea.Batch(cmd, v.loadRefunds())
	case RefundStatesMsg:
		if msg.gen == v.c.App.Gen {
			v.refunds = msg.refunds
		}
		return nil
	}
	return nil
}

func (v *View) updateKey(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	if v.filterOn {
		switch km.String() {
		case "esc":
			v.filterOn = false
			v.Filter.Blur()
			v.Filter.SetValue("")
			return v.requery()
		case "enter":
			v.filterOn = false
			v.Filter.Blur()
			return nil
		}
		var cmd tea.Cmd
		before := v.Filter.Value()
		v.Filter, cmd = v.Filter.Update(km)
		if v.Filter.Value() != before {
			return tea.Batch(cmd, v.requery())
		}
		return cmd
	}
	switch {
	case v.Navigate(km, k):
	case key.Matches(km, k.Filter):
		v.filterOn = true
		return v.Filter.Focus()
	case key.Matches(km, k.StatusFilter):
		v.status = v.status.Next()
		return v.requery()
	case key.Matches(km, k.Back):
		if v.Filter.Value() != "" || v.status != state.FilterAll {
			v.Filter.SetValue("")
			v.status = state.FilterAll
			return v.requery()
		}
	case key.Matches(km, k.Enter):
		if ch, ok := v.SelectedLine(); ok {
			return func() tea.Msg { return common.OpenChargeMsg{Charge: ch} }
		}
	case key.Matches(km, k.Refresh):
		if ch, ok := v.SelectedLine(); ok {
			return func() tea.Msg { return RefreshChargeMsg{ID: ch.ID, Wallet: ch.Wallet} }
		}
	case key.Matches(km, k.Inspect):
		if ch, ok := v.SelectedLine(); ok {
			return func() tea.Msg { return common.InspectMsg{Query: ch.ID, Wallet: ch.Wallet} }
		}
	case key.Matches(km, k.Export):
		return v.export()
	case key.Matches(km, k.Scope):
		return common.ToggleScope(v.c)
	case key.Matches(km, k.Refund):
		if ch, ok := v.SelectedLine(); ok {
			o, cmd := v.c.Open.Refund(v.c, ch)
			v.Ask(o)
			return cmd
		}
	}
	return v.load()
}

// RefreshChargeMsg asks the root to read a charge now.
type RefreshChargeMsg struct{ ID, Wallet string }

// ShortHelp lists the keys the footer shows.
func (v *View) ShortHelp() []key.Binding {
	k := v.c.Keys
	if v.filterOn {
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.Tr.T("charges.keep_filter"))), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", v.c.Tr.T("charges.clear_filter")))}
	}
	return []key.Binding{k.Enter, k.Inspect, k.Filter, k.StatusFilter}
}

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w := v.width
	st, tr := v.c.St, v.c.Tr
	n := v.Win.Len()
	var b strings.Builder
	b.Grow((v.Visible() + 4) * (w + 16))
	b.WriteString(v.strip.View(w))
	b.WriteByte('\n')
	// Line 1: filter state and counts.
	var top string
	switch {
	case v.filterOn:
		top = v.Filter.View()
	default:
		count := tr.N("charges.charges_n", n)
		if v.Win.Capped {
			count = tr.F("charges.charges_2", n)
		}
		scope := tr.F("charges.wallet", common.Sanitize(v.c.App.Wallet))
		if v.c.App.AllWallets {
			scope = tr.T("charges.all_wallets")
		}
		top = st.Bold.Render(count) + st.Muted.Render(" · "+scope)
		if q := v.Filter.Value(); q != "" {
			top += st.Muted.Render("  /" + common.Sanitize(q))
		}
		if s := v.status; s != state.FilterAll {
			top += st.Muted.Render("  "+tr.T("charges.status")+": ") + st.StateStyle(state.ChargeState(s)).Render(common.StateName(tr, state.ChargeState(s)))
		}
		if !v.Win.Shown && v.Win.Inflight {
			top += st.Muted.Render("  " + tr.T("charges.reading"))
		}
	}
	b.WriteString(common.TruncateWidth(top, w))
	b.WriteByte('\n')
	b.WriteString(v.Header(st))
	b.WriteByte('\n')
	switch {
	case v.Win.Err != nil && !v.Win.Shown:
		b.WriteString(st.Err.Render(common.TruncateWidth(tr.F("charges.could_not_read_the_charges", v.Win.Err), w)))
		return b.String()
	case !v.Win.Shown:
		return b.String()
	case n == 0:
		msg := tr.T("charges.no_charges_yet_press_n_to")
		if v.c.App.Sess.ReadOnly {
			msg = tr.T("charges.no_charges_yet_this_profile_is")
		}
		if v.Filter.Value() != "" || v.status != state.FilterAll {
			msg = tr.T("charges.no_charge_matches_the_filter_esc")
		}
		b.WriteString(st.Muted.Render(msg))
		return b.String()
	}
	now := v.c.Now()
	v.Draw(&b, st, common.RowPainter[chargeStamp, state.Charge]{
		Cells: func(ch *state.Charge, _ bool) []common.Cell { return v.cells(ch, now) },
		Stamp: func(ch *state.Charge) chargeStamp {
			return chargeStamp{updated: ch.UpdatedAt.UnixNano(), state: ch.State(), when: v.whenText(ch, now) + string(v.refunds[ch.ID])}
		},
	})
	return b.String()
}

// cells are a charge's columns: state (or its refund), amount, description, reference, wallet, creation and
// the expiry countdown or payment time.
func (v *View) cells(ch *state.Charge, now time.Time) []common.Cell {
	desc := ch.Description
	if desc == "" {
		desc = "—"
	}
	wallet := ch.Wallet
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	return []common.Cell{
		common.RefundLabel(v.c, v.refunds[ch.ID], ch),
		{Text: ch.Amount.BRL()},
		{Text: common.Sanitize(desc)},
		{Text: common.Sanitize(ch.ExternalReference)},
		{Text: common.Sanitize(wallet)},
		{Text: ch.CreatedAt.In(v.c.Loc).Format("02/01 15:04")},
		{Text: v.whenText(ch, now)},
	}
}

// whenText is the expiry countdown for pending charges, or when the charge was paid.
func (v *View) whenText(ch *state.Charge, now time.Time) string {
	tr := v.c.Tr
	switch ch.State() {
	case state.StatePending:
		if ch.ExpiresAt.IsZero() {
			return ""
		}
		left := ch.ExpiresAt.Sub(now)
		if left <= 0 {
			return tr.T("charges.expiring")
		}
		return tr.F("charges.in", common.HumanLeft(left))
	case state.StatePaid:
		if ch.PaidAt != nil {
			paid, today := ch.PaidAt.In(v.c.Loc), now.In(v.c.Loc)
			if paid.YearDay() != today.YearDay() || paid.Year() != today.Year() {
				return tr.T("charges.paid") + paid.Format("02/01") // not today: the day (the inspector has the time)
			}
			return tr.T("charges.paid") + paid.Format("15:04")
		}
	case state.StateRefunded, state.StateReturned:
		return fitMoney(tr, "−%s", ch.Outcome().Amount) // what went back to the payer
	case state.StateBlocked:
		return fitMoney(tr, "held %s", ch.Outcome().Amount)
	}
	return ""
}

// whenWidth is the EXPIRES/PAID column's width: "held R$ 1.500,00", "retido 12.345,67".
const whenWidth = 16

// fitMoney formats an amount into the EXPIRES/PAID column whole: with "R$ " when it fits,
// else without it, never cut (the amount is what the merchant must read).
func fitMoney(tr common.Catalog, format string, m api.Money) string {
	if s := tr.F(format, m.BRL()); ansi.StringWidth(s) <= whenWidth {
		return s
	}
	return tr.F(format, m.Grouped())
}

// ClockKey is what of the view changes with the clock: the strip's minute and day, and the
// countdown or payment time of each row on screen (see common.Clocked).
func (v *View) ClockKey(now time.Time) string {
	var b strings.Builder
	b.WriteString(now.In(v.c.Loc).Format("2006-01-02 15:04"))
	first, last := v.Window()
	for i := first; i < last; i++ {
		if r := v.Win.ShownAt(i); r != nil {
			b.WriteByte(0)
			b.WriteString(v.whenText(r, now))
		}
	}
	return b.String()
}
