package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSink records what it accepts; err (when set) is returned instead, and gate (when set)
// holds each Accept until a value is sent on it.
type testSink struct {
	mu   sync.Mutex
	got  []string
	err  error
	gate chan struct{}
}

func (s *testSink) Accept(raw []byte) error {
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.got = append(s.got, string(raw))
	return nil
}

func (s *testSink) accepted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// With a sink, the raw body goes to it and the receiver's answer follows the sink's.
func TestReceiverSinkAnswers(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		code     int
		stats    ReceiverStats
		leakFree bool // the sink's error text must not reach the sender
	}{
		{"kept", nil, http.StatusOK, ReceiverStats{Accepted: 1}, false},
		{"full", fmt.Errorf("inbox: %w", ErrSinkFull), http.StatusServiceUnavailable, ReceiverStats{Overflow: 1}, false},
		{"not an event", fmt.Errorf("%w: odd", ErrEventInvalid), http.StatusBadRequest, ReceiverStats{Malformed: 1}, false},
		{"disk error", errors.New("write /home/ana/.local/state/pixdash/loja.inbox: no space left on device"), http.StatusInternalServerError, ReceiverStats{Failed: 1}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &testSink{err: c.err}
			r := NewReceiver(testWebhookSecret, WithSink(sink))
			if r.Events() != nil {
				t.Fatal("Events is not nil with a sink")
			}
			body := webhookBody("evt-s")
			code, reply := deliverWebhook(r, body, Sign(body, testWebhookSecret))
			if code != c.code {
				t.Fatalf("status %d, want %d (%s)", code, c.code, reply)
			}
			if got := counters(r.Stats()); got != c.stats {
				t.Errorf("Stats = %+v, want %+v", got, c.stats)
			}
			if c.leakFree && (strings.Contains(reply, "ana") || strings.Contains(reply, "inbox")) {
				t.Errorf("reply leaks the sink's error: %q", reply)
			}
			if c.err == nil {
				if got := sink.accepted(); len(got) != 1 || got[0] != string(body) {
					t.Fatalf("sink got %q, want the raw body", got)
				}
				return
			}
			// A refused event is not remembered: the sender's retry is taken once the sink recovers.
			sink.err = nil
			if code, _ := deliverWebhook(r, body, Sign(body, testWebhookSecret)); code != http.StatusOK || len(sink.accepted()) != 1 {
				t.Fatalf("retry after recovery: status %d, sink holds %d", code, len(sink.accepted()))
			}
		})
	}
}

// A redelivery that arrives while the first copy is being kept waits for its outcome: a
// duplicate when the first was kept, taken in its place when the first failed.
func TestReceiverRedeliveryDuringAccept(t *testing.T) {
	for _, firstFails := range []bool{false, true} {
		t.Run(fmt.Sprintf("first fails %t", firstFails), func(t *testing.T) {
			sink := &testSink{gate: make(chan struct{})}
			r := NewReceiver(testWebhookSecret, WithSink(sink))
			body := webhookBody("evt-race")
			sig := Sign(body, testWebhookSecret)
			codes := make(chan int, 2)
			go func() { c, _ := deliverWebhook(r, body, sig); codes <- c }()
			// Wait until the first delivery is inside Accept (the id is being kept).
			for deadline := time.Now().Add(5 * time.Second); ; {
				if r.seen.keeping("evt-race") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("first delivery never reached the sink")
				}
				time.Sleep(time.Millisecond)
			}
			go func() { c, _ := deliverWebhook(r, body, sig); codes <- c }()
			for deadline := time.Now().Add(5 * time.Second); ; { // the redelivery is waiting
				if r.seen.waiters() == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("redelivery did not wait for the first copy")
				}
				time.Sleep(time.Millisecond)
			}
			if firstFails {
				sink.mu.Lock()
				sink.err = errors.New("disk error")
				sink.mu.Unlock()
			}
			sink.gate <- struct{}{} // the first Accept returns
			first := <-codes
			if firstFails {
				sink.mu.Lock()
				sink.err = nil
				sink.mu.Unlock()
				sink.gate <- struct{}{} // the redelivery is taken in its place
			}
			second := <-codes
			wantFirst, want := http.StatusOK, ReceiverStats{Accepted: 1, Duplicates: 1}
			if firstFails {
				wantFirst, want = http.StatusInternalServerError, ReceiverStats{Accepted: 1, Failed: 1}
			}
			if first != wantFirst || second != http.StatusOK {
				t.Fatalf("statuses %d, %d; want %d, 200", first, second, wantFirst)
			}
			if got := r.Stats(); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
			if n := len(sink.accepted()); n != 1 {
				t.Errorf("sink kept %d copies, want 1", n)
			}
		})
	}
}
