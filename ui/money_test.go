package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/refund"
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
	f.waitFor("DEVOLVIDO", "devolvida ao pagador (MED) R$ 50,00")
}

// The list says what happened to each charge's money, from the store's confirmed facts: a
// refund, a MED block returned or open, and a charge the service no longer knows (not
// "○ pending … in 23h50m"). The status filter walks the new states too.
func TestChargesListShowsTheMoneyOutcome(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	ctx := context.Background()
	paidAt := goldenNow.Add(-time.Hour)
	add := func(c state.Charge) {
		t.Helper()
		c.Wallet, c.CreatedAt, c.UpdatedAt = api.WalletPrincipal, goldenNow.Add(-2*time.Hour), goldenNow.Add(-2*time.Hour)
		if c.Status == api.StatusCompleted {
			c.PaidAt = &paidAt
		}
		c.ExpiresAt = goldenNow.Add(23*time.Hour + 50*time.Minute)
		if _, err := s.Store.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	add(state.Charge{ID: "c-refunded", Amount: 16350, Description: "Pedido estornado", Status: api.StatusCompleted, Refunded: 3550})
	add(state.Charge{ID: "c-returned", Amount: 5000, Description: "Pedido MED devolvido", Status: api.StatusCompleted})
	add(state.Charge{ID: "c-blocked", Amount: 7000, Description: "Pedido MED aberto", Status: api.StatusCompleted})
	add(state.Charge{ID: "c-gone", Amount: 900, Description: "Pedido sumido", Status: api.StatusPending, NotFound: true, Missing: 5})
	add(state.Charge{ID: "c-paid", Amount: 1200, Description: "Pedido pago", Status: api.StatusCompleted})
	add(state.Charge{ID: "c-big", Amount: 1234567, Description: "Pedido grande", Status: api.StatusCompleted})
	if _, err := s.Store.RecordBlocks(ctx, []api.BalanceBlock{
		{ID: "b1", TransactionID: "c-returned", Amount: 5000, Status: api.BlockApproved, CreatedAt: goldenNow.Add(-30 * time.Minute)},
		{ID: "b2", TransactionID: "c-blocked", Amount: 7000, Status: api.BlockDefended, CreatedAt: goldenNow.Add(-30 * time.Minute)},
		{ID: "b3", TransactionID: "c-big", Amount: 1234567, Status: api.BlockDefended, CreatedAt: goldenNow.Add(-30 * time.Minute)},
	}); err != nil {
		t.Fatal(err)
	}
	m := goldenModel(t, s, 120, 30)
	rows := listRows(t, m.View())
	want := map[string][]string{
		"Pedido estornado":     {"↩ refunded", "−R$ 35,50"},
		"Pedido MED devolvido": {"↩ returned", "−R$ 50,00"},
		"Pedido MED aberto":    {"! blocked", "held R$ 70,00"},
		"Pedido sumido":        {"? not found"},
		"Pedido pago":          {"✓ paid"},
	}
	for desc, parts := range want {
		found := false
		for _, r := range rows {
			if !strings.Contains(r, desc) {
				continue
			}
			found = true
			for _, p := range parts {
				if !strings.Contains(r, p) {
					t.Errorf("row of %s lacks %q: %q", desc, p, r)
				}
			}
			if desc != "Pedido pago" && strings.Contains(r, "paid") || strings.Contains(r, "in 23h") {
				t.Errorf("row of %s: %q", desc, r)
			}
		}
		if !found {
			t.Errorf("no row of %s:\n%s", desc, strings.Join(rows, "\n"))
		}
	}
	// What went back or is held is read whole, at 80 columns and in Portuguese too.
	for _, tc := range []struct {
		lang  common.Lang
		w     int
		parts []string
	}{
		{common.LangEN, 80, []string{"−R$ 35,50", "held R$ 70,00", "held 12.345,67"}},
		{common.LangPT, 80, []string{"−R$ 35,50", "retido R$ 70,00", "retido 12.345,67"}},
		{common.LangEN, 120, []string{"held 12.345,67"}},
	} {
		m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
		send(t, m, tea.WindowSizeMsg{Width: tc.w, Height: 30})
		settle(t, m, m.focusActive())
		screen := m.View()
		for _, p := range tc.parts {
			if !strings.Contains(screen, p) {
				t.Errorf("%s at %d columns lacks %q:\n%s", tc.lang, tc.w, p, screen)
			}
		}
	}
	if !slices.Contains(state.StatusFilters(), state.FilterNotFound) || !slices.Contains(state.StatusFilters(), state.FilterRefunded) {
		t.Error("the status filter does not reach the new states")
	}
}

// R on a charge whose money already went back says so, in both languages, with the amount.
func TestRefundWhyNotSaysWhereTheMoneyWent(t *testing.T) {
	paid := goldenNow
	ch := state.Charge{ID: "c", Amount: 16350, Status: api.StatusCompleted, PaidAt: &paid, Refunded: 3550}
	err := workflow.CheckRefund(ch, nil, false)
	for _, tc := range []struct {
		tr   common.Catalog
		want string
	}{
		{common.Catalog{Lang: common.LangEN}, "This charge was already refunded (R$ 35,50); see the inspector."},
		{common.Catalog{Lang: common.LangPT}, "Esta cobrança já foi estornada (R$ 35,50); veja o inspetor."},
	} {
		if got := refund.WhyNot(tc.tr, ch, err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.tr.Lang, got, tc.want)
		}
	}
	ch.Refunded, ch.Block = 0, &state.Block{ID: "b", Amount: 16350, Status: api.BlockAwaitingResponse}
	if got := refund.WhyNot(common.Catalog{Lang: common.LangEN}, ch, workflow.CheckRefund(ch, nil, false)); got != "Only paid charges can be refunded; this one is blocked." {
		t.Errorf("blocked: %q", got)
	}
}

// A MED block approved while the dashboard was closed shows on its charge once a session
// starts: the blocks of the wallets with charges are read back after signing in.
func TestFlowBlocksResolvedWhileClosedAreReadAtStart(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	ctx := context.Background()
	ch := paidDemoCharge(t, s, 5000, "med fechado")
	ctl := sandbox.NewControl(s.Client)
	b, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: ch.ID, Reason: "golpe"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.ResolveBlock(ctx, b.ID, api.BlockApproved, "procedente"); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := s.Store.Charge(ctx, ch.ID); c.State() != state.StatePaid {
		t.Fatalf("before the session: %s", c.State())
	}
	f := startFlow(t, s, 120, 40)
	waitState(t, s, ch.ID, state.StateReturned)
	f.waitFor("↩ returned", "−R$ 50,00")
}
