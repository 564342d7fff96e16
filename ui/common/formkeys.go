package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// MoneyForm is what the small money forms (refund, withdrawal) give formKeys.
type MoneyForm struct {
	C *Common
	// Owner owns the form's status messages; busy is what esc says while a request is out.
	Owner, Busy string
	// Field is the focused field of count; setFocus moves it.
	Field, Count int
	SetFocus     func(int)
	Close        func()
	Submit       func() tea.Cmd

	// Dirty: esc asks discard (through ask) before throwing the typed fields away.
	Dirty   bool
	Discard string
	Ask     func(Overlay)
}

// FormKeys handles the keys the money forms share: while sending only esc answers (busy); esc
// closes and clears the form's messages, ctrl+s submits, tab/↓ and shift+tab/↑ move, enter
// moves on until the last field and then submits. ok is false for other keys (the field's).
func FormKeys(f MoneyForm, km tea.KeyMsg, sending bool) (cmd tea.Cmd, ok bool) {
	k := f.C.Keys
	owner := f.Owner
	if sending {
		if key.Matches(km, k.Back) {
			text := f.Busy
			return func() tea.Msg { return StatusMsg{Text: text, Kind: StatusInfo, Owner: owner} }, true
		}
		return nil, true
	}
	switch {
	case key.Matches(km, k.Back):
		if f.Dirty && f.Ask != nil {
			f.Ask(DiscardGuard(f.C, true, f.Discard, f.Close))
			return nil, true
		}
		f.Close()
		return func() tea.Msg { return StatusMsg{Owner: owner} }, true
	case key.Matches(km, k.Submit):
		return f.Submit(), true
	case key.Matches(km, k.NextField), km.Type == tea.KeyDown:
		f.SetFocus((f.Field + 1) % f.Count)
		return nil, true
	case key.Matches(km, k.PrevField), km.Type == tea.KeyUp:
		f.SetFocus((f.Field + f.Count - 1) % f.Count)
		return nil, true
	case km.Type == tea.KeyEnter:
		if f.Field < f.Count-1 {
			f.SetFocus(f.Field + 1)
			return nil, true
		}
		return f.Submit(), true
	}
	return nil, false
}
