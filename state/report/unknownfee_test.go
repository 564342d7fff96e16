package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// A payment whose fee the service did not report, with no estimate to use: the close says the
// fees and the nets are unknown (in both languages and in the CSV), never R$ 0,00.
func TestUnknownFeeIsUnknown(t *testing.T) {
	ctx := context.Background()
	loc := time.FixedZone("BRT", -3*3600)
	now := time.Date(2026, 11, 24, 18, 0, 0, 0, loc)
	s := state.OpenMemory(state.WithClock(func() time.Time { return now }), state.WithLocation(loc))
	t.Cleanup(func() { _ = s.Close() })
	paid := now.Add(-time.Hour)
	if _, err := s.UpsertCharge(ctx, state.Charge{ID: "c1", Wallet: "principal", Amount: 16350, Status: api.StatusCompleted,
		CreatedAt: paid.Add(-time.Minute), ExpiresAt: paid.Add(time.Hour), PaidAt: &paid, UpdatedAt: paid}); err != nil {
		t.Fatal(err)
	}
	fee, ok := api.Money(0), false // no pix_fee, nothing learned: workflow.FeeEstimate knows none
	r, err := s.CloseDay(ctx, state.CloseQuery{Day: state.Days(now, 1, loc), Fee: fee, HasFee: ok})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, fees, net, note string }{
		{LangEN, "Fees", "unknown", "1 of 1 with no fee reported and no estimate"},
		{LangPT, "Tarifas", "desconhecido", "1 de 1 sem tarifa informada nem estimativa"},
	} {
		text := Text(r, Options{Lang: tc.lang, Loc: loc})
		var feeLine, netLines int
		for _, l := range strings.Split(text, "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == tc.fees && f[len(f)-1] == tc.net {
				feeLine++
			}
			if strings.HasSuffix(l, " "+tc.net) {
				netLines++
			}
		}
		if feeLine != 2 || netLines != 6 || !strings.Contains(text, tc.note) { // the wallet's and the total's
			t.Errorf("%s: fees lines %d, unknown figures %d, note %v:\n%s", tc.lang, feeLine, netLines, strings.Contains(text, tc.note), text)
		}
	}
	var b bytes.Buffer
	if err := CSV(&b, r, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head := strings.Split(lines[0], ",")
	for _, l := range lines[1:] {
		cells := strings.Split(l, ",")
		for i, h := range head {
			if (h == "fees" || h == "net" || h == "net_after_refunds") && cells[i] != "" {
				t.Errorf("CSV %s = %q, want empty (unknown): %s", h, cells[i], l)
			}
		}
	}
}

// The close says how much of the day's payments a MED block returned to the payer or holds,
// and a refund made outside pixdash (confirmed) is in its refunds.
func TestCloseShowsWhereTheMoneyWent(t *testing.T) {
	ctx := context.Background()
	loc := time.FixedZone("BRT", -3*3600)
	now := time.Date(2026, 11, 24, 18, 0, 0, 0, loc)
	s := state.OpenMemory(state.WithClock(func() time.Time { return now }), state.WithLocation(loc))
	t.Cleanup(func() { _ = s.Close() })
	paid := now.Add(-time.Hour)
	for _, c := range []struct {
		id     string
		amount api.Money
	}{{"ret", 5000}, {"blk", 7000}, {"ref", 16350}} {
		if _, err := s.UpsertCharge(ctx, state.Charge{ID: c.id, Wallet: "principal", Amount: c.amount, Status: api.StatusCompleted,
			CreatedAt: paid.Add(-time.Minute), ExpiresAt: paid.Add(time.Hour), PaidAt: &paid, UpdatedAt: paid, Fee: new(api.Money)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{
		{ID: "b1", TransactionID: "ret", Amount: 5000, Status: api.BlockApproved, CreatedAt: paid},
		{ID: "b2", TransactionID: "blk", Amount: 7000, Status: api.BlockAwaitingResponse, CreatedAt: paid},
	}); err != nil {
		t.Fatal(err)
	}
	e, err := api.DecodeEvent([]byte(`{"event":"refund_completed","eventId":"e1","createdAt":"2026-11-24T17:30:00-03:00","data":{"id":"r1","transactionId":"ref","amount":35.50}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEventVerdict(ctx, "e1", state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	r, err := s.CloseDay(ctx, state.CloseQuery{Day: state.Days(now, 1, loc)})
	if err != nil {
		t.Fatal(err)
	}
	if tt := r.Total; tt.Paid != 3 || tt.Gross != 28350 || tt.Refunded != 1 || tt.RefundedAmount != 3550 ||
		tt.Returned != 1 || tt.ReturnedAmount != 5000 || tt.Blocked != 1 || tt.BlockedAmount != 7000 {
		t.Fatalf("Total %+v", tt)
	}
	text := Text(r, Options{Lang: LangEN, Loc: loc})
	for _, want := range []string{"Returned to the payer (MED) (1)", "R$ 50,00", "Blocked (MED, open) (1)", "R$ 70,00", "Refunded", "R$ 35,50"} {
		if !strings.Contains(text, want) {
			t.Errorf("the close lacks %q:\n%s", want, text)
		}
	}
}
