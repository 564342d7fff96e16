package ui

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/api/i18n"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/ui/common"
)

// enumConst is one value of an API enum as its source declares it.
type enumConst struct {
	name, raw string
	v         any // the typed value, as the views hold it
}

// enumTypes are the API's status and type enums, by type name, with a constructor of a typed value.
var enumTypes = map[string]func(string) any{
	"TxStatus":            func(s string) any { return api.TxStatus(s) },
	"TxType":              func(s string) any { return api.TxType(s) },
	"PaymentMethod":       func(s string) any { return api.PaymentMethod(s) },
	"RefundStatus":        func(s string) any { return api.RefundStatus(s) },
	"BlockStatus":         func(s string) any { return api.BlockStatus(s) },
	"SubAccountStatus":    func(s string) any { return api.SubAccountStatus(s) },
	"RefundRequestStatus": func(s string) any { return api.RefundRequestStatus(s) },
	"WithdrawalStatus":    func(s string) any { return api.WithdrawalStatus(s) },
}

// ptSameWord are raw values that are already the Portuguese word: their pt-BR label is the value.
var ptSameWord = map[string]bool{"boleto": true, "judicial": true}

// apiEnumConsts reads every status and type constant of api/types.go (and the refund-request
// and withdrawal statuses of api/withdrawal.go) from the source, so a new one is covered.
func apiEnumConsts(t *testing.T) []enumConst {
	t.Helper()
	var out []enumConst
	fset := token.NewFileSet()
	for _, file := range []string{"../api/types.go", "../api/withdrawal.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					raw, _ := strconv.Unquote(lit.Value)
					switch mk, enum := enumTypes[typ]; {
					case enum:
						out = append(out, enumConst{name: name.Name, raw: raw, v: mk(raw)})
					case typ == "" && strings.HasPrefix(name.Name, "BlockType"):
						out = append(out, enumConst{name: name.Name, raw: raw, v: common.BlockType(raw)})
					}
				}
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("read only %d enum constants from the api sources", len(out))
	}
	return out
}

// TestEveryAPIEnumHasLabels: each status and type value has an English and a pt-BR label, and
// the pt-BR one is a translation (not the wire value) unless the value is a Portuguese word.
func TestEveryAPIEnumHasLabels(t *testing.T) {
	en, pt := common.Catalog{Lang: common.LangEN}, common.Catalog{Lang: common.LangPT}
	for _, c := range apiEnumConsts(t) {
		if _, ok := common.EnumEN[c.v]; !ok {
			t.Errorf("%s (%q) has no English label", c.name, c.raw)
		}
		if _, ok := common.PtBRAPI[c.v]; !ok {
			t.Errorf("%s (%q) has no pt-BR label", c.name, c.raw)
		}
		if got := pt.Enum(c.v); got == c.raw && !ptSameWord[c.raw] {
			t.Errorf("%s: pt-BR label is the wire value %q", c.name, got)
		}
		if got := en.Enum(c.v); strings.Contains(got, "_") {
			t.Errorf("%s: English label %q is a wire value", c.name, got)
		}
	}
	// A value the spec does not name is shown as it came, cleaned.
	if got := pt.Enum(api.TxStatus("under_review\x1b[2J")); got != common.Sanitize("under_review\x1b[2J") || strings.Contains(got, "\x1b") {
		t.Errorf("unknown value = %q", got)
	}
	if got := pt.Enum(api.BlockStatus("")); got != "" {
		t.Errorf("empty value = %q", got)
	}
	// The same wire word of two enums gets each its own label.
	if pt.Enum(api.BlockApproved) != "aprovado" || pt.Enum(api.SubAccountApproved) != "aprovada" {
		t.Errorf("approved: block %q, sub-account %q", pt.Enum(api.BlockApproved), pt.Enum(api.SubAccountApproved))
	}
}

func TestPluralHelper(t *testing.T) {
	en, pt := common.Catalog{Lang: common.LangEN}, common.Catalog{Lang: common.LangPT}
	cases := []struct {
		tr   common.Catalog
		n    int
		want string
	}{
		{en, 0, "0 events"}, {en, 1, "1 event"}, {en, 2, "2 events"},
		{pt, 0, "0 eventos"}, {pt, 1, "1 evento"}, {pt, 2, "2 eventos"},
	}
	for _, tc := range cases {
		if got := tc.tr.N("events.events_n", tc.n); got != tc.want {
			t.Errorf("%s N(%d) = %q, want %q", tc.tr.Lang, tc.n, got, tc.want)
		}
	}
	if got := pt.N("events.of_events_n", 1, 0, 1); got != "0 de 1 evento" {
		t.Errorf("two figures = %q", got)
	}
	if got := en.N("events.of_events_n", 3, 2, 3); got != "2 of 3 events" {
		t.Errorf("two figures = %q", got)
	}
}

// TestPluralFormsTranslated: every tr.N call names a plural message (a One and an Other form)
// of both tables.
func TestPluralFormsTranslated(t *testing.T) {
	fset := token.NewFileSet()
	// The root and every view and foundation package under it.
	var names []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "N" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			id, _ := strconv.Unquote(lit.Value)
			n++
			for _, l := range []common.Lang{common.LangEN, common.LangPT} {
				if m := i18n.IDs(l)[id]; m.One == "" || m.Other == "" {
					t.Errorf("%s: %s has no %s plural forms", fset.Position(lit.Pos()), id, l)
				}
			}
			return true
		})
	}

	if n < 10 {
		t.Fatalf("found only %d plural messages: the scan is broken", n)
	}
}

// drive hands msg to m and runs what it returns as the runtime would, handing every reply back
// (the service's included), until nothing is left. Commands that wait for time or the next
// change (ticks, blinks, the store and event feeds) are not run.
func drive(t *testing.T, m *Model, msg tea.Msg) {
	t.Helper()
	_, cmd := m.Update(reply(m, msg))
	runCmds(t, m, cmd)
}

// runCmds runs cmd for m as drive does: every message goes to m (a quit is ignored).
func runCmds(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	drainCmds(t, cmd, func(msg tea.Msg) tea.Cmd {
		if _, quit := msg.(tea.QuitMsg); quit {
			return nil
		}
		_, next := m.Update(reply(m, msg))
		return next
	})
}

// waitEvents waits until the store holds at least n events of kind.
func waitEvents(t *testing.T, s *Session, kind api.EventKind, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := s.Store.EventWindow(context.Background(), state.EventQuery{Kind: kind}, 0, 1)
		if err == nil && p.Total >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s event(s) never reached the store (%v)", n, kind, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ptbrScene is a demo with a charge of every kind the views draw: pending, paid with a split that
// was refunded in part and put under a MED block, and a CNPJ deposit refused.
type ptbrScene struct {
	s                          *Session
	pending, paid, refused     state.Charge
	refundTxID, splitChargeRef string
}

func newPtbrScene(t *testing.T) *ptbrScene {
	t.Helper()
	s, _ := demo(t, DemoOptions{})
	ctx := context.Background()
	ctl := sandbox.NewControl(s.Client)
	create := func(amount api.Money, desc, ref string, split []api.SplitItem) *api.PixCharge {
		req := &api.CreatePixRequest{Amount: amount, Description: desc, ExternalReference: ref, Split: split}
		key := "pixdash-ptbr-" + ref
		pix, err := s.Client.CreatePix(ctx, req, api.WithIdempotencyKey(key))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Store.UpsertCharge(ctx, state.ChargeFromPix(pix, req, api.WalletPrincipal, key)); err != nil {
			t.Fatal(err)
		}
		return pix
	}
	sc := &ptbrScene{s: s, splitChargeRef: "ptbr-0002"}
	pending := create(1234, "Café coado", "ptbr-0001", nil)
	paid := create(5000, "Bolo com entrega", sc.splitChargeRef, []api.SplitItem{{SubAccount: "loja-centro", Amount: 1000}})
	refused := create(25000, "Encomenda de empresa", "ptbr-0003", nil)
	if err := s.Simulator.Pay(ctx, paid.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	if err := s.Simulator.Pay(ctx, refused.ID, "Eventos Alfa S.A.", "11222333000181"); err != nil {
		t.Fatal(err)
	}
	part := api.Money(1250)
	refund, err := ctl.RefundCharge(ctx, paid.ID, &part)
	if err != nil {
		t.Fatal(err)
	}
	sc.refundTxID = refund.ID
	if _, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: paid.ID, Reason: "Pagador alega golpe"}); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, s, api.EventPaymentCompleted, 1)
	waitEvents(t, s, api.EventPaymentFailed, 1)
	waitEvents(t, s, api.EventRefundCompleted, 1)
	waitEvents(t, s, api.EventBalanceBlockCreated, 1)
	// The payment events are read back as the dashboard does, which applies them to the charges.
	unchecked, err := s.Store.UncheckedPayments(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range unchecked {
		if _, err := s.Store.ConfirmEvent(ctx, s.Client, e.Event); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		id  string
		dst *state.Charge
	}{{pending.ID, &sc.pending}, {paid.ID, &sc.paid}, {refused.ID, &sc.refused}} {
		ch, ok := chargeByID(t, s.Store, c.id)
		if !ok {
			t.Fatalf("charge %s not tracked", c.id)
		}
		*c.dst = ch
	}
	if !sc.paid.State().Received() || !sc.paid.HasDistributed || sc.refused.BlockedDeposit == nil {
		t.Fatalf("scene not ready: paid %+v, refused %+v", sc.paid, sc.refused)
	}
	return sc
}

// wordRE matches raw as a whole word: not inside a longer identifier such as payment_completed.
func wordRE(raw string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\p{L}\p{N}_])` + regexp.QuoteMeta(raw) + `($|[^\p{L}\p{N}_])`)
}

// TestPortugueseViewsShowNoRawAPIValues is defect 13: every view, rendered in pt-BR from a seeded
// demo, draws no status or type as its wire value.
func TestPortugueseViewsShowNoRawAPIValues(t *testing.T) {
	sc := newPtbrScene(t)
	type check struct {
		raw string
		re  *regexp.Regexp
	}
	var checks []check
	seen := map[string]bool{}
	for _, c := range apiEnumConsts(t) {
		if !ptSameWord[c.raw] && !seen[c.raw] {
			seen[c.raw] = true
			checks = append(checks, check{c.raw, wordRE(c.raw)})
		}
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		m := New(Options{Session: sc.s, Lang: common.LangPT, CustomerLang: common.LangPT, Bell: func() {}, Clipboard: func(string) {}, Location: time.UTC})
		drive(t, m, tea.WindowSizeMsg{Width: w, Height: h})
		runCmds(t, m, m.Init())
		screens := map[string]string{}
		shot := func(name string) { screens[fmt.Sprintf("%s_%dx%d", name, w, h)] = ansi.Strip(m.View()) }
		key := func(k tea.KeyMsg) { drive(t, m, k) }

		shot("charges")
		key(runeKey("2"))
		drive(t, m, common.InspectMsg{Query: sc.splitChargeRef, Wallet: api.WalletPrincipal})
		shot("inspector_split_refund_block")
		key(tea.KeyMsg{Type: tea.KeyEnd})
		shot("inspector_split_refund_block_end")
		for _, q := range []string{sc.refused.ID, sc.pending.ID, sc.refundTxID} {
			drive(t, m, common.InspectMsg{Query: q, Wallet: api.WalletPrincipal})
			shot("inspector_" + q)
			key(tea.KeyMsg{Type: tea.KeyEnd})
			shot("inspector_end_" + q)
		}
		key(runeKey("3"))
		shot("wallets")
		key(runeKey("4"))
		shot("blocks")
		key(runeKey("5"))
		drive(t, m, common.StoreChangedMsg{Gen: m.app.Gen, Charges: true, Events: true})
		shot("events")
		key(runeKey("1"))
		key(runeKey("?"))
		shot("help")
		key(tea.KeyMsg{Type: tea.KeyEsc})
		key(runeKey("n"))
		shot("new_charge")
		if out := screens[fmt.Sprintf("new_charge_%dx%d", w, h)]; !strings.Contains(out, "Nome do pagador ") || strings.Contains(out, "Nome do pagad…") {
			t.Errorf("%dx%d: the payer-name label does not fit its column:\n%s", w, h, out)
		}
		key(tea.KeyMsg{Type: tea.KeyCtrlP})
		for _, r := range "loja-centro" {
			key(runeKey(string(r)))
		}
		key(tea.KeyMsg{Type: tea.KeyTab})
		key(runeKey("5"))
		shot("split_builder")
		key(tea.KeyMsg{Type: tea.KeyEsc})
		key(tea.KeyMsg{Type: tea.KeyEsc})
		for name, ch := range map[string]state.Charge{"qr_pending": sc.pending, "qr_paid": sc.paid, "qr_refused": sc.refused} {
			drive(t, m, common.OpenChargeMsg{Charge: ch})
			shot(name)
			if out := screens[fmt.Sprintf("%s_%dx%d", name, w, h)]; strings.Contains(out, "Enlarge") || strings.Contains(out, "Waiting for payment") {
				t.Errorf("%s at %dx%d is in English:\n%s", name, w, h, out)
			}
			key(tea.KeyMsg{Type: tea.KeyEsc})
		}
		for name, out := range screens {
			for _, c := range checks {
				if loc := c.re.FindStringIndex(out); loc != nil {
					t.Errorf("%s shows the wire value %q: …%s…", name, c.raw, out[max(loc[0]-30, 0):min(loc[1]+30, len(out))])
				}
			}
		}
		// The scene is on screen, not just free of raw values.
		for name, want := range map[string]string{
			"inspector_split_refund_block": "concluída", "inspector_split_refund_block_end": "Estornos",
			"blocks": "aguarda resposta", "events": "evento", "qr_paid": "ESTORNADO", // refunded in part: the money went back
		} {
			if out := screens[fmt.Sprintf("%s_%dx%d", name, w, h)]; !strings.Contains(out, want) {
				t.Errorf("%s at %dx%d lacks %q:\n%s", name, w, h, want, out)
			}
		}
	}
}

// TestCountsAgreeWithTheirNoun is defect 16's "1 charges": one charge is "1 charge" (pt-BR
// "1 cobrança"), two are plural.
func TestCountsAgreeWithTheirNoun(t *testing.T) {
	for _, tc := range []struct {
		lang      common.Lang
		one, many string
	}{{common.LangEN, "1 charge ·", "2 charges ·"}, {common.LangPT, "1 cobrança ·", "2 cobranças ·"}} {
		s := goldenSession(t, api.Sandbox)
		m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
		send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		for i, want := range []string{tc.one, tc.many} {
			ch := state.Charge{ID: fmt.Sprintf("c%d", i), Amount: 100, Status: api.StatusPending, Wallet: api.WalletPrincipal,
				CreatedAt: goldenNow, ExpiresAt: goldenNow.Add(time.Hour), UpdatedAt: goldenNow}
			if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
				t.Fatal(err)
			}
			storeChanged(t, m)
			if out := ansi.Strip(m.View()); !strings.Contains(out, want) {
				t.Errorf("%s: missing %q in:\n%s", tc.lang, want, out)
			}
		}
	}
}
