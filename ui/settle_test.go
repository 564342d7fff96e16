package ui

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/blocks"
	"pixdash/ui/charges"
	"pixdash/ui/common"
	"pixdash/ui/events"
	"pixdash/ui/inspector"
	"pixdash/ui/newcharge"
	"pixdash/ui/qr"
	"pixdash/ui/refund"
	"pixdash/ui/sales"
	"pixdash/ui/search"
	"pixdash/ui/wallets"
	"pixdash/ui/withdrawal"
)

// The views read the store in commands (list windows, event facets, the lookup history) and
// take the answers as messages. Tests that drive a model or a view directly run those commands
// with settle, as the Bubble Tea runtime would, so that what they check is what the screen
// shows once the reads are back.

// waitingCmds name the commands settle never runs: they wait for time or for the next change
// (clock ticks, cursor blinks, the store-change and event feeds) and would block the test. A
// test sends what they would bring itself (see storeChanged and deliver).
var waitingCmds = []string{
	"bubbletea.Tick.", "bubbletea.Every.", "BlinkCmd", ".waitChange.", ".waitEvent.", ".waitEngine.",
}

// settleLeafTimeout bounds one command settle runs; a slower one is a command that waits and
// belongs in waitingCmds (or a store read that hangs).
const settleLeafTimeout = 10 * time.Second

// storeReply reports whether msg is a view's answer from the store, the messages settle hands
// back. Other commands (calls to the service) still run, but their replies are dropped, as
// tests that drive a model directly always did: a test sends such replies itself.
func storeReply(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case common.EnvelopeMsg:
		return storeReply(msg.Msg)
	case charges.ChargePage, events.EventPage, events.FacetsMsg, inspector.HistoryMsg, charges.RefundStatesMsg:
		return true
	case sales.DayMsg, charges.StripMsg, sales.DayPeriodMsg, common.ScopeChangedMsg, sales.CloseMsg, sales.CloseDoneMsg:
		return true // the day view, its strip and the close read the store (the close's balances fail fast against deadClient)
	case common.StatusMsg:
		return msg.Owner == sales.CloseOwner
	}
	return false
}

// cmdName is the function a command runs, e.g. "pixdash/ui.(*Model).waitChange.func1".
func cmdName(c tea.Cmd) string {
	if f := runtime.FuncForPC(reflect.ValueOf(c).Pointer()); f != nil {
		return f.Name()
	}
	return "?"
}

func waiting(c tea.Cmd) bool {
	name := cmdName(c)
	for _, w := range waitingCmds {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// runLeaf runs one command, failing the test if it does not return in time.
func runLeaf(t testing.TB, c tea.Cmd) tea.Msg {
	t.Helper()
	done := make(chan tea.Msg, 1)
	go func() { done <- c() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(settleLeafTimeout):
		t.Fatalf("settle: command %s did not return within %s", cmdName(c), settleLeafTimeout)
		return nil
	}
}

// settleWith runs cmd (batches and sequences included, in order), hands each store reply to
// update and runs what update returns in turn, until nothing is left.
func settleWith(t testing.TB, update func(tea.Msg) tea.Cmd, cmd tea.Cmd) {
	t.Helper()
	drainCmds(t, cmd, func(msg tea.Msg) tea.Cmd {
		if storeReply(msg) {
			return update(msg)
		}
		return nil
	})
}

// drainCmds runs cmd (batches and sequences included, in order, skipping the commands that
// wait), hands each message to each and runs the command it returns in turn.
func drainCmds(t testing.TB, cmd tea.Cmd, each func(tea.Msg) tea.Cmd) {
	t.Helper()
	cmdType := reflect.TypeOf(tea.Cmd(nil))
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 100000 {
			t.Fatal("settle: the commands never end")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil || waiting(c) {
			continue
		}
		msg := runLeaf(t, c)
		if msg == nil {
			continue
		}
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		if a, ok := msg.(common.AddressedCmd); ok {
			// A component's command: run it (unless it waits) and hand its sealed reply on.
			if !waiting(a.Cmd) {
				queue = append(queue, a.Run)
			}
			continue
		}
		// tea.Sequence's message is an unexported []tea.Cmd.
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			for i := range v.Len() {
				queue = append(queue, v.Index(i).Interface().(tea.Cmd))
			}
			continue
		}
		if next := each(msg); next != nil {
			queue = append(queue, next)
		}
	}
}

// settle runs cmd for m: see settleWith.
func settle(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	settleWith(t, func(msg tea.Msg) tea.Cmd { _, c := m.Update(reply(m, msg)); return c }, cmd)
}

// send hands msg to m and settles what it returns.
func send(t testing.TB, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(reply(m, msg))
	settle(t, m, cmd)
}

// storeChanged tells m that its store changed, as the root's waitChange does, and lets the
// views read again.
func storeChanged(t testing.TB, m *Model) {
	t.Helper()
	send(t, m, common.StoreChangedMsg{Gen: m.app.Gen, Charges: true, Events: true})
}

// ---- reading the store in tests ----

// allCharges reads every charge q selects, newest first.
func allCharges(t testing.TB, s *state.Store, q state.ChargeQuery) []state.Charge {
	t.Helper()
	p, err := s.ChargeWindow(context.Background(), q, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Charges) != p.Total {
		t.Fatalf("ChargeWindow(%+v) read %d charges of a total of %d", q, len(p.Charges), p.Total)
	}
	return p.Charges
}

// chargeByID reads one tracked charge.
func chargeByID(t testing.TB, s *state.Store, id string) (state.Charge, bool) {
	t.Helper()
	c, ok, err := s.Charge(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return c, ok
}

// eventPageOf reads the events q selects, newest first.
func eventPageOf(t testing.TB, s *state.Store, q state.EventQuery) state.EventPage {
	t.Helper()
	p, err := s.EventWindow(context.Background(), q, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// eventByID reads one event as the store keeps it.
func eventByID(t testing.TB, s *state.Store, id string) (state.EventEntry, bool) {
	t.Helper()
	e, ok, err := s.Event(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e, ok
}

// eventsTotal is how many distinct events the store holds.
func eventsTotal(t testing.TB, s *state.Store) int {
	t.Helper()
	return eventPageOf(t, s, state.EventQuery{}).Total
}

// deadClient is a client for an address nothing listens on that fails at once (no retries):
// golden sessions never reach a service, and what settle runs of such calls returns quickly.
func deadClient(t testing.TB, clientID string) *api.Client {
	t.Helper()
	c, err := api.NewClient("http://127.0.0.1:9/v2", clientID, "unused", api.WithRetry(api.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// viewAt renders a component at a size, as the root does after a resize.
func viewAt(c interface {
	SetSize(w, h int) tea.Cmd
	View() string
}, w, h int) string {
	c.SetSize(w, h)
	return c.View()
}

// formOf is the open new-charge form, or nil.
func formOf(m *Model) *newcharge.ChargeForm {
	f, _ := m.chargeForm()
	return f
}

// qrOf is the open QR or result screen, or nil.
func qrOf(m *Model) *qr.View {
	q, _ := m.qrScreen()
	return q
}

// ---- replies in tests ----

// reply addresses msg, a reply a test makes up for one of m's components, to that component as
// its command would have (see address); any other message is returned as it is.
func reply(m *Model, msg tea.Msg) tea.Msg {
	to := func(c common.Component) tea.Msg {
		return common.EnvelopeMsg{To: c.Cid(), Tag: common.Tag{Gen: m.app.Gen}, Msg: msg}
	}
	view := func(id viewID) tea.Msg { return to(m.panes[id]) }
	switch msg.(type) {
	case charges.ChargePage, charges.StripMsg, charges.StripMidnightMsg, charges.RefundStatesMsg:
		return view(viewCharges)
	case events.EventPage, events.FacetsMsg:
		return view(viewEvents)
	case blocks.Msg, blocks.TickMsg:
		return view(viewBlocks)
	case inspector.LookupMsg, inspector.HistoryMsg:
		return view(viewInspector)
	case wallets.ListMsg, wallets.BalanceMsg, wallets.CreatedMsg:
		return view(viewWallets)
	case sales.DayMsg, sales.DayTickMsg, sales.DayPeriodMsg:
		return view(viewDay)
	case newcharge.SplitWalletsMsg, common.ProjectsMsg:
		if f, ok := m.chargeForm(); ok {
			return to(f)
		}
	case refund.DoneMsg, refund.FeeMsg:
		if f, ok := common.Find[*refund.Form](m.overlays); ok {
			return to(f)
		}
	case withdrawal.DoneMsg, withdrawal.ListMsg:
		if f, ok := common.Find[*withdrawal.Form](m.overlays); ok {
			return to(f)
		}
	case sales.CloseMsg, sales.CloseDoneMsg:
		if o, ok := common.Find[*sales.CloseOverlay](m.overlays); ok {
			return to(o)
		}
	case search.FoundMsg, search.CheckedMsg:
		if o, ok := common.Find[*search.Overlay](m.overlays); ok {
			return to(o)
		}
	case qr.CopiedMsg, qr.NoticeDoneMsg, qr.RefreshMsg:
		if o, ok := m.qrScreen(); ok {
			return to(o)
		}
	}
	return msg
}

// runReply runs a command as the runtime would and returns what its component receives: the
// reply inside the envelope of an addressed command, any other message as it is.
func runReply(cmd tea.Cmd) tea.Msg {
	msg := cmd()
	if a, ok := msg.(common.AddressedCmd); ok {
		msg = a.Run()
	}
	if e, ok := msg.(common.EnvelopeMsg); ok {
		return e.Msg
	}
	return msg
}

// inner is the reply inside an envelope, or msg itself.
func inner(msg tea.Msg) tea.Msg {
	if e, ok := msg.(common.EnvelopeMsg); ok {
		return e.Msg
	}
	return msg
}
