package common

import (
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is the one contract of every piece of the dashboard: the five main views and the
// overlays (form, QR screen, pickers, help, confirmations). A component renders at the size it
// was last given, keeps View free of side effects, lists its keys for bubbles/help, and can run
// alone (see standalone).
type Component interface {
	help.KeyMap
	// Cid names the component for its life; the root delivers the replies of its commands by it.
	Cid() CompID
	// Update handles a message meant for the component: a key while it has the keyboard, a
	// reply to one of its own commands (unwrapped from its envelope), or a broadcast fact.
	Update(msg tea.Msg) tea.Cmd
	// View renders the component at its size; it reads state and changes none.
	View() string
	// SetSize gives the component its room in cells; the command may read what the new room
	// shows (a taller list's rows).
	SetSize(w, h int) tea.Cmd
	// Start begins the component's loading: when it is put on screen (an overlay pushed, a
	// view shown by its tab or at a session's start) and when the active wallet changes.
	// Closing an overlay above the component does not start it again.
	Start() tea.Cmd
	// Focus runs when the component gets the keyboard (again): it starts no loading, only
	// what the keyboard needs (a cursor blink).
	Focus() tea.Cmd
	// Blur runs when the component leaves the screen or the keyboard.
	Blur()
}

// Pane is a main view: a component with a tab title that may capture printable keys.
type Pane interface {
	Component
	Title() string
	// CapturesText reports whether printable keys belong to a text field of the view.
	CapturesText() bool
}

// Layer says how an overlay is drawn.
type Layer int

const (
	// LayerFloat draws a box over the view below it (pickers, confirmations, help).
	LayerFloat Layer = iota
	// LayerBody replaces the view's body; header, tabs and footer stay (the new-charge form).
	LayerBody
	// LayerScreen takes the whole terminal (the customer-facing QR and result screens).
	LayerScreen
)

// Overlay is a component stacked over the views: the top one gets every key. An overlay
// closes itself by reporting done (embed closer): the root takes it off the stack right after
// the update that finished it, so the next key already goes to what is below.
type Overlay interface {
	Component
	Layer() Layer
	// Done reports whether the overlay has finished and leaves the stack.
	Done() bool
}

// Closer is an overlay's side of the stack: close() in update leaves it, ask(o) puts a
// question over it. The root acts on both right after the update, so the next key already
// goes where it should.
type Closer struct {
	Asker
	finished bool
	// answerTo is the component that asked this overlay as its question (0 when the root
	// opened it), and answerTag the session it was asked in: see forAsker.
	answerTo  CompID
	answerTag Tag
}

// Close marks the overlay finished.
func (c *Closer) Close() { c.finished = true }

// Done reports whether close was called.
func (c *Closer) Done() bool { return c.finished }

// AnswerFor records that the overlay is the question of component to, asked in session t.
func (c *Closer) AnswerFor(to CompID, t Tag) { c.answerTo, c.answerTag = to, t }

// ForAsker addresses cmd, what the question decided (a confirmed send, a chosen period), to the
// component that asked it: its reply reaches that component wherever it is on the stack, even
// after the question closed. Without an asker cmd stays the overlay's own.
func (c *Closer) ForAsker(cmd tea.Cmd) tea.Cmd {
	if c.answerTo == 0 {
		return cmd
	}
	return Address(c.answerTo, c.answerTag, cmd)
}

// Asker lets a component put an overlay on the stack in the update that decided it (a
// question, a form), so the next key already goes to it. It carries the component's id.
type Asker struct {
	Ident
	Question Overlay
}

// Ask puts o on the stack after this update (nil asks nothing).
func (a *Asker) Ask(o Overlay) { a.Question = o }

// Asked returns the overlay to put on the stack, once.
func (a *Asker) Asked() Overlay {
	o := a.Question
	a.Question = nil
	return o
}

// CompID names a component for the life of the program (never reused; 0 is nobody).
type CompID uint64

// lastCompID is the last id given out.
var lastCompID atomic.Uint64

// Ident gives a component its id. The id is drawn when the component is first named (the root
// names it as it enters the screen, before any of its commands runs) and never changes.
type Ident struct{ n CompID }

// Cid names the component.
func (i *Ident) Cid() CompID {
	if i.n == 0 {
		i.n = CompID(lastCompID.Add(1))
	}
	return i.n
}

// EnvelopeMsg is a reply on its way to the component that asked: the root delivers msg to the
// component named to wherever it is (a main view, any overlay of the stack, even one under a
// question), and drops it when that component is gone or tag is stale (another session; for
// work bound to a wallet, another wallet).
type EnvelopeMsg struct {
	To  CompID
	Tag Tag
	Msg tea.Msg
}

// Address makes the replies of cmd envelopes to component to, made for t (t.wallet "" binds
// them to the session only). The command it returns hands cmd to the root as an addressedCmd,
// which the root runs (run): a command that waits (a tick, a cursor blink) stays visible as
// itself, and a test that runs commands by hand sees which one it is.
func Address(to CompID, t Tag, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	a := AddressedCmd{to: to, tag: t, Cmd: cmd}
	return func() tea.Msg { return a }
}

// AddressedCmd is a component's command with the address of its replies.
type AddressedCmd struct {
	to  CompID
	tag Tag
	Cmd tea.Cmd
}

// Run runs the command and seals its reply.
func (a AddressedCmd) Run() tea.Msg { return seal(a.to, a.tag, a.Cmd()) }

// teaPkg is Bubble Tea's package path: its messages are the runtime's, never a component's reply.
var teaPkg = reflect.TypeOf(tea.QuitMsg{}).PkgPath()

// cmdType is tea.Cmd's type.
var cmdType = reflect.TypeOf(tea.Cmd(nil))

// seal wraps msg in an envelope to to. Bubble Tea's own messages (quit, sequences) pass as they
// are; the commands of a batch are addressed one by one; a reply already addressed (a
// question's answer, see closer.forAsker) keeps its address.
func seal(to CompID, t Tag, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case nil:
		return nil
	case EnvelopeMsg, AddressedCmd:
		return m
	case tea.BatchMsg:
		out := make(tea.BatchMsg, len(m))
		for i, c := range m {
			out[i] = Address(to, t, c)
		}
		return out
	}
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
		// tea.Sequence's message, an unexported []tea.Cmd: its commands are addressed in order.
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(reflect.ValueOf(Address(to, t, v.Index(i).Interface().(tea.Cmd))))
		}
		return out.Interface()
	}
	if reflect.TypeOf(msg).PkgPath() == teaPkg {
		return msg
	}
	return EnvelopeMsg{To: to, Tag: t, Msg: msg}
}

// OverlayStack holds the overlays, bottom first; precedence is their order.
type OverlayStack []Overlay

// Top is the overlay that has the keyboard, or nil.
func (s OverlayStack) Top() Overlay {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// Has reports whether o is on the stack.
func (s OverlayStack) Has(o Component) bool {
	return slices.ContainsFunc(s, func(x Overlay) bool { return Component(x) == o })
}

// Find returns the topmost overlay of type T.
func Find[T Overlay](s OverlayStack) (T, bool) {
	for i := len(s) - 1; i >= 0; i-- {
		if t, ok := s[i].(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// Standalone runs one component as a whole Bubble Tea program (tests run views alone under
// teatest): it sizes the component, delivers its replies to it and quits on ctrl+c.
type Standalone struct{ C Component }

// Init starts the component and gives it the keyboard.
func (s Standalone) Init() tea.Cmd { return s.address(tea.Batch(s.C.Start(), s.C.Focus())) }

// address addresses cmd's replies to the component.
func (s Standalone) address(cmd tea.Cmd) tea.Cmd { return Address(s.C.Cid(), Tag{}, cmd) }

// Update hands every message to the component: its replies unwrapped, the rest as they come.
func (s Standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case AddressedCmd:
		return s, msg.Run
	case EnvelopeMsg:
		if msg.To != s.C.Cid() {
			return s, nil
		}
		return s, s.address(s.C.Update(msg.Msg))
	case tea.WindowSizeMsg:
		return s, s.address(s.C.SetSize(msg.Width, msg.Height))
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return s, tea.Quit
		}
	}
	return s, s.address(s.C.Update(msg))
}

// View renders the component.
func (s Standalone) View() string { return s.C.View() }

// Clocked is a component whose drawing depends on the clock only through what ClockKey
// returns: a tick redraws the screen only when the key of a component on it changed (issue
// 27). Every view and overlay implements it (TestQuietTicksOnEveryView checks the ones on
// screen); a component that does not is drawn again on every tick. Texts that move by
// themselves change as rarely as they can be read: an "x ago" in whole minutes (HumanAge), a
// field's cursor does not blink (NewInput); a countdown the customer watches keeps its seconds.
type Clocked interface {
	// ClockKey is a cheap summary of every clock-dependent text the component would draw at
	// now (the countdowns on screen, the minute shown); it reads state and changes none.
	ClockKey(now time.Time) string
}
