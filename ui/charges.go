package ui

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
)

// openChargeMsg asks the root to open a charge's QR or result screen.
type openChargeMsg struct {
	charge state.Charge // as the caller knows it; the screen follows the store's newer copies
}

// chargesView lists tracked charges, newest first, for the active wallet. Its list holds a
// window of rows around the cursor, read from the store by commands (see listWindow); rows are
// cached until their charge, the width or the second shown in a countdown changes.
type chargesView struct {
	list[string, chargeStamp, state.Charge]
	asker         // the refund form R opens
	c             *common
	store         *state.Store
	width, height int // the view's; the list has the lines under the two header lines
	filter        textinput.Model
	filterOn      bool
	status        state.StatusFilter
	win           listWindow[state.ChargeQuery, state.Charge]
	focused       bool // on screen with the keyboard (between focus and blur)
	strip         todayStrip
	// refunds are the refund states of the rows held, read in a command after each read of
	// the rows (refundStatesMsg): the view draws them without touching the store.
	refunds map[string]state.RefundState
}

// replyTo: the refund states answer the charges list wherever it is.
func (refundStatesMsg) replyTo() viewID { return viewCharges }

// refundStatesMsg carries the refunds pixdash asked for the charges the list holds.
type refundStatesMsg struct {
	gen     uint64
	refunds map[string]state.RefundState
}

// loadRefunds reads the refund states of the rows held (the store's memory, off Update).
func (v *chargesView) loadRefunds() tea.Cmd {
	store, gen := v.store, v.c.app.gen
	if store == nil || len(v.win.items) == 0 {
		return nil
	}
	ids := make([]string, len(v.win.items))
	for i := range v.win.items {
		ids[i] = v.win.items[i].ID
	}
	return func() tea.Msg {
		m := make(map[string]state.RefundState)
		for _, id := range ids {
			if r, ok := store.PeekRefund(id); ok {
				m[id] = r.State
			}
		}
		return refundStatesMsg{gen: gen, refunds: m}
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

// chargePage is a read of the charges list.
type chargePage = windowLoadedMsg[state.ChargeQuery, state.Charge]

func newChargesView(c *common, store *state.Store) *chargesView {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = c.tr.T("filter: id, description, reference, wallet, amount, date")
	ti.CharLimit = 100
	v := &chargesView{c: c, store: store, filter: ti, strip: todayStrip{c: c}}
	v.list = newList[string, chargeStamp](&v.win, func(ch *state.Charge) string { return ch.ID })
	tr := c.tr
	v.setColumns([]column{
		{title: tr.T("STATUS"), width: 12},
		{title: tr.T("AMOUNT"), width: 14, right: true},
		{title: tr.T("DESCRIPTION"), width: 8, fill: 1, wide: 29, widePriority: 5, gap: 1},
		{title: tr.T("REFERENCE"), width: 16, priority: 4},
		{title: tr.T("WALLET"), width: 12, priority: 6},
		{title: tr.T("CREATED"), width: 12, priority: 3},
		{title: tr.T("EXPIRES/PAID"), width: whenWidth, priority: 7},
	})
	v.win.setQuery(v.query())
	return v
}

func (v *chargesView) setSize(w, h int) {
	v.width, v.height = w, h
	v.filter.Width = w - 4
	v.resize(w, h-4)
}

// capturesText reports whether the filter input has the keyboard.
func (v *chargesView) capturesText() bool { return v.filterOn }

// query is what the list shows: the active wallet (or all of them), the status filter and the
// filter text.
func (v *chargesView) query() state.ChargeQuery {
	return state.ChargeQuery{Wallet: scopeWallet(v.c), Status: v.status, Text: v.filter.Value()}
}

// readCharges reads a window of the charges list from the store.
func readCharges(store *state.Store) windowRead[state.ChargeQuery, state.Charge] {
	return func(ctx context.Context, q state.ChargeQuery, offset, limit int) ([]state.Charge, int, bool, error) {
		p, err := store.ChargeWindow(ctx, q, offset, limit)
		return p.Charges, p.Total, p.Capped, err
	}
}

// load asks for the rows on screen when they are not loaded and current.
func (v *chargesView) load() tea.Cmd {
	return v.win.need(chargesOwner, v.c.app.gen, v.offset, v.visible(), readCharges(v.store))
}

// requery shows the list for the current wallet and filters, from the top.
func (v *chargesView) requery() tea.Cmd {
	v.win.setQuery(v.query())
	v.top()
	return v.load()
}

// title names the view in the tab strip.
func (v *chargesView) title() string { return v.c.tr.T("Charges") }

// focus scopes the list to the active wallet and reads it. Once that read is in, while the
// list is on screen, its highlight stays on its charge when newer ones arrive above it (defect 3).
func (v *chargesView) focus() tea.Cmd {
	v.focused = true
	strip := v.strip.load()
	if v.win.query != v.query() {
		return tea.Batch(strip, v.requery())
	}
	v.win.invalidate()
	return tea.Batch(strip, v.load())
}

// blur keeps the rows as they are. Off screen (under the new-charge form or the QR screen, or
// behind another view), a cursor on the first row stays there as charges arrive: coming back,
// the merchant finds the newest charge, the one they may just have made, highlighted.
func (v *chargesView) blur() { v.focused, v.stickTop = false, true }

// FullHelp lists the view's keys for the help screen.
func (v *chargesView) FullHelp() [][]key.Binding {
	k := v.c.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Inspect, k.Filter, k.StatusFilter, k.Refresh, k.Export, k.Refund, k.Scope}}
}

func (v *chargesView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.updateKey(msg)
	case walletChangedMsg, scopeChangedMsg:
		return tea.Batch(v.strip.reset(), v.requery())
	case stripMsg:
		return v.strip.onMsg(msg)
	case stripMidnightMsg:
		return v.strip.onMidnight(msg)
	case storeChangedMsg:
		strip := v.strip.load() // refunds arrive as events
		if !msg.charges {
			return tea.Batch(strip, v.loadRefunds()) // events only: the rows stay, their refunds may not
		}
		v.win.invalidate()
		return tea.Batch(strip, v.load())
	case chargePage:
		cmd, _ := v.win.reply(msg, chargesOwner, v.c.app.gen, func(err error) string {
			return v.c.tr.F("Could not read the charges: %v", err)
		}, v.hold, v.load)
		v.stickTop = !v.focused // the first read after focus still came from off screen
		return tea.Batch(cmd, v.loadRefunds())
	case refundStatesMsg:
		if msg.gen == v.c.app.gen {
			v.refunds = msg.refunds
		}
		return nil
	}
	return nil
}

func (v *chargesView) updateKey(km tea.KeyMsg) tea.Cmd {
	k := v.c.keys
	if v.filterOn {
		switch km.String() {
		case "esc":
			v.filterOn = false
			v.filter.Blur()
			v.filter.SetValue("")
			return v.requery()
		case "enter":
			v.filterOn = false
			v.filter.Blur()
			return nil
		}
		var cmd tea.Cmd
		before := v.filter.Value()
		v.filter, cmd = v.filter.Update(km)
		if v.filter.Value() != before {
			return tea.Batch(cmd, v.requery())
		}
		return cmd
	}
	switch {
	case v.navigate(km, k):
	case key.Matches(km, k.Filter):
		v.filterOn = true
		return v.filter.Focus()
	case key.Matches(km, k.StatusFilter):
		v.status = v.status.Next()
		return v.requery()
	case key.Matches(km, k.Back):
		if v.filter.Value() != "" || v.status != state.FilterAll {
			v.filter.SetValue("")
			v.status = state.FilterAll
			return v.requery()
		}
	case key.Matches(km, k.Enter):
		if ch, ok := v.selected(); ok {
			return func() tea.Msg { return openChargeMsg{charge: ch} }
		}
	case key.Matches(km, k.Refresh):
		if ch, ok := v.selected(); ok {
			return func() tea.Msg { return refreshChargeMsg{id: ch.ID, wallet: ch.Wallet} }
		}
	case key.Matches(km, k.Inspect):
		if ch, ok := v.selected(); ok {
			return func() tea.Msg { return inspectMsg{query: ch.ID, wallet: ch.Wallet} }
		}
	case key.Matches(km, k.Export):
		return v.export()
	case key.Matches(km, k.Scope):
		return toggleScope(v.c)
	case key.Matches(km, k.Refund):
		if ch, ok := v.selected(); ok {
			o, cmd := askRefund(v.c, ch)
			v.ask(o)
			return cmd
		}
	}
	return v.load()
}

// refreshChargeMsg asks the root to read a charge now.
type refreshChargeMsg struct{ id, wallet string }

// ShortHelp lists the keys the footer shows.
func (v *chargesView) ShortHelp() []key.Binding {
	k := v.c.keys
	if v.filterOn {
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.tr.T("keep filter"))), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", v.c.tr.T("clear filter")))}
	}
	return []key.Binding{k.Enter, k.Inspect, k.Filter, k.StatusFilter}
}

func (v *chargesView) view() string {
	w := v.width
	st, tr := v.c.st, v.c.tr
	n := v.win.len()
	var b strings.Builder
	b.Grow((v.visible() + 4) * (w + 16))
	b.WriteString(v.strip.view(w))
	b.WriteByte('\n')
	// Line 1: filter state and counts.
	var top string
	switch {
	case v.filterOn:
		top = v.filter.View()
	default:
		count := tr.N(n, "%d charge", "%d charges")
		if v.win.capped {
			count = tr.F("%d+ charges", n)
		}
		scope := tr.F("wallet %s", sanitize(v.c.app.wallet))
		if v.c.app.allWallets {
			scope = tr.T("all wallets")
		}
		top = st.Bold.Render(count) + st.Muted.Render(" · "+scope)
		if q := v.filter.Value(); q != "" {
			top += st.Muted.Render("  /" + sanitize(q))
		}
		if s := v.status; s != state.FilterAll {
			top += st.Muted.Render("  "+tr.T("status")+": ") + st.stateStyle(state.ChargeState(s)).Render(stateName(tr, state.ChargeState(s)))
		}
		if !v.win.shown && v.win.inflight {
			top += st.Muted.Render("  " + tr.T("reading…"))
		}
	}
	b.WriteString(truncateWidth(top, w))
	b.WriteByte('\n')
	b.WriteString(v.header(st))
	b.WriteByte('\n')
	switch {
	case v.win.err != nil && !v.win.shown:
		b.WriteString(st.Err.Render(truncateWidth(tr.F("Could not read the charges: %v", v.win.err), w)))
		return b.String()
	case !v.win.shown:
		return b.String()
	case n == 0:
		msg := tr.T("No charges yet. Press n to create one.")
		if v.c.app.sess.ReadOnly {
			msg = tr.T("No charges yet. This profile is read-only: charges are created elsewhere.")
		}
		if v.filter.Value() != "" || v.status != state.FilterAll {
			msg = tr.T("No charge matches the filter. esc clears it.")
		}
		b.WriteString(st.Muted.Render(msg))
		return b.String()
	}
	now := v.c.now()
	v.draw(&b, st, rowPainter[chargeStamp, state.Charge]{
		cells: func(ch *state.Charge, _ bool) []cell { return v.cells(ch, now) },
		stamp: func(ch *state.Charge) chargeStamp {
			return chargeStamp{updated: ch.UpdatedAt.UnixNano(), state: ch.State(), when: v.whenText(ch, now) + string(v.refunds[ch.ID])}
		},
	})
	return b.String()
}

// cells are a charge's columns: state (or its refund), amount, description, reference, wallet, creation and
// the expiry countdown or payment time.
func (v *chargesView) cells(ch *state.Charge, now time.Time) []cell {
	desc := ch.Description
	if desc == "" {
		desc = "—"
	}
	wallet := ch.Wallet
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	return []cell{
		refundLabel(v.c, v.refunds[ch.ID], ch),
		{text: ch.Amount.BRL()},
		{text: sanitize(desc)},
		{text: sanitize(ch.ExternalReference)},
		{text: sanitize(wallet)},
		{text: ch.CreatedAt.In(v.c.loc).Format("02/01 15:04")},
		{text: v.whenText(ch, now)},
	}
}

// whenText is the expiry countdown for pending charges, or when the charge was paid.
func (v *chargesView) whenText(ch *state.Charge, now time.Time) string {
	tr := v.c.tr
	switch ch.State() {
	case state.StatePending:
		if ch.ExpiresAt.IsZero() {
			return ""
		}
		left := ch.ExpiresAt.Sub(now)
		if left <= 0 {
			return tr.T("expiring…")
		}
		return tr.F("in %s", humanDuration(left))
	case state.StatePaid:
		if ch.PaidAt != nil {
			paid, today := ch.PaidAt.In(v.c.loc), now.In(v.c.loc)
			if paid.YearDay() != today.YearDay() || paid.Year() != today.Year() {
				return tr.T("paid ") + paid.Format("02/01") // not today: the day (the inspector has the time)
			}
			return tr.T("paid ") + paid.Format("15:04")
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
func fitMoney(tr catalog, format string, m api.Money) string {
	if s := tr.F(format, m.BRL()); ansi.StringWidth(s) <= whenWidth {
		return s
	}
	return tr.F(format, m.Grouped())
}
