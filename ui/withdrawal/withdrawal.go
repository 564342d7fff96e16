// Package withdrawal is the dashboard's withdrawal form.
package withdrawal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/api/brdoc"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// The withdrawal of a wallet's balance to a bank account by PIX: s in the wallets view opens a
// form (key type and key, holder, gross or net amount) over the selected wallet, showing its
// spendable balance and its recent withdrawals; the confirmation names the amount and the
// destination (typed amount in production). The workflow (state/workflow/withdrawal.go)
// records the request before sending it with the Idempotency-Key minted when the form opened,
// and the status follows the withdrawal_completed / _failed / _reversed events.

// withdrawalAwait is how long the dashboard waits for the event that settles a withdrawal.
const withdrawalAwait = 5 * time.Minute

// withdrawalListRows is how many of the wallet's withdrawals the form lists at most.
const withdrawalListRows = 5

// wdNameMax bounds the holder's name (the emulator's bound; the service documents none).
const wdNameMax = api.MaxWithdrawalText

// DoneMsg is the workflow's outcome, for the form that sent it (matched by key).
type DoneMsg struct {
	tag common.Tag
	key string
	out workflow.WithdrawalOutcome
}

// ListMsg is the wallet's withdrawals, for the form that asked (matched by key).
type ListMsg struct {
	key  string
	list []state.Withdrawal
	err  error
}

// Fields of the withdrawal form.
const (
	wfKeyType = iota
	WfKey
	WfName
	WfDoc
	wfMode
	WfAmount
	wfCount
)

// WdInput is the form as typed.
type WdInput struct {
	KeyType api.PixKeyType
	Key     string
	Name    string
	Doc     string
	ByNet   bool
	Amount  string
}

// wdCheck is what checkWithdrawal makes of the form: the request (when every field is right),
// each field's problem, and what the withdrawal takes from the wallet.
type wdCheck struct {
	Req  api.CreateWithdrawalRequest
	Errs [wfCount]string
	amt  api.Money // the amount as typed (gross or net)
	Need api.Money // what leaves the wallet (net + the fee when known)
	Ok   bool
}

// pixKeyTypeLabel names a key type for the merchant.
func pixKeyTypeLabel(tr common.Catalog, t api.PixKeyType) string {
	switch t {
	case api.PixKeyCPF:
		return "CPF"
	case api.PixKeyCNPJ:
		return "CNPJ"
	case api.PixKeyEmail:
		return tr.T("withdrawal.e_mail")
	case api.PixKeyPhone:
		return tr.T("withdrawal.phone")
	case api.PixKeyRandom:
		return tr.T("withdrawal.random_key")
	}
	return common.Sanitize(string(t))
}

// CheckPixKey checks a PIX key for its type with api/brdoc and returns it as the service takes
// it: a CPF as 11 digits and a CNPJ as 14 characters (alphanumeric ones upper-cased), both with
// their check digits right, an e-mail address, a Brazilian phone as +55, the area code (DDD)
// and the number, a random key as a lower-case UUID.
func CheckPixKey(tr common.Catalog, t api.PixKeyType, s string) (string, error) {
	k, err := brdoc.PixKey(brdoc.KeyType(t), s)
	if errors.Is(err, brdoc.ErrEmailKeyLong) {
		n := utf8.RuneCountInString(strings.TrimSpace(s))
		return "", fmt.Errorf(tr.T("withdrawal.at_most_characters_now"), brdoc.EmailKeyMax, n)
	}
	if err != nil {
		return "", common.BrdocError(tr, err)
	}
	return k, nil
}

// CheckWithdrawal checks the whole form: the key for its type, the holder's name and document
// (CPF or CNPJ by its check digits), the amount (at most 2 decimals, at least R$ 1,00) against
// the spendable balance (nil: unknown) with the fee last seen (feeKnown) for a net amount.
func CheckWithdrawal(tr common.Catalog, in WdInput, spendable *api.Money, fee api.Money, feeKnown bool) wdCheck {
	var c wdCheck
	if !in.KeyType.Known() {
		c.Errs[wfKeyType] = tr.T("withdrawal.choose_the_key_type")
	}
	pk, err := CheckPixKey(tr, in.KeyType, in.Key)
	if err != nil {
		c.Errs[WfKey] = err.Error()
	}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		c.Errs[WfName] = tr.T("withdrawal.required")
	case utf8.RuneCountInString(name) > wdNameMax:
		c.Errs[WfName] = fmt.Sprintf(tr.T("withdrawal.at_most_characters_now"), wdNameMax, utf8.RuneCountInString(name))
	}
	doc, kind, err := common.CheckDocument(tr, in.Doc)
	docType := api.DocumentCPF
	switch {
	case strings.TrimSpace(in.Doc) == "":
		c.Errs[WfDoc] = tr.T("withdrawal.required")
	case err != nil:
		c.Errs[WfDoc] = err.Error()
	case kind == brdoc.CNPJ:
		docType = api.DocumentCNPJ
	}
	amt, err := api.ParseBRL(in.Amount)
	switch {
	case strings.TrimSpace(in.Amount) == "":
		c.Errs[WfAmount] = tr.T("withdrawal.required")
	case err != nil:
		c.Errs[WfAmount] = common.AmountError(tr, err).Error()
	case api.CheckWithdrawalAmount(amt) != nil:
		c.Errs[WfAmount] = tr.F("withdrawal.at_least", api.MinWithdrawalAmount.BRL())
	}
	// What leaves the wallet and whether the spendable balance covers it: the workflow's rule
	// (WithdrawalOrder.CheckFunds), the one its send applies again.
	o := workflow.WithdrawalOrder{Spendable: spendable}
	if in.ByNet {
		o.Req.NetAmount = &amt
	} else {
		o.Req.Amount = &amt
	}
	if feeKnown {
		o.Fee = fee
	}
	c.amt, c.Need = amt, o.Need()
	if c.Errs[WfAmount] == "" {
		var short workflow.BalanceShort
		switch err := o.CheckFunds(); {
		case errors.Is(err, workflow.ErrWithdrawalNoBalance):
			c.Errs[WfAmount] = tr.T("withdrawal.the_spendable_balance_is_not_known")
		case errors.As(err, &short) && short.Fee > 0:
			c.Errs[WfAmount] = tr.F("withdrawal.with_the_fee_is_more_than", short.Need.BRL(), short.Spendable.BRL())
		case errors.As(err, &short):
			c.Errs[WfAmount] = tr.F("withdrawal.more_than_the_spendable", short.Spendable.BRL())
		}
	}
	c.Ok = true
	for _, e := range c.Errs {
		if e != "" {
			c.Ok = false
		}
	}
	if c.Ok {
		a := amt
		c.Req = api.CreateWithdrawalRequest{PixKey: pk, PixKeyType: in.KeyType, HolderName: name, HolderDocument: doc, HolderDocumentType: docType}
		if in.ByNet {
			c.Req.NetAmount = &a
		} else {
			c.Req.Amount = &a
		}
	}
	return c
}

// AskWithdrawal is what s does on a wallet: the form, or a status line saying why not.
func AskWithdrawal(c *common.Common, wallet string, spendable *api.Money, readAt time.Time) (common.Overlay, tea.Cmd) {
	if c.App.Sess.ReadOnly {
		return nil, common.AnswerStatus(c.Tr.T("withdrawal.this_profile_is_read_only_withdrawals"), common.StatusWarn)
	}
	return NewWithdrawalForm(c, wallet, spendable, readAt), nil
}

// Form is the withdrawal overlay.
type Form struct {
	common.Closer
	c         *common.Common
	wallet    string
	spendable *api.Money
	readAt    time.Time
	// Key is minted when the form opens and kept by every retry.
	Key      string
	keyType  int // index in api.PixKeyTypes
	byNet    bool
	Inputs   [wfCount]textinput.Model
	field    int
	tried    bool
	fee      api.Money
	FeeKnown bool
	List     []state.Withdrawal
	listErr  string
	sending  bool
	// locked: the outcome of a request is unknown; the same body is asked again (ctrl+s) or
	// the form is closed, never edited.
	locked     bool
	Result     string
	resultKind common.StatusKind
	width      int
	height     int
}

// NewWithdrawalForm makes the withdrawal form.
func NewWithdrawalForm(c *common.Common, wallet string, spendable *api.Money, readAt time.Time) *Form {
	f := &Form{c: c, wallet: state.NormalizeWallet(wallet), spendable: spendable, readAt: readAt, Key: c.NewKey(), keyType: 2}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := common.NewInput()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	f.Inputs[WfKey] = mk(c.Tr.T("withdrawal.the_recipient_s_pix_key"), 80)
	f.Inputs[WfName] = mk(c.Tr.T("withdrawal.as_the_bank_knows_them"), wdNameMax+10)
	f.Inputs[WfDoc] = mk("CPF / CNPJ", 20)
	f.Inputs[WfAmount] = mk("12,34", 20)
	f.setFocus(WfKey)
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
	if f.sending {
		return f.c.Tr.T("withdrawal.a_withdrawal_is_being_sent_quit")
	}
	return ""
}

// StatusOwner names the form's messages so that they go when it closes.
func (f *Form) StatusOwner() string { return common.OwnerWithdrawal }

// dirty reports whether something was typed that esc would throw away (a request whose outcome
// is unknown is not: its fields cannot change and its key is looked up again).
func (f *Form) dirty() bool {
	if f.locked {
		return false
	}
	for _, in := range f.Inputs {
		if strings.TrimSpace(in.Value()) != "" {
			return true
		}
	}
	return false
}

// Start reads the wallet's withdrawals (and the fee the last one reported).
// start reads the wallet's recent withdrawals.
func (f *Form) Start() tea.Cmd { return f.loadList() }

// Focus gives the form the keyboard back; it reads nothing.
func (f *Form) Focus() tea.Cmd { return nil }

func (f *Form) loadList() tea.Cmd {
	s, k, w, now := f.c.App.Sess.Store, f.Key, f.wallet, f.c.Now
	if s == nil {
		return nil
	}
	return f.c.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg {
		list, err := workflow.ListWithdrawals(ctx, s, w, withdrawalListRows*4, now)
		return ListMsg{key: k, list: list, err: err}
	})
}

func (f *Form) setFocus(i int) {
	for j := range f.Inputs {
		f.Inputs[j].Blur()
	}
	f.field = i
	if i != wfKeyType && i != wfMode {
		f.Inputs[i].Focus()
	}
}

// ShortHelp lists the form's keys.
func (f *Form) ShortHelp() []key.Binding {
	k := f.c.Keys
	choose := key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", f.c.Tr.T("withdrawal.choose")))
	return []key.Binding{k.Submit, k.NextField, choose, k.Back}
}

// FullHelp lists the form's keys.
func (f *Form) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

func (f *Form) input() WdInput {
	return WdInput{KeyType: api.PixKeyTypes[f.keyType], Key: f.Inputs[WfKey].Value(), Name: f.Inputs[WfName].Value(),
		Doc: f.Inputs[WfDoc].Value(), ByNet: f.byNet, Amount: f.Inputs[WfAmount].Value()}
}

// Check checks the form's fields and the balance, without sending anything.
func (f *Form) Check() wdCheck {
	return CheckWithdrawal(f.c.Tr, f.input(), f.spendable, f.fee, f.FeeKnown)
}

// Update handles a key or a reply meant for it.
func (f *Form) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ListMsg:
		if msg.key != f.Key {
			return nil
		}
		f.List, f.listErr = msg.list, ""
		if msg.err != nil {
			f.listErr = common.DescribeErr(f.c.Tr, f.c.Tr.T("withdrawal.withdrawals"), msg.err)
		}
		for _, w := range msg.list {
			if w.State.Taken() && w.ID != "" {
				f.fee, f.FeeKnown = w.Fee, true
				break
			}
		}
		return nil
	case DoneMsg:
		if msg.key != f.Key || f.c.App.Stale(msg.tag) {
			return nil
		}
		return f.OnDone(msg.out)
	case tea.KeyMsg:
		return f.handleKey(msg)
	}
	return nil
}

func (f *Form) handleKey(km tea.KeyMsg) tea.Cmd {
	nav := common.MoneyForm{C: f.c, Owner: common.OwnerWithdrawal, Busy: f.c.Tr.T("withdrawal.the_withdrawal_is_being_sent_wait"),
		Field: f.field, Count: wfCount, SetFocus: f.setFocus, Close: f.Close, Submit: f.submit,
		Dirty: f.dirty(), Discard: f.c.Tr.T("withdrawal.discard_this_withdrawal_nothing_was_sent"), Ask: f.Ask}
	if cmd, ok := common.FormKeys(nav, km, f.sending); ok {
		return cmd
	}
	if f.locked {
		text := f.c.Tr.T("withdrawal.the_first_request_may_have_landed")
		return func() tea.Msg {
			return common.StatusMsg{Text: text, Kind: common.StatusWarn, Owner: common.OwnerWithdrawal}
		}
	}
	switch f.field {
	case wfKeyType:
		switch km.String() {
		case "right", " ", "l":
			f.keyType = (f.keyType + 1) % len(api.PixKeyTypes)
		case "left", "h":
			f.keyType = (f.keyType + len(api.PixKeyTypes) - 1) % len(api.PixKeyTypes)
		}
		return nil
	case wfMode:
		switch km.String() {
		case "right", "left", " ", "h", "l":
			f.byNet = !f.byNet
		}
		return nil
	}
	var cmd tea.Cmd
	f.Inputs[f.field], cmd = f.Inputs[f.field].Update(km)
	return cmd
}

// destination names where the money goes, masked: the key's type and key, the holder and
// their document.
func (f *Form) destination(r api.CreateWithdrawalRequest) string {
	tr := f.c.Tr
	return tr.F("withdrawal.key", pixKeyTypeLabel(tr, r.PixKeyType), common.MaskPixKey(r.PixKeyType, r.PixKey),
		common.Sanitize(r.HolderName), common.MaskDocument(r.HolderDocument))
}

// amountText says what is withdrawn: the gross amount, or the net amount the recipient gets.
func (f *Form) amountText(c wdCheck) string {
	tr := f.c.Tr
	if f.byNet {
		if f.FeeKnown {
			return tr.F("withdrawal.to_the_recipient_leaves_the_wallet", c.amt.BRL(), c.Need.BRL())
		}
		return tr.F("withdrawal.to_the_recipient_plus_the_service", c.amt.BRL())
	}
	if f.FeeKnown && c.amt > f.fee {
		return tr.F("withdrawal.from_the_wallet_the_recipient_gets", c.amt.BRL(), (c.amt - f.fee).BRL())
	}
	return tr.F("withdrawal.from_the_wallet_the_service_s", c.amt.BRL())
}

// confirmDetail is the confirmation's second sentence: what the recipient gets and what leaves
// the wallet, as far as the fee is known.
func (f *Form) confirmDetail(c wdCheck) string {
	tr := f.c.Tr
	switch {
	case f.byNet && f.FeeKnown:
		return tr.F("withdrawal.the_recipient_gets_it_all_leaves", c.Need.BRL())
	case f.byNet:
		return tr.T("withdrawal.the_recipient_gets_it_all_the")
	case f.FeeKnown && c.amt > f.fee:
		return tr.F("withdrawal.it_leaves_the_wallet_the_recipient", (c.amt - f.fee).BRL())
	}
	return tr.T("withdrawal.it_leaves_the_wallet_the_service")
}

func (f *Form) submit() tea.Cmd {
	f.tried = true
	tr := f.c.Tr
	c := f.Check()
	if f.locked {
		// Ask again exactly as before: the balance already shows the first attempt's debit.
		big := api.Money(1 << 62)
		c = CheckWithdrawal(tr, f.input(), &big, f.fee, f.FeeKnown)
	}
	if i, fix := common.FixHighlighted(f.c, c.Errs[:], common.OwnerWithdrawal); !c.Ok && i >= 0 {
		f.setFocus(i)
		return fix
	}
	send := f.send(c)
	what, dest := f.confirmDetail(c), f.destination(c.Req)
	if f.production() {
		q := common.NewTypedConfirm(f.c, tr.F("withdrawal.production_withdraw_from_wallet_to_type", c.amt.BRL(), f.wallet, dest, what), c.amt, send)
		q.OnYes = f.startSending
		f.Ask(q)
		return clearOwned
	}
	q := common.NewConfirm(f.c, tr.F("withdrawal.withdraw_from_wallet_to_y_n", c.amt.BRL(), f.wallet, dest, what), send)
	q.OnYes = f.startSending
	f.Ask(q)
	return clearOwned
}

// clearOwned takes the form's complaint off the status line.
func clearOwned() tea.Msg { return common.StatusMsg{Owner: common.OwnerWithdrawal} }

func (f *Form) startSending() {
	f.sending = true
	f.Result = ""
}

// withdrawer sends a withdrawal (*workflow.Session does).
type withdrawer interface {
	Withdraw(ctx context.Context, o workflow.WithdrawalOrder, now func() time.Time) workflow.WithdrawalOutcome
}

// send runs the workflow in a command; the outcome comes back to this form by its key.
func (f *Form) send(c wdCheck) tea.Cmd {
	sess, t := f.c.App.Sess, f.c.App.Tag()
	o := workflow.WithdrawalOrder{Wallet: f.wallet, Req: c.Req, Key: f.Key, Spendable: f.spendable, ReadOnly: sess.ReadOnly}
	if f.FeeKnown {
		o.Fee = f.fee
	}
	now := f.c.Now
	var wd withdrawer = sess
	return f.c.App.WithTimeout(workflow.WithdrawalTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		return DoneMsg{tag: t, key: o.Key, out: wd.Withdraw(ctx, o, now)}
	})
}

// OnDone shows the outcome: taken closes the form (the status line, the balance and the next
// form's list say it, and the settling event is awaited); refused and unknown keep it open.
func (f *Form) OnDone(out workflow.WithdrawalOutcome) tea.Cmd {
	f.sending = false
	tr := f.c.Tr
	switch out.Kind {
	case workflow.WithdrawalDone:
		f.Close()
		r := out.Record
		text := tr.F("withdrawal.withdrawal_of_from_taken_by_the", r.Amount.BRL(), f.wallet)
		if r.State.Settled() {
			text = withdrawalSettledText(tr, r)
		}
		if out.Err != nil {
			text += " " + tr.F("withdrawal.it_could_not_be_saved_locally", common.LocalError(tr, out.Err))
		}
		wallet := f.wallet
		cmds := []tea.Cmd{
			func() tea.Msg {
				return common.StatusMsg{Text: text, Kind: common.StatusOK, Owner: common.OwnerWithdrawal}
			},
			func() tea.Msg { return common.WithdrawnMsg{Wallet: wallet} },
		}
		if !r.State.Settled() {
			cmds = append(cmds, f.await())
		}
		return tea.Batch(cmds...)
	case workflow.WithdrawalRefused:
		f.resultKind = common.StatusError
		var ae *api.Error
		if errors.As(out.Err, &ae) {
			f.Result = common.DescribeErr(tr, tr.T("withdrawal.withdrawal_refused"), out.Err) + " · " + tr.T("withdrawal.nothing_left_the_wallet_esc_closes")
			// Nothing was created: a corrected form is a new request with a new key.
			f.Key = f.c.NewKey()
		} else {
			f.Result = tr.F("withdrawal.not_sent", common.LocalError(tr, out.Err))
		}
	default:
		f.resultKind = common.StatusWarn
		f.locked = true
		f.Result = common.DescribeErr(tr, tr.T("withdrawal.the_withdrawal_s_outcome_is_unknown"), out.Err) + " · " +
			tr.T("withdrawal.it_may_have_been_taken_ctrl")
	}
	text, kind := f.Result, f.resultKind
	return tea.Batch(f.loadList(), func() tea.Msg { return common.StatusMsg{Text: text, Kind: kind, Owner: common.OwnerWithdrawal} })
}

// withdrawalSettledText says how a withdrawal ended.
func withdrawalSettledText(tr common.Catalog, r state.Withdrawal) string {
	switch r.State {
	case state.WithdrawalCompleted:
		return tr.F("withdrawal.withdrawal_of_to_completed", r.Amount.BRL(), common.MaskPixKey(r.PixKeyType, r.PixKey))
	case state.WithdrawalFailed:
		return tr.F("withdrawal.withdrawal_of_failed_the_money_went", r.Amount.BRL(), common.Sanitize(r.FailureReason))
	case state.WithdrawalReversed:
		return tr.F("withdrawal.withdrawal_of_was_reversed_the_money", r.Amount.BRL(), common.Sanitize(r.FailureReason))
	}
	return tr.F("withdrawal.withdrawal_of_is", r.Amount.BRL(), tr.T(string(r.State)))
}

// await waits for the event that settles the withdrawal and tells the wallets view.
func (f *Form) await() tea.Cmd {
	store, k, tr, now, wallet := f.c.App.Sess.Store, f.Key, f.c.Tr, f.c.Now, f.wallet
	if store == nil {
		return nil
	}
	return f.c.App.WithTimeout(withdrawalAwait, func(ctx context.Context) tea.Msg {
		r, err := workflow.AwaitWithdrawal(ctx, store, k, now)
		if err != nil {
			return common.WithdrawnMsg{Wallet: wallet, Kind: common.StatusInfo,
				Text: tr.T("withdrawal.no_completion_notice_yet_s_in")}
		}
		kind := common.StatusOK
		if r.State != state.WithdrawalCompleted {
			kind = common.StatusWarn
		}
		return common.WithdrawnMsg{Wallet: wallet, Text: withdrawalSettledText(tr, r), Kind: kind}
	})
}

// withdrawalStateCell is a withdrawal's state in the list.
func withdrawalStateCell(c *common.Common, s state.WithdrawalState) string {
	st, tr := c.St, c.Tr
	text := tr.T(string(s))
	switch s {
	case state.WithdrawalCompleted:
		return st.OK.Render("✓ " + text)
	case state.WithdrawalFailed, state.WithdrawalRefused:
		return st.Err.Render("✗ " + text)
	case state.WithdrawalReversed:
		return st.Warn.Render("↩ " + text)
	case state.WithdrawalUnknown, state.WithdrawalRequested:
		return st.Warn.Render("? " + text)
	}
	return st.Warn.Render("… " + text)
}

// View renders it at the size it was given; it changes nothing.
func (f *Form) View() string {
	st, tr := f.c.St, f.c.Tr
	w := max(min(f.width-6, 70), 30)
	c := f.Check()
	var b strings.Builder
	lines := 0
	emit := func(s string) {
		b.WriteString(s + "\n")
		lines++
	}
	title := tr.T("withdrawal.withdraw_to_a_bank_account_pix")
	if f.production() {
		title += " · " + tr.T("withdrawal.production_caps")
	}
	emit(st.Bold.Render(title))
	const lw = 11
	line := func(label, value string) {
		emit(common.TruncateWidth(st.Label.Render(common.PadRight(label, lw))+" "+value, w))
	}
	bal := st.Warn.Render(tr.T("withdrawal.unknown_r_in_the_wallets_view"))
	if f.spendable != nil {
		bal = st.Bold.Render(f.spendable.BRL()) + st.Muted.Render(" · "+tr.F("withdrawal.read_ago", common.HumanAge(f.c.Now().Sub(f.readAt))))
	}
	line(tr.T("withdrawal.wallet"), st.Value.Render(common.Sanitize(f.wallet))+" · "+tr.T("withdrawal.spendable")+bal)
	emit("")
	showErr := func(i int) {
		e := c.Errs[i]
		if e == "" || (!f.tried && strings.TrimSpace(f.Inputs[i].Value()) == "") || i == wfKeyType || i == wfMode {
			return
		}
		for j, l := range strings.Split(ansi.Wrap(common.Sanitize(e), w-lw-3, ""), "\n") {
			mark := "✗ "
			if j > 0 {
				mark = "  "
			}
			emit(common.Spaces(lw+1) + st.FieldErr.Render(mark+l))
		}
	}
	labels := [wfCount]string{tr.T("withdrawal.key_type"), tr.T("withdrawal.pix_key"), tr.T("withdrawal.holder"), tr.T("withdrawal.document"), tr.T("withdrawal.amount_is"), tr.T("withdrawal.amount")}
	for i := range wfCount {
		ls := st.FieldLabel
		if i == f.field {
			ls = st.FieldFocus
		}
		var val string
		switch i {
		case wfKeyType:
			val = "‹ " + pixKeyTypeLabel(tr, api.PixKeyTypes[f.keyType]) + " ›"
		case wfMode:
			val = "‹ " + tr.T("withdrawal.gross_what_leaves_the_wallet") + " ›"
			if f.byNet {
				val = "‹ " + tr.T("withdrawal.net_what_the_recipient_receives") + " ›"
			}
		default:
			val = f.Inputs[i].View()
		}
		emit(common.TruncateWidth(ls.Render(common.PadRight(labels[i], lw))+" "+val, w))
		showErr(i)
	}
	fee := tr.T("withdrawal.the_service_s_fee_not_known")
	if f.FeeKnown {
		fee = tr.F("withdrawal.the_last_withdrawal_s", f.fee.BRL())
	}
	line(tr.T("withdrawal.fee"), fee)
	if c.Errs[WfAmount] == "" {
		line("", f.amountText(c))
	}
	if f.sending {
		emit("")
		emit(st.Warn.Render(tr.T("withdrawal.sending_the_withdrawal")))
	}
	if f.Result != "" {
		sty := st.Err
		if f.resultKind == common.StatusWarn {
			sty = st.Warn
		}
		emit("")
		for _, l := range strings.Split(ansi.Wrap(f.Result, w, ""), "\n") {
			emit(sty.Render(l))
		}
	}
	// The wallet's withdrawals in the room left (the box's frame and the hint take 5 lines).
	room := min(f.height-lines-7, withdrawalListRows)
	if room >= 1 {
		emit("")
		head := tr.T("withdrawal.withdrawals_of_this_wallet")
		switch {
		case f.listErr != "":
			emit(common.TruncateWidth(st.Err.Render(f.listErr), w))
		case len(f.List) == 0:
			emit(st.Muted.Render(common.TruncateWidth(head+": "+tr.T("withdrawal.none_yet"), w)))
		default:
			emit(st.Muted.Render(common.TruncateWidth(head, w)))
			for _, r := range f.List[:min(len(f.List), max(room-1, 1))] {
				row := r.RequestedAt.In(f.c.Loc).Format("02/01 15:04") + " " + common.PadLeft(r.Amount.BRL(), 12) + "  " +
					common.PadRight(pixKeyTypeLabel(tr, r.PixKeyType)+" "+common.MaskPixKey(r.PixKeyType, r.PixKey), 26) + " " + withdrawalStateCell(f.c, r.State)
				emit(common.TruncateWidth(row, w))
			}
		}
	}
	hint := tr.T("withdrawal.ctrl_s_withdraw_tab_next_field")
	if f.locked {
		hint = tr.T("withdrawal.ctrl_s_asks_again_with_the")
	}
	b.WriteString("\n" + st.Muted.Render(common.TruncateWidth(hint, w)))
	box := st.Overlay
	if f.production() {
		box = st.ConfirmBox
	}
	return lipgloss.Place(f.width, f.height, lipgloss.Center, lipgloss.Center, box.Render(b.String()))
}

// ClockKey is what of the form changes with the clock (see common.Clocked): how long ago the
// spendable balance was read.
func (f *Form) ClockKey(now time.Time) string {
	if f.spendable == nil {
		return ""
	}
	return common.HumanAge(now.Sub(f.readAt))
}
