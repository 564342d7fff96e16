package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// Issue 22, item 9, on screen: while another window holds the claim on a charge's refund, R
// opens no form and says which window sends it and since when; a form whose send lost the race
// says the same and that nothing was sent from it.
func TestRefundOtherWindowSendingIsNamed(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	ch := paidGoldenCharge(t, m)
	claim := state.RefundClaim{PID: 4242, Host: "caixa-2", Window: "w", Since: goldenNow.Add(-10 * time.Second), Until: goldenNow.Add(time.Minute)}
	if _, err := s.Store.PutRefund(context.Background(), state.Refund{ChargeID: ch.ID, Wallet: ch.Wallet, Key: "other", Amount: ch.Amount,
		State: state.RefundRequested, Claim: &claim}); err != nil {
		t.Fatal(err)
	}
	since := claim.Since.In(time.UTC).Format("15:04")
	want := "being sent by another window (pid 4242 on caixa-2) since " + since
	o, cmd := askRefund(m.c, ch)
	if o != nil || cmd == nil {
		t.Fatalf("R while another window sends the refund opened %T", o)
	}
	if msg := fmt.Sprint(cmd()); !strings.Contains(msg, want) {
		t.Fatalf("R while another window sends the refund: %s", msg)
	}

	// The form that lost the race.
	f := newRefundForm(m.c, ch)
	m.push(f)
	f.sending = true
	f.update(refundDoneMsg{tag: m.app.tag(), key: f.key, out: workflow.RefundOutcome{Kind: workflow.RefundBusy, Err: &state.RefundBusyError{Claim: claim}}})
	if f.sending || !strings.Contains(f.result, want) || !strings.Contains(f.result, "nothing was sent from here") {
		t.Fatalf("the losing form says %q", f.result)
	}
	if v := m.View(); !strings.Contains(strings.Join(strings.Fields(v), " "), "another window") {
		t.Fatalf("not shown:\n%s", v)
	}
}
