package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
)

// inspectorLabelWidth bounds the label column of the transaction detail (it fits the longest label).
const (
	inspectorLabelMin = 19
	inspectorLabelMax = 24
)

// inspectorView looks one transaction up (GET /transactions/{id}: id, then external reference,
// then idempotency key, in one wallet) and shows every field of it, with a history of lookups.
type inspectorView struct {
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

	reveal  bool
	offset  int
	history []state.Lookup
	histCur int
}

// inspectResult is a transaction found by a lookup, with the tracked charge it belongs to (if any).
type inspectResult struct {
	query, wallet string
	tx            *api.Transaction
	charge        state.Charge
	tracked       bool
}

// lookupMsg is the reply of a lookup.
type lookupMsg struct {
	tag           tag
	seq           uint64
	query, wallet string
	tx            *api.Transaction
	charge        state.Charge
	tracked       bool
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
	return &inspectorView{c: c, input: ti, labelW: min(lw, inspectorLabelMax)}
}

// title names the view in the tab strip.
func (v *inspectorView) title() string { return v.c.tr.T("Inspector") }

func (v *inspectorView) setSize(w, h int) {
	v.width, v.height = w, h
	v.input.Width = max(w-lipgloss.Width(v.input.Prompt)-2, 1)
}

// capturesText reports whether the lookup input has the keyboard.
func (v *inspectorView) capturesText() bool { return v.input.Focused() }

// activate loads the lookup history and, with nothing on screen, puts the cursor in the input.
// activate loads the history; the input waits for / (or enter), so the view keys keep working.
func (v *inspectorView) activate() tea.Cmd { return v.loadHistory() }

// historyMsg is the lookup history as read from the store.
type historyMsg struct {
	gen     uint64
	lookups []state.Lookup
	err     error
}

// loadHistory reads the lookup history.
func (v *inspectorView) loadHistory() tea.Cmd {
	gen, store := v.c.app.gen, v.c.app.sess.Store
	return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
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

func (v *inspectorView) shortHelp() []key.Binding {
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

func (v *inspectorView) fullHelp() []key.Binding {
	k := v.c.keys
	enter := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", v.c.tr.T("look up")))
	return []key.Binding{k.Lookup, enter, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Reveal, k.QR, k.Refresh, k.Back}
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
	case eventMsg:
		if msg.gen == v.c.app.gen && msg.first && msg.ev != nil && v.res != nil && !v.loading &&
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
		if v.res != nil {
			v.offset += d
			v.clampOffset()
		} else {
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
			v.offset, v.reveal = 0, false
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
	page := max(v.pageRows()-1, 1)
	switch c, nav := k.navigate(km, v.offset, v.detailCount()+1, page); {
	case nav:
		v.offset = c
	case key.Matches(km, k.Reveal):
		v.reveal = !v.reveal
	case key.Matches(km, k.QR):
		return v.openQR()
	case key.Matches(km, k.Enter):
		v.input.SetValue("")
		return v.input.Focus()
	}
	v.clampOffset()
	return nil
}

// pageRows is how many detail lines fit under the input and the header line.
func (v *inspectorView) pageRows() int { return max(v.height-2, 1) }

// detailCount is how many lines the detail of the result has at the current width.
func (v *inspectorView) detailCount() int {
	if v.res == nil {
		return 0
	}
	return len(v.detailLines(v.res, v.width))
}

func (v *inspectorView) clampOffset() { v.clampOffsetTo(v.detailCount(), v.pageRows()) }

func (v *inspectorView) clampOffsetTo(rows, page int) {
	if v.offset > rows-page {
		v.offset = rows - page
	}
	if v.offset < 0 {
		v.offset = 0
	}
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

// lookup reads the transaction in wallet; record adds it to the history (a refresh does not).
func (v *inspectorView) lookup(query, wallet string, record bool) tea.Cmd {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	v.seq++
	v.loading = true
	v.pendingQuery, v.pendingWallet = query, wallet
	seq, t, client, store := v.seq, v.c.app.tag(), v.c.app.sess.Client, v.c.app.sess.Store
	return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		out := lookupMsg{tag: t, seq: seq, query: query, wallet: wallet}
		tx, err := client.GetTransaction(ctx, query, api.WithSubAccount(walletHeader(wallet)))
		out.tx, out.err = tx, err
		if err == nil {
			out.charge, out.tracked, _ = store.Charge(ctx, tx.ID)
		}
		if record && (err == nil || isTxNotFound(err)) {
			l := state.Lookup{Query: query, Wallet: wallet, Found: err == nil}
			if tx != nil {
				l.TxID = tx.ID
			}
			out.saveErr = store.AddLookup(ctx, l)
		}
		return out
	})
}

// isTxNotFound reports a 404 about the transaction itself (not about the wallet in X-Sub-Account).
func isTxNotFound(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.HTTPStatus == 404 && ae.SubAccountCode() == ""
}

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
		v.offset = 0
		return cmd
	}
	same := v.res != nil && v.res.tx.ID == msg.tx.ID
	v.res = &inspectResult{query: msg.query, wallet: msg.wallet, tx: msg.tx, charge: msg.charge, tracked: msg.tracked}
	v.notFound, v.errText = false, ""
	if !same {
		v.offset, v.reveal = 0, false
	}
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
		text := tr.T("The QR is shown only for pending PIX charges that have a PIX code.")
		return func() tea.Msg { return statusMsg{text: text, kind: statusWarn} }
	}
	store, tx, wallet := v.c.app.sess.Store, v.res.tx, v.res.wallet
	return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
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

func (v *inspectorView) view(w, h int) string {
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
		detail := v.detailLines(v.res, w)
		v.clampOffsetTo(len(detail), body)
		head := st.Bold.Render(tr.T("Transaction")) +
			st.Muted.Render(" · "+tr.F("wallet %s", v.res.wallet)+" · "+v.matchedBy(v.res))
		if v.loading {
			head += st.Muted.Render(" · " + tr.T("refreshing…"))
		}
		right := ""
		if len(detail) > body {
			pos := fmt.Sprintf("%d–%d/%d", v.offset+1, min(v.offset+body, len(detail)), len(detail))
			if v.offset > 0 {
				pos = "↑ " + pos
			}
			if v.offset+body < len(detail) {
				pos += " ↓"
			}
			right = st.Muted.Render(pos)
		}
		lines = append(lines, spread(head, right, w))
		end := min(v.offset+body, len(detail))
		for _, l := range detail[v.offset:end] {
			lines = append(lines, truncateWidth(l, w))
		}
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
			out = append(out, st.Selected.Render(padRight("▸ "+row, w)))
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
	status := sty.Render(sym + " " + sanitize(string(tx.Status)))
	if tx.Status == "" {
		status = dash
	} else if !tx.Status.Known() {
		status += st.Muted.Render(" " + tr.T("(not in the spec)"))
	}
	field(tr.T("Status"), status)
	field(tr.T("Type"), unknown(tx.Type.Known(), string(tx.Type)))
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
	field(tr.T("Payment method"), unknown(tx.PaymentMethod.Known(), string(tx.PaymentMethod)))
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
			if onlyDigits(doc) != doc {
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
				rs = refundStyle(st, rf.Status).Render(sanitize(string(rf.Status)))
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
		field(tr.T("Metadata"), st.Muted.Render(tr.F("%d key(s)", len(keys))))
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
	return out
}

// splitDetail shows a tracked charge's accepted split beside what payment_completed distributed.
func (v *inspectorView) splitDetail(r *inspectResult, w int) []string {
	st, tr := v.c.st, v.c.tr
	ch := r.charge
	if !r.tracked || (len(ch.SplitRequested) == 0 && !ch.HasDistributed) {
		return nil
	}
	const destW, amtW = 20, 14
	out := []string{"", st.Bold.Render(tr.T("Split")) + st.Muted.Render(" · "+tr.T("requested at creation, distributed on payment"))}
	out = append(out, st.ColHeader.Render(truncateWidth("  "+padRight(tr.T("DESTINATION"), destW)+" "+padLeft(tr.T("REQUESTED"), amtW)+" "+padLeft(tr.T("DISTRIBUTED"), amtW), w)))
	paid := map[string]api.Money{}
	for _, d := range ch.SplitDistributed {
		paid[d.SubAccount] += d.Amount
	}
	seen := map[string]bool{}
	dash := "—"
	row := func(dest, req, got string, note string) {
		line := "  " + padRight("→ "+sanitize(dest), destW) + " " + padLeft(req, amtW) + " " + padLeft(got, amtW)
		if note != "" {
			line += "  " + st.Warn.Render(note)
		}
		out = append(out, line)
	}
	for _, leg := range ch.SplitRequested {
		seen[leg.SubAccount] = true
		if !ch.HasDistributed {
			row(leg.SubAccount, leg.Amount.BRL(), dash, "")
			continue
		}
		got := paid[leg.SubAccount]
		note := ""
		switch {
		case got == 0:
			note = tr.T("not paid")
		case got < leg.Amount:
			note = tr.T("reduced")
		}
		row(leg.SubAccount, leg.Amount.BRL(), got.BRL(), note)
	}
	for _, d := range ch.SplitDistributed {
		if !seen[d.SubAccount] {
			seen[d.SubAccount] = true
			row(d.SubAccount, dash, paid[d.SubAccount].BRL(), tr.T("not requested"))
		}
	}
	switch {
	case !ch.HasDistributed:
		out = append(out, st.Muted.Render(truncateWidth("  "+tr.T("Distributed: not reported yet (it arrives with payment_completed)."), w)))
	case len(ch.SplitDistributed) == 0:
		out = append(out, st.Muted.Render(truncateWidth("  "+tr.T("Nothing was distributed."), w)))
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
