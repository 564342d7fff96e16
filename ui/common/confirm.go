package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"time"
)

// confirmMaxWidth is the widest a question runs before it wraps.
const confirmMaxWidth = 60

// ConfirmDialog asks a yes/no question; anything but y is no. It closes on the first key:
// yes runs then, no says what did not happen (cancelled).
type ConfirmDialog struct {
	Closer
	c *Common
	// cancelled is the status line's message on no ("" says nothing).
	cancelled string
	// OnYes runs on yes, in the update that answers (e.g. the form below closes at once).
	OnYes    func()
	question string
	then     tea.Cmd
	width    int
	height   int
}

// NewConfirm asks before a write: no says that nothing was sent.
func NewConfirm(c *Common, question string, then tea.Cmd) *ConfirmDialog {
	return &ConfirmDialog{c: c, question: question, then: then, cancelled: c.Tr.T("confirm.cancelled_nothing_was_sent")}
}

// NewQuietConfirm asks before something that sends nothing (quitting, discarding a form): no
// just closes the question. A component that shows it over its own view answers it with answer.
func NewQuietConfirm(c *Common, question string, then tea.Cmd) *ConfirmDialog {
	return &ConfirmDialog{c: c, question: question, then: then}
}

// Layer says how the overlay is drawn.
func (d *ConfirmDialog) Layer() Layer { return LayerFloat }

// SetSize gives it its room in cells.
func (d *ConfirmDialog) SetSize(w, h int) tea.Cmd {
	d.width, d.height = w, h
	return nil
}

// Focus gives it the keyboard back.
func (d *ConfirmDialog) Focus() tea.Cmd { return nil }

// Start begins its loading, once.
func (d *ConfirmDialog) Start() tea.Cmd { return nil }

// Blur runs when it leaves the screen or the keyboard.
func (d *ConfirmDialog) Blur() {}

// ShortHelp lists the two answers.
func (d *ConfirmDialog) ShortHelp() []key.Binding { return []key.Binding{d.c.Keys.Yes, d.c.Keys.No} }

// FullHelp lists the two answers.
func (d *ConfirmDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// Update answers on the first key: y is yes, anything else no.
func (d *ConfirmDialog) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if d.answer(km) {
		if d.OnYes != nil {
			d.OnYes()
		}
		return d.ForAsker(d.then)
	}
	if d.cancelled == "" {
		return nil
	}
	text := d.cancelled
	return func() tea.Msg { return StatusMsg{Text: text, Kind: StatusInfo} }
}

// answer closes the question with the key that answers it and reports whether it was yes (y);
// a component that shows the question itself (over its own view) calls it instead of update.
func (d *ConfirmDialog) answer(km tea.KeyMsg) bool {
	d.Close()
	return key.Matches(km, d.c.Keys.Yes)
}

// View draws the question in a red box over the body.
func (d *ConfirmDialog) View() string {
	w, h := d.width, d.height
	st := d.c.St
	// A long question wraps inside the box (border and padding take 6 cells).
	q := ansi.Wrap(d.question, max(min(w-6, confirmMaxWidth), 20), "")
	box := st.ConfirmBox.Render(st.Confirm.Render(q) + "\n\n" +
		st.Muted.Render(d.c.Tr.T("confirm.y_confirms_any_other_key_cancels")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// CapturesText is true: a confirmation takes every key as its answer (? included).
func (d *ConfirmDialog) CapturesText() bool { return true }

// DiscardGuard is esc on a form, shared by the charge, sub-account and withdrawal forms: an
// untouched form is discarded at once (nil is returned), a filled one gets question (a quiet
// confirmation: no keeps the form as typed) and is discarded on yes.
func DiscardGuard(c *Common, dirty bool, question string, discard func()) Overlay {
	if !dirty {
		discard()
		return nil
	}
	q := NewQuietConfirm(c, question, nil)
	q.OnYes = discard
	return q
}

// ClockKey says nothing on the dialog changes with the clock (see Clocked).
func (d *ConfirmDialog) ClockKey(time.Time) string { return "" }
