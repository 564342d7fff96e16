// Package newcharge is the dashboard's new-charge form and its split builder.
package newcharge

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// Form fields, in tab order.
const (
	FAmount = iota
	FDescription
	fExpiry
	fExternalRef
	fProject
	FName
	FDocument
	fEmail
	fPhone
	FMetadata
	FSplit
	fSubmit
	fieldCount
)

// expiryPreset is a choice of the expiry field; zero means "custom".
type expiryPreset struct {
	label string
	d     time.Duration
}

var expiryPresets = []expiryPreset{
	{"5 min", 5 * time.Minute}, {"15 min", 15 * time.Minute}, {"1 h", time.Hour},
	{"24 h", 24 * time.Hour}, {"3 days", 72 * time.Hour}, {"7 days", 7 * 24 * time.Hour}, {"custom", 0},
}

const defaultExpiryPreset = 3 // 24 h, the spec's default

// metaMaxRows is the most rows the metadata field grows to; more lines scroll inside it.
const metaMaxRows = 6

// ChargeDraft is a validated charge ready to send, with the key minted when the form opened.
type ChargeDraft struct {
	Key    string
	Wallet string
	Req    api.CreatePixRequest
}

// ChargeSubmitMsg asks the root to send a draft.
type ChargeSubmitMsg struct{ Draft ChargeDraft }

// ChargeForm is the new-charge form.
type ChargeForm struct {
	common.Closer
	C        *common.Common
	Key      string // Idempotency-Key, minted when the form opens
	Wallet   string
	Field    int // the focused field
	Inputs   [fieldCount]textinput.Model
	Meta     textarea.Model
	Preset   int
	Projects []api.Project
	projErr  string
	ProjLoad bool
	project  int // 0 = default (none sent)
	touched  [fieldCount]bool
	Errs     [fieldCount]string
	server   [fieldCount]string // the service's refusal, shown until the field changes
	Tried    bool
	Sending  bool
	// MayLand: a request with this form's key went out and its outcome is not known (being
	// sent, or the reply was lost): the charge may still be created, and the submission stays
	// recorded for recovery whatever the form does.
	MayLand bool
	// descDefault: the description still holds the profile's default, untouched; the first
	// character typed into it replaces the default instead of being appended to it.
	descDefault bool
	// Sb is the split builder (nil until first opened); while splitOpen it gets the keys and the screen.
	Sb            *SplitBuilder
	SplitOpen     bool
	width, height int
	// descInit is the description the form opened with (what "untouched" compares to).
	descInit string
}

// NewForm makes the charge form.
func NewForm(c *common.Common, wallet, key string) *ChargeForm {
	f := &ChargeForm{C: c, Key: key, Wallet: wallet, Preset: defaultExpiryPreset, ProjLoad: true}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := common.NewInput()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	for i := range f.Inputs {
		f.Inputs[i] = mk("", 0)
	}
	f.Inputs[FAmount] = mk("12,34", 20)
	f.Inputs[FDescription] = mk(c.Tr.T("newcharge.what_is_being_paid"), 300)
	f.Inputs[fExpiry] = mk("90m, 2h, 3d", 12)
	f.Inputs[fExternalRef] = mk(c.Tr.T("newcharge.your_order_id"), 300)
	f.Inputs[FName] = mk(c.Tr.T("newcharge.payer_name"), 120)
	f.Inputs[FDocument] = mk("000.000.000-00", 20)
	f.Inputs[fEmail] = mk(c.Tr.T("newcharge.name_example_com"), 120)
	f.Inputs[fPhone] = mk("+55 11 91234-5678", 20)
	f.Meta = textarea.New()
	f.Meta.Cursor.SetMode(cursor.CursorStatic) // no blink: an idle form writes nothing (issue 27)
	f.Meta.Placeholder = c.Tr.T("newcharge.order_1234")
	f.Meta.ShowLineNumbers = false
	f.Meta.Prompt = ""
	f.Meta.SetHeight(2)
	f.Meta.CharLimit = 2000
	// The service requires a description: start with the profile's default, so an amount and
	// ctrl+s are enough at the counter.
	f.Inputs[FDescription].SetValue(common.Sanitize(c.App.Sess.Description())) // from the config
	f.Inputs[FDescription].CursorEnd()
	f.descDefault = true
	f.descInit = f.Inputs[FDescription].Value()
	f.Field = fieldCount // nothing is focused yet, so nothing counts as touched
	f.SetFocus(FAmount)
	return f
}

// StatusOwner names the form's messages ("Fix the highlighted fields") so that they go when it closes.
func (f *ChargeForm) StatusOwner() string { return common.OwnerForm }

// Layer is the body: the form takes the body's place; header, tabs and footer stay.
func (f *ChargeForm) Layer() common.Layer { return common.LayerBody }

// Focus needs nothing: the project list is loaded by the root when the form opens.
func (f *ChargeForm) Focus() tea.Cmd { return nil }

// Start reads nothing: the root reads the projects for the form (openForm).
func (f *ChargeForm) Start() tea.Cmd { return nil }

// Blur leaves the fields as they are.
func (f *ChargeForm) Blur() {}

// SetSize gives it its room in cells.
func (f *ChargeForm) SetSize(w, h int) tea.Cmd {
	f.width, f.height = w, h
	if f.Sb != nil {
		f.Sb.SetSize(w, h)
	}
	iw := w - 16 - 2
	if iw > 44 {
		iw = 44
	}
	if iw < 10 {
		iw = 10
	}
	for i := range f.Inputs {
		f.Inputs[i].Width = iw
	}
	f.Meta.SetWidth(iw)
	return nil
}

// SetFocus puts the cursor in field i.
func (f *ChargeForm) SetFocus(i int) {
	if f.Field < fieldCount {
		f.touched[f.Field] = true
	}
	f.Field = i
	for j := range f.Inputs {
		if j == i && isTextField(j) {
			f.Inputs[j].Focus()
		} else {
			f.Inputs[j].Blur()
		}
	}
	if i == FMetadata {
		f.Meta.Focus()
	} else {
		f.Meta.Blur()
	}
	f.Validate()
}

// isTextField reports whether field i is edited through its text input.
func isTextField(i int) bool {
	switch i {
	case fProject, FMetadata, FSplit, fSubmit:
		return false
	}
	return true
}

// CapturesText reports whether printable keys belong to the focused field.
func (f *ChargeForm) CapturesText() bool {
	switch f.Field {
	case fProject, FSplit, fSubmit:
		return false
	case fExpiry:
		return expiryPresets[f.Preset].d == 0
	}
	return true
}

func (f *ChargeForm) setProjects(ps []api.Project, err error) {
	f.ProjLoad = false
	if err != nil {
		f.projErr = err.Error()
		return
	}
	f.Projects = ps
	if f.project > len(ps) {
		f.project = 0
	}
}

// Update handles a key or a reply meant for it.
func (f *ChargeForm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		switch m := msg.(type) {
		case SplitWalletsMsg:
			if f.Sb != nil {
				f.Sb.OnWallets(m)
				f.Validate()
			}
		case common.ProjectsMsg:
			if !f.C.App.Stale(m.Tag) {
				f.setProjects(m.Items, m.Err)
			}
		}
		return nil
	}
	k := f.C.Keys
	if f.SplitOpen {
		return f.updateSplit(km)
	}
	switch {
	case key.Matches(km, k.Back):
		// Something was typed, or a request may still land: throwing it away takes a yes.
		f.Ask(common.DiscardGuard(f.C, f.dirty() || f.MayLand, f.DiscardQuestion(), f.Close))
		return nil
	case key.Matches(km, k.Submit):
		return f.submit()
	case key.Matches(km, k.NextField):
		f.SetFocus((f.Field + 1) % fieldCount)
		return nil
	case key.Matches(km, k.PrevField):
		f.SetFocus((f.Field + fieldCount - 1) % fieldCount)
		return nil
	case key.Matches(km, k.Split):
		return f.openSplit()
	}

	switch f.Field {
	case fExpiry:
		switch km.String() {
		case "left":
			f.Preset = (f.Preset + len(expiryPresets) - 1) % len(expiryPresets)
			f.Validate()
			return nil
		case "right", " ":
			if km.String() == " " && expiryPresets[f.Preset].d == 0 {
				break
			}
			f.Preset = (f.Preset + 1) % len(expiryPresets)
			f.Validate()
			return nil
		}
	case fProject:
		switch km.String() {
		case "left":
			f.project = (f.project + len(f.Projects)) % (len(f.Projects) + 1)
			return nil
		case "right", " ":
			f.project = (f.project + 1) % (len(f.Projects) + 1)
			return nil
		}
	case FSplit:
		if km.String() == "enter" || km.String() == "s" {
			return f.openSplit()
		}
	case fSubmit:
		if km.String() == "enter" {
			return f.submit()
		}
	case FMetadata:
		// enter is the textarea's: a new line separates pairs. The field grows with its lines
		// (room for one more before the key, so the first line never scrolls away).
		f.Meta.SetHeight(min(f.Meta.LineCount()+1, metaMaxRows))
		var cmd tea.Cmd
		f.Meta, cmd = f.Meta.Update(km)
		f.Meta.SetHeight(min(max(f.Meta.LineCount(), 2), metaMaxRows))
		f.Validate()
		return cmd
	}
	if km.String() == "enter" {
		f.SetFocus(f.Field + 1)
		return nil
	}
	if f.Field == FDescription {
		return f.editDescription(km)
	}
	if f.Field < fieldCount && f.CapturesText() {
		var cmd tea.Cmd
		f.Inputs[f.Field], cmd = f.Inputs[f.Field].Update(km)
		f.server[f.Field] = ""
		f.Validate()
		return cmd
	}
	return nil
}

// editDescription edits the description. While it still holds the untouched default, typing
// replaces it and backspace clears it; any other key (arrows, home/end) keeps it for editing.
func (f *ChargeForm) editDescription(km tea.KeyMsg) tea.Cmd {
	in := &f.Inputs[FDescription]
	if f.descDefault {
		f.descDefault = false
		switch km.Type {
		case tea.KeyRunes, tea.KeySpace:
			in.SetValue("")
		case tea.KeyBackspace, tea.KeyDelete, tea.KeyCtrlH:
			in.SetValue("")
			f.server[FDescription] = ""
			f.touched[FDescription] = true
			f.Validate()
			return nil
		}
	}
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(km)
	if in.Value() != before {
		// Cleared or edited: its message shows at once, not only after leaving the field.
		f.touched[FDescription] = true
		f.server[FDescription] = ""
	}
	f.Validate()
	return cmd
}

// openSplit shows the split builder (with a first empty leg when there is none) and loads the wallet list.
func (f *ChargeForm) openSplit() tea.Cmd {
	if f.Sb == nil {
		f.Sb = NewSplitBuilder(f.C, f.Wallet)
		f.Sb.SetSize(f.width, f.height)
	}
	f.SplitOpen = true
	var cmd tea.Cmd
	if !f.Sb.HasLegs() {
		cmd = f.Sb.addLeg()
	}
	f.Validate()
	return tea.Batch(cmd, f.Sb.loadWallets())
}

// closeSplit returns to the form, keeping the legs (empty ones are dropped).
func (f *ChargeForm) closeSplit() {
	f.SplitOpen = false
	if f.Sb != nil {
		f.Sb.dropEmpty()
		if f.Sb.takeDirty() {
			f.server[FSplit] = ""
		}
	}
	f.touched[FSplit] = true
	f.Validate()
}

// updateSplit routes a key to the open split builder; esc or ctrl+p closes it, ctrl+s submits the form.
func (f *ChargeForm) updateSplit(km tea.KeyMsg) tea.Cmd {
	k := f.C.Keys
	switch {
	case key.Matches(km, k.Back), key.Matches(km, k.Split):
		f.closeSplit()
		return nil
	case key.Matches(km, k.Submit):
		return f.submit()
	}
	cmd, done := f.Sb.Update(km)
	if f.Sb.takeDirty() {
		f.server[FSplit] = ""
	}
	if done {
		f.closeSplit()
	}
	f.Validate()
	return cmd
}

// ShortHelp lists the keys that work now: the builder's while it is open, else the form's.
func (f *ChargeForm) ShortHelp() []key.Binding {
	k := f.C.Keys
	if f.SplitOpen && f.Sb != nil {
		// The builder lists its own keys, wrapped, above the footer.
		return []key.Binding{k.Submit, k.Back}
	}
	return []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}
}

// FullHelp lists every key of the form and of its split builder.
func (f *ChargeForm) FullHelp() [][]key.Binding {
	k := f.C.Keys
	return [][]key.Binding{{k.NextField, k.PrevField, k.Submit, k.Split, k.Back, k.AddLeg, k.RemoveLeg, k.MoveUp, k.MoveDn, k.PrevLeg, k.NextLeg, k.PickWallet}}
}

// SplitCheck checks the builder's legs; false when the form has no split.
func (f *ChargeForm) SplitCheck() (splitCheck, bool) {
	if f.Sb == nil || !f.Sb.HasLegs() {
		return splitCheck{}, false
	}
	return f.Sb.Check(), true
}

// expiry returns the chosen expiry duration.
func (f *ChargeForm) expiry() (time.Duration, error) {
	if d := expiryPresets[f.Preset].d; d != 0 {
		return d, nil
	}
	d, err := common.ParseDuration(f.C.Tr, f.Inputs[fExpiry].Value())
	if err != nil {
		return 0, err
	}
	return d, common.CheckExpiry(f.C.Tr, d)
}

// Validate checks every field against the spec's limits; messages go next to the fields.
func (f *ChargeForm) Validate() (api.CreatePixRequest, bool) {
	tr := f.C.Tr
	f.Errs = [fieldCount]string{}
	var req api.CreatePixRequest
	set := func(i int, err error) {
		if err != nil {
			f.Errs[i] = common.LocalMessage(tr, err.Error())
		}
	}
	amt, err := api.ParseBRL(f.Inputs[FAmount].Value())
	if f.Sb != nil {
		f.Sb.SetGross(amt, err == nil && amt > 0)
	}
	switch {
	case err != nil:
		set(FAmount, common.AmountError(tr, err))
	case amt < api.MinChargeAmount:
		f.Errs[FAmount] = tr.T("newcharge.the_minimum_charge_is_r_1")
	default:
		req.Amount = amt
	}
	req.Description = strings.TrimSpace(f.Inputs[FDescription].Value())
	if req.Description == "" {
		// The service refuses a charge without one ("description should not be empty").
		f.Errs[FDescription] = tr.T("newcharge.description_is_required")
	} else {
		set(FDescription, common.CheckMaxLen(tr, req.Description, api.MaxDescription))
	}
	if d, err := f.expiry(); err != nil {
		set(fExpiry, err)
	} else {
		req.ExpiresIn = int(d / time.Second)
	}
	req.ExternalReference = strings.TrimSpace(f.Inputs[fExternalRef].Value())
	set(fExternalRef, common.CheckMaxLen(tr, req.ExternalReference, api.MaxExternalRef))
	if f.project > 0 && f.project <= len(f.Projects) {
		req.ProjectID = f.Projects[f.project-1].ID
	}
	doc, _, docErr := common.CheckDocument(tr, f.Inputs[FDocument].Value())
	cust := api.Customer{
		Name:     strings.TrimSpace(f.Inputs[FName].Value()),
		Document: doc,
		Email:    strings.TrimSpace(f.Inputs[fEmail].Value()),
		Phone:    strings.TrimSpace(f.Inputs[fPhone].Value()),
	}
	set(FName, common.CheckMaxLen(tr, cust.Name, 255))
	set(FDocument, docErr)
	set(fEmail, common.CheckEmail(tr, cust.Email))
	set(fPhone, common.CheckPhone(tr, cust.Phone))
	if !cust.IsZero() {
		req.Customer = &cust
	}
	meta, err := common.ParseMetadata(tr, f.Meta.Value())
	set(FMetadata, err)
	req.Metadata = meta
	if ck, ok := f.SplitCheck(); ok {
		req.Split = ck.items
		if !ck.Ok() {
			f.Errs[FSplit] = ck.First
		}
	}
	for _, p := range api.CheckCreatePix(&req) {
		switch p.Field {
		case api.FieldDescription:
			if f.Errs[FDescription] == "" {
				f.Errs[FDescription] = common.LocalMessage(tr, p.Msg)
			}
		case api.FieldExpiresIn:
			if f.Errs[fExpiry] == "" {
				f.Errs[fExpiry] = tr.T("newcharge.expiry_must_be_between_5_minutes")
			}
		case api.FieldExternalRef:
			if f.Errs[fExternalRef] == "" {
				f.Errs[fExternalRef] = common.LocalMessage(tr, p.Msg)
			}
		}
	}
	for _, e := range f.Errs {
		if e != "" {
			return req, false
		}
	}
	return req, true
}

func (f *ChargeForm) submit() tea.Cmd {
	f.Tried = true
	req, ok := f.Validate()
	if i, fix := common.FixHighlighted(f.C, f.Errs[:], common.OwnerForm); !ok && i >= 0 {
		if i == FSplit {
			// The builder shows the message on the leg that breaks the rule.
			text := f.C.Tr.F("newcharge.the_split_breaks_a_rule_nothing", f.Errs[i])
			fix = func() tea.Msg { return common.StatusMsg{Text: text, Kind: common.StatusError, Owner: common.OwnerForm} }
		} else if f.SplitOpen {
			f.closeSplit()
		}
		f.SetFocus(i)
		return fix
	}
	if f.Sending {
		return nil
	}
	d := ChargeDraft{Key: f.Key, Wallet: f.Wallet, Req: req}
	return func() tea.Msg { return ChargeSubmitMsg{Draft: d} }
}

// FieldLabel names each field for the view.
func (f *ChargeForm) FieldLabel(i int) string {
	tr := f.C.Tr
	return [...]string{
		tr.T("newcharge.amount"), tr.T("newcharge.description"), tr.T("newcharge.expires_in"), tr.T("newcharge.external_ref"), tr.T("newcharge.project"),
		tr.T("newcharge.payer_name_2"), tr.T("newcharge.cpf_cnpj_caps"), tr.T("newcharge.e_mail"), tr.T("newcharge.phone"), tr.T("newcharge.metadata"), tr.T("newcharge.split"), "",
	}[i]
}

// View renders it at the size it was given; it changes nothing.
func (f *ChargeForm) View() string {
	return f.formView()
}

// formView is the form (or its split builder) without a question over it.
func (f *ChargeForm) formView() string {
	w := f.width
	if f.SplitOpen && f.Sb != nil {
		return f.Sb.View()
	}
	st, tr := f.C.St, f.C.Tr
	var b strings.Builder
	title := tr.T("newcharge.new_charge")
	if f.Wallet != "" && f.Wallet != api.WalletPrincipal {
		title += " · " + tr.F("newcharge.wallet", common.Sanitize(f.Wallet))
	}
	b.WriteString(st.Bold.Render(title) + "\n")
	labelW := 14 // the longest label and a space (pt-BR's "Nome do pagador" needs 16)
	for i := range fieldCount {
		labelW = max(labelW, lipgloss.Width(f.FieldLabel(i))+1)
	}
	for i := 0; i < fieldCount; i++ {
		label := common.PadRight(f.FieldLabel(i), labelW)
		if i == f.Field {
			label = st.FieldFocus.Render("› " + label)
		} else {
			label = st.FieldLabel.Render("  " + label)
		}
		var val string
		switch i {
		case fExpiry:
			p := expiryPresets[f.Preset]
			name := tr.T(p.label)
			val = "‹ " + name + " ›"
			if p.d == 0 {
				val += " " + f.Inputs[fExpiry].View()
			}
		case fProject:
			switch {
			case f.ProjLoad:
				val = st.Muted.Render(tr.T("newcharge.loading_projects"))
			case f.projErr != "":
				val = st.Err.Render(tr.T("newcharge.projects_unavailable")) + st.Muted.Render(" · "+tr.T("newcharge.the_default_applies"))
			case f.project == 0:
				val = "‹ " + tr.T("newcharge.default") + " ›"
				if len(f.Projects) == 1 {
					val += st.Muted.Render(" " + common.Sanitize(f.Projects[0].Name))
				}
			default:
				val = "‹ " + common.Sanitize(f.Projects[f.project-1].Name) + " ›"
			}
		case FMetadata:
			// Its second and later rows go under the field, not under the labels.
			val = strings.ReplaceAll(f.Meta.View(), "\n", "\n"+common.Spaces(lipgloss.Width(label)))
		case FSplit:
			if ck, ok := f.SplitCheck(); ok {
				val = f.Sb.Summary(ck)
			} else {
				val = st.Muted.Render(tr.T("newcharge.none_enter_to_build_one"))
			}
		case fSubmit:
			btn := "[ " + tr.T("newcharge.create_charge") + " ]"
			if i == f.Field {
				btn = st.FieldFocus.Render(btn)
			}
			b.WriteString("  " + common.Spaces(labelW) + btn + "\n")
			continue
		default:
			val = f.Inputs[i].View()
		}
		line := label + val
		if i == FAmount {
			if p := common.AmountPreview(tr, f.Inputs[FAmount].Value()); p != "" {
				line += st.Muted.Render("  " + p)
			}
		}
		if i == FDescription && f.descDefault && f.Field == FDescription {
			hint := tr.T("newcharge.default_typing_replaces_it")
			if room := w - lipgloss.Width(line) - 2; lipgloss.Width(hint) > room {
				hint = tr.T("newcharge.type_to_replace")
			}
			line += st.Muted.Render("  " + hint)
		}
		e := f.Errs[i]
		if e == "" || i == FSplit { // the split's summary already says what is wrong
			e = f.server[i]
		}
		e = common.Sanitize(e) // the service's refusal is text from outside
		if e != "" && (f.touched[i] || f.Tried) {
			// Beside the field when it fits whole, else wrapped under it: the message says what
			// to write, so none of it is cut.
			msg := "✗ " + e
			if lipgloss.Width(msg) <= w-lipgloss.Width(line)-2 {
				line += "  " + st.FieldErr.Render(msg)
			} else {
				for _, l := range strings.Split(ansi.Wrap(msg, max(w-labelW-2, 10), ""), "\n") {
					line += "\n" + common.Spaces(labelW+2) + st.FieldErr.Render(l)
				}
			}
		}
		b.WriteString(line + "\n")
		if i == FMetadata {
			for _, l := range f.metadataNotes(w - labelW - 2) {
				b.WriteString(common.Spaces(labelW+2) + l + "\n")
			}
		}
	}
	b.WriteString(st.Muted.Render(tr.F("newcharge.idempotency_key", f.Key)))
	return b.String()
}

// ServerError places a refusal next to the field it names (the service's messages start with it).
// A refusal means nothing was created, so the next attempt gets a new Idempotency-Key (an edited body
// under the old key could be refused as a reuse). A split refusal reopens the builder with the message
// on its leg; the DomainError of the split sum reveals the real fee, which the builder adopts and the
// returned command persists (store.LearnFee) for later forms.
func (f *ChargeForm) ServerError(err error) tea.Cmd {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return nil
	}
	f.Key = f.C.NewKey()
	if errors.Is(err, api.ErrSplitSum) && f.Sb != nil && f.Sb.HasLegs() {
		if info, ok := ae.SplitSum(); ok {
			f.Sb.learn(info.Fee)
			f.SplitOpen = true
			f.Validate()
			store := f.C.App.Sess.Store
			lf := state.LearnedFee{Fee: info.Fee, From: ae.Message, Wallet: f.Wallet}
			return f.C.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg { return common.PersistMsg{Err: store.LearnFee(ctx, lf)} })
		}
	}
	fields := map[string]int{
		api.FieldAmount: FAmount, api.FieldDescription: FDescription, api.FieldExpiresIn: fExpiry,
		api.FieldExternalRef: fExternalRef, api.FieldProjectID: fProject, "customer": FName,
		"metadata": FMetadata, api.FieldSplit: FSplit, "Subconta": FSplit, "A soma do split": FSplit,
		"A conta que origina": FSplit, "A cobrança foi criada": FSplit,
	}
	for prefix, i := range fields {
		if strings.HasPrefix(ae.Message, prefix) {
			f.server[i] = common.ServiceMessage(f.C.Tr, ae.Message)
			f.touched[i] = true
			if i == FSplit && f.Sb != nil && f.Sb.HasLegs() {
				f.Sb.setServer(common.ServiceMessage(f.C.Tr, ae.Message))
				f.SplitOpen = true
			}
			return nil
		}
	}
	return nil
}

// dirty reports whether anything was typed or chosen since the form opened (what esc and
// quitting would throw away).
func (f *ChargeForm) dirty() bool {
	for i := range f.Inputs {
		v := f.Inputs[i].Value()
		if i == FDescription {
			if v != f.descInit {
				return true
			}
			continue
		}
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return strings.TrimSpace(f.Meta.Value()) != "" || f.Preset != defaultExpiryPreset || f.project != 0 ||
		(f.Sb != nil && f.Sb.HasLegs())
}

// DiscardQuestion is what esc asks before the form is thrown away. While a request may land it
// says so: discarding closes the form, not the request, and its submission stays recorded, so
// the charge is found by its key if it is created.
func (f *ChargeForm) DiscardQuestion() string {
	tr := f.C.Tr
	switch {
	case f.Sending:
		return tr.T("newcharge.a_request_is_being_sent_and")
	case f.MayLand:
		return tr.T("newcharge.a_request_was_sent_and_may")
	}
	return tr.T("newcharge.discard_this_charge_nothing_was_sent")
}

// QuitQuestion is what quitting asks when the form holds something typed ("" when untouched).
// While a request may land it says that the charge may be created and is looked up next time.
func (f *ChargeForm) QuitQuestion() string {
	if f.MayLand {
		return f.C.Tr.T("newcharge.a_request_for_this_charge_was")
	}
	if !f.dirty() || f.Sending {
		return ""
	}
	return f.C.Tr.T("newcharge.quit_and_discard_the_charge_being")
}

// metadataNotes are the lines under the metadata field: how to write pairs (while it is
// focused or empty of pairs) and the pairs that will be sent, as they will be sent.
func (f *ChargeForm) metadataNotes(w int) []string {
	st, tr := f.C.St, f.C.Tr
	var out []string
	pairs, err := common.ParseMetadataPairs(tr, f.Meta.Value())
	if f.Field == FMetadata {
		hint := tr.T("newcharge.e_g_mesa_4_garcom_joao")
		for _, l := range common.PackSegments(strings.Split(hint, " · "), " · ", max(w, 20), 0) {
			out = append(out, st.Muted.Render(l))
		}
	}
	if err != nil || len(pairs) == 0 {
		return out
	}
	shown := make([]string, len(pairs))
	for i, p := range pairs {
		shown[i] = p.String()
	}
	line := tr.N("newcharge.sends_pairs_n", len(pairs), len(pairs), strings.Join(shown, " · "))
	return append(out, st.Muted.Render(common.TruncateWidth(line, max(w, 20))))
}

// ClockKey says nothing on the form changes with the clock (see common.Clocked).
func (f *ChargeForm) ClockKey(time.Time) string { return "" }
