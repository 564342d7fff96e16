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
	"pixdash/ui/common"
	"pixdash/ui/inspector"
)

func inspectorOf(m *Model) *inspector.View {
	return m.panes[viewInspector].(*inspector.View)
}

// goldenFailedTx is a failed charge with every optional field: a blocked CNPJ deposit whose
// refund settled, metadata and a counterpart document.
func goldenFailedTx() *api.Transaction {
	created := goldenNow.Add(-3 * time.Hour)
	updated := goldenNow.Add(-2*time.Hour - 59*time.Minute)
	settled := goldenNow.Add(-2*time.Hour - 58*time.Minute)
	refundE2E := "D99990001202611211131refund0001"
	return &api.Transaction{
		ID: "3f6c1a2e-0000-4000-8000-000000000003", Status: api.StatusFailed, Type: api.TypePayment,
		PaymentMethod: api.MethodPix, Amount: 250000, Currency: "BRL",
		Description: "Encomenda de festa", ExternalReference: "PED-0999",
		CustomerID: "9b1c2d3e-1111-4222-8333-444455556666", ProjectID: "0a1b2c3d-7777-4888-9999-aaaabbbbcccc",
		Metadata: map[string]any{"pedido": "0999", "canal": "balcão", "itens": float64(3), "vip": true},
		E2EID:    "E99990001202611211130abcdefghijk", CounterpartName: "Eventos Alfa S.A.", CounterpartDocument: "11222333000181",
		FailureReason: "Pagamento de CNPJ não permitido",
		BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed,
			Refund: &api.Refund{Status: api.RefundConfirmed, E2EID: &refundE2E, SettledAt: &settled}},
		CreatedAt: created, UpdatedAt: &updated,
	}
}

// goldenTransferTx is the outgoing statement line of a split leg.
func goldenTransferTx() *api.Transaction {
	at := goldenNow.Add(-50 * time.Minute)
	return &api.Transaction{
		ID: "7a7a7a7a-0000-4000-8000-00000000abcd", Status: api.StatusCompleted, Type: api.TypeInternalTransfer,
		PaymentMethod: api.MethodPix, Amount: -1000, Currency: "BRL", Description: "Split enviado para loja-sul",
		CreatedAt: at, UpdatedAt: &at,
	}
}

// goldenSplitTx is a paid charge whose split was requested and then distributed in part.
func goldenSplitTx() (*api.Transaction, state.Charge) {
	created := goldenNow.Add(-55 * time.Minute)
	paid := goldenNow.Add(-50 * time.Minute)
	tx := &api.Transaction{
		ID: "3f6c1a2e-0000-4000-8000-000000000002", Status: api.StatusCompleted, Type: api.TypePayment,
		PaymentMethod: api.MethodPix, Amount: 8990, Currency: "BRL", Description: "Bolo de fubá inteiro",
		ExternalReference: "PED-1000", PaidAt: &paid, E2EID: "E99990001202611211340abcdefghijk",
		CounterpartName: "Maria da Silva", CounterpartDocument: "52998224725", CreatedAt: created, UpdatedAt: &paid,
	}
	ch := state.Charge{ID: tx.ID, IdempotencyKey: "pixdash-0123456789abcdef0123456789abcdef", Wallet: "loja-sul",
		SplitRequested:   []api.SplitItem{{SubAccount: "principal", Amount: 1000}, {SubAccount: "parceiro_entregas", Amount: 8000}},
		SplitDistributed: []api.SplitItem{{SubAccount: "principal", Amount: 1000}, {SubAccount: "parceiro_entregas", Amount: 7891}},
		HasDistributed:   true}
	return tx, ch
}

// showLookup drives the inspector as the charges view would, then answers the lookup with tx.
func showLookup(t testing.TB, m *Model, query, wallet string, tx *api.Transaction, ch state.Charge, tracked bool, err error) {
	t.Helper()
	send(t, m, common.InspectMsg{Query: query, Wallet: wallet})
	v := inspectorOf(m)
	send(t, m, inspector.LookupMsg{Tag: m.app.Tag(), Seq: v.Seq, Query: query, Wallet: wallet, Tx: tx, Charge: ch, Tracked: tracked, Err: err})
}

func TestGoldenInspector(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, m *Model)
	}{
		{"empty", func(t *testing.T, m *Model) { send(t, m, runeKey("2")) }},
		{"history", func(t *testing.T, m *Model) {
			for i, l := range []state.Lookup{
				{Query: "PED-0999", Wallet: "principal", Found: true, TxID: "3f6c1a2e-0000-4000-8000-000000000003", At: goldenNow.Add(-3 * time.Hour)},
				{Query: "nao-existe", Wallet: "loja-sul", At: goldenNow.Add(-40 * time.Minute)},
				{Query: "3f6c1a2e-0000-4000-8000-000000000001", Wallet: "principal", Found: true, TxID: "3f6c1a2e-0000-4000-8000-000000000001", At: goldenNow.Add(-2 * time.Minute)},
			} {
				if err := m.app.Sess.Store.AddLookup(context.Background(), l); err != nil {
					t.Fatal(i, err)
				}
			}
			send(t, m, runeKey("2"))
			send(t, m, tea.KeyMsg{Type: tea.KeyDown})
		}},
		{"failed_blocked", func(t *testing.T, m *Model) {
			tx := goldenFailedTx()
			showLookup(t, m, "PED-0999", "principal", tx, state.Charge{}, false, nil)
		}},
		{"failed_blocked_scrolled", func(t *testing.T, m *Model) {
			showLookup(t, m, "PED-0999", "principal", goldenFailedTx(), state.Charge{}, false, nil)
			m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
			m.Update(runeKey("v"))
		}},
		{"internal_transfer", func(t *testing.T, m *Model) {
			tx := goldenTransferTx()
			showLookup(t, m, tx.ID, "loja-centro", tx, state.Charge{}, false, nil)
		}},
		{"split", func(t *testing.T, m *Model) {
			tx, ch := goldenSplitTx()
			showLookup(t, m, "pixdash-0123456789abcdef0123456789abcdef", "loja-sul", tx, ch, true, nil)
			m.Update(tea.KeyMsg{Type: tea.KeyEnd})
		}},
		{"not_found", func(t *testing.T, m *Model) {
			showLookup(t, m, "nao-existe-0001", "principal", nil, state.Charge{}, false,
				&api.Error{HTTPStatus: 404, Kind: "NotFound", Message: "Transaction nao-existe-0001 not found", TraceID: "t-404"})
		}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m := goldenModel(t, goldenSession(t, api.Sandbox), size[0], size[1])
				tc.do(t, m)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

func TestInspectorFocusAndCapturesText(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	m.Update(runeKey("2"))
	if v.CapturesText() {
		t.Fatal("the input grabbed the keyboard on arrival: the view keys 1-5 would type instead")
	}
	m.Update(runeKey("4"))
	if m.view != viewBlocks {
		t.Fatalf("4 did not switch view from the inspector: %v", m.view)
	}
	m.Update(runeKey("2"))
	m.Update(runeKey("/"))
	if !v.CapturesText() {
		t.Fatal("/ did not focus the input")
	}
	for _, r := range "q1" {
		m.Update(runeKey(string(r)))
	}
	if m.view != viewInspector || v.Input.Value() != "q1" {
		t.Fatalf("typing did not go to the input: view=%v value=%q", m.view, v.Input.Value())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if v.CapturesText() {
		t.Fatal("esc did not leave the input")
	}
	m.Update(runeKey("/"))
	if !v.CapturesText() || v.Input.Value() != "" {
		t.Fatalf("/ did not start a new lookup: focused=%v value=%q", v.CapturesText(), v.Input.Value())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Update(runeKey("1"))
	if m.view != viewCharges {
		t.Fatal("view keys do not work once the input is left")
	}
	// With a result on screen the view opens without grabbing the keyboard.
	showLookup(t, m, "PED-0999", "principal", goldenFailedTx(), state.Charge{}, false, nil)
	m.Update(runeKey("1"))
	m.Update(runeKey("2"))
	if v.CapturesText() {
		t.Fatal("the input grabbed the keyboard over a result")
	}
}

func TestInspectorEnumsAndDirection(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	base := func() *api.Transaction {
		return &api.Transaction{ID: "t1", Status: api.StatusCompleted, Type: api.TypeInternalTransfer, PaymentMethod: api.MethodPix, Currency: "BRL", CreatedAt: goldenNow}
	}
	cases := []struct {
		name    string
		edit    func(tx *api.Transaction)
		want    []string
		notWant []string
	}{
		{"outgoing", func(tx *api.Transaction) { tx.Amount, tx.Description = -1234, "Split enviado para a conta principal" },
			[]string{"→ sent (outgoing)", "-R$ 12,34", "Split enviado para a conta principal"}, []string{"received"}},
		{"incoming", func(tx *api.Transaction) {
			tx.Amount, tx.Description = 1234, "Split recebido do pagamento 3f6c1a2e-0000-4000-8000-000000000002"
		}, []string{"← received (incoming)", "R$ 12,34", "Split recebido do pagamento"}, []string{"sent (outgoing)"}},
		{"payment has no direction", func(tx *api.Transaction) { tx.Type, tx.Amount = api.TypePayment, 500 }, nil, []string{"Direction"}},
		{"unknown enums kept", func(tx *api.Transaction) {
			tx.Status, tx.Type, tx.PaymentMethod, tx.Amount = "under_review", "cashback", "pix_automatico", 100
			tx.BlockedDeposit = &api.BlockedDeposit{Reason: "new_policy", Refund: &api.Refund{Status: "scheduled"}}
		}, []string{"? under_review (not in the spec)", "cashback (not in the spec)", "pix_automatico (not in the spec)", "new_policy", "scheduled (not in the spec)"}, nil},
		{"metadata sorted", func(tx *api.Transaction) {
			tx.Type, tx.Amount = api.TypePayment, 100
			tx.Metadata = map[string]any{"b": "2", "a": "1", "c": map[string]any{"x": 1}}
		}, []string{"a = 1\n  b = 2\n  c = {\"x\":1}"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx := base()
			tc.edit(tx)
			out := strings.Join(v.DetailLines(&inspector.InspectResult{Query: "t1", Wallet: "principal", Tx: tx}, 120), "\n")
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("missing %q in:\n%s", s, out)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(out, s) {
					t.Errorf("unexpected %q in:\n%s", s, out)
				}
			}
		})
	}
}

func TestInspectorDocumentMaskedUntilRevealed(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	tx := goldenFailedTx()
	tx.CounterpartDocument = "52998224725"
	showLookup(t, m, tx.ID, "principal", tx, state.Charge{}, false, nil)
	if out := m.View(); strings.Contains(out, "529.982.247-25") || strings.Contains(out, "52998224725") || !strings.Contains(out, "***.982.247-**") {
		t.Fatalf("document not masked by default:\n%s", out)
	}
	m.Update(runeKey("v"))
	if out := m.View(); !strings.Contains(out, "529.982.247-25") {
		t.Fatalf("v did not reveal the document:\n%s", out)
	}
	m.Update(runeKey("v"))
	if out := m.View(); strings.Contains(out, "529.982.247-25") {
		t.Fatal("v did not hide the document again")
	}
	// A new transaction starts masked again.
	other := goldenFailedTx()
	other.ID = "another"
	m.Update(runeKey("v"))
	showLookup(t, m, other.ID, "principal", other, state.Charge{}, false, nil)
	if out := m.View(); strings.Contains(out, "11.222.333/0001-81") {
		t.Fatal("the reveal carried over to another transaction")
	}
}

func TestInspectorDropsStaleAndSupersededReplies(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	m.Update(common.InspectMsg{Query: "first", Wallet: "principal"})
	first := v.Seq
	m.Update(common.InspectMsg{Query: "second", Wallet: "principal"})
	m.Update(reply(m, inspector.LookupMsg{Tag: m.app.Tag(), Seq: first, Query: "first", Wallet: "principal", Tx: goldenTransferTx()}))
	if v.Res != nil || !v.Loading {
		t.Fatal("a superseded lookup reply was applied")
	}
	m.Update(reply(m, inspector.LookupMsg{Tag: common.Tag{Gen: m.app.Gen + 1, Wallet: m.app.Wallet}, Seq: v.Seq, Query: "second", Wallet: "principal", Tx: goldenTransferTx()}))
	if v.Res != nil {
		t.Fatal("a reply of another session was applied")
	}
	seq := v.Seq
	m.Update(common.SwitchWalletMsg{Wallet: "loja-sul"})
	m.Update(reply(m, inspector.LookupMsg{Tag: common.Tag{Gen: m.app.Gen, Wallet: "principal"}, Seq: seq, Query: "second", Wallet: "principal", Tx: goldenTransferTx()}))
	if v.Res != nil || v.Loading {
		t.Fatalf("a lookup made before the wallet switch was applied (loading=%v)", v.Loading)
	}
}

func TestInspectorRefreshesOnEventsAboutItsTransaction(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	tx := goldenTransferTx()
	showLookup(t, m, "ref", "loja-centro", tx, state.Charge{}, false, nil)
	if cmd := v.Update(common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventPaymentCompleted, TransactionID: "other"}}); cmd != nil || v.Loading {
		t.Fatal("an event about another transaction refreshed the inspector")
	}
	if cmd := v.Update(common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventPaymentCompleted, TransactionID: tx.ID}}); cmd == nil ||
		!v.Loading || v.PendingQuery != "ref" || v.PendingWallet != "loja-centro" {
		t.Fatalf("an event about the transaction on screen did not refresh it in its wallet: loading=%v %q %q", v.Loading, v.PendingQuery, v.PendingWallet)
	}
	if !strings.Contains(m.View(), "refreshing…") || !strings.Contains(m.View(), "Split enviado para loja-sul") {
		t.Fatal("the refresh hid the data on screen")
	}
}

func TestInspectorErrorsOtherThanNotFound(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	subNotFound := &api.Error{HTTPStatus: 404, Kind: "NotFound", Code: api.CodeSubAccountNotFound, Message: "SUB_ACCOUNT_NOT_FOUND: no such sub-account", TraceID: "t-9"}
	showLookup(t, m, "x", "fantasma", nil, state.Charge{}, false, subNotFound)
	out := m.View()
	if strings.Contains(out, "Nothing matched") || !strings.Contains(out, "SUB_ACCOUNT_NOT_FOUND") || !strings.Contains(out, "t-9") || !strings.Contains(out, "wallet list (w)") {
		t.Fatalf("a wallet error was not explained as one:\n%s", out)
	}
	showLookup(t, m, "x", "principal", nil, state.Charge{}, false, &api.Error{HTTPStatus: 500, Kind: "InternalError", Message: "boom", TraceID: "t-500"})
	if out := m.View(); !strings.Contains(out, "look up transaction: boom [trace t-500]") || !strings.Contains(out, "r retries") {
		t.Fatalf("a server error is not shown with its trace and hint:\n%s", out)
	}
}

func TestInspectorQROnlyForPendingPix(t *testing.T) {
	cases := []struct {
		name string
		edit func(tx *api.Transaction)
		want bool
	}{
		{"pending pix with code", func(*api.Transaction) {}, true},
		{"paid", func(tx *api.Transaction) { tx.Status = api.StatusCompleted }, false},
		{"no code", func(tx *api.Transaction) { tx.PixCopyPaste = "" }, false},
		{"boleto", func(tx *api.Transaction) { tx.PaymentMethod = api.MethodBoleto }, false},
		{"withdrawal", func(tx *api.Transaction) { tx.Type = api.TypeWithdrawal }, false},
	}
	for _, tc := range cases {
		tx := &api.Transaction{ID: "p", Status: api.StatusPending, Type: api.TypePayment, PaymentMethod: api.MethodPix, PixCopyPaste: "000201..."}
		tc.edit(tx)
		if got := inspector.QrAvailable(tx); got != tc.want {
			t.Errorf("%s: qrAvailable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// --- flows against the emulator ---------------------------------------------------------------

// createTestCharge creates a pending charge in the emulator, outside the dashboard.
func createTestCharge(t *testing.T, s *Session, amount api.Money, desc, ref, key string) *api.PixCharge {
	t.Helper()
	pix, err := s.Client.CreatePix(context.Background(), &api.CreatePixRequest{Amount: amount, Description: desc, ExternalReference: ref}, api.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return pix
}

func TestFlowInspectorLookupByEachKey(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	key := "pixdash-flow-inspector-key-0001"
	pix := createTestCharge(t, s, 4321, "Consulta tripla", "insp-ref-0001", key)
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("2")
	f.waitFor("transaction id, external reference or idempotency key", "No recent lookups yet.")
	f.keys("/", pix.ID, "enter")
	f.waitFor("wallet principal · matched by id", "R$ 43,21", "Consulta tripla", pix.ID)
	f.keys("esc")
	f.waitFor("Recent lookups")
	f.keys("/", "insp-ref-0001", "enter")
	f.waitFor("wallet principal · matched by external reference", "R$ 43,21", "Consulta tripla", pix.ID)
	f.keys("esc")
	f.waitFor("insp-ref-0001")
	f.keys("/", key, "enter")
	f.waitFor("wallet principal · matched by idempotency key", "R$ 43,21", "Consulta tripla", pix.ID)
	got, err := s.Store.RecentLookups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Query != key || got[1].Query != "insp-ref-0001" || got[2].Query != pix.ID {
		t.Fatalf("history = %+v", got)
	}
	for _, l := range got {
		if !l.Found || l.TxID != pix.ID || l.Wallet != api.WalletPrincipal {
			t.Fatalf("history entry %+v", l)
		}
	}
	// The history re-runs an entry: the oldest, by id.
	f.keys("esc")
	f.waitFor("Recent lookups")
	f.keys("G", "enter")
	f.waitFor("matched by id")
}

func TestFlowInspectorNotFound(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("2", "/", "nao-existe-0001", "enter")
	f.waitFor("Nothing matched “nao-existe-0001” in wallet principal.",
		"It is not a transaction id, an external reference nor an idempotency key of this wallet.", "switch with w")
	if got, err := s.Store.RecentLookups(context.Background()); err != nil || len(got) != 1 || got[0].Found {
		t.Fatalf("history = %+v (%v)", got, err)
	}
	// The same query finds nothing in another wallet either, and says which one it looked in.
	f.keys("esc")
	f.tm.Send(common.SwitchWalletMsg{Wallet: "loja-centro"})
	f.waitFor("Lookups run in wallet loja-centro")
	f.keys("/", "pedido-1001", "enter")
	f.waitFor("Nothing matched “pedido-1001” in wallet loja-centro.")
}

func TestFlowInspectorRevealDocumentAfterPayment(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	pix := createTestCharge(t, s, 1500, "Doc oculto", "", "pixdash-flow-inspector-key-0002")
	if err := s.Simulator.Pay(context.Background(), pix.ID, "Fulano de Tal", "52998224725"); err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("2", "/", pix.ID, "enter")
	f.waitFor("✓ completed", "Fulano de Tal", "***.982.247-** (v reveals)")
	f.keys("v")
	f.waitFor("529.982.247-25 (v hides)")
	f.keys("v")
	f.waitFor("***.982.247-** (v reveals)")
}

func TestFlowInspectorQRKeyOpensQRScreen(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	pix := createTestCharge(t, s, 2222, "QR pelo inspetor", "insp-qr-0001", "pixdash-flow-inspector-key-0003")
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("2", "/", "insp-qr-0001", "enter")
	f.waitFor("○ pending", "Q shows the QR")
	f.keys("Q")
	f.waitFor("Pague com PIX", "QR pelo inspetor")
	ch, ok := chargeByID(t, s.Store, pix.ID)
	if !ok || ch.PixCopyPaste != pix.PixCopyPaste || ch.Wallet != api.WalletPrincipal {
		t.Fatalf("the charge was not tracked before its QR opened: %+v", ch)
	}
}

func TestFlowChargesInspectKeyOpensInspector(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.newCharge("7,77", "Via lista")
	f.waitFor("Pague com PIX")
	f.keys("esc")
	f.waitFor("Via lista")
	f.keys("i")
	f.waitFor("wallet principal · matched by id", "R$ 7,77", "Via lista", "Idempotency key")
}

// TestInspectorSplitOnlyWhenThereIsOne is defect 11: a charge without a split says nothing about
// splits; one with a split reconciles each leg (api.ReconcileSplit).
func TestInspectorSplitOnlyWhenThereIsOne(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	tx, _ := goldenSplitTx()
	legs := []api.SplitItem{{SubAccount: "principal", Amount: 1000}, {SubAccount: "parceiro_entregas", Amount: 8000}}
	cases := []struct {
		name    string
		ch      state.Charge
		tracked bool
		want    []string
		notWant []string
	}{
		{"paid without a split", state.Charge{ID: tx.ID, HasDistributed: true}, true, nil,
			[]string{"Split", "distributed", "Nothing was distributed"}},
		{"pending without a split", state.Charge{ID: tx.ID}, true, nil, []string{"Split", "not reported yet"}},
		{"not tracked", state.Charge{}, false, nil, []string{"Split"}},
		{"requested, not reported yet", state.Charge{ID: tx.ID, SplitRequested: legs}, true,
			[]string{"Split · requested at creation", "→ parceiro_entregas        R$ 80,00              —", "Distributed: not reported yet"},
			[]string{"not paid", "Nothing was distributed"}},
		{"requested, nothing distributed", state.Charge{ID: tx.ID, SplitRequested: legs, HasDistributed: true}, true,
			[]string{"R$ 10,00        R$ 0,00  not paid", "R$ 80,00        R$ 0,00  not paid", "Nothing was distributed."}, nil},
		{"reduced", state.Charge{ID: tx.ID, SplitRequested: legs, HasDistributed: true,
			SplitDistributed: []api.SplitItem{{SubAccount: "principal", Amount: 1000}, {SubAccount: "parceiro_entregas", Amount: 7891}}}, true,
			[]string{"→ principal                R$ 10,00       R$ 10,00\n", "R$ 80,00       R$ 78,91  reduced"}, []string{"Nothing was distributed", "not paid"}},
		{"distributed without a request", state.Charge{ID: tx.ID, HasDistributed: true, Source: state.SourceCreated,
			SplitDistributed: []api.SplitItem{{SubAccount: "loja-centro", Amount: 500}}}, true,
			[]string{"→ loja-centro                     —        R$ 5,00  not requested"}, []string{"unknown here"}},
		{"distributed, request unknown (created elsewhere)", state.Charge{ID: tx.ID, HasDistributed: true, Source: state.SourceEvent,
			SplitDistributed: []api.SplitItem{{SubAccount: "loja-centro", Amount: 500}}}, true,
			[]string{"→ loja-centro                     ?        R$ 5,00\n", "Requested: unknown here (this pixdash did not create the charge)."},
			[]string{"not requested"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := strings.Join(v.DetailLines(&inspector.InspectResult{Query: tx.ID, Wallet: "principal", Tx: tx, Charge: tc.ch, Tracked: tc.tracked}, 120), "\n")
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("missing %q in:\n%s", s, out)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(out, s) {
					t.Errorf("unexpected %q in:\n%s", s, out)
				}
			}
		})
	}
}

// TestInspectorRefundsAndBlocks: the refunds its events reported and the blocks the service holds
// are drawn under the transaction, each with its figures; a failed read says so.
func TestInspectorRefundsAndBlocks(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := inspectorOf(m)
	tx, _ := goldenSplitTx()
	resolved := goldenNow.Add(-10 * time.Minute)
	rel := inspector.TxRelated{
		Refunds: []*api.Event{
			{Kind: api.EventRefundCompleted, ID: "r1", TransactionID: tx.ID, Amount: 2000, FeeAmount: 50, Status: api.StatusCompleted,
				E2EID: "D99990001202611211400refund0002", CreatedAt: goldenNow.Add(-20 * time.Minute)},
			{Kind: api.EventRefundCompleted, ID: "r2", TransactionID: tx.ID, Amount: 990, Status: api.StatusCompleted, CreatedAt: goldenNow.Add(-5 * time.Minute)},
		},
		Blocks: []api.BalanceBlock{
			{ID: "b1", TransactionID: tx.ID, Amount: 4250, Status: api.BlockAwaitingResponse, BlockType: api.BlockTypeMED,
				ReferenceNumber: "MED-2026-0001", Reason: "Pagador alega golpe", CreatedAt: goldenNow.Add(-30 * time.Minute)},
			{ID: "b2", TransactionID: tx.ID, Amount: 1000, Status: api.BlockRejected, BlockType: api.BlockTypeJudicial,
				CreatedAt: goldenNow.Add(-40 * time.Minute), ResolvedAt: &resolved, ResolutionReason: "Defesa aceita"},
		},
	}
	out := strings.Join(v.DetailLines(&inspector.InspectResult{Query: tx.ID, Wallet: "principal", Tx: tx, TxRelated: rel}, 120), "\n")
	for _, s := range []string{
		"Refunds · 2 refunds of R$ 29,90 in all, as the service reported them",
		"↩ R$ 20,00 · fee R$ 0,50 (reported) · completed · 21/11/2026 14:10:00", "e2eId D99990001202611211400refund0002",
		"↩ R$ 9,90 · completed · 21/11/2026 14:25:00",
		"Balance blocks · 2 on this transaction",
		"○ awaiting response · MED · R$ 42,50 · MED-2026-0001 · 21/11/2026 14:00", "Reason Pagador alega golpe",
		"judicial · R$ 10,00 · 21/11/2026 13:50", "resolved 21/11/2026 14:20 · rejected: the amount is back in your available balance · Defesa aceita",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("missing %q in:\n%s", s, out)
		}
	}
	if strings.Contains(out, "awaiting_response") || strings.Contains(out, " med ") {
		t.Errorf("raw enum values drawn:\n%s", out)
	}
	rel = inspector.TxRelated{BlocksErr: &api.Error{HTTPStatus: 403, Kind: "Forbidden", Message: "Missing permission BALANCE_BLOCK:READ"}, RefundsErr: fmt.Errorf("database is locked")}
	out = strings.Join(v.DetailLines(&inspector.InspectResult{Query: tx.ID, Wallet: "principal", Tx: tx, TxRelated: rel}, 120), "\n")
	if !strings.Contains(out, "Refunds · could not read the events: database is locked") || !strings.Contains(out, "Balance blocks · ") ||
		!strings.Contains(out, "BALANCE_BLOCK:READ") {
		t.Errorf("read failures not shown:\n%s", out)
	}
	// Nothing related: no section at all.
	out = strings.Join(v.DetailLines(&inspector.InspectResult{Query: tx.ID, Wallet: "principal", Tx: tx}, 120), "\n")
	if strings.Contains(out, "Refunds") || strings.Contains(out, "Balance blocks") {
		t.Errorf("empty sections drawn:\n%s", out)
	}
}

// TestInspectorScrollsInAViewport: the detail scrolls by line, page, top and bottom; the header
// says where; View changes nothing (twice the same, the position kept).
func TestInspectorScrollsInAViewport(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 80, 24)
	v := inspectorOf(m)
	showLookup(t, m, "PED-0999", "principal", goldenFailedTx(), state.Charge{}, false, nil)
	total := v.Vp.TotalLineCount()
	if total <= v.Vp.Height {
		t.Fatalf("the detail (%d lines) fits in %d rows: nothing to scroll", total, v.Vp.Height)
	}
	top := m.View()
	if !strings.Contains(top, fmt.Sprintf("1–%d/%d ↓", v.Vp.Height, total)) || strings.Contains(top, "↑") {
		t.Fatalf("position at the top not shown:\n%s", top)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if v.Vp.YOffset != 1 {
		t.Fatalf("down scrolled to %d", v.Vp.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if v.Vp.YOffset != 1+v.Vp.Height-1 && !v.Vp.AtBottom() {
		t.Fatalf("page down scrolled to %d", v.Vp.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	bottom := m.View()
	if !v.Vp.AtBottom() || !strings.Contains(bottom, fmt.Sprintf("↑ %d–%d/%d", total-v.Vp.Height+1, total, total)) {
		t.Fatalf("end did not reach the bottom (offset %d):\n%s", v.Vp.YOffset, bottom)
	}
	if again := m.View(); again != bottom || !v.Vp.AtBottom() {
		t.Fatal("View changed the view")
	}
	// With the lookup input focused, ↑/↓ still scroll the result, from the bottom too.
	m.Update(runeKey("/"))
	if !v.CapturesText() {
		t.Fatal("/ did not focus the input")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if v.Vp.AtBottom() || v.Vp.YOffset != total-v.Vp.Height-1 {
		t.Fatalf("up in the input did not scroll up from the bottom: offset %d", v.Vp.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if !v.Vp.AtBottom() {
		t.Fatalf("down in the input did not scroll down: offset %d", v.Vp.YOffset)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Update(tea.KeyMsg{Type: tea.KeyHome})
	if v.Vp.YOffset != 0 {
		t.Fatalf("home scrolled to %d", v.Vp.YOffset)
	}
	// A taller window holds it all: nothing to scroll, no position shown.
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
	if out := m.View(); v.Vp.YOffset != 0 || strings.Contains(out, "↑") || strings.Contains(out, "↓") {
		t.Fatalf("after growing, offset %d:\n%s", v.Vp.YOffset, out)
	}
}

// TestFlowInspectorShowsRefundsAndBlocks: a payment the emulator refunded in part and put under a
// MED block shows both in the inspector.
func TestFlowInspectorShowsRefundsAndBlocks(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	ctx := context.Background()
	pix := createTestCharge(t, s, 5000, "Com estorno", "insp-refund-0001", "pixdash-flow-inspector-key-0004")
	if err := s.Simulator.Pay(ctx, pix.ID, "Fulano de Tal", "52998224725"); err != nil {
		t.Fatal(err)
	}
	ctl := sandbox.NewControl(s.Client)
	part := api.Money(1250)
	if err := ctl.Refund(ctx, pix.ID, &part); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: pix.ID, Reason: "Pagador alega golpe"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := s.Store.EventWindow(ctx, state.EventQuery{Kind: api.EventRefundCompleted}, 0, 10)
		if err == nil && page.Total > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refund_completed event never reached the store (%v)", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("2", "/", "insp-refund-0001", "enter")
	f.waitFor("matched by external reference", "Refunds · 1 refund of R$ 12,50", "↩ R$ 12,50 · completed",
		"Balance blocks · 1 on this transaction", "○ awaiting response · MED · R$ 50,00", "Reason Pagador alega golpe")
}
