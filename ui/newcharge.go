package ui

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

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
	fAmount = iota
	fDescription
	fExpiry
	fExternalRef
	fProject
	fName
	fDocument
	fEmail
	fPhone
	fMetadata
	fSplit
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

// chargeDraft is a validated charge ready to send, with the key minted when the form opened.
type chargeDraft struct {
	Key    string
	Wallet string
	Req    api.CreatePixRequest
}

// chargeSubmitMsg asks the root to send a draft.
type chargeSubmitMsg struct{ draft chargeDraft }

// chargeForm is the new-charge form.
type chargeForm struct {
	common.Closer
	c        *common.Common
	key      string // Idempotency-Key, minted when the form opens
	wallet   string
	field    int // the focused field
	inputs   [fieldCount]textinput.Model
	meta     textarea.Model
	preset   int
	projects []api.Project
	projErr  string
	projLoad bool
	project  int // 0 = default (none sent)
	touched  [fieldCount]bool
	errs     [fieldCount]string
	server   [fieldCount]string // the service's refusal, shown until the field changes
	tried    bool
	sending  bool
	// mayLand: a request with this form's key went out and its outcome is not known (being
	// sent, or the reply was lost): the charge may still be created, and the submission stays
	// recorded for recovery whatever the form does.
	mayLand bool
	// descDefault: the description still holds the profile's default, untouched; the first
	// character typed into it replaces the default instead of being appended to it.
	descDefault bool
	// sb is the split builder (nil until first opened); while splitOpen it gets the keys and the screen.
	sb            *splitBuilder
	splitOpen     bool
	width, height int
	// descInit is the description the form opened with (what "untouched" compares to).
	descInit string
}

func newChargeForm(c *common.Common, wallet, key string) *chargeForm {
	f := &chargeForm{c: c, key: key, wallet: wallet, preset: defaultExpiryPreset, projLoad: true}
	mk := func(placeholder string, limit int) textinput.Model {
		ti := textinput.New()
		ti.Prompt = ""
		ti.Placeholder = placeholder
		ti.CharLimit = limit
		return ti
	}
	for i := range f.inputs {
		f.inputs[i] = mk("", 0)
	}
	f.inputs[fAmount] = mk("12,34", 20)
	f.inputs[fDescription] = mk(c.Tr.T("newcharge.what_is_being_paid"), 300)
	f.inputs[fExpiry] = mk("90m, 2h, 3d", 12)
	f.inputs[fExternalRef] = mk(c.Tr.T("newcharge.your_order_id"), 300)
	f.inputs[fName] = mk(c.Tr.T("newcharge.payer_name"), 120)
	f.inputs[fDocument] = mk("000.000.000-00", 20)
	f.inputs[fEmail] = mk(c.Tr.T("newcharge.name_example_com"), 120)
	f.inputs[fPhone] = mk("+55 11 91234-5678", 20)
	f.meta = textarea.New()
	f.meta.Placeholder = c.Tr.T("newcharge.order_1234")
	f.meta.ShowLineNumbers = false
	f.meta.Prompt = ""
	f.meta.SetHeight(2)
	f.meta.CharLimit = 2000
	// The service requires a description: start with the profile's default, so an amount and
	// ctrl+s are enough at the counter.
	f.inputs[fDescription].SetValue(common.Sanitize(c.App.Sess.Description())) // from the config
	f.inputs[fDescription].CursorEnd()
	f.descDefault = true
	f.descInit = f.inputs[fDescription].Value()
	f.field = fieldCount // nothing is focused yet, so nothing counts as touched
	f.setFocus(fAmount)
	return f
}

// StatusOwner: the form's messages ("Fix the highlighted fields") go when it closes.
func (f *chargeForm) StatusOwner() string { return common.OwnerForm }

// Layer: the form takes the body's place; header, tabs and footer stay.
func (f *chargeForm) Layer() common.Layer { return common.LayerBody }

// Focus needs nothing: the project list is loaded by the root when the form opens.
func (f *chargeForm) Focus() tea.Cmd { return nil }

// Start reads nothing: the root reads the projects for the form (openForm).
func (f *chargeForm) Start() tea.Cmd { return nil }

// Blur leaves the fields as they are.
func (f *chargeForm) Blur() {}

func (f *chargeForm) SetSize(w, h int) tea.Cmd {
	f.width, f.height = w, h
	if f.sb != nil {
		f.sb.SetSize(w, h)
	}
	iw := w - 16 - 2
	if iw > 44 {
		iw = 44
	}
	if iw < 10 {
		iw = 10
	}
	for i := range f.inputs {
		f.inputs[i].Width = iw
	}
	f.meta.SetWidth(iw)
	return nil
}

func (f *chargeForm) setFocus(i int) {
	if f.field < fieldCount {
		f.touched[f.field] = true
	}
	f.field = i
	for j := range f.inputs {
		if j == i && isTextField(j) {
			f.inputs[j].Focus()
		} else {
			f.inputs[j].Blur()
		}
	}
	if i == fMetadata {
		f.meta.Focus()
	} else {
		f.meta.Blur()
	}
	f.validate()
}

// isTextField reports whether field i is edited through its text input.
func isTextField(i int) bool {
	switch i {
	case fProject, fMetadata, fSplit, fSubmit:
		return false
	}
	return true
}

// CapturesText reports whether printable keys belong to the focused field.
func (f *chargeForm) CapturesText() bool {
	switch f.field {
	case fProject, fSplit, fSubmit:
		return false
	case fExpiry:
		return expiryPresets[f.preset].d == 0
	}
	return true
}

func (f *chargeForm) setProjects(ps []api.Project, err error) {
	f.projLoad = false
	if err != nil {
		f.projErr = err.Error()
		return
	}
	f.projects = ps
	if f.project > len(ps) {
		f.project = 0
	}
}

func (f *chargeForm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		switch m := msg.(type) {
		case splitWalletsMsg:
			if f.sb != nil {
				f.sb.onWallets(m)
				f.validate()
			}
		case common.ProjectsMsg:
			if !f.c.App.Stale(m.Tag) {
				f.setProjects(m.Items, m.Err)
			}
		}
		return nil
	}
	k := f.c.Keys
	if f.splitOpen {
		return f.updateSplit(km)
	}
	switch {
	case key.Matches(km, k.Back):
		// Something was typed, or a request may still land: throwing it away takes a yes.
		f.Ask(common.DiscardGuard(f.c, f.dirty() || f.mayLand, f.discardQuestion(), f.Close))
		return nil
	case key.Matches(km, k.Submit):
		return f.submit()
	case key.Matches(km, k.NextField):
		f.setFocus((f.field + 1) % fieldCount)
		return nil
	case key.Matches(km, k.PrevField):
		f.setFocus((f.field + fieldCount - 1) % fieldCount)
		return nil
	case key.Matches(km, k.Split):
		return f.openSplit()
	}

	switch f.field {
	case fExpiry:
		switch km.String() {
		case "left":
			f.preset = (f.preset + len(expiryPresets) - 1) % len(expiryPresets)
			f.validate()
			return nil
		case "right", " ":
			if km.String() == " " && expiryPresets[f.preset].d == 0 {
				break
			}
			f.preset = (f.preset + 1) % len(expiryPresets)
			f.validate()
			return nil
		}
	case fProject:
		switch km.String() {
		case "left":
			f.project = (f.project + len(f.projects)) % (len(f.projects) + 1)
			return nil
		case "right", " ":
			f.project = (f.project + 1) % (len(f.projects) + 1)
			return nil
		}
	case fSplit:
		if km.String() == "enter" || km.String() == "s" {
			return f.openSplit()
		}
	case fSubmit:
		if km.String() == "enter" {
			return f.submit()
		}
	case fMetadata:
		// enter is the textarea's: a new line separates pairs. The field grows with its lines
		// (room for one more before the key, so the first line never scrolls away).
		f.meta.SetHeight(min(f.meta.LineCount()+1, metaMaxRows))
		var cmd tea.Cmd
		f.meta, cmd = f.meta.Update(km)
		f.meta.SetHeight(min(max(f.meta.LineCount(), 2), metaMaxRows))
		f.validate()
		return cmd
	}
	if km.String() == "enter" {
		f.setFocus(f.field + 1)
		return nil
	}
	if f.field == fDescription {
		return f.editDescription(km)
	}
	if f.field < fieldCount && f.CapturesText() {
		var cmd tea.Cmd
		f.inputs[f.field], cmd = f.inputs[f.field].Update(km)
		f.server[f.field] = ""
		f.validate()
		return cmd
	}
	return nil
}

// editDescription edits the description. While it still holds the untouched default, typing
// replaces it and backspace clears it; any other key (arrows, home/end) keeps it for editing.
func (f *chargeForm) editDescription(km tea.KeyMsg) tea.Cmd {
	in := &f.inputs[fDescription]
	if f.descDefault {
		f.descDefault = false
		switch km.Type {
		case tea.KeyRunes, tea.KeySpace:
			in.SetValue("")
		case tea.KeyBackspace, tea.KeyDelete, tea.KeyCtrlH:
			in.SetValue("")
			f.server[fDescription] = ""
			f.touched[fDescription] = true
			f.validate()
			return nil
		}
	}
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(km)
	if in.Value() != before {
		// Cleared or edited: its message shows at once, not only after leaving the field.
		f.touched[fDescription] = true
		f.server[fDescription] = ""
	}
	f.validate()
	return cmd
}

// openSplit shows the split builder (with a first empty leg when there is none) and loads the wallet list.
func (f *chargeForm) openSplit() tea.Cmd {
	if f.sb == nil {
		f.sb = newSplitBuilder(f.c, f.wallet)
		f.sb.SetSize(f.width, f.height)
	}
	f.splitOpen = true
	var cmd tea.Cmd
	if !f.sb.hasLegs() {
		cmd = f.sb.addLeg()
	}
	f.validate()
	return tea.Batch(cmd, f.sb.loadWallets())
}

// closeSplit returns to the form, keeping the legs (empty ones are dropped).
func (f *chargeForm) closeSplit() {
	f.splitOpen = false
	if f.sb != nil {
		f.sb.dropEmpty()
		if f.sb.takeDirty() {
			f.server[fSplit] = ""
		}
	}
	f.touched[fSplit] = true
	f.validate()
}

// updateSplit routes a key to the open split builder; esc or ctrl+p closes it, ctrl+s submits the form.
func (f *chargeForm) updateSplit(km tea.KeyMsg) tea.Cmd {
	k := f.c.Keys
	switch {
	case key.Matches(km, k.Back), key.Matches(km, k.Split):
		f.closeSplit()
		return nil
	case key.Matches(km, k.Submit):
		return f.submit()
	}
	cmd, done := f.sb.Update(km)
	if f.sb.takeDirty() {
		f.server[fSplit] = ""
	}
	if done {
		f.closeSplit()
	}
	f.validate()
	return cmd
}

// ShortHelp lists the keys that work now: the builder's while it is open, else the form's.
func (f *chargeForm) ShortHelp() []key.Binding {
	k := f.c.Keys
	if f.splitOpen && f.sb != nil {
		// The builder lists its own keys, wrapped, above the footer.
		return []key.Binding{k.Submit, k.Back}
	}
	return []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}
}

// FullHelp lists every key of the form and of its split builder.
func (f *chargeForm) FullHelp() [][]key.Binding {
	k := f.c.Keys
	return [][]key.Binding{{k.NextField, k.PrevField, k.Submit, k.Split, k.Back, k.AddLeg, k.RemoveLeg, k.MoveUp, k.MoveDn, k.PrevLeg, k.NextLeg, k.PickWallet}}
}

// splitCheck checks the builder's legs; false when the form has no split.
func (f *chargeForm) splitCheck() (splitCheck, bool) {
	if f.sb == nil || !f.sb.hasLegs() {
		return splitCheck{}, false
	}
	return f.sb.check(), true
}

// expiry returns the chosen expiry duration.
func (f *chargeForm) expiry() (time.Duration, error) {
	if d := expiryPresets[f.preset].d; d != 0 {
		return d, nil
	}
	d, err := common.ParseDuration(f.c.Tr, f.inputs[fExpiry].Value())
	if err != nil {
		return 0, err
	}
	return d, common.CheckExpiry(f.c.Tr, d)
}

// validate checks every field against the spec's limits; messages go next to the fields.
func (f *chargeForm) validate() (api.CreatePixRequest, bool) {
	tr := f.c.Tr
	f.errs = [fieldCount]string{}
	var req api.CreatePixRequest
	set := func(i int, err error) {
		if err != nil {
			f.errs[i] = common.LocalMessage(tr, err.Error())
		}
	}
	amt, err := api.ParseBRL(f.inputs[fAmount].Value())
	if f.sb != nil {
		f.sb.setGross(amt, err == nil && amt > 0)
	}
	switch {
	case err != nil:
		set(fAmount, common.AmountError(tr, err))
	case amt < api.MinChargeAmount:
		f.errs[fAmount] = tr.T("newcharge.the_minimum_charge_is_r_1")
	default:
		req.Amount = amt
	}
	req.Description = strings.TrimSpace(f.inputs[fDescription].Value())
	if req.Description == "" {
		// The service refuses a charge without one ("description should not be empty").
		f.errs[fDescription] = tr.T("newcharge.description_is_required")
	} else {
		set(fDescription, common.CheckMaxLen(tr, req.Description, api.MaxDescription))
	}
	if d, err := f.expiry(); err != nil {
		set(fExpiry, err)
	} else {
		req.ExpiresIn = int(d / time.Second)
	}
	req.ExternalReference = strings.TrimSpace(f.inputs[fExternalRef].Value())
	set(fExternalRef, common.CheckMaxLen(tr, req.ExternalReference, api.MaxExternalRef))
	if f.project > 0 && f.project <= len(f.projects) {
		req.ProjectID = f.projects[f.project-1].ID
	}
	doc, _, docErr := common.CheckDocument(tr, f.inputs[fDocument].Value())
	cust := api.Customer{
		Name:     strings.TrimSpace(f.inputs[fName].Value()),
		Document: doc,
		Email:    strings.TrimSpace(f.inputs[fEmail].Value()),
		Phone:    strings.TrimSpace(f.inputs[fPhone].Value()),
	}
	set(fName, common.CheckMaxLen(tr, cust.Name, 255))
	set(fDocument, docErr)
	set(fEmail, common.CheckEmail(tr, cust.Email))
	set(fPhone, common.CheckPhone(tr, cust.Phone))
	if !cust.IsZero() {
		req.Customer = &cust
	}
	meta, err := common.ParseMetadata(tr, f.meta.Value())
	set(fMetadata, err)
	req.Metadata = meta
	if ck, ok := f.splitCheck(); ok {
		req.Split = ck.items
		if !ck.ok() {
			f.errs[fSplit] = ck.first
		}
	}
	for _, p := range api.CheckCreatePix(&req) {
		switch p.Field {
		case api.FieldDescription:
			if f.errs[fDescription] == "" {
				f.errs[fDescription] = common.LocalMessage(tr, p.Msg)
			}
		case api.FieldExpiresIn:
			if f.errs[fExpiry] == "" {
				f.errs[fExpiry] = tr.T("newcharge.expiry_must_be_between_5_minutes")
			}
		case api.FieldExternalRef:
			if f.errs[fExternalRef] == "" {
				f.errs[fExternalRef] = common.LocalMessage(tr, p.Msg)
			}
		}
	}
	for _, e := range f.errs {
		if e != "" {
			return req, false
		}
	}
	return req, true
}

func (f *chargeForm) submit() tea.Cmd {
	f.tried = true
	req, ok := f.validate()
	if i, fix := common.FixHighlighted(f.c, f.errs[:], common.OwnerForm); !ok && i >= 0 {
		if i == fSplit {
			// The builder shows the message on the leg that breaks the rule.
			text := f.c.Tr.F("newcharge.the_split_breaks_a_rule_nothing", f.errs[i])
			fix = func() tea.Msg { return common.StatusMsg{Text: text, Kind: common.StatusError, Owner: common.OwnerForm} }
		} else if f.splitOpen {
			f.closeSplit()
		}
		f.setFocus(i)
		return fix
	}
	if f.sending {
		return nil
	}
	d := chargeDraft{Key: f.key, Wallet: f.wallet, Req: req}
	return func() tea.Msg { return chargeSubmitMsg{draft: d} }
}

// fieldLabel names each field for the view.
func (f *chargeForm) fieldLabel(i int) string {
	tr := f.c.Tr
	return [...]string{
		tr.T("newcharge.amount"), tr.T("newcharge.description"), tr.T("newcharge.expires_in"), tr.T("newcharge.external_ref"), tr.T("newcharge.project"),
		tr.T("newcharge.payer_name_2"), tr.T("newcharge.cpf_cnpj_caps"), tr.T("newcharge.e_mail"), tr.T("newcharge.phone"), tr.T("newcharge.metadata"), tr.T("newcharge.split"), "",
	}[i]
}

func (f *chargeForm) View() string {
	return f.formView()
}

// formView is the form (or its split builder) without a question over it.
func (f *chargeForm) formView() string {
	w := f.width
	if f.splitOpen && f.sb != nil {
		return f.sb.View()
	}
	st, tr := f.c.St, f.c.Tr
	var b strings.Builder
	title := tr.T("newcharge.new_charge")
	if f.wallet != "" && f.wallet != api.WalletPrincipal {
		title += " · " + tr.F("newcharge.wallet", common.Sanitize(f.wallet))
	}
	b.WriteString(st.Bold.Render(title) + "\n")
	labelW := 14 // the longest label and a space (pt-BR's "Nome do pagador" needs 16)
	for i := range fieldCount {
		labelW = max(labelW, lipgloss.Width(f.fieldLabel(i))+1)
	}
	for i := 0; i < fieldCount; i++ {
		label := common.PadRight(f.fieldLabel(i), labelW)
		if i == f.field {
			label = st.FieldFocus.Render("› " + label)
		} else {
			label = st.FieldLabel.Render("  " + label)
		}
		var val string
		switch i {
		case fExpiry:
			p := expiryPresets[f.preset]
			name := tr.T(p.label)
			val = "‹ " + name + " ›"
			if p.d == 0 {
				val += " " + f.inputs[fExpiry].View()
			}
		case fProject:
			switch {
			case f.projLoad:
				val = st.Muted.Render(tr.T("newcharge.loading_projects"))
			case f.projErr != "":
				val = st.Err.Render(tr.T("newcharge.projects_unavailable")) + st.Muted.Render(" · "+tr.T("newcharge.the_default_applies"))
			case f.project == 0:
				val = "‹ " + tr.T("newcharge.default") + " ›"
				if len(f.projects) == 1 {
					val += st.Muted.Render(" " + common.Sanitize(f.projects[0].Name))
				}
			default:
				val = "‹ " + common.Sanitize(f.projects[f.project-1].Name) + " ›"
			}
		case fMetadata:
			// Its second and later rows go under the field, not under the labels.
			val = strings.ReplaceAll(f.meta.View(), "\n", "\n"+common.Spaces(lipgloss.Width(label)))
		case fSplit:
			if ck, ok := f.splitCheck(); ok {
				val = f.sb.summary(ck)
			} else {
				val = st.Muted.Render(tr.T("newcharge.none_enter_to_build_one"))
			}
		case fSubmit:
			btn := "[ " + tr.T("newcharge.create_charge") + " ]"
			if i == f.field {
				btn = st.FieldFocus.Render(btn)
			}
			b.WriteString("  " + common.Spaces(labelW) + btn + "\n")
			continue
		default:
			val = f.inputs[i].View()
		}
		line := label + val
		if i == fAmount {
			if p := common.AmountPreview(tr, f.inputs[fAmount].Value()); p != "" {
				line += st.Muted.Render("  " + p)
			}
		}
		if i == fDescription && f.descDefault && f.field == fDescription {
			hint := tr.T("newcharge.default_typing_replaces_it")
			if room := w - lipgloss.Width(line) - 2; lipgloss.Width(hint) > room {
				hint = tr.T("newcharge.type_to_replace")
			}
			line += st.Muted.Render("  " + hint)
		}
		e := f.errs[i]
		if e == "" || i == fSplit { // the split's summary already says what is wrong
			e = f.server[i]
		}
		e = common.Sanitize(e) // the service's refusal is text from outside
		if e != "" && (f.touched[i] || f.tried) {
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
		if i == fMetadata {
			for _, l := range f.metadataNotes(w - labelW - 2) {
				b.WriteString(common.Spaces(labelW+2) + l + "\n")
			}
		}
	}
	b.WriteString(st.Muted.Render(tr.F("newcharge.idempotency_key", f.key)))
	return b.String()
}

// serverError places a refusal next to the field it names (the service's messages start with it).
// A refusal means nothing was created, so the next attempt gets a new Idempotency-Key (an edited body
// under the old key could be refused as a reuse). A split refusal reopens the builder with the message
// on its leg; the DomainError of the split sum reveals the real fee, which the builder adopts and the
// returned command persists (store.LearnFee) for later forms.
func (f *chargeForm) serverError(err error) tea.Cmd {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return nil
	}
	f.key = f.c.NewKey()
	if errors.Is(err, api.ErrSplitSum) && f.sb != nil && f.sb.hasLegs() {
		if info, ok := ae.SplitSum(); ok {
			f.sb.learn(info.Fee)
			f.splitOpen = true
			f.validate()
			store := f.c.App.Sess.Store
			lf := state.LearnedFee{Fee: info.Fee, From: ae.Message, Wallet: f.wallet}
			return f.c.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg { return common.PersistMsg{Err: store.LearnFee(ctx, lf)} })
		}
	}
	fields := map[string]int{
		api.FieldAmount: fAmount, api.FieldDescription: fDescription, api.FieldExpiresIn: fExpiry,
		api.FieldExternalRef: fExternalRef, api.FieldProjectID: fProject, "customer": fName,
		"metadata": fMetadata, api.FieldSplit: fSplit, "Subconta": fSplit, "A soma do split": fSplit,
		"A conta que origina": fSplit, "A cobrança foi criada": fSplit,
	}
	for prefix, i := range fields {
		if strings.HasPrefix(ae.Message, prefix) {
			f.server[i] = common.ServiceMessage(f.c.Tr, ae.Message)
			f.touched[i] = true
			if i == fSplit && f.sb != nil && f.sb.hasLegs() {
				f.sb.setServer(common.ServiceMessage(f.c.Tr, ae.Message))
				f.splitOpen = true
			}
			return nil
		}
	}
	return nil
}

// dirty reports whether anything was typed or chosen since the form opened (what esc and
// quitting would throw away).
func (f *chargeForm) dirty() bool {
	for i := range f.inputs {
		v := f.inputs[i].Value()
		if i == fDescription {
			if v != f.descInit {
				return true
			}
			continue
		}
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return strings.TrimSpace(f.meta.Value()) != "" || f.preset != defaultExpiryPreset || f.project != 0 ||
		(f.sb != nil && f.sb.hasLegs())
}

// discardQuestion is what esc asks before the form is thrown away. While a request may land it
// says so: discarding closes the form, not the request, and its submission stays recorded, so
// the charge is found by its key if it is created.
func (f *chargeForm) discardQuestion() string {
	tr := f.c.Tr
	switch {
	case f.sending:
		return tr.T("newcharge.a_request_is_being_sent_and")
	case f.mayLand:
		return tr.T("newcharge.a_request_was_sent_and_may")
	}
	return tr.T("newcharge.discard_this_charge_nothing_was_sent")
}

// quitQuestion is what quitting asks when the form holds something typed ("" when untouched).
// While a request may land it says that the charge may be created and is looked up next time.
func (f *chargeForm) QuitQuestion() string {
	if f.mayLand {
		return f.c.Tr.T("newcharge.a_request_for_this_charge_was")
	}
	if !f.dirty() || f.sending {
		return ""
	}
	return f.c.Tr.T("newcharge.quit_and_discard_the_charge_being")
}

// metadataNotes are the lines under the metadata field: how to write pairs (while it is
// focused or empty of pairs) and the pairs that will be sent, as they will be sent.
func (f *chargeForm) metadataNotes(w int) []string {
	st, tr := f.c.St, f.c.Tr
	var out []string
	pairs, err := common.ParseMetadataPairs(tr, f.meta.Value())
	if f.field == fMetadata {
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
