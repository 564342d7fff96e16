package api

import (
	"net/http"
	"reflect"
	"sync"
	"testing"
)

// decodedSink is a DecodedEventSink that records what it is handed.
type decodedSink struct {
	mu      sync.Mutex
	events  []*Event
	raws    []string
	accepts int // calls of Accept, which the receiver must not make
}

func (s *decodedSink) Accept(raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepts++
	return nil
}

func (s *decodedSink) AcceptEvent(raw []byte, ev *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
	s.raws = append(s.raws, string(raw))
	return nil
}

// A sink that takes decoded events gets the receiver's decoding of each first delivery, the
// same event DecodeEvent reads from the body, and is never asked to decode it again; what is
// refused or repeated reaches it as before (not at all).
func TestReceiverHandsDecodedEventToSink(t *testing.T) {
	sink := &decodedSink{}
	r := NewReceiver(testWebhookSecret, WithSink(sink))
	// An escaped id makes the quick scan unsure: the decoder's event is handed on all the same.
	bodies := [][]byte{webhookBody("evt_dec_1"), []byte(`{"eventId":"evt_dec_\u0032","event":"payment_completed","transactionId":"tx-2","amount":1.00}`)}
	for _, b := range bodies {
		if code, msg := deliverWebhook(r, b, Sign(b, testWebhookSecret)); code != http.StatusOK {
			t.Fatalf("delivery: %d %s", code, msg)
		}
	}
	// A copy, and a signed body that is not an event, reach no sink method.
	if code, _ := deliverWebhook(r, bodies[0], Sign(bodies[0], testWebhookSecret)); code != http.StatusOK {
		t.Fatalf("copy: %d", code)
	}
	bad := []byte(`{"eventId":42,"event":"payment_completed"}`)
	if code, _ := deliverWebhook(r, bad, Sign(bad, testWebhookSecret)); code != http.StatusBadRequest {
		t.Fatalf("malformed: %d, want 400", code)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.accepts != 0 {
		t.Errorf("Accept called %d times: the sink takes decoded events", sink.accepts)
	}
	if len(sink.events) != len(bodies) {
		t.Fatalf("AcceptEvent got %d events, want %d", len(sink.events), len(bodies))
	}
	for i, b := range bodies {
		want, err := DecodeEvent(b)
		if err != nil {
			t.Fatal(err)
		}
		if sink.raws[i] != string(b) || !reflect.DeepEqual(sink.events[i], want) {
			t.Errorf("delivery %d: got %+v with %q, want %+v", i, sink.events[i], sink.raws[i], want)
		}
	}
	if st := r.Stats(); st.Accepted != 2 || st.Duplicates != 1 || st.Malformed != 1 {
		t.Errorf("stats %+v", st)
	}
}
