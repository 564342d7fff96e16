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
	"pixdash/ui/common"
)

// The refund of a paid charge: R on the charges list or in the inspector opens a small form
// (amount, reason, what it costs); the confirmation names the amount and the charge, and in
// production asks for the amount typed. The workflow (state/workflow/refund.go) sends it once,
// reads the transaction back after a lost reply and records the outcome on the charge.

// ownerRefund owns the status messages of the refund form.
const ownerRefund = "refund"

// refundAwait is how long the dashboard waits for refund_completed after the service took a refund.
const refundAwait = 2 * time.Minute

// refundDoneMsg is the workflow's outcome, for the form that sent it (matched by key).
type refundDoneMsg struct {
	tag common.Tag
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
func askRefund(c *common.Common, ch state.Charge) (common.Overlay, tea.Cmd) {
	var prior *state.Refund
	if s := c.App.Sess.Store; s != nil {
		if r, ok := s.PeekRefund(ch.ID); ok {
			prior = &r
		}
	}
	if err := workflow.CheckRefund(ch, prior, c.App.Sess.ReadOnly); err != nil {
		return nil, common.AnswerStatus(refundWhyNot(c.Tr, ch, err), common.StatusWarn)
	}
	if prior != nil && prior.Claim.HeldBefore(c.Now()) {
		// Another window claimed it (state.ClaimRefund); its outcome reaches this row.
		return nil, common.AnswerStatus(refundBusyText(c, *prior.Claim), common.StatusWarn)
	}
	return newRefundForm(c, ch), nil
}

// refundBusyText says which window sends a charge's refund, and since when.
func refundBusyText(c *common.Common, cl state.RefundClaim) string {
	tr := c.Tr
	who := tr.F("refund.pid", cl.PID)
	if !cl.OnThisHost() && cl.Host != "" {
		who = tr.F("refund.pid_on", cl.PID, common.Sanitize(cl.Host))
	}
	return tr.F("refund.this_refund_is_being_sent_by",
		who, cl.Since.In(c.Loc).Format("15:04"))
}

// refundWhyNot says, in the merchant's language, why a charge cannot be refunded.
func refundWhyNot(tr common.Catalog, ch state.Charge, err error) string {
	var np workflow.RefundNotPaid
	var npay workflow.RefundNotPayment
	switch {
	case errors.Is(err, workflow.ErrRefundReadOnly):
		return tr.T("refund.this_profile_is_read_only_refunds")
	case errors.As(err, &npay) && npay.Type != "" && npay.Type != api.TypePayment:
		return tr.F("refund.only_payments_can_be_refunded_this", tr.Enum(npay.Type), npay.Amount.BRL())
	case errors.As(err, &npay) && npay.Amount < 0:
		return tr.F("refund.only_payments_can_be_refunded_this_2", npay.Amount.BRL())
	case errors.As(err, &npay):
		return tr.T("refund.only_payments_can_be_refunded_this_3")
	case errors.As(err, &np) && np.State == state.StateRefunded:
		return tr.F("refund.this_charge_was_already_refunded_see", ch.Outcome().Amount.BRL())
	case errors.As(err, &np):
		return tr.F("refund.only_paid_charges_can_be_refunded", common.StateName(tr, np.State))
	case errors.Is(err, workflow.ErrRefundDone):
		return tr.T("refund.this_charge_was_already_refunded_from")
	}
	return tr.F("refund.cannot_refund_this_charge", common.LocalError(tr, err))
}

// refundFromInspector is R in the inspector: the charge as tracked, else as the service showed it.
func refundFromInspector(c *common.Common, charge state.Charge, tracked bool, tx *api.Transaction, wallet string) (common.Overlay, tea.Cmd) {
	if tx == nil {
		return nil, nil
	}
	if err := workflow.CheckRefundTransaction(tx); err != nil {
		// A refund line, a withdrawal, a fee…: only a paid payment opens the form.
		return nil, common.AnswerStatus(refundWhyNot(c.Tr, charge, err), common.StatusWarn)
	}
	ch := charge
	if !tracked {
		ch = state.ChargeFromTransaction(tx, nil)
		ch.Wallet = state.NormalizeWallet(wallet)
	} else {
		ch.ApplyTransaction(tx)
	}
	return askRefund(c, ch)
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
	common.Closer
	c      *common.Common
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
	resultKind common.StatusKind
	width      int
	height     int
}

func newRefundForm(c *common.Common, ch state.Charge) *refundForm {
	f := &refundForm{c: c, charge: ch, key: c.NewKey()}
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
	f.inputs[rfReason] = mk(c.Tr.T("refund.why_the_money_goes_back_optional"), api.MaxRefundReason)
	f.setFocus(rfReason)
	f.validate()
	return f
}

func (f *refundForm) Layer() common.Layer { return common.LayerFloat }
func (f *refundForm) SetSize(w, h int) tea.Cmd {
	f.width, f.height = w, h
	return nil
}
func (f *refundForm) Blur()              {}
func (f *refundForm) CapturesText() bool { return true }
func (f *refundForm) production() bool   { return f.c.App.Sess.Env == api.Production }
func (f *refundForm) quitQuestion() string {
	if f.sending {
		return f.c.Tr.T("refund.a_refund_is_being_sent_quit")
	}
	return ""
}

// StatusOwner: the form's messages go when it closes.
func (f *refundForm) StatusOwner() string { return ownerRefund }

// Focus gives the form the keyboard back; it reads nothing.
func (f *refundForm) Focus() tea.Cmd { return nil }

// Start reads the refund fee the service reported last (a refund_completed event).
func (f *refundForm) Start() tea.Cmd {
	s, k := f.c.App.Sess.Store, f.key
	if s == nil {
		return nil
	}
	return f.c.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg {
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
	k := f.c.Keys
	return []key.Binding{k.Submit, k.NextField, k.Back}
}

// FullHelp lists the form's keys.
func (f *refundForm) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

func (f *refundForm) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case refundFeeMsg:
		if msg.key == f.key {
			f.fee, f.feeKnown = msg.fee, msg.known
		}
		return nil
	case refundDoneMsg:
		if msg.key != f.key || f.c.App.Stale(msg.tag) {
			return nil
		}
		return f.onDone(msg.out)
	case tea.KeyMsg:
		return f.handleKey(msg)
	}
	return nil
}

func (f *refundForm) handleKey(km tea.KeyMsg) tea.Cmd {
	nav := common.MoneyForm{C: f.c, Owner: ownerRefund, Busy: f.c.Tr.T("refund.the_refund_is_being_sent_wait"),
		Field: f.field, Count: rfCount, SetFocus: f.setFocus, Close: f.Close, Submit: f.submit}
	if cmd, ok := common.FormKeys(nav, km, f.sending); ok {
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
	tr := f.c.Tr
	f.errs = [rfCount]string{}
	amt, err := api.ParseBRL(f.inputs[rfAmount].Value())
	switch {
	case err != nil:
		f.errs[rfAmount] = common.Sanitize(common.AmountError(tr, err).Error())
	case amt <= 0:
		f.errs[rfAmount] = tr.T("refund.the_amount_must_be_more_than")
	case amt > f.charge.Amount:
		f.errs[rfAmount] = tr.F("refund.more_than_the_charge", f.charge.Amount.BRL())
	case amt != f.charge.Amount:
		f.errs[rfAmount] = tr.F("refund.the_service_refunds_the_whole_amount", f.charge.Amount.BRL())
	}
	if n := len([]rune(f.inputs[rfReason].Value())); n > api.MaxRefundReason {
		f.errs[rfReason] = tr.F("refund.at_most_characters", api.MaxRefundReason)
	}
	f.amt = amt
	return amt, f.errs[rfAmount] == "" && f.errs[rfReason] == ""
}

// cost is what the refund costs: the amount plus the refund fee when known.
func (f *refundForm) cost(amt api.Money) string {
	tr := f.c.Tr
	if !f.feeKnown {
		return tr.F("refund.refund_fee_fee_unknown", amt.BRL())
	}
	// The fee is the one the last confirmed refund_completed reported: unconfirmed, said so.
	return tr.F("refund.refund_fee_reported_unconfirmed", amt.BRL(), f.fee.BRL(), (amt + f.fee).BRL())
}

// chargeName names the charge in a question: its description and id.
func (f *refundForm) chargeName() string {
	desc := strings.TrimSpace(f.charge.Description)
	if desc == "" {
		return common.Sanitize(f.charge.ID)
	}
	return common.Sanitize(desc) + " (" + common.Sanitize(f.charge.ID) + ")"
}

func (f *refundForm) submit() tea.Cmd {
	amt, ok := f.validate()
	tr := f.c.Tr
	if i, fix := common.FixHighlighted(f.c, f.errs[:], ownerRefund); !ok && i >= 0 {
		f.setFocus(i)
		return fix
	}
	send := f.send(amt, strings.TrimSpace(f.inputs[rfReason].Value()))
	if f.production() {
		q := common.NewTypedConfirm(f.c, tr.F("refund.production_refund_of_charge_to_the",
			amt.BRL(), f.chargeName(), f.cost(amt)), amt, send)
		q.OnYes = f.startSending
		f.Ask(q)
		return nil
	}
	q := common.NewConfirm(f.c, tr.F("refund.refund_of_charge_to_the_payer", amt.BRL(), f.chargeName(), f.cost(amt)), send)
	q.OnYes = f.startSending
	f.Ask(q)
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
	sess, t := f.c.App.Sess, f.c.App.Tag()
	o := workflow.RefundOrder{Charge: f.charge, Amount: amt, Reason: reason, Key: f.key, ReadOnly: sess.ReadOnly}
	var rf refunder = sess
	now := f.c.Now
	return f.c.App.WithTimeout(workflow.RefundTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		return refundDoneMsg{tag: t, key: o.Key, out: rf.Refund(ctx, o, now)}
	})
}

// onDone shows the outcome: done closes the form (the status line and the row say it), refused
// and unknown keep it open with what to do.
func (f *refundForm) onDone(out workflow.RefundOutcome) tea.Cmd {
	f.sending = false
	tr := f.c.Tr
	id := f.charge.ID
	switch out.Kind {
	case workflow.RefundDone:
		f.Close()
		text := tr.F("refund.refund_of_for_charge_taken_by", out.Record.Amount.BRL(), id)
		if out.Record.State == state.RefundCompleted {
			text = tr.F("refund.refund_of_for_charge_completed", out.Record.Amount.BRL(), id)
		}
		if out.Err != nil {
			text += " " + tr.F("refund.it_could_not_be_saved_locally", common.LocalError(tr, out.Err))
		}
		cmds := []tea.Cmd{
			func() tea.Msg { return common.StatusMsg{Text: text, Kind: common.StatusOK, Owner: ownerRefund} },
			func() tea.Msg { return common.RefundedMsg{Id: id} },
		}
		if out.Record.State != state.RefundCompleted {
			cmds = append(cmds, f.await())
		}
		return tea.Batch(cmds...)
	case workflow.RefundRefused:
		f.resultKind = common.StatusError
		var ae *api.Error
		switch {
		case errors.As(out.Err, &ae) && strings.Contains(strings.ToLower(ae.Message), "already refunded"):
			f.result = common.DescribeErr(tr, tr.T("refund.refund_refused"), out.Err) + " · " + tr.T("refund.the_service_had_refunded_this_payment")
		case ae != nil:
			f.result = common.DescribeErr(tr, tr.T("refund.refund_refused"), out.Err) + " · " + tr.T("refund.nothing_was_refunded_check_the_charge")
		default:
			f.result = tr.F("refund.not_sent", refundWhyNot(tr, f.charge, out.Err))
		}
	case workflow.RefundBusy:
		f.resultKind = common.StatusWarn
		var busy *state.RefundBusyError
		if errors.As(out.Err, &busy) {
			f.result = refundBusyText(f.c, busy.Claim) + " " + tr.T("refund.the_charge_s_row_shows_its")
		} else {
			f.result = common.DescribeErr(tr, tr.T("refund.not_sent_2"), out.Err)
		}
	default:
		f.resultKind = common.StatusWarn
		f.result = common.DescribeErr(tr, tr.T("refund.the_refund_s_outcome_is_unknown"), out.Err) + " · " +
			tr.T("refund.it_may_have_been_taken_ctrl")
	}
	text := f.result
	kind := f.resultKind
	return func() tea.Msg { return common.StatusMsg{Text: text, Kind: kind, Owner: ownerRefund} }
}

// await waits for refund_completed of the charge and says so on the status line.
func (f *refundForm) await() tea.Cmd {
	store, id, tr, now := f.c.App.Sess.Store, f.charge.ID, f.c.Tr, f.c.Now
	if store == nil {
		return nil
	}
	return f.c.App.WithTimeout(refundAwait, func(ctx context.Context) tea.Msg {
		r, err := workflow.AwaitRefund(ctx, store, id, now)
		if err != nil {
			return common.StatusMsg{Text: tr.F("refund.no_completion_notice_for_the_refund", id), Kind: common.StatusInfo, Owner: ownerRefund}
		}
		return common.StatusMsg{Text: tr.F("refund.refund_of_for_charge_completed", r.Amount.BRL(), id), Kind: common.StatusOK, Owner: ownerRefund}
	})
}

func (f *refundForm) View() string {
	st, tr := f.c.St, f.c.Tr
	w := max(min(f.width-6, 64), 30)
	amt := f.amt // validated in update: the view rewrites nothing
	var b strings.Builder
	title := tr.T("refund.refund_a_charge")
	if f.production() {
		title += " · " + tr.T("refund.production_caps")
	}
	b.WriteString(st.Bold.Render(title) + "\n")
	line := func(label, value string) {
		b.WriteString(common.TruncateWidth(st.Label.Render(common.PadRight(label, 10))+" "+value, w) + "\n")
	}
	line(tr.T("refund.charge"), st.Value.Render(common.Sanitize(f.charge.ID)))
	if d := strings.TrimSpace(f.charge.Description); d != "" {
		line("", common.Sanitize(d))
	}
	paid := f.charge.Amount.BRL()
	if f.charge.PaidAt != nil {
		paid += " · " + tr.T("refund.paid") + f.charge.PaidAt.In(f.c.Loc).Format("02/01 15:04")
	}
	line(tr.T("refund.paid_2"), paid)
	if n := strings.TrimSpace(f.charge.PayerName); n != "" {
		line(tr.T("refund.payer"), common.Sanitize(n))
	}
	b.WriteString("\n")
	for i, label := range []string{tr.T("refund.amount"), tr.T("refund.reason")} {
		ls := st.FieldLabel
		if i == f.field {
			ls = st.FieldFocus
		}
		value := f.inputs[i].View()
		if i == rfAmount {
			// Fixed, not a field: the service refunds the whole amount.
			value = st.Value.Render(f.charge.Amount.BRL()) + st.Muted.Render(" "+tr.T("refund.the_whole_amount"))
		}
		b.WriteString(common.TruncateWidth(ls.Render(common.PadRight(label, 10))+" "+value, w) + "\n")
		if e := f.errs[i]; e != "" && (i != rfAmount || f.inputs[rfAmount].Value() != "") {
			for _, l := range strings.Split(ansi.Wrap(e, w-11, ""), "\n") {
				b.WriteString(common.Spaces(11) + st.FieldErr.Render(l) + "\n")
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
			label = tr.T("refund.cost")
		}
		line(label, l)
	}
	b.WriteString(st.Muted.Render(common.TruncateWidth(tr.T("refund.the_whole_amount_goes_back_to"), w)) + "\n")
	if f.sending {
		b.WriteString("\n" + st.Warn.Render(tr.T("refund.sending_the_refund")) + "\n")
	}
	if f.result != "" {
		sty := st.Err
		if f.resultKind == common.StatusWarn {
			sty = st.Warn
		}
		b.WriteString("\n")
		for _, l := range strings.Split(ansi.Wrap(f.result, w, ""), "\n") {
			b.WriteString(sty.Render(l) + "\n")
		}
	}
	b.WriteString("\n" + st.Muted.Render(common.TruncateWidth(tr.T("refund.ctrl_s_refund_tab_next_field"), w)))
	box := st.Overlay
	if f.production() {
		box = st.ConfirmBox
	}
	return lipgloss.Place(f.width, f.height, lipgloss.Center, lipgloss.Center, box.Render(b.String()))
}
