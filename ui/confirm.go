package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// confirmedMsg closes a confirmation; then runs only on yes.
type confirmedMsg struct {
	yes  bool
	then tea.Cmd
}

// confirmDialog asks a yes/no question; anything but y is no.
type confirmDialog struct {
	c        *common
	question string
	then     tea.Cmd
}

func newConfirm(c *common, question string, then tea.Cmd) *confirmDialog {
	return &confirmDialog{c: c, question: question, then: then}
}

func (d *confirmDialog) update(km tea.KeyMsg) tea.Cmd {
	yes := key.Matches(km, d.c.keys.Yes)
	then := d.then
	return func() tea.Msg { return confirmedMsg{yes: yes, then: then} }
}

// overlay draws the question in a red box over the body.
func (d *confirmDialog) overlay(_ string, w, h int) string {
	st := d.c.st
	box := st.ConfirmBox.Render(st.Confirm.Render(d.question) + "\n\n" +
		st.Muted.Render(d.c.tr.T("y confirms · any other key cancels")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}
