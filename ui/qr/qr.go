// Package qr is the customer's screen: the charge's QR code, and the result once the service
// confirms it.
package qr

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// Demo payers used by the sandbox simulation keys (valid check digits).
const (
	DemoPayerName = "Maria da Silva"
	DemoPayerCPF  = "52998224725"
	demoCNPJName  = "Padaria Exemplo Ltda"
	demoPayerCNPJ = "11222333000181"
)

// View is the customer-facing screen: the QR while pending, then PAID, EXPIRED or FAILED.
// The customer sees what is theirs (amount, description, merchant, expiry, the code); the
// split, wallets and fees stay on the merchant's views (the inspector).
type View struct {
	common.Closer
	C       *common.Common
	Store   *state.Store
	Ctl     workflow.PaymentSimulator // nil unless the service is the sandbox emulator
	Env     api.Environment
	ID      string
	Ch      state.Charge // the charge as last known (the store's memory copy wins when newer)
	PollErr string
	CopyFn  func(string)
	width   int
	height  int
	// code is the charge's code, validated and encoded outside View (setSize, focus, update)
	// for the code and amount in codeFor; View encodes a code that changed since on the fly.
	code    qrCode
	codeErr error
	codeFor string
	// notice is a short confirmation on the screen itself (the status line is hidden here),
	// cleared by its own tick (noticeSeq tells the current one from older ones).
	notice    string
	noticeSeq int
	// refresh is the screen's own tick: while a refused payment's refund to the payer is open,
	// the screen asks the root to read the charge again (no webhook says when it settles).
	refreshSeq   int
	refreshEvery time.Duration
}

// PollChargeMsg asks the root to read a charge from the service now, without a status line.
type PollChargeMsg struct{ ID, Wallet string }

// SetSize gives the screen the whole terminal.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.prepare()
	return nil
}

// Layer is the whole screen: the QR and result screens take the whole terminal (the customer looks at them).
func (v *View) Layer() common.Layer { return common.LayerScreen }

// How long the copy confirmation stays, and how often a refused payment's open refund is read
// again (doubling up to the cap while it stays open).
const (
	qrNoticeFor      = 3 * time.Second
	qrRefreshFirst   = 2 * time.Second
	qrRefreshLongest = time.Minute
)

type (
	// CopiedMsg says the screen's code was copied.
	CopiedMsg struct{ v *View }
	// NoticeDoneMsg ends the copy's confirmation.
	NoticeDoneMsg struct {
		v   *View
		seq int
	}
	// RefreshMsg is the screen's own tick (see qrView.refreshSeq).
	RefreshMsg struct {
		v   *View
		seq int
	}
)

// Focus gives the screen the keyboard back (a dialog over it closed): a confirmation from
// before the dialog is stale. It polls nothing: the screen's tick goes on under a dialog.
func (v *View) Focus() tea.Cmd {
	v.prepare()
	v.notice = ""
	return nil
}

// Start polls the charge at once when it may still change, and starts the screen's tick.
func (v *View) Start() tea.Cmd {
	v.prepare()
	v.notice = "" // a confirmation from before a dialog covered the screen is stale
	ch, ok := v.charge()
	if !ok {
		return nil
	}
	var poll tea.Cmd
	if !ch.Final() {
		id, wallet := ch.ID, ch.Wallet
		poll = func() tea.Msg { return PollChargeMsg{ID: id, Wallet: wallet} }
	}
	v.refreshSeq++
	v.refreshEvery = qrRefreshFirst
	return tea.Batch(poll, v.refreshTick())
}

// Blur leaves the screen as it is.
func (v *View) Blur() {}

// refreshTick schedules the screen's next tick.
func (v *View) refreshTick() tea.Cmd {
	seq, every := v.refreshSeq, v.refreshEvery
	return tea.Tick(every, func(time.Time) tea.Msg { return RefreshMsg{v: v, seq: seq} })
}

// refundOpen reports whether a refused payment's refund to the payer may still change.
func refundOpen(ch *state.Charge) bool {
	bd := ch.BlockedDeposit
	return ch.State() == state.StateFailed && bd != nil && (bd.Refund == nil || bd.Refund.Status == api.RefundPending)
}

// prepare validates and encodes the charge's code for View, when it changed.
func (v *View) prepare() {
	ch, ok := v.charge()
	if !ok || ch.PixCopyPaste == "" {
		return
	}
	if key := qrCodeKey(&ch); key != v.codeFor {
		v.codeFor, v.codeErr, v.code = key, checkCode(&ch), NewQRCode(ch.PixCopyPaste)
	}
}

// qrCodeKey names what the prepared code depends on.
func qrCodeKey(ch *state.Charge) string { return fmt.Sprintf("%d|%s", ch.Amount, ch.PixCopyPaste) }

// prepared is the charge's validated, encoded code: the one prepare made, or made now.
func (v *View) prepared(ch *state.Charge) (qrCode, error) {
	if qrCodeKey(ch) == v.codeFor {
		return v.code, v.codeErr
	}
	return NewQRCode(ch.PixCopyPaste), checkCode(ch)
}

// quitKey is q as the screen offers it: on a pending QR it asks first.
func (v *View) quitKey(ch *state.Charge) key.Binding {
	k := v.C.Keys.Quit
	if ch != nil && v.pending(ch) {
		k.SetHelp(k.Help().Key, v.C.Tr.T("qr.quit_asks_first"))
	}
	return k
}

// pending reports whether the customer may be paying ch from this screen right now.
func (v *View) pending(ch *state.Charge) bool {
	return ch.State() == state.StatePending && ch.Mismatch == "" && ch.PixCopyPaste != ""
}

// QuitQuestion is what quitting asks while the customer may be paying (the root's quit guard
// asks it on ctrl+c, the screen itself on q); "" once the charge is settled or while the
// screen already asks it.
func (v *View) QuitQuestion() string {
	ch, ok := v.charge()
	if !ok || !v.pending(&ch) {
		return ""
	}
	if v.C.App.Sess.Demo {
		// Demo mode's emulator runs inside pixdash: it stops with it, and the charge with it.
		return v.C.Tr.F("qr.the_charge_of_is_waiting_for", ch.Amount.BRL())
	}
	return v.C.Tr.F("qr.the_charge_of_is_waiting_for_2", ch.Amount.BRL())
}

// ShortHelp lists the screen's keys.
func (v *View) ShortHelp() []key.Binding {
	k := v.C.Keys
	var ch *state.Charge
	if c, ok := v.charge(); ok {
		ch = &c
	}
	return []key.Binding{k.Copy, k.SimulatePay, k.SimulateCNPJ, k.Expire, k.Back, v.quitKey(ch)}
}

// FullHelp lists the screen's keys.
func (v *View) FullHelp() [][]key.Binding { return [][]key.Binding{v.ShortHelp()} }

// charge is the charge on screen: the store's memory copy (pending charges and recent writes,
// no database read while drawing), else the one the screen was opened with.
func (v *View) charge() (state.Charge, bool) {
	if v.Store != nil {
		if c, ok := v.Store.Peek(v.ID); ok {
			return c, true
		}
	}
	return v.Ch, v.Ch.ID != ""
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case CopiedMsg:
		if msg.v != v {
			return nil
		}
		v.noticeSeq++
		v.notice = v.C.Tr.T("qr.pix_code_copied")
		seq := v.noticeSeq
		return tea.Tick(qrNoticeFor, func(time.Time) tea.Msg { return NoticeDoneMsg{v: v, seq: seq} })
	case NoticeDoneMsg:
		if msg.v == v && msg.seq == v.noticeSeq {
			v.notice = ""
		}
		return nil
	case RefreshMsg:
		return v.onRefresh(msg)
	}
	km, isKey := msg.(tea.KeyMsg)
	if !isKey {
		return nil
	}
	k := v.C.Keys
	switch {
	case key.Matches(km, k.Back):
		v.Close()
		return nil
	case key.Matches(km, k.Quit):
		// The customer may be scanning: q asks first (the charge stays payable after quitting).
		if q := v.QuitQuestion(); q != "" {
			v.Ask(common.NewQuietConfirm(v.C, q, tea.Quit))
			return nil
		}
		return tea.Quit
	}
	ch, ok := v.charge()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, k.Copy):
		code := ch.PixCopyPaste
		if code == "" || ch.Mismatch != "" {
			return nil // a charge that differs from the request is never handed to a payer
		}
		cp := v.CopyFn
		if cp == nil {
			cp = func(s string) { _, _ = osc52.New(s).WriteTo(os.Stdout) }
		}
		return func() tea.Msg { cp(code); return CopiedMsg{v: v} }
	case key.Matches(km, k.SimulatePay), key.Matches(km, k.SimulateCNPJ), key.Matches(km, k.Expire):
		if v.Ctl == nil {
			return func() tea.Msg {
				return common.StatusMsg{Text: v.C.Tr.T("qr.simulation_works_only_against_the_sandbox"), Kind: common.StatusWarn}
			}
		}
		if ch.State() != state.StatePending {
			return nil
		}
		ctl, id, wallet := v.Ctl, ch.ID, ch.Wallet
		switch {
		case key.Matches(km, k.SimulatePay):
			return v.C.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
				return common.SimulatedMsg{ID: id, Wallet: wallet, Err: ctl.Pay(ctx, id, DemoPayerName, DemoPayerCPF)}
			})
		case key.Matches(km, k.SimulateCNPJ):
			return v.C.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
				return common.SimulatedMsg{ID: id, Wallet: wallet, Err: ctl.Pay(ctx, id, demoCNPJName, demoPayerCNPJ)}
			})
		default:
			return v.C.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
				return common.SimulatedMsg{ID: id, Wallet: wallet, Err: ctl.Expire(ctx, id)}
			})
		}
	}
	return nil
}

// onRefresh is the screen's tick: while the charge is pending it only waits (the root polls a
// pending charge on screen); while a refused payment's refund to the payer is open it asks the
// root to read the charge again, less often the longer it stays open. It ends when nothing on
// the screen can change any more, or with the screen.
func (v *View) onRefresh(msg RefreshMsg) tea.Cmd {
	if msg.v != v || msg.seq != v.refreshSeq || v.Done() {
		return nil
	}
	v.prepare()
	ch, ok := v.charge()
	switch {
	case !ok:
		return nil
	case refundOpen(&ch):
		id, wallet := ch.ID, ch.Wallet
		poll := func() tea.Msg { return PollChargeMsg{ID: id, Wallet: wallet} }
		cmd := tea.Batch(poll, v.refreshTick())
		v.refreshEvery = min(2*v.refreshEvery, qrRefreshLongest)
		return cmd
	case !ch.Final():
		return v.refreshTick()
	}
	return nil
}

// checkCode validates the BR Code against the charge before it is drawn.
func checkCode(ch *state.Charge) error {
	code, err := api.ParseBRCode(ch.PixCopyPaste)
	if err != nil {
		return err
	}
	return code.CheckAmount(ch.Amount)
}

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w, h := v.width, v.height
	st, cu := v.C.St, v.C.Cust
	ch, ok := v.charge()
	if !ok {
		return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, st.Muted.Render(v.C.Tr.T("qr.this_charge_is_no_longer_tracked")))
	}
	var screen string
	if ch.State() == state.StatePending && ch.Mismatch == "" {
		screen = v.pendingScreen(&ch, w, h)
	} else {
		bottom := v.hints(&ch, w)
		bodyH := h - 1 - lipgloss.Height(bottom)
		var body string
		switch r, ok := resultBanners[ch.State()]; {
		case ok:
			body = v.resultView(&ch, r.style(st), cu.T(r.word), w, bodyH)
		case ch.State() == state.StatePending:
			body = v.mismatchView(&ch, w)
		default:
			body = v.resultView(&ch, st.ExpBanner, cu.T("qr.unknown_status_caps")+" "+common.Sanitize(string(ch.Status)), w, bodyH)
		}
		screen = v.topBar(&ch, w) + "\n" + common.FitBlock(body, w, bodyH) + "\n" + bottom
	}
	return screen
}

// resultBanners are the result screen's banners: the word (translated for the customer) and
// the style of each final state.
var resultBanners = map[state.ChargeState]struct {
	word  string
	style func(*common.Styles) lipgloss.Style
}{
	state.StatePaid: {"PAID", paidBanner}, state.StateFailed: {"FAILED", failBanner},
	state.StateExpired: {"EXPIRED", expBanner}, state.StateCancelled: {"CANCELLED", expBanner},
	state.StateRefunded: {"REFUNDED", failBanner}, state.StateReturned: {"RETURNED", failBanner},
	state.StateBlocked: {"BLOCKED", failBanner}, state.StateNotFound: {"NOT FOUND", expBanner},
}

func paidBanner(st *common.Styles) lipgloss.Style { return st.PaidBanner }
func failBanner(st *common.Styles) lipgloss.Style { return st.FailBanner }
func expBanner(st *common.Styles) lipgloss.Style  { return st.ExpBanner }

// mismatchView replaces the QR of a charge whose reply differs from the request: the merchant
// sees why, the customer sees no code to pay.
func (v *View) mismatchView(ch *state.Charge, w int) string {
	st, tr := v.C.St, v.C.Tr
	lines := []string{
		st.Err.Render(tr.T("qr.this_charge_differs_from_what_was")),
		"",
	}
	for _, p := range strings.Split(ansi.Wrap(common.Sanitize(ch.Mismatch), max(w-8, 20), ""), "\n") {
		lines = append(lines, st.Value.Render(p))
	}
	return lipgloss.Place(w, len(lines)+2, lipgloss.Center, lipgloss.Center, strings.Join(lines, "\n"))
}

// badge is the environment's label: SANDBOX, or PRODUCTION in red.
func (v *View) badge() string {
	st, tr := v.C.St, v.C.Tr
	if v.Env == api.Production {
		return st.BadgeProd.Render(tr.T("qr.production_caps"))
	}
	return st.BadgeSand.Render(tr.T("qr.sandbox_caps"))
}

// topBar is the environment and the charge's id; the wallet is the merchant's business.
func (v *View) topBar(ch *state.Charge, w int) string {
	return common.TruncateWidth(v.badge()+" "+v.C.St.Muted.Render(v.C.Tr.F("qr.charge", common.Sanitize(ch.ID))), w)
}

// hintParts are the keys that work on the screen now, each drawn "key description".
func (v *View) hintParts(ch *state.Charge) []string {
	st, k := v.C.St, v.C.Keys
	var bs []key.Binding
	if ch.State() == state.StatePending {
		bs = append(bs, k.Copy)
		if v.Ctl != nil {
			bs = append(bs, k.SimulatePay, k.SimulateCNPJ, k.Expire)
		}
	}
	bs = append(bs, k.Back, v.quitKey(ch))
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = st.Key.Render(b.Help().Key) + " " + b.Help().Desc
	}
	return parts
}

// notes is what the screen says for a moment (the copy confirmation) or until the next read
// (a failed refresh), most recent first; nil when there is nothing to say.
func (v *View) notes(w int) []string {
	st := v.C.St
	var out []string
	if v.notice != "" {
		out = append(out, st.StatusOK.Render(common.TruncateWidth("✓ "+v.notice, w)))
	}
	if v.PollErr != "" {
		out = append(out, st.StatusErr.Render(common.TruncateWidth(common.Sanitize(v.PollErr), w)))
	}
	return out
}

// hints are the bottom lines: the keys, wrapped to w (one line on a wide terminal); a note,
// when there is one, takes the first line's place (so the layout above never moves).
func (v *View) hints(ch *state.Charge, w int) string {
	lines := common.PackSegments(v.hintParts(ch), " · ", w, 0)
	if n := v.notes(w); len(n) > 0 {
		lines[0] = n[0]
	}
	return strings.Join(lines, "\n")
}

// countdown is the time left to pay, or the line saying the bank is being asked. It has a
// colour of its own (not only bold) so light and dark terminals both show it clearly.
func (v *View) countdown(ch *state.Charge) (string, bool) {
	st, cu := v.C.St, v.C.Cust
	if ch.ExpiresAt.IsZero() {
		return "", false
	}
	if left := ch.ExpiresAt.Sub(v.C.Now()); left > 0 {
		return st.Label.Render(cu.T("qr.expires_in")) + st.BigAmount.Render(common.HumanDuration(left)), true
	}
	return st.Warn.Render(cu.T("qr.expired_confirming_with_the_bank")), true
}

// merchant is who receives the payment, as the code names it ("" when it does not).
func merchant(ch *state.Charge) string {
	code, err := api.ParseBRCode(ch.PixCopyPaste)
	if err != nil {
		return ""
	}
	return common.Sanitize(code.MerchantName)
}

// info is the amount, description, merchant, countdown and status beside or under the QR.
func (v *View) info(ch *state.Charge, w int) []string {
	st, cu := v.C.St, v.C.Cust
	lines := []string{st.Accent.Render(cu.T("qr.pay_with_pix")), ""}
	if big := common.BigAmount(ch.Amount, w); big != nil {
		for _, l := range big {
			lines = append(lines, st.BigAmount.Render(l))
		}
	} else {
		lines = append(lines, st.BigAmount.Render(ch.Amount.BRL()))
	}
	if ch.Description != "" {
		lines = append(lines, common.TruncateWidth(common.Sanitize(ch.Description), w))
	}
	if name := merchant(ch); name != "" {
		lines = append(lines, common.TruncateWidth(st.Label.Render(cu.T("qr.merchant"))+name, w))
	}
	lines = append(lines, "")
	if c, ok := v.countdown(ch); ok {
		lines = append(lines, common.TruncateWidth(c, w))
	}
	lines = append(lines, st.Warn.Render(common.StateSymbol(state.StatePending)+" "+cu.T("qr.waiting_for_payment")))
	return lines
}

// Layouts of the pending screen, from the roomiest: the QR beside the info panel and the code;
// the QR over one summary row; on small terminals the QR the whole height with a narrow column
// beside it (the top bar and the key line move into the column), the QR over the summary row
// alone (no top bar, no keys), or the QR alone.
const (
	qrInfoWidth   = 34 // the info panel beside the QR
	qrGap         = 4  // between the QR and the panel
	qrStackedRows = 1  // the summary row under a stacked QR
	QrColumnMin   = 24 // the narrowest column beside a full-height QR
	QrColumnGap   = 2
)

// pendingScreen is the whole screen of a pending charge at w×h, in the roomiest layout that
// shows the QR; below the smallest, the code and the size the terminal needs.
func (v *View) pendingScreen(ch *state.Charge, w, h int) string {
	st, cu, tr := v.C.St, v.C.Cust, v.C.Tr
	top, bottom := v.topBar(ch, w), v.hints(ch, w)
	bodyH := h - 1 - lipgloss.Height(bottom)
	code, codeErr := v.prepared(ch)
	if codeErr != nil {
		warn := st.StatusErr.Render("⚠ "+cu.T("qr.the_pix_code_failed_validation_the")) + "\n" +
			st.Err.Render(common.TruncateWidth(common.Sanitize(codeErr.Error()), w)) + "\n" + st.Muted.Render(tr.T("qr.do_not_ask_the_customer_to"))
		return top + "\n" + common.FitBlock(strings.Join(v.info(ch, w), "\n")+"\n\n"+warn, w, bodyH) + "\n" + bottom
	}
	if r := code.Render(w-qrInfoWidth-qrGap, bodyH); r.Fits {
		infoW := w - r.Width - qrGap
		right := strings.Join(v.info(ch, infoW), "\n") + "\n\n" + v.codeBlock(ch, infoW)
		body := lipgloss.JoinHorizontal(lipgloss.Top, drawQR(v.C, r), common.Spaces(qrGap), right)
		return top + "\n" + common.FitBlock(body, w, bodyH) + "\n" + bottom
	}
	if r := code.Render(w, bodyH-qrStackedRows); r.Fits {
		body := lipgloss.PlaceHorizontal(w, lipgloss.Center, drawQR(v.C, r)) + "\n" +
			lipgloss.PlaceHorizontal(w, lipgloss.Center, common.TruncateWidth(v.summary(ch), w))
		return top + "\n" + common.FitBlock(body, w, bodyH) + "\n" + bottom
	}
	if r := code.Render(w-QrColumnMin-QrColumnGap, h); r.Fits {
		colW := w - r.Width - QrColumnGap
		return common.FitBlock(lipgloss.JoinHorizontal(lipgloss.Top, drawQR(v.C, r), common.Spaces(QrColumnGap), v.column(ch, colW, h)), w, h)
	}
	// The QR alone the whole height but one, the amount on one line under it (issue 21 #7).
	if r := code.Render(w, h-qrStackedRows); r.Fits {
		body := lipgloss.PlaceHorizontal(w, lipgloss.Center, drawQR(v.C, r)) + "\n" +
			lipgloss.PlaceHorizontal(w, lipgloss.Center, common.TruncateWidth(v.summary(ch), w))
		return common.FitBlock(body, w, h)
	}
	if r := code.Render(w, h); r.Fits {
		return common.FitBlock(drawQR(v.C, r), w, h)
	}
	// Too small for any QR: say how large the terminal must be (the smallest layout is the QR
	// alone, and the dashboard needs minWidth×minHeight), and show the code to copy.
	r := code.Render(0, 0)
	msg := st.Warn.Render(cu.F("qr.the_qr_needs_a_x_terminal",
		max(r.NeedW, common.MinWidth), max(r.NeedH, common.MinHeight), w, h))
	body := strings.Join(v.info(ch, w), "\n") + "\n\n" + ansi.Wrap(msg, w, "") + "\n\n" + v.codeBlock(ch, w)
	return top + "\n" + common.FitBlock(body, w, bodyH) + "\n" + bottom
}

// summary is the one line under a QR that leaves no room for the info panel: what the customer
// pays and the time left.
func (v *View) summary(ch *state.Charge) string {
	st, cu := v.C.St, v.C.Cust
	line := cu.T("qr.pay_with_pix") + "  " + st.BigAmount.Render(ch.Amount.BRL())
	if c, ok := v.countdown(ch); ok {
		line += "  " + c
	}
	return line
}

// column is the narrow column beside a full-height QR: the environment, what the customer
// pays, the countdown, then the merchant's keys, wrapped to w.
func (v *View) column(ch *state.Charge, w, h int) string {
	lines := []string{v.badge(), ""}
	lines = append(lines, v.info(ch, w)...)
	lines = append(lines, "")
	lines = append(lines, v.notes(w)...)
	lines = append(lines, common.PackSegments(v.hintParts(ch), " · ", w, 0)...)
	return common.FitBlock(strings.Join(lines, "\n"), w, h)
}

// codeBlock shows the copy-and-paste code, wrapped to the width.
func (v *View) codeBlock(ch *state.Charge, w int) string {
	st, cu := v.C.St, v.C.Cust
	if w < 10 {
		w = 10
	}
	var b strings.Builder
	b.WriteString(st.Label.Render(cu.T("qr.pix_copy_and_paste")) + "\n")
	b.WriteString(strings.Join(common.ChunkCells(ch.PixCopyPaste, w), "\n"))
	return b.String()
}

// resultView is the full-screen PAID / FAILED / EXPIRED state: what the customer paid (or
// why not, and the refund of their money); how a payment was split is the merchant's, in the
// inspector.
func (v *View) resultView(ch *state.Charge, banner lipgloss.Style, word string, w, h int) string {
	st, cu := v.C.St, v.C.Cust
	lines := []string{banner.Render(word), ""}
	if big := common.BigAmount(ch.Amount, w); big != nil {
		lines = append(lines, st.BigAmount.Render(strings.Join(big, "\n")))
	} else {
		lines = append(lines, st.BigAmount.Render(ch.Amount.BRL()))
	}
	if ch.Description != "" {
		lines = append(lines, common.TruncateWidth(common.Sanitize(ch.Description), w))
	}
	switch ch.State() {
	case state.StatePaid:
		if ch.PayerName != "" {
			lines = append(lines, "", st.Label.Render(cu.T("qr.payer"))+common.Sanitize(ch.PayerName))
		}
		if ch.PaidAt != nil {
			lines = append(lines, st.Label.Render(cu.T("qr.paid_at"))+ch.PaidAt.In(v.C.Loc).Format("02/01/2006 15:04:05"))
		}
		if ch.E2EID != "" {
			lines = append(lines, st.Label.Render("e2eId: ")+common.Sanitize(ch.E2EID))
		}
	case state.StateFailed:
		if ch.FailureReason != "" {
			lines = append(lines, "", st.Err.Render(common.Sanitize(ch.FailureReason)))
		}
		if bd := ch.BlockedDeposit; bd != nil {
			lines = append(lines, st.Label.Render(cu.T("qr.blocked_deposit"))+common.BlockReason(cu, bd.Reason))
			lines = append(lines, common.RefundLines(cu, st, bd.Refund, v.C.Loc)...)
		}
	case state.StateExpired:
		lines = append(lines, "", st.Muted.Render(cu.T("qr.this_charge_expired_without_payment_create")))
	case state.StateRefunded, state.StateReturned, state.StateBlocked, state.StateNotFound:
		// The payment was received, then its money went back (or is held): say how much.
		lines = append(lines, "", common.OutcomeLine(st, cu, ch.Outcome()))
	}
	// A long reason (the service's failure text) is wrapped to the screen, never cut and never
	// allowed to widen the block past it (it would push the rest off centre).
	for i, l := range lines {
		if lipgloss.Width(l) > w-2 {
			lines[i] = ansi.Wrap(l, max(w-2, 10), "")
		}
	}
	block := lipgloss.JoinVertical(lipgloss.Center, lines...)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, block)
}

// ClockKey is what of the screen changes with the clock (see common.Clocked): the countdown of
// a pending charge (each second under an hour), and the charge's state as the store holds it.
func (v *View) ClockKey(now time.Time) string {
	ch, ok := v.charge()
	if !ok {
		return ""
	}
	key := fmt.Sprint(ch.State(), ch.Mismatch != "")
	if ch.State() == state.StatePending && !ch.ExpiresAt.IsZero() {
		if left := ch.ExpiresAt.Sub(now); left > 0 {
			key += common.HumanDuration(left)
		} else {
			key += "expired"
		}
	}
	return key
}
