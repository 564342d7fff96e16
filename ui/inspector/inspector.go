// Package inspector is the dashboard's transaction inspector: one transaction as the service shows
// it, with its refunds, blocks and history.
package inspector

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/api/brdoc"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// inspectorLabelWidth bounds the label column of the transaction detail (it fits the longest label).
const (
	inspectorLabelMin = 19
	inspectorLabelMax = 24
)

// View looks one transaction up (GET /transactions/{id}: id, then external reference,
// then idempotency key, in one wallet) and shows every field of it, with a history of lookups.
type View struct {
	common.Asker // the refund form R opens
	c            *common.Common
	Input        textinput.Model
	width        int
	height       int
	// labelW is the label column: the longest translated label plus a space.
	labelW int

	// Seq numbers lookups; a reply for an older one is dropped.
	Seq     uint64
	Loading bool
	// PendingQuery and pendingWallet are the lookup in flight.
	PendingQuery, PendingWallet string

	Res *InspectResult
	// A failed lookup: notFound for a 404 on the transaction, errText for anything else.
	failQuery, failWallet string
	notFound              bool
	errText               string

	reveal bool
	// Vp scrolls the detail of the result; its content is set in update (View renders a copy
	// with the same lines drawn at the current time).
	Vp      viewport.Model
	history []state.Lookup
	histCur int

	// onScreen: the view is shown with the keyboard (between Start or Focus and Blur). Off
	// screen it reads nothing: an event about the transaction shown marks it missed, and the
	// lookup runs again when the view comes back (issue 27: hidden views do no work).
	onScreen, missed bool
}

// InspectResult is a transaction found by a lookup, with the tracked charge it belongs to (if
// any), the balance blocks the service lists for it and the refunds its webhooks reported.
type InspectResult struct {
	Query, Wallet string
	Tx            *api.Transaction
	Charge        state.Charge
	Tracked       bool
	TxRelated
}

// TxRelated is what a lookup gathers about a payment beyond its transaction: its balance blocks
// and its refunds (workflow.LookupRelated).
type TxRelated = workflow.Related

// LookupMsg is the reply of a lookup.
type LookupMsg struct {
	Tag           common.Tag
	Seq           uint64
	Query, Wallet string
	Tx            *api.Transaction
	Charge        state.Charge
	Tracked       bool
	related       TxRelated
	Err           error
	saveErr       error
}

// NewInspectorView makes the inspector view.
func NewInspectorView(c *common.Common) *View {
	ti := common.NewInput()
	ti.Prompt = "/ "
	ti.Placeholder = c.Tr.T("inspector.transaction_id_external_reference_or_idempotency")
	ti.CharLimit = 255
	tr := c.Tr
	lw := inspectorLabelMin
	for _, l := range []string{tr.T("inspector.payment_method"), tr.T("inspector.external_reference"), tr.T("inspector.idempotency_key"),
		tr.T("inspector.counterpart_doc"), tr.T("inspector.failure_reason"), tr.T("inspector.blocked_deposit"), "  " + tr.T("inspector.refund_settled"),
		"  " + tr.T("inspector.refund_e2eid"), tr.T("inspector.customer_id"), tr.T("inspector.project_id"), tr.T("inspector.description")} {
		lw = max(lw, lipgloss.Width(l)+1)
	}
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{} // the view's own keys scroll it
	return &View{c: c, Input: ti, labelW: min(lw, inspectorLabelMax), Vp: vp}
}

// Title names the view in the tab strip.
func (v *View) Title() string { return v.c.Tr.T("inspector.inspector") }

// SetSize gives it its room in cells.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.Input.Width = max(w-lipgloss.Width(v.Input.Prompt)-2, 1)
	v.Vp.Width, v.Vp.Height = max(w, 0), max(h-2, 1)
	v.syncDetail()
	return nil
}

// syncDetail puts the result's detail, at the current width, in the viewport.
func (v *View) syncDetail() {
	if v.Res == nil {
		v.Vp.SetContent("")
		v.Vp.GotoTop()
		return
	}
	v.Vp.SetContent(v.detailContent(v.width))
	v.Vp.SetYOffset(v.Vp.YOffset) // clamp to the new length
}

// detailContent is the result's detail as the viewport's text, each line cut to w.
func (v *View) detailContent(w int) string {
	lines := v.DetailLines(v.Res, w)
	for i, l := range lines {
		lines[i] = common.TruncateWidth(l, w)
	}
	return strings.Join(lines, "\n")
}

// CapturesText reports whether the lookup input has the keyboard.
func (v *View) CapturesText() bool { return v.Input.Focused() }

// Start loads the lookup history and, with nothing on screen, puts the cursor in the input.
// activate loads the history; the input waits for / (or enter), so the view keys keep working.
// start reads the lookup history.
func (v *View) Start() tea.Cmd {
	v.onScreen = true
	return tea.Batch(v.loadHistory(), v.catchUp())
}

// Focus gives the view the keyboard back; it reads only what it missed off screen.
func (v *View) Focus() tea.Cmd {
	v.onScreen = true
	return v.catchUp()
}

// Blur keeps the view as it is: it shows the same rows when it comes back.
func (v *View) Blur() { v.onScreen = false }

// catchUp looks the transaction shown up again when an event about it came while the view was
// off screen.
func (v *View) catchUp() tea.Cmd {
	if !v.missed {
		return nil
	}
	v.missed = false
	if v.Res == nil || v.Loading {
		return nil
	}
	return v.lookup(v.Res.Query, v.Res.Wallet, false)
}

// HistoryMsg is the lookup history as read from the store.
type HistoryMsg struct {
	gen     uint64
	lookups []state.Lookup
	err     error
}

// loadHistory reads the lookup history.
func (v *View) loadHistory() tea.Cmd {
	gen, store := v.c.App.Gen, v.c.App.Sess.Store
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		ls, err := store.RecentLookups(ctx)
		return HistoryMsg{gen: gen, lookups: ls, err: err}
	})
}

func (v *View) setHistory(ls []state.Lookup) {
	v.history = ls
	if v.histCur >= len(v.history) {
		v.histCur = len(v.history) - 1
	}
	if v.histCur < 0 {
		v.histCur = 0
	}
}

func (v *View) failed() bool { return v.notFound || v.errText != "" }

// ShortHelp lists its main keys.
func (v *View) ShortHelp() []key.Binding {
	k, tr := v.c.Keys, v.c.Tr
	if v.Input.Focused() {
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.T("inspector.look_up"))),
			key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", tr.T("inspector.history"))),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.T("inspector.leave_input"))),
		}
	}
	if v.Res == nil {
		bs := []key.Binding{k.Lookup}
		if len(v.history) > 0 {
			bs = append(bs, k.Up, k.Down, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.T("inspector.look_up"))))
		}
		if v.failed() {
			bs = append(bs, k.Refresh)
		}
		return bs
	}
	bs := []key.Binding{k.Lookup, k.Reveal}
	if QrAvailable(v.Res.Tx) {
		bs = append(bs, k.QR)
	}
	return append(bs, k.Refresh, k.PageDown)
}

// FullHelp lists all its keys.
func (v *View) FullHelp() [][]key.Binding {
	k := v.c.Keys
	enter := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.Tr.T("inspector.look_up")))
	return [][]key.Binding{{k.Lookup, enter, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Reveal, k.QR, k.Refund, k.Refresh, k.Back}}
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.Input.Focused() {
			return v.inputKey(msg)
		}
		return v.key(msg)
	case common.InspectMsg:
		q := strings.TrimSpace(msg.Query)
		if q == "" {
			return nil
		}
		v.Input.Blur()
		v.Input.SetValue(q)
		return v.lookup(q, msg.Wallet, true)
	case LookupMsg:
		return v.onLookup(msg)
	case HistoryMsg:
		if msg.gen == v.c.App.Gen && msg.err == nil {
			v.setHistory(msg.lookups)
		}
	case common.WalletChangedMsg:
		// A lookup made for the previous wallet is dropped; what is on screen stays, labelled with its wallet.
		if v.Loading {
			v.Seq++
			v.Loading = false
		}
	case common.RefundedMsg:
		if v.Res != nil && v.Res.Tx.ID == msg.ID && !v.Loading {
			return v.lookup(v.Res.Query, v.Res.Wallet, false)
		}
	case common.EventMsg:
		if msg.Gen == v.c.App.Gen && msg.Ev != nil && v.Res != nil && !v.Loading &&
			msg.Ev.TransactionID == v.Res.Tx.ID {
			if !v.onScreen {
				v.missed = true
				return nil
			}
			return v.lookup(v.Res.Query, v.Res.Wallet, false)
		}
	}
	return nil
}

// inputKey handles keys while the lookup input is focused.
func (v *View) inputKey(km tea.KeyMsg) tea.Cmd {
	switch km.Type {
	case tea.KeyEsc:
		v.Input.Blur()
		return nil
	case tea.KeyEnter:
		q := strings.TrimSpace(v.Input.Value())
		if q == "" {
			// With the history on screen, an empty input looks the selected entry up again.
			if l, ok := v.selectedLookup(); ok && v.Res == nil {
				v.Input.Blur()
				v.Input.SetValue(common.Sanitize(l.Query))
				return v.lookup(l.Query, l.Wallet, true)
			}
			if v.Res != nil {
				v.Input.Blur()
			}
			return nil
		}
		v.Input.Blur()
		return v.lookup(q, v.c.App.Wallet, true)
	case tea.KeyUp, tea.KeyDown:
		d := 1
		if km.Type == tea.KeyUp {
			d = -1
		}
		switch {
		case v.Res != nil && d < 0:
			v.Vp.ScrollUp(1)
		case v.Res != nil:
			v.Vp.ScrollDown(1)
		default:
			v.moveHistory(d)
		}
		return nil
	}
	var cmd tea.Cmd
	v.Input, cmd = v.Input.Update(km)
	return cmd
}

// key handles keys while the input is not focused.
func (v *View) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case key.Matches(km, k.Lookup):
		v.Input.SetValue("")
		return v.Input.Focus()
	case key.Matches(km, k.Back):
		if v.Res != nil || v.failed() {
			v.Res, v.notFound, v.errText = nil, false, ""
			v.reveal = false
			v.syncDetail()
			v.Input.SetValue("")
			return v.loadHistory()
		}
		return nil
	case key.Matches(km, k.Refresh):
		switch {
		case v.Res != nil:
			return v.lookup(v.Res.Query, v.Res.Wallet, false)
		case v.failed():
			return v.lookup(v.failQuery, v.failWallet, false)
		}
		return nil
	}
	if v.Res == nil {
		switch {
		case key.Matches(km, k.Up):
			v.moveHistory(-1)
		case key.Matches(km, k.Down):
			v.moveHistory(1)
		case key.Matches(km, k.Top):
			v.histCur = 0
		case key.Matches(km, k.Bottom):
			v.histCur = max(len(v.history)-1, 0)
		case key.Matches(km, k.Enter):
			if l, ok := v.selectedLookup(); ok {
				v.Input.SetValue(common.Sanitize(l.Query))
				return v.lookup(l.Query, l.Wallet, true)
			}
			return v.Input.Focus()
		}
		return nil
	}
	switch {
	case key.Matches(km, k.Up):
		v.Vp.ScrollUp(1)
	case key.Matches(km, k.Down):
		v.Vp.ScrollDown(1)
	case key.Matches(km, k.PageUp):
		v.Vp.ScrollUp(max(v.Vp.Height-1, 1)) // a page keeps one line of the last one
	case key.Matches(km, k.PageDown):
		v.Vp.ScrollDown(max(v.Vp.Height-1, 1))
	case key.Matches(km, k.Top):
		v.Vp.GotoTop()
	case key.Matches(km, k.Bottom):
		v.Vp.GotoBottom()
	case key.Matches(km, k.Reveal):
		v.reveal = !v.reveal
		v.syncDetail()
	case key.Matches(km, k.QR):
		return v.openQR()
	case key.Matches(km, k.Refund):
		if v.Res == nil || v.Res.Tx == nil {
			return nil
		}
		o, cmd := v.c.Open.RefundTx(v.c, v.Res.Charge, v.Res.Tracked, v.Res.Tx, v.Res.Wallet)
		v.Ask(o)
		return cmd
	case key.Matches(km, k.Enter):
		v.Input.SetValue("")
		return v.Input.Focus()
	}
	return nil
}

func (v *View) moveHistory(d int) {
	v.histCur += d
	if v.histCur >= len(v.history) {
		v.histCur = len(v.history) - 1
	}
	if v.histCur < 0 {
		v.histCur = 0
	}
}

func (v *View) selectedLookup() (state.Lookup, bool) {
	if v.histCur < 0 || v.histCur >= len(v.history) {
		return state.Lookup{}, false
	}
	return v.history[v.histCur], true
}

// lookuper finds a transaction and what belongs to it (*workflow.Session does).
type lookuper interface {
	Lookup(ctx context.Context, query, wallet string, record bool) workflow.LookupResult
}

// lookup reads the transaction in wallet; record adds it to the history (a refresh does not).
func (v *View) lookup(query, wallet string, record bool) tea.Cmd {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	v.Seq++
	v.Loading = true
	v.PendingQuery, v.PendingWallet = query, wallet
	var lk lookuper = v.c.App.Sess
	seq, t := v.Seq, v.c.App.Tag()
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		r := lk.Lookup(ctx, query, wallet, record)
		return LookupMsg{Tag: t, Seq: seq, Query: query, Wallet: wallet, Tx: r.Tx, Charge: r.Charge, Tracked: r.Tracked,
			related: r.Related, Err: r.Err, saveErr: r.SaveErr}
	})
}

// isTxNotFound reports a 404 about the transaction itself (not about the wallet in X-Sub-Account).
func isTxNotFound(err error) bool { return workflow.TxNotFound(err) }

func (v *View) onLookup(msg LookupMsg) tea.Cmd {
	if v.c.App.Stale(msg.Tag) || msg.Seq != v.Seq {
		return nil
	}
	v.Loading = false
	cmd := v.loadHistory()
	if msg.saveErr != nil {
		text := v.c.Tr.F("inspector.could_not_save_the_lookup_history", msg.saveErr)
		cmd = tea.Batch(cmd, func() tea.Msg { return common.StatusMsg{Text: text, Kind: common.StatusWarn} })
	}
	if msg.Err != nil {
		v.failQuery, v.failWallet = msg.Query, msg.Wallet
		v.notFound = isTxNotFound(msg.Err)
		v.errText = ""
		if !v.notFound {
			v.errText = common.DescribeErr(v.c.Tr, v.c.Tr.T("inspector.look_up_transaction"), msg.Err)
		}
		v.Res = nil
		v.syncDetail()
		return cmd
	}
	same := v.Res != nil && v.Res.Tx.ID == msg.Tx.ID
	v.Res = &InspectResult{Query: msg.Query, Wallet: msg.Wallet, Tx: msg.Tx, Charge: msg.Charge, Tracked: msg.Tracked, TxRelated: msg.related}
	v.notFound, v.errText = false, ""
	if !same {
		v.reveal = false
		v.Vp.GotoTop()
	}
	v.syncDetail()
	return cmd
}

// QrAvailable reports whether tx is a pending PIX payment with a code to show as a QR.
func QrAvailable(tx *api.Transaction) bool {
	return tx != nil && tx.Status == api.StatusPending && tx.PaymentMethod == api.MethodPix &&
		(tx.Type == api.TypePayment || tx.Type == "") && tx.PixCopyPaste != ""
}

// openQR tracks the transaction (so the QR screen and polling know it) and opens its QR screen.
func (v *View) openQR() tea.Cmd {
	tr := v.c.Tr
	if v.Res == nil || !QrAvailable(v.Res.Tx) {
		return common.AnswerStatus(tr.T("inspector.the_qr_is_shown_only_for"), common.StatusWarn)
	}
	store, tx, wallet := v.c.App.Sess.Store, v.Res.Tx, v.Res.Wallet
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		ch, err := store.TrackTransaction(ctx, tx, wallet)
		if err != nil {
			return common.StatusMsg{Text: tr.F("inspector.could_not_track_the_charge", err), Kind: common.StatusError}
		}
		return common.OpenChargeMsg{Charge: ch}
	})
}

// matchedBy says which of the three lookups found the transaction.
func (v *View) matchedBy(r *InspectResult) string {
	tr := v.c.Tr
	switch {
	case r.Tx.ID == r.Query:
		return tr.T("inspector.matched_by_id")
	case r.Tx.ExternalReference != "" && r.Tx.ExternalReference == r.Query:
		return tr.T("inspector.matched_by_external_reference")
	}
	return tr.T("inspector.matched_by_idempotency_key")
}

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w, h := v.width, v.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st, tr := v.c.St, v.c.Tr
	lines := make([]string, 0, h)
	lines = append(lines, common.TruncateWidth(v.Input.View(), w))
	if h == 1 {
		return lines[0]
	}
	body := h - 2
	switch {
	case v.Res != nil:
		// A copy of the viewport gets the detail drawn now (countdowns move); update set the
		// same lines, so the scroll position holds.
		vp := v.Vp
		vp.Width, vp.Height = w, body
		vp.SetContent(v.detailContent(w))
		head := st.Bold.Render(tr.T("inspector.transaction")) +
			st.Muted.Render(" · "+tr.F("inspector.wallet", v.Res.Wallet)+" · "+v.matchedBy(v.Res))
		if v.Loading {
			head += st.Muted.Render(" · " + tr.T("inspector.refreshing"))
		}
		right := ""
		if n := vp.TotalLineCount(); n > body {
			top := vp.YOffset
			pos := fmt.Sprintf("%d–%d/%d", top+1, min(top+body, n), n)
			if !vp.AtTop() {
				pos = "↑ " + pos
			}
			if !vp.AtBottom() {
				pos += " ↓"
			}
			right = st.Muted.Render(pos)
		}
		lines = append(lines, common.Spread(head, right, w))
		lines = append(lines, strings.Split(vp.View(), "\n")...)
	case v.Loading:
		lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.F("inspector.looking_up_in_wallet", common.Sanitize(v.PendingQuery), v.PendingWallet), w)))
		lines = append(lines, v.historyLines(w, body)...)
	case v.notFound:
		lines = append(lines, st.Err.Render(common.TruncateWidth(tr.F("inspector.nothing_matched_in_wallet", common.Sanitize(v.failQuery), v.failWallet), w)))
		more := tr.T("inspector.it_is_not_a_transaction_id") + " " +
			tr.F("inspector.if_it_belongs_to_another_wallet", v.c.App.Wallet)
		for _, m := range strings.Split(ansi.Wrap(more, w, ""), "\n") {
			lines = append(lines, st.Subtle.Render(common.TruncateWidth(m, w)))
		}
		lines = append(lines, "")
		lines = append(lines, v.historyLines(w, h-len(lines))...)
	case v.errText != "":
		for _, l := range strings.Split(ansi.Wrap(v.errText, w, ""), "\n") {
			if len(lines) >= 4 {
				break
			}
			lines = append(lines, st.Err.Render(common.TruncateWidth(l, w)))
		}
		lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.T("inspector.r_retries_starts_another_lookup"), w)), "")
		lines = append(lines, v.historyLines(w, h-len(lines))...)
	default:
		lines = append(lines, st.Subtle.Render(common.TruncateWidth(tr.T("inspector.press_and_type_a_transaction_id"), w)))
		lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.F("inspector.lookups_run_in_wallet_w_switches", v.c.App.Wallet), w)), "")
		lines = append(lines, v.historyLines(w, body-2)...)
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// historyLines lists recent lookups, the selected one highlighted, in at most h lines.
func (v *View) historyLines(w, h int) []string {
	st, tr := v.c.St, v.c.Tr
	if h <= 0 {
		return nil
	}
	if len(v.history) == 0 {
		return []string{st.Muted.Render(common.TruncateWidth(tr.T("inspector.no_recent_lookups_yet"), w))}
	}
	out := []string{st.Bold.Render(tr.T("inspector.recent_lookups")) + st.Muted.Render(common.TruncateWidth(" · "+tr.T("inspector.choose_enter_looks_it_up_again"), max(w-lipgloss.Width(tr.T("inspector.recent_lookups")), 0)))}
	const walletW, whenW, resW = 14, 12, 14
	qW := max(w-walletW-whenW-resW-5, 8)
	if h >= 3 {
		out = append(out, st.ColHeader.Render(common.TruncateWidth("  "+common.PadRight(tr.T("inspector.query_caps"), qW)+" "+common.PadRight(tr.T("inspector.wallet_caps"), walletW)+" "+common.PadRight(tr.T("inspector.when_caps"), whenW)+" "+tr.T("inspector.result_caps"), w)))
	}
	rows := h - len(out)
	if rows <= 0 {
		return out[:h]
	}
	start := 0
	if v.histCur >= rows {
		start = v.histCur - rows + 1
	}
	now := v.c.Now()
	for i := start; i < len(v.history) && i < start+rows; i++ {
		l := v.history[i]
		res := "✓ " + tr.T("inspector.found")
		if !l.Found {
			res = "✗ " + tr.T("inspector.not_found")
		}
		row := common.PadRight(common.Sanitize(l.Query), qW) + " " + common.PadRight(common.Sanitize(l.Wallet), walletW) + " " +
			common.PadRight(tr.F("inspector.ago", common.HumanAge(now.Sub(l.At))), whenW) + " " + res
		if i == v.histCur {
			out = append(out, st.SelectedLine(common.PadRight("▸ "+row, w)))
			continue
		}
		style := st.OK
		if !l.Found {
			style = st.Muted
		}
		out = append(out, common.TruncateWidth("  "+common.PadRight(common.Sanitize(l.Query), qW)+" "+common.PadRight(common.Sanitize(l.Wallet), walletW)+" "+
			st.Muted.Render(common.PadRight(tr.F("inspector.ago", common.HumanAge(now.Sub(l.At))), whenW))+" "+style.Render(res), w))
	}
	return out
}

// txStatusStyle colours a transaction status; the symbol keeps it readable without colour.
func txStatusStyle(st *common.Styles, s api.TxStatus) (lipgloss.Style, string) {
	switch s {
	case api.StatusCompleted:
		return st.OK, "✓"
	case api.StatusPending:
		return st.Warn, "○"
	case api.StatusFailed:
		return st.Err, "✗"
	case api.StatusCancelled:
		return st.Muted, "⊘"
	}
	return st.Muted, "?"
}

func refundStyle(st *common.Styles, s api.RefundStatus) lipgloss.Style {
	switch s {
	case api.RefundConfirmed:
		return st.OK
	case api.RefundPending:
		return st.Warn
	case api.RefundFailed:
		return st.Err
	}
	return st.Muted
}

// DetailLines renders every field of the transaction, one per line (long values wrapped).
func (v *View) DetailLines(r *InspectResult, w int) []string {
	st, tr := v.c.St, v.c.Tr
	tx := r.Tx
	lw := v.labelW
	vw := max(w-lw, 10)
	dash := st.Muted.Render("—")
	var out []string
	field := func(label, value string) {
		out = append(out, st.Label.Render(common.PadRight(label, lw))+value)
	}
	text := func(label, s string) {
		if s == "" {
			field(label, dash)
			return
		}
		field(label, st.Value.Render(common.Sanitize(s)))
	}
	wrapped := func(label, s string, style lipgloss.Style) {
		if s == "" {
			field(label, dash)
			return
		}
		for i, l := range strings.Split(ansi.Wrap(common.Sanitize(s), vw, ""), "\n") {
			if i == 0 {
				field(label, style.Render(l))
			} else {
				out = append(out, common.Spaces(lw)+style.Render(l))
			}
		}
	}
	unknown := func(known bool, s string) string {
		if s == "" {
			return dash
		}
		if known {
			return st.Value.Render(common.Sanitize(s))
		}
		return st.Value.Render(common.Sanitize(s)) + st.Muted.Render(" "+tr.T("inspector.not_in_the_spec"))
	}
	when := func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return dash
		}
		return st.Value.Render(t.In(v.c.Loc).Format("02/01/2006 15:04:05 MST"))
	}

	text("Id", tx.ID)
	sty, sym := txStatusStyle(st, tx.Status)
	status := sty.Render(sym + " " + tr.Enum(tx.Status))
	if tx.Status == "" {
		status = dash
	} else if !tx.Status.Known() {
		status += st.Muted.Render(" " + tr.T("inspector.not_in_the_spec"))
	}
	if o := r.outcome(); common.WentBack(o.State) {
		// The money went back to the payer or is held: that is the headline, not "completed".
		status = common.OutcomeLine(st, tr, o)
		if tx.Status == api.StatusCompleted {
			status += st.Muted.Render(tr.T("inspector.completed_at_the_service"))
		}
	}
	field(tr.T("inspector.status"), status)
	field(tr.T("inspector.type"), unknown(tx.Type.Known(), tr.Enum(tx.Type)))
	if tx.Type == api.TypeInternalTransfer {
		switch {
		case tx.Amount < 0:
			field(tr.T("inspector.direction"), st.Warn.Render("→ "+tr.T("inspector.sent_outgoing")))
		case tx.Amount > 0:
			field(tr.T("inspector.direction"), st.OK.Render("← "+tr.T("inspector.received_incoming")))
		default:
			field(tr.T("inspector.direction"), dash)
		}
	}
	field(tr.T("inspector.payment_method"), unknown(tx.PaymentMethod.Known(), tr.Enum(tx.PaymentMethod)))
	field(tr.T("inspector.amount"), st.Bold.Render(tx.Amount.BRL()))
	text(tr.T("inspector.currency"), tx.Currency)
	wrapped(tr.T("inspector.description"), tx.Description, st.Value)
	text(tr.T("inspector.external_reference"), tx.ExternalReference)
	if r.Tracked && r.Charge.IdempotencyKey != "" {
		field(tr.T("inspector.idempotency_key"), st.Value.Render(common.Sanitize(r.Charge.IdempotencyKey))+st.Muted.Render(" "+tr.T("inspector.kept_by_pixdash")))
	}
	text(tr.T("inspector.customer_id"), tx.CustomerID)
	text(tr.T("inspector.project_id"), tx.ProjectID)
	created := tx.CreatedAt
	field(tr.T("inspector.created"), when(&created))
	field(tr.T("inspector.updated"), when(tx.UpdatedAt))
	exp := when(tx.ExpiresAt)
	if tx.ExpiresAt != nil && !tx.ExpiresAt.IsZero() {
		if left := tx.ExpiresAt.Sub(v.c.Now()); left > 0 {
			exp += st.Muted.Render(" · " + tr.F("inspector.in", common.HumanDuration(left)))
		} else {
			exp += st.Muted.Render(" · " + tr.F("inspector.ago", common.HumanAge(left)))
		}
	}
	field(tr.T("inspector.expires"), exp)
	field(tr.T("inspector.paid_at"), when(tx.PaidAt))
	text("e2eId", tx.E2EID)
	text(tr.T("inspector.counterpart"), tx.CounterpartName)
	if doc := tx.CounterpartDocument; doc != "" {
		shown, hint := common.MaskDocument(doc), tr.T("inspector.v_reveals")
		if v.reveal {
			shown, hint = common.FormatDocument(doc), tr.T("inspector.v_hides")
			if c := brdoc.Clean(doc); c != doc || brdoc.Format(c) == c { // not a compact CPF/CNPJ: as it came
				shown = common.Sanitize(doc)
			}
		}
		field(tr.T("inspector.counterpart_doc"), st.Value.Render(shown)+st.Muted.Render(" "+hint))
	} else {
		field(tr.T("inspector.counterpart_doc"), dash)
	}
	failure := tx.FailureReason
	if !v.reveal {
		failure = common.MaskDocumentsIn(failure)
	}
	wrapped(tr.T("inspector.failure_reason"), failure, st.Err)
	if bd := tx.BlockedDeposit; bd != nil {
		reason := bd.Reason
		if bd.Reason == api.ReasonCNPJPayerNotAllowed {
			reason = common.BlockReason(tr, bd.Reason) + " (" + bd.Reason + ")"
		}
		wrapped(tr.T("inspector.blocked_deposit"), reason, st.Err)
		if rf := bd.Refund; rf != nil {
			rs := dash
			if rf.Status != "" {
				rs = refundStyle(st, rf.Status).Render(tr.Enum(rf.Status))
				if !rf.Status.Known() {
					rs += st.Muted.Render(" " + tr.T("inspector.not_in_the_spec"))
				}
			}
			field("  "+tr.T("inspector.refund"), rs)
			e2e := ""
			if rf.E2EID != nil {
				e2e = *rf.E2EID
			}
			text("  "+tr.T("inspector.refund_e2eid"), e2e)
			field("  "+tr.T("inspector.refund_settled"), when(rf.SettledAt))
		} else {
			field("  "+tr.T("inspector.refund"), st.Muted.Render(tr.T("inspector.not_started")))
		}
	} else {
		field(tr.T("inspector.blocked_deposit"), dash)
	}
	if len(tx.Metadata) == 0 {
		field(tr.T("inspector.metadata"), dash)
	} else {
		keys := make([]string, 0, len(tx.Metadata))
		for k := range tx.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		field(tr.T("inspector.metadata"), st.Muted.Render(tr.N("inspector.keys_n", len(keys))))
		for _, k := range keys {
			val := metaValue(tx.Metadata[k])
			_, isText := tx.Metadata[k].(string)
			switch {
			case v.reveal:
			case common.DocumentKey(k):
				val = common.MaskDocumentValue(val)
			case !isText: // JSON: documents inside by member name and by shape
				val = string(common.MaskDocumentsJSON([]byte(val)))
			default:
				val = common.MaskDocumentsIn(val)
			}
			out = append(out, "  "+st.Label.Render(common.Sanitize(k))+" = "+st.Value.Render(common.Sanitize(val)))
		}
	}
	if tx.PixCopyPaste == "" {
		field(tr.T("inspector.pix_code"), dash)
	} else {
		hint := ""
		if QrAvailable(tx) {
			hint = st.Muted.Render(tr.T("inspector.q_shows_the_qr"))
		}
		field(tr.T("inspector.pix_code"), hint)
		for _, l := range common.ChunkCells(tx.PixCopyPaste, max(w-2, 10)) {
			out = append(out, "  "+l)
		}
	}
	out = append(out, v.splitDetail(r, w)...)
	out = append(out, v.reportedSplit(r, w)...)
	out = append(out, v.refundDetail(r, w)...)
	out = append(out, v.blockDetail(r, w)...)
	return out
}

// splitDetail shows a tracked charge's accepted split beside what payment_completed distributed
// (api.ReconcileSplit); nothing at all for a charge without a split or not tracked.
func (v *View) splitDetail(r *InspectResult, w int) []string {
	st, tr := v.c.St, v.c.Tr
	ch := r.Charge
	if !r.Tracked {
		return nil
	}
	rec := api.ReconcileSplit(ch.SplitRequested, ch.SplitDistributed, ch.HasDistributed)
	if rec.None() {
		return nil
	}
	// A charge pixdash did not create may have had a split it never saw: what was requested is
	// unknown, not "nothing".
	requestUnknown := len(ch.SplitRequested) == 0 && ch.Source != state.SourceCreated
	const destW, amtW = 20, 14
	out := []string{"", st.Bold.Render(tr.T("inspector.split")) + st.Muted.Render(" · "+tr.T("inspector.requested_at_creation_distributed_on_payment"))}
	out = append(out, st.ColHeader.Render(common.TruncateWidth("  "+common.PadRight(tr.T("inspector.destination_caps"), destW)+" "+common.PadLeft(tr.T("inspector.requested_caps"), amtW)+" "+common.PadLeft(tr.T("inspector.distributed_caps"), amtW), w)))
	dash := "—"
	for _, l := range rec.Legs {
		req, got, note := l.Requested.BRL(), l.Distributed.BRL(), ""
		switch l.Outcome {
		case api.SplitNotReported:
			got = dash
		case api.SplitReduced:
			note = tr.T("inspector.reduced")
		case api.SplitNotPaid:
			note = tr.T("inspector.not_paid")
		case api.SplitOverpaid:
			note = tr.T("inspector.more_than_requested")
		case api.SplitNotRequested:
			req, note = dash, tr.T("inspector.not_requested")
			if requestUnknown {
				req, note = "?", ""
			}
		}
		line := "  " + common.PadRight("→ "+common.Sanitize(l.SubAccount), destW) + " " + common.PadLeft(req, amtW) + " " + common.PadLeft(got, amtW)
		if note != "" {
			line += "  " + st.Warn.Render(note)
		}
		out = append(out, line)
	}
	switch {
	case requestUnknown:
		out = append(out, st.Muted.Render(common.TruncateWidth("  "+tr.T("inspector.requested_unknown_here_this_pixdash_did"), w)))
	case !rec.Reported:
		out = append(out, st.Muted.Render(common.TruncateWidth("  "+tr.T("inspector.distributed_not_reported_yet_the_service"), w)))
	case rec.Distributed == 0:
		out = append(out, st.Muted.Render(common.TruncateWidth("  "+tr.T("inspector.nothing_was_distributed"), w)))
	}
	return out
}

// reportedSplit shows a split a payment_completed reported that the service did not accept
// for the charge (state.Charge.SplitReported): the event's word only, never counted.
func (v *View) reportedSplit(r *InspectResult, w int) []string {
	st, tr := v.c.St, v.c.Tr
	if !r.Tracked || len(r.Charge.SplitReported) == 0 {
		return nil
	}
	out := []string{"", st.Bold.Render(tr.T("inspector.split_reported_by_the_event")) + st.Warn.Render(" · "+tr.T("inspector.unconfirmed_not_counted"))}
	for _, l := range r.Charge.SplitReported {
		out = append(out, common.TruncateWidth("  → "+common.Sanitize(l.SubAccount)+"  "+l.Amount.BRL(), w))
	}
	return out
}

// refundDetail lists the refunds of the transaction that refund_completed webhooks reported.
func (v *View) refundDetail(r *InspectResult, w int) []string {
	st, tr := v.c.St, v.c.Tr
	if r.RefundsErr != nil {
		return []string{"", st.Bold.Render(tr.T("inspector.refunds")) + st.Muted.Render(common.TruncateWidth(" · "+tr.F("inspector.could_not_read_the_events", r.RefundsErr), max(w-12, 0)))}
	}
	if len(r.Refunds) == 0 {
		return nil
	}
	var total api.Money
	for _, e := range r.Refunds {
		total += e.Amount
	}
	out := []string{"", st.Bold.Render(tr.T("inspector.refunds")) + st.Muted.Render(common.TruncateWidth(" · "+
		tr.N("inspector.refunds_of_in_all_as_the_n", len(r.Refunds), len(r.Refunds), total.BRL()), max(w-12, 0)))}
	for _, e := range r.Refunds {
		parts := []string{st.Bold.Render(e.Amount.BRL())}
		if e.FeeAmount != 0 {
			parts = append(parts, tr.F("inspector.fee_reported", e.FeeAmount.BRL())) // the event's, unconfirmed
		}
		if e.Status != "" {
			parts = append(parts, tr.Enum(e.Status))
		}
		if !e.CreatedAt.IsZero() {
			parts = append(parts, e.CreatedAt.In(v.c.Loc).Format("02/01/2006 15:04:05"))
		}
		out = append(out, common.TruncateWidth("  ↩ "+strings.Join(parts, st.Muted.Render(" · ")), w))
		if e.E2EID != "" {
			out = append(out, common.TruncateWidth("    "+st.Label.Render("e2eId ")+st.Value.Render(common.Sanitize(e.E2EID)), w))
		}
	}
	return out
}

// blockDetail lists the balance blocks the service holds on the transaction.
func (v *View) blockDetail(r *InspectResult, w int) []string {
	st, tr := v.c.St, v.c.Tr
	if r.BlocksErr != nil {
		return []string{"", st.Bold.Render(tr.T("inspector.balance_blocks")) + st.Muted.Render(common.TruncateWidth(" · "+common.DescribeErr(tr, tr.T("inspector.load_balance_blocks"), r.BlocksErr), max(w-20, 0)))}
	}
	if len(r.Blocks) == 0 {
		return nil
	}
	out := []string{"", st.Bold.Render(tr.T("inspector.balance_blocks")) + st.Muted.Render(" · "+tr.F("inspector.on_this_transaction", len(r.Blocks)))}
	for _, b := range r.Blocks {
		sty, sym := st.StatusLine(b.Status)
		parts := []string{sty.Render(sym + " " + common.OrDash(tr.Enum(b.Status))), common.OrDash(tr.Enum(common.BlockType(b.BlockType))), st.Bold.Render(b.Amount.BRL())}
		if b.ReferenceNumber != "" {
			parts = append(parts, common.Sanitize(b.ReferenceNumber))
		}
		if !b.CreatedAt.IsZero() {
			parts = append(parts, b.CreatedAt.In(v.c.Loc).Format("02/01/2006 15:04"))
		}
		out = append(out, common.TruncateWidth("  "+strings.Join(parts, st.Muted.Render(" · ")), w))
		if b.Reason != "" {
			out = append(out, common.TruncateWidth("    "+st.Label.Render(tr.T("inspector.reason")+" ")+st.Value.Render(common.Sanitize(b.Reason)), w))
		}
		if b.ResolvedAt != nil || b.ResolutionReason != "" {
			res := common.BlockMeaning(tr, b.Status)
			if b.ResolvedAt != nil {
				res = tr.F("inspector.resolved", b.ResolvedAt.In(v.c.Loc).Format("02/01/2006 15:04")) + " · " + res
			}
			if b.ResolutionReason != "" {
				res += " · " + common.Sanitize(b.ResolutionReason)
			}
			out = append(out, common.TruncateWidth("    "+st.Muted.Render(res), w))
		}
	}
	return out
}

// metaValue prints a metadata value: strings as they are, anything else as JSON.
func metaValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outcome is what happened to the payment's money: the service's answer with the confirmed
// facts it does not tell, the tracked charge's refund and MED block and the blocks the service
// listed for it (the newest).
func (r *InspectResult) outcome() state.Outcome {
	if r.Tx == nil || (r.Tx.Type != api.TypePayment && r.Tx.Type != "") {
		return state.Outcome{}
	}
	ch := state.ChargeFromTransaction(r.Tx, nil)
	if r.Tracked {
		ch = ch.WithOutcomeOf(r.Charge)
	}
	for _, b := range r.Blocks {
		if ch.Block == nil || b.ID == ch.Block.ID || !b.CreatedAt.Before(ch.Block.CreatedAt) {
			ch.Block = &state.Block{ID: b.ID, Amount: b.Amount, Status: b.Status, CreatedAt: b.CreatedAt, ResolvedAt: b.ResolvedAt}
		}
	}
	return ch.Outcome()
}

// ServiceErr is the outcome of the call to the service, for the header's light.
func (m LookupMsg) ServiceErr() error { return m.Err }

// ClockKey is what of the view changes with the clock (see common.Clocked): the transaction's
// expiry countdown (seconds under an hour) or how long ago it expired, how long ago each lookup
// of the history was made, and the minute.
func (v *View) ClockKey(now time.Time) string {
	var b strings.Builder
	b.WriteString(common.MinuteKey(now, v.c.Loc))
	if v.Res != nil {
		if exp := v.Res.Tx.ExpiresAt; exp != nil && !exp.IsZero() {
			if left := exp.Sub(now); left > 0 {
				b.WriteString(" in " + common.HumanDuration(left))
			} else {
				b.WriteString(" ago " + common.HumanAge(left))
			}
		}
	}
	for _, l := range v.history {
		b.WriteString(" " + common.HumanAge(now.Sub(l.At)))
	}
	return b.String()
}
