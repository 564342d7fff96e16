package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

// splitWallets mirrors the demo fixture's sub-accounts.
var splitWallets = []api.SubAccount{
	{Reference: "loja-centro", Name: "Loja Centro", Status: api.SubAccountApproved},
	{Reference: "loja-praia", Name: "Loja Praia", Status: api.SubAccountApproved},
	{Reference: "parceiro_entregas", Name: "Parceiro de Entregas", Status: api.SubAccountApproved},
	{Reference: "loja-antiga", Name: "Loja Antiga (fechada)", Status: api.SubAccountSuspended},
}

// splitCommon is a view context for an originator, a profile fee (fee < 0: none) and a wallet list (nil: not loaded).
func splitCommon(t *testing.T, origin string, fee api.Money, subs []api.SubAccount) *common.Common {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	if fee >= 0 {
		s.PixFee, s.HasPixFee = fee, true
	}
	tr := common.Catalog{Lang: common.LangEN}
	app := &common.AppState{Sess: s, Gen: 1, Wallet: origin, SubAccounts: subs}
	return &common.Common{St: common.NewStyles(), Keys: common.NewKeyMap(tr), Tr: tr, Cust: common.Catalog{Lang: common.LangPT},
		Now: func() time.Time { return goldenNow }, Loc: time.UTC, App: app, NewKey: api.NewIdempotencyKey}
}

func newTestBuilder(t *testing.T, origin string, gross, fee api.Money, subs []api.SubAccount) *newcharge.SplitBuilder {
	t.Helper()
	b := newcharge.NewSplitBuilder(splitCommon(t, origin, fee, subs), origin)
	b.SetSize(120, 38)
	b.SetGross(gross, true)
	return b
}

func splitKey(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// typeText sends s to the builder one rune at a time, as a terminal does.
func splitTypeText(b *newcharge.SplitBuilder, s string) {
	for _, r := range s {
		b.Update(runeKey(string(r)))
	}
}

// addLegs adds one leg per pair (destination, amount text) by keys: ctrl+n, destination, tab, amount.
func addLegs(b *newcharge.SplitBuilder, legs ...[2]string) {
	for _, l := range legs {
		b.Update(splitKey(tea.KeyCtrlN))
		splitTypeText(b, l[0])
		b.Update(splitKey(tea.KeyTab))
		splitTypeText(b, l[1])
	}
}

func TestSplitRules(t *testing.T) {
	eleven := make([][2]string, 11)
	for i := range eleven {
		eleven[i] = [2]string{fmt.Sprintf("loja-%02d", i+1), "0,01"}
	}
	cases := []struct {
		name    string
		origin  string
		gross   api.Money
		subs    []api.SubAccount
		legs    [][2]string
		wantLeg int    // leg (0-based) carrying the message; -1 when the split is accepted
		want    string // part of the message
	}{
		{"eleven legs", "principal", 10000, nil, eleven, 10, "at most 10 legs per split"},
		{"zero amount", "principal", 1234, splitWallets, [][2]string{{"loja-centro", "1,00"}, {"loja-praia", "0,00"}}, 1, "at least R$ 0,01"},
		{"three decimals", "principal", 1234, splitWallets, [][2]string{{"loja-centro", "1,234"}, {"loja-praia", "1,00"}}, 0, "at most 2 decimal places"},
		{"unknown destination", "principal", 1234, splitWallets, [][2]string{{"loja-centro", "1,00"}, {"loja-lua", "1,00"}}, 1, "no active sub-account loja-lua"},
		{"suspended destination", "principal", 1234, splitWallets, [][2]string{{"loja-antiga", "1,00"}, {"loja-praia", "1,00"}}, 0, "sub-account loja-antiga is suspended"},
		{"principal from the main account", "principal", 1234, splitWallets, [][2]string{{"loja-praia", "1,00"}, {"principal", "1,00"}}, 1, "principal may receive a split only when a sub-account creates the charge"},
		{"principal from a sub-account", "loja-centro", 1234, splitWallets, [][2]string{{"principal", "1,00"}, {"loja-praia", "1,00"}}, -1, ""},
		{"originator in its own split", "loja-centro", 1234, splitWallets, [][2]string{{"loja-praia", "1,00"}, {"loja-centro", "1,00"}}, 1, "loja-centro creates this charge"},
		{"duplicate destination", "principal", 1234, splitWallets, [][2]string{{"loja-praia", "1,00"}, {"loja-centro", "1,00"}, {"loja-praia", "2,00"}}, 2, "loja-praia already receives leg 1"},
		{"sum above net", "principal", 1234, splitWallets, [][2]string{{"loja-centro", "10,00"}, {"loja-praia", "2,00"}}, 1, "the split (R$ 12,00) exceeds the net R$ 11,35 by R$ 0,65"},
		{"sum equal to net", "principal", 1234, splitWallets, [][2]string{{"loja-centro", "10,00"}, {"loja-praia", "1,35"}}, -1, ""},
		{"malformed destination", "principal", 1234, nil, [][2]string{{"Loja Centro", "1,00"}}, 0, "is not a sub-account reference"},
		{"missing amount", "principal", 1234, splitWallets, [][2]string{{"loja-centro", ""}}, 0, "enter the amount in reais"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newTestBuilder(t, tc.origin, tc.gross, 99, tc.subs)
			addLegs(b, tc.legs...)
			ck := b.Check()
			if len(ck.LegMsgs) != len(tc.legs) {
				t.Fatalf("%d legs checked, want %d", len(ck.LegMsgs), len(tc.legs))
			}
			for i, msgs := range ck.LegMsgs {
				joined := strings.Join(msgs, " | ")
				switch {
				case i == tc.wantLeg && !strings.Contains(joined, tc.want):
					t.Errorf("leg %d: messages %q, want one containing %q", i+1, joined, tc.want)
				case i != tc.wantLeg && len(msgs) > 0:
					t.Errorf("leg %d: unexpected messages %q", i+1, joined)
				}
			}
			if got := ck.Ok(); got != (tc.wantLeg < 0) {
				t.Fatalf("ok = %v (first %q)", got, ck.First)
			}
			if tc.wantLeg >= 0 && !strings.HasPrefix(ck.First, fmt.Sprintf("leg %d: ", tc.wantLeg+1)) {
				t.Errorf("first problem %q does not name leg %d", ck.First, tc.wantLeg+1)
			}
			// The message is drawn right under its leg's row.
			if tc.wantLeg >= 0 && tc.wantLeg < 10 {
				b.FocusCell(tc.wantLeg, newcharge.ColAmount)
				lines := strings.Split(ansi.Strip(viewAt(b, 120, 38)), "\n")
				row := -1
				for i, l := range lines {
					if strings.HasPrefix(l, fmt.Sprintf("› %2d  ", tc.wantLeg+1)) {
						row = i
					}
				}
				if row < 0 || row+1 >= len(lines) || !strings.Contains(lines[row+1], "✗ ") || !strings.Contains(lines[row+1], tc.want[:min(len(tc.want), 30)]) {
					t.Errorf("message not under leg %d:\n%s", tc.wantLeg+1, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

func TestSplitEqualToNetShowsKeepsZero(t *testing.T) {
	b := newTestBuilder(t, "principal", 1234, 99, splitWallets)
	addLegs(b, [2]string{"loja-centro", "11,35"})
	ck := b.Check()
	if !ck.Ok() || ck.Sum != 1135 || ck.Net != 1135 {
		t.Fatalf("check = %+v", ck)
	}
	v := ansi.Strip(viewAt(b, 120, 38))
	for _, want := range []string{"Gross R$ 12,34 − fee R$ 0,99 (profile pix_fee) = net R$ 11,35", "Allocated R$ 11,35 · originator keeps R$ 0,00 ✓ equal to the net: accepted"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if s := ansi.Strip(b.Summary(ck)); s != "1 leg · R$ 11,35 of R$ 11,35 net ✓ keeps R$ 0,00" {
		t.Errorf("summary = %q", s)
	}
}

func TestSplitFeeUnknown(t *testing.T) {
	b := newTestBuilder(t, "principal", 1000, -1, splitWallets)
	addLegs(b, [2]string{"loja-centro", "9,99"})
	if ck := b.Check(); !ck.Ok() {
		t.Fatalf("a sum below the gross with an unknown fee was refused: %s", ck.First)
	}
	v := ansi.Strip(viewAt(b, 120, 38))
	if !strings.Contains(v, "fee unknown: the net cannot be checked (the service checks it)") {
		t.Errorf("the view does not say the fee is unknown:\n%s", v)
	}
	// Above the gross it exceeds whatever the fee is.
	b.Update(splitKey(tea.KeyBackspace))
	b.Update(splitKey(tea.KeyBackspace))
	b.Update(splitKey(tea.KeyBackspace))
	b.Update(splitKey(tea.KeyBackspace))
	splitTypeText(b, "10,01")
	ck := b.Check()
	if len(ck.LegMsgs[0]) != 1 || !strings.Contains(ck.LegMsgs[0][0], "exceeds the charge amount R$ 10,00") {
		t.Fatalf("leg messages = %q", ck.LegMsgs[0])
	}
}

func TestSplitWalletListNotLoaded(t *testing.T) {
	b := newTestBuilder(t, "principal", 1234, 99, nil)
	addLegs(b, [2]string{"loja-que-nao-sei", "1,00"})
	if ck := b.Check(); !ck.Ok() {
		t.Fatalf("existence was checked without a wallet list: %s", ck.First)
	}
	if v := ansi.Strip(viewAt(b, 120, 38)); !strings.Contains(v, "wallet list not loaded: existence checked by the service") {
		t.Fatalf("no note about the wallet list:\n%s", v)
	}
	// Once the list arrives, existence is checked.
	b.OnWallets(newcharge.SplitWalletsMsg{Tag: b.C.App.Tag(), Items: splitWallets})
	if ck := b.Check(); ck.Ok() || !strings.Contains(ck.First, "no active sub-account loja-que-nao-sei") {
		t.Fatalf("after loading the list: %q", ck.First)
	}
	// A reply for another wallet is dropped.
	b2 := newTestBuilder(t, "principal", 1234, 99, nil)
	b2.OnWallets(newcharge.SplitWalletsMsg{Tag: common.Tag{Gen: 1, Wallet: "loja-praia"}, Items: splitWallets})
	if _, ok := b2.Wallets(); ok {
		t.Fatal("a stale wallet list was used")
	}
}

func TestSplitSuggestionsCycle(t *testing.T) {
	b := newTestBuilder(t, "loja-centro", 1234, 99, splitWallets)
	b.Update(splitKey(tea.KeyCtrlN))
	var got []string
	for range 4 {
		b.Update(splitKey(tea.KeyRight))
		got = append(got, b.Draft.Legs[0].Dest)
	}
	// Active sub-accounts other than the originator, then principal (the charge comes from a sub-account).
	want := []string{"loja-praia", "parceiro_entregas", "principal", "loja-praia"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("right cycles %v, want %v", got, want)
	}
	b.Update(splitKey(tea.KeyLeft))
	if d := b.Draft.Legs[0].Dest; d != "principal" {
		t.Fatalf("left gave %q", d)
	}
	// A second leg is not offered what the first already uses.
	b.Update(splitKey(tea.KeyCtrlN))
	b.Update(splitKey(tea.KeyLeft))
	if d := b.Draft.Legs[1].Dest; d != "parceiro_entregas" {
		t.Fatalf("second leg left gave %q", d)
	}
	// Typed text that matches no suggestion keeps left/right for the cursor.
	b.Update(splitKey(tea.KeyCtrlN))
	splitTypeText(b, "lojx")
	b.Update(splitKey(tea.KeyRight))
	if d := b.Draft.Legs[2].Dest; d != "lojx" {
		t.Fatalf("typed destination changed to %q", d)
	}
	// From the main account, principal is not suggested.
	m := newTestBuilder(t, "principal", 1234, 99, splitWallets)
	m.Update(splitKey(tea.KeyCtrlN))
	if s := strings.Join(m.Suggestions(), ","); s != "loja-centro,loja-praia,parceiro_entregas" {
		t.Fatalf("suggestions from the main account: %s", s)
	}
}

func TestSplitReorderAndRemove(t *testing.T) {
	b := newTestBuilder(t, "principal", 5000, 99, splitWallets)
	addLegs(b, [2]string{"loja-centro", "1,00"}, [2]string{"loja-praia", "2,00"}, [2]string{"parceiro_entregas", "3,00"})
	order := func() string {
		items, _ := b.Draft.Parse()
		var s []string
		for _, it := range items {
			s = append(s, fmt.Sprintf("%s=%d", it.SubAccount, it.Amount))
		}
		return strings.Join(s, ",")
	}
	b.Update(splitKey(tea.KeyCtrlK)) // third leg up
	if o := order(); o != "loja-centro=100,parceiro_entregas=300,loja-praia=200" {
		t.Fatalf("after ctrl+k: %s", o)
	}
	b.Update(splitKey(tea.KeyUp))
	b.Update(splitKey(tea.KeyUp))
	b.Update(splitKey(tea.KeyCtrlJ)) // first leg down
	if o := order(); o != "parceiro_entregas=300,loja-centro=100,loja-praia=200" {
		t.Fatalf("after ctrl+j: %s", o)
	}
	b.Update(splitKey(tea.KeyCtrlX))
	if o := order(); o != "parceiro_entregas=300,loja-praia=200" {
		t.Fatalf("after ctrl+x: %s", o)
	}
	// Typing goes to the selected cell.
	b.Update(splitKey(tea.KeyDown))
	b.Update(splitKey(tea.KeyBackspace))
	splitTypeText(b, "5")
	if o := order(); o != "parceiro_entregas=300,loja-praia=205" {
		t.Fatalf("after editing: %s", o)
	}
}

func TestSplitPreviewReducedAndDropped(t *testing.T) {
	b := newTestBuilder(t, "principal", 1000, 99, splitWallets)
	// Net 9,01 now; with the fee R$ 1,00 higher the net is 8,01: leg 2 gets 3,01 of 3,50, leg 3 nothing.
	addLegs(b, [2]string{"loja-centro", "5,00"}, [2]string{"loja-praia", "3,50"}, [2]string{"parceiro_entregas", "0,51"})
	if ck := b.Check(); !ck.Ok() {
		t.Fatalf("split refused: %s", ck.First)
	}
	v := ansi.Strip(viewAt(b, 120, 38))
	for _, want := range []string{"if the fee rose to R$ 1,99: 1 reduced, 1 dropped", "R$ 3,01 reduced", "R$ 0,00 dropped"} {
		if !strings.Contains(v, want) {
			t.Errorf("preview lacks %q:\n%s", want, v)
		}
	}
	// The order is the order sent: moving the small leg first keeps it whole.
	b.Update(splitKey(tea.KeyCtrlK))
	b.Update(splitKey(tea.KeyCtrlK))
	if v := ansi.Strip(viewAt(b, 120, 38)); !strings.Contains(v, "1 reduced, 0 dropped") {
		t.Errorf("after moving the small leg first:\n%s", v)
	}
}

// splitForm is a new-charge form with an amount typed and the builder open.
func splitForm(t *testing.T, origin string, fee api.Money, amount string) *newcharge.ChargeForm {
	t.Helper()
	c := splitCommon(t, origin, fee, splitWallets)
	f := newcharge.NewForm(c, origin, "pixdash-test-key-0001")
	f.SetSize(120, 36)
	for _, r := range amount {
		f.Update(runeKey(string(r)))
	}
	f.Update(splitKey(tea.KeyCtrlP))
	if !f.SplitOpen || f.Sb == nil || len(f.Sb.Draft.Legs) != 1 {
		t.Fatalf("ctrl+p did not open the builder with a first leg")
	}
	return f
}

func formType(f *newcharge.ChargeForm, s string) {
	for _, r := range s {
		f.Update(runeKey(string(r)))
	}
}

func TestSplitFormRefusesBrokenSplitAndSendsGoodOne(t *testing.T) {
	f := splitForm(t, "principal", 99, "12,34")
	formType(f, "loja-centro")
	f.Update(splitKey(tea.KeyTab))
	formType(f, "12,00")
	msg := f.Update(splitKey(tea.KeyCtrlS))()
	st, ok := msg.(common.StatusMsg)
	if !ok || !strings.Contains(st.Text, "The split breaks a rule (leg 1: the split (R$ 12,00) exceeds the net R$ 11,35") {
		t.Fatalf("submit with a broken split gave %#v", msg)
	}
	if !f.SplitOpen {
		t.Fatal("the builder closed; the message on the leg is not visible")
	}
	// esc keeps the legs; the form's row summarises them.
	f.Update(splitKey(tea.KeyEsc))
	if f.SplitOpen || len(f.Sb.Draft.Legs) != 1 {
		t.Fatalf("esc: open=%v legs=%d", f.SplitOpen, len(f.Sb.Draft.Legs))
	}
	if v := ansi.Strip(viewAt(f, 120, 36)); !strings.Contains(v, "1 leg · R$ 12,00 of R$ 11,35 net ✗ sum exceeds net") {
		t.Fatalf("form row:\n%s", v)
	}
	// Fix it from the Split row (enter opens the builder again).
	f.SetFocus(newcharge.FSplit)
	f.Update(splitKey(tea.KeyEnter))
	if !f.SplitOpen {
		t.Fatal("enter on the Split row did not open the builder")
	}
	f.Update(splitKey(tea.KeyBackspace))
	f.Update(splitKey(tea.KeyBackspace))
	f.Update(splitKey(tea.KeyBackspace))
	f.Update(splitKey(tea.KeyBackspace))
	f.Update(splitKey(tea.KeyBackspace))
	formType(f, "11,35")
	msg = f.Update(splitKey(tea.KeyCtrlS))()
	sub, ok := msg.(newcharge.ChargeSubmitMsg)
	if !ok {
		t.Fatalf("submit with a good split gave %#v", msg)
	}
	want := []api.SplitItem{{SubAccount: "loja-centro", Amount: 1135}}
	if fmt.Sprint(sub.Draft.Req.Split) != fmt.Sprint(want) || sub.Draft.Req.Amount != 1234 {
		t.Fatalf("request = %+v", sub.Draft.Req)
	}
}

func TestSplitEscDropsEmptyLegs(t *testing.T) {
	f := splitForm(t, "principal", 99, "20")
	f.Update(splitKey(tea.KeyEsc))
	if f.Sb.HasLegs() {
		t.Fatal("an untouched leg was kept")
	}
	if req, ok := f.Validate(); !ok || req.Split != nil {
		t.Fatalf("form without legs: ok=%v split=%v", ok, req.Split)
	}
	if v := ansi.Strip(viewAt(f, 120, 36)); !strings.Contains(v, "none · enter to build one") {
		t.Fatalf("form row:\n%s", v)
	}
}

// splitSumRefusal is the service's DomainError for a split above the net.
func splitSumRefusal(sum, net, gross, fee api.Money) error {
	p := api.SplitProblem{Rule: api.SplitSumExceedsNet, Sum: sum, Net: net, Gross: gross, Fee: fee}
	return fmt.Errorf("create: %w", &api.Error{HTTPStatus: 400, StatusCode: 400, Kind: p.SpecKind(), Message: p.SpecMessage(), TraceID: "t-split"})
}

func TestSplitLearnsFeeFromDomainError(t *testing.T) {
	f := splitForm(t, "principal", 10, "10,00")
	formType(f, "loja-centro")
	f.Update(splitKey(tea.KeyTab))
	formType(f, "9,90")
	if _, ok := f.Validate(); !ok {
		t.Fatalf("the split equal to the net with the profile fee was refused: %v", f.Errs)
	}
	oldKey := f.Key
	cmd := f.ServerError(splitSumRefusal(990, 901, 1000, 99))
	if cmd == nil {
		t.Fatal("no command persists the learned fee")
	}
	if f.Key == oldKey {
		t.Fatal("the refused attempt's Idempotency-Key would be reused for a different body")
	}
	if !f.SplitOpen {
		t.Fatal("the builder is not shown after the refusal")
	}
	v := ansi.Strip(viewAt(f, 120, 36))
	for _, want := range []string{"fee learned from the service: R$ 0,99 (was R$ 0,10)", "fee R$ 0,99 (learned from the service) = net R$ 9,01",
		"✗ the split (R$ 9,90) exceeds the net R$ 9,01 by R$ 0,89"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	if _, ok := f.C.App.Sess.Store.LearnedFee(); ok {
		t.Fatal("the fee was stored inside update, not by the command")
	}
	if msg := runReply(cmd); msg.(common.PersistMsg).Err != nil {
		t.Fatal(msg.(common.PersistMsg).Err)
	}
	lf, ok := f.C.App.Sess.Store.LearnedFee()
	if !ok || lf.Fee != 99 || lf.Wallet != "principal" || !strings.Contains(lf.From, "A soma do split") {
		t.Fatalf("stored fee = %+v, %v", lf, ok)
	}
	// A later form uses the learned fee.
	g := newcharge.NewForm(f.C, "principal", "pixdash-test-key-0002")
	g.SetSize(120, 36)
	formType(g, "10,00")
	g.Update(splitKey(tea.KeyCtrlP))
	formType(g, "loja-centro")
	g.Update(splitKey(tea.KeyTab))
	formType(g, "9,90")
	if ck, _ := g.SplitCheck(); ck.Ok() || ck.Fee != 99 || ck.FeeSrc != newcharge.FeeLearned {
		t.Fatalf("later form: fee %v (source %d), ok %v", ck.Fee, ck.FeeSrc, ck.Ok())
	}
}

func TestSplitServerRefusalOnItsLeg(t *testing.T) {
	f := splitForm(t, "principal", 99, "12,34")
	formType(f, "loja-centro")
	f.Update(splitKey(tea.KeyTab))
	formType(f, "1,00")
	f.Update(splitKey(tea.KeyCtrlN))
	formType(f, "loja-praia")
	f.Update(splitKey(tea.KeyTab))
	formType(f, "1,00")
	f.Update(splitKey(tea.KeyEsc))
	msg := "Subconta 'loja-praia' não existe nesta conta ou não está ativa"
	if cmd := f.ServerError(&api.Error{HTTPStatus: 400, Kind: api.KindBadRequest, Message: msg}); cmd != nil {
		t.Fatal("a refusal that reveals no fee returned a command")
	}
	if !f.SplitOpen {
		t.Fatal("the builder did not reopen on a split refusal")
	}
	lines := strings.Split(ansi.Strip(viewAt(f, 120, 36)), "\n")
	found := false
	for i, l := range lines {
		if strings.Contains(l, "2  [loja-praia") && i+1 < len(lines) && strings.Contains(lines[i+1], "the service refused it: "+msg) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the refusal is not on leg 2:\n%s", strings.Join(lines, "\n"))
	}
	// Editing clears it.
	f.Update(splitKey(tea.KeyBackspace))
	if strings.Contains(ansi.Strip(viewAt(f, 120, 36)), "the service refused") {
		t.Fatal("the refusal stayed after an edit")
	}
}

func TestSplitViewFits(t *testing.T) {
	b := newTestBuilder(t, "loja-centro", 100000, 99, splitWallets)
	var legs [][2]string
	for i := range newcharge.MaxDraftLegs + 2 {
		legs = append(legs, [2]string{fmt.Sprintf("destino-muito-longo-numero-%02d", i), "1,234"})
	}
	addLegs(b, legs...)
	if len(b.Draft.Legs) != newcharge.MaxDraftLegs {
		t.Fatalf("%d legs held, cap %d", len(b.Draft.Legs), newcharge.MaxDraftLegs)
	}
	for _, sel := range []int{0, 7, newcharge.MaxDraftLegs - 1} {
		b.FocusCell(sel, newcharge.ColDest)
		for _, size := range [][2]int{{80, 20}, {78, 18}, {120, 36}, {200, 60}} {
			v := viewAt(b, size[0], size[1])
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] {
				t.Fatalf("%dx%d: %d lines", size[0], size[1], len(lines))
			}
			for _, l := range lines {
				if lipgloss.Width(l) > size[0] {
					t.Fatalf("%dx%d: line of %d cells: %q", size[0], size[1], lipgloss.Width(l), l)
				}
			}
			if !strings.Contains(ansi.Strip(v), fmt.Sprintf("› %2d  ", sel+1)) {
				t.Fatalf("%dx%d: the selected leg %d is not visible:\n%s", size[0], size[1], sel+1, ansi.Strip(v))
			}
		}
	}
}

func TestSplitFlowEqualToNetCreatesCharge(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	f.keys("n")
	f.waitFor("New charge", "Create charge")
	f.keys("12,34")
	f.tm.Send(splitKey(tea.KeyCtrlP))
	f.waitFor("legs settle in this order", "= net R$ 11,35")
	f.keys("loja-centro", "tab", "11,35")
	f.waitFor("equal to the net: accepted")
	f.keys("ctrl+s")
	f.waitFor("Pague com PIX") // the split is the merchant's: checked in the store below, not shown to the customer
	if n := countCharges(t, srv); n != 1 {
		t.Fatalf("%d charges created, want 1", n)
	}
	cs := allCharges(t, s.Store, state.ChargeQuery{})
	want := []api.SplitItem{{SubAccount: "loja-centro", Amount: 1135}}
	if len(cs) == 0 || cs[0].Amount != 1234 || fmt.Sprint(cs[0].SplitRequested) != fmt.Sprint(want) {
		t.Fatalf("newest tracked charge of %d: %+v", len(cs), cs[:min(len(cs), 1)])
	}
}

func TestSplitFlowLearnsFeeThenSucceeds(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	s.PixFee, s.HasPixFee = 10, true // below the emulator's R$ 0,99
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	f.keys("n")
	f.waitFor("New charge", "Create charge")
	f.keys("10,00")
	f.tm.Send(splitKey(tea.KeyCtrlP))
	f.waitFor("= net R$ 9,90")
	f.keys("loja-centro", "tab", "9,90")
	f.waitFor("equal to the net: accepted")
	f.keys("ctrl+s")
	f.waitFor("fee learned from the service: R$ 0,99 (was R$ 0,10)", "✗ the split (R$ 9,90) exceeds the net R$ 9,01 by R$ 0,89")
	if n := countCharges(t, srv); n != 0 {
		t.Fatalf("the refused split created %d charge(s)", n)
	}
	for range 4 {
		f.tm.Send(splitKey(tea.KeyBackspace))
	}
	f.keys("9,01")
	f.waitFor("equal to the net: accepted")
	f.keys("ctrl+s")
	f.waitFor("Pague com PIX")
	if n := countCharges(t, srv); n != 1 {
		t.Fatalf("%d charges created, want 1", n)
	}
	if cs := allCharges(t, s.Store, state.ChargeQuery{}); len(cs) == 0 || fmt.Sprint(cs[0].SplitRequested) != fmt.Sprint([]api.SplitItem{{SubAccount: "loja-centro", Amount: 901}}) {
		t.Fatalf("newest tracked charge of %d: %+v", len(cs), cs[:min(len(cs), 1)])
	}
	// The learned fee was persisted by a command (wait for it rather than assume its timing).
	deadline := time.Now().Add(5 * time.Second)
	lf, ok := s.Store.LearnedFee()
	for !ok && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		lf, ok = s.Store.LearnedFee()
	}
	if !ok || lf.Fee != 99 {
		t.Fatalf("learned fee = %+v, %v", lf, ok)
	}
}

func TestGoldenSplit(t *testing.T) {
	build := func(t *testing.T, m *Model) {
		m.app.SubAccounts = splitWallets
		m.Update(runeKey("n"))
		formOf(m).Key = "pixdash-golden-key-0001"
		for _, r := range "12,34" {
			m.Update(runeKey(string(r)))
		}
		m.Update(splitKey(tea.KeyCtrlP))
		m.Update(splitKey(tea.KeyRight)) // loja-centro, the first suggestion
		m.Update(splitKey(tea.KeyTab))
		for _, r := range "10" {
			m.Update(runeKey(string(r)))
		}
		m.Update(splitKey(tea.KeyCtrlN))
		m.Update(splitKey(tea.KeyRight)) // loja-praia: loja-centro is taken by leg 1
		m.Update(splitKey(tea.KeyTab))
		for _, r := range "2,00" {
			m.Update(runeKey(string(r)))
		}
	}
	cases := []struct {
		name string
		do   func(t *testing.T, m *Model)
	}{
		{"builder_sum_exceeds_net", build},
		{"form_with_split", func(t *testing.T, m *Model) {
			build(t, m)
			m.Update(splitKey(tea.KeyEsc))
		}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, api.Sandbox)
				s.PixFee, s.HasPixFee = 99, true
				m := goldenModel(t, s, size[0], size[1])
				tc.do(t, m)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

// TestSplitFooterListsEachKeyOnce is defect 16: with the builder open, the builder lists its own
// keys and the footer the form's; none is drawn twice, in either language.
func TestSplitFooterListsEachKeyOnce(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		for _, size := range goldenSizes {
			s := goldenSession(t, api.Sandbox)
			s.PixFee, s.HasPixFee = 99, true
			m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m.app.SubAccounts = splitWallets
			m.Update(runeKey("n"))
			for _, r := range "12,34" {
				m.Update(runeKey(string(r)))
			}
			m.Update(splitKey(tea.KeyCtrlP))
			out := ansi.Strip(m.View())
			for _, k := range []key.Binding{m.c.Keys.Submit, m.c.Keys.Back, m.c.Keys.AddLeg, m.c.Keys.NextField} {
				h := k.Help()
				entry := h.Key + " " + h.Desc
				if n := strings.Count(out, entry); n != 1 {
					t.Errorf("%s %dx%d: %q drawn %d times:\n%s", lang, size[0], size[1], entry, n, out)
				}
			}
		}
	}
}
