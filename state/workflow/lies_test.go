package workflow

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/export"
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

// outputs are the other figures the merchant reads: the Sales view's totals (state.DayReport,
// every wallet and each) and the export in both dialects.
type outputs struct {
	day     state.Totals
	wallets []state.Totals
	export  map[export.Format]string
}

// outputs reads the Sales view's figures of today and the whole export, as the dashboard and
// pixdash export make them (the profile's fee as the estimate).
func (l *liar) outputs() outputs {
	l.t.Helper()
	r, err := l.s.Store.DayReport(l.ctx, state.DayQuery{Period: state.Days(time.Now(), 1, time.Local), Now: time.Now(), Fee: l.d.PixFee, HasFee: true, NoBuckets: true})
	if err != nil {
		l.t.Fatal(err)
	}
	o := outputs{day: r.Total, wallets: r.Wallets, export: map[export.Format]string{}}
	for _, f := range []export.Format{export.CSV, export.BR} {
		var b bytes.Buffer
		if _, err := export.Write(l.ctx, &b, l.s.Store, export.Options{Format: f, Location: time.UTC, PixFee: l.d.PixFee, HasPixFee: true}); err != nil {
			l.t.Fatal(err)
		}
		o.export[f] = b.String()
	}
	return o
}

// recount checks the figures against the service's own answers: GET /transactions/{id} of
// every charge the export lists (in its wallet) and of each refund line (refunds: refund line
// → its charge), and GET /balance-blocks of each wallet. The service's answer carries no fee,
// so each payment's fee is the profile's estimate; a refund's fee is never counted.
func (l *liar) recount(o outputs, close state.CloseReport, refunds map[string]string) {
	t := l.t
	t.Helper()
	day := state.Days(time.Now(), 1, time.Local)
	rowsOf := func(f export.Format) [][]string {
		r := csv.NewReader(strings.NewReader(strings.TrimPrefix(o.export[f], "\uFEFF")))
		if f == export.BR {
			r.Comma = ';'
		}
		recs, err := r.ReadAll()
		if err != nil || len(recs) == 0 || !reflect.DeepEqual(recs[0], export.Header(f)) {
			t.Fatalf("%s export: %v %v", f, err, recs)
		}
		return recs[1:]
	}
	h := export.Header(export.CSV)
	col := func(name string) int {
		for i, c := range h {
			if c == name {
				return i
			}
		}
		t.Fatalf("no export column %s", name)
		return -1
	}
	idC, walletC, statusC, amountC, feeC, refundC := col("id"), col("wallet"), col("status"), col("amount"), col("fee"), col("refund_amount")

	// The service's answers.
	txs := map[string]*api.Transaction{}
	wallets := map[string]bool{}
	for _, rec := range rowsOf(export.CSV) {
		tx, err := l.s.Client.GetTransaction(l.ctx, rec[idC], api.WithSubAccount(SubAccountHeader(rec[walletC])))
		if err != nil {
			t.Fatalf("GET /transactions/%s: %v", rec[idC], err)
		}
		if tx.Type != api.TypePayment {
			t.Errorf("the export lists %s, a %s line at the service", rec[idC], tx.Type)
		}
		txs[rec[idC]] = tx
		wallets[rec[walletC]] = true
	}
	var want state.Totals
	inDay := func(tx *api.Transaction) bool {
		return tx != nil && tx.Type == api.TypePayment && tx.Status == api.StatusCompleted && tx.PaidAt != nil &&
			!tx.PaidAt.Before(day.From) && tx.PaidAt.Before(day.To)
	}
	for _, tx := range txs {
		if inDay(tx) {
			want.Paid++
			want.Gross += tx.Amount
			want.Fees += l.d.PixFee
		}
	}
	refunded := map[string]api.Money{}
	for lineID, chargeID := range refunds {
		rtx, err := l.s.Client.GetTransaction(l.ctx, lineID)
		if err != nil || rtx.Type != api.TypeRefund || rtx.Status != api.StatusCompleted {
			t.Fatalf("the service's refund line %s: %+v %v", lineID, rtx, err)
		}
		amt := rtx.Amount
		if amt < 0 {
			amt = -amt
		}
		refunded[chargeID] += amt
		want.Refunded++
		want.RefundedAmount += amt
	}
	held := map[string]api.Money{}
	for w := range wallets {
		list, err := l.s.Client.ListBalanceBlocks(l.ctx, "", api.WithSubAccount(SubAccountHeader(w)))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range list.Items {
			tx := txs[b.TransactionID]
			switch b.Status {
			case api.BlockAwaitingResponse, api.BlockDefended:
				held[b.TransactionID] = b.Amount
				if inDay(tx) {
					want.Blocked++
					want.BlockedAmount += b.Amount
				}
			case api.BlockApproved:
				held[b.TransactionID] = b.Amount
				if inDay(tx) {
					want.Returned++
					want.ReturnedAmount += b.Amount
				}
			}
		}
	}
	figures := func(tt state.Totals) string {
		return fmt.Sprintf("paid %d gross %s fees %s refunded %d %s (refund fees %s) blocked %d %s returned %d %s after refunds %s",
			tt.Paid, tt.Gross.BRL(), tt.Fees.BRL(), tt.Refunded, tt.RefundedAmount.BRL(), tt.RefundFees.BRL(),
			tt.Blocked, tt.BlockedAmount.BRL(), tt.Returned, tt.ReturnedAmount.BRL(), tt.AfterRefunds().BRL())
	}
	for name, tt := range map[string]state.Totals{"Sales view": o.day, "close": close.Total.Totals} {
		if got := figures(tt); got != figures(want) {
			t.Errorf("the %s is not what the service says:\n got %s\nwant %s", name, got, figures(want))
		}
	}

	// The export, in both dialects: one row per charge of the service, with its status and
	// amount, the fee estimate on a payment, and what went back or is held.
	for _, f := range []export.Format{export.CSV, export.BR} {
		rows := rowsOf(f)
		if len(rows) != len(txs) {
			t.Errorf("%s export: %d rows, %d charges", f, len(rows), len(txs))
		}
		for _, rec := range rows {
			tx := txs[rec[idC]]
			if tx == nil {
				t.Errorf("%s export lists %s, which the CSV one does not", f, rec[idC])
				continue
			}
			fee, refund := "", ""
			if tx.Status == api.StatusCompleted {
				fee = export.Amount(l.d.PixFee, f)
			}
			switch {
			case refunded[tx.ID] != 0:
				refund = export.Amount(refunded[tx.ID], f)
			case held[tx.ID] != 0:
				refund = export.Amount(held[tx.ID], f)
			case tx.BlockedDeposit != nil && tx.BlockedDeposit.Refund != nil:
				refund = export.Amount(tx.Amount, f) // a refused deposit goes back whole
			}
			got := fmt.Sprintf("%s %s fee %q refund %q", rec[statusC], rec[amountC], rec[feeC], rec[refundC])
			if w := fmt.Sprintf("%s %s fee %q refund %q", tx.Status, export.Amount(tx.Amount, f), fee, refund); got != w {
				t.Errorf("%s export of %s: %s, the service says %s", f, tx.ID, got, w)
			}
		}
	}
}

// Issue 22, items 1 to 4, end to end on the emulator: signed webhooks that lie change nothing
// the merchant reads. The close (and the Sales view's totals in it) after the lies equals the
// close before them, which holds only what the service confirmed.
func TestLiesOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.01)}})
	l := &liar{t: t, ctx: ctx, s: s, d: d}
	// As the dashboard does when a session starts (ui readBackAllBlocks): the MED blocks the
	// demo opened before are read back onto their charges. Blocks opened later reach the
	// charges through their events' read-back alone.
	known, err := s.Store.KnownWallets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range known {
		if _, err := ReadBackBlocks(ctx, s.Client, s.Store, w); err != nil {
			t.Fatal(err)
		}
	}

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
	before := l.outputs()
	l.recount(before, truth, map[string]string{line.ID: ch.ID})

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
	// The Sales view and the export too: as before the lies, and as the service says.
	out := l.outputs()
	if !reflect.DeepEqual(out.day, before.day) || !reflect.DeepEqual(out.wallets, before.wallets) {
		t.Errorf("the lies changed the Sales view:\n got %+v\nwant %+v", out.day, before.day)
	}
	for f, b := range before.export {
		if out.export[f] != b {
			t.Errorf("the lies changed the %s export:\n got %s\nwant %s", f, out.export[f], b)
		}
	}
	l.recount(out, after, map[string]string{line.ID: ch.ID})
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
