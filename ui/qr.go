package ui

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
	"pixdash/api/sandbox"
	"pixdash/state"
)

// Demo payers used by the sandbox simulation keys (valid check digits).
const (
	demoPayerName = "Maria da Silva"
	demoPayerCPF  = "52998224725"
	demoCNPJName  = "Padaria Exemplo Ltda"
	demoPayerCNPJ = "11222333000181"
)

// Layout of the pending QR screen: the info panel beside the QR, or one summary row under it.
const (
	qrInfoWidth   = 34
	qrStackedRows = 1
)

// qrView is the customer-facing screen: the QR while pending, then PAID, EXPIRED or FAILED.
type qrView struct {
	c       *common
	store   *state.Store
	ctl     *sandbox.Control
	env     api.Environment
	id      string
	ch      state.Charge // the charge as last known (the store's memory copy wins when newer)
	pollErr string
	copyFn  func(string)
	// cache of the validated, rendered code for one (code, amount, size)
	cacheKey string
	render   qrRender
	codeErr  error
}

// openQR opens the QR (or result) screen of a charge as the caller knows it.
func (m *Model) openQR(ch state.Charge) {
	m.qr = &qrView{c: m.c, store: m.app.sess.Store, ctl: m.app.sess.Sandbox, env: m.app.sess.Env, id: ch.ID, ch: ch, copyFn: m.opts.Clipboard}
}

func (v *qrView) onTick(time.Time) {}

// charge is the charge on screen: the store's memory copy (pending charges and recent writes,
// no database read while drawing), else the one the screen was opened with.
func (v *qrView) charge() (state.Charge, bool) {
	if c, ok := v.store.Peek(v.id); ok {
		return c, true
	}
	return v.ch, v.ch.ID != ""
}

func (v *qrView) update(km tea.KeyMsg) tea.Cmd {
	k := v.c.keys
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
		cp := v.copyFn
		if cp == nil {
			cp = func(s string) { _, _ = osc52.New(s).WriteTo(os.Stdout) }
		}
		return func() tea.Msg { cp(code); return copiedMsg{} }
	case key.Matches(km, k.SimulatePay), key.Matches(km, k.SimulateCNPJ), key.Matches(km, k.Expire):
		if v.ctl == nil {
			return func() tea.Msg {
				return statusMsg{text: v.c.tr.T("Simulation works only against the sandbox emulator."), kind: statusWarn}
			}
		}
		if ch.State() != state.StatePending {
			return nil
		}
		ctl, id, wallet := v.ctl, ch.ID, ch.Wallet
		switch {
		case key.Matches(km, k.SimulatePay):
			return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
				return simulatedMsg{id: id, wallet: wallet, err: ctl.Pay(ctx, id, demoPayerName, demoPayerCPF)}
			})
		case key.Matches(km, k.SimulateCNPJ):
			return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
				return simulatedMsg{id: id, wallet: wallet, err: ctl.Pay(ctx, id, demoCNPJName, demoPayerCNPJ)}
			})
		default:
			return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
				return simulatedMsg{id: id, wallet: wallet, err: ctl.Expire(ctx, id)}
			})
		}
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

func (v *qrView) view(w, h int) string {
	st, cu := v.c.st, v.c.cust
	ch, ok := v.charge()
	if !ok {
		return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, st.Muted.Render(v.c.tr.T("This charge is no longer tracked. esc goes back.")))
	}
	top := v.topBar(&ch, w)
	bottom := v.hints(&ch, w)
	bodyH := h - 2
	var body string
	switch ch.State() {
	case state.StatePaid:
		body = v.resultView(&ch, st.PaidBanner, cu.T("PAID"), w, bodyH)
	case state.StateFailed:
		body = v.resultView(&ch, st.FailBanner, cu.T("FAILED"), w, bodyH)
	case state.StateExpired:
		body = v.resultView(&ch, st.ExpBanner, cu.T("EXPIRED"), w, bodyH)
	case state.StateCancelled:
		body = v.resultView(&ch, st.ExpBanner, cu.T("CANCELLED"), w, bodyH)
	case state.StatePending:
		if ch.Mismatch != "" {
			body = v.mismatchView(&ch, w)
		} else {
			body = v.pendingView(&ch, w, bodyH)
		}
	default:
		body = v.resultView(&ch, st.ExpBanner, cu.T("UNKNOWN STATUS")+" "+sanitize(string(ch.Status)), w, bodyH)
	}
	return top + "\n" + fitBlock(body, w, bodyH) + "\n" + bottom
}

// mismatchView replaces the QR of a charge whose reply differs from the request: the merchant
// sees why, the customer sees no code to pay.
func (v *qrView) mismatchView(ch *state.Charge, w int) string {
	st, tr := v.c.st, v.c.tr
	lines := []string{
		st.Err.Render(tr.T("This charge differs from what was asked; it is not shown to the customer.")),
		"",
	}
	for _, p := range strings.Split(ansi.Wrap(sanitize(ch.Mismatch), max(w-8, 20), ""), "\n") {
		lines = append(lines, st.Value.Render(p))
	}
	return lipgloss.Place(w, len(lines)+2, lipgloss.Center, lipgloss.Center, strings.Join(lines, "\n"))
}

func (v *qrView) topBar(ch *state.Charge, w int) string {
	st, tr := v.c.st, v.c.tr
	badge := st.BadgeSand.Render(tr.T("SANDBOX"))
	if v.env == api.Production {
		badge = st.BadgeProd.Render(tr.T("PRODUCTION"))
	}
	wallet := ch.Wallet
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	return truncateWidth(badge+" "+st.Muted.Render(tr.F("charge %s · wallet %s", sanitize(ch.ID), sanitize(wallet))), w)
}

func (v *qrView) hints(ch *state.Charge, w int) string {
	st, k := v.c.st, v.c.keys
	var bs []key.Binding
	if ch.State() == state.StatePending {
		bs = append(bs, k.Copy)
		if v.ctl != nil {
			bs = append(bs, k.SimulatePay, k.SimulateCNPJ, k.Expire)
		}
	}
	bs = append(bs, k.Back)
	var parts []string
	for _, b := range bs {
		parts = append(parts, st.Key.Render(b.Help().Key)+" "+b.Help().Desc)
	}
	line := strings.Join(parts, " · ")
	if v.pollErr != "" {
		line = st.StatusErr.Render(truncateWidth(sanitize(v.pollErr), w))
	}
	return truncateWidth(line, w)
}

// info is the amount, description, countdown and status beside or under the QR.
func (v *qrView) info(ch *state.Charge, w int) []string {
	st, cu := v.c.st, v.c.cust
	now := v.c.now()
	lines := []string{st.Accent.Render(cu.T("Pay with PIX")), ""}
	if big := bigAmount(ch.Amount, w); big != nil {
		for _, l := range big {
			lines = append(lines, st.BigAmount.Render(l))
		}
	} else {
		lines = append(lines, st.BigAmount.Render(ch.Amount.BRL()))
	}
	if ch.Description != "" {
		lines = append(lines, truncateWidth(sanitize(ch.Description), w))
	}
	lines = append(lines, "")
	if !ch.ExpiresAt.IsZero() {
		left := ch.ExpiresAt.Sub(now)
		if left > 0 {
			lines = append(lines, st.Label.Render(cu.T("Expires in "))+st.Bold.Render(humanDuration(left)))
		} else {
			lines = append(lines, st.Warn.Render(cu.T("Expired; confirming with the bank…")))
		}
	}
	lines = append(lines, st.Warn.Render(stateSymbol(state.StatePending)+" "+cu.T("Waiting for payment")))
	if len(ch.SplitRequested) > 0 {
		lines = append(lines, "", st.Label.Render(v.c.tr.T("Split on payment:")))
		for _, l := range ch.SplitRequested {
			lines = append(lines, truncateWidth(fmt.Sprintf("  → %s %s", sanitize(l.SubAccount), l.Amount.BRL()), w))
		}
	}
	return lines
}

func (v *qrView) pendingView(ch *state.Charge, w, h int) string {
	st, cu, tr := v.c.st, v.c.cust, v.c.tr
	key := fmt.Sprintf("%s|%d|%d|%d", ch.PixCopyPaste, ch.Amount, w, h)
	if key != v.cacheKey {
		v.cacheKey = key
		v.codeErr = checkCode(ch)
		v.render = qrRender{}
		if v.codeErr == nil {
			// Try beside the info panel first, then above it.
			v.render = renderQR(ch.PixCopyPaste, w-qrInfoWidth, h)
			if !v.render.fits {
				v.render = renderQR(ch.PixCopyPaste, w, h-qrStackedRows)
			}
		}
	}
	codeLines := v.codeBlock(ch, w)
	if v.codeErr != nil {
		warn := st.StatusErr.Render("⚠ "+cu.T("The PIX code failed validation; the QR is not shown.")) + "\n" +
			st.Err.Render(truncateWidth(sanitize(v.codeErr.Error()), w)) + "\n" + st.Muted.Render(tr.T("Do not ask the customer to pay this code. Refresh with r or create a new charge."))
		return strings.Join(v.info(ch, w), "\n") + "\n\n" + warn
	}
	r := v.render
	if !r.fits {
		// The stacked layout is the smallest: the QR, the summary line, the top bar and the hints.
		msg := st.Warn.Render(cu.F("Enlarge the terminal to at least %dx%d to show the QR code.", max(r.needW, minWidth), max(r.needH+qrStackedRows+2, minHeight)))
		return strings.Join(v.info(ch, w), "\n") + "\n\n" + msg + "\n\n" + codeLines
	}
	qr := r.styled(st.QR)
	info := v.info(ch, max(w-r.width-4, 20))
	if r.width+qrInfoWidth <= w && r.height <= h {
		right := strings.Join(info, "\n") + "\n\n" + v.codeBlockWidth(ch, w-r.width-4)
		return lipgloss.JoinHorizontal(lipgloss.Top, qr, "    ", right)
	}
	// Stacked: QR centred, amount and countdown under it.
	var b strings.Builder
	b.WriteString(lipgloss.PlaceHorizontal(w, lipgloss.Center, qr))
	b.WriteString("\n")
	summary := cu.T("Pay with PIX") + "  " + st.BigAmount.Render(ch.Amount.BRL())
	if !ch.ExpiresAt.IsZero() {
		if left := ch.ExpiresAt.Sub(v.c.now()); left > 0 {
			summary += "  " + st.Label.Render(cu.T("Expires in ")) + humanDuration(left)
		}
	}
	b.WriteString(lipgloss.PlaceHorizontal(w, lipgloss.Center, summary))
	return b.String()
}

// codeBlock shows the copy-and-paste code, wrapped to the width.
func (v *qrView) codeBlock(ch *state.Charge, w int) string { return v.codeBlockWidth(ch, w) }

func (v *qrView) codeBlockWidth(ch *state.Charge, w int) string {
	st, cu := v.c.st, v.c.cust
	if w < 10 {
		w = 10
	}
	var b strings.Builder
	b.WriteString(st.Label.Render(cu.T("PIX copy and paste:")) + "\n")
	b.WriteString(strings.Join(chunkCells(ch.PixCopyPaste, w), "\n"))
	return b.String()
}

// resultView is the full-screen PAID / FAILED / EXPIRED state.
func (v *qrView) resultView(ch *state.Charge, banner lipgloss.Style, word string, w, h int) string {
	st, cu, tr := v.c.st, v.c.cust, v.c.tr
	lines := []string{banner.Render(word), ""}
	if big := bigAmount(ch.Amount, w); big != nil {
		lines = append(lines, st.BigAmount.Render(strings.Join(big, "\n")))
	} else {
		lines = append(lines, st.BigAmount.Render(ch.Amount.BRL()))
	}
	if ch.Description != "" {
		lines = append(lines, sanitize(ch.Description))
	}
	switch ch.State() {
	case state.StatePaid:
		if ch.PayerName != "" {
			lines = append(lines, "", st.Label.Render(cu.T("Payer: "))+sanitize(ch.PayerName))
		}
		if ch.PaidAt != nil {
			lines = append(lines, st.Label.Render(cu.T("Paid at: "))+ch.PaidAt.In(v.c.loc).Format("02/01/2006 15:04:05"))
		}
		if ch.E2EID != "" {
			lines = append(lines, st.Label.Render("e2eId: ")+sanitize(ch.E2EID))
		}
		if ch.HasDistributed && len(ch.SplitRequested) > 0 {
			lines = append(lines, "", st.Label.Render(tr.T("Split distributed:")))
			lines = append(lines, splitLines(ch.SplitRequested, ch.SplitDistributed)...)
		}
	case state.StateFailed:
		if ch.FailureReason != "" {
			lines = append(lines, "", st.Err.Render(sanitize(ch.FailureReason)))
		}
		if bd := ch.BlockedDeposit; bd != nil {
			lines = append(lines, st.Label.Render(cu.T("Blocked deposit: "))+blockReason(cu, bd.Reason))
			lines = append(lines, refundLines(cu, st, bd.Refund, v.c.loc)...)
		}
	case state.StateExpired:
		lines = append(lines, "", st.Muted.Render(cu.T("This charge expired without payment. Create a new one.")))
	}
	block := lipgloss.JoinVertical(lipgloss.Center, lines...)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, block)
}

// splitLines shows each leg: requested and actually distributed.
func splitLines(requested, distributed []api.SplitItem) []string {
	paid := map[string]api.Money{}
	for _, d := range distributed {
		paid[d.SubAccount] = d.Amount
	}
	var out []string
	for _, r := range requested {
		got := paid[r.SubAccount]
		line := fmt.Sprintf("→ %-14s %12s", sanitize(r.SubAccount), got.BRL())
		if got != r.Amount {
			line += fmt.Sprintf("  (requested %s)", r.Amount.BRL())
		}
		out = append(out, line)
	}
	return out
}

func blockReason(tr catalog, reason string) string {
	if reason == api.ReasonCNPJPayerNotAllowed {
		return tr.T("payments from companies (CNPJ) are not accepted by this account")
	}
	return sanitize(reason)
}

func refundLines(tr catalog, st *styles, r *api.Refund, loc *time.Location) []string {
	if r == nil {
		return []string{st.Muted.Render(tr.T("Refund to the payer: not started"))}
	}
	s := tr.T("Refund to the payer: ") + sanitize(tr.T(string(r.Status)))
	out := []string{s}
	if r.E2EID != nil && *r.E2EID != "" {
		out = append(out, st.Label.Render(tr.T("refund e2eId: "))+sanitize(*r.E2EID))
	}
	if r.SettledAt != nil {
		out = append(out, st.Label.Render(tr.T("settled at: "))+r.SettledAt.In(loc).Format("02/01/2006 15:04:05"))
	}
	return out
}
