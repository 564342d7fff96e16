package ui

import (
	"slices"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// component is the one contract of every piece of the dashboard: the five main views and the
// overlays (form, QR screen, pickers, help, confirmations). A component renders at the size it
// was last given, keeps View free of side effects, lists its keys for bubbles/help, and can run
// alone (see standalone).
type component interface {
	help.KeyMap
	// update handles a message meant for the component: a key while it has the keyboard, or a
	// reply to one of its own commands.
	update(msg tea.Msg) tea.Cmd
	// view renders the component at its size; it reads state and changes none.
	view() string
	// setSize gives the component its room in cells.
	setSize(w, h int)
	// focus runs when the component comes on screen (or its session or wallet changed while
	// it is): it may start loading.
	focus() tea.Cmd
	// blur runs when the component leaves the screen or the keyboard.
	blur()
}

// pane is a main view: a component with a tab title that may capture printable keys.
type pane interface {
	component
	title() string
	// capturesText reports whether printable keys belong to a text field of the view.
	capturesText() bool
}

// layer says how an overlay is drawn.
type layer int

const (
	// layerFloat draws a box over the view below it (pickers, confirmations, help).
	layerFloat layer = iota
	// layerBody replaces the view's body; header, tabs and footer stay (the new-charge form).
	layerBody
	// layerScreen takes the whole terminal (the customer-facing QR and result screens).
	layerScreen
)

// overlay is a component stacked over the views: the top one gets every key. An overlay
// closes itself by reporting done (embed closer): the root takes it off the stack right after
// the update that finished it, so the next key already goes to what is below.
type overlay interface {
	component
	layer() layer
	// done reports whether the overlay has finished and leaves the stack.
	done() bool
}

// closer is an overlay's side of the stack: close() in update leaves it, ask(o) puts a
// question over it. The root acts on both right after the update, so the next key already
// goes where it should.
type closer struct {
	asker
	finished bool
}

// close marks the overlay finished.
func (c *closer) close() { c.finished = true }

// done reports whether close was called.
func (c *closer) done() bool { return c.finished }

// asker lets a component put an overlay on the stack in the update that decided it (a
// question, a form), so the next key already goes to it.
type asker struct{ question overlay }

// ask puts o on the stack after this update (nil asks nothing).
func (a *asker) ask(o overlay) { a.question = o }

// asked returns the overlay to put on the stack, once.
func (a *asker) asked() overlay {
	o := a.question
	a.question = nil
	return o
}

// reply is a message answering a component's command: the root hands it to that component
// only (a view by its id, or the open form), never to all of them.
type reply interface {
	// replyTo names the component that asked.
	replyTo() viewID
}

// viewForm addresses replies to the open new-charge form (and its split builder).
const viewForm viewID = -1

// overlayStack holds the overlays, bottom first; precedence is their order.
type overlayStack []overlay

// top is the overlay that has the keyboard, or nil.
func (s overlayStack) top() overlay {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// has reports whether o is on the stack.
func (s overlayStack) has(o component) bool {
	return slices.ContainsFunc(s, func(x overlay) bool { return component(x) == o })
}

// find returns the topmost overlay of type T.
func find[T overlay](s overlayStack) (T, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if t, ok := s[i].(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// standalone runs one component as a whole Bubble Tea program (tests run views alone under
// teatest): it sizes the component, delivers its replies to it and quits on ctrl+c.
type standalone struct{ c component }

// Init focuses the component.
func (s standalone) Init() tea.Cmd { return s.c.focus() }

// Update hands every message to the component.
func (s standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.c.setSize(msg.Width, msg.Height)
		return s, nil
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return s, tea.Quit
		}
	}
	return s, s.c.update(msg)
}

// View renders the component.
func (s standalone) View() string { return s.c.view() }

// The views' replies and whom they answer.
func (m windowLoadedMsg[Q, T]) replyTo() viewID {
	if m.owner == eventsOwner {
		return viewEvents
	}
	return viewCharges
}
func (blocksMsg) replyTo() viewID         { return viewBlocks }
func (blocksTickMsg) replyTo() viewID     { return viewBlocks }
func (facetsMsg) replyTo() viewID         { return viewEvents }
func (lookupMsg) replyTo() viewID         { return viewInspector }
func (historyMsg) replyTo() viewID        { return viewInspector }
func (walletsListMsg) replyTo() viewID    { return viewWallets }
func (walletsBalanceMsg) replyTo() viewID { return viewWallets }
func (walletsCreatedMsg) replyTo() viewID { return viewWallets }
func (splitWalletsMsg) replyTo() viewID   { return viewForm }
