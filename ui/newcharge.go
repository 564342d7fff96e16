package ui

import (
	"errors"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
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

// chargeDraft is a validated charge ready to send, with the key minted when the form opened.
type chargeDraft struct {
	Key    string
	Wallet string
	Req    api.CreatePixRequest
}

// chargeSubmitMsg asks the root to send a draft.
type chargeSubmitMsg struct{ draft chargeDraft }

// formCancelMsg closes the form.
type formCancelMsg struct{}

// openSplitMsg asks the root to open the split builder for the form.
type openSplitMsg struct{}

// chargeForm is the new-charge form.
type chargeForm struct {
	c        *common
	key      string // Idempotency-Key, minted when the form opens
	wallet   string
	focus    int
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
	split    []api.SplitItem // accepted legs from the split builder
	splitSum string          // one-line summary from the builder
	sending  bool
}

func newChargeForm(c *common, wallet, key string) *chargeForm {
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
	f.inputs[fDescription] = mk(c.tr.T("what is being paid"), 300)
	f.inputs[fExpiry] = mk("90m, 2h, 3d", 12)
	f.inputs[fExternalRef] = mk(c.tr.T("your order id"), 300)
	f.inputs[fName] = mk(c.tr.T("payer name"), 120)
	f.inputs[fDocument] = mk("000.000.000-00", 20)
	f.inputs[fEmail] = mk("name@example.com", 120)
	f.inputs[fPhone] = mk("+55 11 91234-5678", 20)
	f.meta = textarea.New()
	f.meta.Placeholder = "order=1234"
	f.meta.ShowLineNumbers = false
	f.meta.Prompt = ""
	f.meta.SetHeight(2)
	f.meta.CharLimit = 2000
	f.setFocus(fAmount)
	return f
}

func (f *chargeForm) setSize(w, _ int) {
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
}

func (f *chargeForm) setFocus(i int) {
	if f.focus < fieldCount {
		f.touched[f.focus] = true
	}
	f.focus = i
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

// capturesText reports whether printable keys belong to the focused field.
func (f *chargeForm) capturesText() bool {
	switch f.focus {
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
}

func (f *chargeForm) update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := f.c.keys
	switch {
	case key.Matches(km, k.Back):
		return func() tea.Msg { return formCancelMsg{} }
	case key.Matches(km, k.Submit):
		return f.submit()
	case key.Matches(km, k.NextField):
		f.setFocus((f.focus + 1) % fieldCount)
		return nil
	case key.Matches(km, k.PrevField):
		f.setFocus((f.focus + fieldCount - 1) % fieldCount)
		return nil
	case key.Matches(km, k.Split):
		return func() tea.Msg { return openSplitMsg{} }
	}
	switch f.focus {
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
			return func() tea.Msg { return openSplitMsg{} }
		}
	case fSubmit:
		if km.String() == "enter" {
			return f.submit()
		}
	case fMetadata:
		var cmd tea.Cmd
		f.meta, cmd = f.meta.Update(km)
		f.validate()
		return cmd
	}
	if km.String() == "enter" {
		f.setFocus(f.focus + 1)
		return nil
	}
	if f.focus < fieldCount && f.capturesText() {
		var cmd tea.Cmd
		f.inputs[f.focus], cmd = f.inputs[f.focus].Update(km)
		f.server[f.focus] = ""
		f.validate()
		return cmd
	}
	return nil
}

// expiry returns the chosen expiry duration.
func (f *chargeForm) expiry() (time.Duration, error) {
	if d := expiryPresets[f.preset].d; d != 0 {
		return d, nil
	}
	d, err := parseDuration(f.c.tr, f.inputs[fExpiry].Value())
	if err != nil {
		return 0, err
	}
	return d, checkExpiry(f.c.tr, d)
}

// validate checks every field against the spec's limits; messages go next to the fields.
func (f *chargeForm) validate() (api.CreatePixRequest, bool) {
	tr := f.c.tr
	f.errs = [fieldCount]string{}
	var req api.CreatePixRequest
	set := func(i int, err error) {
		if err != nil {
			f.errs[i] = err.Error()
		}
	}
	amt, err := api.ParseBRL(f.inputs[fAmount].Value())
	switch {
	case err != nil:
		set(fAmount, err)
	case amt < api.MinChargeAmount:
		f.errs[fAmount] = tr.T("the minimum charge is R$ 1,00")
	default:
		req.Amount = amt
	}
	req.Description = strings.TrimSpace(f.inputs[fDescription].Value())
	set(fDescription, checkMaxLen(tr, req.Description, api.MaxDescription))
	if d, err := f.expiry(); err != nil {
		set(fExpiry, err)
	} else {
		req.ExpiresIn = int(d / time.Second)
	}
	req.ExternalReference = strings.TrimSpace(f.inputs[fExternalRef].Value())
	set(fExternalRef, checkMaxLen(tr, req.ExternalReference, api.MaxExternalRef))
	if f.project > 0 && f.project <= len(f.projects) {
		req.ProjectID = f.projects[f.project-1].ID
	}
	cust := api.Customer{
		Name:     strings.TrimSpace(f.inputs[fName].Value()),
		Document: onlyDigits(f.inputs[fDocument].Value()),
		Email:    strings.TrimSpace(f.inputs[fEmail].Value()),
		Phone:    strings.TrimSpace(f.inputs[fPhone].Value()),
	}
	set(fName, checkMaxLen(tr, cust.Name, 255))
	set(fDocument, checkDocument(tr, f.inputs[fDocument].Value()))
	set(fEmail, checkEmail(tr, cust.Email))
	set(fPhone, checkPhone(tr, cust.Phone))
	if !cust.IsZero() {
		req.Customer = &cust
	}
	meta, err := parseMetadata(tr, f.meta.Value())
	set(fMetadata, err)
	req.Metadata = meta
	req.Split = f.split
	for _, p := range api.CheckCreatePix(&req) {
		switch p.Field {
		case api.FieldDescription:
			if f.errs[fDescription] == "" {
				f.errs[fDescription] = p.Msg
			}
		case api.FieldExpiresIn:
			if f.errs[fExpiry] == "" {
				f.errs[fExpiry] = tr.T("expiry must be between 5 minutes and 7 days")
			}
		case api.FieldExternalRef:
			if f.errs[fExternalRef] == "" {
				f.errs[fExternalRef] = p.Msg
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
	if !ok {
		for i, e := range f.errs {
			if e != "" {
				f.setFocus(i)
				break
			}
		}
		return func() tea.Msg {
			return statusMsg{text: f.c.tr.T("Fix the highlighted fields; nothing was sent."), kind: statusError}
		}
	}
	if f.sending {
		return nil
	}
	d := chargeDraft{Key: f.key, Wallet: f.wallet, Req: req}
	return func() tea.Msg { return chargeSubmitMsg{draft: d} }
}

// fieldLabel names each field for the view.
func (f *chargeForm) fieldLabel(i int) string {
	tr := f.c.tr
	return [...]string{
		tr.T("Amount"), tr.T("Description"), tr.T("Expires in"), tr.T("External ref"), tr.T("Project"),
		tr.T("Payer name"), tr.T("CPF/CNPJ"), tr.T("E-mail"), tr.T("Phone"), tr.T("Metadata"), tr.T("Split"), "",
	}[i]
}

func (f *chargeForm) view(w, h int) string {
	st, tr := f.c.st, f.c.tr
	var b strings.Builder
	title := tr.T("New charge")
	if f.wallet != "" && f.wallet != api.WalletPrincipal {
		title += " · " + tr.F("wallet %s", f.wallet)
	}
	b.WriteString(st.Bold.Render(title) + "\n")
	const labelW = 14
	for i := 0; i < fieldCount; i++ {
		label := padRight(f.fieldLabel(i), labelW)
		if i == f.focus {
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
				val = st.Muted.Render(tr.T("loading projects…"))
			case f.projErr != "":
				val = st.Err.Render(tr.T("projects unavailable")) + st.Muted.Render(" · "+tr.T("the default applies"))
			case f.project == 0:
				val = "‹ " + tr.T("default") + " ›"
				if len(f.projects) == 1 {
					val += st.Muted.Render(" " + f.projects[0].Name)
				}
			default:
				val = "‹ " + f.projects[f.project-1].Name + " ›"
			}
		case fMetadata:
			val = f.meta.View()
		case fSplit:
			if len(f.split) == 0 {
				val = st.Muted.Render(tr.T("none · enter to build one"))
			} else {
				val = f.splitSum
			}
		case fSubmit:
			btn := "[ " + tr.T("Create charge") + " ]"
			if i == f.focus {
				btn = st.FieldFocus.Render(btn)
			}
			b.WriteString("  " + spaces(labelW) + btn + "\n")
			continue
		default:
			val = f.inputs[i].View()
		}
		line := label + val
		if i == fAmount {
			if amt, err := api.ParseBRL(f.inputs[fAmount].Value()); err == nil && amt > 0 {
				line += st.Muted.Render("  = " + amt.BRL())
			}
		}
		e := f.errs[i]
		if e == "" {
			e = f.server[i]
		}
		if e != "" && (f.touched[i] || f.tried) {
			room := w - lipgloss.Width(line) - 3
			if room >= 20 {
				line += "  " + st.FieldErr.Render("✖ "+truncateWidth(e, room))
			} else {
				line += "\n" + spaces(labelW+2) + st.FieldErr.Render("✖ "+truncateWidth(e, w-labelW-4))
			}
		}
		b.WriteString(line + "\n")
	}
	b.WriteString(st.Muted.Render(tr.F("Idempotency-Key %s", f.key)))
	return b.String()
}

// serverError places a refusal next to the field it names (the service's messages start with it).
func (f *chargeForm) serverError(err error) {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return
	}
	fields := map[string]int{
		api.FieldAmount: fAmount, api.FieldDescription: fDescription, api.FieldExpiresIn: fExpiry,
		api.FieldExternalRef: fExternalRef, api.FieldProjectID: fProject, "customer": fName,
		"metadata": fMetadata, api.FieldSplit: fSplit, "Subconta": fSplit, "A soma do split": fSplit,
		"A conta que origina": fSplit, "A cobrança foi criada": fSplit,
	}
	for prefix, i := range fields {
		if strings.HasPrefix(ae.Message, prefix) {
			f.server[i] = ae.Message
			f.touched[i] = true
			return
		}
	}
}
