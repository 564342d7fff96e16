package ui

import (
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// component is the one contract of every piece of the dashboard: the five main views and the
// overlays (form, QR screen, pickers, help, confirmations). A component renders at the size it
// was last given, keeps View free of side effects, lists its keys for bubbles/help, and can run
// alone (see standalone).
type component interface {
	help.KeyMap
	// cid names the component for its life; the root delivers the replies of its commands by it.
	cid() compID
	// update handles a message meant for the component: a key while it has the keyboard, a
	// reply to one of its own commands (unwrapped from its envelope), or a broadcast fact.
	update(msg tea.Msg) tea.Cmd
	// view renders the component at its size; it reads state and changes none.
	view() string
	// setSize gives the component its room in cells; the command may read what the new room
	// shows (a taller list's rows).
	setSize(w, h int) tea.Cmd
	// start begins the component's loading: when it is put on screen (an overlay pushed, a
	// view shown by its tab or at a session's start) and when the active wallet changes.
	// Closing an overlay above the component does not start it again.
	start() tea.Cmd
	// focus runs when the component gets the keyboard (again): it starts no loading, only
	// what the keyboard needs (a cursor blink).
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
	// answerTo is the component that asked this overlay as its question (0 when the root
	// opened it), and answerTag the session it was asked in: see forAsker.
	answerTo  compID
	answerTag tag
}

// close marks the overlay finished.
func (c *closer) close() { c.finished = true }

// done reports whether close was called.
func (c *closer) done() bool { return c.finished }

// answerFor records that the overlay is the question of component to, asked in session t.
func (c *closer) answerFor(to compID, t tag) { c.answerTo, c.answerTag = to, t }

// forAsker addresses cmd, what the question decided (a confirmed send, a chosen period), to the
// component that asked it: its reply reaches that component wherever it is on the stack, even
// after the question closed. Without an asker cmd stays the overlay's own.
func (c *closer) forAsker(cmd tea.Cmd) tea.Cmd {
	if c.answerTo == 0 {
		return cmd
	}
	return address(c.answerTo, c.answerTag, cmd)
}

// asker lets a component put an overlay on the stack in the update that decided it (a
// question, a form), so the next key already goes to it. It carries the component's id.
type asker struct {
	ident
	question overlay
}

// ask puts o on the stack after this update (nil asks nothing).
func (a *asker) ask(o overlay) { a.question = o }

// asked returns the overlay to put on the stack, once.
func (a *asker) asked() overlay {
	o := a.question
	a.question = nil
	return o
}

// compID names a component for the life of the program (never reused; 0 is nobody).
type compID uint64

// lastCompID is the last id given out.
var lastCompID atomic.Uint64

// ident gives a component its id. The id is drawn when the component is first named (the root
// names it as it enters the screen, before any of its commands runs) and never changes.
type ident struct{ n compID }

// cid names the component.
func (i *ident) cid() compID {
	if i.n == 0 {
		i.n = compID(lastCompID.Add(1))
	}
	return i.n
}

// envelopeMsg is a reply on its way to the component that asked: the root delivers msg to the
// component named to wherever it is (a main view, any overlay of the stack, even one under a
// question), and drops it when that component is gone or tag is stale (another session; for
// work bound to a wallet, another wallet).
type envelopeMsg struct {
	to  compID
	tag tag
	msg tea.Msg
}

// address makes the replies of cmd envelopes to component to, made for t (t.wallet "" binds
// them to the session only). The command it returns hands cmd to the root as an addressedCmd,
// which the root runs (run): a command that waits (a tick, a cursor blink) stays visible as
// itself, and a test that runs commands by hand sees which one it is.
func address(to compID, t tag, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	a := addressedCmd{to: to, tag: t, cmd: cmd}
	return func() tea.Msg { return a }
}

// addressedCmd is a component's command with the address of its replies.
type addressedCmd struct {
	to  compID
	tag tag
	cmd tea.Cmd
}

// run runs the command and seals its reply.
func (a addressedCmd) run() tea.Msg { return seal(a.to, a.tag, a.cmd()) }

// teaPkg is Bubble Tea's package path: its messages are the runtime's, never a component's reply.
var teaPkg = reflect.TypeOf(tea.QuitMsg{}).PkgPath()

// cmdType is tea.Cmd's type.
var cmdType = reflect.TypeOf(tea.Cmd(nil))

// seal wraps msg in an envelope to to. Bubble Tea's own messages (quit, sequences) pass as they
// are; the commands of a batch are addressed one by one; a reply already addressed (a
// question's answer, see closer.forAsker) keeps its address.
func seal(to compID, t tag, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case nil:
		return nil
	case envelopeMsg, addressedCmd:
		return m
	case tea.BatchMsg:
		out := make(tea.BatchMsg, len(m))
		for i, c := range m {
			out[i] = address(to, t, c)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
		// tea.Sequence's message, an unexported []tea.Cmd: its commands are addressed in order.
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(reflect.ValueOf(address(to, t, v.Index(i).Interface().(tea.Cmd))))
		}
		return out.Interface()
	}
	if reflect.TypeOf(msg).PkgPath() == teaPkg {
		return msg
	}
	return envelopeMsg{to: to, tag: t, msg: msg}
}

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

// Init starts the component and gives it the keyboard.
func (s standalone) Init() tea.Cmd { return s.address(tea.Batch(s.c.start(), s.c.focus())) }

// address addresses cmd's replies to the component.
func (s standalone) address(cmd tea.Cmd) tea.Cmd { return address(s.c.cid(), tag{}, cmd) }

// Update hands every message to the component: its replies unwrapped, the rest as they come.
func (s standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case addressedCmd:
		return s, msg.run
	case envelopeMsg:
		if msg.to != s.c.cid() {
			return s, nil
		}
		return s, s.address(s.c.update(msg.msg))
	case tea.WindowSizeMsg:
		return s, s.address(s.c.setSize(msg.Width, msg.Height))
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return s, tea.Quit
		}
	}
	return s, s.address(s.c.update(msg))
}

// View renders the component.
func (s standalone) View() string { return s.c.view() }
