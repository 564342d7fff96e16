package state

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// fakeReader answers GET /transactions/{id} from a map; the key is "wallet/id". It is safe for
// concurrent use.
type fakeReader struct {
	txs   map[string]*api.Transaction
	err   error
	mu    sync.Mutex
	calls []string
}

func (f *fakeReader) GetTransaction(_ context.Context, id string, opts ...api.RequestOption) (*api.Transaction, error) {
	ro := api.RequestOptions{}
	for _, o := range opts {
		o(&ro)
	}
	wallet := NormalizeWallet(ro.SubAccount)
	f.mu.Lock()
	f.calls = append(f.calls, wallet+"/"+id)
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	if tx, ok := f.txs[wallet+"/"+id]; ok {
		return tx, nil
	}
	return nil, &api.Error{HTTPStatus: 404, Kind: api.KindNotFound, Message: "Transaction not found"}
}

// confirmT records e (as a received payload) and reads it back through r.
func confirmT(t *testing.T, s *Store, r TransactionReader, e *api.Event) Confirmation {
	t.Helper()
	e = rawEvent(t, e)
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	c, err := s.ConfirmEvent(ctx, r, e)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// chargeT reads a charge, failing the test on a read error.
func chargeT(t *testing.T, s *Store, id string) (Charge, bool) {
	t.Helper()
	c, ok, err := s.Charge(ctx, id)
	if err != nil {
		t.Fatalf("Charge(%s): %v", id, err)
	}
	return c, ok
}

// eventT reads an event, failing the test on a read error.
func eventT(t *testing.T, s *Store, id string) (EventEntry, bool) {
	t.Helper()
	e, ok, err := s.Event(ctx, id)
	if err != nil {
		t.Fatalf("Event(%s): %v", id, err)
	}
	return e, ok
}

// TestConfirmEvent: a signed event alone changes nothing; the service's answer decides (issue 12,
// item 1: a payment_completed of R$ 1,00 from "Liar" for a charge the service holds as pending).
func TestConfirmEvent(t *testing.T) {
	paidAt := time.Date(2026, 11, 23, 14, 31, 5, 0, time.UTC)
	pending := &api.Transaction{ID: "tx-1", Status: api.StatusPending, Amount: 2000}
	paid := &api.Transaction{ID: "tx-2", Status: api.StatusCompleted, Amount: 2000, PaidAt: &paidAt, E2EID: "E2", CounterpartName: "Maria"}
	subPaid := &api.Transaction{ID: "tx-4", Status: api.StatusCompleted, Amount: 3000, PaidAt: &paidAt}
	txs := map[string]*api.Transaction{"principal/tx-1": pending, "principal/tx-2": paid, "loja-a/tx-4": subPaid, "principal/mesa-9": paid}
	cases := []struct {
		name        string
		tracked     *Charge
		ev          *api.Event
		verdict     Verdict
		reason      string
		wantState   ChargeState // of the event's charge after; "" when it must not be tracked
		wantPayer   string
		wantRequest string
	}{
		{"liar on a pending charge", &Charge{ID: "tx-1", Amount: 2000, Status: api.StatusPending, Source: SourceCreated},
			&api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx-1", Amount: 100, CounterpartName: "Liar"},
			VerdictDisputed, "status|payment_completed|pending", StatePending, "", "principal/tx-1"},
		{"true payment", &Charge{ID: "tx-2", Amount: 2000, Status: api.StatusPending, Source: SourceCreated},
			&api.Event{EventID: "e2", Kind: api.EventPaymentCompleted, TransactionID: "tx-2", Amount: 2000, Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 500}}},
			VerdictConfirmed, "", StatePaid, "Maria", "principal/tx-2"},
		{"amount differs", &Charge{ID: "tx-2b", Amount: 2000}, &api.Event{EventID: "e3", Kind: api.EventPaymentCompleted, TransactionID: "tx-2", Amount: 1000},
			VerdictDisputed, "amount|1000|2000", "", "", "principal/tx-2"},
		{"made-up transaction", nil, &api.Event{EventID: "e4", Kind: api.EventPaymentCompleted, TransactionID: "tx-made-up", Amount: 1000},
			VerdictUnknown, "not-found|tx-made-up|principal", "", "", "principal/tx-made-up"},
		{"read in the event's wallet", nil, &api.Event{EventID: "e5", Kind: api.EventPaymentCompleted, SubAccount: "loja-a", TransactionID: "tx-4", Amount: 3000},
			VerdictConfirmed, "", StatePaid, "", "loja-a/tx-4"},
		{"another wallet's event", nil, &api.Event{EventID: "e6", Kind: api.EventPaymentCompleted, SubAccount: "loja-b", TransactionID: "tx-4", Amount: 3000},
			VerdictUnknown, "not-found|tx-4|loja-b", "", "", "loja-b/tx-4"},
		{"by external reference", nil, &api.Event{EventID: "e7", Kind: api.EventPaymentCompleted, ExternalReference: "mesa-9", Amount: 2000},
			VerdictConfirmed, "", StatePaid, "Maria", "principal/mesa-9"},
		{"no transaction named", nil, &api.Event{EventID: "e8", Kind: api.EventPaymentCompleted, Amount: 2000},
			VerdictUnknown, "no-transaction", "", "", ""},
		{"expiry the service does not confirm", &Charge{ID: "tx-1", Amount: 2000, Status: api.StatusPending},
			&api.Event{EventID: "e9", Kind: api.EventPaymentExpired, TransactionID: "tx-1"},
			VerdictDisputed, "status|payment_expired|pending", StatePending, "", "principal/tx-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory()
			defer s.Close()
			r := &fakeReader{txs: txs}
			if tc.tracked != nil {
				if _, err := s.UpsertCharge(ctx, *tc.tracked); err != nil {
					t.Fatal(err)
				}
			}
			c := confirmT(t, s, r, tc.ev)
			if c.Verdict != tc.verdict || !strings.Contains(c.Reason, tc.reason) {
				t.Fatalf("verdict %q %q, want %q containing %q", c.Verdict, c.Reason, tc.verdict, tc.reason)
			}
			if got := strings.Join(r.calls, ","); got != tc.wantRequest {
				t.Errorf("read %q, want %q", got, tc.wantRequest)
			}
			e, _ := eventT(t, s, tc.ev.EventID)
			if e.Verdict != tc.verdict || e.VerdictReason != c.Reason {
				t.Errorf("stored verdict %q %q", e.Verdict, e.VerdictReason)
			}
			id := tc.ev.TransactionID
			if id == "" && c.After.ID != "" {
				id = c.After.ID
			}
			ch, ok := chargeT(t, s, id)
			switch {
			case tc.wantState == "" && ok && tc.tracked == nil:
				t.Errorf("an event the service did not confirm added %+v", ch)
			case tc.wantState != "" && (!ok || ch.State() != tc.wantState):
				t.Errorf("charge %s is %s (tracked %v), want %s", id, ch.State(), ok, tc.wantState)
			}
			if tc.wantPayer != "" && ch.PayerName != tc.wantPayer {
				t.Errorf("payer %q, want the service's %q", ch.PayerName, tc.wantPayer)
			}
			if ch.PayerName == "Liar" {
				t.Error("the event's payer name was applied")
			}
			if tc.tracked != nil && tc.tracked.ID == id && c.Before.ID != id {
				t.Errorf("Before = %+v, want the tracked charge", c.Before)
			}
		})
	}
}

// The split that was distributed and an expiry are taken from a confirmed event only.
func TestConfirmEventKeepsWhatOnlyTheEventTells(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	paid := &api.Transaction{ID: "tx-2", Status: api.StatusCompleted, Amount: 2000}
	gone := &api.Transaction{ID: "tx-3", Status: api.StatusCancelled, Amount: 2000}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/tx-2": paid, "principal/tx-3": gone}}
	for _, id := range []string{"tx-2", "tx-3"} {
		// tx-2 was created with a split to loja-a (the service's 201 echoed it).
		if _, err := s.UpsertCharge(ctx, Charge{ID: id, Amount: 2000, Status: api.StatusPending, Source: SourceCreated,
			SplitRequested: []api.SplitItem{{SubAccount: "loja-a", Amount: 500}}}); err != nil {
			t.Fatal(err)
		}
	}
	confirmT(t, s, r, &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx-2", Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 500}}})
	confirmT(t, s, r, &api.Event{EventID: "e2", Kind: api.EventPaymentExpired, TransactionID: "tx-3"})
	if c, _ := chargeT(t, s, "tx-2"); !c.HasDistributed || len(c.SplitDistributed) != 1 {
		t.Errorf("split distributed not kept: %+v", c)
	}
	if c, _ := chargeT(t, s, "tx-3"); c.State() != StateExpired {
		t.Errorf("tx-3 is %s, want expired", c.State())
	}
	if n := s.PendingCount(); n != 0 {
		t.Errorf("%d charges still polled after the service ended both", n)
	}
}

// A failure to read back leaves the event unchecked, to be tried again; nothing changes.
func TestConfirmEventNetworkFailure(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	if _, err := s.UpsertCharge(ctx, Charge{ID: "tx-1", Amount: 2000, Status: api.StatusPending}); err != nil {
		t.Fatal(err)
	}
	e := rawEvent(t, &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx-1", Amount: 2000})
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	v := s.Version()
	down := errors.New("dial tcp: connection refused")
	if _, err := s.ConfirmEvent(ctx, &fakeReader{err: down}, e); !errors.Is(err, down) {
		t.Fatalf("err = %v", err)
	}
	if en, _ := eventT(t, s, "e1"); en.Verdict != VerdictUnchecked {
		t.Errorf("verdict %q after a failed read", en.Verdict)
	}
	if un, err := s.UncheckedPayments(ctx, 10); err != nil || len(un) != 1 || un[0].Event.EventID != "e1" {
		t.Errorf("unchecked payments %v %v, want e1 to try again", un, err)
	}
	if c, _ := chargeT(t, s, "tx-1"); c.State() != StatePending {
		t.Errorf("charge is %s", c.State())
	}
	if s.Version() != v {
		t.Error("a failed read back changed the store")
	}
}

// Verdicts survive a reopen; a verdict for an event never received is refused.
func TestConfirmEventVerdictPersists(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	confirmT(t, s, &fakeReader{}, &api.Event{EventID: "e-x", Kind: api.EventPaymentCompleted, TransactionID: "tx-none", Amount: 1000})
	s.Close()
	s2 := openT(t, dir, "p")
	if en, ok := eventT(t, s2, "e-x"); !ok || en.Verdict != VerdictUnknown || en.VerdictReason != Reason(ReasonNotFound, "tx-none", "principal") {
		t.Fatalf("after reopen: %+v", en)
	}
	if _, ok := chargeT(t, s2, "tx-none"); ok {
		t.Fatal("an unknown transaction was tracked")
	}
	if err := s2.SetEventVerdict(ctx, "never-received", VerdictConfirmed, ""); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("verdict for an unknown event: %v", err)
	}
	if un, _ := s2.UncheckedPayments(ctx, 10); len(un) != 0 {
		t.Fatalf("a checked event is still unchecked: %v", un)
	}
}

// An event alone never changes a charge (a webhook is a hint); the service's answer does, and
// a charge that ends leaves the poll schedule.
func TestConfirmEventLeavesChargeToTheService(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	c, err := s.UpsertCharge(ctx, Charge{ID: "ch-1", Amount: 101, Status: api.StatusPending, CreatedAt: at(1), UpdatedAt: at(1), Source: SourceCreated})
	if err != nil {
		t.Fatal(err)
	}
	e := rawEvent(t, &api.Event{EventID: "x", Kind: api.EventPaymentExpired, CreatedAt: at(900), TransactionID: c.ID})
	if first, err := s.ApplyEvent(ctx, e); err != nil || !first {
		t.Fatal(first, err)
	}
	if got, _ := chargeT(t, s, c.ID); got.State() != StatePending || s.PendingCount() != 1 {
		t.Fatalf("the event alone changed the charge: %+v", got)
	}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/" + c.ID: {ID: c.ID, Status: api.StatusCancelled, Amount: c.Amount, UpdatedAt: tp(at(900))}}}
	cf, err := s.ConfirmEvent(ctx, r, e)
	if err != nil || cf.Verdict != VerdictConfirmed || cf.Before.State() != StatePending || cf.After.State() != StateExpired {
		t.Fatalf("confirmation %+v %v", cf, err)
	}
	if got, _ := chargeT(t, s, c.ID); got.State() != StateExpired || s.PendingCount() != 0 {
		t.Fatalf("%+v, %d pending", got, s.PendingCount())
	}
	if p, _ := s.Peek(c.ID); p.State() != StateExpired {
		t.Fatalf("Peek shows %s", p.State())
	}
	if p, err := s.EventWindow(ctx, EventQuery{}, 0, 5); err != nil || len(p.Entries) != 1 || p.Entries[0].Charge == nil || p.Entries[0].Charge.State() != StateExpired {
		t.Fatalf("the events view does not show the charge the event names: %+v %v", p, err)
	}
	// Events of a kind the spec does not name are left unchecked and read nothing.
	other := rawEvent(t, &api.Event{EventID: "w", Kind: "account_updated", TransactionID: c.ID})
	if _, err := s.ApplyEvent(ctx, other); err != nil {
		t.Fatal(err)
	}
	if cf, err := s.ConfirmEvent(ctx, r, other); err != nil || cf.Verdict != VerdictUnchecked || len(r.calls) != 1 {
		t.Fatalf("an unknown kind was read back: %+v %v %v", cf, err, r.calls)
	}
}

// An event naming its charge by externalReference only is matched, in its wallet, to the
// newest tracked charge with that reference; only the service's answer pays it.
func TestConfirmEventByExternalReference(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	created := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	for _, c := range []Charge{
		{ID: "tx-old", Wallet: "loja-a", ExternalReference: "mesa-4", Amount: 1000, Status: api.StatusPending, CreatedAt: created.Add(-time.Hour)},
		{ID: "tx-new", Wallet: "loja-a", ExternalReference: "mesa-4", Amount: 3000, Status: api.StatusPending, CreatedAt: created},
		{ID: "tx-other", Wallet: "loja-b", ExternalReference: "mesa-4", Amount: 3000, Status: api.StatusPending, CreatedAt: created.Add(time.Minute)},
	} {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	e, err := api.DecodeEvent([]byte(`{"event":"payment_completed","eventId":"e-ref","timestamp":"2026-11-23T14:05:00Z","subAccount":"loja-a",` +
		`"data":{"externalReference":"mesa-4","status":"completed","amount":30,"paidAt":"2026-11-23T14:04:59Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	en, _ := eventT(t, s, "e-ref")
	if en.Event.TransactionID != "tx-new" {
		t.Fatalf("the event was matched to %q, want tx-new", en.Event.TransactionID)
	}
	if c, _ := chargeT(t, s, "tx-new"); c.State() != StatePending {
		t.Fatalf("the event alone paid tx-new")
	}
	// The dashboard confirms the stored entry, which names the matched charge.
	r := &fakeReader{txs: map[string]*api.Transaction{"loja-a/tx-new": {ID: "tx-new", Status: api.StatusCompleted, Amount: 3000, UpdatedAt: &created}}}
	if c, err := s.ConfirmEvent(ctx, r, en.Event); err != nil || c.Verdict != VerdictConfirmed {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	check := func(s *Store) {
		t.Helper()
		if c, _ := chargeT(t, s, "tx-new"); c.State() != StatePaid {
			t.Errorf("tx-new is %s, want paid", c.State())
		}
		for _, id := range []string{"tx-old", "tx-other"} {
			if c, _ := chargeT(t, s, id); c.State() == StatePaid {
				t.Errorf("%s was paid by another charge's event", id)
			}
		}
	}
	check(s)
	s.Close()
	check(openT(t, dir, "p"))
}

// A refund_completed is read back through its refund line (data.id) before the day's figures
// count it: confirmed only when the service holds a completed refund of the event's amount.
func TestConfirmRefund(t *testing.T) {
	line := func(id string, typ api.TxType, status api.TxStatus, amount api.Money) *api.Transaction {
		return &api.Transaction{ID: id, Type: typ, Status: status, Amount: amount}
	}
	for _, tc := range []struct {
		name   string
		tx     *api.Transaction // held by the service as principal/ref-1
		id     string           // the event's data.id
		want   Verdict
		reason string
	}{
		{"completed refund", line("ref-1", api.TypeRefund, api.StatusCompleted, -2500), "ref-1", VerdictConfirmed, ""},
		{"still pending", line("ref-1", api.TypeRefund, api.StatusPending, -2500), "ref-1", VerdictDisputed, ReasonStatus},
		{"another amount", line("ref-1", api.TypeRefund, api.StatusCompleted, -2400), "ref-1", VerdictDisputed, ReasonAmount},
		{"not a refund", line("ref-1", api.TypePayment, api.StatusCompleted, 2500), "ref-1", VerdictDisputed, ReasonType},
		{"another line", line("ref-2", api.TypeRefund, api.StatusCompleted, -2500), "ref-1", VerdictDisputed, ReasonOtherTransaction},
		{"unknown to the service", nil, "ref-1", VerdictUnknown, ReasonNotFound},
		{"names no refund line", nil, "", VerdictUnknown, ReasonNoTransaction},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory()
			defer s.Close()
			// ch-1, the charge the event counts the refund for, is a completed payment.
			r := &fakeReader{txs: map[string]*api.Transaction{"principal/ch-1": {ID: "ch-1", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 2500}}}
			if tc.tx != nil {
				r.txs["principal/ref-1"] = tc.tx
			}
			e := &api.Event{EventID: "evt-" + tc.name, Kind: api.EventRefundCompleted, CreatedAt: time.Now(), ID: tc.id,
				TransactionID: "ch-1", Amount: 2500}
			c := confirmT(t, s, r, e)
			if code, _ := ParseReason(c.Reason); c.Verdict != tc.want || code != tc.reason {
				t.Fatalf("verdict %s (%q), want %s (%s)", c.Verdict, c.Reason, tc.want, tc.reason)
			}
			if c.After.ID != "" {
				t.Errorf("a refund changed a charge: %+v", c.After)
			}
			// Only a confirmed refund counts in the day's figures.
			r2, err := s.DayReport(ctx, DayQuery{Period: Days(time.Now(), 1, time.Local), NoBuckets: true})
			if err != nil {
				t.Fatal(err)
			}
			if counted := r2.Total.Refunded == 1; counted != (tc.want == VerdictConfirmed) {
				t.Errorf("refunded today = %d with verdict %s", r2.Total.Refunded, c.Verdict)
			}
		})
	}
}
