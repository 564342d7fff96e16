package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// errUnreachable is a read-back that did not reach the service.
var errUnreachable = errors.New("dial tcp 127.0.0.1:9: connection refused")

// chanEngine is a session engine whose reports a test queues by hand.
type chanEngine struct {
	sessionEngine
	reports chan workflow.Report
	done    chan struct{}
}

func (e *chanEngine) Start()                          {}
func (e *chanEngine) Reports() <-chan workflow.Report { return e.reports }
func (e *chanEngine) Done() <-chan struct{}           { return e.done }

// A burst of the engine's reports reaches the root as one message (one frame), in order, at
// most maxEngineBatch at a time; a report that comes later than engineGather after the first
// waits for the next message.
func TestEngineBurstIsOneMessage(t *testing.T) {
	m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	eng := &chanEngine{reports: make(chan workflow.Report, maxEngineBatch+100), done: make(chan struct{})}
	m.eng = eng
	n := maxEngineBatch + 44
	for i := range n {
		eng.reports <- workflow.EventConfirmed{Event: &api.Event{EventID: fmt.Sprint(i)}, Err: errUnreachable}
	}
	var got []workflow.Report
	msgs := 0
	for len(got) < n {
		msg, ok := m.waitEngine()().(engineMsg)
		if !ok {
			t.Fatal("no engine message")
		}
		msgs++
		got = append(got, msg.rs...)
	}
	if msgs != 2 {
		t.Fatalf("%d reports came in %d messages, want 2 (at most %d a message)", n, msgs, maxEngineBatch)
	}
	for i, r := range got {
		if id := r.(workflow.EventConfirmed).Event.EventID; id != fmt.Sprint(i) {
			t.Fatalf("report %d is event %s: out of order", i, id)
		}
	}

	// One report alone is handed over once the gather ends; a later one is the next message's.
	eng.reports <- workflow.EventConfirmed{Event: &api.Event{EventID: "a"}, Err: errUnreachable}
	go func() {
		time.Sleep(10 * engineGather)
		eng.reports <- workflow.EventConfirmed{Event: &api.Event{EventID: "b"}, Err: errUnreachable}
	}()
	t0 := time.Now()
	first := m.waitEngine()().(engineMsg)
	if len(first.rs) != 1 || time.Since(t0) > 5*engineGather {
		t.Fatalf("a lone report: %d reports after %v", len(first.rs), time.Since(t0))
	}
	if second := m.waitEngine()().(engineMsg); len(second.rs) != 1 {
		t.Fatalf("the later report: %d reports", len(second.rs))
	}
	close(eng.done)
	if msg := m.waitEngine()(); msg != nil {
		t.Fatalf("a stopped engine: %T", msg)
	}
}

// Every report of a burst is handled (the last failed read-back of an event sets the status,
// the events move the root's position) and the wait is armed once.
func TestEngineBurstHandlesEveryReport(t *testing.T) {
	m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	ev := &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx1"}
	rs := []workflow.Report{
		workflow.Events{Events: []*api.Event{ev}, Last: 7},
		workflow.EventConfirmed{Event: ev, Attempt: 0, Err: errUnreachable},
		workflow.EventConfirmed{Event: ev, Attempt: workflow.MaxConfirmAttempts - 1, Err: errUnreachable},
	}
	cmd := m.onEngine(engineMsg{gen: m.app.Gen, rs: rs})
	if m.app.EventSeq != 7 {
		t.Fatalf("EventSeq %d: the Events report was not handled", m.app.EventSeq)
	}
	if m.status.Text == "" || m.status.Kind != common.StatusWarn {
		t.Fatalf("status %q: the last failed read-back was not handled", m.status.Text)
	}
	if cmd == nil {
		t.Fatal("the wait for the next reports was not armed")
	}
}

// A burst of payment webhooks against an unreachable service: the engine reads every event
// back (one EventConfirmed each, a failure here), and the root gets them in a few messages,
// not one (and one frame) per report.
func TestPaymentBurstIsReadBackInFewMessages(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	in, err := s.Store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Session: s, Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	engineOf(m).Start()
	// The feed starts where the events end: wait for it before the burst.
	time.Sleep(200 * time.Millisecond)
	const n = 60
	for i := range n {
		raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-burst-%03d", i), "event": api.EventPaymentCompleted,
			"createdAt": goldenNow.Format(time.RFC3339), "transactionId": fmt.Sprintf("9f6c1a2e-0000-4000-8000-%012d", i), "amount": 12.34})
		if err := in.Accept(raw); err != nil {
			t.Fatal(err)
		}
	}
	readBack := map[string]bool{}
	msgs, events := 0, 0
	deadline := time.After(20 * time.Second)
	for len(readBack) < n {
		got := make(chan any, 1)
		go func() { got <- m.waitEngine()() }()
		var msg any
		select {
		case msg = <-got:
		case <-deadline:
			t.Fatalf("after %d messages: %d of %d events read back", msgs, len(readBack), n)
		}
		em, ok := msg.(engineMsg)
		if !ok {
			t.Fatalf("%T", msg)
		}
		msgs++
		for _, r := range em.rs {
			switch r := r.(type) {
			case workflow.Events:
				events += len(r.Events)
			case workflow.EventConfirmed:
				if r.Attempt == 0 {
					readBack[r.Event.EventID] = true
				}
			}
		}
		m.onEngine(em)
	}
	if events != n {
		t.Fatalf("%d events reported, want %d", events, n)
	}
	// Each report was one message before (2n+ messages here); a gather is one frame at most.
	if msgs > n/4 {
		t.Fatalf("%d events and their %d read-backs came in %d messages, want at most %d", n, len(readBack), msgs, n/4)
	}
	t.Logf("%d events and their read-backs in %d messages", n, msgs)
}
