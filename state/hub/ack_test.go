package hub_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/hub"
)

// flakySink fails the first attempt to keep every third event (a busy disk, a locked database);
// the counter must not acknowledge what was not committed.
type flakySink struct {
	next   api.EventSink
	mu     sync.Mutex
	seen   map[string]bool
	n      int
	failed uint64
}

func (f *flakySink) Accept(raw []byte) error {
	ev, err := api.DecodeEvent(raw)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.n++
	fail := f.n%3 == 0 && !f.seen[ev.EventID]
	f.seen[ev.EventID] = true
	if fail {
		f.failed++
	}
	f.mu.Unlock()
	if fail {
		return fmt.Errorf("%w: disk busy", api.ErrSinkFull)
	}
	return f.next.Accept(raw)
}

// TestCounterAcksOnlyCommitted: a commit that fails leaves the message unacknowledged; the
// server delivers it again and the counter ends with every event once.
func TestCounterAcksOnlyCommitted(t *testing.T) {
	srv := startServer(t, t.TempDir())
	h := startHub(t, srv.URL(), api.Sandbox)
	store := state.OpenMemory()
	defer store.Close()
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	_, js := connect(t, srv.URL())
	sink := &flakySink{next: intake, seen: map[string]bool{}}
	c, err := hub.NewCounter(js, hub.CounterOptions{Name: "caixa", Env: api.Sandbox, Intake: sink, Charges: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rig := &counterRig{name: "caixa", store: store, counter: c, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(rig.done); _ = c.Run(ctx) }()
	defer rig.stop()
	want := map[string]bool{}
	for i := range 30 {
		id := fmt.Sprintf("evt-%02d", i)
		want[id] = true
		if code := deliver(h.url, eventBody(id, "principal", api.Sandbox)); code != 200 {
			t.Fatalf("%s: %d", id, code)
		}
	}
	waitEvents(t, store, len(want), 30*time.Second)
	waitIdle(t, rig, 10*time.Second)
	storedOnce(t, "caixa", store, want)
	sink.mu.Lock()
	failed := sink.failed
	sink.mu.Unlock()
	if st := c.Status(context.Background()); failed == 0 || st.Retried != failed || st.Err != "" || st.Lag != 0 {
		t.Errorf("status %+v: want the %d failed commits counted, and no error once all committed", st, failed)
	}
}
