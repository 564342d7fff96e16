package state

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// walFrameBytes is one frame of the write-ahead log: its header and a 4 KiB page.
const walFrameBytes = 24 + 4096

// fileSize is the size of path (0 when it does not exist).
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// The log is copied into the database file in the background soon after a commit, well before
// the writer would do it itself (walFallbackPages), and a flood that never pauses leaves the
// log bounded: the writer's own checkpoint, past walFallbackPages, reaches its end.
func TestBackgroundCheckpoint(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := s.wdb.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	db := fileSize(t, s.Path())

	// A burst below both thresholds (SQLite's default, 1000 pages, and walFallbackPages): only
	// the checkpointer copies it.
	for i := range 100 {
		if err := in.Accept(eventBody(fmt.Sprintf("burst-%d", i), "tx-1")); err != nil {
			t.Fatal(err)
		}
	}
	if wal := fileSize(t, s.Path()+"-wal"); wal >= 1000*walFrameBytes {
		t.Fatalf("a burst of 100 events wrote %d bytes of log", wal)
	}
	for deadline := time.Now().Add(5 * time.Second); fileSize(t, s.Path()) == db; {
		if time.Now().After(deadline) {
			t.Fatal("the burst's pages never reached the database file")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// A flood from 16 senders that writes several times walFallbackPages of log.
	const senders, each = 16, 500
	var wg sync.WaitGroup
	var mu sync.Mutex
	largest := int64(0)
	for w := range senders {
		wg.Go(func() {
			for i := range each {
				if err := in.Accept(eventBody(fmt.Sprintf("flood-%d-%d", w, i), fmt.Sprintf("tx-%d", i))); err != nil {
					t.Errorf("Accept: %v", err)
					return
				}
				if i%50 == 0 {
					n := fileSize(t, s.Path()+"-wal")
					mu.Lock()
					largest = max(largest, n)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if n := len(rowCounts(t, s, qEventCopies)); n != 100+senders*each {
		t.Fatalf("%d events stored, want %d", n, 100+senders*each)
	}
	// The log restarts from its beginning once a checkpoint reached its end: its file keeps
	// the largest size it had, which stays near the writer's threshold.
	if limit := int64(2*walFallbackPages) * walFrameBytes; largest > limit || fileSize(t, s.Path()+"-wal") > limit {
		t.Fatalf("the log grew to %d bytes during the flood (%d now), limit %d", largest, fileSize(t, s.Path()+"-wal"), limit)
	}
}

// Close stops the checkpointer: its connection is closed with the store's.
func TestCheckpointerStopsOnClose(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(ctx, dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	<-s.Ready()
	if _, err := s.ApplyEvent(ctx, testEvent(t, "e-1", "payment_completed", "tx-1")); err != nil {
		t.Fatal(err)
	}
	c := s.ckpt
	if c == nil {
		t.Fatal("a store on disk has no checkpointer")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	default:
		t.Fatal("the checkpointer still runs after Close")
	}
	if st := c.db.Stats(); st.OpenConnections != 0 {
		t.Fatalf("%d checkpointer connections left open", st.OpenConnections)
	}
	if OpenMemory().ckpt != nil {
		t.Fatal("a store in memory has a checkpointer")
	}
}

// settleCheckpoints waits for the store's background checkpoint under way, then checkpoints what
// the log still holds on the checkpointer's connection (a benchmark's turn ends with its own
// work done).
func settleCheckpoints(tb testing.TB, s *Store) {
	tb.Helper()
	if s.ckpt == nil {
		return
	}
	if _, err := s.ckpt.db.Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		tb.Fatal(err)
	}
}

// A steady trickle of commits (a webhook every 10 ms) is copied about once a second, not after
// every few commits: each copy writes the same index tails again and fsyncs the database file
// (issue 27: at 100 events/s the background checkpoints were a twentieth of the dashboard's
// CPU). A burst of checkpointCommits commits is still copied without waiting for the second.
func TestCheckpointGathersATrickle(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	c := s.ckpt
	start := time.Now()
	for i := 0; time.Since(start) < 1500*time.Millisecond; i++ {
		if err := in.Accept(eventBody(fmt.Sprintf("trickle-%d", i), "tx-1")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// 1.5 s of commits: a checkpoint when the first second ended and perhaps one at the start.
	if n := c.runs.Load(); n < 1 || n > 3 {
		t.Fatalf("%d checkpoints for a 1.5 s trickle, want 1 to 3 (one a second)", n)
	}

}

// The checkpointer's wait: checkpointCommits commits end it at once, fewer wait checkpointLazy.
func TestCheckpointGatherWaits(t *testing.T) {
	c := &checkpointer{wake: make(chan struct{}, 1), stop: make(chan struct{})}
	for range checkpointCommits {
		c.committed()
	}
	start := time.Now()
	if !c.gather() {
		t.Fatal("gather stopped")
	}
	if d := time.Since(start); d > checkpointLazy/4 {
		t.Fatalf("%d commits waited %s for their checkpoint", checkpointCommits, d)
	}
	c.commits.Store(1)
	start = time.Now()
	c.gather()
	if d := time.Since(start); d < checkpointLazy-50*time.Millisecond {
		t.Fatalf("one commit was checkpointed after %s, want about %s", d, checkpointLazy)
	}
	close(c.stop)
	c.commits.Store(0)
	if c.gather() {
		t.Fatal("gather went on after the checkpointer stopped")
	}
}
