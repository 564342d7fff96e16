package state

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"pixdash/api"
)

var ctx = context.Background()

func testEvent(t testing.TB, id string, kind api.EventKind, txID string) *api.Event {
	t.Helper()
	raw := fmt.Sprintf(`{"event":%q,"eventId":%q,"timestamp":"2026-11-23T12:00:00Z","data":{"transactionId":%q,"amount":1234}}`, kind, id, txID)
	e, err := api.DecodeEvent([]byte(raw))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return e
}

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := Open(ctx, dir, "p", WithClock(func() time.Time { return now }), WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		c := Charge{ID: fmt.Sprintf("tx-%d", i), Amount: api.Money(100 * (i + 1)), Status: api.StatusPending, Description: fmt.Sprintf("venda %d", i), CreatedAt: now.Add(time.Duration(i) * time.Minute)}
		if i == 3 {
			c.Wallet = "loja"
			c.Status = api.StatusCompleted
		}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.ChargeWindow(ctx, ChargeQuery{}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 5 || len(page.Charges) != 5 || page.Charges[0].ID != "tx-4" {
		t.Fatalf("page = %+v", page)
	}
	page, _ = s.ChargeWindow(ctx, ChargeQuery{Wallet: "loja"}, 0, 10)
	if page.Total != 1 || page.Charges[0].ID != "tx-3" {
		t.Fatalf("wallet page = %+v", page)
	}
	page, _ = s.ChargeWindow(ctx, ChargeQuery{Text: "VENDA 2"}, 0, 10)
	if page.Total != 1 || page.Charges[0].ID != "tx-2" {
		t.Fatalf("text page = %+v", page)
	}
	page, _ = s.ChargeWindow(ctx, ChargeQuery{Text: "23/11/2026 12:01"}, 0, 10)
	if page.Total != 1 || page.Charges[0].ID != "tx-1" {
		t.Fatalf("date page = %+v", page)
	}
	page, _ = s.ChargeWindow(ctx, ChargeQuery{Status: FilterPaid}, 0, 10)
	if page.Total != 1 {
		t.Fatalf("status page = %+v", page)
	}
	if s.PendingCount() != 4 {
		t.Fatalf("pending = %d", s.PendingCount())
	}
	e := testEvent(t, "ev-1", api.EventPaymentCompleted, "tx-1")
	first, err := s.ApplyEvents(ctx, []*api.Event{e, e})
	if err != nil || !first[0] || first[1] {
		t.Fatalf("apply = %v %v", first, err)
	}
	if err := s.BeginSubmission(ctx, Submission{Key: "11111111-1111-4111-8111-111111111111", Request: api.CreatePixRequest{Amount: 500}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ep, err := s.EventWindow(ctx, EventQuery{}, 0, 10)
	if err != nil || ep.Total != 1 || ep.Entries[0].Count != 2 || ep.Entries[0].Event.TransactionID != "tx-1" {
		t.Fatalf("events = %+v %v", ep, err)
	}
	subs, err := s.PendingSubmissions(ctx)
	if err != nil || len(subs) != 1 {
		t.Fatalf("subs = %v %v", subs, err)
	}
	if s.PendingCount() != 4 {
		t.Fatalf("pending after reopen = %d", s.PendingCount())
	}
	c, ok, err := s.Charge(ctx, "tx-3")
	if err != nil || !ok || c.Wallet != "loja" || c.Amount != 400 {
		t.Fatalf("charge = %+v %v %v", c, ok, err)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// A charge first tracked without its creation time takes its place in the list once it is known.
func TestStoreChargeMovesToItsCreationTime(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir(), "p", WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	older := Charge{ID: "older", Amount: 100, Status: api.StatusCompleted, CreatedAt: now.Add(-2 * time.Hour)}
	late := Charge{ID: "late", Amount: 200, Status: api.StatusCompleted, Source: SourceEvent} // no creation time yet
	for _, c := range []Charge{older, late} {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		p, err := s.ChargeWindow(ctx, ChargeQuery{}, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range p.Charges {
			out = append(out, c.ID)
		}
		return out
	}
	if got := fmt.Sprint(ids()); got != "[late older]" {
		t.Fatalf("before = %s", got)
	}
	if _, err := s.UpsertCharge(ctx, Charge{ID: "late", CreatedAt: now.Add(-3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids()); got != "[older late]" {
		t.Fatalf("after = %s", got)
	}
	// The filter still finds it at its new place.
	p, err := s.ChargeWindow(ctx, ChargeQuery{Text: "late"}, 0, 10)
	if err != nil || p.Total != 1 {
		t.Fatalf("filter = %+v %v", p, err)
	}
}
