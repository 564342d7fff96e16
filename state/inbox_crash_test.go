package state

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"
)

// inboxCrashIterations is how many times TestInboxCrashSafety kills a receiving process.
const inboxCrashIterations = 20

const envInboxCrashDir = "PIXDASH_INBOX_CRASH_DIR"

// TestInboxCrashHelperProcess is the child of TestInboxCrashSafety: four goroutines Accept
// events into the inbox, printing "ack <eventId>" once Accept returned (the moment the receiver
// answers 200), while a consumer applies them to the Store as the dashboard does (Next,
// ApplyEvents, Done), until killed. It does nothing in a normal test run.
func TestInboxCrashHelperProcess(t *testing.T) {
	dir := os.Getenv(envInboxCrashDir)
	if dir == "" {
		t.Skip("helper process for TestInboxCrashSafety")
	}
	fail := func(err error) { fmt.Printf("ERR %v\n", err); os.Exit(3) }
	s, err := Open(dir, "crash")
	if err != nil {
		fail(err)
	}
	in, err := OpenInbox(dir, "crash")
	if err != nil {
		fail(err)
	}
	go func() {
		for range in.Ready() {
			b, err := in.Next(500)
			if err != nil {
				fail(err)
			}
			evs, skipped := s.InboxEvents(b)
			if skipped != 0 {
				fail(fmt.Errorf("%d entries do not decode", skipped))
			}
			if _, err := s.ApplyEvents(evs); err != nil {
				fail(err)
			}
			if err := in.Done(b); err != nil {
				fail(err)
			}
		}
	}()
	run := os.Getenv(envCrashRun)
	var outMu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("r%s-g%d-%06d", run, g, i)
				if err := in.Accept([]byte(`{"eventId":"` + id + `","event":"payment_completed","transactionId":"tx-` + id + `","amount":1.00}`)); err != nil {
					fail(err)
				}
				outMu.Lock()
				fmt.Printf("ack %s\n", id)
				outMu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestInboxCrashSafety kills a process receiving webhooks at random points: every event it
// acknowledged is, after a restart, either applied to the Store or waiting in the inbox, and no
// event is applied twice.
func TestInboxCrashSafety(t *testing.T) {
	if os.Getenv(envInboxCrashDir) != "" {
		t.Skip("inside the helper")
	}
	iters := inboxCrashIterations
	if testing.Short() {
		iters = 5
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(20261121, 5))
	acked := map[string]bool{}
	for it := range iters {
		waitFor := 1 + r.IntN(3000)
		pause := time.Duration(r.IntN(2000)) * time.Microsecond
		killHelper(t, it, "TestInboxCrashHelperProcess", []string{envInboxCrashDir + "=" + dir, envCrashRun + "=" + fmt.Sprint(it)}, waitFor, pause,
			func(kind, id string) bool {
				if kind != "ack" {
					return false
				}
				acked[id] = true
				return true
			})

		s, err := Open(dir, "crash")
		if err != nil {
			t.Fatalf("iteration %d: store: %v", it, err)
		}
		in, err := OpenInbox(dir, "crash")
		var ce *CorruptError
		if errors.As(err, &ce) || err != nil {
			t.Fatalf("iteration %d: inbox after a crash: %v", it, err)
		}
		b, err := in.Next(0)
		if err != nil {
			t.Fatal(err)
		}
		waiting := map[string]bool{}
		evs, _ := OpenMemory().InboxEvents(b)
		for _, ev := range evs {
			waiting[ev.EventID] = true
		}
		for id := range acked {
			if seen := s.Events().Seen(id); seen > 1 || seen == 0 && !waiting[id] {
				t.Fatalf("iteration %d: acknowledged event %s applied %d times, waiting %t (%d acknowledged, store holds %d, %d waiting)", it, id, seen, waiting[id], len(acked), s.Events().Total(), len(waiting))
			}
		}
		in.Close()
		s.Close()
	}
	t.Logf("%d kills, %d events acknowledged, none lost or doubled", iters, len(acked))
}
