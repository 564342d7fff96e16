package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// The refund of a paid charge: R on the charges list or in the inspector opens a small form
// (amount, reason, what it costs); the confirmation names the amount and the charge, and in
// production asks for the amount typed. The workflow (state/workflow/refund.go) sends it once,
// reads the transaction back after a lost reply and records the outcome on the charge.

// ownerRefund owns the status messages of the refund form.
const ownerRefund = "refund"

// refundAwait is how long the dashboard waits for refund_completed after the service took a refund.
const refundAwait = 2 * time.Minute

// refundedMsg tells the active view that the service took (or settled) a refund of a charge.
type refundedMsg struct{ id string }

// refundDoneMsg is the workflow's outcome, for the form that sent it (matched by key).
type refundDoneMsg struct {
	tag tag
	key string
	out workflow.RefundOutcome
}

// refundFeeMsg is the refund fee learned from the last refund_completed, for the form.
type refundFeeMsg struct {
	key   string
	fee   api.Money
	known bool
}

// askRefund is what R does on a charge: the form when the charge can be refunded (put on the
// stack by the view's ask, in the same update), else a status line saying why not. It reads
// memory only.
func askRefund(c *common, ch state.Charge) (overlay, tea.Cmd) {
	var prior *state.Refund
	if s := c.app.sess.Store; s != nil {
		if r, ok := s.PeekRefund(ch.ID); ok {
			prior = &r
		}
	}
	if err := workflow.CheckRefund(ch, prior, c.app.sess.ReadOnly); err != nil {
		return nil, answerStatus(refundWhyNot(c.tr, ch, err), statusWarn)
	}
	if prior != nil && prior.Claim.HeldBefore(c.now()) {
		// Another window claimed it (state.ClaimRefund); its outcome reaches this row.
		return nil, answerStatus(refundBusyText(c, *prior.Claim), statusWarn)
	}
	return newRefundForm(c, ch), nil
}

// refundBusyText says which window sends a charge's refund, and since when.
func refundBusyText(c *common, cl state.RefundClaim) string {
	tr := c.tr
	who := tr.F("pid %d", cl.PID)
	if !cl.OnThisHost() && cl.Host != "" {
		who = tr.F("pid %d on %s", cl.PID, sanitize(cl.Host))
	}
	return tr.F("This refund is being sent by another window (%s) since %s; nothing was sent from here.",
		who, cl.Since.In(c.loc).Format("15:04"))
}

// refundWhyNot says, in the merchant's language, why a charge cannot be refunded.
func refundWhyNot(tr catalog, ch state.Charge, err error) string {
	var np workflow.RefundNotPaid
	var npay workflow.RefundNotPayment
	switch {
	case errors.Is(err, workflow.ErrRefundReadOnly):
		return tr.T("This profile is read-only: refunds are disabled (read_only = true).")
	case errors.As(err, &npay) && npay.Type != "" && npay.Type != api.TypePayment:
		return tr.F("Only payments can be refunded; this transaction is of type %s (%s).", tr.Enum(npay.Type), npay.Amount.BRL())
	case errors.As(err, &npay) && npay.Amount < 0:
		return tr.F("Only payments can be refunded; this is a refund line (%s), money that already went back.", npay.Amount.BRL())
	case errors.As(err, &npay):
		return tr.T("Only payments can be refunded; this transaction has no amount received.")
	case errors.As(err, &np) && np.State == state.StateRefunded:
		return tr.F("This charge was already refunded (%s); see the inspector.", ch.Outcome().Amount.BRL())
	case errors.As(err, &np):
		return tr.F("Only paid charges can be refunded; this one is %s.", stateName(tr, np.State))
	case errors.Is(err, workflow.ErrRefundDone):
		return tr.T("This charge was already refunded from pixdash; see the inspector.")
	}
	return tr.F("Cannot refund this charge: %s", localError(tr, err))
}

// refundFromInspector is R in the inspector: the charge as tracked, else as the service showed it.
func refundFromInspector(c *common, r *inspectResult) (overlay, tea.Cmd) {
	if r == nil || r.tx == nil {
		return nil, nil
	}
	if err := workflow.CheckRefundTransaction(r.tx); err != nil {
		// A refund line, a withdrawal, a fee…: only a paid payment opens the form.
		return nil, answerStatus(refundWhyNot(c.tr, r.charge, err), statusWarn)
	}
	ch := r.charge
	if !r.tracked {
		ch = state.ChargeFromTransaction(r.tx, nil)
		ch.Wallet = state.NormalizeWallet(r.wallet)
	} else {
		ch.ApplyTransaction(r.tx)
	}
	return askRefund(c, ch)
}

// refundLabel is the state cell of a charge row: what happened to its money (Outcome), or the
// refund pixdash asked (r, as the list last read it; "" for none) while the service has not
// confirmed it.
func refundLabel(c *common, r state.RefundState, ch *state.Charge) cell {
	cs := ch.State()
	sty, _ := c.st.status(cs)
	base := cell{text: stateText(c.tr, cs), style: sty}
	if cs != state.StatePaid {
		return base // a confirmed outcome is what the row says
	}
	switch r {
	case state.RefundCompleted:
		return cell{text: "↩ " + c.tr.T("refunded"), style: &c.st.EvRefund}
	case state.RefundPending:
		return cell{text: "↩ " + c.tr.T("refunding"), style: &c.st.Warn}
	case state.RefundRequested, state.RefundUnknown:
		return cell{text: "? " + c.tr.T("refund unknown"), style: &c.st.Warn}
	}
	return base
}

// Fields of the refund form.
const (
	rfAmount = iota
	rfReason
	rfCount
)

// refundForm is the refund overlay: the amount (the whole amount: the service refunds no part),
// the reason and the cost, then the confirmation.
type refundForm struct {
	closer
	c      *common
	charge state.Charge
	// key is minted when the form opens and kept by every retry.
	key      string
	inputs   [rfCount]textinput.Model
	field    int
	errs     [rfCount]string
	fee      api.Money
	feeKnown bool
	sending  bool
	// amt is the amount the fields hold as validate last read it (errs say what is wrong).
	amt api.Money
	// result is the last outcome shown in the form (refused or unknown), with its kind.
	result     string
	resultKind statusKind
	width      int
	height     int
}

func newRefundForm(c *common, ch state.Charge) *refundForm {
	f := &refundForm{c: c, charge: ch, key: c.newKey()}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	f.inputs[rfAmount] = mk("12,34", 20)
	f.inputs[rfAmount].SetValue(strings.TrimSpace(strings.TrimPrefix(ch.Amount.BRL(), "R$")))
	f.inputs[rfAmount].CursorEnd()
	f.inputs[rfReason] = mk(c.tr.T("why the money goes back (optional)"), api.MaxRefundReason)
	f.setFocus(rfReason)
	f.validate()
	return f
}

func (f *refundForm) layer() layer       { return layerFloat }
func (f *refundForm) setSize(w, h int)   { f.width, f.height = w, h }
func (f *refundForm) blur()              {}
func (f *refundForm) capturesText() bool { return true }
func (f *refundForm) production() bool   { return f.c.app.sess.Env == api.Production }
func (f *refundForm) quitQuestion() string {
	if f.sending {
		return f.c.tr.T("A refund is being sent; quit anyway? Its outcome will be read back next time. (y/N)")
	}
	return ""
}

// statusOwner: the form's messages go when it closes.
func (f *refundForm) statusOwner() string { return ownerRefund }

// focus reads the refund fee the service reported last (a refund_completed event).
func (f *refundForm) focus() tea.Cmd {
	s, k := f.c.app.sess.Store, f.key
	if s == nil {
		return nil
	}
	return f.c.app.withTimeout(persistTimout, func(ctx context.Context) tea.Msg {
		fee, ok, err := s.LastRefundFee(ctx)
		return refundFeeMsg{key: k, fee: fee, known: ok && err == nil}
	})
}

func (f *refundForm) setFocus(i int) {
	if i == rfAmount {
		i = rfReason // the amount is fixed (the whole amount): only the reason is typed
	}
	for j := range f.inputs {
		f.inputs[j].Blur()
	}
	f.field = i
	f.inputs[i].Focus()
}

// ShortHelp lists the form's keys.
func (f *refundForm) ShortHelp() []key.Binding {
	k := f.c.keys
	return []key.Binding{k.Submit, k.NextField, k.Back}
}

// FullHelp lists the form's keys.
func (f *refundForm) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

func (f *refundForm) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case refundFeeMsg:
		if msg.key == f.key {
			f.fee, f.feeKnown = msg.fee, msg.known
		}
		return nil
	case refundDoneMsg:
		if msg.key != f.key || f.c.app.stale(msg.tag) {
			return nil
		}
		return f.onDone(msg.out)
	case tea.KeyMsg:
		return f.handleKey(msg)
	}
	return nil
}

func (f *refundForm) handleKey(km tea.KeyMsg) tea.Cmd {
	nav := moneyForm{c: f.c, owner: ownerRefund, busy: f.c.tr.T("The refund is being sent; wait for the answer."),
		field: f.field, count: rfCount, setFocus: f.setFocus, close: f.close, submit: f.submit}
	if cmd, ok := formKeys(nav, km, f.sending); ok {
		return cmd
	}
	var cmd tea.Cmd
	f.inputs[f.field], cmd = f.inputs[f.field].Update(km)
	f.validate()
	return cmd
}

// validate checks the fields: the amount as the charge form parses it (more than 2 decimals is
// an error) and equal to the charge's (the service refunds the whole amount), the reason's length.
func (f *refundForm) validate() (api.Money, bool) {
	tr := f.c.tr
	f.errs = [rfCount]string{}
	amt, err := api.ParseBRL(f.inputs[rfAmount].Value())
	switch {
	case err != nil:
		f.errs[rfAmount] = sanitize(amountError(tr, err).Error())
	case amt <= 0:
		f.errs[rfAmount] = tr.T("The amount must be more than zero.")
	case amt > f.charge.Amount:
		f.errs[rfAmount] = tr.F("More than the charge (%s).", f.charge.Amount.BRL())
	case amt != f.charge.Amount:
		f.errs[rfAmount] = tr.F("The service refunds the whole amount (%s); partial refunds are not offered.", f.charge.Amount.BRL())
	}
	if n := len([]rune(f.inputs[rfReason].Value())); n > api.MaxRefundReason {
		f.errs[rfReason] = tr.F("At most %d characters.", api.MaxRefundReason)
	}
	f.amt = amt
	return amt, f.errs[rfAmount] == "" && f.errs[rfReason] == ""
}

// cost is what the refund costs: the amount plus the refund fee when known.
func (f *refundForm) cost(amt api.Money) string {
	tr := f.c.tr
	if !f.feeKnown {
		return tr.F("%s + refund fee (fee unknown)", amt.BRL())
	}
	// The fee is the one the last confirmed refund_completed reported: unconfirmed, said so.
	return tr.F("%s + refund fee %s (reported, unconfirmed) = %s", amt.BRL(), f.fee.BRL(), (amt + f.fee).BRL())
}

// chargeName names the charge in a question: its description and id.
func (f *refundForm) chargeName() string {
	desc := strings.TrimSpace(f.charge.Description)
	if desc == "" {
		return sanitize(f.charge.ID)
	}
	return sanitize(desc) + " (" + sanitize(f.charge.ID) + ")"
}

func (f *refundForm) submit() tea.Cmd {
	amt, ok := f.validate()
	tr := f.c.tr
	if !ok {
		for i, e := range f.errs {
			if e != "" {
				f.setFocus(i)
				break
			}
		}
		text := tr.T("Fix the highlighted fields; nothing was sent.")
		return func() tea.Msg { return statusMsg{text: text, kind: statusError, owner: ownerRefund} }
	}
	send := f.send(amt, strings.TrimSpace(f.inputs[rfReason].Value()))
	if f.production() {
		q := newTypedConfirm(f.c, tr.F("PRODUCTION: refund %s of charge %s to the payer? Costs %s. Type the amount to confirm.",
			amt.BRL(), f.chargeName(), f.cost(amt)), amt, send)
		q.onYes = f.startSending
		f.ask(q)
		return nil
	}
	q := newConfirm(f.c, tr.F("Refund %s of charge %s to the payer? Costs %s. (y/N)", amt.BRL(), f.chargeName(), f.cost(amt)), send)
	q.onYes = f.startSending
	f.ask(q)
	return nil
}

func (f *refundForm) startSending() {
	f.sending = true
	f.result = ""
}

// refunder sends a refund (*workflow.Session does).
type refunder interface {
	Refund(ctx context.Context, o workflow.RefundOrder, now func() time.Time) workflow.RefundOutcome
}

// send runs the workflow in a command; the outcome comes back to this form by its key.
func (f *refundForm) send(amt api.Money, reason string) tea.Cmd {
	sess, t := f.c.app.sess, f.c.app.tag()
	o := workflow.RefundOrder{Charge: f.charge, Amount: amt, Reason: reason, Key: f.key, ReadOnly: sess.ReadOnly}
	var rf refunder = sess
	now := f.c.now
	return f.c.app.withTimeout(workflow.RefundTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		return refundDoneMsg{tag: t, key: o.Key, out: rf.Refund(ctx, o, now)}
	})
}

// onDone shows the outcome: done closes the form (the status line and the row say it), refused
// and unknown keep it open with what to do.
func (f *refundForm) onDone(out workflow.RefundOutcome) tea.Cmd {
	f.sending = false
	tr := f.c.tr
	id := f.charge.ID
	switch out.Kind {
	case workflow.RefundDone:
		f.close()
		text := tr.F("Refund of %s for charge %s taken by the service (pending); its completion notice will confirm it.", out.Record.Amount.BRL(), id)
		if out.Record.State == state.RefundCompleted {
			text = tr.F("Refund of %s for charge %s completed.", out.Record.Amount.BRL(), id)
		}
		if out.Err != nil {
			text += " " + tr.F("It could not be saved locally: %s", localError(tr, out.Err))
		}
		cmds := []tea.Cmd{
			func() tea.Msg { return statusMsg{text: text, kind: statusOK, owner: ownerRefund} },
			func() tea.Msg { return refundedMsg{id: id} },
		}
		if out.Record.State != state.RefundCompleted {
			cmds = append(cmds, f.await())
		}
		return tea.Batch(cmds...)
	case workflow.RefundRefused:
		f.resultKind = statusError
		var ae *api.Error
		switch {
		case errors.As(out.Err, &ae) && strings.Contains(strings.ToLower(ae.Message), "already refunded"):
			f.result = describeErr(tr, tr.T("Refund refused"), out.Err) + " · " + tr.T("The service had refunded this payment already; nothing more was refunded. The inspector lists the refunds it reported; esc closes.")
		case ae != nil:
			f.result = describeErr(tr, tr.T("Refund refused"), out.Err) + " · " + tr.T("Nothing was refunded. Check the charge in the inspector; esc closes.")
		default:
			f.result = tr.F("Not sent: %s", refundWhyNot(tr, f.charge, out.Err))
		}
	case workflow.RefundBusy:
		f.resultKind = statusWarn
		var busy *state.RefundBusyError
		if errors.As(out.Err, &busy) {
			f.result = refundBusyText(f.c, busy.Claim) + " " + tr.T("The charge's row shows its outcome; esc closes.")
		} else {
			f.result = describeErr(tr, tr.T("Not sent"), out.Err)
		}
	default:
		f.resultKind = statusWarn
		f.result = describeErr(tr, tr.T("The refund's outcome is unknown"), out.Err) + " · " +
			tr.T("It may have been taken. ctrl+s reads the transaction first and asks again only if it did not land.")
	}
	text := f.result
	kind := f.resultKind
	return func() tea.Msg { return statusMsg{text: text, kind: kind, owner: ownerRefund} }
}

// await waits for refund_completed of the charge and says so on the status line.
func (f *refundForm) await() tea.Cmd {
	store, id, tr, now := f.c.app.sess.Store, f.charge.ID, f.c.tr, f.c.now
	if store == nil {
		return nil
	}
	return f.c.app.withTimeout(refundAwait, func(ctx context.Context) tea.Msg {
		r, err := workflow.AwaitRefund(ctx, store, id, now)
		if err != nil {
			return statusMsg{text: tr.F("No completion notice for the refund of charge %s yet; the inspector shows the refund when it comes.", id), kind: statusInfo, owner: ownerRefund}
		}
		return statusMsg{text: tr.F("Refund of %s for charge %s completed.", r.Amount.BRL(), id), kind: statusOK, owner: ownerRefund}
	})
}

func (f *refundForm) view() string {
	st, tr := f.c.st, f.c.tr
	w := max(min(f.width-6, 64), 30)
	amt := f.amt // validated in update: the view rewrites nothing
	var b strings.Builder
	title := tr.T("Refund a charge")
	if f.production() {
		title += " · " + tr.T("PRODUCTION")
	}
	b.WriteString(st.Bold.Render(title) + "\n")
	line := func(label, value string) {
		b.WriteString(truncateWidth(st.Label.Render(padRight(label, 10))+" "+value, w) + "\n")
	}
	line(tr.T("Charge"), st.Value.Render(sanitize(f.charge.ID)))
	if d := strings.TrimSpace(f.charge.Description); d != "" {
		line("", sanitize(d))
	}
	paid := f.charge.Amount.BRL()
	if f.charge.PaidAt != nil {
		paid += " · " + tr.T("paid ") + f.charge.PaidAt.In(f.c.loc).Format("02/01 15:04")
	}
	line(tr.T("Paid"), paid)
	if n := strings.TrimSpace(f.charge.PayerName); n != "" {
		line(tr.T("Payer"), sanitize(n))
	}
	b.WriteString("\n")
	for i, label := range []string{tr.T("Amount"), tr.T("Reason")} {
		ls := st.FieldLabel
		if i == f.field {
			ls = st.FieldFocus
		}
		value := f.inputs[i].View()
		if i == rfAmount {
			// Fixed, not a field: the service refunds the whole amount.
			value = st.Value.Render(f.charge.Amount.BRL()) + st.Muted.Render(" "+tr.T("(the whole amount)"))
		}
		b.WriteString(truncateWidth(ls.Render(padRight(label, 10))+" "+value, w) + "\n")
		if e := f.errs[i]; e != "" && (i != rfAmount || f.inputs[rfAmount].Value() != "") {
			for _, l := range strings.Split(ansi.Wrap(e, w-11, ""), "\n") {
				b.WriteString(spaces(11) + st.FieldErr.Render(l) + "\n")
			}
		}
	}
	cost := f.cost(f.charge.Amount)
	if f.errs[rfAmount] == "" {
		cost = f.cost(amt)
	}
	// Wrapped, never cut: the fee's "reported, unconfirmed" is part of what it costs.
	for i, l := range strings.Split(ansi.Wrap(cost, w-11, ""), "\n") {
		label := ""
		if i == 0 {
			label = tr.T("Cost")
		}
		line(label, l)
	}
	b.WriteString(st.Muted.Render(truncateWidth(tr.T("The whole amount goes back to the payer."), w)) + "\n")
	if f.sending {
		b.WriteString("\n" + st.Warn.Render(tr.T("Sending the refund…")) + "\n")
	}
	if f.result != "" {
		sty := st.Err
		if f.resultKind == statusWarn {
			sty = st.Warn
		}
		b.WriteString("\n")
		for _, l := range strings.Split(ansi.Wrap(f.result, w, ""), "\n") {
			b.WriteString(sty.Render(l) + "\n")
		}
	}
	b.WriteString("\n" + st.Muted.Render(truncateWidth(tr.T("ctrl+s refund · tab next field · esc close"), w)))
	box := st.Overlay
	if f.production() {
		box = st.ConfirmBox
	}
	return lipgloss.Place(f.width, f.height, lipgloss.Center, lipgloss.Center, box.Render(b.String()))
}

// typedConfirm asks for a production write by having the amount typed: y is not enough.
type typedConfirm struct {
	closer
	c        *common
	question string
	amount   api.Money
	input    textinput.Model
	then     tea.Cmd
	onYes    func()
	wrong    string
	width    int
	height   int
}

func newTypedConfirm(c *common, question string, amount api.Money, then tea.Cmd) *typedConfirm {
	ti := textinput.New()
	ti.Prompt = "> "
	ti.Placeholder = strings.TrimSpace(strings.TrimPrefix(amount.BRL(), "R$"))
	ti.CharLimit = 24
	ti.Focus()
	return &typedConfirm{c: c, question: question, amount: amount, input: ti, then: then}
}

func (d *typedConfirm) layer() layer       { return layerFloat }
func (d *typedConfirm) setSize(w, h int)   { d.width, d.height = w, h }
func (d *typedConfirm) focus() tea.Cmd     { return nil }
func (d *typedConfirm) blur()              {}
func (d *typedConfirm) capturesText() bool { return true }

// ShortHelp lists the answers.
func (d *typedConfirm) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", d.c.tr.T("confirm"))),
		d.c.keys.Back,
	}
}

// FullHelp lists the answers.
func (d *typedConfirm) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// update: enter confirms when the typed text is the amount; esc cancels; anything else types.
func (d *typedConfirm) update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, d.c.keys.Back):
		d.close()
		text := d.c.tr.T("Cancelled; nothing was sent.")
		return func() tea.Msg { return statusMsg{text: text, kind: statusInfo} }
	case km.Type == tea.KeyEnter:
		typed, err := api.ParseBRL(d.input.Value())
		if err != nil || typed != d.amount {
			d.wrong = d.c.tr.F("Type %s exactly to confirm; nothing was sent.", d.amount.BRL())
			return nil
		}
		d.close()
		if d.onYes != nil {
			d.onYes()
		}
		return d.then
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(km)
	d.wrong = ""
	return cmd
}

func (d *typedConfirm) view() string {
	st := d.c.st
	w := max(min(d.width-6, confirmMaxWidth), 20)
	body := st.Confirm.Render(ansi.Wrap(d.question, w, "")) + "\n\n" + d.input.View()
	if d.wrong != "" {
		body += "\n" + st.Err.Render(ansi.Wrap(d.wrong, w, ""))
	}
	body += "\n\n" + st.Muted.Render(d.c.tr.T("enter confirms · esc cancels"))
	return lipgloss.Place(d.width, d.height, lipgloss.Center, lipgloss.Center, st.ConfirmBox.Render(body))
}
