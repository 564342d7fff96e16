package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// refundFake is the service for refunds: canned answers, every call recorded in order.
type refundFake struct {
	mu        sync.Mutex
	calls     []call
	refundErr error
	reply     *api.RefundResult
	tx        *api.Transaction
	txErr     error
	// onRefund runs on each POST (e.g. to record the refund_completed the service sends).
	onRefund func()
}

func (f *refundFake) RefundTransaction(_ context.Context, id string, req *api.RefundRequest, opts ...api.RequestOption) (*api.RefundResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{method: "POST refund", id: id, opts: options(opts)})
	f.mu.Unlock()
	if f.onRefund != nil {
		f.onRefund()
	}
	if f.refundErr != nil {
		return nil, f.refundErr
	}
	if f.reply != nil {
		return f.reply, nil
	}
	return &api.RefundResult{OriginalTransactionID: id, PspProvider: "x", PspRefundTransactionID: "ref_1", Status: api.RefundRequestPending}, nil
}

func (f *refundFake) GetTransaction(_ context.Context, id string, opts ...api.RequestOption) (*api.Transaction, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{method: "GET", id: id, opts: options(opts)})
	f.mu.Unlock()
	if f.txErr != nil {
		return nil, f.txErr
	}
	return f.tx, nil
}

func (f *refundFake) methods() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ms []string
	for _, c := range f.calls {
		ms = append(ms, c.method)
	}
	return strings.Join(ms, ",")
}

var refundNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// refundablePaid is a completed payment tracked in store, in wallet loja-sul.
func refundablePaid(t *testing.T, store *state.Store) (state.Charge, *api.Transaction) {
	t.Helper()
	paid := refundNow.Add(-time.Hour)
	ch := state.Charge{ID: "tx-paid-1", Amount: 4250, Status: api.StatusCompleted, PaidAt: &paid, Wallet: "loja-sul",
		CreatedAt: paid.Add(-time.Minute), UpdatedAt: paid, Description: "Café"}
	ch, err := store.UpsertCharge(context.Background(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return ch, &api.Transaction{ID: ch.ID, Status: api.StatusCompleted, Type: api.TypePayment, Amount: 4250, CreatedAt: ch.CreatedAt, PaidAt: &paid}
}

func refundMemStore(t *testing.T) *state.Store {
	t.Helper()
	s := state.OpenMemory(state.WithClock(func() time.Time { return refundNow }))
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// recordRefundEvent records the refund_completed the service sends for charge id, and the
// service's confirmation of its refund line (the read-back the dashboard does).
func recordRefundEvent(t *testing.T, store *state.Store, id string, fee api.Money) {
	t.Helper()
	recordUncheckedRefundEvent(t, store, id, fee)
	if err := store.SetEventVerdict(context.Background(), "evt-"+id, state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
}

// recordUncheckedRefundEvent records the refund_completed for charge id, not read back yet.
func recordUncheckedRefundEvent(t *testing.T, store *state.Store, id string, fee api.Money) {
	t.Helper()
	body := fmt.Sprintf(`{"event":"refund_completed","eventId":"evt-%s","timestamp":"2026-11-21T15:00:03Z","subAccount":"loja-sul","data":{"id":"line-1","transactionId":%q,"originalTransactionId":%q,"amount":42.50,"netAmount":42.50,"feeAmount":%s,"status":"completed","e2eId":"D123"}}`,
		id, id, id, fee.Decimal())
	ev, err := api.DecodeEvent([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.ApplyEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
}

func TestRefundTakenIsSentOnceWithoutKeyInTheChargesWallet(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	svc := &refundFake{tx: tx}
	out := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Reason: "cliente desistiu", Key: "key-1"}, func() time.Time { return refundNow })
	if out.Kind != RefundDone || out.Err != nil || !out.Sent || out.Record.State != state.RefundPending || out.Record.PspRefundID != "ref_1" {
		t.Fatalf("outcome: %+v", out)
	}
	if got := svc.methods(); got != "POST refund" {
		t.Fatalf("calls %q, want one POST", got)
	}
	c := svc.calls[0]
	if c.opts.IdempotencyKey != "" || c.opts.SubAccount != "loja-sul" || c.id != ch.ID {
		t.Fatalf("request options %+v id %s", c.opts, c.id)
	}
	rec, ok, err := store.RefundOf(context.Background(), ch.ID)
	if err != nil || !ok || rec.Key != "key-1" || rec.Reason != "cliente desistiu" || rec.State != state.RefundPending || rec.Attempts != 1 {
		t.Fatalf("record %+v %v %v", rec, ok, err)
	}
	if r, ok := store.PeekRefund(ch.ID); !ok || r.State != state.RefundPending {
		t.Fatalf("memory: %+v %v", r, ok)
	}
	// The same form again (a double press): nothing is sent.
	again := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "key-1"}, nil)
	if again.Kind != RefundDone || again.Sent || svc.methods() != "POST refund" {
		t.Fatalf("again: %+v, calls %q", again, svc.methods())
	}
	// Another form on the same charge is refused locally.
	other := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "key-2"}, nil)
	if other.Kind != RefundRefused || !errors.Is(other.Err, ErrRefundDone) || svc.methods() != "POST refund" {
		t.Fatalf("other form: %+v", other)
	}
	// refund_completed settles it, with its fee.
	recordRefundEvent(t, store, ch.ID, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done, err := AwaitRefund(ctx, store, ch.ID, nil)
	if err != nil || done.State != state.RefundCompleted || !done.HasFeeReported || done.E2EID != "D123" || done.Amount != 4250 {
		t.Fatalf("await: %+v %v", done, err)
	}
	if fee, ok, err := store.LastRefundFee(context.Background()); err != nil || !ok || fee != 0 {
		t.Fatalf("learned refund fee %s %v %v", fee, ok, err)
	}
}

func TestRefundRefusedKeepsTheEnvelope(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	svc := &refundFake{tx: tx, refundErr: &api.Error{HTTPStatus: 400, Kind: "BadRequest", Message: "Insufficient balance", TraceID: "0123456789abcdef0123456789abcdef"}}
	out := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	var ae *api.Error
	if out.Kind != RefundRefused || !errors.As(out.Err, &ae) || out.Record.Message != "Insufficient balance" || out.Record.TraceID != ae.TraceID {
		t.Fatalf("outcome %+v", out)
	}
	if svc.methods() != "POST refund" {
		t.Fatalf("calls %q: a refusal is not read back nor retried", svc.methods())
	}
	// A refused refund may be asked again (the merchant topped up the balance).
	svc.refundErr = nil
	if again := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil); again.Kind != RefundDone {
		t.Fatalf("after a refusal: %+v", again)
	}
}

func TestRefundLostReplyIsReadBackBeforeAnyRetry(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	svc := &refundFake{tx: tx, refundErr: fmt.Errorf("POST /transactions/x/refund: %w", context.DeadlineExceeded)}
	out := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	if out.Kind != RefundUnknown || out.Record.State != state.RefundUnknown || out.ReadBack == nil {
		t.Fatalf("outcome %+v", out)
	}
	if got := svc.methods(); got != "POST refund,GET" {
		t.Fatalf("calls %q: the transaction must be read after a lost reply", got)
	}
	// The retry reads first; refund_completed arrived meanwhile: it landed, nothing is sent.
	recordRefundEvent(t, store, ch.ID, 0)
	svc.refundErr = nil
	again := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	if again.Kind != RefundDone || again.Sent || again.Record.State != state.RefundCompleted {
		t.Fatalf("retry: %+v", again)
	}
	if got := svc.methods(); got != "POST refund,GET,GET" {
		t.Fatalf("calls %q: the retry must read and not send", got)
	}
}

func TestRefundRetryAfterUnknownSendsOnlyAfterReading(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	svc := &refundFake{tx: tx, refundErr: errors.New("connection reset")}
	if out := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil); out.Kind != RefundUnknown {
		t.Fatalf("first: %+v", out)
	}
	// The read-back cannot tell; the retry sends again, and the service says it had taken it.
	svc.refundErr = &api.Error{HTTPStatus: 400, Message: "Transaction already refunded"}
	again := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	if again.Kind != RefundDone || again.Record.State != state.RefundPending {
		t.Fatalf("retry: %+v", again)
	}
	if got := svc.methods(); got != "POST refund,GET,GET,POST refund" {
		t.Fatalf("calls %q", got)
	}
	// A read-back that fails sends nothing.
	store2 := refundMemStore(t)
	ch2, _ := refundablePaid(t, store2)
	svc2 := &refundFake{refundErr: errors.New("connection reset"), txErr: errors.New("offline")}
	_ = Refund(context.Background(), svc2, store2, RefundOrder{Charge: ch2, Amount: 4250, Key: "k"}, nil)
	out := Refund(context.Background(), svc2, store2, RefundOrder{Charge: ch2, Amount: 4250, Key: "k"}, nil)
	if out.Kind != RefundUnknown || out.Sent || svc2.methods() != "POST refund,GET,GET" {
		t.Fatalf("failed read-back: %+v, calls %q", out, svc2.methods())
	}
}

func TestRefundLocalRules(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	pending := ch
	pending.Status, pending.PaidAt = api.StatusPending, nil
	line := ch // a refund line read as a charge: completed, negative
	line.Amount = -4250
	cases := []struct {
		name string
		o    RefundOrder
		want error
	}{
		{"read-only", RefundOrder{Charge: ch, Amount: 4250, Key: "k", ReadOnly: true}, ErrRefundReadOnly},
		{"not paid", RefundOrder{Charge: pending, Amount: 4250, Key: "k"}, ErrRefundNotPaid},
		{"refund line", RefundOrder{Charge: line, Amount: -4250, Key: "k"}, ErrRefundNotPayment},
		{"partial", RefundOrder{Charge: ch, Amount: 4000, Key: "k"}, ErrRefundPartial},
		{"no key", RefundOrder{Charge: ch, Amount: 4250}, ErrRefundNoKey},
		{"long reason", RefundOrder{Charge: ch, Amount: 4250, Key: "k", Reason: strings.Repeat("a", 256)}, ErrRefundLongReason},
	}
	for _, tc := range cases {
		svc := &refundFake{tx: tx}
		out := Refund(context.Background(), svc, store, tc.o, nil)
		if out.Kind != RefundRefused || !errors.Is(out.Err, tc.want) || svc.methods() != "" {
			t.Errorf("%s: %+v, calls %q", tc.name, out, svc.methods())
		}
	}
	if _, ok, _ := store.RefundOf(context.Background(), ch.ID); ok {
		t.Fatal("a refund refused locally left a record")
	}
}

// Only a payment's transaction can be refunded: a refund line, a withdrawal, a fee or a
// transfer cannot, nor a payment whose amount is not positive.
func TestCheckRefundTransactionOnlyPayments(t *testing.T) {
	for _, tc := range []struct {
		typ    api.TxType
		amount api.Money
		ok     bool
	}{
		{api.TypePayment, 1250, true},
		{"", 1250, true}, // the type absent: the amount decides
		{api.TypeRefund, -1250, false},
		{api.TypeRefund, 1250, false},
		{api.TypeWithdrawal, -5000, false},
		{api.TypeFee, -50, false},
		{api.TypeInternalTransfer, 300, false},
		{api.TypePayment, -1250, false},
		{"", 0, false},
	} {
		err := CheckRefundTransaction(&api.Transaction{ID: "t", Type: tc.typ, Amount: tc.amount, Status: api.StatusCompleted})
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrRefundNotPayment)) {
			t.Errorf("%q %s: %v", tc.typ, tc.amount.BRL(), err)
		}
	}
	if CheckRefundTransaction(nil) == nil {
		t.Error("nil transaction accepted")
	}
}

// End to end on the emulator: pay a charge, refund it through POST /transactions/{id}/refund,
// see refund_completed arrive through the receiver and settle the record; a second refund is
// refused by the service with its envelope.
func TestRefundOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _ := demoSession(t, sandbox.DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.01)}})
	draft := Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, Req: api.CreatePixRequest{Amount: 1234, Description: "Café"}}
	r := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	// Not paid yet: refused locally, nothing sent.
	if out := Refund(ctx, s.Client, s.Store, RefundOrder{Charge: *r.Charge, Amount: 1234, Key: "k1"}, nil); out.Kind != RefundRefused || out.Sent {
		t.Fatalf("pending charge: %+v", out)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	p := PollCharge(ctx, s.Client, s.Store, r.Charge.ID, api.WalletPrincipal)
	if p.Err != nil || p.After.State() != state.StatePaid {
		t.Fatalf("poll: %+v", p)
	}
	out := Refund(ctx, s.Client, s.Store, RefundOrder{Charge: p.After, Amount: 1234, Reason: "cliente desistiu", Key: "k2"}, nil)
	if out.Kind != RefundDone || out.Reply == nil || out.Reply.Status != api.RefundRequestPending || out.Reply.OriginalTransactionID != r.Charge.ID {
		t.Fatalf("refund: %+v", out)
	}
	// The dashboard reads refund_completed back through its refund line; here the test does.
	go func() {
		for ctx.Err() == nil {
			if e, ok, err := s.Store.RefundEvent(ctx, r.Charge.ID); err == nil && ok {
				if _, err := s.Store.ConfirmEvent(ctx, s.Client, e.Event); err == nil {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	done, err := AwaitRefund(ctx, s.Store, r.Charge.ID, nil)
	if err != nil || done.State != state.RefundCompleted || done.Amount != 1234 || !done.HasFeeReported || done.FeeReported != 0 || !strings.HasPrefix(done.E2EID, "D") {
		t.Fatalf("await: %+v %v", done, err)
	}
	// The service refuses a second refund of the same payment, with its envelope.
	if err := s.Store.LoadRefunds(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s.Client.RefundTransaction(ctx, r.Charge.ID, &api.RefundRequest{})
	var ae *api.Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 400 || !strings.Contains(ae.Message, "already refunded") || ae.TraceID == "" {
		t.Fatalf("second refund: %v", err)
	}
}

// refund_completed is a hint: a refund is completed only once the service confirmed its
// refund line; before that a read-back that finds the event records it taken (pending) and
// sends nothing.
func TestRefundCompletesOnlyOnceConfirmed(t *testing.T) {
	store := refundMemStore(t)
	ch, tx := refundablePaid(t, store)
	svc := &refundFake{tx: tx, refundErr: context.DeadlineExceeded}
	out := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	if out.Kind != RefundUnknown {
		t.Fatalf("lost reply: %+v", out)
	}
	recordUncheckedRefundEvent(t, store, ch.ID, 0)
	svc.refundErr = nil
	again := Refund(context.Background(), svc, store, RefundOrder{Charge: ch, Amount: 4250, Key: "k"}, nil)
	if again.Kind != RefundDone || again.Sent || again.Record.State != state.RefundPending {
		t.Fatalf("retry with an unchecked refund_completed: %+v (want taken, pending, nothing sent)", again)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if rec, err := AwaitRefund(ctx, store, ch.ID, nil); err == nil || rec.State == state.RefundCompleted {
		t.Fatalf("completed on an unchecked event: %+v %v", rec, err)
	}
	if err := store.SetEventVerdict(context.Background(), "evt-"+ch.ID, state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	rec, err := AwaitRefund(context.Background(), store, ch.ID, nil)
	if err != nil || rec.State != state.RefundCompleted {
		t.Fatalf("after the service confirmed it: %+v %v", rec, err)
	}
}

// The refund fee of refund_completed is reported by the event, not confirmed by the service:
// the record keeps it as reported (never as a fee the service charged), and an impossible one
// (below zero, above the amount) is dropped.
func TestRefundRecordKeepsTheEventFeeAsReported(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	rec := state.Refund{ChargeID: "c1", Amount: 1250, State: state.RefundPending}
	for _, tc := range []struct {
		fee    api.Money
		keep   bool
		reason string
	}{
		{90, true, "a plausible fee"},
		{0, true, "no fee"},
		{-500, false, "a negative fee"},
		{1251, false, "a fee above the amount"},
	} {
		got := completeRecord(rec, &api.Event{Kind: api.EventRefundCompleted, TransactionID: "c1", Amount: 1250, FeeAmount: tc.fee, E2EID: "D1"}, at)
		if got.State != state.RefundCompleted || got.HasFeeReported != tc.keep || (tc.keep && got.FeeReported != tc.fee) || (!tc.keep && got.FeeReported != 0) {
			t.Errorf("%s: %+v", tc.reason, got)
		}
	}
	// The records written before kept the event's fee under the same JSON names: it reads
	// back as reported.
	var old state.Refund
	if err := json.Unmarshal([]byte(`{"chargeId":"c1","amount":12.50,"state":"completed","fee":0.90,"hasFee":true}`), &old); err != nil {
		t.Fatal(err)
	}
	if !old.HasFeeReported || old.FeeReported != 90 {
		t.Fatalf("an older record's fee: %+v", old)
	}
}
