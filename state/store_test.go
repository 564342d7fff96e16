package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
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
	<-s.Ready()
	if err := s.LoadErr(); err != nil {
		t.Fatal(err)
	}
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

// A database of an older schema is brought up to date, keeping its rows; one of a newer
// pixdash is refused with a message that says so.
func TestStoreMigrations(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName("p"))
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		t.Fatal(err)
	}
	first, err := migrations.ReadFile(migrationFiles()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(first) + "; PRAGMA user_version = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (1, 'old', 'principal', 'paid', 500, 0, 0, 'old', '{"id":"old","amount":500,"status":"completed"}')`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	s, err := Open(ctx, dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	if c, ok, err := s.Charge(ctx, "old"); !ok || err != nil || c.Status != api.StatusCompleted {
		t.Errorf("charge after migration = %+v %t %v", c, ok, err)
	}
	var v, idx int
	if err := s.wdb.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() || v < 2 {
		t.Errorf("user_version = %d (%v), want %d", v, err, SchemaVersion())
	}
	if err := s.wdb.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'events_tx'`).Scan(&idx); err != nil || idx != 0 {
		t.Errorf("events_tx still there (%d, %v)", idx, err)
	}
	if _, err := s.wdb.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if _, err := Open(ctx, dir, "p"); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("newer schema: %v", err)
	}
}

// Events that only arrive move the events' version, not the settled one; a verdict moves both
// (the charges list reads its money figures again only for the latter).
func TestArrivalsLeaveTheSettledVersion(t *testing.T) {
	ctx := context.Background()
	s := OpenMemory()
	t.Cleanup(func() { _ = s.Close() })
	_, e0 := s.Versions()
	s0 := s.SettledVersion()
	if _, err := s.ApplyEvent(ctx, testEvent(t, "ev-1", api.EventRefundCompleted, "tx-1")); err != nil {
		t.Fatal(err)
	}
	_, e1 := s.Versions()
	if e1 == e0 || s.SettledVersion() != s0 {
		t.Fatalf("an arrival: events version %d → %d, settled %d → %d; want the events' to move alone", e0, e1, s0, s.SettledVersion())
	}
	if err := s.SetEventVerdict(ctx, "ev-1", VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	if _, e2 := s.Versions(); e2 == e1 || s.SettledVersion() == s0 {
		t.Fatalf("a verdict: events version %d → %d, settled %d → %d; want both to move", e1, e2, s0, s.SettledVersion())
	}
}
