package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// engineSession opens a session on the in-process emulator, with its webhook receiver when receive is set.
func engineSession(t *testing.T, receive bool) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := Params{Profile: "demo", Env: d.Env, Demo: true, Client: d.Client, Simulator: d.Control, Release: d.Close}
	if receive {
		p.Webhook = &Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret, Tolerance: api.DefaultWebhookTolerance}
	} else {
		_ = d.WebhookListener.Close()
	}
	s, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// startEngine starts an engine on s, closed at the end of the test.
func startEngine(t *testing.T, s *Session, o EngineOptions) *Engine {
	t.Helper()
	e := NewEngine(s, o)
	e.Start()
	t.Cleanup(e.Close)
	return e
}

// awaitReport reads e's reports until ok accepts one, failing after within.
func awaitReport(t *testing.T, e *Engine, within time.Duration, what string, ok func(Report) bool) Report {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case r := <-e.Reports():
			if ok(r) {
				return r
			}
		case <-deadline:
			t.Fatalf("no report: %s", what)
			return nil
		}
	}
}

// createCharge creates a charge of amount on the emulator and tracks it.
func createCharge(t *testing.T, s *Session, amount api.Money) state.Charge {
	t.Helper()
	r := CreateCharge(context.Background(), s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: amount, Description: "Venda"}}, nil)
	if r.Err != nil || r.Charge == nil {
		t.Fatalf("create: %+v", r)
	}
	return *r.Charge
}

// A charge paid at the emulator becomes paid through the engine's polling alone (no webhook
// receiver: the events never reach the store), and it is reported as a change.
func TestEnginePollsAPendingChargeToPaid(t *testing.T) {
	s := engineSession(t, false)
	ch := createCharge(t, s, 1500)
	if err := s.Simulator.Pay(context.Background(), ch.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t, s, EngineOptions{PollEvery: 20 * time.Millisecond})
	e.Watch(ch.ID)
	r := awaitReport(t, e, 20*time.Second, "the charge polled to paid", func(r Report) bool {
		c, ok := r.(ChargeChanged)
		return ok && c.ID == ch.ID && c.After.State() == state.StatePaid
	}).(ChargeChanged)
	if r.Err != nil || r.Before.State() == state.StatePaid {
		t.Fatalf("change %+v", r)
	}
	if got, _, _ := s.Store.Charge(context.Background(), ch.ID); got.State() != state.StatePaid {
		t.Fatalf("stored %s", got.State())
	}
}

// A webhook event reaches the store, the engine reports it and confirms it by reading the
// transaction back: the verdict and paid come from the service's answer.
func TestEngineConfirmsAWebhookByReadBack(t *testing.T) {
	s := engineSession(t, true)
	ch := createCharge(t, s, 2500)
	// Slow polling: the paid state has to come from the event's read-back.
	e := startEngine(t, s, EngineOptions{PollEvery: time.Hour})
	// The feed starts where the history ends; let it read that first.
	time.Sleep(200 * time.Millisecond)
	if err := s.Simulator.Pay(context.Background(), ch.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	awaitReport(t, e, 20*time.Second, "the payment event reported", func(r Report) bool {
		ev, ok := r.(Events)
		if !ok {
			return false
		}
		for _, x := range ev.Events {
			if x.TransactionID == ch.ID && x.Kind == api.EventPaymentCompleted {
				return true
			}
		}
		return false
	})
	c := awaitReport(t, e, 20*time.Second, "the event confirmed", func(r Report) bool {
		c, ok := r.(EventConfirmed)
		return ok && c.Event.TransactionID == ch.ID
	}).(EventConfirmed)
	if c.Err != nil || c.Conf.Verdict != state.VerdictConfirmed || c.Conf.After.State() != state.StatePaid {
		t.Fatalf("confirmation %+v", c)
	}
}

// The read-back queue is bounded: beyond QueueSize a read is refused, except the watched
// charge's, which takes the place of the newest other read and is run before the others.
func TestEngineQueueBoundAndPriority(t *testing.T) {
	s := &Session{Store: state.OpenMemory()}
	t.Cleanup(func() { _ = s.Store.Close() })
	e := NewEngine(s, EngineOptions{QueueSize: 3}) // not started: nothing takes from the queue
	t.Cleanup(e.Close)
	ev := func(tx string) job {
		return job{kind: jobConfirm, id: tx, ev: &api.Event{EventID: "e-" + tx, Kind: api.EventPaymentCompleted, TransactionID: tx}}
	}
	for _, tx := range []string{"a", "b", "c"} {
		if !e.enqueue(ev(tx)) {
			t.Fatalf("%s refused below the bound", tx)
		}
	}
	if e.enqueue(ev("d")) || e.Queued() != 3 {
		t.Fatalf("the queue grew past its bound: %d", e.Queued())
	}
	e.Watch("w")
	if !e.enqueue(ev("w")) || e.Queued() != 3 {
		t.Fatalf("the watched charge's read was refused (or the bound broken: %d)", e.Queued())
	}
	var order []string
	for {
		j, ok := e.next()
		if !ok {
			break
		}
		order = append(order, j.id)
	}
	if got := strings.Join(order, ","); got != "w,a,b" {
		t.Fatalf("order %s, want w,a,b (the watched first, the newest other one evicted)", got)
	}
	// Without a watched charge the order is first come, first served.
	e.Watch("")
	for _, tx := range []string{"x", "w", "y"} {
		e.enqueue(ev(tx))
	}
	if j, _ := e.next(); j.id != "x" {
		t.Fatalf("first %s, want x", j.id)
	}
}

// At start the engine recovers a charge creation whose reply was lost: it is found by its
// key, tracked and reported.
func TestEngineRecoversAtStart(t *testing.T) {
	s := engineSession(t, true)
	ctx := context.Background()
	key := api.NewIdempotencyKey()
	req := api.CreatePixRequest{Amount: 4200, Description: "Venda"}
	// The request landed at the service but the window died before recording the answer.
	if err := s.Store.BeginSubmission(ctx, state.Submission{Key: key, Request: req, Wallet: api.WalletPrincipal,
		CreatedAt: time.Now().Add(-time.Hour), InFlightUntil: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.CreatePix(ctx, &req, api.WithIdempotencyKey(key)); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t, s, EngineOptions{PollEvery: time.Hour})
	r := awaitReport(t, e, 20*time.Second, "the recovery", func(r Report) bool { _, ok := r.(RecoveryDone); return ok }).(RecoveryDone)
	if len(r.Charges.Resolved) != 1 || r.Charges.Resolved[0].Amount != 4200 || r.Charges.Pending != 0 || r.Withdrawals == nil || r.Refunds == nil {
		t.Fatalf("recovered %+v", r)
	}
	if subs, _ := s.Store.PendingSubmissions(ctx); len(subs) != 0 {
		t.Fatalf("still pending: %+v", subs)
	}
}

// A creation whose outcome is unknown is looked up again on request (RecoverAfter): still in
// flight it stays pending (and a retry is due); once it landed it is resolved and tracked.
func TestEngineRecoverAfterResolvesALateCharge(t *testing.T) {
	s := engineSession(t, false)
	ctx := context.Background()
	key := api.NewIdempotencyKey()
	req := api.CreatePixRequest{Amount: 3100, Description: "Venda"}
	if err := s.Store.BeginSubmission(ctx, state.Submission{Key: key, Request: req, Wallet: api.WalletPrincipal,
		CreatedAt: time.Now(), InFlightUntil: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t, s, EngineOptions{PollEvery: time.Hour})
	isRecovery := func(r Report) bool { _, ok := r.(RecoveryDone); return ok }
	first := awaitReport(t, e, 20*time.Second, "the recovery at start", isRecovery).(RecoveryDone)
	if first.Charges.Pending != 1 || first.RetryIn <= 0 {
		t.Fatalf("at start: %+v", first)
	}
	if _, err := s.Client.CreatePix(ctx, &req, api.WithIdempotencyKey(key)); err != nil {
		t.Fatal(err)
	}
	e.RecoverAfter(10 * time.Millisecond)
	e.RecoverAfter(10 * time.Millisecond) // already due: no second pass
	r := awaitReport(t, e, 20*time.Second, "the pass asked for", isRecovery).(RecoveryDone)
	if len(r.Charges.Resolved) != 1 || r.Charges.Resolved[0].Amount != 3100 || r.Charges.Pending != 0 || r.Withdrawals != nil {
		t.Fatalf("after landing: %+v", r)
	}
	select {
	case x := <-e.Reports():
		if isRecovery(x) {
			t.Fatalf("a second pass ran: %+v", x)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// On a confirmed payment the engine runs the profile's on_paid once and reports how it ended.
func TestEngineRunsOnPaid(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	s := engineSession(t, true)
	s.OnPaid = &OnPaidCommand{Argv: []string{"/bin/sh", "-c", "exit 3"}, Timeout: 10 * time.Second}
	ch := createCharge(t, s, 900)
	if err := s.Simulator.Pay(context.Background(), ch.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	e := startEngine(t, s, EngineOptions{PollEvery: time.Hour})
	if r := e.Poll(context.Background(), ch.ID, api.WalletPrincipal); r.Err != nil || r.After.State() != state.StatePaid {
		t.Fatalf("poll %+v", r)
	}
	d := awaitReport(t, e, 20*time.Second, "on_paid", func(r Report) bool { _, ok := r.(OnPaidDone); return ok }).(OnPaidDone)
	if d.Result.ChargeID != ch.ID || d.Result.ExitCode != 3 || !d.Result.Failed() {
		t.Fatalf("on_paid %+v", d.Result)
	}
	// A second read of the paid charge runs nothing.
	e.Poll(context.Background(), ch.ID, api.WalletPrincipal)
	select {
	case r := <-e.Reports():
		if _, ok := r.(OnPaidDone); ok {
			t.Fatalf("on_paid ran twice: %+v", r)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// Close stops every goroutine of the engine, busy or idle, and can be called twice.
func TestEngineCloseLeavesNoGoroutine(t *testing.T) {
	s := engineSession(t, true)
	for i := range 3 {
		createCharge(t, s, api.Money(100+i))
	}
	settle := func() int {
		n := runtime.NumGoroutine()
		for range 100 {
			time.Sleep(20 * time.Millisecond)
			if m := runtime.NumGoroutine(); m == n {
				return n
			} else {
				n = m
			}
		}
		return n
	}
	before := settle()
	e := NewEngine(s, EngineOptions{PollEvery: 10 * time.Millisecond})
	e.Start()
	e.Start() // once
	e.RecoverAfter(time.Hour)
	// Nobody reads the reports: the engine must still stop.
	time.Sleep(300 * time.Millisecond)
	if runtime.NumGoroutine() <= before {
		t.Fatal("the engine started no goroutine")
	}
	done := make(chan struct{})
	go func() { e.Close(); e.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("Close hangs:\n%s", buf[:runtime.Stack(buf, true)])
	}
	var after int
	for range 100 {
		if after = settle(); after <= before {
			break
		}
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
	// A closed engine takes no work.
	e.Start()
	if e.enqueue(job{kind: jobPoll, id: "x"}) {
		t.Fatal("a closed engine queued a read")
	}
}

// A steady stream of webhook events (one every 10 ms) is read and reported about every FeedGap,
// not once every EventFeedCoalesce after each change (issue 27: each read is a read transaction).
func TestFeedReadsAStreamEveryFeedGap(t *testing.T) {
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	s := &Session{Profile: "feed", Env: api.Sandbox, Store: store}
	e := startEngine(t, s, EngineOptions{NoStartup: true, PollEvery: time.Hour})
	time.Sleep(50 * time.Millisecond) // the feed starts where the events end
	const n = 60                      // 600 ms of events
	go func() {
		for i := range n {
			raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-feed-%03d", i), "event": "customer_updated",
				"createdAt": time.Now().UTC().Format(time.RFC3339), "transactionId": fmt.Sprintf("tx-%d", i), "amount": 1.00})
			ev, err := api.DecodeEvent(raw)
			if err == nil {
				ev.Raw = raw
				_, err = store.ApplyEvent(context.Background(), ev)
			}
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	got, reports := 0, 0
	deadline := time.After(10 * time.Second)
	for got < n {
		select {
		case r := <-e.Reports():
			if b, ok := r.(Events); ok {
				got += len(b.Events)
				reports++
			}
		case <-deadline:
			t.Fatalf("%d of %d events reported", got, n)
		}
	}
	// 600 ms: about 6 reads; one every 25–35 ms would be about 20.
	if reports > 10 {
		t.Fatalf("%d events 10 ms apart came in %d reports, want at most 10", n, reports)
	}
}

// A flood faster than MaxEventBatch a FeedGap is not left behind: a full batch is followed at
// once by the next read, and only a batch that caught up waits for the gap.
func TestFeedReadsAFullBatchOnAtOnce(t *testing.T) {
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	s := &Session{Profile: "feed", Env: api.Sandbox, Store: store}
	e := startEngine(t, s, EngineOptions{NoStartup: true, PollEvery: time.Hour, FeedGap: time.Hour})
	time.Sleep(50 * time.Millisecond) // the feed starts where the events end
	const n = 2*MaxEventBatch + 5
	es := make([]*api.Event, n)
	for i := range es {
		raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-full-%05d", i), "event": "customer_updated",
			"createdAt": time.Now().UTC().Format(time.RFC3339), "transactionId": fmt.Sprintf("tx-%d", i), "amount": 1.00})
		ev, err := api.DecodeEvent(raw)
		if err != nil {
			t.Fatal(err)
		}
		ev.Raw = raw
		es[i] = ev
	}
	if _, err := store.ApplyEvents(context.Background(), es); err != nil {
		t.Fatal(err)
	}
	got := 0
	deadline := time.After(30 * time.Second) // far less than the hour a paced read would wait
	for got < n {
		select {
		case r := <-e.Reports():
			if b, ok := r.(Events); ok {
				got += len(b.Events)
			}
		case <-deadline:
			t.Fatalf("%d of %d events reported: the feed waited after a full batch", got, n)
		}
	}
}
