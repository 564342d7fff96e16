package state

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"pixdash/api"
)

// ApplyEvents applies a batch in order (a later copy of an id is a duplicate), journals the
// received payloads as they are (one line each, a multi-line payload compacted) and the batch
// survives a reopen.
func TestStoreApplyEventsBatch(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	raw := []byte("{\n  \"eventId\": \"e-pretty\",\n  \"event\": \"payment_completed\",\n  \"transactionId\": \"tx-9\",\n  \"amount\": 1.5\n}")
	pretty, err := api.DecodeEvent(raw)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := api.DecodeEvent([]byte(`{"eventId":"e-flat","event":"refund_completed","note":"a <b> & c"}`))
	if err != nil {
		t.Fatal(err)
	}
	batch := []*api.Event{ev("e-1", api.EventPaymentCompleted, "", 1), pretty, ev("e-1", api.EventPaymentCompleted, "", 1), flat}
	first, err := s.ApplyEvents(batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, true}; !slices.Equal(first, want) {
		t.Fatalf("first = %v, want %v", first, want)
	}
	data, _ := os.ReadFile(s.Path())
	if n := bytes.Count(data, []byte("\n")); n != 1+len(batch) {
		t.Fatalf("journal has %d lines, want a header and %d records:\n%s", n, len(batch), data)
	}
	if !bytes.Contains(data, flat.Raw) {
		t.Fatalf("payload not journaled as received:\n%s", data)
	}
	if _, err := s.ApplyEvents([]*api.Event{ev("e-2", api.EventPaymentCompleted, "", 2), {Kind: api.EventPaymentCompleted}}); !errors.Is(err, api.ErrEventInvalid) {
		t.Fatalf("batch with an id-less event: %v", err)
	}
	if s.Events().Seen("e-2") != 0 {
		t.Fatal("a refused batch was partly applied")
	}
	s.Close()

	s2 := openT(t, dir, "p")
	if got := s2.Events().Total(); got != 3 {
		t.Fatalf("%d events after reopen, want 3", got)
	}
	if n := s2.Events().Seen("e-1"); n != 2 {
		t.Fatalf("Seen(e-1) = %d, want 2", n)
	}
	if c, ok := s2.Charge("tx-9"); ok {
		t.Fatalf("an event alone added a charge: %+v", c)
	}
	if e, ok := s2.Events().Get("e-flat"); !ok || !bytes.Equal(e.Event.Raw, flat.Raw) {
		t.Fatalf("raw payload changed: %+v", e.Event)
	}
}

// The line encodeRecord builds by hand is the one encodeLine writes (for data without
// characters encoding/json escapes), so both read back the same.
func TestEncodeRecordMatchesEncodeLine(t *testing.T) {
	d := []byte(`{"e":{"eventId":"x","amount":1.50},"n":2}`)
	for _, when := range []int{0, 1, 86399} {
		r, err := encodeRecord(recEvent, at(when), d)
		if err != nil {
			t.Fatal(err)
		}
		rec := record{V: recordVersion, T: recEvent, At: at(when).UTC(), D: d}
		want, err := encodeLine(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.line, want) {
			t.Fatalf("encodeRecord:\n%s\nencodeLine:\n%s", r.line, want)
		}
		back, err := decodeLine(bytes.TrimSuffix(r.line, []byte("\n")))
		if err != nil || !bytes.Equal(back.D, d) || !back.At.Equal(at(when)) || !bytes.Equal(r.rec.D, d) {
			t.Fatalf("decodeLine = %+v, %v", back, err)
		}
	}
}

// An envelope that names its charge only by data.externalReference is matched to the newest
// charge of that wallet with that reference; the service confirms it, and that survives a reopen.
func TestApplyEnvelopeByExternalReference(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	created := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	for _, c := range []Charge{
		{ID: "tx-old", Wallet: "loja-a", ExternalReference: "mesa-4", Amount: 1000, Status: api.StatusPending, CreatedAt: created.Add(-time.Hour)},
		{ID: "tx-new", Wallet: "loja-a", ExternalReference: "mesa-4", Amount: 3000, Status: api.StatusPending, CreatedAt: created},
		{ID: "tx-other", Wallet: "loja-b", ExternalReference: "mesa-4", Amount: 3000, Status: api.StatusPending, CreatedAt: created.Add(time.Minute)},
	} {
		if _, err := s.UpsertCharge(c); err != nil {
			t.Fatal(err)
		}
	}
	e, err := api.DecodeEvent([]byte(`{"event":"payment_completed","eventId":"e-ref","timestamp":"2026-11-23T14:05:00Z","subAccount":"loja-a",` +
		`"data":{"externalReference":"mesa-4","status":"completed","amount":30,"paidAt":"2026-11-23T14:04:59Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvent(e); err != nil {
		t.Fatal(err)
	}
	if e.TransactionID != "tx-new" {
		t.Fatalf("the event was matched to %q, want tx-new", e.TransactionID)
	}
	if c, _ := s.Charge("tx-new"); c.State() != StatePending {
		t.Fatalf("the event alone paid tx-new")
	}
	r := &fakeReader{txs: map[string]*api.Transaction{"loja-a/tx-new": {ID: "tx-new", Status: api.StatusCompleted, Amount: 3000, UpdatedAt: &created}}}
	if c, err := s.ConfirmEvent(context.Background(), r, e); err != nil || c.Verdict != VerdictConfirmed {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	check := func(s *Store) {
		t.Helper()
		if c, _ := s.Charge("tx-new"); c.State() != StatePaid {
			t.Errorf("tx-new is %s, want paid", c.State())
		}
		for _, id := range []string{"tx-old", "tx-other"} {
			if c, _ := s.Charge(id); c.State() == StatePaid {
				t.Errorf("%s was paid by another charge's event", id)
			}
		}
	}
	check(s)
	s.Close()
	check(openT(t, dir, "p"))
}
