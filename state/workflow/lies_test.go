package workflow

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// liar sends signed webhooks (the endpoint's right secret) that say what the service does not,
// and reads each back as the dashboard does.
type liar struct {
	t   *testing.T
	ctx context.Context
	s   *Session
	d   *sandbox.Demo
	n   int
}

// send delivers body, signed, to the session's receiver and waits until it is stored.
func (l *liar) send(id, body string) *api.Event {
	l.t.Helper()
	req, err := http.NewRequestWithContext(l.ctx, http.MethodPost, l.s.WebhookURL, bytes.NewReader([]byte(body)))
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set(api.SignatureHeader, api.Sign([]byte(body), l.d.WebhookSecret))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		l.t.Fatalf("the receiver answered %d to %s", resp.StatusCode, id)
	}
	e, ok, err := l.s.Store.Event(l.ctx, id)
	if err != nil || !ok {
		l.t.Fatalf("event %s not stored: %v", id, err)
	}
	return e.Event
}

// lie sends a forged event and reads it back; it returns the verdict.
func (l *liar) lie(kind api.EventKind, sub, data string) state.Confirmation {
	l.t.Helper()
	l.n++
	id := fmt.Sprintf("evt-lie-%d", l.n)
	subField := ""
	if sub != "" {
		subField = fmt.Sprintf(`,"subAccount":%q`, sub)
	}
	body := fmt.Sprintf(`{"event":%q,"eventId":%q,"timestamp":%q%s,"data":%s}`, kind, id, time.Now().UTC().Format(time.RFC3339Nano), subField, data)
	return l.confirm(l.send(id, body))
}

// confirm reads e back from the service (what the dashboard does for every event it gets).
func (l *liar) confirm(e *api.Event) state.Confirmation {
	l.t.Helper()
	c, err := ConfirmPayment(l.ctx, l.s.Client, l.s.Store, e)
	if err != nil {
		l.t.Fatalf("reading back %s: %v", e.EventID, err)
	}
	return c
}

// await waits for the service's own event of kind that match accepts, and reads it back.
func (l *liar) await(kind api.EventKind, match func(*api.Event) bool) state.Confirmation {
	l.t.Helper()
	for {
		p, err := l.s.Store.EventWindow(l.ctx, state.EventQuery{Kind: kind}, 0, 100)
		if err != nil {
			l.t.Fatal(err)
		}
		for _, e := range p.Entries {
			if !strings.HasPrefix(e.Event.EventID, "evt-lie-") && match(e.Event) {
				return l.confirm(e.Event)
			}
		}
		select {
		case <-l.ctx.Done():
			l.t.Fatalf("no %s from the service", kind)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// figures are what the merchant reads: the close (Sales view's totals inside it) of today.
func (l *liar) figures() state.CloseReport {
	l.t.Helper()
	r, err := l.s.Store.CloseDay(l.ctx, state.CloseQuery{Day: state.Days(time.Now(), 1, time.Local), Wallets: []string{api.WalletPrincipal}, Fee: l.d.PixFee, HasFee: true})
	if err != nil {
		l.t.Fatal(err)
	}
	r.Made = time.Time{}
	return r
}

// Issue 22, items 1 to 4, end to end on the emulator: signed webhooks that lie change nothing
// the merchant reads. The close (and the Sales view's totals in it) after the lies equals the
// close before them, which holds only what the service confirmed.
func TestLiesOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.01)}})
	l := &liar{t: t, ctx: ctx, s: s, d: d}

	// What really happens: a R$ 12,34 sale and another of R$ 80,00 (another payer), the first
	// refunded; a withdrawal asked from the dashboard completes; a MED block on the second sale.
	sale := func(amount api.Money, payer, doc string) *state.Charge {
		r := CreateCharge(ctx, s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
			Req: api.CreatePixRequest{Amount: amount, Description: "venda"}}, nil)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if err := d.Control.Pay(ctx, r.Charge.ID, payer, doc); err != nil {
			t.Fatal(err)
		}
		if c := l.await(api.EventPaymentCompleted, func(e *api.Event) bool { return e.TransactionID == r.Charge.ID }); c.Verdict != state.VerdictConfirmed {
			t.Fatalf("the real payment: %+v", c)
		}
		return r.Charge
	}
	ch := sale(1234, "Maria da Silva", "52998224725")
	other := sale(8000, "João Souza", "11144477735")
	line, err := d.Control.RefundCharge(ctx, ch.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.await(api.EventRefundCompleted, func(e *api.Event) bool { return e.ID == line.ID }); c.Verdict != state.VerdictConfirmed {
		t.Fatalf("the real refund: %+v", c)
	}
	acc, err := s.Client.GetAccount(ctx)
	if err != nil || acc.Balance.Available == nil {
		t.Fatal(acc, err)
	}
	o := wdOrder(api.NewIdempotencyKey(), 1000, *acc.Balance.Available)
	o.Wallet = api.WalletPrincipal
	wd := Withdraw(ctx, s.Client, s.Store, o, nil)
	if wd.Kind != WithdrawalDone {
		t.Fatalf("withdraw: %+v", wd)
	}
	l.await(api.EventWithdrawalCompleted, func(e *api.Event) bool { return e.WithdrawalID == wd.Record.ID })
	if w, err := AwaitWithdrawal(ctx, s.Store, o.Key, nil); err != nil || w.State != state.WithdrawalCompleted {
		t.Fatalf("await: %+v %v", w, err)
	}
	blk, err := d.Control.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: other.ID})
	if err != nil {
		t.Fatal(err)
	}
	l.await(api.EventBalanceBlockCreated, func(e *api.Event) bool { return e.ID == blk.ID })
	truth := l.figures()
	if truth.Total.Refunded != 1 || truth.Total.RefundedAmount != 1234 || truth.Total.BlocksOpened != 1 || truth.Total.WithdrawalsCompleted != 1 {
		t.Fatalf("the truth is not counted: %+v", truth.Total)
	}
	paid := truth.Total.Paid

	// 1. payment_completed naming a withdrawal line and a refund line.
	wline, err := d.Control.Withdraw(ctx, sandbox.WithdrawalRequest{Amount: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{wline.ID, line.ID} {
		c := l.lie(api.EventPaymentCompleted, "", fmt.Sprintf(`{"id":%q,"transactionId":%q,"status":"completed","amount":-10.00}`, id, id))
		if c.Verdict != state.VerdictDisputed || !strings.HasPrefix(c.Reason, state.ReasonType+"|") {
			t.Errorf("payment_completed for line %s: %+v", id, c)
		}
		if _, ok, _ := s.Store.Charge(ctx, id); ok {
			t.Errorf("line %s became a charge", id)
		}
	}

	// 2. refund_completed reusing the real refund line with invented charges, and with the
	// other real sale.
	for i := range 5 {
		fake := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		c := l.lie(api.EventRefundCompleted, "", fmt.Sprintf(`{"id":%q,"transactionId":%q,"originalTransactionId":%q,"amount":12.34,"netAmount":12.34,"feeAmount":50.00,"status":"completed"}`, line.ID, fake, fake))
		if c.Verdict != state.VerdictDisputed {
			t.Errorf("refund lie %d: %+v", i, c)
		}
	}
	if c := l.lie(api.EventRefundCompleted, "", fmt.Sprintf(`{"id":%q,"transactionId":%q,"amount":12.34,"feeAmount":50.00,"status":"completed"}`, line.ID, other.ID)); c.Verdict != state.VerdictDisputed {
		t.Errorf("the refund line counted for another sale: %+v", c)
	}

	// 3. The right id, status and amount, with a negative fee and a forged split.
	c := l.lie(api.EventPaymentCompleted, "", fmt.Sprintf(`{"id":%q,"transactionId":%q,"status":"completed","amount":80.00,"netAmount":580.00,"feeAmount":-500.00,"split":[{"subAccount":"loja-a","amount":50.00}]}`, other.ID, other.ID))
	if c.Verdict != state.VerdictConfirmed || c.After.Fee != nil || (c.After.FeeReported != nil && *c.After.FeeReported < 0) || len(c.After.SplitDistributed) != 0 {
		t.Errorf("fee and split taken from the event: %+v", c)
	}

	// 4. A forged reversal of the completed withdrawal, a block in a wallet the account does not
	// have, and a block the service never opened.
	if c := l.lie(api.EventWithdrawalReversed, "", fmt.Sprintf(`{"id":%q,"withdrawalId":%q,"amount":10.00,"status":"reversed"}`, wd.Record.ID, wd.Record.ID)); c.Verdict != state.VerdictDisputed {
		t.Errorf("withdrawal_reversed: %+v", c)
	}
	if c := l.lie(api.EventBalanceBlockCreated, "+SUM(1)", `{"id":"blk-x","transactionId":"tx-x","amount":10.00,"status":"awaiting_response","blockType":"med"}`); c.Verdict != state.VerdictUnknown {
		t.Errorf("a block in a phantom wallet: %+v", c)
	}
	if c := l.lie(api.EventBalanceBlockCreated, "", fmt.Sprintf(`{"id":"blk-y","transactionId":%q,"amount":80.00,"status":"awaiting_response","blockType":"med"}`, other.ID)); c.Verdict != state.VerdictUnknown {
		t.Errorf("a block the service never opened: %+v", c)
	}
	if c := l.lie(api.EventBalanceBlockApproved, "", fmt.Sprintf(`{"id":%q,"transactionId":%q,"amount":80.00,"status":"approved","blockType":"med"}`, blk.ID, other.ID)); c.Verdict != state.VerdictDisputed {
		t.Errorf("an approval the service did not give: %+v", c)
	}
	list, err := ListWithdrawals(ctx, s.Store, api.WalletPrincipal, 10, nil)
	if err != nil || len(list) != 1 || list[0].State != state.WithdrawalCompleted {
		t.Errorf("withdrawals after the lies: %+v %v", list, err)
	}

	after := l.figures()
	if fmt.Sprintf("%+v", after) != fmt.Sprintf("%+v", truth) {
		t.Errorf("the lies changed the close:\n got %+v\nwant %+v", after, truth)
	}
	if after.Total.Paid != paid || after.Total.Fees < 0 || after.Total.SplitSentN != 0 {
		t.Errorf("close after the lies: %+v", after.Total)
	}
}

// confirmAll reads back every event the session records from now on until ctx ends, as the
// dashboard does (its events feed queues a read-back for each).
func confirmAll(ctx context.Context, s *Session) {
	go func() {
		after := int64(-1)
		for {
			b, ok := WaitEvents(ctx, s.Store, after, 100)
			if !ok {
				return
			}
			after = b.Last
			for _, e := range b.Events {
				if e.Kind.ReadBack() {
					_, _ = ConfirmPayment(ctx, s.Client, s.Store, e)
				}
			}
		}
	}()
}
