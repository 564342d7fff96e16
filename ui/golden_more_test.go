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
	"pixdash/ui/search"
	"pixdash/ui/withdrawal"
)

// Golden views of two overlays: the search "the customer says they paid" (S) and the
// withdrawal form (s in the wallets view), at both golden sizes, in English and Portuguese.
// The golden session's client is dead: every service reply (the search's read-back, the
// wallets and their balances) is sent to the model as its reply message, and the store reads
// the overlays make (the search itself, the wallet's withdrawals) are run and handed back.

// goldenKey is the Idempotency-Key every golden form mints.
const goldenKey = "pixdash-golden-key-0001"

// goldenMoreModel is a dashboard in lang at a size on its first view, with a fixed key minter.
func goldenMoreModel(t *testing.T, s *Session, lang common.Lang, w, h int) *Model {
	t.Helper()
	m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC,
		NewKey: func() string { return goldenKey }})
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	settle(t, m, m.focusActive())
	return m
}

// goldenRun runs cmd (batches and sequences included) and hands m the messages keep selects,
// in order; what m returns for them is not run. Commands that wait are skipped.
func goldenRun(t *testing.T, m *Model, cmd tea.Cmd, keep func(tea.Msg) bool) {
	t.Helper()
	drainCmds(t, cmd, func(msg tea.Msg) tea.Cmd {
		if keep(inner(msg)) {
			m.Update(msg)
		}
		return nil
	})
}

// goldenType types s into the focused field, one key at a time.
func goldenType(m *Model, s string) {
	for _, r := range s {
		m.Update(runeKey(string(r)))
	}
}

// ---- the search ----

// searchOf is the open search, or fails.
func searchOf(t *testing.T, m *Model) *search.Overlay {
	t.Helper()
	o, ok := m.overlays.Top().(*search.Overlay)
	if !ok {
		t.Fatalf("top overlay = %T, want the search", m.overlays.Top())
	}
	return o
}

// goldenSearch opens S, types text and presses enter; the store's answer (not the read-back,
// which would call the dead client) is handed to the search. It returns the matches found.
func goldenSearch(t *testing.T, m *Model, text string) search.FoundMsg {
	t.Helper()
	m.Update(runeKey("S"))
	searchOf(t, m)
	goldenType(m, text)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	var found *search.FoundMsg
	goldenRun(t, m, cmd, func(msg tea.Msg) bool {
		if f, ok := msg.(search.FoundMsg); ok {
			found = &f
		}
		return false
	})
	if found == nil {
		t.Fatalf("searching %q did not read the store", text)
	}
	if found.Err != nil {
		t.Fatalf("searching %q: %v", text, found.Err)
	}
	m.Update(reply(m, *found)) // starts the read-back, whose command is not run
	return *found
}

func TestGoldenSearch(t *testing.T) {
	cases := []struct {
		name string
		lang common.Lang
		do   func(t *testing.T, m *Model)
	}{
		{"prompt", common.LangEN, func(t *testing.T, m *Model) { m.Update(runeKey("S")); searchOf(t, m) }},
		{"prompt_pt", common.LangPT, func(t *testing.T, m *Model) { m.Update(runeKey("S")); searchOf(t, m) }},
		// The store found two charges in the window; the service has not answered yet.
		{"matches_checking", common.LangEN, func(t *testing.T, m *Model) { goldenSearchMatches(t, m, false) }},
		{"matches_checking_pt", common.LangPT, func(t *testing.T, m *Model) { goldenSearchMatches(t, m, false) }},
		// Read back: the service says one is paid; the other's read-back is still out.
		{"matches", common.LangEN, func(t *testing.T, m *Model) { goldenSearchMatches(t, m, true) }},
		{"matches_pt", common.LangPT, func(t *testing.T, m *Model) { goldenSearchMatches(t, m, true) }},
		{"no_match", common.LangEN, func(t *testing.T, m *Model) { goldenSearchNone(t, m) }},
		{"no_match_pt", common.LangPT, func(t *testing.T, m *Model) { goldenSearchNone(t, m) }},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, api.Sandbox)
				goldenCharges(t, s)
				m := goldenMoreModel(t, s, tc.lang, size[0], size[1])
				tc.do(t, m)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

// goldenSearchMatches searches 13:30-14:30 (the paid charge and the pending one) and, when
// readBack, answers the read-back: the service says the first is paid; the second is left
// unchecked, as a match whose answer has not come.
func goldenSearchMatches(t *testing.T, m *Model, readBack bool) {
	t.Helper()
	found := goldenSearch(t, m, "13:30-14:30")
	if len(found.Matches) != 2 {
		t.Fatalf("13:30-14:30 found %d charges, want 2: %+v", len(found.Matches), found.Matches)
	}
	if !readBack {
		return
	}
	ms := append(found.Matches[:0:0], found.Matches...)
	var paid bool
	for i := range ms {
		ch := ms[i].Charge
		if ch.Status != api.StatusCompleted {
			continue
		}
		updated := goldenNow.Add(-50 * time.Minute)
		tx := &api.Transaction{ID: ch.ID, Status: api.StatusCompleted, Type: "deposit", PaymentMethod: "pix", Amount: ch.Amount, Currency: "BRL",
			Description: ch.Description, ExternalReference: ch.ExternalReference, PaidAt: ch.PaidAt, E2EID: ch.E2EID,
			CounterpartName: ch.PayerName, CreatedAt: ch.CreatedAt, UpdatedAt: &updated}
		ms[i].Checked, ms[i].Tx, ms[i].Service = true, tx, state.StatePaid
		paid = true
	}
	if !paid {
		t.Fatal("the window holds no paid charge")
	}
	o := searchOf(t, m)
	m.Update(reply(m, search.CheckedMsg{Tag: found.Tag, Seq: o.Seq, Matches: ms}))
}

// goldenSearchNone searches an e2e id no charge has.
func goldenSearchNone(t *testing.T, m *Model) {
	t.Helper()
	found := goldenSearch(t, m, "E99990000000000000000nothing")
	if len(found.Matches) != 0 {
		t.Fatalf("found %d charges for an unknown e2e id", len(found.Matches))
	}
}

// ---- the withdrawal form ----

// withdrawalOf is the open withdrawal form, or fails.
func withdrawalOf(t *testing.T, m *Model) *withdrawal.Form {
	t.Helper()
	for i := len(m.overlays) - 1; i >= 0; i-- {
		if f, ok := m.overlays[i].(*withdrawal.Form); ok {
			return f
		}
	}
	t.Fatalf("no withdrawal form open (top %T)", m.overlays.Top())
	return nil
}

// goldenWithdrawalOpen shows the wallets view with its list and balances (sent as the
// service's replies, walletsGoldenData: the session's wallet is loja-norte), records one earlier completed withdrawal of loja-centro, selects
// loja-centro (spendable R$ 96,30) and presses s; the form's read of the wallet's withdrawals
// runs against the store.
func goldenWithdrawalOpen(t *testing.T, m *Model) *withdrawal.Form {
	t.Helper()
	requested := goldenNow.Add(-26 * time.Hour)
	if _, err := m.app.Sess.Store.PutWithdrawal(context.Background(), state.Withdrawal{
		Key: "pixdash-golden-key-0000", ID: "9e1f0a3b-0000-4000-8000-000000000001", Wallet: "loja-centro",
		PixKeyType: api.PixKeyCPF, PixKey: "52998224725", HolderName: "João Pereira", HolderDocument: "52998224725",
		Amount: 2000, Fee: 150, NetAmount: 1850, State: state.WithdrawalCompleted, E2EID: "E99990001202611201230withdraw01",
		RequestedAt: requested, UpdatedAt: requested.Add(time.Minute),
	}); err != nil {
		t.Fatal(err)
	}
	m.Update(runeKey("3"))
	wv := m.wallets()
	if !wv.Loading {
		t.Fatal("showing the wallet view did not start loading")
	}
	walletsGoldenData(t, m, wv)
	m.Update(runeKey("g"))
	m.Update(runeKey("j"))
	if r, ok := wv.SelectedLine(); !ok || r.Ref != "loja-centro" {
		t.Fatalf("selected %+v, want loja-centro", r)
	}
	_, cmd := m.Update(runeKey("s"))
	f := withdrawalOf(t, m)
	goldenRun(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(withdrawal.ListMsg); return ok })
	if len(f.List) != 1 || !f.FeeKnown {
		t.Fatalf("the form's list: %+v (fee known %v)", f.List, f.FeeKnown)
	}
	if f.Key != goldenKey {
		t.Fatalf("the form's key is %q", f.Key)
	}
	return f
}

// goldenWithdrawalFill types the fields after the key type (e-mail): key, holder, document,
// then the amount (the mode stays gross).
func goldenWithdrawalFill(m *Model, doc, amount string) {
	goldenType(m, "maria@example.com")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	goldenType(m, "Maria da Silva")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	goldenType(m, doc)
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	goldenType(m, amount)
}

// goldenWithdrawalSubmit presses ctrl+s and hands m the status lines it returns.
func goldenWithdrawalSubmit(t *testing.T, m *Model) {
	t.Helper()
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	goldenRun(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(common.StatusMsg); return ok })
}

func TestGoldenWithdrawal(t *testing.T) {
	filled := func(t *testing.T, m *Model) {
		goldenWithdrawalOpen(t, m)
		goldenWithdrawalFill(m, "529.982.247-25", "50,00")
	}
	errs := func(t *testing.T, m *Model) {
		f := goldenWithdrawalOpen(t, m)
		goldenWithdrawalFill(m, "529.982.247-24", "150,00")
		goldenWithdrawalSubmit(t, m)
		if c := f.Check(); c.Ok || c.Errs[withdrawal.WfDoc] == "" || c.Errs[withdrawal.WfAmount] == "" {
			t.Fatalf("the form's problems: %q", c.Errs)
		}
	}
	confirm := func(t *testing.T, m *Model) {
		f := goldenWithdrawalOpen(t, m)
		goldenWithdrawalFill(m, "529.982.247-25", "50,00")
		goldenWithdrawalSubmit(t, m)
		if top := m.overlays.Top(); top == common.Overlay(f) || top == nil {
			t.Fatalf("ctrl+s on a right form asked nothing (top %T)", top)
		}
	}
	cases := []struct {
		name string
		env  api.Environment
		lang common.Lang
		do   func(t *testing.T, m *Model)
	}{
		{"form", api.Sandbox, common.LangEN, filled},
		{"form_pt", api.Sandbox, common.LangPT, filled},
		{"errors", api.Sandbox, common.LangEN, errs},
		{"errors_pt", api.Sandbox, common.LangPT, errs},
		{"confirm", api.Sandbox, common.LangEN, confirm},
		{"confirm_pt", api.Sandbox, common.LangPT, confirm},
		{"production_typed", api.Production, common.LangEN, confirm},
		{"production_typed_pt", api.Production, common.LangPT, confirm},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, tc.env)
				s.Wallet = "loja-norte" // as TestGoldenWallets: a configured wallet the service does not list
				m := goldenMoreModel(t, s, tc.lang, size[0], size[1])
				tc.do(t, m)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}
