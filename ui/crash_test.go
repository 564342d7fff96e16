package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
	"pixdash/ui/refund"
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
	o, cmd := refund.AskRefund(m.c, ch)
	if o != nil || cmd == nil {
		t.Fatalf("R while another window sends the refund opened %T", o)
	}
	if msg := fmt.Sprint(runReply(cmd)); !strings.Contains(msg, want) {
		t.Fatalf("R while another window sends the refund: %s", msg)
	}

	// The form that lost the race.
	f := refund.NewRefundForm(m.c, ch)
	m.push(f)
	f.Sending = true
	f.Update(refund.DoneMsg{Tag: m.app.Tag(), Key: f.Key, Out: workflow.RefundOutcome{Kind: workflow.RefundBusy, Err: &state.RefundBusyError{Claim: claim}}})
	if f.Sending || !strings.Contains(f.Result, want) || !strings.Contains(f.Result, "nothing was sent from here") {
		t.Fatalf("the losing form says %q", f.Result)
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
	if _, cmd := refund.AskRefund(m.c, ch); cmd != nil {
		t.Fatal("the test's premise: R offers the refund form before the recovery")
	}
	msg, ok := m.recoverSubmissions()().(recoveredMsg)
	if !ok || msg.refunds == nil || len(msg.refunds.Completed) != 1 {
		t.Fatalf("recovery at start: %+v", msg)
	}
	m.Update(reply(m, msg))
	if v := m.View(); !strings.Contains(v, "1 refund(s) from an earlier session confirmed by the service") {
		t.Fatalf("not said:\n%s", v)
	}
	if r, ok := s.Store.PeekRefund(ch.ID); !ok || r.State != state.RefundCompleted {
		t.Fatalf("the row's refund: %+v", r)
	}
	o, cmd := refund.AskRefund(m.c, ch)
	if o != nil || cmd == nil || !strings.Contains(fmt.Sprint(runReply(cmd)), "already refunded") {
		t.Fatalf("R after the recovery: %T", o)
	}
}

// holdPix is a transport that holds every POST …/pix until released (the service is slow to
// answer: the request is out and may land at any moment).
type holdPix struct {
	release chan struct{}
	once    sync.Once
	held    chan struct{}
}

func (h *holdPix) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pix") {
		h.once.Do(func() { close(h.held) })
		select {
		case <-h.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Issue 22, item 11: POST /pix is slow; esc while it is out does not say "Nothing was sent":
// it says the request may still create the charge and that discarding keeps it for recovery.
// After y the submission is still recorded, and when the request lands the charge is tracked
// (said on the status line, not put on screen), once.
func TestFlowDiscardWhileCreatingSaysARequestMayLand(t *testing.T) {
	hold := &holdPix{release: make(chan struct{}), held: make(chan struct{})}
	s, srv := demo(t, DemoOptions{ClientOptions: []api.Option{api.WithHTTPClient(&http.Client{Transport: hold})}})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	f.newCharge("17", "atrasada")
	<-hold.held
	f.keys("esc")
	f.waitFor("A request is being sent and may still create this charge.", "It will be recovered if it lands.")
	f.keys("y")
	f.waitFor("STATUS") // the list again
	subs, err := s.Store.PendingSubmissions(context.Background())
	if err != nil || len(subs) != 1 || subs[0].Request.Amount != 1700 {
		t.Fatalf("the discard lost the submission: %+v %v", subs, err)
	}
	close(hold.release)
	f.waitFor("whose form was discarded was created after all")
	if n := countCharges(t, srv); n != 1 {
		t.Fatalf("the emulator holds %d charges, want 1", n)
	}
	if subs, err := s.Store.PendingSubmissions(context.Background()); err != nil || len(subs) != 0 {
		t.Fatalf("the landed submission is still pending: %+v %v", subs, err)
	}
	cs := allCharges(t, s.Store, state.ChargeQuery{})
	found := 0
	for _, c := range cs {
		if c.Description == "atrasada" && c.Amount == 1700 {
			found++
		}
	}
	if found != 1 {
		t.Fatalf("tracked %d charges of the discarded form, want 1", found)
	}
	if _, ok := f.m.qrScreen(); ok {
		t.Fatal("the QR of a discarded form was put on screen")
	}
}

// The form's questions while a request may land, in both languages: after a lost reply esc and
// quitting say the charge may have been created, never "Nothing was sent".
func TestNewChargeQuestionsWhileARequestMayLand(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		m := formModel(t, goldenSession(t, api.Sandbox), lang)
		walletsType(m, "12,34")
		f := formOf(m)
		f.Sending, f.MayLand = true, true
		for _, q := range []string{f.DiscardQuestion(), f.QuitQuestion()} {
			if strings.Contains(q, m.c.Tr.T("newcharge.discard_this_charge_nothing_was_sent")) || q == "" {
				t.Errorf("%s while sending: %q", lang, q)
			}
		}
		// The reply was lost: the form stays, and the request may still have landed.
		m.Update(chargeCreatedMsg{tag: m.tagNow(), draft: newcharge.ChargeDraft{Key: f.Key}, err: context.DeadlineExceeded, unconfirmed: true})
		if f.Sending || !f.MayLand {
			t.Fatalf("%s after a lost reply: sending %v, mayLand %v", lang, f.Sending, f.MayLand)
		}
		if q := f.DiscardQuestion(); !strings.Contains(q, m.c.Tr.T("newcharge.a_request_was_sent_and_may")) {
			t.Errorf("%s after a lost reply: %q", lang, q)
		}
		// A refusal: nothing was created, and the form says so again.
		m.Update(chargeCreatedMsg{tag: m.tagNow(), draft: newcharge.ChargeDraft{Key: f.Key}, err: &api.Error{HTTPStatus: 400, Message: "amount"}})
		if f.MayLand || !strings.Contains(f.DiscardQuestion(), m.c.Tr.T("newcharge.discard_this_charge_nothing_was_sent")) {
			t.Errorf("%s after a refusal: %q", lang, f.DiscardQuestion())
		}
	}
}
