package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/refund"
)

// The charges list draws a charge's refund from what its update read (refundStatesMsg), not
// from the store while drawing: a refund recorded since shows after the next read, and View
// itself reads nothing.
func TestChargesViewDrawsRefundsReadInUpdate(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	const paid = "3f6c1a2e-0000-4000-8000-0000000000aa"
	paidAt := goldenNow.Add(-time.Minute)
	if _, err := s.Store.UpsertCharge(context.Background(), state.Charge{ID: paid, Amount: 8990, Description: "Bolo", Status: api.StatusCompleted,
		CreatedAt: goldenNow.Add(-time.Hour), UpdatedAt: goldenNow.Add(-time.Hour), PaidAt: &paidAt, Wallet: api.WalletPrincipal}); err != nil {
		t.Fatal(err)
	}
	m := goldenModel(t, s, 120, 30)
	if strings.Contains(m.View(), "refunded") {
		t.Fatal("the premise: no refund shown yet")
	}
	if _, err := s.Store.PutRefund(context.Background(), state.Refund{ChargeID: paid, Wallet: api.WalletPrincipal, Key: api.NewIdempotencyKey(),
		Amount: 8990, State: state.RefundCompleted, RequestedAt: goldenNow}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.View(), "refunded") {
		t.Fatal("View read the store while drawing: the refund shows before any update read it")
	}
	storeChanged(t, m)
	if !strings.Contains(m.View(), "↩ refunded") {
		t.Fatalf("the refund read after the change is not drawn:\n%s", m.View())
	}
}

// The refund form's view draws the errors its update found; drawing changes none of them.
func TestRefundFormViewRewritesNothing(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m := goldenModel(t, s, 120, 30)
	f := refund.NewRefundForm(m.c, state.Charge{ID: "tx-1", Amount: 1000, Status: api.StatusCompleted})
	f.SetSize(120, 30)
	f.Errs[refund.RfReason] = "sentinel"
	before := f.Errs
	_ = f.View()
	if f.Errs != before {
		t.Fatalf("view rewrote the errors: %q, was %q", f.Errs, before)
	}
}
