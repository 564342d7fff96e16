package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// confirmMaxWidth is the widest a question runs before it wraps.
const confirmMaxWidth = 60

// confirmDialog asks a yes/no question; anything but y is no. It closes on the first key:
// yes runs then, no says what did not happen (cancelled).
type confirmDialog struct {
	closer
	c *common
	// cancelled is the status line's message on no ("" says nothing).
	cancelled string
	// onYes runs on yes, in the update that answers (e.g. the form below closes at once).
	onYes    func()
	question string
	then     tea.Cmd
	width    int
	height   int
}

// newConfirm asks before a write: no says that nothing was sent.
func newConfirm(c *common, question string, then tea.Cmd) *confirmDialog {
	return &confirmDialog{c: c, question: question, then: then, cancelled: c.tr.T("confirm.cancelled_nothing_was_sent")}
}

// newQuietConfirm asks before something that sends nothing (quitting, discarding a form): no
// just closes the question. A component that shows it over its own view answers it with answer.
func newQuietConfirm(c *common, question string, then tea.Cmd) *confirmDialog {
	return &confirmDialog{c: c, question: question, then: then}
}

func (d *confirmDialog) layer() layer { return layerFloat }
func (d *confirmDialog) setSize(w, h int) tea.Cmd {
	d.width, d.height = w, h
	return nil
}
func (d *confirmDialog) focus() tea.Cmd { return nil }
func (d *confirmDialog) start() tea.Cmd { return nil }
func (d *confirmDialog) blur()          {}

// ShortHelp lists the two answers.
func (d *confirmDialog) ShortHelp() []key.Binding { return []key.Binding{d.c.keys.Yes, d.c.keys.No} }

// FullHelp lists the two answers.
func (d *confirmDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// update answers on the first key: y is yes, anything else no.
func (d *confirmDialog) update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if d.answer(km) {
		if d.onYes != nil {
			d.onYes()
		}
		return d.forAsker(d.then)
	}
	if d.cancelled == "" {
		return nil
	}
	text := d.cancelled
	return func() tea.Msg { return statusMsg{text: text, kind: statusInfo} }
}

// answer closes the question with the key that answers it and reports whether it was yes (y);
// a component that shows the question itself (over its own view) calls it instead of update.
func (d *confirmDialog) answer(km tea.KeyMsg) bool {
	d.close()
	return key.Matches(km, d.c.keys.Yes)
}

// overlay draws the question in a red box over the body.
func (d *confirmDialog) view() string {
	w, h := d.width, d.height
	st := d.c.st
	// A long question wraps inside the box (border and padding take 6 cells).
	q := ansi.Wrap(d.question, max(min(w-6, confirmMaxWidth), 20), "")
	box := st.ConfirmBox.Render(st.Confirm.Render(q) + "\n\n" +
		st.Muted.Render(d.c.tr.T("confirm.y_confirms_any_other_key_cancels")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// capturesText: a confirmation takes every key as its answer (? included).
func (d *confirmDialog) capturesText() bool { return true }

// discardGuard is esc on a form, shared by the charge, sub-account and withdrawal forms: an
// untouched form is discarded at once (nil is returned), a filled one gets question (a quiet
// confirmation: no keeps the form as typed) and is discarded on yes.
func discardGuard(c *common, dirty bool, question string, discard func()) overlay {
	if !dirty {
		discard()
		return nil
	}
	q := newQuietConfirm(c, question, nil)
	q.onYes = discard
	return q
}
