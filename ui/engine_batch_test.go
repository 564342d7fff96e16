package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// errUnreachable is a read-back that did not reach the service.
var errUnreachable = &url.Error{Op: "Get", URL: "http://127.0.0.1:9/v2/transactions/x", Err: errors.New("dial tcp 127.0.0.1:9: connection refused")}

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

	// One report alone (a read-back's answer) is handed over once the gather ends; a later one
	// is the next message's.
	eng.reports <- workflow.EventConfirmed{Event: &api.Event{EventID: "a"}}
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

// A steady stream of reports (a webhook every 5 ms, closer than engineGather) is gathered into
// few messages, each within engineGatherMost of its first report plus the one gap it waited
// for, not one message every engineGather (issue 27: a flood of 100 webhooks a second was 50
// messages and frames a second).
func TestEngineStreamIsGatheredUpToItsLimit(t *testing.T) {
	m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	eng := &chanEngine{reports: make(chan workflow.Report, 1000), done: make(chan struct{})}
	m.eng = eng
	const n, gap = 80, 5 * time.Millisecond // 400 ms of reports
	go func() {
		for i := range n {
			eng.reports <- workflow.EventConfirmed{Event: &api.Event{EventID: fmt.Sprint(i)}, Err: errUnreachable}
			time.Sleep(gap)
		}
	}()
	got, msgs := 0, 0
	for got < n {
		t0 := time.Now()
		msg := m.waitEngine()().(engineMsg)
		if took := time.Since(t0); took > engineGatherMost+engineGather+50*time.Millisecond {
			t.Fatalf("message %d took %v to gather", msgs, took)
		}
		got += len(msg.rs)
		msgs++
	}
	// 400 ms of reports: 4 or 5 messages of about 100 ms (a slow machine may split one more);
	// gathering engineGather after each first report would be 20 or more.
	if msgs > 8 {
		t.Fatalf("%d reports 5 ms apart came in %d messages, want at most 8", n, msgs)
	}
}

// The event feed brings a steady flood as a batch every 25–35 ms, more than engineGather apart:
// new events and failed read-backs (quiet reports) still gather up to engineGatherMost, so 100
// webhooks a second are about ten messages a second, not one a batch (issue 27).
func TestQuietReportsGatherWhateverTheGaps(t *testing.T) {
	m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	eng := &chanEngine{reports: make(chan workflow.Report, 1000), done: make(chan struct{})}
	m.eng = eng
	const n, gap = 20, 30 * time.Millisecond // 600 ms of the feed's batches
	go func() {
		for i := range n {
			ev := &api.Event{EventID: fmt.Sprint(i), Kind: api.EventPaymentCompleted}
			if i%2 == 0 {
				eng.reports <- workflow.Events{Events: []*api.Event{ev}, Last: int64(i + 1)}
			} else {
				eng.reports <- workflow.EventConfirmed{Event: ev, Err: errUnreachable}
			}
			time.Sleep(gap)
		}
	}()
	got, msgs := 0, 0
	for got < n {
		msg := m.waitEngine()().(engineMsg)
		got += len(msg.rs)
		msgs++
	}
	// 600 ms: 6 or 7 messages of about 100 ms (a slow machine may split a few more); one a
	// batch would be 20.
	if msgs > 10 {
		t.Fatalf("%d reports %v apart came in %d messages, want at most 10", n, gap, msgs)
	}
}

// A read-back's answer (the charge paid: the customer's screen says PAGO) does not wait for
// the quiet burst it joins to reach engineGatherMost: the gather ends engineGather after it.
func TestReadBackAnswerEndsTheGather(t *testing.T) {
	m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	t.Cleanup(m.eng.Close)
	eng := &chanEngine{reports: make(chan workflow.Report, 10), done: make(chan struct{})}
	m.eng = eng
	ev := &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx1"}
	go func() {
		eng.reports <- workflow.Events{Events: []*api.Event{ev}, Last: 1}
		time.Sleep(10 * time.Millisecond)
		eng.reports <- workflow.EventConfirmed{Event: ev} // confirmed: not quiet
		time.Sleep(engineGatherMost * 3 / 4)
		eng.reports <- workflow.Events{Events: []*api.Event{{EventID: "e2"}}, Last: 2}
	}()
	first := m.waitEngine()().(engineMsg)
	if len(first.rs) != 2 {
		t.Fatalf("the first message carries %d reports, want the event and its answer (2)", len(first.rs))
	}
	if second := m.waitEngine()().(engineMsg); len(second.rs) != 1 {
		t.Fatalf("the second message carries %d reports, want 1", len(second.rs))
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

// A burst of payment webhooks against an unreachable service: the engine reports every event
// and reads it back (the first try dials and fails; the tries after it, made while the
// service is known down, are skipped and not reported: workflow.tryAgain), and the root
// gets them in a few messages, not one (and one frame) per report.
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
	for events < n || len(readBack) == 0 {
		got := make(chan any, 1)
		go func() { got <- m.waitEngine()() }()
		var msg any
		select {
		case msg = <-got:
		case <-deadline:
			t.Fatalf("after %d messages: %d of %d events reported, %d read back", msgs, events, n, len(readBack))
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
	// Each report was one message before (n+1 messages here at least); a gather is one frame
	// at most.
	if msgs > n/4 {
		t.Fatalf("%d events and their %d read-backs came in %d messages, want at most %d", n, len(readBack), msgs, n/4)
	}
	t.Logf("%d events and their read-backs in %d messages", n, msgs)
}

// Bursts of failed read-backs (the service cannot be reached during a flood) build no frame
// while the screen stays the same: they move only the header's light and, on a last attempt,
// the status line (the frame's clock key). A burst with anything else in it is drawn.
func TestFailedReadBacksBuildNoFrame(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	t.Cleanup(m.eng.Close)
	frames := countFrames(t)
	fail := func(attempt int, ids ...string) engineMsg {
		msg := engineMsg{gen: m.app.Gen}
		for _, id := range ids {
			msg.rs = append(msg.rs, workflow.EventConfirmed{Event: &api.Event{EventID: id, Kind: api.EventPaymentCompleted, TransactionID: "tx-" + id}, Attempt: attempt, Err: errUnreachable})
		}
		return msg
	}
	m.Update(fail(0, "e0"))
	first := m.View()
	if *frames != 1 {
		t.Fatalf("the first burst built %d frames, want 1 (the light turned)", *frames)
	}
	for i := range 5 {
		m.Update(fail(i%(workflow.MaxConfirmAttempts-1), "e1", "e2", "e3"))
		if got := m.View(); got != first {
			t.Fatalf("a burst of failed read-backs changed the screen:\n%s\nwant\n%s", got, first)
		}
	}
	if *frames != 1 {
		t.Fatalf("5 bursts of failed read-backs built %d more frames, want 0", *frames-1)
	}
	if fresh := m.render(); fresh != first {
		t.Fatalf("the kept frame is not what a render draws:\n%s\nwant\n%s", first, fresh)
	}

	// A last attempt puts its failure on the status line: one frame, showing it.
	*frames = 0
	m.Update(fail(workflow.MaxConfirmAttempts-1, "e1"))
	if v := m.View(); *frames != 1 || !strings.Contains(v, "connection refused") {
		t.Fatalf("the last failure: %d frames, status %q", *frames, m.status.Text)
	}

	// New events in the burst that nothing on screen takes as its own (the charges list is on
	// screen): no frame either.
	*frames = 0
	before := m.View()
	msg := fail(0, "e4")
	msg.rs = append([]workflow.Report{workflow.Events{Events: []*api.Event{{EventID: "e4", Kind: api.EventPaymentCompleted, TransactionID: "tx-e4"}}, Last: 9}}, msg.rs...)
	m.Update(msg)
	if got := m.View(); *frames != 0 || got != before {
		t.Fatalf("a burst of events the screen does not show built %d frames", *frames)
	}
	if fresh := m.render(); fresh != before {
		t.Fatalf("the kept frame is not what a render draws after the events:\n%s\nwant\n%s", before, fresh)
	}
}

// New events build a frame when something on screen takes them: the inspector showing the
// transaction an event is about reads it again and says so; a failed read of the events puts
// it on the status line.
func TestEventsShownOnScreenBuildAFrame(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	t.Cleanup(m.eng.Close)
	tx := goldenTransferTx()
	showLookup(t, m, "ref", "loja-centro", tx, state.Charge{}, false, nil)
	frames := countFrames(t)
	events := func(ev ...*api.Event) engineMsg {
		return engineMsg{gen: m.app.Gen, rs: []workflow.Report{workflow.Events{Events: ev, Last: 10}}}
	}
	// The first quiet message after the lookup keeps the frame it builds (frameCache).
	m.Update(events(&api.Event{EventID: "other-0", Kind: api.EventPaymentCompleted, TransactionID: "another-tx"}))
	m.View()
	*frames = 0
	m.Update(events(&api.Event{EventID: "other", Kind: api.EventPaymentCompleted, TransactionID: "another-tx"}))
	m.View()
	if *frames != 0 {
		t.Fatalf("an event about another transaction built %d frames", *frames)
	}
	m.Update(events(&api.Event{EventID: "mine", Kind: api.EventPaymentCompleted, TransactionID: tx.ID}))
	if v := m.View(); *frames != 1 || !strings.Contains(v, "refreshing…") {
		t.Fatalf("an event about the transaction on screen: %d frames\n%s", *frames, v)
	}
	*frames = 0
	m.Update(engineMsg{gen: m.app.Gen, rs: []workflow.Report{workflow.Events{Last: 10, Err: errors.New("disk I/O error")}}})
	if v := m.View(); *frames != 1 || !strings.Contains(v, "disk I/O error") {
		t.Fatalf("a failed read of the events: %d frames\n%s", *frames, v)
	}
}

// Under a flood of store changes the lists read at most every storeChangeGap; a change after a
// quiet spell is seen within storeChangeCoalesce.
func TestStoreChangesUnderFloodReadTwiceASecond(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	t.Cleanup(m.eng.Close)
	ctx := context.Background()
	touch := func(i int) {
		if _, err := s.Store.UpsertCharge(ctx, state.Charge{ID: fmt.Sprintf("7f6c1a2e-0000-4000-8000-%012d", i), Amount: 100,
			Status: api.StatusPending, CreatedAt: goldenNow, Wallet: api.WalletPrincipal}); err != nil {
			t.Error(err)
		}
	}
	// A flood: 120 writes 10 ms apart, the root handling each change it is told of.
	stop := make(chan struct{})
	go func() {
		defer close(stop)
		for i := range 120 {
			touch(i)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var at []time.Time
	for flooding := true; flooding; {
		got := make(chan tea.Msg, 1)
		go func() { got <- m.waitChange()() }()
		select {
		case msg := <-got:
			cm, ok := msg.(common.StoreChangedMsg)
			if !ok {
				t.Fatalf("%T", msg)
			}
			at = append(at, time.Now())
			m.Update(cm)
		case <-stop:
			flooding = false
			select { // the last writes' change, if not seen yet
			case <-got:
			case <-time.After(2 * storeChangeGap):
			}
		}
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < storeChangeGap-20*time.Millisecond {
			t.Fatalf("changes %d and %d were read %v apart under a flood, want ≥ %v", i-1, i, gap, storeChangeGap)
		}
	}
	if span := at[len(at)-1].Sub(at[0]); len(at) > int(span/storeChangeGap)+1 {
		t.Fatalf("%d reads in %v of changes", len(at), span)
	}
	// A quiet spell, then one change: seen within storeChangeCoalesce (and some slack).
	time.Sleep(storeChangeGap)
	t0 := time.Now()
	go touch(1000)
	if _, ok := m.waitChange()().(common.StoreChangedMsg); !ok {
		t.Fatal("no store change")
	}
	if d := time.Since(t0); d > storeChangeCoalesce+150*time.Millisecond {
		t.Fatalf("a lone change after a quiet spell was seen after %v", d)
	}
}

// Webhook events that only arrived change no row, refund or figure of the day on the charges
// list (a webhook is a hint): under a flood the list reads nothing for them; a verdict (the
// service's answer recorded) reads the day's strip and the rows' refunds again, and charges
// read the rows (issue 27: the list re-read its strip and refunds twice a second).
func TestArrivedEventsDoNotReloadTheChargesList(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	t.Cleanup(m.eng.Close)
	ctx := context.Background()
	cv := m.panes[viewCharges]
	change := func(write func()) common.StoreChangedMsg {
		t.Helper()
		got := make(chan tea.Msg, 1)
		wait := m.waitChange()
		go func() { got <- wait() }()
		write()
		msg, ok := (<-got).(common.StoreChangedMsg)
		if !ok {
			t.Fatal("no store change")
		}
		m.app.SeenCharges, m.app.SeenEvents, m.app.SeenSettled = msg.ChargesVer, msg.EventsVer, msg.SettledVer
		return msg
	}
	const tx = "3f6c1a2e-0000-4000-8000-000000000001"
	ev := floodEvent(t, 1, api.EventPaymentCompleted, tx)
	arrived := change(func() {
		if _, err := s.Store.ApplyEvent(ctx, ev); err != nil {
			t.Error(err)
		}
	})
	if !arrived.Events || arrived.Charges || arrived.Settled {
		t.Fatalf("an event arrived: %+v, want events changed, neither charges nor settled", arrived)
	}
	if cmd := cv.Update(arrived); cmd != nil {
		t.Fatal("the charges list reads again for an event that only arrived")
	}
	settled := change(func() {
		if err := s.Store.SetEventVerdict(ctx, ev.EventID, state.VerdictDisputed, "amount"); err != nil {
			t.Error(err)
		}
	})
	if !settled.Settled || settled.Charges {
		t.Fatalf("a verdict recorded: %+v, want settled, not charges", settled)
	}
	if cmd := cv.Update(settled); cmd == nil {
		t.Fatal("the charges list does not read its strip and refunds again after a verdict")
	}
}
