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

// Issue 22, item 10, on screen: a refund a killed window left "refund unknown" whose
// refund_completed was stored and confirmed is settled by the recovery at start: the status
// line says so, the row says refunded, and R offers no refund.
func TestRecoveryAtStartSettlesRefundsOfAKilledWindow(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	ch := paidGoldenCharge(t, m)
	ctx := context.Background()
	dead := state.RefundClaim{PID: 1 << 30, Host: "", Window: "gone", Since: goldenNow.Add(-time.Hour), Until: goldenNow.Add(-59 * time.Minute)}
	if _, err := s.Store.PutRefund(ctx, state.Refund{ChargeID: ch.ID, Wallet: ch.Wallet, Key: "killed", Amount: ch.Amount,
		State: state.RefundRequested, Attempts: 1, Claim: &dead}); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"event":"refund_completed","eventId":"evt-killed","timestamp":"2026-11-21T15:00:03Z","subAccount":"loja-sul","data":{"id":"line-9","transactionId":%q,"amount":89.90,"netAmount":89.90,"feeAmount":0.90,"status":"completed"}}`, ch.ID)
	ev, err := api.DecodeEvent([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.ApplyEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetEventVerdict(ctx, "evt-killed", state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	if _, cmd := askRefund(m.c, ch); cmd != nil {
		t.Fatal("the test's premise: R offers the refund form before the recovery")
	}
	msg, ok := m.recoverSubmissions()().(recoveredMsg)
	if !ok || msg.refunds == nil || len(msg.refunds.Completed) != 1 {
		t.Fatalf("recovery at start: %+v", msg)
	}
	m.Update(msg)
	if v := m.View(); !strings.Contains(v, "1 refund(s) from an earlier session confirmed by the service") {
		t.Fatalf("not said:\n%s", v)
	}
	if r, ok := s.Store.PeekRefund(ch.ID); !ok || r.State != state.RefundCompleted {
		t.Fatalf("the row's refund: %+v", r)
	}
	o, cmd := askRefund(m.c, ch)
	if o != nil || cmd == nil || !strings.Contains(fmt.Sprint(cmd()), "already refunded") {
		t.Fatalf("R after the recovery: %T", o)
	}
}
