package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/ui/blocks"
	"pixdash/ui/common"
	"pixdash/ui/inspector"
)

func blocksOf(m *Model) *blocks.View { return m.panes[viewBlocks].(*blocks.View) }

// goldenBlocks is a fixed mix of blocks: every spec status, and a status and a type the spec does not name.
func goldenBlocks() []api.BalanceBlock {
	at := func(d time.Duration) time.Time { return goldenNow.Add(-d) }
	resolved := func(d time.Duration) *time.Time { t := goldenNow.Add(-d); return &t }
	return []api.BalanceBlock{
		{ID: "b1", TransactionID: "3f6c1a2e-0000-4000-8000-000000000002", Amount: 4250, Status: api.BlockAwaitingResponse,
			BlockType: "med", ReferenceNumber: "MED-20261121-000101", Reason: "Pagador alega golpe", CreatedAt: at(time.Hour),
			ExternalReference: "pedido-1002", E2EID: "E99990001202611211030abcdefghijk"},
		{ID: "b2", TransactionID: "3f6c1a2e-0000-4000-8000-000000000005", Amount: 2000, Status: api.BlockDefended,
			BlockType: "med", ReferenceNumber: "MED-20261120-000102", Reason: "Produto não entregue", CreatedAt: at(20 * time.Hour),
			ExternalReference: "pedido-1001", E2EID: "E99990001202611201830abcdefghijk"},
		{ID: "b3", TransactionID: "3f6c1a2e-0000-4000-8000-000000000006", Amount: 1500, Status: api.BlockApproved,
			BlockType: "judicial", ReferenceNumber: "JUD-20261121-000103", Reason: "Ordem judicial de bloqueio", CreatedAt: at(6 * time.Hour),
			E2EID: "E99990001202611210830abcdefghijk", ResolutionReason: "Devolução determinada", ResolvedAt: resolved(3 * time.Hour)},
		{ID: "b4", TransactionID: "3f6c1a2e-0000-4000-8000-000000000007", Amount: 5500, Status: api.BlockRejected,
			BlockType: "administrative", ReferenceNumber: "ADM-20261121-000104", Reason: "Revisão cadastral", CreatedAt: at(3 * time.Hour),
			E2EID: "E99990001202611211130abcdefghijk", ResolutionReason: "Documentação aceita", ResolvedAt: resolved(90 * time.Minute)},
		{ID: "b5", TransactionID: "3f6c1a2e-0000-4000-8000-000000000008", Amount: 1, Status: "under_review",
			BlockType: "cautelar", ReferenceNumber: "CAU-20261121-000105", Reason: "Status novo do serviço", CreatedAt: at(10 * time.Minute)},
	}
}

// answerBlocks replies to the blocks view's last load with items (or err).
func answerBlocks(m *Model, items []api.BalanceBlock, err error) {
	v := blocksOf(m)
	msg := blocks.Msg{Tag: m.app.Tag(), Seq: v.Seq, Status: v.FilterStatus(), Err: err}
	if err == nil {
		msg.List = &api.BalanceBlockList{Items: items, Total: len(items)}
	}
	m.Update(reply(m, msg))
}

func TestGoldenBlocks(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, m *Model)
	}{
		{"loading", func(t *testing.T, m *Model) { m.Update(runeKey("4")) }},
		{"empty", func(t *testing.T, m *Model) {
			m.Update(runeKey("4"))
			answerBlocks(m, []api.BalanceBlock{}, nil)
		}},
		{"full", func(t *testing.T, m *Model) {
			m.Update(runeKey("4"))
			answerBlocks(m, goldenBlocks(), nil)
			m.Update(tea.KeyMsg{Type: tea.KeyDown})
			m.Update(tea.KeyMsg{Type: tea.KeyDown})
		}},
		{"filtered", func(t *testing.T, m *Model) {
			m.Update(runeKey("4"))
			answerBlocks(m, goldenBlocks(), nil)
			m.Update(runeKey("f"))
			answerBlocks(m, goldenBlocks()[:1], nil)
		}},
		{"error_no_data", func(t *testing.T, m *Model) {
			m.Update(runeKey("4"))
			answerBlocks(m, nil, &api.Error{HTTPStatus: 403, Kind: "Forbidden", Message: "Missing permission: BALANCE_BLOCK:READ", TraceID: "t-403"})
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

// TestGoldenBlocksStale: a refresh that fails keeps the last data and says how old it is.
func TestGoldenBlocksStale(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			now := goldenNow.Add(-2*time.Minute - 12*time.Second)
			m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return now }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.Update(runeKey("4"))
			answerBlocks(m, goldenBlocks()[:2], nil)
			now = goldenNow
			m.Update(runeKey("r"))
			answerBlocks(m, nil, errors.New("dial tcp 127.0.0.1:9: connect: connection refused"))
			out := m.View()
			if !strings.Contains(out, "updated 2m ago") || !strings.Contains(out, "Pagador alega golpe") {
				t.Fatalf("stale view lost its data or age:\n%s", out)
			}
			teatest.RequireEqualOutput(t, []byte(out))
		})
	}
}

func TestBlocksFilterCyclesAndShowsOnlyThatStatus(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	m.Update(runeKey("4"))
	answerBlocks(m, goldenBlocks(), nil)
	v := blocksOf(m)
	en := common.Catalog{Lang: common.LangEN}
	var seen []api.BlockStatus
	for range blocks.BlockFilters {
		seen = append(seen, v.FilterStatus())
		m.Update(runeKey("f"))
		if !v.Loading {
			t.Fatal("changing the filter did not reload")
		}
		// The server filters; answer as it would.
		var items []api.BalanceBlock
		for _, b := range goldenBlocks() {
			if v.FilterStatus() == "" || b.Status == v.FilterStatus() {
				items = append(items, b)
			}
		}
		answerBlocks(m, items, nil)
		out := m.View()
		for _, b := range goldenBlocks() {
			shown := strings.Contains(out, b.ReferenceNumber)
			if wantShown := v.FilterStatus() == "" || b.Status == v.FilterStatus(); shown != wantShown {
				t.Fatalf("filter %q: block %s (%s) shown=%v\n%s", v.FilterStatus(), b.ReferenceNumber, b.Status, shown, out)
			}
		}
		if f := v.FilterStatus(); f != "" {
			if !strings.Contains(out, "status: "+en.Enum(f)) {
				t.Fatalf("filter %q not named:\n%s", f, out)
			}
			for _, other := range api.BlockStatuses {
				if other != f && strings.Contains(out, " "+en.Enum(other)+" 0 · ") {
					t.Fatalf("filter %q still sums %q:\n%s", f, other, out)
				}
			}
		}
	}
	want := []api.BlockStatus{"", api.BlockAwaitingResponse, api.BlockDefended, api.BlockApproved, api.BlockRejected}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("filter cycle = %v, want %v", seen, want)
	}
	if v.FilterStatus() != "" {
		t.Fatalf("the cycle did not come back to all: %q", v.FilterStatus())
	}
}

func TestBlocksDropsStaleReplies(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	m.Update(runeKey("4"))
	v := blocksOf(m)
	old := blocks.Msg{Tag: m.app.Tag(), Seq: v.Seq, List: &api.BalanceBlockList{Items: goldenBlocks(), Total: 5}}
	m.Update(runeKey("r"))
	m.Update(reply(m, old)) // superseded by the refresh
	if v.Loaded {
		t.Fatal("a superseded reply was applied")
	}
	other := blocks.Msg{Tag: common.Tag{Gen: m.app.Gen, Wallet: "loja-sul"}, Seq: v.Seq, List: old.List}
	m.Update(reply(m, other))
	if v.Loaded {
		t.Fatal("a reply for another wallet was applied")
	}
	oldGen := blocks.Msg{Tag: common.Tag{Gen: m.app.Gen - 1, Wallet: m.app.Wallet}, Seq: v.Seq, List: old.List}
	m.Update(reply(m, oldGen))
	if v.Loaded {
		t.Fatal("a reply of another session was applied")
	}
	answerBlocks(m, goldenBlocks(), nil)
	if !v.Loaded || len(v.Items) != 5 {
		t.Fatalf("current reply not applied: loaded=%v items=%d", v.Loaded, len(v.Items))
	}
}

func TestBlocksWalletChangeDropsDataAndReloads(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := blocksOf(m)
	if cmd := v.Update(common.WalletChangedMsg{Wallet: "loja-sul"}); cmd != nil {
		t.Fatal("a view never opened loaded on a wallet change")
	}
	m.Update(runeKey("4"))
	answerBlocks(m, goldenBlocks(), nil)
	seq := v.Seq
	m.Update(common.SwitchWalletMsg{Wallet: "loja-sul"})
	if v.Loaded || len(v.Items) != 0 {
		t.Fatal("the old wallet's blocks stayed after the switch")
	}
	if !v.Loading || v.Seq != seq+1 || v.LoadTag.Wallet != "loja-sul" {
		t.Fatalf("no single reload for the new wallet: loading=%v seq=%d→%d tag=%v", v.Loading, seq, v.Seq, v.LoadTag)
	}
	if !strings.Contains(m.View(), "Loading the balance blocks of wallet loja-sul") {
		t.Fatal("the view does not say it is loading the new wallet")
	}
}

func TestBlocksTickLifecycle(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := blocksOf(m)
	m.Update(runeKey("4"))
	if !v.Ticking || v.TickSeq != 1 {
		t.Fatalf("activate did not arm one tick: ticking=%v seq=%d", v.Ticking, v.TickSeq)
	}
	m.Update(runeKey("1"))
	m.Update(runeKey("4")) // shown again while the tick is in flight: no second timer
	if v.TickSeq != 1 {
		t.Fatalf("re-activation armed another tick (seq %d)", v.TickSeq)
	}
	answerBlocks(m, goldenBlocks(), nil)
	_ = m.View()
	if cmd := v.Update(blocks.TickMsg{Gen: m.app.Gen, Seq: 0}); cmd != nil || v.Loading {
		t.Fatal("an old tick did something")
	}
	if cmd := v.Update(blocks.TickMsg{Gen: m.app.Gen + 1, Seq: 1}); cmd != nil || v.Loading {
		t.Fatal("a tick of another session did something")
	}
	if cmd := v.Update(blocks.TickMsg{Gen: m.app.Gen, Seq: 1}); cmd == nil || !v.Loading || v.TickSeq != 2 {
		t.Fatalf("the current tick did not reload and re-arm: loading=%v seq=%d", v.Loading, v.TickSeq)
	}
	answerBlocks(m, goldenBlocks(), nil)
	// Off screen since (another view has it): the cycle stops instead of leaking a timer.
	m.Update(runeKey("1"))
	if cmd := v.Update(blocks.TickMsg{Gen: m.app.Gen, Seq: 2}); cmd != nil || v.Ticking || v.Loading {
		t.Fatalf("a tick on a hidden view kept going: ticking=%v loading=%v", v.Ticking, v.Loading)
	}
	m.Update(runeKey("4"))
	if !v.Ticking || v.TickSeq != 3 {
		t.Fatalf("showing the view again did not re-arm the tick: ticking=%v seq=%d", v.Ticking, v.TickSeq)
	}
	v.Update(blocks.TickMsg{Gen: m.app.Gen, Seq: 3}) // on screen: reloads, re-arms as 4
	answerBlocks(m, goldenBlocks(), nil)
	// A screen over the view (here the help) blurs it: the cycle stops at its next tick, and
	// closing the screen focuses the view again, which re-arms it. Drawing does nothing.
	help := newHelpOverlay(m.c, nil)
	m.push(help)
	v.Update(blocks.TickMsg{Gen: m.app.Gen, Seq: 4})
	if v.Ticking {
		t.Fatal("the cycle did not stop under the help screen")
	}
	_ = m.View()
	if v.Ticking || v.TickSeq != 4 {
		t.Fatalf("drawing the view armed a tick: ticking=%v seq=%d", v.Ticking, v.TickSeq)
	}
	m.closeOverlay(help)
	if !v.Ticking || v.TickSeq != 5 {
		t.Fatalf("closing the screen over the view did not re-arm its tick: ticking=%v seq=%d", v.Ticking, v.TickSeq)
	}
	if cmd := v.Update(tea.KeyMsg{Type: tea.KeyDown}); cmd != nil || v.TickSeq != 5 {
		t.Fatal("a key armed a second timer")
	}
}

func TestBlocksReloadOnBalanceBlockEventsOnly(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	v := blocksOf(m)
	m.Update(runeKey("4"))
	answerBlocks(m, goldenBlocks(), nil)
	cases := []struct {
		name   string
		msg    common.EventMsg
		reload bool
	}{
		{"created", common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventBalanceBlockCreated}}, true},
		{"approved", common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventBalanceBlockApproved}}, true},
		{"rejected", common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventBalanceBlockRejected}}, true},
		{"payment", common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventPaymentCompleted}}, false},
		{"other wallet", common.EventMsg{Gen: m.app.Gen, Ev: &api.Event{Kind: api.EventBalanceBlockCreated, SubAccount: "loja-sul"}}, false},
		{"old session", common.EventMsg{Gen: m.app.Gen - 1, Ev: &api.Event{Kind: api.EventBalanceBlockCreated}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seq := v.Seq
			cmd := v.Update(tc.msg)
			if got := cmd != nil && v.Seq == seq+1; got != tc.reload {
				t.Fatalf("reload = %v, want %v", got, tc.reload)
			}
			answerBlocks(m, goldenBlocks(), nil)
		})
	}
}

func TestBlocksEnterInspectsTheTransaction(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	m.Update(runeKey("4"))
	answerBlocks(m, goldenBlocks(), nil)
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	got, ok := runReply(cmd).(common.InspectMsg)
	if !ok || got.Query != goldenBlocks()[1].TransactionID || got.Wallet != api.WalletPrincipal {
		t.Fatalf("enter sent %#v", got)
	}
}

// TestBlocksAndInspectorFramesFit drives both views with data through keys and sizes and checks every frame.
func TestBlocksAndInspectorFramesFit(t *testing.T) {
	sizes := [][2]int{{80, 20}, {78, 18}, {81, 21}, {100, 30}, {120, 36}, {133, 40}, {200, 50}, {260, 60}, {80, 3}, {80, 1}}
	keys := []tea.KeyMsg{{Type: tea.KeyDown}, {Type: tea.KeyPgDown}, {Type: tea.KeyEnd}, runeKey("v"), {Type: tea.KeyUp}, {Type: tea.KeyPgUp}, {Type: tea.KeyHome}, runeKey("j")}
	check := func(t *testing.T, name string, p common.Pane, w, h int) {
		t.Helper()
		out := viewAt(p, w, h)
		lines := strings.Split(out, "\n")
		if len(lines) > h {
			t.Fatalf("%s %dx%d: %d lines", name, w, h, len(lines))
		}
		for i, l := range lines {
			if lw := lipgloss.Width(l); lw > w {
				t.Fatalf("%s %dx%d: line %d is %d wide:\n%s", name, w, h, i, lw, l)
			}
		}
	}
	for i := range len(sizes) * 2 {
		size, lang := sizes[i/2], []common.Lang{common.LangEN, common.LangPT}[i%2]
		w, h := size[0], size[1]
		m := New(Options{Session: goldenSession(t, api.Sandbox), Lang: lang, Now: func() time.Time { return goldenNow }, Location: time.UTC})
		iv, bv := inspectorOf(m), blocksOf(m)
		iv.SetSize(w, h)
		bv.SetSize(w, h)
		check(t, "inspector empty", iv, w, h)
		check(t, "blocks loading", bv, w, h)
		tx := goldenFailedTx()
		tx.Description = strings.Repeat("descrição longa ", 30)
		tx.PixCopyPaste = goldenCode(t, 250000)
		tx.Metadata["\x1b[31mred"] = map[string]any{"nested": []any{1, "two"}}
		iv.Update(common.InspectMsg{Query: "q", Wallet: "principal"})
		iv.Update(inspector.LookupMsg{Tag: m.app.Tag(), Seq: iv.Seq, Query: "q", Wallet: "principal", Tx: tx})
		bv.Update(blocks.Msg{Tag: m.app.Tag(), Seq: bv.Seq, List: &api.BalanceBlockList{Items: goldenBlocks(), Total: 9}})
		for _, k := range keys {
			iv.Update(k)
			bv.Update(k)
			check(t, "inspector", iv, w, h)
			check(t, "blocks", bv, w, h)
		}
	}
}

// --- flows against the emulator ---------------------------------------------------------------

func TestFlowBlocksSeededFilterAndInspect(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("4")
	// The principal wallet's seeded blocks: one awaiting response, one defended.
	f.waitFor("2 blocks · wallet principal · status: all", "Pagador alega golpe", "Produto não entregue",
		"open, blocked: R$ 62,50 (2)", "awaiting response 1 · R$ 42,50", "defended 1 · R$ 20,00",
		"resolved: R$ 0,00 (0)", "approved 0 · R$ 0,00", "updated")
	f.keys("f")
	f.waitFor("1 block · wallet principal · status: awaiting response", "open, blocked: R$ 42,50 (1)")
	f.keys("f")
	f.waitFor("1 block · wallet principal · status: defended", "open, blocked: R$ 20,00 (1)", "Produto não entregue")
	f.keys("f")
	f.waitFor("No blocks with status approved in wallet principal.")
	f.keys("f", "f")
	f.waitFor("2 blocks · wallet principal · status: all")
	// The other statuses were seeded in the sub-accounts.
	f.tm.Send(common.SwitchWalletMsg{Wallet: "loja-centro"})
	// Defect 9: a resolved block is not blocked money (Wallets says held R$ 0,00 for it).
	f.waitFor("1 block · wallet loja-centro", "Ordem judicial de bloqueio", "judicial", "Devolução determinada",
		"open, blocked: R$ 0,00 (0)", "resolved: R$ 15,00 (1)", "approved 1 · R$ 15,00")
	f.tm.Send(common.SwitchWalletMsg{Wallet: "loja-praia"})
	f.waitFor("1 block · wallet loja-praia", "Revisão cadastral", "administrative", "Documentação aceita",
		"resolved: R$ 55,00 (1)", "rejected 1 · R$ 55,00")
	f.keys("enter")
	f.waitFor("wallet loja-praia · matched by id", "Sorvetes artesanais", "R$ 55,00")
}

func TestFlowBlocksFilterLeavesOnlyThatStatus(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("4")
	f.waitFor("2 blocks · wallet principal")
	f.keys("f", "f")
	f.waitFor("1 block · wallet principal · status: defended")
	if err := f.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := f.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	v := blocksOf(fm)
	if len(v.Items) != 1 || v.Items[0].Status != api.BlockDefended || v.Items[0].Amount != 2000 {
		t.Fatalf("defended filter holds %+v", v.Items)
	}
	out := fm.View()
	if strings.Contains(out, "Pagador alega golpe") || !strings.Contains(out, "Produto não entregue") {
		t.Fatalf("the defended filter shows other blocks:\n%s", out)
	}
}

func TestFlowBlocksRefreshOnBalanceBlockEvent(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	ctx := context.Background()
	pix, err := s.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: 7700, Description: "Bloqueio ao vivo"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Simulator.Pay(ctx, pix.ID, "Fulano de Tal", "52998224725"); err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, s, 120, 40)
	f.waitFor("STATUS")
	f.keys("4")
	f.waitFor("2 blocks · wallet principal")
	if _, err := sandbox.NewControl(s.Client).CreateBlock(ctx, sandbox.BlockRequest{TransactionID: pix.ID, Reason: "Contestação ao vivo"}); err != nil {
		t.Fatal(err)
	}
	// Only the balance_block_created event can bring it this soon (the periodic refresh is 30 s).
	f.waitFor("3 blocks · wallet principal", "Contestação ao vivo", "awaiting response 2 · R$ 119,50", "open, blocked: R$ 139,50 (3)")
}

// Defect 9: the totals say what they sum. Only the open blocks (awaiting a response, defended)
// are blocked money; the resolved ones (approved: back to the payer, rejected: back to the
// merchant) add up apart, and a status the spec does not name is in neither.
func TestBlocksTotalsSayWhatTheySum(t *testing.T) {
	m := goldenModel(t, goldenSession(t, api.Sandbox), 120, 40)
	m.Update(runeKey("4"))
	answerBlocks(m, goldenBlocks(), nil)
	sums := strings.Join(blocksOf(m).SumLines(120), "\n")
	for _, want := range []string{"open, blocked: R$ 62,50 (2)", "resolved: R$ 70,00 (2)", "? under_review 1 · R$ 0,01"} {
		if !strings.Contains(sums, want) {
			t.Errorf("totals lack %q:\n%s", want, sums)
		}
	}
	if strings.Contains(sums, "total") || strings.Contains(sums, "132,51") {
		t.Errorf("a total still adds resolved blocks to the blocked ones:\n%s", sums)
	}
	// Only resolved blocks: nothing is blocked.
	answerBlocks(m, goldenBlocks()[2:4], nil)
	if sums := strings.Join(blocksOf(m).SumLines(120), "\n"); !strings.Contains(sums, "open, blocked: R$ 0,00 (0)") || !strings.Contains(sums, "resolved: R$ 70,00 (2)") {
		t.Errorf("resolved only:\n%s", sums)
	}
}
