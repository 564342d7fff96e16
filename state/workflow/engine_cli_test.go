package workflow

import (
	"context"
	"errors"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// What the command line needs of the engine (issue 23: one engine for the dashboard, the
// command line and the hub).

// StartAfter: a command that read the events' position before its receiver started hears of
// an event recorded before the engine started; its Events report comes before its read-back,
// and it is read back once (not also as a startup leftover).
func TestEngineStartAfterReportsEarlyEventsOnce(t *testing.T) {
	s := engineSession(t, true)
	ctx := context.Background()
	seq, err := s.Store.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch := createCharge(t, s, 1800)
	if err := s.Simulator.Pay(ctx, ch.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	// The event is recorded before the engine starts.
	deadline := time.Now().Add(20 * time.Second)
	for {
		es, err := s.Store.EventsAfter(ctx, seq, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the payment event never reached the store")
		}
		time.Sleep(20 * time.Millisecond)
	}
	e := NewEngine(s, EngineOptions{PollEvery: time.Hour})
	t.Cleanup(e.Close)
	e.StartAfter(seq)
	seen, confirmed := false, 0
	quiet := time.After(20 * time.Second)
	for confirmed == 0 || quiet != nil {
		select {
		case r := <-e.Reports():
			switch r := r.(type) {
			case Events:
				for _, ev := range r.Events {
					seen = seen || ev.TransactionID == ch.ID
				}
			case EventConfirmed:
				if r.Event.TransactionID != ch.ID {
					continue
				}
				if !seen {
					t.Fatal("the read-back was reported before the event")
				}
				if r.Err != nil || r.Conf.After.State() != state.StatePaid {
					t.Fatalf("confirmation %+v", r)
				}
				if confirmed++; confirmed == 1 {
					quiet = time.After(time.Second) // a second read-back would come within it
				}
			}
		case <-quiet:
			if confirmed == 0 {
				t.Fatal("the early event was never read back")
			}
			quiet = nil
		}
	}
	if confirmed != 1 {
		t.Fatalf("read back %d times, want once", confirmed)
	}
}

// WatchEvery polls the watched charge at its own pace (charge wait --interval), faster than the
// store's schedule for the charge on screen (2 s); NoStartup runs no recovery pass.
func TestEngineWatchEveryAndNoStartup(t *testing.T) {
	s := engineSession(t, false)
	ch := createCharge(t, s, 900)
	e := NewEngine(s, EngineOptions{WatchEvery: 50 * time.Millisecond, NoStartup: true})
	t.Cleanup(e.Close)
	e.Watch(ch.ID)
	e.Start()
	polls, end := 0, time.After(1500*time.Millisecond)
	for end != nil {
		select {
		case r := <-e.Reports():
			switch r := r.(type) {
			case ChargeChanged:
				if r.ID == ch.ID {
					polls++
				}
			case RecoveryDone:
				t.Fatalf("a NoStartup engine recovered: %+v", r)
			}
		case <-end:
			end = nil
		}
	}
	if polls < 5 {
		t.Fatalf("the watched charge was polled %d times in 1.5 s, want every 50 ms", polls)
	}
}

// A read-back the bounded queue has no room for is reported as a last failure (ErrQueueFull),
// not dropped unsaid: the command line prints every event it was told of.
func TestEngineQueueFullReadBackIsReported(t *testing.T) {
	s := &Session{Store: state.OpenMemory()}
	t.Cleanup(func() { _ = s.Store.Close() })
	e := NewEngine(s, EngineOptions{QueueSize: 1}) // not started: nothing takes from the queue
	t.Cleanup(e.Close)
	a := &api.Event{EventID: "e-a", Kind: api.EventPaymentCompleted, TransactionID: "a"}
	b := &api.Event{EventID: "e-b", Kind: api.EventPaymentCompleted, TransactionID: "b"}
	e.queueConfirm(a, 0)
	e.queueConfirm(b, 0)
	select {
	case r := <-e.Reports():
		c, ok := r.(EventConfirmed)
		if !ok || c.Event != b || !errors.Is(c.Err, ErrQueueFull) || c.Attempt+1 != MaxConfirmAttempts {
			t.Fatalf("report %#v, want b's last failure with ErrQueueFull", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read-back with no room was not reported")
	}
}
