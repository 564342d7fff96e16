package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// maxEventBatch bounds the events one eventsMsg carries (the engine's batch).
const maxEventBatch = workflow.MaxEventBatch

// engineOf is m's session engine as the workflow builds it.
func engineOf(m *Model) *workflow.Engine { return m.eng.(*workflow.Engine) }

// recoverSubmissions runs one recovery pass of m's engine now, as it runs at the start of a
// session (charges, withdrawals and refunds), and returns the root's message for it.
func (m *Model) recoverSubmissions() tea.Cmd {
	gen, eng := m.app.Gen, engineOf(m)
	return m.app.WithTimeout(2*common.CallTimeout, func(ctx context.Context) tea.Msg {
		return recoveredFrom(gen, eng.Recover(ctx, true))
	})
}

// waitEvent reads the event feed as the engine does (workflow.WaitEvents from the position
// the root last saw) and returns the root's message for the next batch; nil when the session
// ends. Tests drive the feed with it instead of starting the engine.
func (m *Model) waitEvent() tea.Cmd {
	gen, store, life, after := m.app.Gen, m.app.Sess.Store, m.app.Ctx, m.app.EventSeq
	return func() tea.Msg {
		b, ok := workflow.WaitEvents(life, store, after, maxEventBatch)
		if !ok {
			return nil
		}
		return eventsFrom(gen, workflow.Events(b))
	}
}

// Replacing the session closes the old one's engine and then the session in a command the
// runtime runs, not in Update nor on a goroutine of its own.
func TestProfileSwitchClosesTheOldSessionInACommand(t *testing.T) {
	old := goldenSession(t, api.Sandbox)
	closed := make(chan struct{})
	old.Close = func() { close(closed) }
	m := New(Options{Session: old, Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	oldEng := engineOf(m)
	oldEng.Start()
	_, cmd := m.Update(profileOpenedMsg{name: "outra", sess: goldenSession(t, api.Sandbox)})
	t.Cleanup(engineOf(m).Close)
	select {
	case <-closed:
		t.Fatal("the old session was closed outside the command system")
	case <-time.After(200 * time.Millisecond):
	}
	drainCmds(t, cmd, func(tea.Msg) tea.Cmd { return nil })
	select {
	case <-closed:
	default:
		t.Fatal("the switch's commands did not close the old session")
	}
	select {
	case <-oldEng.Done():
	default:
		t.Fatal("the old session's engine still runs")
	}
}

// Each report of the engine becomes the root's message for it, and the wait for the next one
// is armed again; a report of a replaced session's engine is dropped.
func TestEngineReportsBecomeMessages(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := New(Options{Session: s, Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	armed := func(cmd tea.Cmd) bool {
		found := false
		var walk func(tea.Cmd)
		walk = func(c tea.Cmd) {
			if c == nil {
				return
			}
			if strings.Contains(cmdName(c), ".waitEngine.") {
				found = true
				return
			}
			if strings.Contains(cmdName(c), "tea.Batch") || strings.Contains(cmdName(c), "bubbletea.Batch") {
				if b, ok := c().(tea.BatchMsg); ok {
					for _, x := range b {
						walk(x)
					}
				}
			}
		}
		walk(cmd)
		return found
	}
	_, cmd := m.Update(engineMsg{gen: m.app.Gen, rs: []workflow.Report{workflow.RecoveryDone{Charges: workflow.Recovered{Pending: 2}}}})
	if !armed(cmd) {
		t.Fatal("the wait for the engine's next report was not armed again")
	}
	if !strings.Contains(m.status.Text, "2 interrupted charge(s) not confirmed yet") {
		t.Fatalf("status %q", m.status.Text)
	}
	m.status = common.StatusMsg{}
	if _, cmd := m.Update(engineMsg{gen: m.app.Gen + 1, rs: []workflow.Report{workflow.RecoveryDone{Charges: workflow.Recovered{Pending: 2}}}}); cmd != nil || m.status.Text != "" {
		t.Fatalf("a replaced engine's report was taken: %q", m.status.Text)
	}
}

// stopEngine quits tm's program and, once it has ended, stops m's engine as main's m.Close
// does after the program ends: a test leaves no engine polling behind (the session stays
// the test's to close).
func stopEngine(t testing.TB, tm *teatest.TestModel, m *Model) {
	_ = tm.Quit()
	ended := true
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second), teatest.WithTimeoutFn(func(testing.TB) { ended = false }))
	if ended && m.eng != nil {
		m.eng.Close()
	}
}
