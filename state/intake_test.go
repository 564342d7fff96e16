package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// ---- helpers shared by the tests of this package ----

func openT(t testing.TB, dir, profile string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(ctx, dir, profile, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	<-s.Ready() // the pending charges are loaded in the background
	return s
}

// openMigratedT opens an older profile's database with openT and checks that every migration
// ran on it (its user_version is this build's schema version).
func openMigratedT(t testing.TB, dir, profile string) *Store {
	t.Helper()
	s := openT(t, dir, profile, WithLocation(time.UTC))
	var v int
	if err := s.rdb.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("user_version %d (%v), want %d", v, err, SchemaVersion())
	}
	return s
}

// rawEvent gives e a payload, as a received event has: its JSON, decoded again.
func rawEvent(t testing.TB, e *api.Event) *api.Event {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	d, err := api.DecodeEvent(b)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return d
}

// testSecret signs the webhooks of these tests.
const testSecret api.Secret = "whsec_pixdash-state-TEST-7f3a"

// eventBody is a payment_completed delivery (of R$ 12,34) for the charge txID, in the
// service's envelope.
func eventBody(id, txID string) []byte {
	return fmt.Appendf(nil, `{"event":"payment_completed","eventId":%q,"timestamp":"2026-11-23T12:00:00Z","data":{"transactionId":%q,"amount":12.34}}`, id, txID)
}

// deliver posts body signed with secret to url and returns the status and the reply.
func deliver(c *http.Client, url string, body []byte, secret api.Secret) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set(api.SignatureHeader, api.Sign(body, secret))
	// Dated now, as the service dates each attempt (the body's own timestamp is the event's).
	req.Header.Set(api.TimestampHeader, strconv.FormatInt(time.Now().UnixMilli(), 10))
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(reply), err
}

// serveIntake serves a webhook receiver that keeps its deliveries in in; it returns its URL.
func serveIntake(t testing.TB, in *Intake) string {
	t.Helper()
	srv := httptest.NewServer(api.NewReceiver(testSecret, api.WithSink(in)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rowCounts runs a query of (text, integer) rows, such as eventIds and their copies, straight
// against the database: a check of thousands of records in one statement.
func rowCounts(t testing.TB, s *Store, query string) map[string]int {
	t.Helper()
	rows, err := s.rdb.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const (
	qEventCopies = `SELECT event_id, copies FROM events`
	qChargeIDs   = `SELECT id, 1 FROM charges`
)

// ---- the intake ----

// Accept keeps the payload exactly as received, whatever its shape, and counts a copy of a
// known eventId without storing it again.
func TestIntakeAccept(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cases := []struct {
		name, raw          string
		id, kind, wallet   string
		txID               string
		copies             int
		damagedFieldsNoted bool
	}{
		{"envelope", `{"event":"payment_completed","eventId":"e-env","timestamp":"2026-11-23T12:00:00Z","subAccount":"loja-a","data":{"transactionId":"tx-1","amount":12.34}}`,
			"e-env", "payment_completed", "loja-a", "tx-1", 1, false},
		{"pretty flat", "{\n  \"eventId\": \"e-pretty\",\n  \"event\": \"payment_expired\",\n  \"transactionId\": \"tx-9\"\n}",
			"e-pretty", "payment_expired", "principal", "tx-9", 1, false},
		{"unknown kind", `{"eventId":"e-odd","event":"something_new","note":"a <b> & c"}`, "e-odd", "something_new", "principal", "", 1, false},
		{"unreadable field", `{"eventId":"e-amt","event":"payment_failed","transactionId":"tx-2","amount":"lots"}`, "e-amt", "payment_failed", "principal", "tx-2", 1, true},
		{"a copy", `{"event":"payment_completed","eventId":"e-env","timestamp":"2026-11-23T12:00:09Z","subAccount":"loja-a","data":{"transactionId":"tx-1","amount":12.34}}`,
			"e-env", "payment_completed", "loja-a", "tx-1", 2, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := in.Accept([]byte(c.raw)); err != nil {
				t.Fatalf("Accept: %v", err)
			}
			if in.Accepted() != i+1 {
				t.Errorf("Accepted = %d, want %d", in.Accepted(), i+1)
			}
			e, ok := eventT(t, s, c.id)
			if !ok || e.Count != c.copies || e.Damaged || string(e.Event.Kind) != c.kind || e.Event.Wallet() != c.wallet || e.Event.TransactionID != c.txID {
				t.Fatalf("stored %+v (event %+v), want %d copies of a %s in %s for %q", e, e.Event, c.copies, c.kind, c.wallet, c.txID)
			}
			if c.copies == 1 && string(e.Event.Raw) != c.raw {
				t.Errorf("payload changed:\n%s\nwant\n%s", e.Event.Raw, c.raw)
			}
			if (e.Event.DecodeErr != "") != c.damagedFieldsNoted {
				t.Errorf("DecodeErr = %q", e.Event.DecodeErr)
			}
		})
	}
	page, err := s.EventWindow(ctx, EventQuery{}, 0, 10)
	if err != nil || page.Total != 4 {
		t.Fatalf("%d events, want 4 (%v)", page.Total, err)
	}
	if cs, _ := s.ChargeWindow(ctx, ChargeQuery{}, 0, 10); cs.Total != 0 {
		t.Fatalf("events alone added %d charges", cs.Total)
	}
}

// What is not a usable event is refused before anything is written; a closed intake refuses
// everything and frees the receiver lock.
func TestIntakeRefusals(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	huge := `{"eventId":"e-huge","event":"payment_completed","pad":"` + strings.Repeat("x", MaxEventBytes) + `"}`
	for _, raw := range []string{"", "not json", "[]", `{"event":"payment_completed"}`, `{"eventId":"","event":"payment_completed"}`,
		`{"eventId":"e-1","event":"payment_completed"`, `{"eventId":7,"event":"payment_completed"}`, huge} {
		if err := in.Accept([]byte(raw)); !errors.Is(err, api.ErrEventInvalid) {
			t.Errorf("Accept(%.40q) = %v, want ErrEventInvalid", raw, err)
		}
	}
	if got := rowCounts(t, s, qEventCopies); len(got) != 0 || in.Accepted() != 0 {
		t.Fatalf("refused payloads were stored: %v", got)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := in.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := in.Accept(eventBody("late", "tx-1")); !errors.Is(err, ErrIntakeClosed) {
		t.Fatalf("Accept after Close = %v, want ErrIntakeClosed", err)
	}
	again, err := s.OpenIntake()
	if err != nil {
		t.Fatalf("OpenIntake after Close: %v", err)
	}
	again.Close()
}

// The receiver reuses its buffer once Accept returned: the store must have its own copy.
func TestIntakeKeepsItsOwnCopy(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	buf := eventBody("e-buf", "tx-1")
	want := string(buf)
	if err := in.Accept(buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, bytes.Repeat([]byte("#"), len(buf)))
	if e, ok := eventT(t, s, "e-buf"); !ok || string(e.Event.Raw) != want {
		t.Fatalf("stored payload %q, want %q", e.Event.Raw, want)
	}
}

// Concurrent deliveries are each kept once, and share commits.
func TestIntakeConcurrentAccepts(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	const workers, each = 8, 20
	v := s.Version()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := in.Accept(eventBody(fmt.Sprintf("w%d-%d", w, i), "tx-1")); err != nil {
					t.Errorf("Accept: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := rowCounts(t, s, qEventCopies)
	if len(got) != workers*each || in.Accepted() != workers*each {
		t.Fatalf("%d events stored, %d accepted, want %d", len(got), in.Accepted(), workers*each)
	}
	for id, n := range got {
		if n != 1 {
			t.Fatalf("%s stored with %d copies", id, n)
		}
	}
	if commits := s.Version() - v; commits >= workers*each {
		t.Errorf("%d commits for %d deliveries: none shared", commits, workers*each)
	}
}

// Behind the receiver: 200 only for what is stored, a forged delivery stores nothing, a
// redelivery is answered without a second copy, and after a restart (the receiver forgot the
// id) a copy is counted, never stored twice.
func TestIntakeBehindReceiver(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	url := serveIntake(t, in)
	c := http.DefaultClient
	steps := []struct {
		name   string
		body   []byte
		secret api.Secret
		code   int
	}{
		{"first delivery", eventBody("e-1", "tx-1"), testSecret, http.StatusOK},
		{"redelivery", eventBody("e-1", "tx-1"), testSecret, http.StatusOK},
		{"forged", eventBody("e-forged", "tx-1"), "whsec_someone-else", http.StatusUnauthorized},
		{"not an event", []byte(`{"hello":"world"}`), testSecret, http.StatusBadRequest},
		{"too large", []byte(`{"eventId":"e-big","event":"payment_completed","pad":"` + strings.Repeat("x", 2<<20) + `"}`), testSecret, http.StatusRequestEntityTooLarge},
		{"another event", eventBody("e-2", "tx-1"), testSecret, http.StatusOK},
	}
	for _, st := range steps {
		code, reply, err := deliver(c, url, st.body, st.secret)
		if err != nil || code != st.code {
			t.Fatalf("%s: %d %q %v, want %d", st.name, code, reply, err, st.code)
		}
	}
	if got := rowCounts(t, s, qEventCopies); !equalJSON(t, got, map[string]int{"e-1": 1, "e-2": 1}) {
		t.Fatalf("stored %v", got)
	}
	// A restart: new store, intake and receiver; the sender delivers e-1 once more.
	in.Close()
	s.Close()
	s = openT(t, dir, "p")
	in, err = s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if code, reply, err := deliver(c, serveIntake(t, in), eventBody("e-1", "tx-1"), testSecret); err != nil || code != http.StatusOK {
		t.Fatalf("redelivery after a restart: %d %q %v", code, reply, err)
	}
	if got := rowCounts(t, s, qEventCopies); !equalJSON(t, got, map[string]int{"e-1": 2, "e-2": 1}) {
		t.Fatalf("after the restart: %v", got)
	}
}

// ApplyEvents takes a batch in one commit (a later copy of an id in the batch is a copy),
// refuses a batch with an unusable event as a whole, and keeps the payloads as received.
func TestApplyEventsBatch(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	pretty, err := api.DecodeEvent([]byte("{\n  \"eventId\": \"e-pretty\",\n  \"event\": \"payment_completed\",\n  \"transactionId\": \"tx-9\",\n  \"amount\": 1.5\n}"))
	if err != nil {
		t.Fatal(err)
	}
	e1 := testEvent(t, "e-1", api.EventPaymentCompleted, "tx-1")
	refund := testEvent(t, "e-r", api.EventRefundCompleted, "tx-1")
	v := s.Version()
	first, err := s.ApplyEvents(ctx, []*api.Event{e1, pretty, e1, refund})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, true}; !slices.Equal(first, want) {
		t.Fatalf("first = %v, want %v", first, want)
	}
	if s.Version() != v+1 {
		t.Errorf("a batch took %d commits", s.Version()-v)
	}
	for _, bad := range [][]*api.Event{
		{testEvent(t, "e-2", api.EventPaymentCompleted, "tx-2"), {Kind: api.EventPaymentCompleted}},
		{testEvent(t, "e-2", api.EventPaymentCompleted, "tx-2"), nil},
		{testEvent(t, "e-2", api.EventPaymentCompleted, "tx-2"), {EventID: "e-3", Kind: api.EventPaymentCompleted}}, // no payload
	} {
		if _, err := s.ApplyEvents(ctx, bad); !errors.Is(err, api.ErrEventInvalid) {
			t.Fatalf("batch with an unusable event: %v", err)
		}
	}
	if _, ok := eventT(t, s, "e-2"); ok {
		t.Fatal("a refused batch was partly applied")
	}
	s.Close()

	s2 := openT(t, dir, "p")
	if got := rowCounts(t, s2, qEventCopies); !equalJSON(t, got, map[string]int{"e-1": 2, "e-pretty": 1, "e-r": 1}) {
		t.Fatalf("after reopen: %v", got)
	}
	if _, ok := chargeT(t, s2, "tx-9"); ok {
		t.Fatal("an event alone added a charge")
	}
	if e, ok := eventT(t, s2, "e-pretty"); !ok || !bytes.Equal(e.Event.Raw, pretty.Raw) {
		t.Fatalf("payload changed: %q", e.Event.Raw)
	}
}

// AcceptBatch records a batch of decoded deliveries in one commit and tells each one's fate: a
// copy is counted (nil), an unusable one is refused alone (api.ErrEventInvalid), the others
// are kept; after Close every one is refused.
func TestIntakeAcceptBatch(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	dec := func(raw []byte) *api.Event {
		e, err := api.DecodeEvent(raw)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	b1, b2 := eventBody("b-1", "tx-1"), eventBody("b-2", "tx-2")
	huge := append(eventBody("b-3", "tx-3"), bytes.Repeat([]byte(" "), MaxEventBytes)...)
	v := s.Version()
	errs := in.AcceptBatch([][]byte{b1, b2, b1, huge, b2}, []*api.Event{dec(b1), dec(b2), dec(b1), dec(huge), nil})
	if len(errs) != 5 || errs[0] != nil || errs[1] != nil || errs[2] != nil ||
		!errors.Is(errs[3], api.ErrEventInvalid) || !errors.Is(errs[4], api.ErrEventInvalid) {
		t.Fatalf("errs = %v", errs)
	}
	if s.Version() != v+1 {
		t.Errorf("a batch took %d commits", s.Version()-v)
	}
	if got := rowCounts(t, s, qEventCopies); !equalJSON(t, got, map[string]int{"b-1": 2, "b-2": 1}) {
		t.Errorf("stored: %v", got)
	}
	if in.Accepted() != 3 {
		t.Errorf("accepted %d, want 3", in.Accepted())
	}
	if errs := in.AcceptBatch(nil, nil); len(errs) != 0 {
		t.Errorf("an empty batch: %v", errs)
	}
	in.Close()
	if errs := in.AcceptBatch([][]byte{b2}, []*api.Event{dec(b2)}); !errors.Is(errs[0], ErrIntakeClosed) {
		t.Errorf("after Close: %v", errs)
	}
}
