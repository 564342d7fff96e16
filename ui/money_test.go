package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// waitState waits until the store says the charge is in want (the read-backs run in the flow).
func waitState(t *testing.T, s *Session, id string, want state.ChargeState) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, ok, err := s.Store.Charge(context.Background(), id)
		if err == nil && ok && c.State() == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("charge %s is %s, want %s (%v)", id, c.State(), want, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A payment refunded outside pixdash (the service's refund_completed, confirmed by read-back)
// and one whose MED block was approved never read "✓ paid" again: the list, the inspector's
// headline, the S search and the QR result screen show refunded / returned with the amount.
func TestFlowMoneyThatWentBackNeverReadsPaid(t *testing.T) {
	s, _ := demo(t, DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.05)}})
	ctx := context.Background()
	f := startFlow(t, s, 130, 40)
	f.waitFor("DEMO", "STATUS")
	ctl := sandbox.NewControl(s.Client)

	ref := paidDemoCharge(t, s, 16350, "estornada fora")
	part := api.Money(3550)
	if err := ctl.Refund(ctx, ref.ID, &part); err != nil { // from the service's own panel
		t.Fatal(err)
	}
	waitState(t, s, ref.ID, state.StateRefunded)
	f.waitFor("↩ refunded", "−R$ 35,50")

	med := paidDemoCharge(t, s, 5000, "med aprovado")
	b, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: med.ID, Reason: "Pagador alega golpe"})
	if err != nil {
		t.Fatal(err)
	}
	waitState(t, s, med.ID, state.StateBlocked)
	f.waitFor("! blocked", "held R$ 50,00")
	if _, err := ctl.ResolveBlock(ctx, b.ID, api.BlockApproved, "procedente"); err != nil {
		t.Fatal(err)
	}
	waitState(t, s, med.ID, state.StateReturned)
	f.waitFor("↩ returned", "−R$ 50,00")

	// The inspector's headline.
	f.keys("2", "/", ref.ID, "enter")
	f.waitFor("↩ refunded R$ 35,50 · completed at the service")
	f.keys("esc", "/", med.ID, "enter")
	f.waitFor("↩ returned to the payer (MED) R$ 50,00 · completed at the service")

	// The customer says they paid: the search reads back and says where the money is.
	f.keys("esc", "1", "S")
	f.waitFor("The customer says they paid")
	e2e := strings.ToLower(ref.E2EID)
	if e2e == "" {
		c, _, _ := s.Store.Charge(ctx, ref.ID)
		e2e = strings.ToLower(c.E2EID)
	}
	f.keys(e2e, "enter")
	f.waitFor("1 charge with e2e id", "↩ refunded", "↩ refunded R$ 35,50")
	f.keys("esc")

	// The result screen of the newest charge (the customer's language is pt-BR).
	f.keys("g", "enter")
	f.waitFor("DEVOLVIDA", "devolvida ao pagador (MED) R$ 50,00")
}
