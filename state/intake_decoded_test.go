package state

import (
	"bytes"
	"errors"
	"testing"

	"pixdash/api"
)

// The receiver hands the intake the event it decoded (api.DecodedEventSink): AcceptEvent
// records it as Accept records the body, once per eventId, with its own copy of the payload,
// and refuses what Accept refuses.
func TestIntakeAcceptEventTakesTheReceiversDecoding(t *testing.T) {
	var sink api.EventSink = (*Intake)(nil)
	if _, ok := sink.(api.DecodedEventSink); !ok {
		t.Fatal("Intake does not take decoded events: the receiver would decode every body twice")
	}
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	buf := []byte(`{"event":"payment_completed","eventId":"e-dec","subAccount":"loja-a","data":{"transactionId":"tx-1","amount":12.34}}`)
	want := string(buf)
	ev, err := api.DecodeEvent(buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.AcceptEvent(buf, ev); err != nil {
		t.Fatalf("AcceptEvent: %v", err)
	}
	copy(buf, bytes.Repeat([]byte("#"), len(buf))) // the receiver reuses its buffer
	if err := in.AcceptEvent([]byte(want), ev); err != nil {
		t.Fatalf("copy: %v", err)
	}
	e, ok := eventT(t, s, "e-dec")
	if !ok || e.Count != 2 || string(e.Event.Raw) != want || e.Event.Kind != api.EventPaymentCompleted || e.Event.Wallet() != "loja-a" || e.Event.TransactionID != "tx-1" {
		t.Fatalf("stored %+v (event %+v)", e, e.Event)
	}
	if in.Accepted() != 2 {
		t.Errorf("Accepted = %d, want 2", in.Accepted())
	}
	if err := in.AcceptEvent([]byte(`{}`), nil); !errors.Is(err, api.ErrEventInvalid) {
		t.Errorf("no event: %v, want ErrEventInvalid", err)
	}
	_ = in.Close()
	if err := in.AcceptEvent([]byte(want), ev); !errors.Is(err, ErrIntakeClosed) {
		t.Errorf("closed: %v, want ErrIntakeClosed", err)
	}
}
