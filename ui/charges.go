package ui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
)

// openChargeMsg asks the root to open a charge's QR or result screen.
type openChargeMsg struct {
	charge state.Charge // as the caller knows it; the screen follows the store's newer copies
}

// chargesView lists tracked charges, newest first, for the active wallet. It holds a window of
// rows around the cursor, read from the store by commands (see listWindow); rows are cached
// until their charge, the width or the second shown in a countdown changes.
type chargesView struct {
	c        *common
	store    *state.Store
	cursor   int
	offset   int
	width    int
	height   int
	filter   textinput.Model
	filterOn bool
	status   state.StatusFilter
	win      listWindow[state.ChargeQuery, state.Charge]
	cache    map[string]cachedRow
	layout   chargeLayout
}

type cachedRow struct {
	stamp string
	text  string
}

// chargeLayout holds column widths for the current width.
type chargeLayout struct {
	status, amount, desc, ref, wallet, created, when int
	showRef, showCreated                             bool
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
	v := &chargesView{c: c, store: store, filter: ti, cache: map[string]cachedRow{}}
	v.win.setQuery(v.query())
	return v
}

func (v *chargesView) setSize(w, h int) {
	if w != v.width {
		v.cache = map[string]cachedRow{}
	}
	v.width, v.height = w, h
	v.filter.Width = w - 4
	l := chargeLayout{status: 12, amount: 14, wallet: 12, when: 13}
	rest := w - l.status - l.amount - l.wallet - l.when - 5
	if rest >= 60 {
		l.showRef, l.showCreated = true, true
		l.ref, l.created = 16, 12
		rest -= l.ref + l.created + 2
	}
	if rest < 8 {
		rest = 8
	}
	l.desc = rest
	v.layout = l
	v.scroll()
}

// capturesText reports whether the filter input has the keyboard.
func (v *chargesView) capturesText() bool { return v.filterOn }

// query is what the list shows: the active wallet, the status filter and the filter text.
func (v *chargesView) query() state.ChargeQuery {
	return state.ChargeQuery{Wallet: v.c.app.wallet, Status: v.status, Text: v.filter.Value()}
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
	return v.win.need(chargesOwner, v.c.app.gen, v.offset, v.rows(), readCharges(v.store))
}

// requery shows the list for the current wallet and filters, from the top.
func (v *chargesView) requery() tea.Cmd {
	v.win.setQuery(v.query())
	v.cursor, v.offset = 0, 0
	return v.load()
}

// scroll keeps the cursor in the list and on screen.
func (v *chargesView) scroll() {
	v.cursor, v.offset = scrollTo(v.cursor, v.offset, v.win.len(), v.rows())
}

// selected returns the charge under the cursor.
func (v *chargesView) selected() (state.Charge, bool) { return v.win.at(v.cursor) }

// title names the view in the tab strip.
func (v *chargesView) title() string { return v.c.tr.T("Charges") }

// activate scopes the list to the active wallet and reads it.
func (v *chargesView) activate() tea.Cmd {
	if v.win.query != v.query() {
		return v.requery()
	}
	v.win.invalidate()
	return v.load()
}

func (v *chargesView) fullHelp() []key.Binding {
	k := v.c.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Inspect, k.Filter, k.StatusFilter, k.Refresh}
}

func (v *chargesView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.updateKey(msg)
	case walletChangedMsg:
		return v.requery()
	case storeChangedMsg:
		if !msg.charges {
			return nil // events only: the list shows none
		}
		v.win.invalidate()
		return v.load()
	case chargePage:
		cmd, _ := v.win.reply(msg, chargesOwner, v.c.app.gen, func(err error) string {
			return v.c.tr.F("Could not read the charges: %v", err)
		}, v.scroll, v.load)
		return cmd
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
	n := v.win.len()
	page := v.rows()
	switch c, nav := k.navigate(km, v.cursor, n, page); {
	case nav:
		v.cursor = c
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
	}
	v.scroll()
	return v.load()
}

// refreshChargeMsg asks the root to read a charge now.
type refreshChargeMsg struct{ id, wallet string }

func (v *chargesView) shortHelp() []key.Binding {
	k := v.c.keys
	if v.filterOn {
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.tr.T("keep filter"))), key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", v.c.tr.T("clear filter")))}
	}
	return []key.Binding{k.Enter, k.Inspect, k.Filter, k.StatusFilter}
}

// rows is how many list rows fit.
func (v *chargesView) rows() int { return max(v.height-3, 1) }

func (v *chargesView) view(w, h int) string {
	st, tr := v.c.st, v.c.tr
	n := v.win.len()
	rows := v.rows()
	var b strings.Builder
	b.Grow((rows + 3) * (w + 16))
	// Line 1: filter state and counts.
	var top string
	switch {
	case v.filterOn:
		top = v.filter.View()
	default:
		count := tr.F("%d charges", n)
		if v.win.capped {
			count = tr.F("%d+ charges", n)
		}
		top = st.Bold.Render(count) + st.Muted.Render(" · "+tr.F("wallet %s", sanitize(v.c.app.wallet)))
		if q := v.filter.Value(); q != "" {
			top += st.Muted.Render("  /" + sanitize(q))
		}
		if s := v.status; s != state.FilterAll {
			top += st.Muted.Render("  "+tr.T("status")+": ") + st.stateStyle(state.ChargeState(s)).Render(tr.T(string(s)))
		}
		if !v.win.shown && v.win.inflight {
			top += st.Muted.Render("  " + tr.T("reading…"))
		}
	}
	b.WriteString(truncateWidth(top, w))
	b.WriteByte('\n')
	b.WriteString(st.ColHeader.Render(truncateWidth(v.headerRow(), w)))
	b.WriteByte('\n')
	switch {
	case v.win.err != nil && !v.win.shown:
		b.WriteString(st.Err.Render(truncateWidth(tr.F("Could not read the charges: %v", v.win.err), w)))
		return b.String()
	case !v.win.shown:
		return b.String()
	case n == 0:
		msg := tr.T("No charges yet. Press n to create one.")
		if v.filter.Value() != "" || v.status != state.FilterAll {
			msg = tr.T("No charge matches the filter. esc clears it.")
		}
		b.WriteString(st.Muted.Render(msg))
		return b.String()
	}
	now := v.c.now()
	last := min(v.offset+rows, n)
	for i := v.offset; i < last; i++ {
		ch, ok := v.win.shownAt(i)
		switch {
		case !ok:
			b.WriteString(st.Muted.Render("…"))
		case i == v.cursor:
			b.WriteString(st.Selected.Render(padRight(v.plainRow(&ch, now), w)))
		default:
			b.WriteString(v.row(&ch, now))
		}
		if i < last-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (v *chargesView) headerRow() string {
	tr, l := v.c.tr, v.layout
	s := padRight(tr.T("STATUS"), l.status) + " " + padLeft(tr.T("AMOUNT"), l.amount) + "  " + padRight(tr.T("DESCRIPTION"), l.desc) + " "
	if l.showRef {
		s += padRight(tr.T("REFERENCE"), l.ref) + " "
	}
	s += padRight(tr.T("WALLET"), l.wallet) + " "
	if l.showCreated {
		s += padRight(tr.T("CREATED"), l.created) + " "
	}
	return s + padRight(tr.T("EXPIRES/PAID"), l.when)
}

// rowStamp changes whenever anything the row shows changes.
func (v *chargesView) rowStamp(ch *state.Charge, when string) string {
	return ch.UpdatedAt.Format(time.RFC3339Nano) + string(ch.State()) + when
}

// row renders one charge, from the cache when nothing it shows has changed.
func (v *chargesView) row(ch *state.Charge, now time.Time) string {
	when := v.whenText(ch, now)
	stamp := v.rowStamp(ch, when)
	if c, ok := v.cache[ch.ID]; ok && c.stamp == stamp {
		return c.text
	}
	st := v.c.st
	status, rest := v.cells(ch, when)
	text := st.stateStyle(ch.State()).Render(status) + rest
	if len(v.cache) > 4096 {
		v.cache = map[string]cachedRow{}
	}
	v.cache[ch.ID] = cachedRow{stamp: stamp, text: text}
	return text
}

// plainRow is the row without colours, for the highlighted line.
func (v *chargesView) plainRow(ch *state.Charge, now time.Time) string {
	status, rest := v.cells(ch, v.whenText(ch, now))
	return status + rest
}

func (v *chargesView) cells(ch *state.Charge, when string) (string, string) {
	tr, l := v.c.tr, v.layout
	status := padRight(stateSymbol(ch.State())+" "+tr.T(string(ch.State())), l.status)
	var b strings.Builder
	b.WriteByte(' ')
	b.WriteString(padLeft(ch.Amount.BRL(), l.amount))
	b.WriteString("  ")
	desc := ch.Description
	if desc == "" {
		desc = "—"
	}
	b.WriteString(padRight(sanitize(desc), l.desc))
	b.WriteByte(' ')
	if l.showRef {
		b.WriteString(padRight(sanitize(ch.ExternalReference), l.ref))
		b.WriteByte(' ')
	}
	wallet := ch.Wallet
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	b.WriteString(padRight(sanitize(wallet), l.wallet))
	b.WriteByte(' ')
	if l.showCreated {
		b.WriteString(padRight(ch.CreatedAt.In(v.c.loc).Format("02/01 15:04"), l.created))
		b.WriteByte(' ')
	}
	b.WriteString(padRight(when, l.when))
	return status, b.String()
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
			return tr.T("paid ") + ch.PaidAt.In(v.c.loc).Format("15:04")
		}
	}
	return ""
}
