package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // the zones below without the system's zone database

	"pixdash/api"
)

// The merchant's day of these tests: São Paulo (no DST since 2019, -03:00), the clock at
// 2026-11-24 15:30. Every expected figure below is computed by hand from the seed (seedDay's
// table) and written as a literal.

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("zone %s: %v", name, err)
	}
	return loc
}

// sp is 2026-11-d h:m in São Paulo; spMs adds seconds and milliseconds.
func sp(t testing.TB, d, h, m int) time.Time { return spMs(t, d, h, m, 0, 0) }

func spMs(t testing.TB, d, h, m, s, ms int) time.Time {
	return time.Date(2026, time.November, d, h, m, s, ms*int(time.Millisecond), mustZone(t, "America/Sao_Paulo"))
}

func feeOf(m api.Money) *api.Money { return &m }

// dayPaid is a charge created at created and paid at paid (fee: the service's, nil when it
// reported none).
func dayPaid(id, wallet string, amount api.Money, created, paid time.Time, fee *api.Money) Charge {
	return Charge{ID: id, Wallet: wallet, Amount: amount, Status: api.StatusCompleted, CreatedAt: created,
		ExpiresAt: created.Add(time.Hour), PaidAt: &paid, Fee: fee, UpdatedAt: paid, Source: SourceCreated}
}

// dayOpen is a charge created at created that is, now, in status (expired: ended by expiry).
func dayOpen(id, wallet string, amount api.Money, created time.Time, status api.TxStatus, expired bool) Charge {
	c := Charge{ID: id, Wallet: wallet, Amount: amount, Status: status, Expired: expired, CreatedAt: created,
		ExpiresAt: created.Add(time.Hour), UpdatedAt: created, Source: SourceCreated}
	if status != api.StatusPending {
		c.UpdatedAt = created.Add(time.Hour)
	}
	return c
}

// receiveAt records a webhook payload as received at at (the store's clock at intake).
func receiveAt(t testing.TB, s *Store, clk *testClock, at time.Time, payload string) {
	t.Helper()
	e, err := api.DecodeEvent([]byte(payload))
	if err != nil {
		t.Fatalf("decode %s: %v", payload, err)
	}
	clk.mu.Lock()
	clk.t = at
	clk.mu.Unlock()
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatalf("ApplyEvent %s: %v", payload, err)
	}
}

// refundPayload is a refund_completed of charge txID in wallet (sub "" is the principal).
func refundPayload(eventID, sub, refundID, txID, amount, fee string, at time.Time) string {
	subField := ""
	if sub != "" {
		subField = fmt.Sprintf(`"subAccount":%q,`, sub)
	}
	feeField := ""
	if fee != "" {
		feeField = `,"feeAmount":` + fee
	}
	return fmt.Sprintf(`{"event":"refund_completed","eventId":%q,"createdAt":%q,%s"data":{"id":%q,"transactionId":%q,"amount":%s,"netAmount":%s%s}}`,
		eventID, at.Format(time.RFC3339Nano), subField, refundID, txID, amount, amount, feeField)
}

// seedDay opens a store in São Paulo with the clock at 2026-11-24 15:30 and this history
// (amounts in reais; "fee" is the service's, "est" none reported):
//
//	principal
//	  p1   created 24 09:10  paid 24 09:12            100.00  fee 0.99  split asked 20.00 → centro, distributed nothing
//	  p2   created 24 09:40  paid 24 09:45             50.00  est
//	  p3   created 24 10:05  pending                   30.00
//	  p4   created 24 11:00  expired (cancelled)       20.00
//	  p5   created 23 22:00  paid 24 08:30             80.00  fee 1.20  (yesterday's charge paid today)
//	  p6   created 23 23:50  paid 23 23:59:59.999      40.00  fee 0.99  (yesterday, not today)
//	  p7   created 24 23:50  paid 24 23:59:59.999      25.00  est       (today's last millisecond)
//	  p8   created 24 23:55  paid 25 00:00:00.000      35.00  fee 0.50  (created today, paid tomorrow)
//	  p9   created 17 10:00  paid 17 10:05             11.00  fee 0.11  (the week before, before 15:30)
//	  p10  created 17 16:00  paid 17 16:05             13.00  est       (the week before, after 15:30)
//	loja-centro
//	  c1   created 24 12:00  paid 24 12:01            200.00  fee 2.00  split asked 50.00 → praia,
//	                                                                    distributed 40.00 → praia + 10.00 → principal
//	  c2   created 24 13:00  failed                    15.00
//	  c3   created 24 14:00  cancelled                 12.00
//	  c4   created 23 10:00  paid 23 10:05             60.00  fee 0.60  split asked 10.00 → principal (yesterday)
//	  c5   created 23 16:00  paid 23 16:10             70.00  est       (yesterday after 15:30)
//	loja-praia
//	  r1   created 24 14:30  paid 24 14:31             45.00  est       split asked 5.00 → centro, 1.00 → itself
//	  r2   created 24 15:00  pending                    9.90            split asked 1.00 → principal
//	  r3   created 23 08:00  expired (cancelled)       10.00
//	  r4   created 23 09:00  paid 23 09:30             22.00  fee 0.22
//
// and these refund_completed events, received at:
//
//	23 11:00  r4  22.00 fee 0.20  (praia)
//	23 17:00  c5  70.00 no fee    (centro, yesterday after 15:30)
//	24 10:00  c4  60.00 fee 0.50  (centro: a payment of yesterday refunded today)
//	24 10:05  c4  60.00 fee 0.50  (the same refund again, another eventId: counted once)
//	24 13:00  p1  30.00 fee 0.30  (principal, partial)
//
// The fee estimate of the queries is 0.80.
func seedDay(t testing.TB) (*Store, *testClock) {
	t.Helper()
	clk := &testClock{t: sp(t, 24, 15, 30)}
	s := OpenMemory(WithClock(clk.now), WithLocation(mustZone(t, "America/Sao_Paulo")))
	t.Cleanup(func() { _ = s.Close() })

	const centro, praia = "loja-centro", "loja-praia"
	p1 := dayPaid("p1", api.WalletPrincipal, 10000, sp(t, 24, 9, 10), sp(t, 24, 9, 12), feeOf(99))
	p1.SplitRequested = []api.SplitItem{{SubAccount: centro, Amount: 2000}}
	p1.HasDistributed = true
	c1 := dayPaid("c1", centro, 20000, sp(t, 24, 12, 0), sp(t, 24, 12, 1), feeOf(200))
	c1.SplitRequested = []api.SplitItem{{SubAccount: praia, Amount: 5000}}
	c1.HasDistributed = true
	c1.SplitDistributed = []api.SplitItem{{SubAccount: praia, Amount: 4000}, {SubAccount: api.WalletPrincipal, Amount: 1000}}
	c4 := dayPaid("c4", centro, 6000, sp(t, 23, 10, 0), sp(t, 23, 10, 5), feeOf(60))
	c4.SplitRequested = []api.SplitItem{{SubAccount: api.WalletPrincipal, Amount: 1000}}
	r1 := dayPaid("r1", praia, 4500, sp(t, 24, 14, 30), sp(t, 24, 14, 31), nil)
	r1.SplitRequested = []api.SplitItem{{SubAccount: centro, Amount: 500}, {SubAccount: praia, Amount: 100}}
	r2 := dayOpen("r2", praia, 990, sp(t, 24, 15, 0), api.StatusPending, false)
	r2.SplitRequested = []api.SplitItem{{SubAccount: api.WalletPrincipal, Amount: 100}}

	for _, c := range []Charge{
		p1,
		dayPaid("p2", api.WalletPrincipal, 5000, sp(t, 24, 9, 40), sp(t, 24, 9, 45), nil),
		dayOpen("p3", api.WalletPrincipal, 3000, sp(t, 24, 10, 5), api.StatusPending, false),
		dayOpen("p4", api.WalletPrincipal, 2000, sp(t, 24, 11, 0), api.StatusCancelled, true),
		dayPaid("p5", api.WalletPrincipal, 8000, sp(t, 23, 22, 0), sp(t, 24, 8, 30), feeOf(120)),
		dayPaid("p6", api.WalletPrincipal, 4000, sp(t, 23, 23, 50), spMs(t, 23, 23, 59, 59, 999), feeOf(99)),
		dayPaid("p7", api.WalletPrincipal, 2500, sp(t, 24, 23, 50), spMs(t, 24, 23, 59, 59, 999), nil),
		dayPaid("p8", api.WalletPrincipal, 3500, sp(t, 24, 23, 55), sp(t, 25, 0, 0), feeOf(50)),
		dayPaid("p9", api.WalletPrincipal, 1100, sp(t, 17, 10, 0), sp(t, 17, 10, 5), feeOf(11)),
		dayPaid("p10", api.WalletPrincipal, 1300, sp(t, 17, 16, 0), sp(t, 17, 16, 5), nil),
		c1,
		dayOpen("c2", centro, 1500, sp(t, 24, 13, 0), api.StatusFailed, false),
		dayOpen("c3", centro, 1200, sp(t, 24, 14, 0), api.StatusCancelled, false),
		c4,
		dayPaid("c5", centro, 7000, sp(t, 23, 16, 0), sp(t, 23, 16, 10), nil),
		r1,
		r2,
		dayOpen("r3", praia, 1000, sp(t, 23, 8, 0), api.StatusCancelled, true),
		dayPaid("r4", praia, 2200, sp(t, 23, 9, 0), sp(t, 23, 9, 30), feeOf(22)),
	} {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatalf("UpsertCharge %s: %v", c.ID, err)
		}
	}
	for _, e := range []struct {
		at      time.Time
		payload string
	}{
		{sp(t, 23, 11, 0), refundPayload("evt-ref-r4", praia, "ref-r4", "r4", "22.00", "0.20", sp(t, 23, 11, 0))},
		{sp(t, 23, 17, 0), refundPayload("evt-ref-c5", centro, "ref-c5", "c5", "70.00", "", sp(t, 23, 17, 0))},
		{sp(t, 24, 10, 0), refundPayload("evt-ref-c4", centro, "ref-c4", "c4", "60.00", "0.50", sp(t, 24, 10, 0))},
		{sp(t, 24, 10, 5), refundPayload("evt-ref-c4-again", centro, "ref-c4", "c4", "60.00", "0.50", sp(t, 24, 10, 5))},
		{sp(t, 24, 13, 0), refundPayload("evt-ref-p1", "", "ref-p1", "p1", "30.00", "0.30", sp(t, 24, 13, 0))},
	} {
		receiveAt(t, s, clk, e.at, e.payload)
		// The service confirmed each refund line (ConfirmEvent's read-back).
		var ev struct {
			EventID string `json:"eventId"`
		}
		if err := json.Unmarshal([]byte(e.payload), &ev); err != nil {
			t.Fatal(err)
		}
		if err := s.SetEventVerdict(ctx, ev.EventID, VerdictConfirmed, ""); err != nil {
			t.Fatal(err)
		}
	}
	// A refund not read back yet and one the service disputes count nowhere.
	receiveAt(t, s, clk, sp(t, 24, 12, 0), refundPayload("evt-ref-unchecked", "", "ref-zz1", "zz1", "11.00", "", sp(t, 24, 12, 0)))
	receiveAt(t, s, clk, sp(t, 24, 12, 5), refundPayload("evt-ref-disputed", "", "ref-zz2", "zz2", "12.00", "", sp(t, 24, 12, 5)))
	if err := s.SetEventVerdict(ctx, "evt-ref-disputed", VerdictDisputed, Reason(ReasonStatus, "refund_completed", "pending")); err != nil {
		t.Fatal(err)
	}
	clk.mu.Lock()
	clk.t = sp(t, 24, 15, 30)
	clk.mu.Unlock()
	return s, clk
}

// checkTotals compares every field of got with want, and the derived figures with theirs.
// paymentsOf keeps the payment figures of t: what DayReport reads for the span before.
func paymentsOf(t Totals) Totals {
	return Totals{Wallet: t.Wallet, Paid: t.Paid, Gross: t.Gross, Fees: t.Fees, FeesEstimated: t.FeesEstimated}
}

func checkTotals(t *testing.T, name string, got, want Totals, net, afterRefunds, avg api.Money) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
	}
	if got.Net() != net || got.AfterRefunds() != afterRefunds || got.AverageTicket() != avg {
		t.Errorf("%s: Net, AfterRefunds, AverageTicket = %d, %d, %d; want %d, %d, %d",
			name, got.Net(), got.AfterRefunds(), got.AverageTicket(), net, afterRefunds, avg)
	}
}

// Today's figures (fee estimate 0.80):
//
//	principal: created p1 p2 p3 p4 p7 p8 = 6 (pending p3, expired p4); paid p5 p1 p2 p7 = 4,
//	  gross 80+100+50+25 = 255.00; fees 0.99+1.20 reported + 2×0.80 (p2, p7) = 3.79, 2
//	  estimated; net 251.21; refund p1 30.00 + 0.30 → 220.91; ticket 63.75
//	centro: created c1 c2 c3 = 3 (failed c2, cancelled c3); paid c1 200.00 fee 2.00; refund
//	  c4 60.00 + 0.50 once → 198.00 − 60.50 = 137.50; ticket 200.00
//	praia: created r1 r2 = 2 (pending r2); paid r1 45.00, fee 0.80 estimated; net 44.20
//	total: created 11, paid 6, gross 500.00, fees 6.59 (3 estimated), net 493.41, refunds 2,
//	  90.00 + 0.80 → 402.61; ticket 500.00/6 = 83.33
var (
	wantTodayPrincipal = Totals{Wallet: "principal", Created: 6, Paid: 4, Gross: 25500, Fees: 379, FeesEstimated: 2,
		Pending: 1, Expired: 1, Refunded: 1, RefundedAmount: 3000, RefundFeesReported: 30}
	wantTodayCentro = Totals{Wallet: "loja-centro", Created: 3, Paid: 1, Gross: 20000, Fees: 200,
		Failed: 1, Cancelled: 1, Refunded: 1, RefundedAmount: 6000, RefundFeesReported: 50}
	wantTodayPraia = Totals{Wallet: "loja-praia", Created: 2, Paid: 1, Gross: 4500, Fees: 80, FeesEstimated: 1, Pending: 1}
	wantTodayTotal = Totals{Created: 11, Paid: 6, Gross: 50000, Fees: 659, FeesEstimated: 3,
		Pending: 2, Expired: 1, Failed: 1, Cancelled: 1, Refunded: 2, RefundedAmount: 9000, RefundFeesReported: 80}
)

func TestDayReportToday(t *testing.T) {
	s, _ := seedDay(t)
	today := Period{From: sp(t, 24, 0, 0), To: sp(t, 25, 0, 0)}
	if got := Days(s.now(), 1, s.loc); !got.From.Equal(today.From) || !got.To.Equal(today.To) {
		t.Fatalf("Days(now, 1) = %v–%v, want %v–%v", got.From, got.To, today.From, today.To)
	}
	r, err := s.DayReport(ctx, DayQuery{Period: today, Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Query.Now.Equal(sp(t, 24, 15, 30)) {
		t.Errorf("Query.Now = %v, want the store's clock", r.Query.Now)
	}
	if r.Step != time.Hour {
		t.Errorf("Step = %v, want 1h", r.Step)
	}
	checkTotals(t, "Total", r.Total, wantTodayTotal, 49341, 40341, 8333)
	if len(r.Wallets) != 3 {
		t.Fatalf("Wallets = %+v, want principal, loja-centro, loja-praia", r.Wallets)
	}
	checkTotals(t, "principal", r.Wallets[0], wantTodayPrincipal, 25121, 22121, 6375)
	checkTotals(t, "loja-centro", r.Wallets[1], wantTodayCentro, 19800, 13800, 20000)
	checkTotals(t, "loja-praia", r.Wallets[2], wantTodayPraia, 4420, 4420, 4500)
	checkTotals(t, "Wallet(loja-praia)", r.Wallet("loja-praia"), wantTodayPraia, 4420, 4420, 4500)
	if got := r.Wallet("loja-norte"); got != (Totals{Wallet: "loja-norte"}) {
		t.Errorf("Wallet(loja-norte) = %+v, want zero", got)
	}
	if want := []string{"principal", "loja-centro", "loja-praia"}; !slices.Equal(r.Series, want) {
		t.Errorf("Series = %v, want %v", r.Series, want)
	}

	// 24 hourly buckets; payments at 08:30 (p5), 09:12 and 09:45 (p1, p2), 12:01 (c1), 14:31
	// (r1) and 23:59:59.999 (p7).
	if len(r.Buckets) != 24 {
		t.Fatalf("%d buckets, want 24", len(r.Buckets))
	}
	want := map[int]struct {
		gross []api.Money
		paid  []int
	}{
		8:  {[]api.Money{8000, 0, 0}, []int{1, 0, 0}},
		9:  {[]api.Money{15000, 0, 0}, []int{2, 0, 0}},
		12: {[]api.Money{0, 20000, 0}, []int{0, 1, 0}},
		14: {[]api.Money{0, 0, 4500}, []int{0, 0, 1}},
		23: {[]api.Money{2500, 0, 0}, []int{1, 0, 0}},
	}
	var sum api.Money
	for h, b := range r.Buckets {
		if !b.Start.Equal(sp(t, 24, h, 0)) || !b.End.Equal(sp(t, 24, h, 0).Add(time.Hour)) {
			t.Errorf("bucket %d = %v–%v", h, b.Start, b.End)
		}
		w, ok := want[h]
		if !ok {
			w.gross, w.paid = []api.Money{0, 0, 0}, []int{0, 0, 0}
		}
		if !slices.Equal(b.Gross, w.gross) || !slices.Equal(b.Paid, w.paid) {
			t.Errorf("bucket %02d:00: Gross %v Paid %v, want %v %v", h, b.Gross, b.Paid, w.gross, w.paid)
		}
		sum += b.Total()
	}
	if sum != 50000 || r.Buckets[9].Total() != 15000 {
		t.Errorf("buckets sum to %d (09:00: %d), want 50000 (15000)", sum, r.Buckets[9].Total())
	}
	if !r.Buckets[23].End.Equal(today.To) {
		t.Errorf("last bucket ends %v, want %v", r.Buckets[23].End, today.To)
	}

	// Yesterday until 15:30: c4 (paid 10:05, fee 0.60) and r4 (paid 09:30, fee 0.22) paid,
	// c4 r4 r3 created (r3 expired), r4's refund at 11:00. Not p6 (23:59:59.999), c5 (16:10,
	// and its refund at 17:00), p5 (created 22:00).
	wantPrev := Totals{Created: 3, Paid: 2, Gross: 8200, Fees: 82, Expired: 1, Refunded: 1, RefundedAmount: 2200, RefundFeesReported: 20}
	// Previous holds the payments only.
	wantPrev = paymentsOf(wantPrev)
	checkTotals(t, "Previous", r.Previous, wantPrev, 8118, 8118, 4100)
	if !r.PreviousPeriod.From.Equal(sp(t, 23, 0, 0)) || !r.PreviousPeriod.To.Equal(sp(t, 24, 0, 0)) {
		t.Errorf("PreviousPeriod = %v–%v, want the 23rd", r.PreviousPeriod.From, r.PreviousPeriod.To)
	}
}

// An explicit Now cuts the comparison there; a day already over is compared with the whole
// day before.
func TestDayReportPreviousCut(t *testing.T) {
	s, _ := seedDay(t)
	today := Period{From: sp(t, 24, 0, 0), To: sp(t, 25, 0, 0)}
	for _, tc := range []struct {
		name string
		now  time.Time
		want Totals
	}{
		// Until 09:45 yesterday: r4 (09:30) paid; r3, r4 created.
		{"09:45", sp(t, 24, 9, 45), Totals{Created: 2, Paid: 1, Gross: 2200, Fees: 22, Expired: 1}},
		// Until 10:05 yesterday: c4's payment at 10:05 is not before the cut; c4 created at 10:00 is.
		{"10:05", sp(t, 24, 10, 5), Totals{Created: 3, Paid: 1, Gross: 2200, Fees: 22, Expired: 1}},
		// The whole 23rd: p6 c4 c5 r4 paid (c5 estimated); created p5 p6 c4 c5 r3 r4; refunds of r4 and c5.
		{"day over", sp(t, 25, 8, 0), Totals{Created: 6, Paid: 4, Gross: 19200, Fees: 261, FeesEstimated: 1, Expired: 1,
			Refunded: 2, RefundedAmount: 9200, RefundFeesReported: 20}},
	} {
		r, err := s.DayReport(ctx, DayQuery{Period: today, Now: tc.now, Fee: 80, HasFee: true, NoBuckets: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Previous != paymentsOf(tc.want) {
			t.Errorf("%s: Previous\n got %+v\nwant %+v", tc.name, r.Previous, tc.want)
		}
		if r.Buckets != nil {
			t.Errorf("%s: NoBuckets gave %d buckets", tc.name, len(r.Buckets))
		}
		if r.Total != wantTodayTotal {
			t.Errorf("%s: Total\n got %+v\nwant %+v", tc.name, r.Total, wantTodayTotal)
		}
	}
}

func TestDayReportWallet(t *testing.T) {
	s, _ := seedDay(t)
	today := Days(s.now(), 1, s.loc)
	r, err := s.DayReport(ctx, DayQuery{Period: today, Wallet: "loja-centro", Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wallets) != 1 || !slices.Equal(r.Series, []string{"loja-centro"}) {
		t.Fatalf("Wallets %+v, Series %v: want loja-centro alone", r.Wallets, r.Series)
	}
	checkTotals(t, "loja-centro", r.Wallets[0], wantTodayCentro, 19800, 13800, 20000)
	wantTotal := wantTodayCentro
	wantTotal.Wallet = ""
	checkTotals(t, "Total", r.Total, wantTotal, 19800, 13800, 20000)
	if len(r.Buckets) != 24 {
		t.Fatalf("%d buckets", len(r.Buckets))
	}
	for h, b := range r.Buckets {
		want := []api.Money{0}
		if h == 12 {
			want = []api.Money{20000}
		}
		if !slices.Equal(b.Gross, want) {
			t.Errorf("bucket %02d:00 = %v, want %v", h, b.Gross, want)
		}
	}
	// Yesterday until 15:30 in loja-centro: c4 created and paid; c5 and its refund after 15:30.
	if want := paymentsOf(Totals{Created: 1, Paid: 1, Gross: 6000, Fees: 60}); r.Previous != want {
		t.Errorf("Previous\n got %+v\nwant %+v", r.Previous, want)
	}

	// The principal by its name; a wallet without figures has none.
	r, err = s.DayReport(ctx, DayQuery{Period: today, Wallet: "principal", Fee: 80, HasFee: true, NoBuckets: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wallets) != 1 {
		t.Fatalf("Wallets %+v", r.Wallets)
	}
	checkTotals(t, "principal", r.Wallets[0], wantTodayPrincipal, 25121, 22121, 6375)
	r, err = s.DayReport(ctx, DayQuery{Period: today, Wallet: "loja-norte", Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Wallets) != 0 || r.Total != (Totals{}) || r.Previous != (Totals{}) || len(r.Buckets) != 24 {
		t.Errorf("loja-norte: Wallets %+v Total %+v Previous %+v, %d buckets; want nothing and 24 empty buckets",
			r.Wallets, r.Total, r.Previous, len(r.Buckets))
	}
}

// Without a fee estimate, payments without the service's fee add none but are still counted
// as paid and as estimated.
func TestDayReportNoFeeEstimate(t *testing.T) {
	s, _ := seedDay(t)
	r, err := s.DayReport(ctx, DayQuery{Period: Days(s.now(), 1, s.loc), Fee: 80})
	if err != nil {
		t.Fatal(err)
	}
	want := wantTodayTotal
	want.Fees = 99 + 120 + 200                                 // p1, p5, c1
	want.FeesUnknown = 3                                       // p2, p7, r1: their fees are unknown, so are the nets
	checkTotals(t, "Total", r.Total, want, 49581, 40581, 8333) // refund fees are reported only, not counted
	wantP := wantTodayPrincipal
	wantP.Fees = 219
	wantP.FeesUnknown = 2
	checkTotals(t, "principal", r.Wallet("principal"), wantP, 25281, 22281, 6375)
	wantR := wantTodayPraia
	wantR.Fees = 0
	wantR.FeesUnknown = 1
	checkTotals(t, "loja-praia", r.Wallet("loja-praia"), wantR, 4500, 4500, 4500)
	if _, ok := r.Total.DayNet(); ok || r.Total.FeesKnown() {
		t.Error("the net is known though 3 fees are not")
	}
	// The comparison too: yesterday until 15:30 had reported fees only (c4, r4).
	if r.Previous.Fees != 82 {
		t.Errorf("Previous.Fees = %d, want 82", r.Previous.Fees)
	}
}

// The 7 days to today: daily buckets from the 18th, the 23rd and 24th with payments; the
// comparison is the 7 days before, until 15:30 on the 17th (p9, not p10).
func TestDayReportSevenDays(t *testing.T) {
	s, _ := seedDay(t)
	week := Days(s.now(), 7, s.loc)
	if !week.From.Equal(sp(t, 18, 0, 0)) || !week.To.Equal(sp(t, 25, 0, 0)) {
		t.Fatalf("Days(now, 7) = %v–%v", week.From, week.To)
	}
	r, err := s.DayReport(ctx, DayQuery{Period: week, Fee: 80, HasFee: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Step != 24*time.Hour {
		t.Errorf("Step = %v, want 24h", r.Step)
	}
	// principal: created p1-p8 = 8; paid p1 p2 p5 p6 p7 = 295.00, fees 0.99+1.20+0.99 + 2×0.80.
	// centro: created c1-c5; paid c1 c4 c5 = 330.00, fees 2.00+0.60 + 0.80; refunds c4 (once), c5.
	// praia: created r1-r4; paid r1 r4 = 67.00, fees 0.80 + 0.22; refund r4.
	checkTotals(t, "principal", r.Wallet("principal"), Totals{Wallet: "principal", Created: 8, Paid: 5, Gross: 29500, Fees: 478,
		FeesEstimated: 2, Pending: 1, Expired: 1, Refunded: 1, RefundedAmount: 3000, RefundFeesReported: 30}, 29022, 26022, 5900)
	checkTotals(t, "loja-centro", r.Wallet("loja-centro"), Totals{Wallet: "loja-centro", Created: 5, Paid: 3, Gross: 33000, Fees: 340,
		FeesEstimated: 1, Failed: 1, Cancelled: 1, Refunded: 2, RefundedAmount: 13000, RefundFeesReported: 50}, 32660, 19660, 11000)
	checkTotals(t, "loja-praia", r.Wallet("loja-praia"), Totals{Wallet: "loja-praia", Created: 4, Paid: 2, Gross: 6700, Fees: 102,
		FeesEstimated: 1, Pending: 1, Expired: 1, Refunded: 1, RefundedAmount: 2200, RefundFeesReported: 20}, 6598, 4398, 3350)
	checkTotals(t, "Total", r.Total, Totals{Created: 17, Paid: 10, Gross: 69200, Fees: 920, FeesEstimated: 4,
		Pending: 2, Expired: 2, Failed: 1, Cancelled: 1, Refunded: 4, RefundedAmount: 18200, RefundFeesReported: 100}, 68280, 50080, 6920)
	if len(r.Buckets) != 7 {
		t.Fatalf("%d buckets, want 7", len(r.Buckets))
	}
	for i, b := range r.Buckets {
		if !b.Start.Equal(sp(t, 18+i, 0, 0)) || !b.End.Equal(sp(t, 19+i, 0, 0)) {
			t.Errorf("bucket %d = %v–%v, want the %dth", i, b.Start, b.End, 18+i)
		}
		want := []api.Money{0, 0, 0}
		switch i {
		case 5: // the 23rd: p6 (23:59:59.999); c4, c5; r4
			want = []api.Money{4000, 13000, 2200}
		case 6: // the 24th
			want = []api.Money{25500, 20000, 4500}
		}
		if !slices.Equal(b.Gross, want) {
			t.Errorf("day %d: Gross %v, want %v", 18+i, b.Gross, want)
		}
	}
	if got := r.Buckets[5].Total() + r.Buckets[6].Total(); got != 69200 {
		t.Errorf("buckets sum to %d", got)
	}
	if !r.PreviousPeriod.From.Equal(sp(t, 11, 0, 0)) || !r.PreviousPeriod.To.Equal(sp(t, 18, 0, 0)) {
		t.Errorf("PreviousPeriod = %v–%v, want 11th–18th", r.PreviousPeriod.From, r.PreviousPeriod.To)
	}
	if want := paymentsOf(Totals{Created: 1, Paid: 1, Gross: 1100, Fees: 11}); r.Previous != want {
		t.Errorf("Previous\n got %+v\nwant %+v", r.Previous, want)
	}
}

func TestDayReportBadPeriod(t *testing.T) {
	s, _ := seedDay(t)
	at := sp(t, 24, 0, 0)
	for _, p := range []Period{{}, {From: at, To: at}, {From: at, To: at.Add(-time.Millisecond)}} {
		if _, err := s.DayReport(ctx, DayQuery{Period: p}); !errors.Is(err, ErrBadPeriod) {
			t.Errorf("DayReport(%v–%v) = %v, want ErrBadPeriod", p.From, p.To, err)
		}
		if _, err := s.CloseDay(ctx, CloseQuery{Day: p}); !errors.Is(err, ErrBadPeriod) {
			t.Errorf("CloseDay(%v–%v) = %v, want ErrBadPeriod", p.From, p.To, err)
		}
	}
}

func TestDays(t *testing.T) {
	saoPaulo, ny := mustZone(t, "America/Sao_Paulo"), mustZone(t, "America/New_York")
	utc := func(mo time.Month, d, h int) time.Time { return time.Date(2026, mo, d, h, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name     string
		t        time.Time
		n        int
		loc      *time.Location
		from, to time.Time
		hours    int
	}{
		{"today", sp(t, 24, 15, 30), 1, saoPaulo, utc(11, 24, 3), utc(11, 25, 3), 24},
		{"n=0 is one day", sp(t, 24, 15, 30), 0, saoPaulo, utc(11, 24, 3), utc(11, 25, 3), 24},
		{"n<0 is one day", sp(t, 24, 15, 30), -3, saoPaulo, utc(11, 24, 3), utc(11, 25, 3), 24},
		{"7 days", sp(t, 24, 15, 30), 7, saoPaulo, utc(11, 18, 3), utc(11, 25, 3), 168},
		{"30 days", sp(t, 24, 15, 30), 30, saoPaulo, utc(10, 26, 3), utc(11, 25, 3), 720},
		{"across a month", time.Date(2026, 12, 2, 10, 0, 0, 0, saoPaulo), 3, saoPaulo, utc(11, 30, 3), utc(12, 3, 3), 72},
		{"first millisecond", sp(t, 24, 0, 0), 1, saoPaulo, utc(11, 24, 3), utc(11, 25, 3), 24},
		{"last millisecond", spMs(t, 24, 23, 59, 59, 999), 1, saoPaulo, utc(11, 24, 3), utc(11, 25, 3), 24},
		// 22:00 in São Paulo is already the 25th in UTC: the day is the zone's.
		{"the zone's day", sp(t, 24, 22, 0), 1, time.UTC, utc(11, 25, 0), utc(11, 26, 0), 24},
		// New York leaves DST on 2026-11-01 at 02:00: a 25-hour day; it enters it on
		// 2026-03-08 at 02:00: a 23-hour day.
		{"fall back", time.Date(2026, 11, 1, 12, 0, 0, 0, ny), 1, ny, utc(11, 1, 4), utc(11, 2, 5), 25},
		{"spring forward", time.Date(2026, 3, 8, 12, 0, 0, 0, ny), 1, ny, utc(3, 8, 5), utc(3, 9, 4), 23},
		{"week across fall back", time.Date(2026, 11, 3, 9, 0, 0, 0, ny), 7, ny, utc(10, 28, 4), utc(11, 4, 5), 169},
	} {
		p := Days(tc.t, tc.n, tc.loc)
		if !p.From.Equal(tc.from) || !p.To.Equal(tc.to) {
			t.Errorf("%s: Days = %v–%v, want %v–%v", tc.name, p.From.UTC(), p.To.UTC(), tc.from, tc.to)
		}
		if got := p.To.Sub(p.From); got != time.Duration(tc.hours)*time.Hour {
			t.Errorf("%s: %v long, want %dh", tc.name, got, tc.hours)
		}
		if p.From.Location() != tc.loc {
			t.Errorf("%s: From in %v, want %v", tc.name, p.From.Location(), tc.loc)
		}
		if got := p.DayCount(tc.loc); got != max(tc.n, 1) {
			t.Errorf("%s: DayCount = %d, want %d", tc.name, got, max(tc.n, 1))
		}
	}
}

func TestPeriodDayCount(t *testing.T) {
	saoPaulo, ny := mustZone(t, "America/Sao_Paulo"), mustZone(t, "America/New_York")
	nyAt := func(mo time.Month, d, h int) time.Time { return time.Date(2026, mo, d, h, 0, 0, 0, ny) }
	for _, tc := range []struct {
		name string
		p    Period
		loc  *time.Location
		want int
	}{
		{"one day", Period{sp(t, 24, 0, 0), sp(t, 25, 0, 0)}, saoPaulo, 1},
		{"two hours", Period{sp(t, 24, 10, 0), sp(t, 24, 12, 0)}, saoPaulo, 1},
		{"one millisecond", Period{sp(t, 24, 0, 0), sp(t, 24, 0, 0).Add(time.Millisecond)}, saoPaulo, 1},
		{"empty", Period{sp(t, 24, 0, 0), sp(t, 24, 0, 0)}, saoPaulo, 1},
		{"reversed", Period{sp(t, 25, 0, 0), sp(t, 24, 0, 0)}, saoPaulo, 1},
		{"noon to noon", Period{sp(t, 24, 12, 0), sp(t, 25, 12, 0)}, saoPaulo, 2},
		{"a day and a millisecond", Period{sp(t, 24, 0, 0), sp(t, 25, 0, 0).Add(time.Millisecond)}, saoPaulo, 2},
		{"7 days", Period{sp(t, 18, 0, 0), sp(t, 25, 0, 0)}, saoPaulo, 7},
		// The UTC day 2026-11-24 is 21:00 on the 23rd to 21:00 on the 24th in São Paulo.
		{"UTC day in São Paulo", Period{time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)}, saoPaulo, 2},
		{"UTC day in UTC", Period{time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)}, time.UTC, 1},
		{"fall back day", Period{nyAt(11, 1, 0), nyAt(11, 2, 0)}, ny, 1},
		{"spring forward day", Period{nyAt(3, 8, 0), nyAt(3, 9, 0)}, ny, 1},
		{"week across fall back", Period{nyAt(10, 28, 0), nyAt(11, 4, 0)}, ny, 7},
		// 24 hours from midnight on the fall-back day end at 23:00 that day.
		{"24h from fall back midnight", Period{nyAt(11, 1, 0), nyAt(11, 1, 0).Add(24 * time.Hour)}, ny, 1},
		// 24 hours from midnight on the spring-forward day end at 01:00 the next day.
		{"24h from spring forward midnight", Period{nyAt(3, 8, 0), nyAt(3, 8, 0).Add(24 * time.Hour)}, ny, 2},
	} {
		if got := tc.p.DayCount(tc.loc); got != tc.want {
			t.Errorf("%s: DayCount = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// In a zone with DST, a day's chart has an hour per hour that day had (25 when the clocks go
// back, 23 when they go forward) and a week's chart a bucket per local day, from midnight to
// midnight.
func TestDayReportDST(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	utc := func(mo time.Month, d, h, m int) time.Time { return time.Date(2026, mo, d, h, m, 0, 0, time.UTC) }
	clk := &testClock{t: utc(12, 1, 0, 0)}
	s := OpenMemory(WithClock(clk.now), WithLocation(ny))
	defer s.Close()
	for i, paid := range []time.Time{
		utc(11, 1, 5, 30),  // 01:30 EDT on the 1st
		utc(11, 1, 6, 30),  // 01:30 EST on the 1st: the repeated hour
		utc(11, 2, 4, 30),  // 23:30 EST on the 1st
		utc(11, 2, 5, 30),  // 00:30 EST on the 2nd
		utc(3, 8, 6, 30),   // 01:30 EST on 2026-03-08
		utc(3, 8, 7, 30),   // 03:30 EDT on 2026-03-08 (02:xx does not exist)
		utc(10, 31, 4, 30), // 00:30 EDT on 2026-10-31
	} {
		c := dayPaid(fmt.Sprintf("ny%d", i), api.WalletPrincipal, api.Money(100*(i+1)), paid.Add(-time.Minute), paid, nil)
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	hourly := func(name string, day time.Time, hours int, want map[int]api.Money) {
		t.Helper()
		r, err := s.DayReport(ctx, DayQuery{Period: Days(day, 1, ny)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Step != time.Hour || len(r.Buckets) != hours {
			t.Fatalf("%s: Step %v, %d buckets; want 1h, %d", name, r.Step, len(r.Buckets), hours)
		}
		for i, b := range r.Buckets {
			if !b.Start.Equal(r.Query.Period.From.Add(time.Duration(i)*time.Hour)) || b.End.Sub(b.Start) != time.Hour {
				t.Errorf("%s: bucket %d = %v–%v", name, i, b.Start, b.End)
			}
			if b.Total() != want[i] {
				t.Errorf("%s: bucket %d (%s) = %d, want %d", name, i, b.Start.In(ny).Format("15:04 MST"), b.Total(), want[i])
			}
		}
		if !r.Buckets[hours-1].End.Equal(r.Query.Period.To) {
			t.Errorf("%s: last bucket ends %v, want %v", name, r.Buckets[hours-1].End, r.Query.Period.To)
		}
	}
	// Nov 1: 00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST ... 23:00 EST = 25 buckets.
	hourly("fall back", time.Date(2026, 11, 1, 12, 0, 0, 0, ny), 25, map[int]api.Money{1: 100, 2: 200, 24: 300})
	// Mar 8: 00:00 EST, 01:00 EST, 03:00 EDT ... 23:00 EDT = 23 buckets.
	hourly("spring forward", time.Date(2026, 3, 8, 12, 0, 0, 0, ny), 23, map[int]api.Money{1: 500, 2: 600})

	r, err := s.DayReport(ctx, DayQuery{Period: Days(time.Date(2026, 11, 3, 9, 0, 0, 0, ny), 7, ny)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Step != 24*time.Hour || len(r.Buckets) != 7 {
		t.Fatalf("week: Step %v, %d buckets", r.Step, len(r.Buckets))
	}
	wantGross := []api.Money{0, 0, 0, 700, 100 + 200 + 300, 400, 0} // Oct 28 … Nov 3
	for i, b := range r.Buckets {
		start := time.Date(2026, 10, 28+i, 0, 0, 0, 0, ny)
		end := time.Date(2026, 10, 29+i, 0, 0, 0, 0, ny)
		if !b.Start.Equal(start) || !b.End.Equal(end) {
			t.Errorf("week: bucket %d = %v–%v, want %v–%v", i, b.Start, b.End, start, end)
		}
		if b.Total() != wantGross[i] {
			t.Errorf("week: %s = %d, want %d", start.Format("Jan 2"), b.Total(), wantGross[i])
		}
	}
	if got := r.Buckets[4].End.Sub(r.Buckets[4].Start); got != 25*time.Hour {
		t.Errorf("week: Nov 1 is %v long, want 25h", got)
	}
	if r.Total.Paid != 5 || r.Total.Gross != 1700 {
		t.Errorf("week: Paid %d Gross %d, want 5, 1700", r.Total.Paid, r.Total.Gross)
	}
}

func TestKnownWallets(t *testing.T) {
	s := OpenMemory()
	defer s.Close()
	if ws, err := s.KnownWallets(ctx); err != nil || len(ws) != 0 {
		t.Fatalf("empty store: %v, %v", ws, err)
	}
	s, _ = seedDay(t)
	ws, err := s.KnownWallets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"principal", "loja-centro", "loja-praia"}; !slices.Equal(ws, want) {
		t.Errorf("KnownWallets = %v, want %v", ws, want)
	}
}
func TestDayReportDailyBucketsNotHourAligned(t *testing.T) {
	s := OpenMemory(WithClock(func() time.Time { return sp(t, 30, 0, 0) }), WithLocation(mustZone(t, "America/Sao_Paulo")))
	defer s.Close()
	if _, err := s.UpsertCharge(ctx, dayPaid("x", api.WalletPrincipal, 1000, sp(t, 21, 0, 10), sp(t, 21, 0, 15), nil)); err != nil {
		t.Fatal(err)
	}
	r, err := s.DayReport(ctx, DayQuery{Period: Period{From: sp(t, 20, 10, 30), To: sp(t, 24, 10, 30)}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Buckets[1].Total() != 1000 { // bucket 1 = the 21st, 00:00–24:00
		t.Errorf("paid 00:15 on the 21st, counted in the 20th")
	}
}

func TestDayReportDailyBucketsLordHowe(t *testing.T) { // DST shift of 30 minutes
	lh := mustZone(t, "Australia/Lord_Howe")
	s := OpenMemory(WithClock(func() time.Time { return time.Date(2026, 10, 20, 0, 0, 0, 0, lh) }), WithLocation(lh))
	defer s.Close()
	paid := time.Date(2026, 10, 5, 0, 10, 0, 0, lh)
	if _, err := s.UpsertCharge(ctx, dayPaid("x", api.WalletPrincipal, 1000, paid.Add(-time.Minute), paid, nil)); err != nil {
		t.Fatal(err)
	}
	r, err := s.DayReport(ctx, DayQuery{Period: Days(time.Date(2026, 10, 7, 12, 0, 0, 0, lh), 7, lh)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Buckets[4].Total() != 1000 { // Oct 5
		t.Errorf("paid 00:10 on Oct 5, counted in Oct 4")
	}
}
