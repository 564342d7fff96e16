package state

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// crashIterations is how many times TestCrashSafety kills a writer (fewer with -short).
const crashIterations = 100

const (
	envCrashDir = "PIXDASH_STATE_CRASH_DIR"
	envCrashRun = "PIXDASH_STATE_CRASH_RUN"
)

// TestCrashHelperProcess is the child of TestCrashSafety: it writes until killed, printing
// "<kind> <id>" for every acknowledged write. It does nothing in a normal test run.
func TestCrashHelperProcess(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	run := os.Getenv(envCrashRun)
	s, err := Open(dir, "crash", WithCompactEvery(40))
	if err != nil {
		fmt.Printf("ERR %v\n", err)
		os.Exit(3)
	}
	var outMu sync.Mutex
	ack := func(kind, id string) {
		outMu.Lock()
		fmt.Fprintf(os.Stdout, "%s %s\n", kind, id)
		outMu.Unlock()
	}
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ {
				id := fmt.Sprintf("r%s-g%d-%05d", run, g, i)
				c := Charge{ID: id, Amount: api.Money(100 + i), Status: api.StatusPending, CreatedAt: time.Unix(int64(i), 0).UTC(), Description: id}
				if _, err := s.UpsertCharge(c); err != nil {
					fmt.Printf("ERR %v\n", err)
					os.Exit(4)
				}
				ack("charge", id)
				switch i % 4 {
				case 1:
					e := &api.Event{EventID: "ev-" + id, Kind: api.EventPaymentCompleted, CreatedAt: time.Unix(int64(i), 0).UTC(), TransactionID: id}
					if _, err := s.ApplyEvent(e); err != nil {
						fmt.Printf("ERR %v\n", err)
						os.Exit(4)
					}
					ack("event", e.EventID)
					// The service confirms it (a fake reader): the charge and the verdict are written.
					r := &fakeReader{txs: map[string]*api.Transaction{"principal/" + id: {ID: id, Status: api.StatusCompleted, Amount: c.Amount}}}
					if cf, err := s.ConfirmEvent(context.Background(), r, e); err != nil || cf.Verdict != VerdictConfirmed {
						fmt.Printf("ERR %v %v\n", err, cf.Verdict)
						os.Exit(4)
					}
					ack("confirm", e.EventID)
				case 2:
					key := "key-" + id
					if err := s.BeginSubmission(Submission{Key: key, Request: api.CreatePixRequest{Amount: 500}}); err != nil {
						fmt.Printf("ERR %v\n", err)
						os.Exit(4)
					}
					ack("sub", key)
				}
			}
		}()
	}
	wg.Wait()
	s.Close()
	os.Exit(0)
}

func TestCrashSafety(t *testing.T) {
	if os.Getenv(envCrashDir) != "" {
		t.Skip("inside the helper")
	}
	iters := crashIterations
	if testing.Short() {
		iters = 8
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(20250301, 7))
	acked := map[string]map[string]bool{"charge": {}, "event": {}, "confirm": {}, "sub": {}}
	for it := range iters {
		waitFor := 1 + r.IntN(60)
		extra := time.Duration(r.IntN(3000)) * time.Microsecond // lands the kill at varied points of a write
		killHelper(t, it, "TestCrashHelperProcess", []string{envCrashDir + "=" + dir, envCrashRun + "=" + fmt.Sprint(it)}, waitFor, extra,
			func(kind, id string) bool {
				if acked[kind] == nil {
					return false // test framework chatter
				}
				acked[kind][id] = true
				return true
			})

		s, err := Open(dir, "crash")
		if err != nil {
			var ce *CorruptError
			if errors.As(err, &ce) {
				t.Fatalf("iteration %d: corruption after a crash: %v", it, ce)
			}
			t.Fatalf("iteration %d: %v", it, err)
		}
		for id := range acked["charge"] {
			if _, ok := s.Charge(id); !ok {
				t.Fatalf("iteration %d: acknowledged charge %s lost", it, id)
			}
		}
		for id := range acked["event"] {
			if s.Events().Seen(id) != 1 {
				t.Fatalf("iteration %d: acknowledged event %s seen %d times", it, id, s.Events().Seen(id))
			}
		}
		for id := range acked["confirm"] {
			c, _ := s.Charge(strings.TrimPrefix(id, "ev-"))
			if en, _ := s.Events().Get(id); c.Status != api.StatusCompleted || en.Verdict != VerdictConfirmed {
				t.Fatalf("iteration %d: confirmed event %s: charge %s, verdict %q", it, id, c.Status, en.Verdict)
			}
		}
		pending := map[string]bool{}
		for _, sub := range s.PendingSubmissions() {
			pending[sub.Key] = true
		}
		for key := range acked["sub"] {
			if !pending[key] {
				t.Fatalf("iteration %d: acknowledged submission %s lost", it, key)
			}
		}
		s.Close()
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*corrupt*")); len(m) != 0 {
		t.Fatalf("files moved aside: %v", m)
	}
	t.Logf("%d kills, %d charges, %d events, %d submissions acknowledged and found",
		iters, len(acked["charge"]), len(acked["event"]), len(acked["sub"]))
}

// killHelper runs the test binary's helper test with env added, passes each "<kind> <id>" line
// it prints to ack (true when it is an acknowledgement) and kills it with SIGKILL pause after
// the waitFor-th acknowledgement. A line "ERR <text>" fails the test.
func killHelper(t *testing.T, it int, helper string, env []string, waitFor int, pause time.Duration, ack func(kind, id string) bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	n, killed := 0, false
	for sc.Scan() {
		kind, id, _ := strings.Cut(sc.Text(), " ")
		if kind == "ERR" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("iteration %d: helper failed: %s", it, id)
		}
		if ack(kind, id) {
			n++
		}
		if n >= waitFor && !killed {
			if pause > 0 {
				time.Sleep(pause) // not a timing assertion: only varies where the kill lands
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("iteration %d: helper exited before the kill", it)
	}
}
