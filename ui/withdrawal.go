package ui

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
)

// The withdrawal of a wallet's balance to a bank account by PIX: s in the wallets view opens a
// form (key type and key, holder, gross or net amount) over the selected wallet, showing its
// spendable balance and its recent withdrawals; the confirmation names the amount and the
// destination (typed amount in production). The workflow (state/workflow/withdrawal.go)
// records the request before sending it with the Idempotency-Key minted when the form opened,
// and the status follows the withdrawal_completed / _failed / _reversed events.

// ownerWithdrawal owns the status messages of the withdrawal form.
const ownerWithdrawal = "withdrawal"

// withdrawalAwait is how long the dashboard waits for the event that settles a withdrawal.
const withdrawalAwait = 5 * time.Minute

// withdrawalListRows is how many of the wallet's withdrawals the form lists at most.
const withdrawalListRows = 5

// wdNameMax bounds the holder's name (the emulator's bound; the service documents none).
const wdNameMax = 255

// withdrawalDoneMsg is the workflow's outcome, for the form that sent it (matched by key).
type withdrawalDoneMsg struct {
	tag tag
	key string
	out workflow.WithdrawalOutcome
}

// withdrawalListMsg is the wallet's withdrawals, for the form that asked (matched by key).
type withdrawalListMsg struct {
	key  string
	list []state.Withdrawal
	err  error
}

// withdrawnMsg tells the wallets view that a withdrawal moved a wallet's balance (taken,
// settled): it reads the balance again and shows text on the status line.
type withdrawnMsg struct {
	wallet string
	text   string
	kind   statusKind
}

func (withdrawnMsg) replyTo() viewID { return viewWallets }

// Fields of the withdrawal form.
const (
	wfKeyType = iota
	wfKey
	wfName
	wfDoc
	wfMode
	wfAmount
	wfCount
)

// wdInput is the form as typed.
type wdInput struct {
	keyType api.PixKeyType
	key     string
	name    string
	doc     string
	byNet   bool
	amount  string
}

// wdCheck is what checkWithdrawal makes of the form: the request (when every field is right),
// each field's problem, and what the withdrawal takes from the wallet.
type wdCheck struct {
	req  api.CreateWithdrawalRequest
	errs [wfCount]string
	amt  api.Money // the amount as typed (gross or net)
	need api.Money // what leaves the wallet (net + the fee when known)
	ok   bool
}

// pixKeyTypeLabel names a key type for the merchant.
func pixKeyTypeLabel(tr catalog, t api.PixKeyType) string {
	switch t {
	case api.PixKeyCPF:
		return "CPF"
	case api.PixKeyCNPJ:
		return "CNPJ"
	case api.PixKeyEmail:
		return tr.T("e-mail")
	case api.PixKeyPhone:
		return tr.T("phone")
	case api.PixKeyRandom:
		return tr.T("random key")
	}
	return sanitize(string(t))
}

// checkPixKey checks a PIX key for its type with api/brdoc and returns it as the service takes
// it: a CPF as 11 digits and a CNPJ as 14 characters (alphanumeric ones upper-cased), both with
// their check digits right, an e-mail address, a Brazilian phone as +55, the area code (DDD)
// and the number, a random key as a lower-case UUID.
func checkPixKey(tr catalog, t api.PixKeyType, s string) (string, error) {
	k, err := brdoc.PixKey(brdoc.KeyType(t), s)
	if errors.Is(err, brdoc.ErrEmailKeyLong) {
		n := utf8.RuneCountInString(strings.TrimSpace(s))
		return "", fmt.Errorf(tr.T("at most %d characters (now %d)"), brdoc.EmailKeyMax, n)
	}
	if err != nil {
		return "", brdocError(tr, err)
	}
	return k, nil
}

// checkWithdrawal checks the whole form: the key for its type, the holder's name and document
// (CPF or CNPJ by its check digits), the amount (at most 2 decimals, at least R$ 1,00) against
// the spendable balance (nil: unknown) with the fee last seen (feeKnown) for a net amount.
func checkWithdrawal(tr catalog, in wdInput, spendable *api.Money, fee api.Money, feeKnown bool) wdCheck {
	var c wdCheck
	if !in.keyType.Known() {
		c.errs[wfKeyType] = tr.T("choose the key type")
	}
	pk, err := checkPixKey(tr, in.keyType, in.key)
	if err != nil {
		c.errs[wfKey] = err.Error()
	}
	name := strings.TrimSpace(in.name)
	switch {
	case name == "":
		c.errs[wfName] = tr.T("required")
	case utf8.RuneCountInString(name) > wdNameMax:
		c.errs[wfName] = fmt.Sprintf(tr.T("at most %d characters (now %d)"), wdNameMax, utf8.RuneCountInString(name))
	}
	doc, kind, err := checkDocument(tr, in.doc)
	docType := api.DocumentCPF
	switch {
	case strings.TrimSpace(in.doc) == "":
		c.errs[wfDoc] = tr.T("required")
	case err != nil:
		c.errs[wfDoc] = err.Error()
	case kind == brdoc.CNPJ:
		docType = api.DocumentCNPJ
	}
	amt, err := api.ParseBRL(in.amount)
	switch {
	case strings.TrimSpace(in.amount) == "":
		c.errs[wfAmount] = tr.T("required")
	case err != nil:
		c.errs[wfAmount] = amountError(tr, err).Error()
	case amt < api.MinWithdrawalAmount:
		c.errs[wfAmount] = tr.F("At least %s.", api.MinWithdrawalAmount.BRL())
	}
	c.amt, c.need = amt, amt
	if in.byNet && feeKnown {
		c.need = amt + fee
	}
	if c.errs[wfAmount] == "" {
		switch {
		case spendable == nil:
			c.errs[wfAmount] = tr.T("The spendable balance is not known yet; r in the wallets view reads it.")
		case c.need > *spendable && in.byNet && feeKnown:
			c.errs[wfAmount] = tr.F("%s with the fee is more than the spendable %s.", c.need.BRL(), spendable.BRL())
		case c.need > *spendable:
			c.errs[wfAmount] = tr.F("More than the spendable %s.", spendable.BRL())
		}
	}
	c.ok = true
	for _, e := range c.errs {
		if e != "" {
			c.ok = false
		}
	}
	if c.ok {
		a := amt
		c.req = api.CreateWithdrawalRequest{PixKey: pk, PixKeyType: in.keyType, HolderName: name, HolderDocument: doc, HolderDocumentType: docType}
		if in.byNet {
			c.req.NetAmount = &a
		} else {
			c.req.Amount = &a
		}
	}
	return c
}

// maskPixKey hides most of a PIX key the way documents are hidden: CPF and CNPJ keys as
// documents, a phone with its last 4 digits, an e-mail with the first letter and the domain,
// a random key with its first and last 4 characters.
func maskPixKey(t api.PixKeyType, k string) string {
	k = sanitize(k)
	switch t {
	case api.PixKeyCPF, api.PixKeyCNPJ:
		return maskDocument(k)
	case api.PixKeyPhone:
		d := strings.TrimPrefix(onlyDigits(k), "55")
		if len(d) <= 4 {
			return "+55 " + strings.Repeat("*", len(d))
		}
		return "+55 " + strings.Repeat("*", len(d)-4) + d[len(d)-4:]
	case api.PixKeyEmail:
		at := strings.LastIndexByte(k, '@')
		if at <= 0 {
			return "***"
		}
		r, _ := utf8.DecodeRuneInString(k)
		return string(r) + "***" + k[at:]
	case api.PixKeyRandom:
		if len(k) > 8 {
			return k[:4] + "…" + k[len(k)-4:]
		}
	}
	return strings.Repeat("*", utf8.RuneCountInString(k))
}

// askWithdrawal is what s does on a wallet: the form, or a status line saying why not.
func askWithdrawal(c *common, wallet string, spendable *api.Money, readAt time.Time) (overlay, tea.Cmd) {
	if c.app.sess.ReadOnly {
		return nil, answerStatus(c.tr.T("This profile is read-only: withdrawals are disabled (read_only = true)."), statusWarn)
	}
	return newWithdrawalForm(c, wallet, spendable, readAt), nil
}

// withdrawalForm is the withdrawal overlay.
type withdrawalForm struct {
	closer
	c         *common
	wallet    string
	spendable *api.Money
	readAt    time.Time
	// key is minted when the form opens and kept by every retry.
	key      string
	keyType  int // index in api.PixKeyTypes
	byNet    bool
	inputs   [wfCount]textinput.Model
	field    int
	tried    bool
	fee      api.Money
	feeKnown bool
	list     []state.Withdrawal
	listErr  string
	sending  bool
	// locked: the outcome of a request is unknown; the same body is asked again (ctrl+s) or
	// the form is closed, never edited.
	locked     bool
	result     string
	resultKind statusKind
	width      int
	height     int
}

func newWithdrawalForm(c *common, wallet string, spendable *api.Money, readAt time.Time) *withdrawalForm {
	f := &withdrawalForm{c: c, wallet: state.NormalizeWallet(wallet), spendable: spendable, readAt: readAt, key: c.newKey(), keyType: 2}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	f.inputs[wfKey] = mk(c.tr.T("the recipient's PIX key"), 80)
	f.inputs[wfName] = mk(c.tr.T("as the bank knows them"), wdNameMax+10)
	f.inputs[wfDoc] = mk("CPF / CNPJ", 20)
	f.inputs[wfAmount] = mk("12,34", 20)
	f.setFocus(wfKey)
	return f
}

func (f *withdrawalForm) layer() layer       { return layerFloat }
func (f *withdrawalForm) setSize(w, h int)   { f.width, f.height = w, h }
func (f *withdrawalForm) blur()              {}
func (f *withdrawalForm) capturesText() bool { return true }
func (f *withdrawalForm) production() bool   { return f.c.app.sess.Env == api.Production }
func (f *withdrawalForm) quitQuestion() string {
	if f.sending {
		return f.c.tr.T("A withdrawal is being sent; quit anyway? Its outcome is looked up by its key when pixdash opens again; nothing is sent twice. (y/N)")
	}
	return ""
}

// statusOwner: the form's messages go when it closes.
func (f *withdrawalForm) statusOwner() string { return ownerWithdrawal }

// dirty reports whether something was typed that esc would throw away (a request whose outcome
// is unknown is not: its fields cannot change and its key is looked up again).
func (f *withdrawalForm) dirty() bool {
	if f.locked {
		return false
	}
	for _, in := range f.inputs {
		if strings.TrimSpace(in.Value()) != "" {
			return true
		}
	}
	return false
}

// focus reads the wallet's withdrawals (and the fee the last one reported).
func (f *withdrawalForm) focus() tea.Cmd { return f.loadList() }

func (f *withdrawalForm) loadList() tea.Cmd {
	s, k, w, now := f.c.app.sess.Store, f.key, f.wallet, f.c.now
	if s == nil {
		return nil
	}
	return f.c.app.withTimeout(persistTimout, func(ctx context.Context) tea.Msg {
		list, err := workflow.ListWithdrawals(ctx, s, w, withdrawalListRows*4, now)
		return withdrawalListMsg{key: k, list: list, err: err}
	})
}

func (f *withdrawalForm) setFocus(i int) {
	for j := range f.inputs {
		f.inputs[j].Blur()
	}
	f.field = i
	if i != wfKeyType && i != wfMode {
		f.inputs[i].Focus()
	}
}

// ShortHelp lists the form's keys.
func (f *withdrawalForm) ShortHelp() []key.Binding {
	k := f.c.keys
	choose := key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", f.c.tr.T("choose")))
	return []key.Binding{k.Submit, k.NextField, choose, k.Back}
}

// FullHelp lists the form's keys.
func (f *withdrawalForm) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

func (f *withdrawalForm) input() wdInput {
	return wdInput{keyType: api.PixKeyTypes[f.keyType], key: f.inputs[wfKey].Value(), name: f.inputs[wfName].Value(),
		doc: f.inputs[wfDoc].Value(), byNet: f.byNet, amount: f.inputs[wfAmount].Value()}
}

func (f *withdrawalForm) check() wdCheck {
	return checkWithdrawal(f.c.tr, f.input(), f.spendable, f.fee, f.feeKnown)
}

func (f *withdrawalForm) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case withdrawalListMsg:
		if msg.key != f.key {
			return nil
		}
		f.list, f.listErr = msg.list, ""
		if msg.err != nil {
			f.listErr = describeErr(f.c.tr, f.c.tr.T("withdrawals"), msg.err)
		}
		for _, w := range msg.list {
			if w.State.Taken() && w.ID != "" {
				f.fee, f.feeKnown = w.Fee, true
				break
			}
		}
		return nil
	case withdrawalDoneMsg:
		if msg.key != f.key || f.c.app.stale(msg.tag) {
			return nil
		}
		return f.onDone(msg.out)
	case tea.KeyMsg:
		return f.handleKey(msg)
	}
	return nil
}

func (f *withdrawalForm) handleKey(km tea.KeyMsg) tea.Cmd {
	nav := moneyForm{c: f.c, owner: ownerWithdrawal, busy: f.c.tr.T("The withdrawal is being sent; wait for the answer."),
		field: f.field, count: wfCount, setFocus: f.setFocus, close: f.close, submit: f.submit,
		dirty: f.dirty(), discard: f.c.tr.T("Discard this withdrawal? Nothing was sent. (y/N)"), ask: f.ask}
	if cmd, ok := formKeys(nav, km, f.sending); ok {
		return cmd
	}
	if f.locked {
		text := f.c.tr.T("The first request may have landed: ctrl+s asks again with the same key; esc closes. The fields cannot change.")
		return func() tea.Msg { return statusMsg{text: text, kind: statusWarn, owner: ownerWithdrawal} }
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
	f.inputs[f.field], cmd = f.inputs[f.field].Update(km)
	return cmd
}

// destination names where the money goes, masked: the key's type and key, the holder and
// their document.
func (f *withdrawalForm) destination(r api.CreateWithdrawalRequest) string {
	tr := f.c.tr
	return tr.F("%s key %s (%s, %s)", pixKeyTypeLabel(tr, r.PixKeyType), maskPixKey(r.PixKeyType, r.PixKey),
		sanitize(r.HolderName), maskDocument(r.HolderDocument))
}

// amountText says what is withdrawn: the gross amount, or the net amount the recipient gets.
func (f *withdrawalForm) amountText(c wdCheck) string {
	tr := f.c.tr
	if f.byNet {
		if f.feeKnown {
			return tr.F("%s to the recipient (%s leaves the wallet with the fee)", c.amt.BRL(), c.need.BRL())
		}
		return tr.F("%s to the recipient (plus the service's fee)", c.amt.BRL())
	}
	if f.feeKnown && c.amt > f.fee {
		return tr.F("%s from the wallet (the recipient gets %s after the fee)", c.amt.BRL(), (c.amt - f.fee).BRL())
	}
	return tr.F("%s from the wallet (the service's fee is taken from it)", c.amt.BRL())
}

// confirmDetail is the confirmation's second sentence: what the recipient gets and what leaves
// the wallet, as far as the fee is known.
func (f *withdrawalForm) confirmDetail(c wdCheck) string {
	tr := f.c.tr
	switch {
	case f.byNet && f.feeKnown:
		return tr.F("The recipient gets it all; %s leaves the wallet with the fee.", c.need.BRL())
	case f.byNet:
		return tr.T("The recipient gets it all; the service's fee leaves the wallet too.")
	case f.feeKnown && c.amt > f.fee:
		return tr.F("It leaves the wallet; the recipient gets %s after the fee.", (c.amt - f.fee).BRL())
	}
	return tr.T("It leaves the wallet; the service's fee is taken from it.")
}

func (f *withdrawalForm) submit() tea.Cmd {
	f.tried = true
	tr := f.c.tr
	c := f.check()
	if f.locked {
		// Ask again exactly as before: the balance already shows the first attempt's debit.
		big := api.Money(1 << 62)
		c = checkWithdrawal(tr, f.input(), &big, f.fee, f.feeKnown)
	}
	if !c.ok {
		for i, e := range c.errs {
			if e != "" {
				f.setFocus(i)
				break
			}
		}
		text := tr.T("Fix the highlighted fields; nothing was sent.")
		return func() tea.Msg { return statusMsg{text: text, kind: statusError, owner: ownerWithdrawal} }
	}
	send := f.send(c)
	what, dest := f.confirmDetail(c), f.destination(c.req)
	if f.production() {
		q := newTypedConfirm(f.c, tr.F("PRODUCTION: withdraw %s from wallet %s to %s? %s Type the amount to confirm.", c.amt.BRL(), f.wallet, dest, what), c.amt, send)
		q.onYes = f.startSending
		f.ask(q)
		return clearOwned
	}
	q := newConfirm(f.c, tr.F("Withdraw %s from wallet %s to %s? %s (y/N)", c.amt.BRL(), f.wallet, dest, what), send)
	q.onYes = f.startSending
	f.ask(q)
	return clearOwned
}

// clearOwned takes the form's complaint off the status line.
func clearOwned() tea.Msg { return statusMsg{owner: ownerWithdrawal} }

func (f *withdrawalForm) startSending() {
	f.sending = true
	f.result = ""
}

// withdrawer sends a withdrawal (*workflow.Session does).
type withdrawer interface {
	Withdraw(ctx context.Context, o workflow.WithdrawalOrder, now func() time.Time) workflow.WithdrawalOutcome
}

// send runs the workflow in a command; the outcome comes back to this form by its key.
func (f *withdrawalForm) send(c wdCheck) tea.Cmd {
	sess, t := f.c.app.sess, f.c.app.tag()
	o := workflow.WithdrawalOrder{Wallet: f.wallet, Req: c.req, Key: f.key, Spendable: f.spendable, ReadOnly: sess.ReadOnly}
	if f.feeKnown {
		o.Fee = f.fee
	}
	now := f.c.now
	var wd withdrawer = sess
	return f.c.app.withTimeout(workflow.WithdrawalTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		return withdrawalDoneMsg{tag: t, key: o.Key, out: wd.Withdraw(ctx, o, now)}
	})
}

// onDone shows the outcome: taken closes the form (the status line, the balance and the next
// form's list say it, and the settling event is awaited); refused and unknown keep it open.
func (f *withdrawalForm) onDone(out workflow.WithdrawalOutcome) tea.Cmd {
	f.sending = false
	tr := f.c.tr
	switch out.Kind {
	case workflow.WithdrawalDone:
		f.close()
		r := out.Record
		text := tr.F("Withdrawal of %s from %s taken by the service (pending); its completion notice will confirm it.", r.Amount.BRL(), f.wallet)
		if r.State.Settled() {
			text = withdrawalSettledText(tr, r)
		}
		if out.Err != nil {
			text += " " + tr.F("It could not be saved locally: %s", localError(tr, out.Err))
		}
		wallet := f.wallet
		cmds := []tea.Cmd{
			func() tea.Msg { return statusMsg{text: text, kind: statusOK, owner: ownerWithdrawal} },
			func() tea.Msg { return withdrawnMsg{wallet: wallet} },
		}
		if !r.State.Settled() {
			cmds = append(cmds, f.await())
		}
		return tea.Batch(cmds...)
	case workflow.WithdrawalRefused:
		f.resultKind = statusError
		var ae *api.Error
		if errors.As(out.Err, &ae) {
			f.result = describeErr(tr, tr.T("Withdrawal refused"), out.Err) + " · " + tr.T("Nothing left the wallet; esc closes.")
			// Nothing was created: a corrected form is a new request with a new key.
			f.key = f.c.newKey()
		} else {
			f.result = tr.F("Not sent: %s", localError(tr, out.Err))
		}
	default:
		f.resultKind = statusWarn
		f.locked = true
		f.result = describeErr(tr, tr.T("The withdrawal's outcome is unknown"), out.Err) + " · " +
			tr.T("It may have been taken. ctrl+s asks again with the same key: the service answers the first request, nothing is sent twice.")
	}
	text, kind := f.result, f.resultKind
	return tea.Batch(f.loadList(), func() tea.Msg { return statusMsg{text: text, kind: kind, owner: ownerWithdrawal} })
}

// withdrawalSettledText says how a withdrawal ended.
func withdrawalSettledText(tr catalog, r state.Withdrawal) string {
	switch r.State {
	case state.WithdrawalCompleted:
		return tr.F("Withdrawal of %s to %s completed.", r.Amount.BRL(), maskPixKey(r.PixKeyType, r.PixKey))
	case state.WithdrawalFailed:
		return tr.F("Withdrawal of %s failed: %s. The money went back to the wallet.", r.Amount.BRL(), sanitize(r.FailureReason))
	case state.WithdrawalReversed:
		return tr.F("Withdrawal of %s was reversed: %s. The money came back to the wallet.", r.Amount.BRL(), sanitize(r.FailureReason))
	}
	return tr.F("Withdrawal of %s is %s.", r.Amount.BRL(), tr.T(string(r.State)))
}

// await waits for the event that settles the withdrawal and tells the wallets view.
func (f *withdrawalForm) await() tea.Cmd {
	store, k, tr, now, wallet := f.c.app.sess.Store, f.key, f.c.tr, f.c.now, f.wallet
	if store == nil {
		return nil
	}
	return f.c.app.withTimeout(withdrawalAwait, func(ctx context.Context) tea.Msg {
		r, err := workflow.AwaitWithdrawal(ctx, store, k, now)
		if err != nil {
			return withdrawnMsg{wallet: wallet, kind: statusInfo,
				text: tr.T("No completion notice yet; s in the wallets view lists the wallet's withdrawals.")}
		}
		kind := statusOK
		if r.State != state.WithdrawalCompleted {
			kind = statusWarn
		}
		return withdrawnMsg{wallet: wallet, text: withdrawalSettledText(tr, r), kind: kind}
	})
}

// withdrawalStateCell is a withdrawal's state in the list.
func withdrawalStateCell(c *common, s state.WithdrawalState) string {
	st, tr := c.st, c.tr
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

func (f *withdrawalForm) view() string {
	st, tr := f.c.st, f.c.tr
	w := max(min(f.width-6, 70), 30)
	c := f.check()
	var b strings.Builder
	lines := 0
	emit := func(s string) {
		b.WriteString(s + "\n")
		lines++
	}
	title := tr.T("Withdraw to a bank account (PIX)")
	if f.production() {
		title += " · " + tr.T("PRODUCTION")
	}
	emit(st.Bold.Render(title))
	const lw = 11
	line := func(label, value string) {
		emit(truncateWidth(st.Label.Render(padRight(label, lw))+" "+value, w))
	}
	bal := st.Warn.Render(tr.T("unknown: r in the wallets view reads it"))
	if f.spendable != nil {
		bal = st.Bold.Render(f.spendable.BRL()) + st.Muted.Render(" · "+tr.F("read %s ago", humanDuration(f.c.now().Sub(f.readAt))))
	}
	line(tr.T("Wallet"), st.Value.Render(sanitize(f.wallet))+" · "+tr.T("spendable ")+bal)
	emit("")
	showErr := func(i int) {
		e := c.errs[i]
		if e == "" || (!f.tried && strings.TrimSpace(f.inputs[i].Value()) == "") || i == wfKeyType || i == wfMode {
			return
		}
		for j, l := range strings.Split(ansi.Wrap(sanitize(e), w-lw-3, ""), "\n") {
			mark := "✗ "
			if j > 0 {
				mark = "  "
			}
			emit(spaces(lw+1) + st.FieldErr.Render(mark+l))
		}
	}
	labels := [wfCount]string{tr.T("Key type"), tr.T("PIX key"), tr.T("Holder"), tr.T("Document"), tr.T("Amount is"), tr.T("Amount")}
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
			val = "‹ " + tr.T("gross: what leaves the wallet") + " ›"
			if f.byNet {
				val = "‹ " + tr.T("net: what the recipient receives") + " ›"
			}
		default:
			val = f.inputs[i].View()
		}
		emit(truncateWidth(ls.Render(padRight(labels[i], lw))+" "+val, w))
		showErr(i)
	}
	fee := tr.T("the service's fee (not known yet: no withdrawal seen)")
	if f.feeKnown {
		fee = tr.F("%s (the last withdrawal's)", f.fee.BRL())
	}
	line(tr.T("Fee"), fee)
	if c.errs[wfAmount] == "" {
		line("", f.amountText(c))
	}
	if f.sending {
		emit("")
		emit(st.Warn.Render(tr.T("Sending the withdrawal…")))
	}
	if f.result != "" {
		sty := st.Err
		if f.resultKind == statusWarn {
			sty = st.Warn
		}
		emit("")
		for _, l := range strings.Split(ansi.Wrap(f.result, w, ""), "\n") {
			emit(sty.Render(l))
		}
	}
	// The wallet's withdrawals in the room left (the box's frame and the hint take 5 lines).
	room := min(f.height-lines-7, withdrawalListRows)
	if room >= 1 {
		emit("")
		head := tr.T("Withdrawals of this wallet")
		switch {
		case f.listErr != "":
			emit(truncateWidth(st.Err.Render(f.listErr), w))
		case len(f.list) == 0:
			emit(st.Muted.Render(truncateWidth(head+": "+tr.T("none yet"), w)))
		default:
			emit(st.Muted.Render(truncateWidth(head, w)))
			for _, r := range f.list[:min(len(f.list), max(room-1, 1))] {
				row := r.RequestedAt.In(f.c.loc).Format("02/01 15:04") + " " + padLeft(r.Amount.BRL(), 12) + "  " +
					padRight(pixKeyTypeLabel(tr, r.PixKeyType)+" "+maskPixKey(r.PixKeyType, r.PixKey), 26) + " " + withdrawalStateCell(f.c, r.State)
				emit(truncateWidth(row, w))
			}
		}
	}
	hint := tr.T("ctrl+s withdraw · tab next field · ←/→ choose · esc close")
	if f.locked {
		hint = tr.T("ctrl+s asks again with the same key · esc close")
	}
	b.WriteString("\n" + st.Muted.Render(truncateWidth(hint, w)))
	box := st.Overlay
	if f.production() {
		box = st.ConfirmBox
	}
	return lipgloss.Place(f.width, f.height, lipgloss.Center, lipgloss.Center, box.Render(b.String()))
}
