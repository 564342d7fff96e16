package state

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"pixdash/api"
)

// Issue 22 ("Trust, second round"): signed webhooks that lie. Each test sends what an attack
// pass sent and checks that only the service's answer counts.

// todayT is the day's report of the store, with a fee estimate of R$ 0,99.
func todayT(t *testing.T, s *Store) DayReport {
	t.Helper()
	r, err := s.DayReport(ctx, DayQuery{Period: Days(time.Now(), 1, time.Local), Fee: 99, HasFee: true, NoBuckets: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Item 1: a payment_completed whose data.id is a withdrawal or a refund line (or a payment of
// no positive amount) is not a payment: disputed, no charge, nothing on the day.
func TestLiePaymentCompletedNamesALine(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		tx   *api.Transaction
	}{
		{"withdrawal line", &api.Transaction{ID: "wd-1", Type: api.TypeWithdrawal, Status: api.StatusCompleted, Amount: -1000, PaidAt: &now}},
		{"refund line", &api.Transaction{ID: "wd-1", Type: api.TypeRefund, Status: api.StatusCompleted, Amount: -1000, PaidAt: &now}},
		{"fee line", &api.Transaction{ID: "wd-1", Type: api.TypeFee, Status: api.StatusCompleted, Amount: -1000, PaidAt: &now}},
		{"payment of a negative amount", &api.Transaction{ID: "wd-1", Type: api.TypePayment, Status: api.StatusCompleted, Amount: -1000, PaidAt: &now}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := OpenMemory()
			defer s.Close()
			r := &fakeReader{txs: map[string]*api.Transaction{"principal/wd-1": tc.tx}}
			c := confirmT(t, s, r, &api.Event{EventID: "lie", Kind: api.EventPaymentCompleted, CreatedAt: now,
				ID: "wd-1", TransactionID: "wd-1", Status: api.StatusCompleted, Amount: -1000})
			if c.Verdict != VerdictDisputed || c.After.ID != "" {
				t.Fatalf("verdict %s %q, charge %+v", c.Verdict, c.Reason, c.After)
			}
			if ch, ok := chargeT(t, s, "wd-1"); ok {
				t.Fatalf("the line became a charge: %+v", ch)
			}
			if day := todayT(t, s); day.Total.Paid != 0 || day.Total.Gross != 0 {
				t.Fatalf("the day counts it: %+v", day.Total)
			}
		})
	}
}

// Item 2: refund_completed events that reuse one real refund line with invented charges (or
// with another real sale) count nothing; the line counts once, for its charge.
func TestLieRefundLineReused(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	r := &fakeReader{txs: map[string]*api.Transaction{
		"principal/ref-1": {ID: "ref-1", Type: api.TypeRefund, Status: api.StatusCompleted, Amount: -1000, CounterpartDocument: "52998224725"},
		"principal/ch-1":  {ID: "ch-1", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 1000, CounterpartDocument: "52998224725"},
		// Another sale, by another payer.
		"principal/ch-2": {ID: "ch-2", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 5000, CounterpartDocument: "11144477735"},
		// Another sale, the service naming no payer.
		"principal/ch-3": {ID: "ch-3", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 5000},
		// A sale smaller than the refund.
		"principal/ch-4": {ID: "ch-4", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 500},
	}}
	refund := func(id, charge string) Confirmation {
		return confirmT(t, s, r, &api.Event{EventID: id, Kind: api.EventRefundCompleted, CreatedAt: time.Now(),
			ID: "ref-1", TransactionID: charge, OriginalTransactionID: charge, Amount: 1000, NetAmount: 1000, FeeAmount: 5000})
	}
	if c := refund("real", "ch-1"); c.Verdict != VerdictConfirmed {
		t.Fatalf("the real refund: %+v", c)
	}
	for i := range 5 {
		if c := refund(fmt.Sprintf("lie-%d", i), fmt.Sprintf("invented-%d", i)); c.Verdict != VerdictDisputed {
			t.Errorf("lie %d: %s %q", i, c.Verdict, c.Reason)
		}
	}
	for _, tc := range []struct{ charge, reason string }{
		{"ch-2", ReasonRefundCharge},  // paid by someone else than the line pays back
		{"ch-3", ReasonRefundCounted}, // fits, but the line is ch-1's
		{"ch-4", ReasonRefundCharge},  // smaller than the refund
		{"ch-1", ReasonRefundCounted}, // the same line again under another eventId
	} {
		if c := refund("lie-"+tc.charge, tc.charge); c.Verdict != VerdictDisputed || c.Reason[:len(tc.reason)] != tc.reason {
			t.Errorf("line counted for %s: %s %q, want %s", tc.charge, c.Verdict, c.Reason, tc.reason)
		}
	}
	day := todayT(t, s)
	if day.Total.Refunded != 1 || day.Total.RefundedAmount != 1000 || day.Total.RefundFees != 0 {
		t.Fatalf("refunds of the day: %+v", day.Total)
	}
	// The refund fee of R$ 50,00 on a R$ 10,00 refund is impossible: not even reported.
	if day.Total.RefundFeesReported != 0 || day.Total.AfterRefunds() != -1000 {
		t.Fatalf("reported refund fees %s, after refunds %s", day.Total.RefundFeesReported, day.Total.AfterRefunds())
	}
	// Nor is it offered as the next refund's cost.
	if fee, ok, err := s.LastRefundFee(ctx); ok || err != nil {
		t.Fatalf("the refund form would show a refund fee of %s (%v)", fee, err)
	}
	// Two read-backs at once cannot both count the line.
	s2 := OpenMemory()
	defer s2.Close()
	var evs []*api.Event
	for i := range 8 {
		e := rawEvent(t, &api.Event{EventID: fmt.Sprintf("race-%d", i), Kind: api.EventRefundCompleted, ID: "ref-1", TransactionID: "ch-1", Amount: 1000})
		if _, err := s2.ApplyEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	confirmed := make(chan Verdict, len(evs))
	for _, e := range evs {
		go func() {
			c, err := s2.ConfirmEvent(context.Background(), r, e)
			if err != nil {
				t.Error(err)
			}
			confirmed <- c.Verdict
		}()
	}
	n := 0
	for range evs {
		if <-confirmed == VerdictConfirmed {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d events counted one refund line", n)
	}
}

// Item 3: once id, status and amount match, the event's fee and split are still only what the
// event says: a fee outside [0, amount] is dropped, a possible one is kept as reported and left
// out of the totals (the estimate counts), and a split the service did not accept is kept as
// reported, out of the close.
func TestLieFeeAndSplit(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	now := time.Now()
	paid := func(id string) *api.Transaction {
		return &api.Transaction{ID: id, Type: api.TypePayment, Status: api.StatusCompleted, Amount: 1234, PaidAt: &now}
	}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/ch-1": paid("ch-1"), "principal/ch-2": paid("ch-2"), "principal/ch-3": paid("ch-3")}}
	for _, id := range []string{"ch-1", "ch-2", "ch-3"} {
		c := Charge{ID: id, Amount: 1234, Status: api.StatusPending, CreatedAt: now, Source: SourceCreated}
		if id == "ch-3" {
			c.SplitRequested = []api.SplitItem{{SubAccount: "loja-a", Amount: 300}, {SubAccount: "loja-b", Amount: 200}}
		}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	pay := func(id string, fee, net api.Money, split []api.SplitItem) Charge {
		t.Helper()
		c := confirmT(t, s, r, &api.Event{EventID: "evt-" + id, Kind: api.EventPaymentCompleted, CreatedAt: now, TransactionID: id,
			Status: api.StatusCompleted, Amount: 1234, FeeAmount: fee, NetAmount: net, Split: split})
		if c.Verdict != VerdictConfirmed {
			t.Fatalf("%s: %+v", id, c)
		}
		return c.After
	}
	lie := pay("ch-1", -50000, 51234, []api.SplitItem{{SubAccount: "loja-a", Amount: 1000}})
	if lie.Fee != nil || lie.FeeReported != nil || lie.HasDistributed || len(lie.SplitReported) != 1 {
		t.Errorf("a fee of -R$ 500,00 and a forged split: %+v", lie)
	}
	honest := pay("ch-2", 99, 1135, nil)
	if honest.Fee != nil || honest.FeeReported == nil || *honest.FeeReported != 99 {
		t.Errorf("a possible fee is kept as reported only: %+v", honest)
	}
	// What the service accepted, the last leg reduced (spec: split rule 7), agrees.
	split := pay("ch-3", 99, 1135, []api.SplitItem{{SubAccount: "loja-a", Amount: 300}, {SubAccount: "loja-b", Amount: 100}})
	if !split.HasDistributed || len(split.SplitDistributed) != 2 || len(split.SplitReported) != 0 {
		t.Errorf("a split as accepted: %+v", split)
	}
	day := todayT(t, s)
	if day.Total.Paid != 3 || day.Total.Fees != 3*99 || day.Total.FeesEstimated != 3 || day.Total.Net() != 3*(1234-99) {
		t.Errorf("the day: %+v, net %s", day.Total, day.Total.Net())
	}
	cl, err := s.CloseDay(ctx, CloseQuery{Day: Days(now, 1, time.Local), Fee: 99, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Total.SplitSentN != 2 || cl.Total.SplitSent != 400 || cl.Total.Fees != 3*99 {
		t.Errorf("the close counts %d legs, %s sent, fees %s", cl.Total.SplitSentN, cl.Total.SplitSent, cl.Total.Fees)
	}
}

// blockReader answers GET /transactions/{id} and GET /balance-blocks of each wallet.
type blockReader struct {
	fakeReader
	blocks map[string][]api.BalanceBlock
}

func (b *blockReader) ListBalanceBlocks(_ context.Context, _ api.BlockStatus, opts ...api.RequestOption) (*api.BalanceBlockList, error) {
	ro := api.RequestOptions{}
	for _, o := range opts {
		o(&ro)
	}
	w := NormalizeWallet(ro.SubAccount)
	items, ok := b.blocks[w]
	if !ok {
		return nil, &api.Error{HTTPStatus: 404, Code: api.CodeSubAccountNotFound, Message: "Sub-account not found"}
	}
	return &api.BalanceBlockList{Items: items, Total: len(items)}, nil
}

// Item 4: withdrawal_* and balance_block_* are read back: a forged reversal of a completed
// withdrawal moves nothing, a block in a wallet the account does not have (or one the service
// never opened, or an approval it did not give) adds nothing to the close.
func TestLieWithdrawalAndBlock(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	now := time.Now()
	r := &blockReader{
		fakeReader: fakeReader{txs: map[string]*api.Transaction{
			"principal/wd-1": {ID: "wd-1", Type: api.TypeWithdrawal, Status: api.StatusCompleted, Amount: -1000},
		}},
		blocks: map[string][]api.BalanceBlock{
			"principal": {{ID: "blk-1", TransactionID: "ch-1", Amount: 800, Status: api.BlockAwaitingResponse}},
			"loja-a":    {},
		},
	}
	if _, err := s.PutWithdrawal(ctx, Withdrawal{Key: "k1", ID: "wd-1", Wallet: "principal", Amount: 1000, State: WithdrawalPending, RequestedAt: now}); err != nil {
		t.Fatal(err)
	}
	verdict := func(e *api.Event, want Verdict) {
		t.Helper()
		e.CreatedAt = now
		if c := confirmT(t, s, r, e); c.Verdict != want {
			t.Errorf("%s %s: %s %q, want %s", e.Kind, e.EventID, c.Verdict, c.Reason, want)
		}
	}
	verdict(&api.Event{EventID: "wd-done", Kind: api.EventWithdrawalCompleted, ID: "wd-1", WithdrawalID: "wd-1", Amount: 1000}, VerdictConfirmed)
	verdict(&api.Event{EventID: "wd-lie", Kind: api.EventWithdrawalReversed, ID: "wd-1", WithdrawalID: "wd-1", Amount: 1000}, VerdictDisputed)
	verdict(&api.Event{EventID: "wd-other", Kind: api.EventWithdrawalFailed, ID: "wd-9", WithdrawalID: "wd-9"}, VerdictUnknown)
	evs, err := s.WithdrawalEvents(ctx, "principal", "wd-1")
	if err != nil || len(evs) != 1 || evs[0].Kind != api.EventWithdrawalCompleted {
		t.Fatalf("events that move wd-1: %+v %v", evs, err)
	}

	block := func(id, kind, wallet, blk string, amount api.Money) *api.Event {
		return &api.Event{EventID: id, Kind: api.EventKind(kind), SubAccount: wallet, ID: blk, Amount: amount}
	}
	verdict(block("blk-real", "balance_block_created", "", "blk-1", 800), VerdictConfirmed)
	verdict(block("blk-phantom", "balance_block_created", "+SUM(1)", "blk-x", 100), VerdictUnknown)
	verdict(block("blk-nowallet", "balance_block_created", "loja-zz", "blk-x", 100), VerdictUnknown)
	verdict(block("blk-never", "balance_block_created", "loja-a", "blk-x", 100), VerdictUnknown)
	verdict(block("blk-approved", "balance_block_approved", "", "blk-1", 800), VerdictDisputed)
	verdict(block("blk-amount", "balance_block_created", "", "blk-1", 80000), VerdictDisputed)
	if len(r.calls) == 0 {
		t.Fatal("nothing was read back")
	}

	cl, err := s.CloseDay(ctx, CloseQuery{Day: Days(now, 1, time.Local), Wallets: []string{"principal"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Wallets) != 1 || cl.Wallets[0].Wallet != "principal" || cl.Total.BlocksOpened != 1 || cl.Total.BlocksResolved != 0 {
		t.Fatalf("close: %d wallets, blocks %d/%d: %+v", len(cl.Wallets), cl.Total.BlocksOpened, cl.Total.BlocksResolved, cl.Wallets)
	}
}

// Migration 0007: fees stored before it all came from payment_completed events; they move to
// feeReported (an impossible one is dropped) and out of the totals, which use the estimate.
func TestMigrationFeeReported(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName("p"))
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range migrationFiles()[:6] {
		body, err := migrations.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body) + fmt.Sprintf("; PRAGMA user_version = %d", i+1)); err != nil {
			t.Fatal(name, err)
		}
	}
	now := time.Now()
	for i, c := range []struct {
		id  string
		fee int64
		doc string
	}{
		{"ok", 99, `{"id":"ok","amount":12.34,"status":"completed","fee":0.99}`},
		{"lie", -50000, `{"id":"lie","amount":12.34,"status":"completed","fee":-500.00}`},
	} {
		if _, err := db.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, paid_at, updated_at, hay, doc, fee) VALUES (?, ?, 'principal', 'paid', 1234, ?, ?, ?, ?, ?, ?)`,
			i+1, c.id, now.UnixMilli(), now.UnixMilli(), now.UnixMilli(), c.id, c.doc, c.fee); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	s, err := Open(ctx, dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, _ := chargeT(t, s, "ok"); c.Fee != nil || c.FeeReported == nil || *c.FeeReported != 99 {
		t.Errorf("ok: fee %v reported %v", c.Fee, c.FeeReported)
	}
	if c, _ := chargeT(t, s, "lie"); c.Fee != nil || c.FeeReported != nil {
		t.Errorf("lie: fee %v reported %v", c.Fee, c.FeeReported)
	}
	if day := todayT(t, s); day.Total.Paid != 2 || day.Total.Fees != 2*99 || day.Total.FeesEstimated != 2 {
		t.Errorf("the day after the migration: %+v", day.Total)
	}
}
