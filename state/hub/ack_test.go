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

// flakyBatchSink is flakySink for the batch path (*state.Intake's AcceptBatch): every third
// event of each batch fails its first attempt, and so does a whole batch now and then (a
// commit that failed), so no event of it is committed.
type flakyBatchSink struct {
	flakySink
	intake  *state.Intake
	batches int
}

func (f *flakyBatchSink) AcceptBatch(raws [][]byte, evs []*api.Event) []error {
	errs := make([]error, len(raws))
	var keepRaws [][]byte
	var keepEvs []*api.Event
	var idx []int
	f.mu.Lock()
	f.batches++
	whole := f.batches%4 == 2
	for i, ev := range evs {
		f.n++
		fail := (whole || f.n%3 == 0) && !f.seen[ev.EventID]
		f.seen[ev.EventID] = true
		if fail {
			f.failed++
			errs[i] = fmt.Errorf("%w: disk busy", api.ErrSinkFull)
			continue
		}
		keepRaws, keepEvs, idx = append(keepRaws, raws[i]), append(keepEvs, ev), append(idx, i)
	}
	f.mu.Unlock()
	for j, err := range f.intake.AcceptBatch(keepRaws, keepEvs) {
		errs[idx[j]] = err
	}
	return errs
}

// TestCounterAcksOnlyCommitted: a commit that fails leaves the message unacknowledged; the
// server delivers it again and the counter ends with every event once: through an intake that
// takes one event at a time, and through one that takes a batch at once (*state.Intake).
func TestCounterAcksOnlyCommitted(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("batched=%v", batched), func(t *testing.T) { testAcksOnlyCommitted(t, batched) })
	}
}

func testAcksOnlyCommitted(t *testing.T, batched bool) {
	srv := startServer(t, t.TempDir())
	h := startHub(t, srv.URL(), api.Sandbox)
	store := state.OpenMemory()
	defer store.Close()
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	_, js := connect(t, srv.URL())
	one := &flakySink{next: intake, seen: map[string]bool{}}
	var sink api.EventSink = one
	var many *flakyBatchSink
	if batched {
		many = &flakyBatchSink{flakySink: flakySink{next: intake, seen: map[string]bool{}}, intake: intake}
		sink = many
	}
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
	f := one
	if batched {
		f = &many.flakySink
	}
	f.mu.Lock()
	failed, n := f.failed, f.n
	if batched && many.batches == 0 {
		t.Errorf("the counter never handed the intake a batch")
	}
	f.mu.Unlock()
	if st := c.Status(context.Background()); failed == 0 || st.Retried != failed || st.Err != "" || st.Lag != 0 {
		t.Errorf("status %+v: want the %d failed commits counted, and no error once all committed", st, failed)
	}
	if n != len(want)+int(failed) {
		t.Errorf("the sink was handed %d events, want %d (each once, and each failed one again)", n, len(want)+int(failed))
	}
}
