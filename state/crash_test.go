package state

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// Helper processes: the test binary run again with these variables set runs one of the
// TestCrashHelper tests, which write to the store in dir until killed (or, with
// envCrashStop, a fixed number of writes per goroutine), printing what they do.
const (
	envCrashDir  = "PIXDASH_STATE_CRASH_DIR"
	envCrashRun  = "PIXDASH_STATE_CRASH_RUN"
	envCrashStop = "PIXDASH_STATE_CRASH_STOP"
	crashProfile = "crash"
	// helperLifetime ends a helper nobody killed (its parent died).
	helperLifetime = 90 * time.Second
)

// say prints one line of a helper: "try <kind> <id>" before a write, "ack <kind> <id>" once
// it returned nil. Writes to os.Stdout are not buffered: a line printed is in the pipe even
// if the process is killed right after.
var sayMu sync.Mutex

func say(verb, kind, id string) {
	sayMu.Lock()
	fmt.Printf("%s %s %s\n", verb, kind, id)
	sayMu.Unlock()
}

// helperFail reports a helper's failure to its parent and exits.
func helperFail(err error) {
	say("ERR", "-", strings.ReplaceAll(err.Error(), "\n", " "))
	os.Exit(3)
}

// crashWrites is one round of a writer helper for id: a charge; for some rounds an event
// (some sent twice) read back against a fake service that confirms it; a submission begun;
// a submission begun and completed.
func crashWrites(s *Store, id string, i int) error {
	step := func(kind, key string, f func() error) error {
		say("try", kind, key)
		if err := f(); err != nil {
			return fmt.Errorf("%s %s: %w", kind, key, err)
		}
		say("ack", kind, key)
		return nil
	}
	err := step("charge", id, func() error {
		st := api.StatusCompleted // most final: every open reads the pending ones
		if i%4 == 1 {
			st = api.StatusPending // until its event is confirmed
		}
		_, err := s.UpsertCharge(ctx, Charge{ID: id, Amount: 1234, Status: st, CreatedAt: time.Now(), Description: id, Source: SourceCreated})
		return err
	})
	if err != nil {
		return err
	}
	key := "key-" + id
	switch i % 4 {
	case 1:
		e, err := api.DecodeEvent(eventBody("ev-"+id, id))
		if err != nil {
			return err
		}
		for range 1 + i%8/5 { // a copy in every other event round
			if err := step("event", e.EventID, func() error { _, err := s.ApplyEvent(ctx, e); return err }); err != nil {
				return err
			}
		}
		r := &fakeReader{txs: map[string]*api.Transaction{"principal/" + id: {ID: id, Status: api.StatusCompleted, Amount: 1234}}}
		return step("confirm", e.EventID, func() error {
			c, err := s.ConfirmEvent(ctx, r, e)
			if err == nil && c.Verdict != VerdictConfirmed {
				err = fmt.Errorf("verdict %s %s", c.Verdict, c.Reason)
			}
			return err
		})
	case 2, 3:
		err := step("sub", key, func() error {
			return s.BeginSubmission(ctx, Submission{Key: key, Request: api.CreatePixRequest{Amount: 500, Description: id}})
		})
		if err != nil || i%4 == 2 {
			return err
		}
		return step("done", key, func() error {
			_, err := s.CompleteSubmission(ctx, key, Charge{ID: "c-" + key, Amount: 500, Status: api.StatusPending, CreatedAt: time.Now()})
			return err
		})
	}
	return nil
}

// awaitGo waits for the parent's go-ahead, a line on stdin (a helper is started ahead of its
// turn, so that starting a process under -race overlaps the previous one's work).
func awaitGo() {
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		os.Exit(0) // the parent is gone
	}
}

// TestCrashHelperWriter is the writer helper: two goroutines run crashWrites.
func TestCrashHelperWriter(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" || os.Getenv(envCrashRun) == "" {
		t.Skip("helper process of the crash tests")
	}
	stop, _ := strconv.Atoi(os.Getenv(envCrashStop))
	awaitGo()
	s, err := Open(ctx, dir, crashProfile)
	if err != nil {
		helperFail(err)
	}
	deadline := time.Now().Add(helperLifetime)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := 0; (stop == 0 || i < stop) && time.Now().Before(deadline); i++ {
				if err := crashWrites(s, fmt.Sprintf("r%s-g%d-%05d", os.Getenv(envCrashRun), g, i), i); err != nil {
					helperFail(err)
				}
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		helperFail(err)
	}
}

// TestCrashHelperReceiver is the webhook helper: a receiver keeping deliveries in the
// profile's intake, on a loopback port it prints as "addr url -".
func TestCrashHelperReceiver(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" || os.Getenv(envCrashRun) != "" {
		t.Skip("helper process of the crash tests")
	}
	awaitGo()
	s, err := Open(ctx, dir, crashProfile)
	if err != nil {
		helperFail(err)
	}
	in, err := s.OpenIntake()
	if err != nil {
		helperFail(err)
	}
	url, err := api.NewReceiver(testSecret, api.WithSink(in)).Start(context.Background(), "127.0.0.1:0")
	if err != nil {
		helperFail(err)
	}
	say("addr", url, "-")
	time.Sleep(helperLifetime)
}

// helper is a helper process, started and waiting for its go-ahead.
type helper struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startHelper(t *testing.T, test string, env ...string) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	// atexit_sleep_ms=0: a helper that ends by itself exits at once (under -race it would
	// otherwise wait a second before exiting).
	cmd.Env = append(os.Environ(), append(env, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 4096), 1<<20)
	h := &helper{cmd: cmd, in: in, out: sc}
	t.Cleanup(h.kill)
	return h
}

// start lets the helper go.
func (h *helper) start(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(h.in, "go\n"); err != nil {
		t.Fatal(err)
	}
}

// next returns the next line the helper printed; ok is false at the end of its output. It
// fails the test on a line "ERR".
func (h *helper) next(t *testing.T) (verb, kind, id string, ok bool) {
	for h.out.Scan() {
		f := strings.Fields(h.out.Text())
		if len(f) != 3 {
			continue // the test framework's own lines
		}
		if f[0] == "ERR" {
			h.kill()
			t.Errorf("helper failed: %s", h.out.Text())
			return "", "", "", false
		}
		return f[0], f[1], f[2], true
	}
	return "", "", "", false
}

// kill ends the helper with SIGKILL (if it still runs) and reaps it.
func (h *helper) kill() {
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
}

// pipeline starts the helper of each iteration one ahead of its turn.
func pipeline(t *testing.T, iters int, start func(it int) *helper, run func(it int, h *helper)) {
	next := start(0)
	for it := range iters {
		h := next
		h.start(t)
		if it+1 < iters {
			next = start(it + 1)
		}
		run(it, h)
	}
}

// ledger is what writer helpers tried and acknowledged, per "kind id": how many times.
type ledger struct {
	mu           sync.Mutex
	tried, acked map[string]int
}

func newLedger() *ledger { return &ledger{tried: map[string]int{}, acked: map[string]int{}} }

// note records a helper's line and reports whether it was an acknowledgement.
func (l *ledger) note(verb, kind, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch verb {
	case "try":
		l.tried[kind+" "+id]++
	case "ack":
		l.acked[kind+" "+id]++
		return true
	}
	return false
}

// check reads s and fails the test for an acknowledged write that is missing, a record no
// helper tried to write, or more copies of an event than were sent (a write in flight at the
// kill may be there or not: between acknowledged and tried).
func (l *ledger) check(t *testing.T, s *Store, when string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	charges := rowCounts(t, s, qChargeIDs)
	events := rowCounts(t, s, qEventCopies)
	confirmed := rowCounts(t, s, `SELECT event_id, 1 FROM events WHERE verdict = 'confirmed'`)
	paid := rowCounts(t, s, `SELECT id, 1 FROM charges WHERE state = 'paid'`)
	pending := rowCounts(t, s, `SELECT id, 1 FROM charges WHERE state = 'pending'`)
	subs, err := s.PendingSubmissions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{}
	for _, sub := range subs {
		open[sub.Key] = true
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: "+format, append([]any{when}, args...)...)
	}
	for k, n := range l.acked {
		kind, id, _ := strings.Cut(k, " ")
		switch {
		case kind == "charge" && charges[id] != 1:
			fail("acknowledged charge %s lost", id)
		case kind == "event" && events[id] < n:
			fail("event %s: %d copies acknowledged, %d stored", id, n, events[id])
		case kind == "confirm" && (confirmed[id] != 1 || paid[strings.TrimPrefix(id, "ev-")] != 1):
			fail("confirmed event %s: verdict kept %v, charge paid %v", id, confirmed[id] == 1, paid[strings.TrimPrefix(id, "ev-")] == 1)
		case kind == "sub" && !open[id] && l.tried["done "+id] == 0:
			fail("acknowledged submission %s lost", id)
		case kind == "done" && (open[id] || charges["c-"+id] != 1):
			fail("completed submission %s: still pending %v, charge kept %v", id, open[id], charges["c-"+id] == 1)
		}
	}
	for id := range charges {
		if l.tried["charge "+id] == 0 && l.tried["done "+strings.TrimPrefix(id, "c-")] == 0 {
			fail("charge %s was never written", id)
		}
	}
	for id, n := range events {
		if n > l.tried["event "+id] {
			fail("event %s stored with %d copies, %d sent", id, n, l.tried["event "+id])
		}
	}
	for key := range open {
		if l.tried["sub "+key] == 0 {
			fail("submission %s was never begun", key)
		}
	}
	// What the store derives (counts, the poll schedule) agrees with its records.
	cp := windowT(t, s, ChargeQuery{}, 0, 0)
	ep, err := s.EventWindow(ctx, EventQuery{}, 0, 0)
	if err != nil || cp.Total != len(charges) || ep.Total != len(events) || s.PendingCount() != len(pending) {
		fail("totals: %d charges counted, %d stored; %d events counted, %d stored (%v); %d pending polled, %d stored",
			cp.Total, len(charges), ep.Total, len(events), err, s.PendingCount(), len(pending))
	}
}

// checkIntegrity runs SQLite's own checks of the file and of the full-text index.
func checkIntegrity(t *testing.T, s *Store) {
	t.Helper()
	var res string
	if err := s.wdb.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
	if _, err := s.wdb.ExecContext(ctx, `INSERT INTO charges_fts(charges_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("full-text index: %v", err)
	}
}

// appendGarbage adds n random bytes to the end of the write-ahead log, as a write torn by the
// crash would leave them (a no-op when there is no log).
func appendGarbage(t *testing.T, s string, r *rand.Rand, n int) {
	t.Helper()
	f, err := os.OpenFile(s+"-wal", os.O_WRONLY|os.O_APPEND, 0)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCrashSafety kills a writing process with SIGKILL at random points, 100 times: after
// each restart every acknowledged charge, event copy, verdict and submission is there, and
// nothing is there twice or without having been written. Every third crash also leaves random
// bytes after the end of the write-ahead log, as a torn last write would.
func TestCrashSafety(t *testing.T) {
	iters := 100
	if testing.Short() {
		iters = 10
	}
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName(crashProfile))
	r := rand.New(rand.NewPCG(20261123, 1))
	l := newLedger()
	start := time.Now()
	pipeline(t, iters, func(it int) *helper {
		return startHelper(t, "TestCrashHelperWriter", envCrashDir+"="+dir, envCrashRun+"="+strconv.Itoa(it))
	}, func(it int, h *helper) {
		killAt := 1 + r.IntN(16)
		pause := time.Duration(r.IntN(4000)) * time.Microsecond // varies where the kill lands
		acks, killed := 0, false
		for {
			verb, kind, id, ok := h.next(t)
			if !ok {
				break
			}
			if l.note(verb, kind, id) {
				acks++
			}
			if acks >= killAt && !killed {
				time.Sleep(pause)
				_ = h.cmd.Process.Kill()
				killed = true
			}
		}
		h.kill()
		if t.Failed() || !killed {
			t.Fatalf("iteration %d: the helper ended before the kill", it)
		}
		if it%3 == 2 {
			appendGarbage(t, file, r, 1+r.IntN(9000))
		}
		s, err := Open(ctx, dir, crashProfile)
		if err != nil {
			t.Fatalf("iteration %d: reopening after the crash: %v", it, err)
		}
		<-s.Ready()
		l.check(t, s, fmt.Sprintf("iteration %d", it))
		if it == iters-1 {
			checkIntegrity(t, s)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d kills in %v; %d writes acknowledged, none lost or doubled", iters, time.Since(start).Round(time.Millisecond), len(l.acked))
}

// TestCrashWebhookFlood kills a process receiving a flood of webhooks (four senders, two by
// two delivering the same ids at once) at random points: every delivery answered 200 is
// stored after the restart, exactly once. Each helper's OpenIntake also checks that the killed
// one's receiver lock went with it.
func TestCrashWebhookFlood(t *testing.T) {
	iters := 20
	if testing.Short() {
		iters = 4
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(20261123, 2))
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	acked, sent := map[string]bool{}, map[string]bool{}
	var mu sync.Mutex
	start := time.Now()
	pipeline(t, iters, func(int) *helper {
		return startHelper(t, "TestCrashHelperReceiver", envCrashDir+"="+dir)
	}, func(it int, h *helper) {
		verb, url, _, ok := h.next(t)
		if !ok || verb != "addr" {
			t.Fatalf("iteration %d: the receiver did not start", it)
		}
		killAt := int32(1 + r.IntN(60))
		var n atomic.Int32
		enough := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					id := fmt.Sprintf("r%d-p%d-%05d", it, g/2, i)
					mu.Lock()
					sent[id] = true
					mu.Unlock()
					code, reply, err := deliver(client, url, eventBody(id, "tx-"+id), testSecret)
					if err != nil {
						return // killed
					}
					if code != http.StatusOK {
						t.Errorf("delivery %s: %d %s", id, code, reply)
						return
					}
					mu.Lock()
					acked[id] = true
					mu.Unlock()
					if n.Add(1) == killAt {
						close(enough)
					}
				}
			})
		}
		select {
		case <-enough:
		case <-time.After(30 * time.Second):
			t.Errorf("iteration %d: only %d deliveries acknowledged in 30 s", it, n.Load())
		}
		time.Sleep(time.Duration(r.IntN(3000)) * time.Microsecond)
		h.kill()
		wg.Wait()
		tr.CloseIdleConnections()
		if t.Failed() {
			t.FailNow()
		}
		s, err := Open(ctx, dir, crashProfile)
		if err != nil {
			t.Fatalf("iteration %d: reopening after the crash: %v", it, err)
		}
		stored := rowCounts(t, s, qEventCopies)
		for id := range acked {
			if stored[id] != 1 {
				t.Fatalf("iteration %d: event %s answered 200, stored %d times", it, id, stored[id])
			}
		}
		for id, n := range stored {
			if !sent[id] || n != 1 {
				t.Fatalf("iteration %d: event %s stored %d times, sent %v", it, id, n, sent[id])
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d kills in %v; %d deliveries answered 200, each stored once", iters, time.Since(start).Round(time.Millisecond), len(acked))
}
