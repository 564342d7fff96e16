package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// moneyForm is what the small money forms (refund, withdrawal) give formKeys.
type moneyForm struct {
	c *common
	// owner owns the form's status messages; busy is what esc says while a request is out.
	owner, busy string
	// field is the focused field of count; setFocus moves it.
	field, count int
	setFocus     func(int)
	close        func()
	submit       func() tea.Cmd

	// dirty: esc asks discard (through ask) before throwing the typed fields away.
	dirty   bool
	discard string
	ask     func(overlay)
}

// formKeys handles the keys the money forms share: while sending only esc answers (busy); esc
// closes and clears the form's messages, ctrl+s submits, tab/↓ and shift+tab/↑ move, enter
// moves on until the last field and then submits. ok is false for other keys (the field's).
func formKeys(f moneyForm, km tea.KeyMsg, sending bool) (cmd tea.Cmd, ok bool) {
	k := f.c.keys
	owner := f.owner
	if sending {
		if key.Matches(km, k.Back) {
			text := f.busy
			return func() tea.Msg { return statusMsg{text: text, kind: statusInfo, owner: owner} }, true
		}
		return nil, true
	}
	switch {
	case key.Matches(km, k.Back):
		if f.dirty && f.ask != nil {
			f.ask(discardGuard(f.c, true, f.discard, f.close))
			return nil, true
		}
		f.close()
		return func() tea.Msg { return statusMsg{owner: owner} }, true
	case key.Matches(km, k.Submit):
		return f.submit(), true
	case key.Matches(km, k.NextField), km.Type == tea.KeyDown:
		f.setFocus((f.field + 1) % f.count)
		return nil, true
	case key.Matches(km, k.PrevField), km.Type == tea.KeyUp:
		f.setFocus((f.field + f.count - 1) % f.count)
		return nil, true
	case km.Type == tea.KeyEnter:
		if f.field < f.count-1 {
			f.setFocus(f.field + 1)
			return nil, true
		}
		return f.submit(), true
	}
	return nil, false
}
