package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
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

// A burst of payment events while the service cannot be reached: every event is still read back
// MaxConfirmAttempts times and its last try always asks the service, but the tries in between
// made while the last exchange failed a moment ago neither dial it again nor are reported (issue
// 27: a flood dialled a service that was down five times an event, and each try was a report
// for the dashboard to handle).
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
	for i := range n {
		raw, _ := json.Marshal(map[string]any{"eventId": fmt.Sprintf("evt-outage-%03d", i), "event": api.EventPaymentCompleted,
			"createdAt": time.Now().UTC().Format(time.RFC3339), "transactionId": fmt.Sprintf("9f6c1a2e-0000-4000-8000-%012d", i), "amount": 12.34})
		if err := in.Accept(raw); err != nil {
			t.Fatal(err)
		}
	}
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
	if asked >= n*MaxConfirmAttempts/2 {
		t.Fatalf("%d requests for %d events × %d tries: the service was dialled for most tries", asked, n, MaxConfirmAttempts)
	}
}
