// Package wallets is the dashboard's wallets view: the account's wallets and their balances.
package wallets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/ui/common"
)

// Wallet view pacing.
const (
	// walletsRefreshAfter: showing the view again reloads data older than this.
	walletsRefreshAfter = 30 * time.Second
	// walletsStaleAfter: past this age the "updated … ago" note turns into a warning.
	walletsStaleAfter = 2 * time.Minute
	// walletsRefMax is how many characters the reference field accepts (the spec allows 32;
	// a few more let "too long" be explained instead of silently cut).
	walletsRefMax = 40
)

// ListMsg is the reply of GET /sub-accounts.
type ListMsg struct {
	Tag  common.Tag
	Seq  uint64
	Subs []api.SubAccount
	Err  error
}

// BalanceMsg is the reply of GET /account for one wallet.
type BalanceMsg struct {
	Tag common.Tag
	Ref string
	Req uint64
	Acc *api.Account
	Err error
	// OnSwitch: the wallet was just made active; a refusal goes to the status line.
	OnSwitch bool
}

// CreatedMsg is the reply of POST /sub-accounts.
type CreatedMsg struct {
	Tag common.Tag
	Ref string
	Sub *api.SubAccount
	Err error
}

// walletsService is what the wallets view asks the service through the session
// (*workflow.Session does): the sub-account list, a new sub-account, a wallet's balance (at
// most workflow.MaxBalanceReads in flight).
type walletsService interface {
	ListSubAccounts(ctx context.Context) ([]api.SubAccount, error)
	CreateSubAccount(ctx context.Context, reference, name string) (*api.SubAccount, error)
	Balance(ctx context.Context, wallet string) (*api.Account, error)
}

// walletRow is one wallet of the list.
type walletRow struct {
	Ref     string
	name    string
	status  api.SubAccountStatus
	id      string
	created time.Time
	// main is the main account (principal); fromConfig is the profile's default wallet that
	// GET /sub-accounts did not list.
	main, fromConfig bool
}

// walletBalance is the last GET /account of one wallet.
type walletBalance struct {
	Loading bool
	Req     uint64 // only the reply to this request is kept
	Done    bool   // a reply arrived at least once
	Bal     api.AccountBalance
	status  api.AccountStatus // the account's status as GET /account gave it ("" when not sent)
	err     error
	at      time.Time
}

// subAccountForm is the inline "create sub-account" form.
type subAccountForm struct {
	Ref, name  textinput.Model
	focus      int // 0 reference, 1 name
	touched    [2]bool
	Server     [2]string // the service's refusal, next to its field until the field changes
	err        string    // a refusal that names no field
	tried      bool
	confirming bool // production: waiting for y
	Sending    bool
}

// View lists the main account and its sub-accounts with their balances, makes one active,
// creates sub-accounts and feeds the quick wallet picker (w).
type View struct {
	common.List[string, uint64, walletRow]
	common.Asker // the withdrawal form s opens
	c            *common.Common
	Subs         []api.SubAccount
	Rows         common.SliceRows[walletRow]
	ver          uint64 // changes with every message: the rows' cache stamp
	Bals         map[string]*walletBalance
	Loaded       bool // the list arrived at least once
	Loading      bool
	Seq          uint64 // only the reply to the latest list request is kept
	nextReq      uint64
	err          error // the last list refusal (nil after a success)
	loadedAt     time.Time
	placed       bool   // the cursor was put on the active wallet once
	want         string // select this reference when it appears
	width        int    // the view's; the list has the lines its frame leaves (see frame)
	height       int
	enterKey     key.Binding
	Form         *subAccountForm
}

// NewWalletsView makes the wallets view.
func NewWalletsView(c *common.Common) *View {
	v := &View{
		c:        c,
		Bals:     map[string]*walletBalance{},
		enterKey: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", c.Tr.T("wallets.make_active"))),
	}
	v.List = common.NewList[string, uint64](&v.Rows, func(r *walletRow) string { return r.Ref })
	tr := c.Tr
	// Wider screens widen the name to 20 and the status to 19, then add the total and the
	// promotional balance (the detail lines always show all four), then the creation date.
	v.SetColumns([]common.Column{
		{Width: 2}, // the cursor's and the active wallet's marks
		{Title: tr.T("wallets.reference_caps"), Width: 18},
		{Title: tr.T("wallets.name_caps"), Width: 8, Fill: 1, Wide: 20, WidePriority: 6},
		{Title: tr.T("wallets.status_caps"), Width: 12, Wide: 19, WidePriority: 5},
		{Title: tr.T("wallets.available_caps"), Width: 14, Right: true, Priority: 8},
		{Title: tr.T("wallets.held_caps"), Width: 12, Right: true, Priority: 7},
		{Title: tr.T("wallets.promotional_caps"), Width: 12, Right: true, Priority: 3},
		{Title: tr.T("wallets.total_caps"), Width: 14, Right: true, Priority: 4},
		{Title: tr.T("wallets.created_caps"), Width: 10, Priority: 2},
	})
	v.rebuild()
	return v
}

// Title is the tab title.
func (v *View) Title() string { return v.c.Tr.T("wallets.wallets") }

// CapturesText reports whether the create form has the keyboard.
func (v *View) CapturesText() bool { return v.Form != nil }

// SetSize gives it its room in cells.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	if v.Form != nil {
		v.sizeForm()
	}
	v.place()
	return nil
}

func (v *View) inputWidth() int { return min(max(v.width/3, 12), 32) }

func (v *View) sizeForm() {
	// A text input draws one cell more than its width (the cursor).
	iw := v.inputWidth() - 1
	v.Form.Ref.Width = iw
	v.Form.name.Width = iw
}

// Focus loads the list the first time, and again when it is old.
// focus gives the view the keyboard back; it reads nothing.
func (v *View) Focus() tea.Cmd { return nil }

// Start reads the wallets when they were never read or are old.
func (v *View) Start() tea.Cmd {
	switch {
	case v.Loading:
		return nil
	case !v.Loaded, v.c.Now().Sub(v.loadedAt) > walletsRefreshAfter:
		return v.Reload()
	}
	return nil
}

// Blur keeps the view as it is: it shows the same rows when it comes back.
func (v *View) Blur() {}

// Load starts loading the list unless it is loaded or on its way (the quick picker calls it).
func (v *View) Load() tea.Cmd {
	if v.Loaded || v.Loading {
		return nil
	}
	return v.Reload()
}

// LoadErr is the last list refusal, for the quick picker.
func (v *View) LoadErr() string {
	if v.err == nil {
		return ""
	}
	return common.DescribeErr(v.c.Tr, v.c.Tr.T("wallets.load_wallets"), v.err)
}

// PickerItems are the quick picker's choices: principal first, then the sub-accounts; the bool says
// whether the list has loaded at least once.
func (v *View) PickerItems() ([]common.PickerItem, bool) {
	tr := v.c.Tr
	items := make([]common.PickerItem, 0, len(v.Rows))
	for _, r := range v.Rows {
		st, _ := v.StatusText(r)
		note := v.RowName(r)
		if st != "" {
			note += " · " + st
		}
		// The reference came from the service: flattened for the screen, kept as is for the switch.
		it := common.PickerItem{Label: common.Sanitize(r.Ref), Value: r.Ref, Note: note, Current: r.Ref == v.c.App.Wallet}
		if v.IsSuspended(r) {
			it.Disabled = tr.F("wallets.is_suspended_sub_account_suspended_it", r.Ref)
		}
		items = append(items, it)
	}
	return items, v.Loaded
}

// Reload asks for the sub-account list; the balances follow when it arrives.
func (v *View) Reload() tea.Cmd {
	v.Loading = true
	v.Seq++
	var wa walletsService = v.c.App.Sess
	t, seq := v.c.App.Tag(), v.Seq
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		subs, err := wa.ListSubAccounts(ctx)
		return ListMsg{Tag: t, Seq: seq, Subs: subs, Err: err}
	})
}

// BalanceCmd reads one wallet's balance (the session bounds the reads in flight).
func (v *View) BalanceCmd(ref string, onSwitch bool) tea.Cmd {
	b := v.Bals[ref]
	if b == nil {
		b = &walletBalance{}
		v.Bals[ref] = b
	}
	v.nextReq++
	b.Req, b.Loading = v.nextReq, true
	var wa walletsService = v.c.App.Sess
	t, req := v.c.App.Tag(), v.nextReq
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		acc, err := wa.Balance(ctx, ref)
		return BalanceMsg{Tag: t, Ref: ref, Req: req, Acc: acc, Err: err, OnSwitch: onSwitch}
	})
}

// loadBalances asks for every listed wallet's balance.
func (v *View) loadBalances() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(v.Rows))
	for _, r := range v.Rows {
		cmds = append(cmds, v.BalanceCmd(r.Ref, false))
	}
	return tea.Batch(cmds...)
}

// rebuild makes the rows: principal, the listed sub-accounts, then the configured wallet if
// unlisted. The cursor stays on its wallet, or goes to the one asked for (want).
func (v *View) rebuild() {
	rows := make([]walletRow, 0, len(v.Subs)+2)
	rows = append(rows, walletRow{Ref: api.WalletPrincipal, main: true})
	seen := map[string]bool{api.WalletPrincipal: true}
	for _, s := range v.Subs {
		if seen[s.Reference] {
			continue
		}
		seen[s.Reference] = true
		rows = append(rows, walletRow{Ref: s.Reference, name: s.Name, status: s.Status, id: s.ID, created: s.CreatedAt})
	}
	if cfg := v.c.App.Sess.Wallet; cfg != "" && !seen[cfg] {
		rows = append(rows, walletRow{Ref: cfg, fromConfig: true})
	}
	restore := v.Hold()
	v.Rows = rows
	restore()
	if v.want != "" {
		if i := v.Find(v.want, -1); i >= 0 {
			v.Cursor, v.want = i, ""
			v.Scroll()
		}
	}
}

// IsSuspended reports whether the wallet is suspended: the list says so, GET /account says the sub-account's account is suspended, or
// the wallet's own calls are refused as suspended. The main account is never refused here (the
// dashboard must always be able to return to it); an unknown status is left to the service.
func (v *View) IsSuspended(r walletRow) bool {
	if r.main {
		return false
	}
	if r.status == api.SubAccountSuspended {
		return true
	}
	b := v.Bals[r.Ref]
	if b != nil && b.err == nil && b.status == api.AccountSuspended {
		return true
	}
	return b != nil && b.err != nil && errors.Is(b.err, api.ErrSubAccountSuspended)
}

// accountStatus is the wallet's account status from its last GET /account ("" when unknown).
func (v *View) accountStatus(ref string) api.AccountStatus {
	if b := v.Bals[ref]; b != nil && b.Done && b.err == nil {
		return b.status
	}
	return ""
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(common.EventMsg); ok {
		return nil // webhook events are not the wallets' (issue 27: no work per event)
	}
	v.ver++
	cmd := v.handle(msg)
	v.place()
	return cmd
}

func (v *View) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.Form != nil {
			return v.formKey(msg)
		}
		return v.listKey(msg)
	case ListMsg:
		return v.onList(msg)
	case BalanceMsg:
		return v.onBalance(msg)
	case CreatedMsg:
		return v.onCreated(msg)
	case common.WithdrawnMsg:
		// A withdrawal moved the wallet's balance: read it again.
		cmds := []tea.Cmd{v.BalanceCmd(msg.Wallet, false)}
		if msg.Text != "" {
			cmds = append(cmds, func() tea.Msg { return common.StatusMsg{Text: msg.Text, Kind: msg.Kind, Owner: common.OwnerWithdrawal} })
		}
		return tea.Batch(cmds...)
	case common.WalletChangedMsg:
		// Read the new active wallet now: a refusal (no access, suspended) shows at once.
		return v.BalanceCmd(msg.Wallet, true)
	}
	return nil
}

// fromOtherSession reports a reply made for a previous profile; the list and balances do not
// depend on the active wallet, so only the session generation matters.
func (v *View) fromOtherSession(t common.Tag) bool { return t.Gen != v.c.App.Gen }

func (v *View) onList(msg ListMsg) tea.Cmd {
	if v.fromOtherSession(msg.Tag) || msg.Seq != v.Seq {
		return nil
	}
	v.Loading = false
	if msg.Err != nil {
		v.err = msg.Err
	} else {
		v.err = nil
		v.Subs = msg.Subs
		v.Loaded = true
		v.loadedAt = v.c.Now()
		v.c.App.SubAccounts = msg.Subs
	}
	v.rebuild()
	if !v.placed {
		v.placed = true
		if i := v.Find(v.c.App.Wallet, -1); i >= 0 {
			v.Cursor = i
			v.Scroll()
		}
	}
	return v.loadBalances()
}

func (v *View) onBalance(msg BalanceMsg) tea.Cmd {
	if v.fromOtherSession(msg.Tag) {
		return nil
	}
	b := v.Bals[msg.Ref]
	if b == nil || b.Req != msg.Req {
		return nil
	}
	b.Loading, b.Done, b.at = false, true, v.c.Now()
	b.err = msg.Err
	if msg.Err == nil && msg.Acc != nil {
		b.Bal, b.status = msg.Acc.Balance, msg.Acc.Status
	} else {
		b.Bal, b.status = api.AccountBalance{}, ""
	}
	if msg.Err != nil && msg.OnSwitch && msg.Ref == v.c.App.Wallet {
		var ae *api.Error
		if errors.As(msg.Err, &ae) {
			line := common.DescribeErr(v.c.Tr, v.c.Tr.F("wallets.wallet", msg.Ref), msg.Err)
			return walletsStatus(line, common.StatusWarn)
		}
	}
	return nil
}

func walletsStatus(text string, kind common.StatusKind) tea.Cmd {
	return func() tea.Msg { return common.StatusMsg{Text: text, Kind: kind} }
}

func (v *View) listKey(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case v.Navigate(km, k):
	case key.Matches(km, v.enterKey):
		return v.makeActive()
	case key.Matches(km, k.CreateSub):
		return v.openForm()
	case key.Matches(km, k.Withdraw):
		return v.openWithdrawal()
	case key.Matches(km, k.Refresh):
		if !v.Loading {
			return v.Reload()
		}
	}
	return nil
}

// openWithdrawal opens the withdrawal form over the selected wallet with the balance the view
// holds (nil when it has none: the form says so and refuses to send).
func (v *View) openWithdrawal() tea.Cmd {
	r, ok := v.SelectedLine()
	if !ok {
		return nil
	}
	if v.IsSuspended(r) {
		return common.AnswerStatus(v.c.Tr.F("wallets.is_suspended_sub_account_suspended_it_2", r.Ref), common.StatusWarn)
	}
	var spendable *api.Money
	var at time.Time
	if b := v.Bals[r.Ref]; b != nil && b.Done && b.err == nil && b.Bal.Available != nil {
		a := max(*b.Bal.Available, 0)
		spendable, at = &a, b.at
	}
	o, cmd := v.c.Open.Withdrawal(v.c, r.Ref, spendable, at)
	v.Ask(o)
	return cmd
}

// makeActive asks the root to switch to the selected wallet; suspended ones are refused with the reason.
func (v *View) makeActive() tea.Cmd {
	tr := v.c.Tr
	r, ok := v.SelectedLine()
	switch {
	case !ok:
		return nil
	case v.IsSuspended(r):
		return common.AnswerStatus(tr.F("wallets.is_suspended_sub_account_suspended_it", r.Ref), common.StatusWarn)
	case r.Ref == v.c.App.Wallet:
		return common.AnswerStatus(tr.F("wallets.is_already_the_active_wallet", r.Ref), common.StatusInfo)
	}
	ref := r.Ref
	return func() tea.Msg { return common.SwitchWalletMsg{Wallet: ref} }
}

// --- create form ----------------------------------------------------------------------------

func (v *View) openForm() tea.Cmd {
	tr := v.c.Tr
	if v.c.App.Sess.ReadOnly {
		return common.AnswerStatus(tr.T("wallets.this_profile_is_read_only_creating"), common.StatusError)
	}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := common.NewInput()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	v.Form = &subAccountForm{
		Ref:  mk(tr.T("wallets.e_g_loja_norte"), walletsRefMax),
		name: mk(tr.T("wallets.e_g_loja_norte_2"), api.MaxSubAccountName+45),
	}
	v.sizeForm()
	return v.Form.Ref.Focus()
}

func (v *View) setFormFocus(i int) tea.Cmd {
	f := v.Form
	f.touched[f.focus] = true
	f.focus = i
	if i == 0 {
		f.name.Blur()
		return f.Ref.Focus()
	}
	f.Ref.Blur()
	return f.name.Focus()
}

func (v *View) formKey(km tea.KeyMsg) tea.Cmd {
	f, k, tr := v.Form, v.c.Keys, v.c.Tr
	if f.confirming {
		f.confirming = false
		if key.Matches(km, k.Yes) {
			return v.send()
		}
		return walletsStatus(tr.T("wallets.cancelled_nothing_was_sent"), common.StatusInfo)
	}
	switch {
	case key.Matches(km, k.Back):
		dirty := strings.TrimSpace(f.Ref.Value()) != "" || strings.TrimSpace(f.name.Value()) != ""
		v.Ask(common.DiscardGuard(v.c, dirty, tr.T("wallets.discard_this_sub_account_nothing_was"), func() { v.Form = nil }))
		return nil
	case key.Matches(km, k.Submit):
		return v.Submit()
	case key.Matches(km, k.NextField), key.Matches(km, k.PrevField), km.Type == tea.KeyUp, km.Type == tea.KeyDown:
		return v.setFormFocus(1 - f.focus)
	case km.Type == tea.KeyEnter:
		if f.focus == 0 {
			return v.setFormFocus(1)
		}
		return v.Submit()
	}
	if f.Sending {
		return nil
	}
	in := &f.Ref
	if f.focus == 1 {
		in = &f.name
	}
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(km)
	if in.Value() != before {
		f.Server[f.focus] = ""
		f.err = ""
	}
	return cmd
}

// RefProblem checks a reference as it is typed; "too short" and "required" wait until the field was
// left or a submit was tried.
func (v *View) RefProblem(ref string, strict bool) string {
	tr := v.c.Tr
	if ref == "" {
		if strict {
			return tr.T("wallets.required_2_to_32_characters_a")
		}
		return ""
	}
	if api.ValidateSubAccountRef(ref) == nil {
		return ""
	}
	if ref == api.WalletPrincipal {
		return tr.T("wallets.principal_is_reserved_for_the_main")
	}
	for i, r := range ref {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || i > 0 && (r == '-' || r == '_')
		if !ok {
			return tr.T("wallets.use_only_lowercase_letters_digits_and")
		}
	}
	if n := len(ref); n > 32 {
		return tr.F("wallets.too_long_characters_at_most_32", n)
	}
	if strict {
		return tr.T("wallets.too_short_2_to_32_characters")
	}
	return ""
}

// FormErrors are the messages next to the reference and name fields.
func (v *View) FormErrors() (string, string) {
	f, tr := v.Form, v.c.Tr
	refErr := v.RefProblem(f.Ref.Value(), f.touched[0] || f.tried)
	var nameErr string
	name := strings.TrimSpace(f.name.Value())
	switch {
	case name == "":
		if f.touched[1] || f.tried {
			nameErr = tr.T("wallets.required_the_name_shown_for_this")
		}
	default:
		if err := common.CheckMaxLen(tr, name, api.MaxSubAccountName); err != nil {
			nameErr = err.Error()
		}
	}
	return refErr, nameErr
}

// Submit sends the sub-account form.
func (v *View) Submit() tea.Cmd {
	f, tr := v.Form, v.c.Tr
	f.tried = true
	if f.Sending {
		return nil
	}
	if v.c.App.Sess.ReadOnly {
		v.Form = nil
		return walletsStatus(tr.T("wallets.this_profile_is_read_only_nothing"), common.StatusError)
	}
	refErr, nameErr := v.FormErrors()
	if i, fix := common.FixHighlighted(v.c, []string{refErr, nameErr}, common.OwnerAnswer); i >= 0 {
		var focus tea.Cmd
		if f.focus != i {
			focus = v.setFormFocus(i)
		}
		return tea.Batch(focus, fix)
	}
	if v.c.App.Sess.Env == api.Production {
		f.confirming = true
		return nil
	}
	return v.send()
}

// send creates the sub-account; it is sent once (POST /sub-accounts has no idempotency key).
func (v *View) send() tea.Cmd {
	f, tr := v.Form, v.c.Tr
	f.Sending, f.err = true, ""
	ref, name := f.Ref.Value(), f.name.Value()
	var wa walletsService = v.c.App.Sess
	t := v.c.App.Tag()
	create := v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		sub, err := wa.CreateSubAccount(ctx, ref, name)
		return CreatedMsg{Tag: t, Ref: ref, Sub: sub, Err: err}
	})
	return tea.Batch(walletsStatus(tr.F("wallets.creating_sub_account", ref), common.StatusInfo), create)
}

func (v *View) onCreated(msg CreatedMsg) tea.Cmd {
	if v.fromOtherSession(msg.Tag) {
		return nil
	}
	tr := v.c.Tr
	f := v.Form
	if f != nil {
		f.Sending = false
	}
	if msg.Err == nil && msg.Sub != nil {
		v.Form = nil
		if !slices.ContainsFunc(v.Subs, func(s api.SubAccount) bool { return s.Reference == msg.Sub.Reference }) {
			v.Subs = append(slices.Clip(v.Subs), *msg.Sub)
			v.c.App.SubAccounts = v.Subs
		}
		v.want = msg.Sub.Reference
		v.rebuild()
		cmds := []tea.Cmd{walletsStatus(tr.F("wallets.sub_account_created", msg.Sub.Reference), common.StatusOK), v.BalanceCmd(msg.Sub.Reference, false)}
		if !v.Loading {
			cmds = append(cmds, v.Reload())
		}
		return tea.Batch(cmds...)
	}
	line := common.DescribeErr(tr, tr.T("wallets.create_sub_account"), msg.Err)
	if f == nil {
		return walletsStatus(line, common.StatusError)
	}
	var ae *api.Error
	var ve *api.ValidationError
	switch {
	case errors.Is(msg.Err, api.ErrSubAccountReferenceTaken):
		f.Server[0] = tr.F("wallets.is_already_used_in_this_account", msg.Ref)
	case errors.Is(msg.Err, api.ErrSubAccountQuotaExceeded):
		f.Server[0] = tr.T("wallets.the_account_reached_its_sub_account")
	case errors.Is(msg.Err, api.ErrSubAccountInvalidReference) && msg.Ref != api.WalletPrincipal:
		// The service gives every refused reference this code, not only 'principal'.
		f.Server[0] = tr.F("wallets.is_not_a_valid_reference_sub", msg.Ref)
	case errors.Is(msg.Err, api.ErrSubAccountInvalidReference):
		f.Server[0] = tr.T("wallets.principal_is_reserved_for_the_main_2")
	case errors.As(msg.Err, &ve):
		for _, p := range ve.Problems {
			switch p.Field {
			case api.FieldReference:
				f.Server[0] = common.ServiceMessage(tr, p.Msg)
			case api.FieldName:
				f.Server[1] = common.ServiceMessage(tr, p.Msg)
			default:
				f.err = line
			}
		}
	case errors.As(msg.Err, &ae) && ae.HTTPStatus == 400 && strings.HasPrefix(ae.Message, "name"):
		f.Server[1] = common.ServiceMessage(tr, ae.Message)
	case errors.As(msg.Err, &ae) && ae.HTTPStatus == 400 && strings.HasPrefix(ae.Message, "reference"):
		f.Server[0] = common.ServiceMessage(tr, ae.Message)
	case errors.As(msg.Err, &ae):
		f.err = line
	default:
		// No answer: the request may have been carried out. The list shows whether it exists.
		f.err = line + " · " + tr.T("wallets.it_may_have_been_created_the")
		if !v.Loading {
			return tea.Batch(walletsStatus(line, common.StatusError), v.Reload())
		}
	}
	var focus tea.Cmd
	switch {
	case f.Server[0] != "":
		f.touched = [2]bool{true, true}
		if f.focus != 0 {
			focus = v.setFormFocus(0)
		}
	case f.Server[1] != "":
		f.touched = [2]bool{true, true}
		if f.focus != 1 {
			focus = v.setFormFocus(1)
		}
	}
	return tea.Batch(focus, common.AnswerStatus(line, common.StatusError)) // the form shows it too, next to its field
}

// --- rendering ------------------------------------------------------------------------------

// ShortHelp lists the keys the footer shows.
func (v *View) ShortHelp() []key.Binding {
	k := v.c.Keys
	switch {
	case v.Form != nil && v.Form.confirming:
		return []key.Binding{k.Yes, k.No}
	case v.Form != nil:
		return []key.Binding{k.NextField, k.Submit, k.Back}
	}
	return []key.Binding{v.enterKey, k.Withdraw, k.CreateSub, k.Refresh}
}

// FullHelp lists the view's keys for the help screen.
func (v *View) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, v.enterKey, k.CreateSub, k.Withdraw, k.Refresh,
		k.NextField, k.PrevField, k.Submit, k.Back}}
}

// RowName is the wallet's display name: the sub-account list's name; the main account's is
// the translated "main account" (GET /account sends no name).
func (v *View) RowName(r walletRow) string {
	tr := v.c.Tr
	switch {
	case r.main:
		return tr.T("wallets.main_account")
	case r.fromConfig:
		return tr.T("wallets.from_config")
	}
	return common.Sanitize(r.name)
}

// StatusText is the wallet's status as shown, with its symbol and colour from the status table
// (styles.status). An account status from GET /account other than approved (pending, rejected,
// suspended or one pixdash does not know) outranks the sub-account list's status, which is
// shown otherwise.
func (v *View) StatusText(r walletRow) (string, lipgloss.Style) {
	st, tr := v.c.St, v.c.Tr
	if r.fromConfig {
		return "? " + tr.T("wallets.unlisted"), st.Warn
	}
	acct := v.accountStatus(r.Ref)
	switch {
	case acct != "" && acct != api.AccountApproved:
		return v.accountStatusText(acct)
	case r.main && acct == api.AccountApproved:
		return v.accountStatusText(acct)
	case r.main:
		return "", st.Muted
	}
	sty, sym := st.StatusLine(r.status)
	return withSymbol(sym, tr.Enum(r.status)), *sty
}

// accountStatusText labels an account status of GET /account: approved plainly, the pending
// ones and rejected or suspended highlighted, an unknown value as it came (sanitized).
func (v *View) accountStatusText(s api.AccountStatus) (string, lipgloss.Style) {
	tr := v.c.Tr
	label := common.Sanitize(string(s))
	switch s {
	case api.AccountApproved:
		label = tr.T("wallets.approved")
	case api.AccountPending:
		label = tr.T("wallets.pending")
	case api.AccountPendingDocs:
		label = tr.T("wallets.documents_pending")
	case api.AccountPendingApproval:
		label = tr.T("wallets.approval_pending")
	case api.AccountRejected:
		label = tr.T("wallets.rejected")
	case api.AccountSuspended:
		label = tr.T("wallets.suspended")
	}
	sty, sym := v.c.St.StatusLine(s)
	return withSymbol(sym, label), *sty
}

// withSymbol is a status's symbol and label ("?" alone for a status not sent).
func withSymbol(sym, label string) string {
	if label == "" {
		return sym
	}
	return sym + " " + label
}

// accountHint says what a non-approved account status means for the merchant ("" when nothing).
func (v *View) accountHint(r walletRow, s api.AccountStatus) string {
	tr := v.c.Tr
	switch s {
	case api.AccountPending, api.AccountPendingDocs, api.AccountPendingApproval:
		return tr.T("wallets.the_account_is_not_approved_yet")
	case api.AccountRejected:
		return tr.T("wallets.the_account_was_rejected_contact_support")
	case api.AccountSuspended:
		if r.main {
			return tr.T("wallets.the_account_is_suspended_contact_support")
		}
		return tr.T("wallets.this_sub_account_is_suspended_switch")
	}
	return ""
}

// money formats a balance figure; nil (not sent) is "—", never a guessed zero.
func (v *View) money(m *api.Money, currency string) string {
	switch {
	case m == nil:
		return "—"
	case currency == "" || currency == "BRL":
		return m.BRL()
	}
	return m.Decimal() + " " + common.Sanitize(currency)
}

// balanceReason is a short reason a wallet's balance could not be read.
func (v *View) balanceReason(err error) string {
	tr := v.c.Tr
	var ae *api.Error
	var ve *api.ValidationError
	switch {
	case errors.As(err, &ve):
		return tr.T("wallets.invalid_reference")
	case errors.Is(err, api.ErrSubAccountSuspended):
		return tr.T("wallets.suspended")
	case errors.Is(err, api.ErrSubAccountForbidden):
		return tr.T("wallets.no_access")
	case errors.Is(err, api.ErrSubAccountNotFound):
		return tr.T("wallets.not_found")
	case errors.Is(err, api.ErrUnauthorized):
		return tr.T("wallets.sign_in_refused")
	case errors.Is(err, api.ErrForbidden):
		return tr.T("wallets.not_allowed")
	case errors.Is(err, context.DeadlineExceeded):
		return tr.T("wallets.timed_out")
	case errors.As(err, &ae):
		return tr.F("wallets.error", ae.HTTPStatus)
	}
	return tr.T("wallets.unavailable")
}

// BalanceCells are the available, held, promotional and total cells of a wallet, and their style.
func (v *View) BalanceCells(ref string) ([4]string, lipgloss.Style) {
	st := v.c.St
	b := v.Bals[ref]
	switch {
	case b == nil:
		if v.Loading {
			return [4]string{"…", "…", "…", "…"}, st.Muted
		}
		return [4]string{}, st.Muted
	case !b.Done:
		return [4]string{"…", "…", "…", "…"}, st.Muted
	case b.err != nil:
		return [4]string{v.balanceReason(b.err)}, st.Err
	}
	cur, bal := b.Bal.Currency, b.Bal
	return [4]string{v.money(bal.Available, cur), v.money(bal.Held, cur), v.money(bal.Promotional, cur), v.money(bal.Total, cur)}, st.Value
}

// cells are a wallet's columns: the cursor's and the active wallet's marks (so they read
// without colour), reference, name, status, and the available, held, promotional and total
// balances, and the creation date.
func (v *View) cells(r *walletRow, sel bool) []common.Cell {
	st := v.c.St
	mark, active := " ", " "
	if sel {
		mark = "›"
	}
	var marks common.Cell
	if r.Ref == v.c.App.Wallet {
		active = "●"
		marks.Styled = mark + st.Accent.Render(active)
	}
	marks.Text = mark + active
	name := common.Cell{Text: v.RowName(*r)}
	if r.fromConfig || r.main {
		name.Style = &st.Muted
	}
	stText, stStyle := v.StatusText(*r)
	bal, bs := v.BalanceCells(r.Ref)
	created := ""
	if !r.created.IsZero() {
		created = r.created.In(v.c.Loc).Format("02/01/2006")
	}
	return []common.Cell{
		marks,
		{Text: common.Sanitize(r.Ref)},
		name,
		{Text: stText, Style: &stStyle},
		{Text: bal[0], Style: &bs},
		{Text: bal[1], Style: &bs},
		{Text: bal[2], Style: &bs},
		{Text: bal[3], Style: &bs},
		{Text: created},
	}
}

// topLines are the list's state: loading, error, or the count and the age of the data.
func (v *View) topLines(w int) []string {
	st, tr := v.c.St, v.c.Tr
	now := v.c.Now()
	var out []string
	if v.err != nil {
		text := common.DescribeErr(tr, tr.T("wallets.load_wallets"), v.err) + " · " + tr.T("wallets.r_retries")
		for _, l := range common.WrapLines(text, w, 2) {
			out = append(out, st.Err.Render(l))
		}
	}
	switch {
	case !v.Loaded && v.Loading:
		out = append(out, st.Muted.Render(tr.T("wallets.loading_wallets")))
	case !v.Loaded:
		if v.err == nil {
			out = append(out, st.Muted.Render(tr.T("wallets.wallets_not_loaded_yet_r_loads")))
		}
	default:
		line := st.Bold.Render(tr.N("wallets.wallets_n", len(v.Rows))) + st.Muted.Render(" · "+tr.F("wallets.active", v.c.App.Wallet))
		age := now.Sub(v.loadedAt)
		ageText := " · " + tr.F("wallets.updated_ago", common.HumanAge(age))
		if age > walletsStaleAfter {
			line += st.Warn.Render(ageText + " (" + tr.T("wallets.stale") + ")")
		} else {
			line += st.Muted.Render(ageText)
		}
		if v.Loading {
			line += st.Muted.Render(" · " + tr.T("wallets.refreshing"))
		}
		out = append(out, common.TruncateWidth(line, w))
	}
	return out
}

// detailLines describe the selected wallet: identity, balance figures or why they are missing.
func (v *View) detailLines(w int) []string {
	st, tr := v.c.St, v.c.Tr
	r, ok := v.SelectedLine()
	if !ok {
		return nil
	}
	out := []string{st.Rule.Render(strings.Repeat("─", w))}
	parts := []string{st.Bold.Render(common.Sanitize(r.Ref))}
	switch {
	case r.main:
		parts = append(parts, tr.T("wallets.main_account_no_x_sub_account"), tr.F("wallets.profile", common.Sanitize(v.c.App.Sess.Profile)))
	case r.fromConfig:
		parts = append(parts, tr.T("wallets.profile_default_from_config_not_listed"))
	default:
		if r.name != "" {
			parts = append(parts, common.Sanitize(r.name))
		}
		stText, stStyle := v.StatusText(r)
		parts = append(parts, stStyle.Render(stText))
		if !r.created.IsZero() {
			parts = append(parts, tr.F("wallets.created", r.created.In(v.c.Loc).Format("02/01/2006 15:04")))
		}
	}
	if r.Ref == v.c.App.Wallet {
		parts = append(parts, st.Accent.Render("● "+tr.T("wallets.active_2")))
	}
	out = append(out, common.TruncateWidth(strings.Join(parts, st.Muted.Render(" · ")), w))

	b := v.Bals[r.Ref]
	switch {
	case b == nil || !b.Done:
		out = append(out, st.Muted.Render(tr.T("wallets.balance_loading")))
	case b.err != nil:
		var ae *api.Error
		var ve *api.ValidationError
		switch {
		case errors.As(b.err, &ve):
			// Never sent: the reference cannot be used as X-Sub-Account.
			for _, l := range common.WrapLines(tr.T("wallets.balance")+common.ValidationText(tr, ve), w, 2) {
				out = append(out, st.Err.Render(l))
			}
		case errors.As(b.err, &ae):
			msg := common.ServiceText(tr, ae)
			if ae.TraceID != "" {
				msg += " [trace " + ae.TraceID + "]"
			}
			out = append(out, st.Err.Render(common.TruncateWidth(tr.T("wallets.balance")+common.Sanitize(msg), w)))
			if h := common.ErrorHint(tr, ae); h != "" {
				for _, l := range common.WrapLines("→ "+h, w, 2) {
					out = append(out, st.Warn.Render(l))
				}
			}
		default:
			for _, l := range common.WrapLines(common.DescribeErr(tr, tr.T("wallets.balance_2"), b.err), w, 2) {
				out = append(out, st.Err.Render(l))
			}
		}
	default:
		// Every figure exactly as the service sent it; one it did not send is "—".
		cur, bal := b.Bal.Currency, b.Bal
		segs := []string{
			tr.T("wallets.available") + st.Bold.Render(v.money(bal.Available, cur)),
			tr.T("wallets.held") + v.money(bal.Held, cur),
			tr.T("wallets.promotional") + v.money(bal.Promotional, cur),
			tr.T("wallets.total") + v.money(bal.Total, cur),
		}
		if bal.UpdatedAt != nil {
			segs = append(segs, st.Muted.Render(tr.F("wallets.as_of", bal.UpdatedAt.In(v.c.Loc).Format("02/01 15:04"))))
		}
		segs = append(segs, st.Muted.Render(tr.F("wallets.read_ago", common.HumanAge(v.c.Now().Sub(b.at)))))
		out = append(out, common.PackSegments(segs, st.Muted.Render(" · "), w, 2)...)
		if b.status != "" {
			text, sty := v.accountStatusText(b.status)
			out = append(out, common.TruncateWidth(tr.T("wallets.account_status")+sty.Render(text), w))
			if h := v.accountHint(r, b.status); h != "" && !(r.status == api.SubAccountSuspended && b.status == api.AccountSuspended) {
				for _, l := range common.WrapLines("→ "+h, w, 2) {
					out = append(out, st.Warn.Render(l))
				}
			}
		}
	}
	if v.IsSuspended(r) && (b == nil || b.err != nil || b.status != api.AccountSuspended) && (b == nil || b.err == nil || !errors.Is(b.err, api.ErrSubAccountSuspended)) {
		for _, l := range common.WrapLines("→ "+tr.T("wallets.this_sub_account_is_suspended_switch"), w, 2) {
			out = append(out, st.Warn.Render(l))
		}
	}
	return out
}

// formLines render the create form: both fields with their messages, then the state of the submission.
func (v *View) formLines(w int) []string {
	st, tr, f := v.c.St, v.c.Tr, v.Form
	out := []string{st.Rule.Render(strings.Repeat("─", w))}
	out = append(out, common.TruncateWidth(st.Bold.Render(tr.T("wallets.new_sub_account"))+st.Muted.Render(" · "+tr.T("wallets.created_on_the_main_account_starts")), w))
	refErr, nameErr := v.FormErrors()
	const labelW = 12
	iw := v.inputWidth()
	fields := []struct {
		label string
		in    textinput.Model
		err   string
	}{
		{tr.T("wallets.reference"), f.Ref, refErr},
		{tr.T("wallets.name"), f.name, nameErr},
	}
	for i, fd := range fields {
		label := common.PadRight(fd.label, labelW)
		if i == f.focus {
			label = st.FieldFocus.Render("› " + label)
		} else {
			label = st.FieldLabel.Render("  " + label)
		}
		e := fd.err
		if e == "" {
			e = f.Server[i]
		}
		line := label + common.PadRight(fd.in.View(), iw)
		if e == "" {
			out = append(out, common.TruncateWidth(line, w))
			continue
		}
		room := w - lipgloss.Width(line) - 4
		if lipgloss.Width(e) <= room {
			out = append(out, line+"  "+st.FieldErr.Render("✗ "+common.Sanitize(e)))
			continue
		}
		out = append(out, common.TruncateWidth(line, w))
		for _, l := range common.WrapLines("✗ "+e, w-labelW-2, 2) {
			out = append(out, common.Spaces(labelW+2)+st.FieldErr.Render(l))
		}
	}
	switch {
	case f.confirming:
		q := tr.F("wallets.create_sub_account_in_production_y", f.Ref.Value())
		out = append(out, common.TruncateWidth(st.Confirm.Render(q)+st.Muted.Render("  "+tr.T("wallets.y_confirms_any_other_key_cancels")), w))
	case f.Sending:
		out = append(out, st.Muted.Render(common.TruncateWidth(tr.F("wallets.creating_sub_account", f.Ref.Value()), w)))
	case f.err != "":
		for _, l := range common.WrapLines(f.err, w, 2) {
			out = append(out, st.Err.Render(l))
		}
	default:
		out = append(out, st.Muted.Render(common.TruncateWidth(tr.T("wallets.ctrl_s_or_enter_on_the"), w)))
	}
	return out
}

// walletsFrame is how the body is shared: the state lines, the bottom section (the selected
// wallet's details or the create form), the empty-list note and the lines left for the rows.
type walletsFrame struct {
	top, bottom []string
	empty       string
	rows        int
}

// frame shares the view's lines; update (through place) and view use the same one.
func (v *View) frame() walletsFrame {
	w, h := v.width, v.height
	st, tr := v.c.St, v.c.Tr
	f := walletsFrame{top: v.topLines(w)}
	if v.Form != nil {
		f.bottom = v.formLines(w)
	} else {
		f.bottom = v.detailLines(w)
	}
	if v.Loaded && len(v.Subs) == 0 {
		empty := tr.T("wallets.no_sub_accounts_yet_press_c")
		if v.c.App.Sess.ReadOnly {
			empty = tr.T("wallets.no_sub_accounts_yet_this_profile")
		}
		f.empty = st.Muted.Render(common.TruncateWidth(empty, w))
	}
	extra := 0
	if f.empty != "" {
		extra = 1
	}
	n := len(v.Rows)
	room := max(h-len(f.top)-1-extra, 0)
	if keep := min(n, 3); room-len(f.bottom) < keep {
		// Too little room: the list keeps a few rows and the bottom section shrinks.
		f.bottom = f.bottom[:max(room-keep, 0)]
	}
	f.rows = min(max(room-len(f.bottom), 0), n)
	return f
}

// place gives the list the lines the frame leaves it (after every change of size or data).
func (v *View) place() { v.Resize(v.width, v.frame().rows) }

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w, h := v.width, v.height
	st, tr := v.c.St, v.c.Tr
	if w <= 0 || h <= 0 {
		return ""
	}
	f := v.frame()
	n := len(v.Rows)
	first, last := v.Window()
	var b strings.Builder
	for _, l := range f.top {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	hdr := v.Header(st)
	if first > 0 || last < n {
		// Scrolled: say which rows are on screen.
		hdr = st.ColHeader.Render(common.PadRight(v.Heading, max(w-12, 0))) + st.ColHeader.Render(common.PadLeft(tr.F("wallets.of", first+1, last, n), 12))
	}
	b.WriteString(common.TruncateWidth(hdr, w))
	if n > 0 && f.rows > 0 {
		b.WriteByte('\n')
		v.Draw(&b, st, common.RowPainter[uint64, walletRow]{Cells: v.cells, Stamp: func(*walletRow) uint64 { return v.ver },
			NoCursor: v.Form != nil}) // no highlight while the form has the keyboard
	}
	if f.empty != "" {
		b.WriteByte('\n')
		b.WriteString(f.empty)
	}
	for _, l := range f.bottom {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return common.FitBlock(b.String(), w, h)
}

// ServiceErr are the outcomes of the calls to the service, for the header's light.
func (m ListMsg) ServiceErr() error { return m.Err }

// ServiceErr is the outcome of the call to the service, for the header's light.
func (m BalanceMsg) ServiceErr() error { return m.Err }

// ServiceErr is the outcome of the call to the service, for the header's light.
func (m CreatedMsg) ServiceErr() error { return m.Err }

// ClockKey is what of the view changes with the clock (see common.Clocked): how long ago the
// list was read (and whether that is stale) and how long ago the selected wallet's balance was.
func (v *View) ClockKey(now time.Time) string {
	age := now.Sub(v.loadedAt)
	key := fmt.Sprint(common.HumanAge(age), age > walletsStaleAfter)
	if r, ok := v.SelectedLine(); ok {
		if b := v.Bals[r.Ref]; b != nil {
			key += " " + common.HumanAge(now.Sub(b.at))
		}
	}
	return key
}
