package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// paymentEnvelope is a payment event in the service's envelope shape.
func paymentEnvelope(eventID, kind, txID string, amount api.Money, payer string) []byte {
	return fmt.Appendf(nil, `{"event":%q,"eventId":%q,"timestamp":%q,"data":{"id":%q,"transactionId":%q,"status":"completed","amount":%s,"counterpartName":%q}}`,
		kind, eventID, time.Now().UTC().Format(time.RFC3339Nano), txID, txID, amount.Decimal(), payer)
}

// TestFlowForgedWebhookDoesNotTurnPaid is issue 12's first attack: a validly signed
// payment_completed of R$ 1,00 from "Liar" for a charge the service holds as pending must not
// turn the customer screen PAGO, ring the bell or mark the charge paid; an event for a made-up
// transaction adds nothing. The real payment then turns it paid with the service's payer.
func TestFlowForgedWebhookDoesNotTurnPaid(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "charges", "STATUS")
	f.newCharge("20", "Cafe")
	f.waitFor("Pague com PIX", "Aguardando pagamento")
	var id string
	for i := 0; id == "" && i < 100; i++ {
		if cs := allCharges(t, s.Store, state.ChargeQuery{}); len(cs) > 0 && cs[0].Description == "Cafe" {
			id = cs[0].ID
		}
		time.Sleep(10 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("the charge was not tracked")
	}
	before := len(allCharges(t, s.Store, state.ChargeQuery{}))
	// Signed deliveries the receiver took (the intake is what the receiver hands an event to
	// once the HMAC checked out).
	if err := s.Intake.Accept(paymentEnvelope("evt-liar", "payment_completed", id, 100, "Liar")); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, s.Store, "evt-liar", state.VerdictDisputed)
	if err := s.Intake.Accept(paymentEnvelope("evt-madeup", "payment_completed", "00000000-dead-4bee-8000-000000000000", 1000, "Liar")); err != nil {
		t.Fatal(err)
	}
	waitVerdict(t, s.Store, "evt-madeup", state.VerdictUnknown)
	e, _ := eventByID(t, s.Store, "evt-liar")
	if code, vals := state.ParseReason(e.VerdictReason); e.Verdict != state.VerdictDisputed || code != state.ReasonStatus || vals[1] != "pending" {
		t.Errorf("liar verdict %q %q", e.Verdict, e.VerdictReason)
	}
	ch, _ := chargeByID(t, s.Store, id)
	if ch.State() != state.StatePending || ch.PayerName != "" || f.bellCount() != 0 {
		t.Fatalf("a forged event changed the charge: %+v, bells %d", ch, f.bellCount())
	}
	if n := len(allCharges(t, s.Store, state.ChargeQuery{})); n != before {
		t.Fatalf("an event for a made-up transaction added %d charge(s)", n-before)
	}
	f.keys("$")
	f.waitFor("PAGO", "Maria da Silva")
	if ch, _ := chargeByID(t, s.Store, id); ch.State() != state.StatePaid || ch.PayerName != "Maria da Silva" || ch.Amount != 2000 {
		t.Fatalf("after the real payment: %+v", ch)
	}
}

func waitVerdict(t *testing.T, store *state.Store, eventID string, want state.Verdict) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if e, ok := eventByID(t, store, eventID); ok && e.Verdict == want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e, _ := eventByID(t, store, eventID)
	t.Fatalf("%s verdict %q, want %q", eventID, e.Verdict, want)
}

// TestFlowReplyDifferentFromRequestIsNotShown is issue 12's second attack: a reply of R$ 99,99
// (with a valid code for R$ 99,99) to a request of R$ 12,34 never reaches the customer.
func TestFlowReplyDifferentFromRequestIsNotShown(t *testing.T) {
	r := newReplayServer(t)
	r.mu.Lock()
	r.answerAmount = 9999
	r.mu.Unlock()
	s, _ := replaySession(t, r)
	f := startFlow(t, s, 120, 40)
	f.waitFor("charges")
	f.keys("n")
	f.waitFor("New charge")
	f.keys("12,34", "ctrl+s")
	f.waitFor("differs from what was asked", "amount is R$ 99,99, R$ 12,34 was requested")
	ch, ok := chargeByID(t, s.Store, replayChargeID)
	if !ok || ch.Mismatch == "" {
		t.Fatalf("charge %+v tracked %v", ch, ok)
	}
	if err := f.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := f.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	view := fm.View()
	if strings.Contains(view, "PIX copia e cola") || strings.Contains(view, "Pague com PIX") || !strings.Contains(view, "not shown to the customer") {
		t.Fatalf("the customer screen is shown:\n%s", view)
	}
	copied := ""
	qrOf(fm).CopyFn = func(s string) { copied = s }
	if cmd := qrOf(fm).Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}}); cmd != nil {
		runReply(cmd)
	}
	if copied != "" {
		t.Fatal("the code of a mismatched charge was copied")
	}
}

// txServer answers GET /v2/transactions/{key} with 404 until landed is set, then with a
// pending transaction; it stands for a service whose POST /pix landed late.
type txServer struct {
	ts     *httptest.Server
	landed atomic.Bool
	mu     sync.Mutex
	gets   int
}

func newTxServer(t *testing.T, key string) *txServer {
	x := &txServer{}
	x.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case req.URL.Path == "/v2/auth":
			_, _ = w.Write([]byte(`{"access_token":"tok","token_type":"Bearer","expires_in":300}`))
		case req.URL.Path == "/v2/transactions/"+key:
			x.mu.Lock()
			x.gets++
			x.mu.Unlock()
			if !x.landed.Load() {
				w.WriteHeader(404)
				_, _ = w.Write([]byte(`{"statusCode":404,"error":"NotFound","message":"Transaction not found","details":{"resource":"Transaction","id":"x"}}`))
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "late-charge-1", "status": "pending", "type": "payment", "paymentMethod": "pix",
				"amount": 50, "currency": "BRL", "createdAt": time.Now().UTC().Format(time.RFC3339)})
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(x.ts.Close)
	return x
}

// TestRecoverKeepsUnconfirmedWhileInFlight is issue 12's third attack: POST /pix delayed past
// the client's timeout; the lookup by Idempotency-Key answers 404 while the first attempt can
// still land. The submission stays unconfirmed (no second charge can be made from it) and is
// resolved when the charge appears; only once no attempt can land is a 404 final.
func TestRecoverKeepsUnconfirmedWhileInFlight(t *testing.T) {
	const key = "pixdash-late-key-0001"
	x := newTxServer(t, key)
	client, err := api.NewClient(x.ts.URL+"/v2", "mp_test_late", "late-secret")
	if err != nil {
		t.Fatal(err)
	}
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	start := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	now := start.Add(48 * time.Second)
	sub := state.Submission{Key: key, Request: api.CreatePixRequest{Amount: 5000, Description: "Venda"}, CreatedAt: start,
		InFlightUntil: start.Add(common.CreateTimeout + common.InFlightMargin)}
	if err := store.BeginSubmission(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Session: &Session{Profile: "late", Env: api.Sandbox, Client: client, Store: store, Close: func() {}},
		Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	pending := func(s *state.Store) int {
		t.Helper()
		subs, err := s.PendingSubmissions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(subs)
	}
	run := func() recoveredMsg {
		t.Helper()
		msg, ok := m.recoverSubmissions()().(recoveredMsg)
		if !ok {
			t.Fatal("no recoveredMsg")
		}
		m.Update(reply(m, msg))
		return msg
	}
	// 48 s after the first attempt: 404, but an attempt may still land.
	if got := run(); got.pending != 1 || got.abandoned != 0 || pending(store) != 1 {
		t.Fatalf("at 48 s: %+v, pending %d", got, pending(store))
	}
	if !strings.Contains(m.View(), "not confirmed yet") {
		t.Errorf("the merchant is not told: %s", m.View())
	}
	// The service created it at 50 s: the next lookup finds it.
	x.landed.Store(true)
	now = start.Add(60 * time.Second)
	if got := run(); len(got.resolved) != 1 || got.resolved[0].ID != "late-charge-1" || pending(store) != 0 {
		t.Fatalf("after landing: %+v", got)
	}
	// Another submission whose window has passed is abandoned on a 404.
	x.landed.Store(false)
	old := state.Submission{Key: key, Request: api.CreatePixRequest{Amount: 5000, Description: "Venda"}, CreatedAt: start,
		InFlightUntil: start.Add(common.CreateTimeout + common.InFlightMargin)}
	store2 := state.OpenMemory()
	t.Cleanup(func() { _ = store2.Close() })
	if err := store2.BeginSubmission(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	m.app.Sess.Store = store2
	now = start.Add(common.CreateTimeout + common.InFlightMargin + time.Second)
	if got := run(); got.abandoned != 1 || got.pending != 0 || pending(store2) != 0 {
		t.Fatalf("past the window: %+v", got)
	}
}

// TestVerdictReasonWording: every reason pixdash records is worded in the screen's language,
// and a reason of another form is shown sanitized.
func TestVerdictReasonWording(t *testing.T) {
	cases := []struct {
		reason, en, pt string
	}{
		{state.Reason(state.ReasonStatus, "payment_completed", "pending"), "payment received, but the service says the charge is pending", "pagamento recebido, mas o serviço diz que a cobrança está pendente"},
		{state.Reason(state.ReasonAmount, "100", "1500"), "the event says R$ 1,00, the service R$ 15,00", "o evento diz R$ 1,00, o serviço R$ 15,00"},
		{state.Reason(state.ReasonE2E), "the event's end-to-end id differs from the service's", "o e2eId do evento difere do serviço"},
		{state.Reason(state.ReasonOtherTransaction), "the service answered for another transaction", "o serviço respondeu por outra transação"},
		{state.Reason(state.ReasonNoTransaction), "the event names no transaction", "o evento não indica transação"},
		{state.Reason(state.ReasonNotFound, "tx-9", "loja-a"), "the service does not know transaction tx-9 in wallet loja-a", "o serviço não conhece a transação tx-9 na carteira loja-a"},
		{state.Reason(state.ReasonNotFound, "tx\x1b]2;x\x07", "loja"), "the service does not know transaction tx ]2;x  in wallet loja", "o serviço não conhece a transação tx ]2;x  na carteira loja"},
		{"something \u202eelse", "something else", "something else"},
	}
	for _, tc := range cases {
		if got := common.VerdictReason(common.Catalog{Lang: common.LangEN}, tc.reason); got != tc.en {
			t.Errorf("en %q: %q, want %q", tc.reason, got, tc.en)
		}
		if got := common.VerdictReason(common.Catalog{Lang: common.LangPT}, tc.reason); got != tc.pt {
			t.Errorf("pt %q: %q, want %q", tc.reason, got, tc.pt)
		}
	}
}
