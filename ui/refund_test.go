package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/inspector"
	"pixdash/ui/refund"
)

// paidGoldenCharge is the golden store's paid charge.
func paidGoldenCharge(t testing.TB, m *Model) state.Charge {
	t.Helper()
	ch, ok := chargeByID(t, m.app.Sess.Store, "3f6c1a2e-0000-4000-8000-000000000002")
	if !ok {
		t.Fatal("the paid golden charge is not tracked")
	}
	return ch
}

// topRefundForm is the refund form on top of the stack.
func topRefundForm(t testing.TB, m *Model) *refund.Form {
	t.Helper()
	for i := len(m.overlays) - 1; i >= 0; i-- {
		if f, ok := m.overlays[i].(*refund.Form); ok {
			return f
		}
	}
	t.Fatal("no refund form on the stack")
	return nil
}

func TestGoldenRefund(t *testing.T) {
	type setup func(t *testing.T, m *Model)
	open := func(t *testing.T, m *Model) *refund.Form {
		m.push(refund.NewRefundForm(m.c, paidGoldenCharge(t, m)))
		return topRefundForm(t, m)
	}
	cases := []struct {
		name string
		env  api.Environment
		lang common.Lang
		do   setup
	}{
		{"form", api.Sandbox, common.LangEN, func(t *testing.T, m *Model) { open(t, m) }},
		{"form_pt", api.Sandbox, common.LangPT, func(t *testing.T, m *Model) { open(t, m) }},
		// Backspaces cannot cut the amount: it is fixed (issue 21 #19).
		{"form_fee_known_amount_fixed", api.Sandbox, common.LangEN, func(t *testing.T, m *Model) {
			f := open(t, m)
			f.Update(refund.FeeMsg{Key: f.Key, Fee: 0, Known: true})
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		}},
		{"confirm", api.Sandbox, common.LangEN, func(t *testing.T, m *Model) {
			open(t, m)
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
		}},
		{"production_typed", api.Production, common.LangEN, func(t *testing.T, m *Model) {
			open(t, m)
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
			m.Update(runeKey("y"))
			m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		}},
		{"production_typed_pt", api.Production, common.LangPT, func(t *testing.T, m *Model) {
			open(t, m)
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
		}},
		{"refused", api.Sandbox, common.LangEN, func(t *testing.T, m *Model) {
			f := open(t, m)
			err := &api.Error{HTTPStatus: 400, Kind: "BadRequest", Message: "Insufficient balance: spendable 52.53, required 89.90", TraceID: "0123456789abcdef0123456789abcdef"}
			_, cmd := m.Update(reply(m, refund.DoneMsg{Tag: m.app.Tag(), Key: f.Key, Out: refusedOutcome(err)}))
			if msg := runReply(cmd); msg != nil {
				m.Update(reply(m, msg))
			}
		}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, tc.env)
				goldenCharges(t, s)
				m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
				send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				settle(t, m, m.focusActive())
				tc.do(t, m)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

// The charges row and R: a charge that is not paid says why, and nothing opens.
func TestRefundKeyOnRowsThatCannotBeRefunded(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	_, cmd := m.Update(runeKey("R")) // the pending charge is first
	if cmd == nil {
		t.Fatal("R on a pending charge did nothing")
	}
	msg := runReply(cmd)
	st, ok := msg.(common.StatusMsg)
	if !ok || !strings.Contains(st.Text, "Only paid charges can be refunded; this one is pending") {
		t.Fatalf("R on a pending charge: %#v", msg)
	}
	m.Update(reply(m, msg))
	if len(m.overlays) != 0 {
		t.Fatal("a form opened for a pending charge")
	}
	// Read-only profiles refuse.
	s.ReadOnly = true
	ch := paidGoldenCharge(t, m)
	o, cmd := refund.AskRefund(m.c, ch)
	if o != nil || cmd == nil {
		t.Fatalf("read-only: form %v", o)
	}
	if msg := runReply(cmd); !strings.Contains(fmt.Sprint(msg), "read-only") {
		t.Fatalf("read-only: %#v", msg)
	}
}

// The form parses the amount as the charge form does: more than 2 decimals is an error, and
// the service refunds only the whole amount.
func TestRefundFormAmountRules(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	m.push(refund.NewRefundForm(m.c, paidGoldenCharge(t, m)))
	f := topRefundForm(t, m)
	for _, tc := range []struct {
		typed string
		ok    bool
		want  string
	}{
		{"89,90", true, ""},
		{"R$ 89,90", true, ""},
		{"89.90", true, ""},
		{"89,901", false, "decimal"},
		{"50,00", false, "whole amount"},
		{"100", false, "More than the charge"},
		{"abc", false, "not an amount"},
	} {
		f.Inputs[refund.RfAmount].SetValue(tc.typed)
		_, ok := f.Validate()
		if ok != tc.ok || (tc.want != "" && !strings.Contains(f.Errs[refund.RfAmount], tc.want)) {
			t.Errorf("%q: ok %v, error %q", tc.typed, ok, f.Errs[refund.RfAmount])
		}
	}
	// An invalid form sends nothing and asks nothing.
	f.Inputs[refund.RfAmount].SetValue("89,901")
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	if f.Question != nil || f.Sending {
		t.Fatal("an invalid amount reached the confirmation")
	}
}

// refusedOutcome is a refusal as the workflow reports it.
func refusedOutcome(err error) workflow.RefundOutcome {
	return workflow.RefundOutcome{Kind: workflow.RefundRefused, Err: err, Sent: true}
}

// refundState is the state of the refund pixdash recorded for a charge ("" for none).
func refundState(t *testing.T, s *Session, id string) state.RefundState {
	t.Helper()
	r, ok, err := s.Store.RefundOf(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return r.State
}

// paidDemoCharge creates and pays a charge on the emulator and tracks it, as a payment seen
// elsewhere would be.
func paidDemoCharge(t *testing.T, s *Session, amount api.Money, desc string) state.Charge {
	t.Helper()
	ctx := context.Background()
	pix, err := s.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: amount, Description: desc}, api.WithIdempotencyKey(api.NewIdempotencyKey()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Simulator.Pay(ctx, pix.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	tx, err := s.Client.GetTransaction(ctx, pix.ID)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Store.TrackTransaction(ctx, tx, api.WalletPrincipal)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// From the charges list and from the inspector, against the emulator: the form, y, the
// service takes it, refund_completed settles it; the row and the inspector show it.
func TestFlowRefundFromListAndInspector(t *testing.T) {
	s, _ := demo(t, DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.05)}})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	// A pending row says why not.
	f.newCharge("7", "pendente")
	f.waitFor("Pague com PIX")
	f.keys("esc")
	f.waitFor("pendente")
	f.keys("g", "R")
	f.waitFor("Only paid charges can be refunded; this one is pending.")

	ch := paidDemoCharge(t, s, 1000, "lista")
	f.waitFor("lista")
	f.keys("g", "R")
	f.waitFor("Refund a charge", "lista", "R$ 10,00 + refund fee")
	f.keys("tab", "cliente desistiu", "ctrl+s")
	f.waitFor("Refund R$ 10,00 of charge lista")
	f.keys("y")
	f.waitFor("taken by the service (pending)")
	f.waitFor("refunded", "completed.")
	if st := refundState(t, s, ch.ID); st != state.RefundCompleted {
		t.Fatalf("refund of the list's charge: %q", st)
	}

	// From the inspector.
	ch2 := paidDemoCharge(t, s, 2000, "inspetor")
	f.waitFor("inspetor")
	f.keys("g", "i")
	f.waitFor("Transaction", "R$ 20,00")
	f.keys("R")
	f.waitFor("Refund a charge", "inspetor")
	f.keys("ctrl+s")
	f.waitFor("Refund R$ 20,00 of charge inspetor")
	f.keys("y")
	f.waitFor("1 refund of R$ 20,00")
	if st := refundState(t, s, ch2.ID); st != state.RefundCompleted && st != state.RefundPending {
		t.Fatalf("refund from the inspector: %q", st)
	}
	// Again from the inspector: already refunded here.
	f.keys("R")
	f.waitFor("already refunded from pixdash")
}

// In production y is not enough: the amount must be typed.
func TestFlowRefundProductionNeedsTheTypedAmount(t *testing.T) {
	s, _ := demo(t, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	s.Demo = false
	f := startFlow(t, s, 120, 40)
	f.waitFor("PRODUCTION")
	ch := paidDemoCharge(t, s, 1234, "ao vivo")
	f.waitFor("ao vivo")
	f.keys("g", "R")
	f.waitFor("Refund a charge")
	f.keys("ctrl+s")
	f.waitFor("PRODUCTION: refund R$ 12,34 of charge ao vivo", "Type the amount to confirm")
	f.keys("y", "enter")
	f.waitFor("Type R$ 12,34 exactly to confirm; nothing was sent.")
	if st := refundState(t, s, ch.ID); st != "" {
		t.Fatalf("y alone sent the refund (%q)", st)
	}
	f.tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	f.keys("12,35")
	// A frame without the message must be drawn before enter brings it back: the renderer
	// prints only the lines that changed since its last frame.
	f.waitFor("12,35")
	f.keys("enter")
	f.waitFor("Type R$ 12,34 exactly to confirm; nothing was sent.")
	for range 5 {
		f.tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	f.keys("12,34", "enter")
	f.waitFor("taken by the service (pending)")
	if st := refundState(t, s, ch.ID); st != state.RefundPending && st != state.RefundCompleted {
		t.Fatalf("the typed amount did not send the refund (%q)", st)
	}
}

// R in the inspector on what is not a paid payment (a refund line with its negative amount, a
// withdrawal, a fee) says why not and opens nothing; a paid payment still opens the form. The
// charges list's R goes through the same rule for a tracked row whose amount is not positive.
func TestRefundKeyOnlyOnPaidPayments(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	paid := paidGoldenCharge(t, m)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	line := func(typ api.TxType, amount api.Money) *api.Transaction {
		return &api.Transaction{ID: "line-" + string(typ), Type: typ, Status: api.StatusCompleted,
			Amount: amount, CreatedAt: now, PaidAt: &now}
	}
	for _, tc := range []struct {
		name, want string
		tx         *api.Transaction
		tracked    bool
	}{
		{"refund line", "this transaction is of type refund (-R$ 12,50)", line(api.TypeRefund, -1250), false},
		{"withdrawal", "this transaction is of type withdrawal", line(api.TypeWithdrawal, -5000), false},
		{"fee", "this transaction is of type fee", line(api.TypeFee, -50), false},
		{"untyped negative line", "this is a refund line (-R$ 12,50)", line("", -1250), false},
		{"refund line read for a tracked row", "this transaction is of type refund", line(api.TypeRefund, -1250), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &inspector.InspectResult{Query: tc.tx.ID, Wallet: "principal", Tx: tc.tx, Tracked: tc.tracked}
			if tc.tracked {
				r.Charge = paid
			}
			o, cmd := refund.FromInspector(m.c, r.Charge, r.Tracked, r.Tx, r.Wallet)
			if o != nil {
				t.Fatalf("a refund form opened for a %s", tc.name)
			}
			if cmd == nil {
				t.Fatal("R said nothing")
			}
			st, ok := runReply(cmd).(common.StatusMsg)
			if !ok || !strings.Contains(st.Text, "Only payments can be refunded") || !strings.Contains(st.Text, tc.want) {
				t.Fatalf("R on a %s: %#v", tc.name, st)
			}
		})
	}
	// The charges list: a tracked row whose amount is not money received.
	neg := paid
	neg.Amount = -1250
	if o, cmd := refund.AskRefund(m.c, neg); o != nil || cmd == nil {
		t.Fatalf("a refund form opened for a negative row: %v", o)
	} else if st, _ := runReply(cmd).(common.StatusMsg); !strings.Contains(st.Text, "Only payments can be refunded") {
		t.Fatalf("R on a negative row: %#v", st)
	}
	// A paid payment still opens the form.
	pay := line(api.TypePayment, paid.Amount)
	pay.ID = paid.ID
	o, _ := refund.FromInspector(m.c, paid, true, pay, "principal")
	if _, ok := o.(*refund.Form); !ok {
		t.Fatalf("R on the paid payment: %v", o)
	}
}
