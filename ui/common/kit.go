package common

// The foundation's shared helpers: what more than one view or form uses lives here, not in
// the view that used it first.

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
)

// FitLines joins at most h lines.
func FitLines(lines []string, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// PackSegments joins segs with sep into at most n lines (n <= 0: as many as needed) of at most
// w cells, breaking only between segments (a segment wider than a line is cut); what does not
// fit is dropped.
func PackSegments(segs []string, sep string, w, n int) []string {
	if w <= 0 {
		return nil
	}
	var lines []string
	cur := ""
	for _, sg := range segs {
		switch {
		case cur == "":
			cur = TruncateWidth(sg, w)
		case lipgloss.Width(cur)+lipgloss.Width(sep)+lipgloss.Width(sg) <= w:
			cur += sep + sg
		default:
			lines = append(lines, cur)
			if n > 0 && len(lines) == n {
				return lines
			}
			cur = TruncateWidth(sg, w)
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// MaskPixKey hides most of a PIX key the way documents are hidden: CPF and CNPJ keys as
// documents, a phone with its last 4 digits, an e-mail with the first letter and the domain,
// a random key with its first and last 4 characters.
func MaskPixKey(t api.PixKeyType, k string) string {
	k = Sanitize(k)
	switch t {
	case api.PixKeyCPF, api.PixKeyCNPJ:
		return MaskDocument(k)
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

// ToggleScope switches the charges list and the day view between the active wallet and all
// wallets; writes still go to the active wallet.
func ToggleScope(c *Common) tea.Cmd {
	c.App.AllWallets = !c.App.AllWallets
	return func() tea.Msg { return ScopeChangedMsg{} }
}

// FixHighlighted is the forms' one answer to a submit with errors (errs holds each field's
// message, "" when the field is fine): the index of the first field with a message, for the
// form to focus (-1 when every field is fine: go on), and the status line saying to fix the
// highlighted fields and that nothing was sent, owned by owner (the form's complaints go
// when it closes).
func FixHighlighted(c *Common, errs []string, owner string) (int, tea.Cmd) {
	for i, e := range errs {
		if e != "" {
			text := c.Tr.T("kit.fix_the_highlighted_fields_nothing_was")
			return i, func() tea.Msg { return StatusMsg{Text: text, Kind: StatusError, Owner: owner} }
		}
	}
	return -1, nil
}

// typedConfirm asks for a production write by having the amount typed: y is not enough.
type typedConfirm struct {
	Closer
	c        *Common
	question string
	amount   api.Money
	input    textinput.Model
	then     tea.Cmd
	OnYes    func()
	wrong    string
	width    int
	height   int
}

// NewTypedConfirm makes the typed confirm.
func NewTypedConfirm(c *Common, question string, amount api.Money, then tea.Cmd) *typedConfirm {
	ti := NewInput()
	ti.Prompt = "> "
	ti.Placeholder = strings.TrimSpace(strings.TrimPrefix(amount.BRL(), "R$"))
	ti.CharLimit = 24
	ti.Focus()
	return &typedConfirm{c: c, question: question, amount: amount, input: ti, then: then}
}

func (d *typedConfirm) Layer() Layer { return LayerFloat }
func (d *typedConfirm) SetSize(w, h int) tea.Cmd {
	d.width, d.height = w, h
	return nil
}
func (d *typedConfirm) Focus() tea.Cmd     { return nil }
func (d *typedConfirm) Start() tea.Cmd     { return nil }
func (d *typedConfirm) Blur()              {}
func (d *typedConfirm) CapturesText() bool { return true }

// ShortHelp lists the answers.
func (d *typedConfirm) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", d.c.Tr.T("kit.confirm"))),
		d.c.Keys.Back,
	}
}

// FullHelp lists the answers.
func (d *typedConfirm) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// Update: enter confirms when the typed text is the amount; esc cancels; anything else types.
func (d *typedConfirm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, d.c.Keys.Back):
		d.Close()
		text := d.c.Tr.T("kit.cancelled_nothing_was_sent")
		return func() tea.Msg { return StatusMsg{Text: text, Kind: StatusInfo} }
	case km.Type == tea.KeyEnter:
		typed, err := api.ParseBRL(d.input.Value())
		if err != nil || typed != d.amount {
			d.wrong = d.c.Tr.F("kit.type_exactly_to_confirm_nothing_was", d.amount.BRL())
			return nil
		}
		d.Close()
		if d.OnYes != nil {
			d.OnYes()
		}
		return d.ForAsker(d.then)
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(km)
	d.wrong = ""
	return cmd
}

func (d *typedConfirm) View() string {
	st := d.c.St
	w := max(min(d.width-6, confirmMaxWidth), 20)
	body := st.Confirm.Render(ansi.Wrap(d.question, w, "")) + "\n\n" + d.input.View()
	if d.wrong != "" {
		body += "\n" + st.Err.Render(ansi.Wrap(d.wrong, w, ""))
	}
	body += "\n\n" + st.Muted.Render(d.c.Tr.T("kit.enter_confirms_esc_cancels"))
	return lipgloss.Place(d.width, d.height, lipgloss.Center, lipgloss.Center, st.ConfirmBox.Render(body))
}

// ClockKey says nothing on the dialog changes with the clock (see Clocked).
func (d *typedConfirm) ClockKey(time.Time) string { return "" }
