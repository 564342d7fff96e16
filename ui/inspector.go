package ui

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
)

// inspectorLabelWidth bounds the label column of the transaction detail (it fits the longest label).
const (
	inspectorLabelMin = 19
	inspectorLabelMax = 24
)

// inspectorView looks one transaction up (GET /transactions/{id}: id, then external reference,
// then idempotency key, in one wallet) and shows every field of it, with a history of lookups.
type inspectorView struct {
	asker  // the refund form R opens
	c      *common
	input  textinput.Model
	width  int
	height int
	// labelW is the label column: the longest translated label plus a space.
	labelW int

	// seq numbers lookups; a reply for an older one is dropped.
	seq     uint64
	loading bool
	// pendingQuery and pendingWallet are the lookup in flight.
	pendingQuery, pendingWallet string

	res *inspectResult
	// A failed lookup: notFound for a 404 on the transaction, errText for anything else.
	failQuery, failWallet string
	notFound              bool
	errText               string

	reveal bool
	// vp scrolls the detail of the result; its content is set in update (View renders a copy
	// with the same lines drawn at the current time).
	vp      viewport.Model
	history []state.Lookup
	histCur int
}

// inspectResult is a transaction found by a lookup, with the tracked charge it belongs to (if
// any), the balance blocks the service lists for it and the refunds its webhooks reported.
type inspectResult struct {
	query, wallet string
	tx            *api.Transaction
	charge        state.Charge
	tracked       bool
	txRelated
}

// txRelated is what a lookup gathers about a payment beyond its transaction: its balance blocks
// and its refunds (workflow.LookupRelated).
type txRelated = workflow.Related

// lookupMsg is the reply of a lookup.
type lookupMsg struct {
	tag           tag
	seq           uint64
	query, wallet string
	tx            *api.Transaction
	charge        state.Charge
	tracked       bool
	related       txRelated
	err           error
	saveErr       error
}

func newInspectorView(c *common) *inspectorView {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = c.tr.T("transaction id, external reference or idempotency key")
	ti.CharLimit = 255
	tr := c.tr
	lw := inspectorLabelMin
	for _, l := range []string{tr.T("Payment method"), tr.T("External reference"), tr.T("Idempotency key"),
		tr.T("Counterpart doc."), tr.T("Failure reason"), tr.T("Blocked deposit"), "  " + tr.T("Refund settled"),
		"  " + tr.T("Refund e2eId"), tr.T("Customer id"), tr.T("Project id"), tr.T("Description")} {
		lw = max(lw, lipgloss.Width(l)+1)
	}
	vp := viewport.New(0, 0)
	vp.KeyMap = viewport.KeyMap{} // the view's own keys scroll it
	return &inspectorView{c: c, input: ti, labelW: min(lw, inspectorLabelMax), vp: vp}
}

// title names the view in the tab strip.
func (v *inspectorView) title() string { return v.c.tr.T("Inspector") }

func (v *inspectorView) setSize(w, h int) {
	v.width, v.height = w, h
	v.input.Width = max(w-lipgloss.Width(v.input.Prompt)-2, 1)
	v.vp.Width, v.vp.Height = max(w, 0), max(h-2, 1)
	v.syncDetail()
}

// syncDetail puts the result's detail, at the current width, in the viewport.
func (v *inspectorView) syncDetail() {
	if v.res == nil {
		v.vp.SetContent("")
		v.vp.GotoTop()
		return
	}
	v.vp.SetContent(v.detailContent(v.width))
	v.vp.SetYOffset(v.vp.YOffset) // clamp to the new length
}

// detailContent is the result's detail as the viewport's text, each line cut to w.
func (v *inspectorView) detailContent(w int) string {
	lines := v.detailLines(v.res, w)
	for i, l := range lines {
		lines[i] = truncateWidth(l, w)
	}
	return strings.Join(lines, "\n")
}

// capturesText reports whether the lookup input has the keyboard.
func (v *inspectorView) capturesText() bool { return v.input.Focused() }

// activate loads the lookup history and, with nothing on screen, puts the cursor in the input.
// activate loads the history; the input waits for / (or enter), so the view keys keep working.
func (v *inspectorView) focus() tea.Cmd { return v.loadHistory() }

// blur keeps the view as it is: it shows the same rows when it comes back.
func (v *inspectorView) blur() {}

// historyMsg is the lookup history as read from the store.
type historyMsg struct {
	gen     uint64
	lookups []state.Lookup
	err     error
}

// loadHistory reads the lookup history.
func (v *inspectorView) loadHistory() tea.Cmd {
	gen, store := v.c.app.gen, v.c.app.sess.Store
	return v.c.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		ls, err := store.RecentLookups(ctx)
		return historyMsg{gen: gen, lookups: ls, err: err}
	})
}

func (v *inspectorView) setHistory(ls []state.Lookup) {
	v.history = ls
	if v.histCur >= len(v.history) {
		v.histCur = len(v.history) - 1
	}
	if v.histCur < 0 {
		v.histCur = 0
	}
}

func (v *inspectorView) failed() bool { return v.notFound || v.errText != "" }

func (v *inspectorView) ShortHelp() []key.Binding {
	k, tr := v.c.keys, v.c.tr
	if v.input.Focused() {
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.T("look up"))),
			key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", tr.T("history"))),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.T("leave input"))),
		}
	}
	if v.res == nil {
		bs := []key.Binding{k.Lookup}
		if len(v.history) > 0 {
			bs = append(bs, k.Up, k.Down, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.T("look up"))))
		}
		if v.failed() {
			bs = append(bs, k.Refresh)
		}
		return bs
	}
	bs := []key.Binding{k.Lookup, k.Reveal}
	if qrAvailable(v.res.tx) {
		bs = append(bs, k.QR)
	}
	return append(bs, k.Refresh, k.PageDown)
}

func (v *inspectorView) FullHelp() [][]key.Binding {
	k := v.c.keys
	enter := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.tr.T("look up")))
	return [][]key.Binding{{k.Lookup, enter, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Reveal, k.QR, k.Refund, k.Refresh, k.Back}}
}

func (v *inspectorView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.input.Focused() {
			return v.inputKey(msg)
		}
		return v.key(msg)
	case inspectMsg:
		q := strings.TrimSpace(msg.query)
		if q == "" {
			return nil
		}
		v.input.Blur()
		v.input.SetValue(q)
		return v.lookup(q, msg.wallet, true)
	case lookupMsg:
		return v.onLookup(msg)
	case historyMsg:
		if msg.gen == v.c.app.gen && msg.err == nil {
			v.setHistory(msg.lookups)
		}
	case walletChangedMsg:
		// A lookup made for the previous wallet is dropped; what is on screen stays, labelled with its wallet.
		if v.loading {
			v.seq++
			v.loading = false
		}
	case refundedMsg:
		if v.res != nil && v.res.tx.ID == msg.id && !v.loading {
			return v.lookup(v.res.query, v.res.wallet, false)
		}
	case eventMsg:
		if msg.gen == v.c.app.gen && msg.ev != nil && v.res != nil && !v.loading &&
			msg.ev.TransactionID == v.res.tx.ID {
			return v.lookup(v.res.query, v.res.wallet, false)
		}
	}
	return nil
}

// inputKey handles keys while the lookup input is focused.
func (v *inspectorView) inputKey(km tea.KeyMsg) tea.Cmd {
	switch km.Type {
	case tea.KeyEsc:
		v.input.Blur()
		return nil
	case tea.KeyEnter:
		q := strings.TrimSpace(v.input.Value())
		if q == "" {
			// With the history on screen, an empty input looks the selected entry up again.
			if l, ok := v.selectedLookup(); ok && v.res == nil {
				v.input.Blur()
				v.input.SetValue(sanitize(l.Query))
				return v.lookup(l.Query, l.Wallet, true)
			}
			if v.res != nil {
				v.input.Blur()
			}
			return nil
		}
		v.input.Blur()
		return v.lookup(q, v.c.app.wallet, true)
	case tea.KeyUp, tea.KeyDown:
		d := 1
		if km.Type == tea.KeyUp {
			d = -1
		}
		switch {
		case v.res != nil && d < 0:
			v.vp.ScrollUp(1)
		case v.res != nil:
			v.vp.ScrollDown(1)
		default:
			v.moveHistory(d)
		}
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(km)
	return cmd
}

// key handles keys while the input is not focused.
func (v *inspectorView) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.keys
	switch {
	case key.Matches(km, k.Lookup):
		v.input.SetValue("")
		return v.input.Focus()
	case key.Matches(km, k.Back):
		if v.res != nil || v.failed() {
			v.res, v.notFound, v.errText = nil, false, ""
			v.reveal = false
			v.syncDetail()
			v.input.SetValue("")
			return v.loadHistory()
		}
		return nil
	case key.Matches(km, k.Refresh):
		switch {
		case v.res != nil:
			return v.lookup(v.res.query, v.res.wallet, false)
		case v.failed():
			return v.lookup(v.failQuery, v.failWallet, false)
		}
		return nil
	}
	if v.res == nil {
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
				v.input.SetValue(sanitize(l.Query))
				return v.lookup(l.Query, l.Wallet, true)
			}
			return v.input.Focus()
		}
		return nil
	}
	switch {
	case key.Matches(km, k.Up):
		v.vp.ScrollUp(1)
	case key.Matches(km, k.Down):
		v.vp.ScrollDown(1)
	case key.Matches(km, k.PageUp):
		v.vp.ScrollUp(max(v.vp.Height-1, 1)) // a page keeps one line of the last one
	case key.Matches(km, k.PageDown):
		v.vp.ScrollDown(max(v.vp.Height-1, 1))
	case key.Matches(km, k.Top):
		v.vp.GotoTop()
	case key.Matches(km, k.Bottom):
		v.vp.GotoBottom()
	case key.Matches(km, k.Reveal):
		v.reveal = !v.reveal
		v.syncDetail()
	case key.Matches(km, k.QR):
		return v.openQR()
	case key.Matches(km, k.Refund):
		o, cmd := refundFromInspector(v.c, v.res)
		v.ask(o)
		return cmd
	case key.Matches(km, k.Enter):
		v.input.SetValue("")
		return v.input.Focus()
	}
	return nil
}

func (v *inspectorView) moveHistory(d int) {
	v.histCur += d
	if v.histCur >= len(v.history) {
		v.histCur = len(v.history) - 1
	}
	if v.histCur < 0 {
		v.histCur = 0
	}
}

func (v *inspectorView) selectedLookup() (state.Lookup, bool) {
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
func (v *inspectorView) lookup(query, wallet string, record bool) tea.Cmd {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	v.seq++
	v.loading = true
	v.pendingQuery, v.pendingWallet = query, wallet
	var lk lookuper = v.c.app.sess
	seq, t := v.seq, v.c.app.tag()
	return v.c.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		r := lk.Lookup(ctx, query, wallet, record)
		return lookupMsg{tag: t, seq: seq, query: query, wallet: wallet, tx: r.Tx, charge: r.Charge, tracked: r.Tracked,
			related: r.Related, err: r.Err, saveErr: r.SaveErr}
	})
}

// isTxNotFound reports a 404 about the transaction itself (not about the wallet in X-Sub-Account).
func isTxNotFound(err error) bool { return workflow.TxNotFound(err) }

func (v *inspectorView) onLookup(msg lookupMsg) tea.Cmd {
	if v.c.app.stale(msg.tag) || msg.seq != v.seq {
		return nil
	}
	v.loading = false
	cmd := v.loadHistory()
	if msg.saveErr != nil {
		text := v.c.tr.F("Could not save the lookup history: %v", msg.saveErr)
		cmd = tea.Batch(cmd, func() tea.Msg { return statusMsg{text: text, kind: statusWarn} })
	}
	if msg.err != nil {
		v.failQuery, v.failWallet = msg.query, msg.wallet
		v.notFound = isTxNotFound(msg.err)
		v.errText = ""
		if !v.notFound {
			v.errText = describeErr(v.c.tr, v.c.tr.T("look up transaction"), msg.err)
		}
		v.res = nil
		v.syncDetail()
		return cmd
	}
	same := v.res != nil && v.res.tx.ID == msg.tx.ID
	v.res = &inspectResult{query: msg.query, wallet: msg.wallet, tx: msg.tx, charge: msg.charge, tracked: msg.tracked, txRelated: msg.related}
	v.notFound, v.errText = false, ""
	if !same {
		v.reveal = false
		v.vp.GotoTop()
	}
	v.syncDetail()
	return cmd
}

// qrAvailable reports whether tx is a pending PIX payment with a code to show as a QR.
func qrAvailable(tx *api.Transaction) bool {
	return tx != nil && tx.Status == api.StatusPending && tx.PaymentMethod == api.MethodPix &&
		(tx.Type == api.TypePayment || tx.Type == "") && tx.PixCopyPaste != ""
}

// openQR tracks the transaction (so the QR screen and polling know it) and opens its QR screen.
func (v *inspectorView) openQR() tea.Cmd {
	tr := v.c.tr
	if v.res == nil || !qrAvailable(v.res.tx) {
		return answerStatus(tr.T("The QR is shown only for pending PIX charges that have a PIX code."), statusWarn)
	}
	store, tx, wallet := v.c.app.sess.Store, v.res.tx, v.res.wallet
	return v.c.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		ch, err := store.TrackTransaction(ctx, tx, wallet)
		if err != nil {
			return statusMsg{text: tr.F("Could not track the charge: %v", err), kind: statusError}
		}
		return openChargeMsg{charge: ch}
	})
}

// matchedBy says which of the three lookups found the transaction.
func (v *inspectorView) matchedBy(r *inspectResult) string {
	tr := v.c.tr
	switch {
	case r.tx.ID == r.query:
		return tr.T("matched by id")
	case r.tx.ExternalReference != "" && r.tx.ExternalReference == r.query:
		return tr.T("matched by external reference")
	}
	return tr.T("matched by idempotency key")
}

func (v *inspectorView) view() string {
	w, h := v.width, v.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st, tr := v.c.st, v.c.tr
	lines := make([]string, 0, h)
	lines = append(lines, truncateWidth(v.input.View(), w))
	if h == 1 {
		return lines[0]
	}
	body := h - 2
	switch {
	case v.res != nil:
		// A copy of the viewport gets the detail drawn now (countdowns move); update set the
		// same lines, so the scroll position holds.
		vp := v.vp
		vp.Width, vp.Height = w, body
		vp.SetContent(v.detailContent(w))
		head := st.Bold.Render(tr.T("Transaction")) +
			st.Muted.Render(" · "+tr.F("wallet %s", v.res.wallet)+" · "+v.matchedBy(v.res))
		if v.loading {
			head += st.Muted.Render(" · " + tr.T("refreshing…"))
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
		lines = append(lines, spread(head, right, w))
		lines = append(lines, strings.Split(vp.View(), "\n")...)
	case v.loading:
		lines = append(lines, st.Muted.Render(truncateWidth(tr.F("Looking up “%s” in wallet %s…", sanitize(v.pendingQuery), v.pendingWallet), w)))
		lines = append(lines, v.historyLines(w, body)...)
	case v.notFound:
		lines = append(lines, st.Err.Render(truncateWidth(tr.F("Nothing matched “%s” in wallet %s.", sanitize(v.failQuery), v.failWallet), w)))
		more := tr.T("It is not a transaction id, an external reference nor an idempotency key of this wallet.") + " " +
			tr.F("If it belongs to another wallet, switch with w (now %s) and look it up again.", v.c.app.wallet)
		for _, m := range strings.Split(ansi.Wrap(more, w, ""), "\n") {
			lines = append(lines, st.Subtle.Render(truncateWidth(m, w)))
		}
		lines = append(lines, "")
		lines = append(lines, v.historyLines(w, h-len(lines))...)
	case v.errText != "":
		for _, l := range strings.Split(ansi.Wrap(v.errText, w, ""), "\n") {
			if len(lines) >= 4 {
				break
			}
			lines = append(lines, st.Err.Render(truncateWidth(l, w)))
		}
		lines = append(lines, st.Muted.Render(truncateWidth(tr.T("r retries · / starts another lookup"), w)), "")
		lines = append(lines, v.historyLines(w, h-len(lines))...)
	default:
		lines = append(lines, st.Subtle.Render(truncateWidth(tr.T("Press / and type a transaction id, an external reference or an idempotency key, then enter."), w)))
		lines = append(lines, st.Muted.Render(truncateWidth(tr.F("Lookups run in wallet %s (w switches wallets).", v.c.app.wallet), w)), "")
		lines = append(lines, v.historyLines(w, body-2)...)
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// historyLines lists recent lookups, the selected one highlighted, in at most h lines.
func (v *inspectorView) historyLines(w, h int) []string {
	st, tr := v.c.st, v.c.tr
	if h <= 0 {
		return nil
	}
	if len(v.history) == 0 {
		return []string{st.Muted.Render(truncateWidth(tr.T("No recent lookups yet."), w))}
	}
	out := []string{st.Bold.Render(tr.T("Recent lookups")) + st.Muted.Render(truncateWidth(" · "+tr.T("↑/↓ choose · enter looks it up again"), max(w-lipgloss.Width(tr.T("Recent lookups")), 0)))}
	const walletW, whenW, resW = 14, 12, 14
	qW := max(w-walletW-whenW-resW-5, 8)
	if h >= 3 {
		out = append(out, st.ColHeader.Render(truncateWidth("  "+padRight(tr.T("QUERY"), qW)+" "+padRight(tr.T("WALLET"), walletW)+" "+padRight(tr.T("WHEN"), whenW)+" "+tr.T("RESULT"), w)))
	}
	rows := h - len(out)
	if rows <= 0 {
		return out[:h]
	}
	start := 0
	if v.histCur >= rows {
		start = v.histCur - rows + 1
	}
	now := v.c.now()
	for i := start; i < len(v.history) && i < start+rows; i++ {
		l := v.history[i]
		res := "✓ " + tr.T("found")
		if !l.Found {
			res = "✗ " + tr.T("not found")
		}
		row := padRight(sanitize(l.Query), qW) + " " + padRight(sanitize(l.Wallet), walletW) + " " +
			padRight(tr.F("%s ago", humanDuration(now.Sub(l.At))), whenW) + " " + res
		if i == v.histCur {
			out = append(out, st.selected(padRight("▸ "+row, w)))
			continue
		}
		style := st.OK
		if !l.Found {
			style = st.Muted
		}
		out = append(out, truncateWidth("  "+padRight(sanitize(l.Query), qW)+" "+padRight(sanitize(l.Wallet), walletW)+" "+
			st.Muted.Render(padRight(tr.F("%s ago", humanDuration(now.Sub(l.At))), whenW))+" "+style.Render(res), w))
	}
	return out
}

// txStatusStyle colours a transaction status; the symbol keeps it readable without colour.
func txStatusStyle(st *styles, s api.TxStatus) (lipgloss.Style, string) {
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

func refundStyle(st *styles, s api.RefundStatus) lipgloss.Style {
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

// detailLines renders every field of the transaction, one per line (long values wrapped).
func (v *inspectorView) detailLines(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	tx := r.tx
	lw := v.labelW
	vw := max(w-lw, 10)
	dash := st.Muted.Render("—")
	var out []string
	field := func(label, value string) {
		out = append(out, st.Label.Render(padRight(label, lw))+value)
	}
	text := func(label, s string) {
		if s == "" {
			field(label, dash)
			return
		}
		field(label, st.Value.Render(sanitize(s)))
	}
	wrapped := func(label, s string, style lipgloss.Style) {
		if s == "" {
			field(label, dash)
			return
		}
		for i, l := range strings.Split(ansi.Wrap(sanitize(s), vw, ""), "\n") {
			if i == 0 {
				field(label, style.Render(l))
			} else {
				out = append(out, spaces(lw)+style.Render(l))
			}
		}
	}
	unknown := func(known bool, s string) string {
		if s == "" {
			return dash
		}
		if known {
			return st.Value.Render(sanitize(s))
		}
		return st.Value.Render(sanitize(s)) + st.Muted.Render(" "+tr.T("(not in the spec)"))
	}
	when := func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return dash
		}
		return st.Value.Render(t.In(v.c.loc).Format("02/01/2006 15:04:05 MST"))
	}

	text("Id", tx.ID)
	sty, sym := txStatusStyle(st, tx.Status)
	status := sty.Render(sym + " " + tr.Enum(tx.Status))
	if tx.Status == "" {
		status = dash
	} else if !tx.Status.Known() {
		status += st.Muted.Render(" " + tr.T("(not in the spec)"))
	}
	if o := r.outcome(); wentBack(o.State) {
		// The money went back to the payer or is held: that is the headline, not "completed".
		status = outcomeLine(st, tr, o)
		if tx.Status == api.StatusCompleted {
			status += st.Muted.Render(tr.T(" · completed at the service"))
		}
	}
	field(tr.T("Status"), status)
	field(tr.T("Type"), unknown(tx.Type.Known(), tr.Enum(tx.Type)))
	if tx.Type == api.TypeInternalTransfer {
		switch {
		case tx.Amount < 0:
			field(tr.T("Direction"), st.Warn.Render("→ "+tr.T("sent (outgoing)")))
		case tx.Amount > 0:
			field(tr.T("Direction"), st.OK.Render("← "+tr.T("received (incoming)")))
		default:
			field(tr.T("Direction"), dash)
		}
	}
	field(tr.T("Payment method"), unknown(tx.PaymentMethod.Known(), tr.Enum(tx.PaymentMethod)))
	field(tr.T("Amount"), st.Bold.Render(tx.Amount.BRL()))
	text(tr.T("Currency"), tx.Currency)
	wrapped(tr.T("Description"), tx.Description, st.Value)
	text(tr.T("External reference"), tx.ExternalReference)
	if r.tracked && r.charge.IdempotencyKey != "" {
		field(tr.T("Idempotency key"), st.Value.Render(sanitize(r.charge.IdempotencyKey))+st.Muted.Render(" "+tr.T("(kept by pixdash)")))
	}
	text(tr.T("Customer id"), tx.CustomerID)
	text(tr.T("Project id"), tx.ProjectID)
	created := tx.CreatedAt
	field(tr.T("Created"), when(&created))
	field(tr.T("Updated"), when(tx.UpdatedAt))
	exp := when(tx.ExpiresAt)
	if tx.ExpiresAt != nil && !tx.ExpiresAt.IsZero() {
		if left := tx.ExpiresAt.Sub(v.c.now()); left > 0 {
			exp += st.Muted.Render(" · " + tr.F("in %s", humanDuration(left)))
		} else {
			exp += st.Muted.Render(" · " + tr.F("%s ago", humanDuration(left)))
		}
	}
	field(tr.T("Expires"), exp)
	field(tr.T("Paid at"), when(tx.PaidAt))
	text("e2eId", tx.E2EID)
	text(tr.T("Counterpart"), tx.CounterpartName)
	if doc := tx.CounterpartDocument; doc != "" {
		shown, hint := maskDocument(doc), tr.T("(v reveals)")
		if v.reveal {
			shown, hint = formatDocument(doc), tr.T("(v hides)")
			if c := brdoc.Clean(doc); c != doc || brdoc.Format(c) == c { // not a compact CPF/CNPJ: as it came
				shown = sanitize(doc)
			}
		}
		field(tr.T("Counterpart doc."), st.Value.Render(shown)+st.Muted.Render(" "+hint))
	} else {
		field(tr.T("Counterpart doc."), dash)
	}
	failure := tx.FailureReason
	if !v.reveal {
		failure = maskDocumentsIn(failure)
	}
	wrapped(tr.T("Failure reason"), failure, st.Err)
	if bd := tx.BlockedDeposit; bd != nil {
		reason := bd.Reason
		if bd.Reason == api.ReasonCNPJPayerNotAllowed {
			reason = blockReason(tr, bd.Reason) + " (" + bd.Reason + ")"
		}
		wrapped(tr.T("Blocked deposit"), reason, st.Err)
		if rf := bd.Refund; rf != nil {
			rs := dash
			if rf.Status != "" {
				rs = refundStyle(st, rf.Status).Render(tr.Enum(rf.Status))
				if !rf.Status.Known() {
					rs += st.Muted.Render(" " + tr.T("(not in the spec)"))
				}
			}
			field("  "+tr.T("Refund"), rs)
			e2e := ""
			if rf.E2EID != nil {
				e2e = *rf.E2EID
			}
			text("  "+tr.T("Refund e2eId"), e2e)
			field("  "+tr.T("Refund settled"), when(rf.SettledAt))
		} else {
			field("  "+tr.T("Refund"), st.Muted.Render(tr.T("not started")))
		}
	} else {
		field(tr.T("Blocked deposit"), dash)
	}
	if len(tx.Metadata) == 0 {
		field(tr.T("Metadata"), dash)
	} else {
		keys := make([]string, 0, len(tx.Metadata))
		for k := range tx.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		field(tr.T("Metadata"), st.Muted.Render(tr.N(len(keys), "%d key", "%d keys")))
		for _, k := range keys {
			val := metaValue(tx.Metadata[k])
			_, isText := tx.Metadata[k].(string)
			switch {
			case v.reveal:
			case documentKey(k):
				val = maskDocumentValue(val)
			case !isText: // JSON: documents inside by member name and by shape
				val = string(maskDocumentsJSON([]byte(val)))
			default:
				val = maskDocumentsIn(val)
			}
			out = append(out, "  "+st.Label.Render(sanitize(k))+" = "+st.Value.Render(sanitize(val)))
		}
	}
	if tx.PixCopyPaste == "" {
		field(tr.T("PIX code"), dash)
	} else {
		hint := ""
		if qrAvailable(tx) {
			hint = st.Muted.Render(tr.T("Q shows the QR"))
		}
		field(tr.T("PIX code"), hint)
		for _, l := range chunkCells(tx.PixCopyPaste, max(w-2, 10)) {
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
func (v *inspectorView) splitDetail(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	ch := r.charge
	if !r.tracked {
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
	out := []string{"", st.Bold.Render(tr.T("Split")) + st.Muted.Render(" · "+tr.T("requested at creation, distributed on payment"))}
	out = append(out, st.ColHeader.Render(truncateWidth("  "+padRight(tr.T("DESTINATION"), destW)+" "+padLeft(tr.T("REQUESTED"), amtW)+" "+padLeft(tr.T("DISTRIBUTED"), amtW), w)))
	dash := "—"
	for _, l := range rec.Legs {
		req, got, note := l.Requested.BRL(), l.Distributed.BRL(), ""
		switch l.Outcome {
		case api.SplitNotReported:
			got = dash
		case api.SplitReduced:
			note = tr.T("reduced")
		case api.SplitNotPaid:
			note = tr.T("not paid")
		case api.SplitOverpaid:
			note = tr.T("more than requested")
		case api.SplitNotRequested:
			req, note = dash, tr.T("not requested")
			if requestUnknown {
				req, note = "?", ""
			}
		}
		line := "  " + padRight("→ "+sanitize(l.SubAccount), destW) + " " + padLeft(req, amtW) + " " + padLeft(got, amtW)
		if note != "" {
			line += "  " + st.Warn.Render(note)
		}
		out = append(out, line)
	}
	switch {
	case requestUnknown:
		out = append(out, st.Muted.Render(truncateWidth("  "+tr.T("Requested: unknown here (this pixdash did not create the charge)."), w)))
	case !rec.Reported:
		out = append(out, st.Muted.Render(truncateWidth("  "+tr.T("Distributed: not reported yet (the service reports it when the payment is confirmed)."), w)))
	case rec.Distributed == 0:
		out = append(out, st.Muted.Render(truncateWidth("  "+tr.T("Nothing was distributed."), w)))
	}
	return out
}

// reportedSplit shows a split a payment_completed reported that the service did not accept
// for the charge (state.Charge.SplitReported): the event's word only, never counted.
func (v *inspectorView) reportedSplit(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	if !r.tracked || len(r.charge.SplitReported) == 0 {
		return nil
	}
	out := []string{"", st.Bold.Render(tr.T("Split reported by the event")) + st.Warn.Render(" · "+tr.T("unconfirmed, not counted"))}
	for _, l := range r.charge.SplitReported {
		out = append(out, truncateWidth("  → "+sanitize(l.SubAccount)+"  "+l.Amount.BRL(), w))
	}
	return out
}

// refundDetail lists the refunds of the transaction that refund_completed webhooks reported.
func (v *inspectorView) refundDetail(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	if r.RefundsErr != nil {
		return []string{"", st.Bold.Render(tr.T("Refunds")) + st.Muted.Render(truncateWidth(" · "+tr.F("could not read the events: %v", r.RefundsErr), max(w-12, 0)))}
	}
	if len(r.Refunds) == 0 {
		return nil
	}
	var total api.Money
	for _, e := range r.Refunds {
		total += e.Amount
	}
	out := []string{"", st.Bold.Render(tr.T("Refunds")) + st.Muted.Render(truncateWidth(" · "+
		tr.N(len(r.Refunds), "%d refund of %s, as the service reported it", "%d refunds of %s in all, as the service reported them", len(r.Refunds), total.BRL()), max(w-12, 0)))}
	for _, e := range r.Refunds {
		parts := []string{st.Bold.Render(e.Amount.BRL())}
		if e.FeeAmount != 0 {
			parts = append(parts, tr.F("fee %s (reported)", e.FeeAmount.BRL())) // the event's, unconfirmed
		}
		if e.Status != "" {
			parts = append(parts, tr.Enum(e.Status))
		}
		if !e.CreatedAt.IsZero() {
			parts = append(parts, e.CreatedAt.In(v.c.loc).Format("02/01/2006 15:04:05"))
		}
		out = append(out, truncateWidth("  ↩ "+strings.Join(parts, st.Muted.Render(" · ")), w))
		if e.E2EID != "" {
			out = append(out, truncateWidth("    "+st.Label.Render("e2eId ")+st.Value.Render(sanitize(e.E2EID)), w))
		}
	}
	return out
}

// blockDetail lists the balance blocks the service holds on the transaction.
func (v *inspectorView) blockDetail(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	if r.BlocksErr != nil {
		return []string{"", st.Bold.Render(tr.T("Balance blocks")) + st.Muted.Render(truncateWidth(" · "+describeErr(tr, tr.T("load balance blocks"), r.BlocksErr), max(w-20, 0)))}
	}
	if len(r.Blocks) == 0 {
		return nil
	}
	out := []string{"", st.Bold.Render(tr.T("Balance blocks")) + st.Muted.Render(" · "+tr.F("%d on this transaction", len(r.Blocks)))}
	for _, b := range r.Blocks {
		sty, sym := st.status(b.Status)
		parts := []string{sty.Render(sym + " " + orDash(tr.Enum(b.Status))), orDash(tr.Enum(blockType(b.BlockType))), st.Bold.Render(b.Amount.BRL())}
		if b.ReferenceNumber != "" {
			parts = append(parts, sanitize(b.ReferenceNumber))
		}
		if !b.CreatedAt.IsZero() {
			parts = append(parts, b.CreatedAt.In(v.c.loc).Format("02/01/2006 15:04"))
		}
		out = append(out, truncateWidth("  "+strings.Join(parts, st.Muted.Render(" · ")), w))
		if b.Reason != "" {
			out = append(out, truncateWidth("    "+st.Label.Render(tr.T("Reason")+" ")+st.Value.Render(sanitize(b.Reason)), w))
		}
		if b.ResolvedAt != nil || b.ResolutionReason != "" {
			res := blockMeaning(tr, b.Status)
			if b.ResolvedAt != nil {
				res = tr.F("resolved %s", b.ResolvedAt.In(v.c.loc).Format("02/01/2006 15:04")) + " · " + res
			}
			if b.ResolutionReason != "" {
				res += " · " + sanitize(b.ResolutionReason)
			}
			out = append(out, truncateWidth("    "+st.Muted.Render(res), w))
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
func (r *inspectResult) outcome() state.Outcome {
	if r.tx == nil || (r.tx.Type != api.TypePayment && r.tx.Type != "") {
		return state.Outcome{}
	}
	ch := state.ChargeFromTransaction(r.tx, nil)
	if r.tracked {
		ch = ch.WithOutcomeOf(r.charge)
	}
	for _, b := range r.Blocks {
		if ch.Block == nil || b.ID == ch.Block.ID || !b.CreatedAt.Before(ch.Block.CreatedAt) {
			ch.Block = &state.Block{ID: b.ID, Amount: b.Amount, Status: b.Status, CreatedAt: b.CreatedAt, ResolvedAt: b.ResolvedAt}
		}
	}
	return ch.Outcome()
}
