package ui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

// goldenNow is the fixed clock of every golden view.
var goldenNow = time.Date(2026, 11, 21, 14, 30, 0, 0, time.UTC)

// goldenCode is a valid BR Code for R$ 12,34, built once so the QR is the same every run.
func goldenCode(t testing.TB, amount api.Money) string {
	t.Helper()
	code, err := api.EncodeBRCode(api.BRCodeParams{
		URL: "pix.example.com/qr/v2/cobv/0c1d2e3f", MerchantName: "Padaria Pao Quente", MerchantCity: "Sao Paulo", Amount: amount,
	})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// goldenSession is a session whose client is never called (golden views call View only).
func goldenSession(t testing.TB, env api.Environment) *Session {
	t.Helper()
	id := "mp_test_golden"
	if env == api.Production {
		id = "mp_live_golden"
	}
	store := state.OpenMemory(state.WithClock(func() time.Time { return goldenNow }), state.WithLocation(time.UTC))
	t.Cleanup(func() { _ = store.Close() })
	return &Session{Profile: "loja-centro", Env: env, Client: deadClient(t, id), Store: store}
}

// goldenCharges fills the store with a fixed mix of charges.
func goldenCharges(t testing.TB, s *Session) {
	t.Helper()
	paid := goldenNow.Add(-50 * time.Minute)
	refundAt := goldenNow.Add(-2 * time.Hour)
	e2e := "E99990001202611211230refund0001"
	rows := []state.Charge{
		{ID: "3f6c1a2e-0000-4000-8000-000000000001", Amount: 1234, Description: "Café e pão de queijo", ExternalReference: "PED-1001",
			Status: api.StatusPending, CreatedAt: goldenNow.Add(-2 * time.Minute), ExpiresAt: goldenNow.Add(23*time.Hour + 58*time.Minute),
			PixCopyPaste: goldenCode(t, 1234), Wallet: api.WalletPrincipal},
		{ID: "3f6c1a2e-0000-4000-8000-000000000002", Amount: 8990, Description: "Bolo de fubá inteiro", ExternalReference: "PED-1000",
			Status: api.StatusCompleted, CreatedAt: goldenNow.Add(-55 * time.Minute), PaidAt: &paid, PayerName: "Maria da Silva",
			E2EID: "E99990001202611211340abcdefghijk", Wallet: "loja-sul",
			SplitRequested: []api.SplitItem{{SubAccount: "principal", Amount: 1000}}},
		{ID: "3f6c1a2e-0000-4000-8000-000000000003", Amount: 250000, Description: "Encomenda de festa", ExternalReference: "PED-0999",
			Status: api.StatusFailed, CreatedAt: goldenNow.Add(-3 * time.Hour), FailureReason: "Pagamento de CNPJ não permitido",
			BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundConfirmed, E2EID: &e2e, SettledAt: &refundAt}},
			Wallet:         api.WalletPrincipal},
		{ID: "3f6c1a2e-0000-4000-8000-000000000004", Amount: 500, Description: "Pingado", Status: api.StatusCancelled, Expired: true,
			CreatedAt: goldenNow.Add(-26 * time.Hour), ExpiresAt: goldenNow.Add(-2 * time.Hour), Wallet: api.WalletPrincipal},
	}
	for _, ch := range rows {
		ch.UpdatedAt = ch.CreatedAt
		if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
}

// goldenModel is a dashboard at the given size on its first view, with that view's reads done
// (as the runtime runs Init's activate before the first frames).
func goldenModel(t testing.TB, s *Session, w, h int) *Model {
	t.Helper()
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	settle(t, m, m.focusActive())
	return m
}

// openQRByID opens the QR screen of a tracked charge, as enter on its row does.
func openQRByID(t testing.TB, m *Model, id string) {
	t.Helper()
	ch, ok := chargeByID(t, m.app.Sess.Store, id)
	if !ok {
		t.Fatalf("charge %s is not tracked", id)
	}
	m.openQR(ch)
}

var goldenSizes = [][2]int{{80, 24}, {120, 40}}

func TestGoldenViews(t *testing.T) {
	type setup func(t *testing.T, m *Model)
	cases := []struct {
		name string
		env  api.Environment
		full bool
		do   setup
	}{
		{"charges_empty", api.Sandbox, false, nil},
		{"charges_full", api.Sandbox, true, nil},
		{"charges_filtered_none", api.Sandbox, true, func(t *testing.T, m *Model) {
			send(t, m, runeKey("/"))
			for _, r := range "zzz" {
				send(t, m, runeKey(string(r)))
			}
			send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
		}},
		{"help", api.Sandbox, true, func(t *testing.T, m *Model) { m.Update(runeKey("?")) }},
		{"new_charge_errors", api.Sandbox, false, func(t *testing.T, m *Model) {
			m.Update(runeKey("n"))
			formOf(m).Key = "pixdash-golden-key-0001"
			for _, r := range "0,5" {
				m.Update(runeKey(string(r)))
			}
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
			m.Update(common.StatusMsg{Text: m.c.Tr.T("kit.fix_the_highlighted_fields_nothing_was"), Kind: common.StatusError})
		}},
		{"qr_pending", api.Sandbox, true, func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000001") }},
		{"qr_paid", api.Sandbox, true, func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000002") }},
		{"qr_failed", api.Sandbox, true, func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000003") }},
		{"qr_expired", api.Sandbox, true, func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000004") }},
		{"production_confirm", api.Production, true, func(t *testing.T, m *Model) {
			m.Update(reply(m, newcharge.ChargeSubmitMsg{Draft: newcharge.ChargeDraft{Key: "k-golden-0001", Req: api.CreatePixRequest{Amount: 1234}}}))
		}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, tc.env)
				if tc.full {
					goldenCharges(t, s)
				}
				m := goldenModel(t, s, size[0], size[1])
				if tc.do != nil {
					tc.do(t, m)
				}
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

func TestGoldenTooSmall(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 60, 20)
	teatest.RequireEqualOutput(t, []byte(m.View()))
}

func runeKey(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
