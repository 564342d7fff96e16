package state

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"pixdash/api"
)

// blockPayload is a MED balance-block event (created, approved or rejected) of wallet sub.
func blockPayload(eventID string, kind api.EventKind, sub, blockID, txID string, at time.Time) string {
	subField := ""
	if sub != "" {
		subField = fmt.Sprintf(`"subAccount":%q,`, sub)
	}
	return fmt.Sprintf(`{"event":%q,"eventId":%q,"createdAt":%q,%s"data":{"id":%q,"transactionId":%q,"amount":10.00,"status":"awaiting_response","blockType":"MED"}}`,
		kind, eventID, at.Format(time.RFC3339Nano), subField, blockID, txID)
}

// seedClose adds to seedDay's history (see there) the withdrawals asked and the MED events:
//
//	withdrawals (requested at, state, amount, fee)
//	  w1 principal    24 09:00  completed  50.00  1.00
//	  w2 principal    24 10:00  failed     30.00  1.00
//	  w3 loja-centro  24 15:00  requested  20.00
//	  w4 loja-centro  23 18:00  completed  90.00  1.00  (yesterday)
//	  w5 loja-praia   24 11:00  reversed   10.00  0.50
//	  w6 loja-norte   24 08:00  refused     7.00        (a wallet with nothing else)
//	  w7 loja-centro  24 15:20  pending    15.00
//	  w8 principal    25 00:00  completed  40.00  1.00  (tomorrow)
//	MED events received at
//	  23 12:00  created   loja-praia (yesterday)
//	  24 11:00  created   principal
//	  24 11:30  created   loja-centro
//	  24 12:30  approved  loja-centro
//	  24 14:00  rejected  principal
//	  24 14:10  withdrawal_completed principal (not a block)
//	  25 00:00  approved  loja-praia (tomorrow)
func seedClose(t *testing.T) (*Store, *testClock) {
	t.Helper()
	s, clk := seedDay(t)
	for _, w := range []Withdrawal{
		{Key: "w1", Wallet: "principal", Amount: 5000, Fee: 100, State: WithdrawalCompleted, RequestedAt: sp(t, 24, 9, 0)},
		{Key: "w2", Wallet: "", Amount: 3000, Fee: 100, State: WithdrawalFailed, RequestedAt: sp(t, 24, 10, 0)},
		{Key: "w3", Wallet: "loja-centro", Amount: 2000, State: WithdrawalRequested, RequestedAt: sp(t, 24, 15, 0)},
		{Key: "w4", Wallet: "loja-centro", Amount: 9000, Fee: 100, State: WithdrawalCompleted, RequestedAt: sp(t, 23, 18, 0)},
		{Key: "w5", Wallet: "loja-praia", Amount: 1000, Fee: 50, State: WithdrawalReversed, RequestedAt: sp(t, 24, 11, 0)},
		{Key: "w6", Wallet: "loja-norte", Amount: 700, State: WithdrawalRefused, RequestedAt: sp(t, 24, 8, 0)},
		{Key: "w7", Wallet: "loja-centro", Amount: 1500, State: WithdrawalPending, RequestedAt: sp(t, 24, 15, 20)},
		{Key: "w8", Wallet: "principal", Amount: 4000, Fee: 100, State: WithdrawalCompleted, RequestedAt: sp(t, 25, 0, 0)},
	} {
		w.PixKeyType, w.PixKey, w.HolderName, w.HolderDocument = api.PixKeyType("cpf"), "12345678909", "Maria da Silva", "12345678909"
		if _, err := s.PutWithdrawal(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []struct {
		at      time.Time
		payload string
	}{
		{sp(t, 23, 12, 0), blockPayload("evt-blk-0", api.EventBalanceBlockCreated, "loja-praia", "blk-0", "r4", sp(t, 23, 12, 0))},
		{sp(t, 24, 11, 0), blockPayload("evt-blk-1", api.EventBalanceBlockCreated, "", "blk-1", "p1", sp(t, 24, 11, 0))},
		{sp(t, 24, 11, 30), blockPayload("evt-blk-2", api.EventBalanceBlockCreated, "loja-centro", "blk-2", "c4", sp(t, 24, 11, 30))},
		{sp(t, 24, 12, 30), blockPayload("evt-blk-3", api.EventBalanceBlockApproved, "loja-centro", "blk-2", "c4", sp(t, 24, 12, 30))},
		{sp(t, 24, 14, 0), blockPayload("evt-blk-4", api.EventBalanceBlockRejected, "", "blk-1", "p1", sp(t, 24, 14, 0))},
		{sp(t, 24, 14, 10), `{"event":"withdrawal_completed","eventId":"evt-wd-1","createdAt":"2026-11-24T14:10:00-03:00","data":{"id":"wd-1","withdrawalId":"wd-1","amount":50.00,"status":"completed"}}`},
		{sp(t, 25, 0, 0), blockPayload("evt-blk-5", api.EventBalanceBlockApproved, "loja-praia", "blk-0", "r4", sp(t, 25, 0, 0))},
	} {
		receiveAt(t, s, clk, e.at, e.payload)
	}
	// The service lists every block as its event says (ConfirmEvent): only confirmed block
	// events count.
	for i := range 6 {
		if err := s.SetEventVerdict(ctx, fmt.Sprintf("evt-blk-%d", i), VerdictConfirmed, ""); err != nil {
			t.Fatal(err)
		}
	}
	clk.mu.Lock()
	clk.t = sp(t, 24, 15, 30)
	clk.mu.Unlock()
	return s, clk
}

func checkLines(t *testing.T, got, want []CloseLine) {
	t.Helper()
	if len(got) != len(want) {
		names := make([]string, len(got))
		for i, l := range got {
			names[i] = l.Wallet
		}
		t.Fatalf("%d lines %v, want %d", len(got), names, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d (%s):\n got %+v\nwant %+v", i, want[i].Wallet, got[i], want[i])
		}
	}
}

// Today's close at 15:30. The totals are TestDayReportToday's; the splits of today's payments:
// c1 as distributed (40.00 → praia, 10.00 → principal, not the 50.00 asked), r1 as asked
// (5.00 → centro; its leg to itself is not a transfer), p1 distributed nothing (not the 20.00
// asked); c4 was paid yesterday and r2 is pending.
func TestCloseDay(t *testing.T) {
	s, _ := seedClose(t)
	day := Days(s.now(), 1, s.loc)
	r, err := s.CloseDay(ctx, CloseQuery{Day: day, Wallets: []string{"", "loja-centro", "loja-praia", "loja-vazia"}, Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || !r.Made.Equal(sp(t, 24, 15, 30)) || r.Day != day || r.Profile != s.profile || r.FeeEstimate != 80 || !r.HasFeeEstimate {
		t.Errorf("Partial %v Made %v Day %v Profile %q FeeEstimate %d/%v", r.Partial, r.Made, r.Day, r.Profile, r.FeeEstimate, r.HasFeeEstimate)
	}
	want := []CloseLine{
		{Totals: wantTodayPrincipal, Withdrawals: 2, WithdrawalsCompleted: 1, WithdrawalsFailed: 1, WithdrawnGross: 5000, WithdrawalFees: 100,
			BlocksOpened: 1, BlocksResolved: 1, SplitReceivedN: 1, SplitReceived: 1000},
		{Totals: wantTodayCentro, Withdrawals: 2, BlocksOpened: 1, BlocksResolved: 1,
			SplitSentN: 2, SplitSent: 5000, SplitReceivedN: 1, SplitReceived: 500},
		// loja-norte's only withdrawal (w6) was refused when asked: it never existed, and
		// the wallet had nothing else that day.
		{Totals: wantTodayPraia, Withdrawals: 1, WithdrawalsFailed: 1, SplitSentN: 1, SplitSent: 500, SplitReceivedN: 1, SplitReceived: 4000},
		{Totals: Totals{Wallet: "loja-vazia"}},
	}
	checkLines(t, r.Wallets, want)
	wantTotal := CloseLine{Totals: wantTodayTotal, Withdrawals: 5, WithdrawalsCompleted: 1, WithdrawalsFailed: 2, WithdrawnGross: 5000, WithdrawalFees: 100,
		BlocksOpened: 2, BlocksResolved: 2, SplitSentN: 3, SplitReceivedN: 3, SplitSent: 5500, SplitReceived: 5500}
	if r.Total != wantTotal {
		t.Errorf("Total:\n got %+v\nwant %+v", r.Total, wantTotal)
	}
	if r.Total.Net() != 49341 || r.Total.AfterRefunds() != 40341 {
		t.Errorf("Total Net %d AfterRefunds %d, want 49341, 40341", r.Total.Net(), r.Total.AfterRefunds())
	}
}

// A day already over is not partial; the figures are the whole day's.
func TestCloseDayYesterday(t *testing.T) {
	s, _ := seedClose(t)
	r, err := s.CloseDay(ctx, CloseQuery{Day: Days(sp(t, 23, 12, 0), 1, s.loc), Wallets: []string{"loja-vazia"}, Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Partial {
		t.Error("yesterday's close is partial")
	}
	// principal: created p5 p6 (both paid now); paid p6 40.00 fee 0.99; c4's leg of 10.00 (as asked).
	// centro: created and paid c4 (fee 0.60) and c5 (estimated 0.80); c5's refund at 17:00;
	//   w4 completed; c4's leg.
	// praia: created r3 (expired) and r4 (paid, fee 0.22); r4's refund; the block at 12:00.
	want := []CloseLine{
		{Totals: Totals{Wallet: "principal", Created: 2, Paid: 1, Gross: 4000, Fees: 99}, SplitReceivedN: 1, SplitReceived: 1000},
		{Totals: Totals{Wallet: "loja-centro", Created: 2, Paid: 2, Gross: 13000, Fees: 140, FeesEstimated: 1, Refunded: 1, RefundedAmount: 7000},
			Withdrawals: 1, WithdrawalsCompleted: 1, WithdrawnGross: 9000, WithdrawalFees: 100, SplitSentN: 1, SplitSent: 1000},
		{Totals: Totals{Wallet: "loja-praia", Created: 2, Paid: 1, Gross: 2200, Fees: 22, Expired: 1, Refunded: 1, RefundedAmount: 2200, RefundFeesReported: 20},
			BlocksOpened: 1},
		{Totals: Totals{Wallet: "loja-vazia"}},
	}
	checkLines(t, r.Wallets, want)
	wantTotal := CloseLine{Totals: Totals{Created: 6, Paid: 4, Gross: 19200, Fees: 261, FeesEstimated: 1, Expired: 1, Refunded: 2, RefundedAmount: 9200, RefundFeesReported: 20},
		Withdrawals: 1, WithdrawalsCompleted: 1, WithdrawnGross: 9000, WithdrawalFees: 100, BlocksOpened: 1,
		SplitSentN: 1, SplitSent: 1000, SplitReceivedN: 1, SplitReceived: 1000}
	if r.Total != wantTotal {
		t.Errorf("Total:\n got %+v\nwant %+v", r.Total, wantTotal)
	}
}

// The close is partial until the day's last millisecond has passed.
func TestCloseDayPartial(t *testing.T) {
	s, clk := seedClose(t)
	day := Days(sp(t, 24, 12, 0), 1, s.loc)
	for _, tc := range []struct {
		now     time.Time
		partial bool
	}{
		{sp(t, 24, 0, 0), true},
		{sp(t, 24, 15, 30), true},
		{spMs(t, 24, 23, 59, 59, 999), true},
		{sp(t, 25, 0, 0), false},
		{sp(t, 26, 9, 0), false},
	} {
		clk.mu.Lock()
		clk.t = tc.now
		clk.mu.Unlock()
		r, err := s.CloseDay(ctx, CloseQuery{Day: day})
		if err != nil {
			t.Fatal(err)
		}
		if r.Partial != tc.partial || !r.Made.Equal(tc.now) {
			t.Errorf("at %v: Partial %v Made %v, want %v", tc.now, r.Partial, r.Made, tc.partial)
		}
		// The figures do not depend on when the close is made.
		if r.Total.Paid != 6 || r.Total.Gross != 50000 || r.Total.FeesEstimated != 3 || r.Total.Fees != 419 || r.Total.Withdrawals != 5 {
			t.Errorf("at %v: Total %+v", tc.now, r.Total)
		}
	}
}

func balMoney(m api.Money) *api.Money { return &m }

func TestCloseSetBalance(t *testing.T) {
	s, _ := seedClose(t)
	r, err := s.CloseDay(ctx, CloseQuery{Day: Days(s.now(), 1, s.loc), Wallets: []string{"loja-vazia", "loja-norte"}})
	if err != nil {
		t.Fatal(err)
	}
	// principal, loja-centro, loja-norte, loja-praia, loja-vazia
	if len(r.Wallets) != 5 || r.Total.Balance != nil {
		t.Fatalf("%d wallets, total balance %+v", len(r.Wallets), r.Total.Balance)
	}
	r.SetBalance("principal", &api.AccountBalance{Available: balMoney(10000), Held: balMoney(500), Total: balMoney(10500)}, "")
	if r.Wallets[0].Balance == nil || *r.Wallets[0].Balance.Available != 10000 || r.Total.Balance != nil {
		t.Fatalf("one balance of five: principal %+v, total %+v (want nil)", r.Wallets[0].Balance, r.Total.Balance)
	}
	r.SetBalance("loja-centro", &api.AccountBalance{Available: balMoney(2000), Held: balMoney(0), Total: balMoney(2000)}, "")
	r.SetBalance("loja-norte", &api.AccountBalance{Available: balMoney(0), Held: balMoney(0), Total: balMoney(0)}, "")
	r.SetBalance("loja-praia", &api.AccountBalance{Available: balMoney(4000), Held: balMoney(1000), Total: balMoney(5000)}, "")
	r.SetBalance("loja-vazia", nil, "timeout")
	if r.Total.Balance != nil || r.Wallets[4].BalanceErr != "timeout" || r.Wallets[4].Balance != nil {
		t.Fatalf("a wallet's balance failed: total %+v, loja-vazia %+v %q", r.Total.Balance, r.Wallets[4].Balance, r.Wallets[4].BalanceErr)
	}
	// A wallet the report does not list changes nothing.
	r.SetBalance("loja-x", &api.AccountBalance{Available: balMoney(1)}, "")
	if r.Total.Balance != nil || len(r.Wallets) != 5 {
		t.Fatalf("loja-x: total %+v, %d wallets", r.Total.Balance, len(r.Wallets))
	}
	// loja-vazia read again, without a held figure: the sum has no held figure either.
	r.SetBalance("loja-vazia", &api.AccountBalance{Available: balMoney(100), Total: balMoney(100)}, "")
	b := r.Total.Balance
	if r.Wallets[4].BalanceErr != "" {
		t.Errorf("loja-vazia keeps the error %q", r.Wallets[4].BalanceErr)
	}
	if b == nil || b.Available == nil || *b.Available != 16100 || b.Held != nil || b.Total == nil || *b.Total != 17600 {
		t.Fatalf("total balance %+v, want available 16100, no held, total 17600", b)
	}
	if r.Total.BalanceErr != "" {
		t.Errorf("total BalanceErr %q", r.Total.BalanceErr)
	}
	// Every held figure known: held sums too. A balance without available drops the total.
	r.SetBalance("loja-vazia", &api.AccountBalance{Available: balMoney(100), Held: balMoney(25), Total: balMoney(125)}, "")
	if b := r.Total.Balance; b == nil || *b.Available != 16100 || b.Held == nil || *b.Held != 1525 || *b.Total != 17625 {
		t.Fatalf("total balance %+v, want 16100 / 1525 / 17625", b)
	}
	r.SetBalance("loja-norte", &api.AccountBalance{Held: balMoney(0)}, "")
	if r.Total.Balance != nil {
		t.Errorf("a balance without available: total %+v, want nil", r.Total.Balance)
	}
}

func TestCloseDayEmpty(t *testing.T) {
	s := OpenMemory(WithClock(func() time.Time { return sp(t, 24, 15, 30) }), WithLocation(mustZone(t, "America/Sao_Paulo")))
	defer s.Close()
	day := Days(s.now(), 1, s.loc)
	r, err := s.CloseDay(ctx, CloseQuery{Day: day, Wallets: []string{"loja-b", "principal", "loja-a"}})
	if err != nil {
		t.Fatal(err)
	}
	checkLines(t, r.Wallets, []CloseLine{{Totals: Totals{Wallet: "principal"}}, {Totals: Totals{Wallet: "loja-a"}}, {Totals: Totals{Wallet: "loja-b"}}})
	if r.Total != (CloseLine{}) || !r.Partial {
		t.Errorf("Total %+v Partial %v", r.Total, r.Partial)
	}
	r, err = s.CloseDay(ctx, CloseQuery{Day: day})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wallets) != 0 || r.Total.Balance != nil {
		t.Errorf("no wallet: %+v", r.Wallets)
	}
	r.SetBalance("principal", &api.AccountBalance{Available: balMoney(1)}, "")
	if r.Total.Balance != nil {
		t.Errorf("no wallet: total balance %+v", r.Total.Balance)
	}
	if _, err := s.CloseDay(ctx, CloseQuery{Day: Period{From: day.To, To: day.From}}); !errors.Is(err, ErrBadPeriod) {
		t.Errorf("reversed day: %v", err)
	}
}
