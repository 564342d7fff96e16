package state

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

// fakeReader answers GET /transactions/{id} from a map; the key is "wallet/id".
type fakeReader struct {
	txs   map[string]*api.Transaction
	err   error
	calls []string
}

func (f *fakeReader) GetTransaction(_ context.Context, id string, opts ...api.RequestOption) (*api.Transaction, error) {
	ro := api.RequestOptions{}
	for _, o := range opts {
		o(&ro)
	}
	wallet := NormalizeWallet(ro.SubAccount)
	f.calls = append(f.calls, wallet+"/"+id)
	if f.err != nil {
		return nil, f.err
	}
	if tx, ok := f.txs[wallet+"/"+id]; ok {
		return tx, nil
	}
	return nil, &api.Error{HTTPStatus: 404, Kind: api.KindNotFound, Message: "Transaction not found"}
}

func confirmT(t *testing.T, s *Store, r TransactionReader, e *api.Event) Confirmation {
	t.Helper()
	if _, err := s.ApplyEvent(e); err != nil {
		t.Fatal(err)
	}
	c, err := s.ConfirmEvent(context.Background(), r, e)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConfirmEvent: a signed event alone changes nothing; the service's answer decides (issue 12,
// item 1: a payment_completed of R$ 1,00 from "Liar" for a charge the service holds as pending).
func TestConfirmEvent(t *testing.T) {
	paidAt := time.Date(2026, 11, 23, 14, 31, 5, 0, time.UTC)
	pending := &api.Transaction{ID: "tx-1", Status: api.StatusPending, Amount: 2000}
	paid := &api.Transaction{ID: "tx-2", Status: api.StatusCompleted, Amount: 2000, PaidAt: &paidAt, E2EID: "E2", CounterpartName: "Maria"}
	subPaid := &api.Transaction{ID: "tx-4", Status: api.StatusCompleted, Amount: 3000, PaidAt: &paidAt}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/tx-1": pending, "principal/tx-2": paid, "loja-a/tx-4": subPaid, "principal/mesa-9": paid}}
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
			r.calls = nil
			if tc.tracked != nil {
				if _, err := s.UpsertCharge(*tc.tracked); err != nil {
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
			e, _ := s.Events().Get(tc.ev.EventID)
			if e.Verdict != tc.verdict || e.VerdictReason != c.Reason {
				t.Errorf("logged verdict %q %q", e.Verdict, e.VerdictReason)
			}
			id := tc.ev.TransactionID
			if id == "" && c.After.ID != "" {
				id = c.After.ID
			}
			ch, ok := s.Charge(id)
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
		})
	}
}

// The split that was distributed and an expiry are taken from a confirmed event only.
func TestConfirmEventKeepsWhatOnlyTheEventTells(t *testing.T) {
	s := OpenMemory()
	paid := &api.Transaction{ID: "tx-2", Status: api.StatusCompleted, Amount: 2000}
	gone := &api.Transaction{ID: "tx-3", Status: api.StatusCancelled, Amount: 2000}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/tx-2": paid, "principal/tx-3": gone}}
	for _, id := range []string{"tx-2", "tx-3"} {
		if _, err := s.UpsertCharge(Charge{ID: id, Amount: 2000, Status: api.StatusPending, Source: SourceCreated}); err != nil {
			t.Fatal(err)
		}
	}
	confirmT(t, s, r, &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx-2", Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 500}}})
	confirmT(t, s, r, &api.Event{EventID: "e2", Kind: api.EventPaymentExpired, TransactionID: "tx-3"})
	if c, _ := s.Charge("tx-2"); !c.HasDistributed || len(c.SplitDistributed) != 1 {
		t.Errorf("split distributed not kept: %+v", c)
	}
	if c, _ := s.Charge("tx-3"); c.State() != StateExpired {
		t.Errorf("tx-3 is %s, want expired", c.State())
	}
}

// A failure to read back leaves the event unchecked, to be tried again; nothing changes.
func TestConfirmEventNetworkFailure(t *testing.T) {
	s := OpenMemory()
	if _, err := s.UpsertCharge(Charge{ID: "tx-1", Amount: 2000, Status: api.StatusPending}); err != nil {
		t.Fatal(err)
	}
	e := &api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, TransactionID: "tx-1", Amount: 2000}
	if _, err := s.ApplyEvent(e); err != nil {
		t.Fatal(err)
	}
	down := errors.New("dial tcp: connection refused")
	if _, err := s.ConfirmEvent(context.Background(), &fakeReader{err: down}, e); !errors.Is(err, down) {
		t.Fatalf("err = %v", err)
	}
	if en, _ := s.Events().Get("e1"); en.Verdict != VerdictUnchecked {
		t.Errorf("verdict %q after a failed read", en.Verdict)
	}
	if c, _ := s.Charge("tx-1"); c.State() != StatePending {
		t.Errorf("charge is %s", c.State())
	}
}

// Verdicts survive a reopen of the journal.
func TestConfirmEventVerdictPersists(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	r := &fakeReader{txs: map[string]*api.Transaction{}}
	confirmT(t, s, r, &api.Event{EventID: "e-x", Kind: api.EventPaymentCompleted, TransactionID: "tx-none", Amount: 1000})
	s.Close()
	s2 := openT(t, dir, "p")
	if en, ok := s2.Events().Get("e-x"); !ok || en.Verdict != VerdictUnknown || en.VerdictReason != Reason(ReasonNotFound, "tx-none", "principal") {
		t.Fatalf("after reopen: %+v", en)
	}
	if err := s2.SetEventVerdict("never-received", VerdictConfirmed, ""); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("verdict for an unknown event: %v", err)
	}
}
