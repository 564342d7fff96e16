package state

import (
	"testing"
	"time"

	"pixdash/api"
)

func TestChargeOutcome(t *testing.T) {
	paidAt := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	paid := Charge{ID: "c", Amount: 5000, Status: api.StatusCompleted, PaidAt: &paidAt}
	with := func(f func(c *Charge)) Charge { c := paid; f(&c); return c }
	for _, tc := range []struct {
		name string
		c    Charge
		want Outcome
	}{
		{"paid", paid, Outcome{State: StatePaid}},
		{"refunded", with(func(c *Charge) { c.Refunded = 3550 }), Outcome{StateRefunded, 3550}},
		{"open MED block", with(func(c *Charge) { c.Block = &Block{ID: "b", Amount: 2000, Status: api.BlockAwaitingResponse} }), Outcome{StateBlocked, 2000}},
		{"defended MED block", with(func(c *Charge) { c.Block = &Block{ID: "b", Status: api.BlockDefended} }), Outcome{StateBlocked, 5000}},
		{"MED block approved: returned", with(func(c *Charge) { c.Block = &Block{ID: "b", Amount: 5000, Status: api.BlockApproved} }), Outcome{StateReturned, 5000}},
		{"MED block rejected: paid", with(func(c *Charge) { c.Block = &Block{ID: "b", Amount: 5000, Status: api.BlockRejected} }), Outcome{State: StatePaid}},
		{"returned wins over refunded", with(func(c *Charge) {
			c.Refunded = 100
			c.Block = &Block{ID: "b", Amount: 4900, Status: api.BlockApproved}
		}), Outcome{StateReturned, 4900}},
		{"refunded wins over an open block", with(func(c *Charge) {
			c.Refunded = 5000
			c.Block = &Block{ID: "b", Amount: 5000, Status: api.BlockAwaitingResponse}
		}), Outcome{StateRefunded, 5000}},
		{"pending", Charge{Status: api.StatusPending}, Outcome{State: StatePending}},
		{"not found", Charge{Status: api.StatusPending, NotFound: true}, Outcome{State: StateNotFound}},
		{"failed stays failed", Charge{Status: api.StatusFailed, Refunded: 10}, Outcome{State: StateFailed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Outcome(); got != tc.want {
				t.Fatalf("Outcome = %+v, want %+v", got, tc.want)
			}
			if got := tc.c.State(); got != tc.want.State {
				t.Fatalf("State = %s, want %s", got, tc.want.State)
			}
		})
	}
}

// A refund the service confirmed (its refund line read back) makes the charge refunded
// everywhere the store answers: the charge, the list's filter and counts; the payment still
// counts as received in the day's figures, and the refund is subtracted once.
func TestConfirmedRefundIsTheChargesOutcome(t *testing.T) {
	s, clk := seedDay(t)
	for id, want := range map[string]Outcome{
		"p1": {StateRefunded, 3000},
		"c4": {StateRefunded, 6000},
		"r4": {StateRefunded, 2200},
		"p2": {State: StatePaid},
	} {
		c, ok, err := s.Charge(ctx, id)
		if err != nil || !ok {
			t.Fatalf("Charge %s: %v %v", id, ok, err)
		}
		if got := c.Outcome(); got != want {
			t.Errorf("%s: Outcome = %+v, want %+v", id, got, want)
		}
	}
	// An unconfirmed refund_completed changes nothing; once confirmed, the charge is refunded.
	if _, err := s.UpsertCharge(ctx, dayPaid("u1", api.WalletPrincipal, 4000, sp(t, 24, 9, 0), sp(t, 24, 9, 1), nil)); err != nil {
		t.Fatal(err)
	}
	receiveAt(t, s, clk, sp(t, 24, 15, 0), refundPayload("evt-ref-u1", "", "ref-u1", "u1", "40.00", "", sp(t, 24, 15, 0)))
	if c, _, _ := s.Charge(ctx, "u1"); c.State() != StatePaid {
		t.Fatalf("unconfirmed refund: state %s, want paid", c.State())
	}
	if err := s.SetEventVerdict(ctx, "evt-ref-u1", VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	c, _, _ := s.Charge(ctx, "u1")
	if got := c.Outcome(); got != (Outcome{StateRefunded, 4000}) {
		t.Fatalf("confirmed refund: %+v", got)
	}
	if p, ok := s.Peek("u1"); ok && p.State() != StateRefunded {
		t.Fatalf("Peek: %s", p.State())
	}
	page, err := s.ChargeWindow(ctx, ChargeQuery{Status: FilterRefunded}, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 5 { // p1, c4, c5, r4, u1
		t.Fatalf("refunded filter: %d charges, want 5", page.Total)
	}
	counts, err := s.Counts(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if counts[StateRefunded].N != 5 {
		t.Fatalf("counts: %+v", counts)
	}
	r, err := s.DayReport(ctx, DayQuery{Period: Days(sp(t, 24, 15, 30), 1, s.loc), NoBuckets: true})
	if err != nil {
		t.Fatal(err)
	}
	// Today: p1 p2 p5 p7 c1 r1 u1 received; refunds c4 p1 u1 (a refund counted once).
	if r.Total.Paid != 7 || r.Total.Refunded != 3 || r.Total.RefundedAmount != 6000+3000+4000 {
		t.Fatalf("day: paid %d refunded %d (%d)", r.Total.Paid, r.Total.Refunded, r.Total.RefundedAmount)
	}
}

// A MED block recorded from GET /balance-blocks shows the payment blocked while open, returned
// once approved, paid again once rejected; untracked charges are skipped.
func TestRecordBlocks(t *testing.T) {
	s, _ := seedDay(t)
	at := sp(t, 24, 14, 0)
	b := api.BalanceBlock{ID: "blk-1", TransactionID: "p2", Amount: 5000, Status: api.BlockAwaitingResponse, CreatedAt: at}
	n, err := s.RecordBlocks(ctx, []api.BalanceBlock{b, {ID: "blk-x", TransactionID: "nope", Amount: 1, Status: api.BlockApproved}})
	if err != nil || n != 1 {
		t.Fatalf("RecordBlocks = %d, %v", n, err)
	}
	check := func(want Outcome) {
		t.Helper()
		c, _, _ := s.Charge(ctx, "p2")
		if got := c.Outcome(); got != want {
			t.Fatalf("Outcome = %+v, want %+v", got, want)
		}
	}
	check(Outcome{StateBlocked, 5000})
	b.Status = api.BlockApproved
	if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{b}); err != nil {
		t.Fatal(err)
	}
	check(Outcome{StateReturned, 5000})
	counts, _ := s.Counts(ctx, "")
	if counts[StateReturned].N != 1 {
		t.Fatalf("counts: %+v", counts)
	}
	// An older block named later does not replace the newer one.
	old := api.BalanceBlock{ID: "blk-0", TransactionID: "p2", Amount: 5000, Status: api.BlockRejected, CreatedAt: at.Add(-time.Hour)}
	if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{old}); err != nil {
		t.Fatal(err)
	}
	check(Outcome{StateReturned, 5000})
	b.Status = api.BlockRejected
	if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{b}); err != nil {
		t.Fatal(err)
	}
	check(Outcome{State: StatePaid})
}

// A charge the service answers 404 for is marked not-found only after NotFoundMisses in a row
// over NotFoundAfter; it then leaves the poll schedule. An answer resets the count.
func TestMarkMissing(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	s := OpenMemory(WithClock(clk.now), WithLocation(time.UTC))
	t.Cleanup(func() { _ = s.Close() })
	c := Charge{ID: "gone", Amount: 1000, Status: api.StatusPending, CreatedAt: clk.now(), ExpiresAt: clk.now().Add(24 * time.Hour), UpdatedAt: clk.now()}
	if _, err := s.UpsertCharge(ctx, c); err != nil {
		t.Fatal(err)
	}
	<-s.Ready()
	miss := func() Charge {
		t.Helper()
		c, ok, err := s.MarkMissing(ctx, "gone")
		if err != nil || !ok {
			t.Fatalf("MarkMissing: %v %v", ok, err)
		}
		return c
	}
	for range NotFoundMisses {
		clk.add(10 * time.Second)
		if c := miss(); c.NotFound || c.State() != StatePending {
			t.Fatalf("not found after a few seconds: %+v", c)
		}
	}
	// The service answers: the count starts again.
	if _, _, err := s.ApplyTransaction(ctx, &api.Transaction{ID: "gone", Status: api.StatusPending, Amount: 1000}); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := s.Charge(ctx, "gone"); c.Missing != 0 {
		t.Fatalf("Missing after an answer = %d", c.Missing)
	}
	for i := range NotFoundMisses + 3 {
		clk.add(time.Minute)
		c := miss()
		if want := i+1 >= NotFoundMisses && time.Duration(i)*time.Minute >= NotFoundAfter; c.NotFound != want {
			t.Fatalf("miss %d: NotFound = %v, want %v", i+1, c.NotFound, want)
		}
		if c.NotFound {
			if c.State() != StateNotFound || !c.Final() {
				t.Fatalf("state %s final %v", c.State(), c.Final())
			}
			break
		}
	}
	clk.add(time.Hour)
	if due := s.DuePolls(clk.now(), "", 10); len(due) != 0 {
		t.Fatalf("a not-found charge is still polled: %v", due)
	}
	if _, ok, _ := s.MarkMissing(ctx, "gone"); !ok {
		t.Fatal("tracked")
	}
	counts, _ := s.Counts(ctx, "")
	if counts[StateNotFound].N != 1 || counts[StatePending].N != 0 {
		t.Fatalf("counts: %+v", counts)
	}
}

// A database whose refunds were confirmed before charges kept them (an older pixdash) gets
// them on its charges once, when opened.
func TestBackfillRefunds(t *testing.T) {
	s, clk := seedDay(t)
	if _, err := s.UpsertCharge(ctx, dayPaid("old", api.WalletPrincipal, 4000, sp(t, 24, 9, 0), sp(t, 24, 9, 1), nil)); err != nil {
		t.Fatal(err)
	}
	receiveAt(t, s, clk, sp(t, 24, 15, 0), refundPayload("evt-ref-old", "", "ref-old", "old", "40.00", "", sp(t, 24, 15, 0)))
	// As an older build left it: the verdict recorded, the charge still paid, no backfill mark.
	if _, err := s.wdb.ExecContext(ctx, `UPDATE events SET verdict = 'confirmed' WHERE event_id = 'evt-ref-old'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.ExecContext(ctx, `DELETE FROM meta WHERE key = 'refund_outcomes'`); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := s.Charge(ctx, "old"); c.State() != StatePaid {
		t.Fatalf("before: %s", c.State())
	}
	if err := s.backfillRefunds(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := s.Charge(ctx, "old"); c.Outcome() != (Outcome{StateRefunded, 4000}) {
		t.Fatalf("after: %+v", c.Outcome())
	}
	counts, _ := s.Counts(ctx, "")
	if counts[StateRefunded].N != 5 { // p1 c4 c5 r4 and old
		t.Fatalf("counts %+v", counts)
	}
	// Once: a second run reads nothing.
	var v string
	if err := s.rdb.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'refund_outcomes'`).Scan(&v); err != nil || v != "1" {
		t.Fatalf("mark %q %v", v, err)
	}
}
