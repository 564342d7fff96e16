package workflow

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// ids lists a batch's event ids.
func ids(b EventBatch) string {
	var out []string
	for _, e := range b.Events {
		out = append(out, e.EventID)
	}
	return fmt.Sprint(out)
}

// waitAsync runs WaitEvents in a goroutine.
func waitAsync(ctx context.Context, f *fakeFeed, after int64, max int) <-chan EventBatch {
	out := make(chan EventBatch, 1)
	go func() {
		b, ok := WaitEvents(ctx, f, after, max)
		if !ok {
			close(out)
			return
		}
		out <- b
	}()
	return out
}

func TestWaitEvents(t *testing.T) {
	ctx := context.Background()
	t.Run("stored events are history: a start waits for news", func(t *testing.T) {
		f := newFeed()
		f.add("old-1", "old-2")
		got := waitAsync(ctx, f, -1, 10)
		select {
		case b := <-got:
			t.Fatalf("returned %v with nothing new", ids(b))
		case <-time.After(100 * time.Millisecond):
		}
		f.add("new-1")
		b := <-got
		if ids(b) != "[new-1]" || b.Last != 3 || b.Err != nil {
			t.Fatalf("batch %v last %d err %v", ids(b), b.Last, b.Err)
		}
	})
	t.Run("reads after a position, at most max", func(t *testing.T) {
		f := newFeed()
		f.add("a", "b", "c", "d")
		b, ok := WaitEvents(ctx, f, 1, 2)
		if !ok || ids(b) != "[b c]" || b.Last != 3 {
			t.Fatalf("batch %v last %d ok %v", ids(b), b.Last, ok)
		}
	})
	t.Run("a flood becomes one batch", func(t *testing.T) {
		f := newFeed()
		got := waitAsync(ctx, f, 0, 100)
		time.Sleep(20 * time.Millisecond)
		f.add("1")
		f.add("2") // within EventFeedCoalesce of the first
		f.add("3")
		if b := <-got; ids(b) != "[1 2 3]" {
			t.Fatalf("batch %v", ids(b))
		}
	})
	t.Run("a read failure is reported at the position", func(t *testing.T) {
		f := newFeed()
		f.readErr = state.ErrIO
		b, ok := WaitEvents(ctx, f, 7, 10)
		if !ok || !errors.Is(b.Err, state.ErrIO) || b.Last != 7 {
			t.Fatalf("batch %+v ok %v", b, ok)
		}
		f = newFeed()
		f.lastErr = state.ErrIO
		if b, ok := WaitEvents(ctx, f, -1, 10); !ok || !errors.Is(b.Err, state.ErrIO) || b.Last != -1 {
			t.Fatalf("start: batch %+v ok %v", b, ok)
		}
	})
	t.Run("the end of the context ends the wait", func(t *testing.T) {
		f := newFeed()
		cctx, cancel := context.WithCancel(ctx)
		got := waitAsync(cctx, f, 0, 10)
		time.Sleep(20 * time.Millisecond)
		cancel()
		select {
		case b, ok := <-got:
			if ok {
				t.Fatalf("returned %+v after the end", b)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the wait outlived its context")
		}
	})
}

// fakeChecker records what was read back.
type fakeChecker struct {
	unchecked []state.EventEntry
	err       error
	confirmed []string
	reader    state.TransactionReader
}

func (f *fakeChecker) ConfirmEvent(_ context.Context, r state.TransactionReader, e *api.Event) (state.Confirmation, error) {
	f.confirmed = append(f.confirmed, e.EventID)
	f.reader = r
	return state.Confirmation{EventID: e.EventID, Verdict: state.VerdictConfirmed}, f.err
}

func (f *fakeChecker) UncheckedPayments(_ context.Context, max int) ([]state.EventEntry, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.unchecked[:min(max, len(f.unchecked))], nil
}

func TestPaymentReadBack(t *testing.T) {
	ctx := context.Background()
	c := &fakeAPI{}
	f := &fakeChecker{unchecked: []state.EventEntry{{Event: &api.Event{EventID: "e1"}}, {Event: &api.Event{EventID: "e2"}}, {Event: &api.Event{EventID: "e3"}}}}
	evs, err := UncheckedPayments(ctx, f, 2)
	if err != nil || len(evs) != 2 || evs[0].EventID != "e1" {
		t.Fatalf("unchecked %v, %v", evs, err)
	}
	conf, err := ConfirmPayment(ctx, c, f, evs[1])
	if err != nil || conf.EventID != "e2" || fmt.Sprint(f.confirmed) != "[e2]" || f.reader != c {
		t.Fatalf("confirm %+v, %v; confirmed %v with %v", conf, err, f.confirmed, f.reader)
	}
	f.err = state.ErrIO
	if _, err := UncheckedPayments(ctx, f, 2); !errors.Is(err, state.ErrIO) {
		t.Fatalf("err %v", err)
	}
}

type fakePruner struct{ before []time.Time }

func (p *fakePruner) PruneEvents(_ context.Context, before time.Time) (int, error) {
	p.before = append(p.before, before)
	return 3, nil
}

func TestPruneEvents(t *testing.T) {
	p := &fakePruner{}
	if n, err := PruneEvents(context.Background(), p, t0, 0); n != 0 || err != nil || len(p.before) != 0 {
		t.Fatalf("retention 0 pruned: %d, %v, %v", n, err, p.before)
	}
	n, err := PruneEvents(context.Background(), p, t0, 30)
	if n != 3 || err != nil || len(p.before) != 1 || !p.before[0].Equal(t0.AddDate(0, 0, -30)) {
		t.Fatalf("pruned %d, %v, before %v", n, err, p.before)
	}
}
