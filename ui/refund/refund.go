// Package refund is the dashboard's refund form.
package refund

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

// OwnerRefund owns the status messages of the refund form.
const OwnerRefund = "refund"

// refundAwait is how long the dashboard waits for refund_completed after the service took a refund.
const refundAwait = 2 * time.Minute

// DoneMsg is the workflow's outcome, for the form that sent it (matched by key).
type DoneMsg struct {
	Tag common.Tag
	Key string
	Out workflow.RefundOutcome
}

// FeeMsg is the refund fee learned from the last refund_completed, for the form.
type FeeMsg struct {
	Key   string
	Fee   api.Money
	Known bool
}

// AskRefund is what R does on a charge: the form when the charge can be refunded (put on the
// stack by the view's ask, in the same update), else a status line saying why not. It reads
// memory only.
func AskRefund(c *common.Common, ch state.Charge) (common.Overlay, tea.Cmd) {
	var prior *state.Refund
	if s := c.App.Sess.Store; s != nil {
		if r, ok := s.PeekRefund(ch.ID); ok {
			prior = &r
		}
	}
	if err := workflow.CheckRefund(ch, prior, c.App.Sess.ReadOnly); err != nil {
		return nil, common.AnswerStatus(WhyNot(c.Tr, ch, err), common.StatusWarn)
	}
	if prior != nil && prior.Claim.HeldBefore(c.Now()) {
		// Another window claimed it (state.ClaimRefund); its outcome reaches this row.
		return nil, common.AnswerStatus(refundBusyText(c, *prior.Claim), common.StatusWarn)
	}
	return NewRefundForm(c, ch), nil
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

// WhyNot says, in the merchant's language, why a charge cannot be refunded.
func WhyNot(tr common.Catalog, ch state.Charge, err error) string {
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

// FromInspector is R in the inspector: the charge as tracked, else as the service showed it.
func FromInspector(c *common.Common, charge state.Charge, tracked bool, tx *api.Transaction, wallet string) (common.Overlay, tea.Cmd) {
	if tx == nil {
		return nil, nil
	}
	if err := workflow.CheckRefundTransaction(tx); err != nil {
		// A refund line, a withdrawal, a fee…: only a paid payment opens the form.
		return nil, common.AnswerStatus(WhyNot(c.Tr, charge, err), common.StatusWarn)
	}
	ch := charge
	if !tracked {
		ch = state.ChargeFromTransaction(tx, nil)
		ch.Wallet = state.NormalizeWallet(wallet)
	} else {
		ch.ApplyTransaction(tx)
	}
	return AskRefund(c, ch)
}

// Fields of the refund form.
const (
	RfAmount = iota
	RfReason
	rfCount
)

// Form is the refund overlay: the amount (the whole amount: the service refunds no part),
// the reason and the cost, then the confirmation.
type Form struct {
	common.Closer
	c      *common.Common
	charge state.Charge
	// Key is minted when the form opens and kept by every retry.
	Key      string
	Inputs   [rfCount]textinput.Model
	field    int
	Errs     [rfCount]string
	fee      api.Money
	feeKnown bool
	Sending  bool
	// amt is the amount the fields hold as validate last read it (errs say what is wrong).
	amt api.Money
	// Result is the last outcome shown in the form (refused or unknown), with its kind.
	Result     string
	resultKind common.StatusKind
	width      int
	height     int
}

// NewRefundForm makes the refund form.
func NewRefundForm(c *common.Common, ch state.Charge) *Form {
	f := &Form{c: c, charge: ch, Key: c.NewKey()}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := common.NewInput()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	f.Inputs[RfAmount] = mk("12,34", 20)
	f.Inputs[RfAmount].SetValue(strings.TrimSpace(strings.TrimPrefix(ch.Amount.BRL(), "R$")))
	f.Inputs[RfAmount].CursorEnd()
	f.Inputs[RfReason] = mk(c.Tr.T("refund.why_the_money_goes_back_optional"), api.MaxRefundReason)
	f.setFocus(RfReason)
	f.Validate()
	return f
}

// Layer says how the overlay is drawn.
func (f *Form) Layer() common.Layer { return common.LayerFloat }

// SetSize gives it its room in cells.
func (f *Form) SetSize(w, h int) tea.Cmd {
	f.width, f.height = w, h
	return nil
}

// Blur runs when it leaves the screen or the keyboard.
func (f *Form) Blur() {}

// CapturesText reports whether printable keys belong to its text fields.
func (f *Form) CapturesText() bool { return true }
func (f *Form) production() bool   { return f.c.App.Sess.Env == api.Production }

// QuitQuestion is what quitting must ask while a request is out ("" when nothing is).
func (f *Form) QuitQuestion() string {
	if f.Sending {
		return f.c.Tr.T("refund.a_refund_is_being_sent_quit")
	}
	return ""
}

// StatusOwner names the form's messages so that they go when it closes.
func (f *Form) StatusOwner() string { return OwnerRefund }

// Focus gives the form the keyboard back; it reads nothing.
func (f *Form) Focus() tea.Cmd { return nil }

// Start reads the refund fee the service reported last (a refund_completed event).
func (f *Form) Start() tea.Cmd {
	s, k := f.c.App.Sess.Store, f.Key
	if s == nil {
		return nil
	}
	return f.c.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg {
		fee, ok, err := s.LastRefundFee(ctx)
		return FeeMsg{Key: k, Fee: fee, Known: ok && err == nil}
	})
}

func (f *Form) setFocus(i int) {
	if i == RfAmount {
		i = RfReason // the amount is fixed (the whole amount): only the reason is typed
	}
	for j := range f.Inputs {
		f.Inputs[j].Blur()
	}
	f.field = i
	f.Inputs[i].Focus()
}

// ShortHelp lists the form's keys.
func (f *Form) ShortHelp() []key.Binding {
	k := f.c.Keys
	return []key.Binding{k.Submit, k.NextField, k.Back}
}

// FullHelp lists the form's keys.
func (f *Form) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// Update handles a key or a reply meant for it.
func (f *Form) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case FeeMsg:
		if msg.Key == f.Key {
			f.fee, f.feeKnown = msg.Fee, msg.Known
		}
		return nil
	case DoneMsg:
		if msg.Key != f.Key || f.c.App.Stale(msg.Tag) {
			return nil
		}
		return f.onDone(msg.Out)
	case tea.KeyMsg:
		return f.handleKey(msg)
	}
	return nil
}

func (f *Form) handleKey(km tea.KeyMsg) tea.Cmd {
	nav := common.MoneyForm{C: f.c, Owner: OwnerRefund, Busy: f.c.Tr.T("refund.the_refund_is_being_sent_wait"),
		Field: f.field, Count: rfCount, SetFocus: f.setFocus, Close: f.Close, Submit: f.submit}
	if cmd, ok := common.FormKeys(nav, km, f.Sending); ok {
		return cmd
	}
	var cmd tea.Cmd
	f.Inputs[f.field], cmd = f.Inputs[f.field].Update(km)
	f.Validate()
	return cmd
}

// Validate checks the fields: the amount as the charge form parses it (more than 2 decimals is
// an error) and equal to the charge's (the service refunds the whole amount), the reason's length.
func (f *Form) Validate() (api.Money, bool) {
	tr := f.c.Tr
	f.Errs = [rfCount]string{}
	amt, err := api.ParseBRL(f.Inputs[RfAmount].Value())
	switch {
	case err != nil:
		f.Errs[RfAmount] = common.Sanitize(common.AmountError(tr, err).Error())
	case amt <= 0:
		f.Errs[RfAmount] = tr.T("refund.the_amount_must_be_more_than")
	case amt > f.charge.Amount:
		f.Errs[RfAmount] = tr.F("refund.more_than_the_charge", f.charge.Amount.BRL())
	case amt != f.charge.Amount:
		f.Errs[RfAmount] = tr.F("refund.the_service_refunds_the_whole_amount", f.charge.Amount.BRL())
	}
	if n := len([]rune(f.Inputs[RfReason].Value())); n > api.MaxRefundReason {
		f.Errs[RfReason] = tr.F("refund.at_most_characters", api.MaxRefundReason)
	}
	f.amt = amt
	return amt, f.Errs[RfAmount] == "" && f.Errs[RfReason] == ""
}

// cost is what the refund costs: the amount plus the refund fee when known.
func (f *Form) cost(amt api.Money) string {
	tr := f.c.Tr
	if !f.feeKnown {
		return tr.F("refund.refund_fee_fee_unknown", amt.BRL())
	}
	// The fee is the one the last confirmed refund_completed reported: unconfirmed, said so.
	return tr.F("refund.refund_fee_reported_unconfirmed", amt.BRL(), f.fee.BRL(), (amt + f.fee).BRL())
}

// chargeName names the charge in a question: its description and id.
func (f *Form) chargeName() string {
	desc := strings.TrimSpace(f.charge.Description)
	if desc == "" {
		return common.Sanitize(f.charge.ID)
	}
	return common.Sanitize(desc) + " (" + common.Sanitize(f.charge.ID) + ")"
}

func (f *Form) submit() tea.Cmd {
	amt, ok := f.Validate()
	tr := f.c.Tr
	if i, fix := common.FixHighlighted(f.c, f.Errs[:], OwnerRefund); !ok && i >= 0 {
		f.setFocus(i)
		return fix
	}
	send := f.send(amt, strings.TrimSpace(f.Inputs[RfReason].Value()))
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

func (f *Form) startSending() {
	f.Sending = true
	f.Result = ""
}

// refunder sends a refund (*workflow.Session does).
type refunder interface {
	Refund(ctx context.Context, o workflow.RefundOrder, now func() time.Time) workflow.RefundOutcome
}

// send runs the workflow in a command; the outcome comes back to this form by its key.
func (f *Form) send(amt api.Money, reason string) tea.Cmd {
	sess, t := f.c.App.Sess, f.c.App.Tag()
	o := workflow.RefundOrder{Charge: f.charge, Amount: amt, Reason: reason, Key: f.Key, ReadOnly: sess.ReadOnly}
	var rf refunder = sess
	now := f.c.Now
	return f.c.App.WithTimeout(workflow.RefundTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		return DoneMsg{Tag: t, Key: o.Key, Out: rf.Refund(ctx, o, now)}
	})
}

// onDone shows the outcome: done closes the form (the status line and the row say it), refused
// and unknown keep it open with what to do.
func (f *Form) onDone(out workflow.RefundOutcome) tea.Cmd {
	f.Sending = false
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
			func() tea.Msg { return common.StatusMsg{Text: text, Kind: common.StatusOK, Owner: OwnerRefund} },
			func() tea.Msg { return common.RefundedMsg{ID: id} },
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
			f.Result = common.DescribeErr(tr, tr.T("refund.refund_refused"), out.Err) + " · " + tr.T("refund.the_service_had_refunded_this_payment")
		case ae != nil:
			f.Result = common.DescribeErr(tr, tr.T("refund.refund_refused"), out.Err) + " · " + tr.T("refund.nothing_was_refunded_check_the_charge")
		default:
			f.Result = tr.F("refund.not_sent", WhyNot(tr, f.charge, out.Err))
		}
	case workflow.RefundBusy:
		f.resultKind = common.StatusWarn
		var busy *state.RefundBusyError
		if errors.As(out.Err, &busy) {
			f.Result = refundBusyText(f.c, busy.Claim) + " " + tr.T("refund.the_charge_s_row_shows_its")
		} else {
			f.Result = common.DescribeErr(tr, tr.T("refund.not_sent_2"), out.Err)
		}
	default:
		f.resultKind = common.StatusWarn
		f.Result = common.DescribeErr(tr, tr.T("refund.the_refund_s_outcome_is_unknown"), out.Err) + " · " +
			tr.T("refund.it_may_have_been_taken_ctrl")
	}
	text := f.Result
	kind := f.resultKind
	return func() tea.Msg { return common.StatusMsg{Text: text, Kind: kind, Owner: OwnerRefund} }
}

// await waits for refund_completed of the charge and says so on the status line.
func (f *Form) await() tea.Cmd {
	store, id, tr, now := f.c.App.Sess.Store, f.charge.ID, f.c.Tr, f.c.Now
	if store == nil {
		return nil
	}
	return f.c.App.WithTimeout(refundAwait, func(ctx context.Context) tea.Msg {
		r, err := workflow.AwaitRefund(ctx, store, id, now)
		if err != nil {
			return common.StatusMsg{Text: tr.F("refund.no_completion_notice_for_the_refund", id), Kind: common.StatusInfo, Owner: OwnerRefund}
		}
		return common.StatusMsg{Text: tr.F("refund.refund_of_for_charge_completed", r.Amount.BRL(), id), Kind: common.StatusOK, Owner: OwnerRefund}
	})
}

// View renders it at the size it was given; it changes nothing.
func (f *Form) View() string {
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
		value := f.Inputs[i].View()
		if i == RfAmount {
			// Fixed, not a field: the service refunds the whole amount.
			value = st.Value.Render(f.charge.Amount.BRL()) + st.Muted.Render(" "+tr.T("refund.the_whole_amount"))
		}
		b.WriteString(common.TruncateWidth(ls.Render(common.PadRight(label, 10))+" "+value, w) + "\n")
		if e := f.Errs[i]; e != "" && (i != RfAmount || f.Inputs[RfAmount].Value() != "") {
			for _, l := range strings.Split(ansi.Wrap(e, w-11, ""), "\n") {
				b.WriteString(common.Spaces(11) + st.FieldErr.Render(l) + "\n")
			}
		}
	}
	cost := f.cost(f.charge.Amount)
	if f.Errs[RfAmount] == "" {
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
	if f.Sending {
		b.WriteString("\n" + st.Warn.Render(tr.T("refund.sending_the_refund")) + "\n")
	}
	if f.Result != "" {
		sty := st.Err
		if f.resultKind == common.StatusWarn {
			sty = st.Warn
		}
		b.WriteString("\n")
		for _, l := range strings.Split(ansi.Wrap(f.Result, w, ""), "\n") {
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

// ClockKey says nothing on the form changes with the clock (see common.Clocked).
func (f *Form) ClockKey(time.Time) string { return "" }
