package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// countingTransport counts the requests that left for the service (each a dial when it is down).
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

// A stream of payment events while the service cannot be reached: every event still ends with
// its last try reported as a failure that says the service could not be reached, but a try
// made while another read-back found the service unreachable a moment ago neither dials it
// again nor, before the last, is reported; and the events waiting for their next try are a
// list, not a goroutine each (issue 27: a flood dialled a service that was down five times an
// event, then once an event, and each try was a report for the dashboard to handle).
func TestOutageReadBacksDoNotDialForEachEvent(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now: connection refused
	rt := &countingTransport{base: &http.Transport{}}
	c, err := api.NewClient("http://"+addr+"/v2", "mp_test_outage", "unused", api.WithRetry(api.RetryPolicy{MaxAttempts: 1}),
		api.WithHTTPClient(&http.Client{Transport: rt, Timeout: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	s := &Session{Profile: "outage", Env: api.Sandbox, Client: c, Store: store}
	const base = 100 * time.Millisecond
	e := startEngine(t, s, EngineOptions{NoStartup: true, PollEvery: time.Hour, RetryBase: base})
	time.Sleep(200 * time.Millisecond) // the feed starts where the events end
	in, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	goroutines := runtime.NumGoroutine()
	began := time.Now()
	var most atomic.Int64 // the most goroutines seen while the events waited
	stopCounting := make(chan struct{})
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		for {
			most.Store(max(most.Load(), int64(runtime.NumGoroutine()-goroutines)))
			select {
			case <-stopCounting:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	go func() {
		// One event every 30 ms, as a paced flood brings them: their last tries come apart.
		for i := range n {
			raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-outage-%03d", i), "event": api.EventPaymentCompleted,
				"createdAt": time.Now().UTC().Format(time.RFC3339), "transactionId": fmt.Sprintf("9f6c1a2e-0000-4000-8000-%012d", i), "amount": 12.34})
			if err := in.Accept(raw); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(30 * time.Millisecond)
		}
	}()
	reports := map[string]int{}
	last := map[string]int{}
	deadline := time.After(30 * time.Second)
	for done := 0; done < n; {
		select {
		case r := <-e.Reports():
			c, ok := r.(EventConfirmed)
			if !ok {
				continue
			}
			if c.Err == nil {
				t.Fatalf("event %s confirmed by a service that is down", c.Event.EventID)
			}
			id := c.Event.EventID
			if prev, seen := last[id]; seen && c.Attempt <= prev {
				t.Fatalf("event %s: attempt %d reported after attempt %d", id, c.Attempt, prev)
			}
			last[id] = c.Attempt
			reports[id]++
			var ne net.Error
			if !errors.As(c.Err, &ne) {
				t.Fatalf("event %s: the error does not say the service could not be reached: %v", id, c.Err)
			}
			if c.Attempt+1 == MaxConfirmAttempts {
				done++
			}
		case <-deadline:
			t.Fatalf("%d events of %d read back to the end", len(last), n)
		}
	}
	close(stopCounting)
	<-counted
	skipped := 0
	for id, k := range reports {
		skipped += MaxConfirmAttempts - k
		if last[id] != MaxConfirmAttempts-1 {
			t.Fatalf("event %s ended at attempt %d", id, last[id])
		}
	}
	asked := rt.n.Load()
	t.Logf("%d events × %d tries: %d requests left, %d tries skipped", n, MaxConfirmAttempts, asked, skipped)
	if skipped < n { // a skipped try is not reported: fewer reports than tries
		t.Fatalf("%d tries of %d skipped (not reported) while the service was known down, want at least one an event", skipped, n*MaxConfirmAttempts)
	}
	// About one request a RetryBase of the outage (a try finding the last failure older asks
	// again), and the client's own background exchanges; once an event, n more.
	if bound := int64(time.Since(began)/base) + 4; asked > bound {
		t.Fatalf("%d requests for %d events × %d tries in %v: the service was dialled more than once a %v (%d)",
			asked, n, MaxConfirmAttempts, time.Since(began).Round(time.Millisecond), base, bound)
	}
	// The receiver, the client's and the emulator's goroutines come and go; a goroutine for
	// each event waiting would be n more.
	if m := most.Load(); m >= n/2 {
		t.Fatalf("up to %d goroutines more while %d events waited for their next try", m, n)
	}
}
