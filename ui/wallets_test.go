package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/api/apitest"
	"pixdash/api/sandbox"
	"pixdash/state/workflow"
	"pixdash/ui/common"
	"pixdash/ui/wallets"
)

// walletsFixtureSubs are the default fixture's sub-accounts (api/sandbox/default.toml).
var walletsFixtureSubs = []string{"loja-centro", "loja-praia", "parceiro_entregas", "loja-antiga"}

// subRefs lists the sub-account references the emulator knows for the session's account.
func subRefs(t *testing.T, s *Session) []string {
	t.Helper()
	subs, err := s.Client.ListSubAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sa := range subs {
		out = append(out, sa.Reference)
	}
	return out
}

// walletAvailable is a wallet's available balance as the emulator's back office sees it.
func walletAvailable(t *testing.T, s *Session, ref string) api.Money {
	t.Helper()
	ws, err := sandbox.NewControl(s.Client).Wallets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.SubAccount == ref {
			return w.Available
		}
	}
	t.Fatalf("the emulator has no wallet %s", ref)
	return 0
}

func TestWalletsFlowListBalancesSwitchAndCharge(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	f.keys("3")
	principal := walletAvailable(t, s, api.WalletPrincipal).BRL()
	centro := walletAvailable(t, s, "loja-centro").BRL()
	f.waitFor("principal", "loja-centro", "Loja Praia", "parceiro_entregas", "Loja Antiga (fechada)", "⊘ suspended", "✓ active",
		principal, centro, "5 wallets")

	// principal is active and under the cursor; the next row is loja-centro.
	f.keys("j", "enter")
	f.waitFor("wallet loja-centro", "Active wallet: loja-centro")
	f.newCharge("12,34", "na loja centro")
	f.waitFor("Pague com PIX", "na loja centro")

	refs := srv.Charges(DemoClientID)
	last := refs[len(refs)-1]
	if last.Wallet != "loja-centro" {
		t.Fatalf("the emulator created the charge in %q, want loja-centro (X-Sub-Account not sent?)", last.Wallet)
	}
	ctx := context.Background()
	tx, err := s.Client.GetTransaction(ctx, last.ID, api.WithSubAccount("loja-centro"))
	if err != nil || tx.Amount != 1234 {
		t.Fatalf("charge in loja-centro: %+v, %v", tx, err)
	}
	if _, err := s.Client.GetTransaction(ctx, last.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("the charge is visible on principal: err = %v", err)
	}
}

func TestWalletsFlowEnterOnSuspendedIsRefused(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("⊘ suspended", "5 wallets")
	f.keys("G", "enter")
	f.waitFor("loja-antiga is suspended (SUB_ACCOUNT_SUSPENDED): it cannot be made active")
	if err := f.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := f.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if fm.app.Wallet != api.WalletPrincipal {
		t.Fatalf("active wallet = %s after enter on a suspended one", fm.app.Wallet)
	}
}

func TestWalletsFlowQuickPicker(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	// From the charges view, before the wallet view ever loaded: the picker loads the list itself.
	f.keys("w")
	f.waitFor("Switch wallet", "loja-praia", "Loja Antiga (fechada) · ⊘ suspended")
	f.keys("j", "j", "j", "j", "enter")
	f.waitFor("cannot be made active")
	f.keys("k", "k", "enter")
	f.waitFor("wallet loja-praia", "Active wallet: loja-praia")
	f.newCharge("7", "praia")
	f.waitFor("Pague com PIX")
	refs := srv.Charges(DemoClientID)
	if w := refs[len(refs)-1].Wallet; w != "loja-praia" {
		t.Fatalf("charge created in %q, want loja-praia", w)
	}
}

func TestWalletsFlowCreateSubAccount(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("5 wallets")
	f.keys("c")
	f.waitFor("New sub-account", "Reference")
	f.keys("loja-nova", "tab", "Loja Nova", "ctrl+s")
	f.waitFor("Sub-account loja-nova created.", "6 wallets", "Loja Nova")
	if refs := subRefs(t, s); !strings.Contains(strings.Join(refs, ","), "loja-nova") {
		t.Fatalf("the emulator does not list loja-nova: %v", refs)
	}

	// A taken reference: the 409 goes next to the reference field.
	f.keys("c")
	f.waitFor("New sub-account")
	f.keys("loja-centro", "tab", "Outra loja", "enter")
	f.waitFor("loja-centro is already used in this account (SUB_ACCOUNT_REFERENCE_TAKEN)")
	if n := len(subRefs(t, s)); n != 5 {
		t.Fatalf("%d sub-accounts after the refused create, want 5", n)
	}
}

func TestWalletsFlowBadReferenceIsNotSent(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("5 wallets")
	f.keys("c")
	f.waitFor("New sub-account")
	f.keys("Bad Ref")
	f.waitFor("use only lowercase letters, digits, - and _")
	f.keys("tab", "Nome", "ctrl+s")
	f.waitFor("Fix the highlighted fields; nothing was sent.")
	// principal is refused as it is typed too (a fresh form: esc and y dropped the first one).
	f.keys("esc", "y", "c", "principal")
	f.waitFor("'principal' is reserved for the main account")
	if refs := subRefs(t, s); len(refs) != len(walletsFixtureSubs) {
		t.Fatalf("sub-accounts = %v, want the fixture's %v", refs, walletsFixtureSubs)
	}
}

func TestWalletsFlowProductionAsksBeforeCreating(t *testing.T) {
	s, _ := demo(t, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	s.Demo = false
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("2 wallets")
	f.keys("c", "loja-nova", "tab", "Nova", "ctrl+s")
	f.waitFor("Create sub-account loja-nova in PRODUCTION? (y/N)")
	f.keys("n")
	f.waitFor("Cancelled; nothing was sent.")
	if n := len(subRefs(t, s)); n != 1 {
		t.Fatalf("a refused confirmation created a sub-account (%d)", n)
	}
	f.keys("ctrl+s")
	f.waitFor("Create sub-account loja-nova in PRODUCTION? (y/N)")
	f.keys("y")
	f.waitFor("Sub-account loja-nova created.", "3 wallets")
	if n := len(subRefs(t, s)); n != 2 {
		t.Fatalf("confirmed create left %d sub-accounts, want 2", n)
	}
}

func TestWalletsFlowReadOnlyRefusesCreate(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	s.ReadOnly = true
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("5 wallets")
	f.keys("c")
	f.waitFor("creating sub-accounts is disabled (read_only = true)")
	// The form did not open: keys still reach the list.
	f.keys("j", "enter")
	f.waitFor("wallet loja-centro")
	if n := len(subRefs(t, s)); n != len(walletsFixtureSubs) {
		t.Fatalf("read-only profile changed the sub-accounts (%d)", n)
	}
}

func TestWalletsFlowNoSubAccountAccessExplains(t *testing.T) {
	// DemoSession reads every seeded charge to track it; this credential cannot read those of the
	// sub-accounts, so the fixture keeps only the main account's history.
	fx := sandbox.DefaultFixture()
	acct := &fx.Accounts[0]
	keep := map[string]bool{}
	var charges []sandbox.ChargeFixture
	for _, ch := range acct.Charges {
		if ch.Wallet == "" || ch.Wallet == api.WalletPrincipal {
			charges = append(charges, ch)
			keep[ch.ExternalReference] = true
		}
	}
	var blocks []sandbox.BalanceBlockFixture
	for _, b := range acct.BalanceBlocks {
		if keep[b.Charge] {
			blocks = append(blocks, b)
		}
	}
	acct.Charges, acct.BalanceBlocks = charges, blocks
	s, _ := demo(t, DemoOptions{ClientID: "mp_test_demo_nosub", Secret: "demo-nosub-secret", Fixture: fx})
	f := startFlow(t, s, 200, 40)
	f.keys("3")
	f.waitFor("5 wallets", "no access")
	f.keys("j", "enter")
	f.waitFor("wallet loja-centro", "SUB_ACCOUNT_FORBIDDEN",
		"this credential's access to sub-accounts is off: switch it on in the dashboard under Settings")
}

func TestWalletsFlowRefreshShowsNewSubAccount(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.keys("3")
	f.waitFor("5 wallets")
	if _, err := s.Client.CreateSubAccount(context.Background(), &api.CreateSubAccountRequest{Reference: "de-fora", Name: "Criada por fora"}); err != nil {
		t.Fatal(err)
	}
	f.keys("r")
	f.waitFor("6 wallets", "Criada por fora")
}

// --- unit tests -----------------------------------------------------------------------------

// walletsModel is a golden model showing the wallet view, its list request made (not run).
func walletsModel(t *testing.T, s *Session, w, h int) (*Model, *wallets.View) {
	t.Helper()
	m := goldenModel(t, s, w, h)
	m.Update(runeKey("3"))
	wv := m.wallets()
	if !wv.Loading {
		t.Fatal("showing the wallet view did not start loading")
	}
	return m, wv
}

func TestWalletsStaleRepliesAreDropped(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	old := m.tagNow()
	old.Gen--
	subs := []api.SubAccount{{Reference: "loja-velha", Name: "Loja de outro perfil", Status: api.SubAccountApproved}}
	m.Update(reply(m, wallets.ListMsg{Tag: old, Seq: wv.Seq, Subs: subs}))
	if wv.Loaded || !wv.Loading || m.app.SubAccounts != nil || len(wv.Rows) != 1 {
		t.Fatalf("a reply from another session was used: loaded=%v rows=%d subAccounts=%v", wv.Loaded, len(wv.Rows), m.app.SubAccounts)
	}
	// A reply to an older request of this session is dropped too.
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq - 1, Subs: subs}))
	if wv.Loaded {
		t.Fatal("a superseded list reply was used")
	}
	// The current reply is used and shared with the split builder.
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{{Reference: "loja-centro", Name: "Loja Centro", Status: api.SubAccountApproved}}}))
	if !wv.Loaded || len(m.app.SubAccounts) != 1 || m.app.SubAccounts[0].Reference != "loja-centro" {
		t.Fatalf("current reply not used: loaded=%v subAccounts=%v", wv.Loaded, m.app.SubAccounts)
	}
	// A balance reply from another session is dropped; the current one is kept.
	b := wv.Bals["loja-centro"]
	avail := api.Money(500)
	m.Update(reply(m, wallets.BalanceMsg{Tag: old, Ref: "loja-centro", Req: b.Req, Acc: &api.Account{Balance: api.AccountBalance{Available: &avail}}}))
	if b.Done {
		t.Fatal("a balance from another session was used")
	}
	m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: "loja-centro", Req: b.Req - 100, Acc: &api.Account{Balance: api.AccountBalance{Available: &avail}}}))
	if b.Done {
		t.Fatal("a superseded balance reply was used")
	}
	m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: "loja-centro", Req: b.Req, Acc: &api.Account{Balance: api.AccountBalance{Available: &avail}}}))
	if !b.Done || b.Bal.Available == nil || *b.Bal.Available != 500 {
		t.Fatalf("current balance not used: %+v", b)
	}

	// After a profile switch the new view ignores the old session's replies.
	t0 := m.tagNow()
	m.setSession(goldenSession(t, api.Sandbox))
	nv := m.wallets()
	nv.Reload()
	m.Update(reply(m, wallets.ListMsg{Tag: t0, Seq: nv.Seq, Subs: subs}))
	if nv.Loaded || m.app.SubAccounts != nil {
		t.Fatal("the new session's view used the old session's list")
	}
}

func TestWalletsReferenceValidation(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	_, wv := walletsModel(t, s, 120, 40)
	cases := []struct {
		ref    string
		strict bool
		want   string // a substring; "" means no message
	}{
		{"loja-nova", false, ""},
		{"a1", true, ""},
		{"a_b-c", true, ""},
		{"Bad Ref", false, "use only lowercase letters"},
		{"-loja", false, "use only lowercase letters"},
		{"loja nova", false, "use only lowercase letters"},
		{"loja.nova", false, "use only lowercase letters"},
		{"lojá", false, "use only lowercase letters"},
		{"principal", false, "'principal' is reserved"},
		{"a", false, ""},
		{"a", true, "too short"},
		{"", false, ""},
		{"", true, "required"},
		{strings.Repeat("a", 32), true, ""},
		{strings.Repeat("a", 33), false, "too long: 33 characters"},
	}
	for _, tc := range cases {
		got := wv.RefProblem(tc.ref, tc.strict)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("refProblem(%q, %v) = %q, want %q", tc.ref, tc.strict, got, tc.want)
		}
		// The view never accepts what the client would refuse (and the reverse).
		if tc.ref != "" && (got == "") != (api.ValidateSubAccountRef(tc.ref) == nil) && tc.strict {
			t.Errorf("refProblem(%q) disagrees with api.ValidateSubAccountRef", tc.ref)
		}
	}
}

func TestWalletsBalanceNeverGuesses(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq}))
	if b := wv.Bals[api.WalletPrincipal]; b == nil || !b.Loading {
		t.Fatal("principal's balance was not requested")
	}
	if c, _ := wv.BalanceCells(api.WalletPrincipal); c[0] != "…" {
		t.Fatalf("loading balance shows %q, want …", c[0])
	}
	send := func(acc *api.Account, err error) {
		m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: api.WalletPrincipal, Req: wv.Bals[api.WalletPrincipal].Req, Acc: acc, Err: err}))
	}
	avail, held, zero, total := api.Money(123456), api.Money(700), api.Money(0), api.Money(124156)
	cases := []struct {
		name string
		acc  *api.Account
		err  error
		want [4]string // available, held, promotional, total
	}{
		{"nothing sent", &api.Account{}, nil, [4]string{"—", "—", "—", "—"}},
		{"available only", &api.Account{Balance: api.AccountBalance{Available: &avail}}, nil, [4]string{"R$ 1.234,56", "—", "—", "—"}},
		{"a zero sent is a zero", &api.Account{Balance: api.AccountBalance{Available: &avail, Promotional: &zero}}, nil, [4]string{"R$ 1.234,56", "—", "R$ 0,00", "—"}},
		{"every figure", &api.Account{Balance: api.AccountBalance{Available: &avail, Held: &held, Promotional: &zero, Total: &total, Currency: "BRL"}}, nil,
			[4]string{"R$ 1.234,56", "R$ 7,00", "R$ 0,00", "R$ 1.241,56"}},
		// The total is shown as sent, never recomputed from the other figures.
		{"total as sent", &api.Account{Balance: api.AccountBalance{Available: &avail, Held: &held, Total: &avail}}, nil, [4]string{"R$ 1.234,56", "R$ 7,00", "—", "R$ 1.234,56"}},
		{"another currency", &api.Account{Balance: api.AccountBalance{Available: &avail, Currency: "USD"}}, nil, [4]string{"1234.56 USD", "—", "—", "—"}},
		{"suspended", nil, &api.Error{HTTPStatus: 403, Code: api.CodeSubAccountSuspended}, [4]string{"suspended"}},
		{"no access", nil, &api.Error{HTTPStatus: 403, Code: api.CodeSubAccountForbidden}, [4]string{"no access"}},
		{"not found", nil, &api.Error{HTTPStatus: 404, Code: api.CodeSubAccountNotFound}, [4]string{"not found"}},
		{"server", nil, &api.Error{HTTPStatus: 500}, [4]string{"error 500"}},
		{"network", nil, errors.New("connection refused"), [4]string{"unavailable"}},
		{"never sent", nil, &api.ValidationError{Problems: []api.FieldProblem{{Field: api.FieldSubAccountHeader, Msg: "X-Sub-Account: bad"}}}, [4]string{"invalid reference"}},
		{"timeout", nil, fmt.Errorf("GET /account: %w", context.DeadlineExceeded), [4]string{"timed out"}},
	}
	for _, tc := range cases {
		wv.BalanceCmd(api.WalletPrincipal, false)
		send(tc.acc, tc.err)
		if got, _ := wv.BalanceCells(api.WalletPrincipal); got != tc.want {
			t.Errorf("%s: cells = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWalletsAccountStatusShown(t *testing.T) {
	cases := []struct {
		list    api.SubAccountStatus
		account api.AccountStatus
		lang    common.Lang
		want    string // the status cell
		hint    string // in the detail lines; "" for none
		refused bool   // the wallet cannot be made active
	}{
		{api.SubAccountActive, "", common.LangEN, "✓ active", "", false},
		{api.SubAccountActive, api.AccountApproved, common.LangEN, "✓ active", "", false},
		{api.SubAccountApproved, api.AccountApproved, common.LangEN, "✓ approved", "", false},
		{api.SubAccountActive, api.AccountPending, common.LangEN, "! pending", "not approved yet", false},
		{api.SubAccountActive, api.AccountPendingDocs, common.LangEN, "! documents pending", "not approved yet", false},
		{api.SubAccountActive, api.AccountPendingApproval, common.LangEN, "! approval pending", "not approved yet", false},
		{api.SubAccountActive, api.AccountRejected, common.LangEN, "✗ rejected", "the account was rejected; contact support", false},
		{api.SubAccountActive, api.AccountSuspended, common.LangEN, "⊘ suspended", "this sub-account is suspended", true},
		{api.SubAccountSuspended, api.AccountApproved, common.LangEN, "⊘ suspended", "this sub-account is suspended", true},
		{api.SubAccountActive, "under_review", common.LangEN, "? under_review", "", false},
		{"em_analise", "", common.LangEN, "? em_analise", "", false},
		{api.SubAccountActive, "\x1b[31mred\u009b2J", common.LangEN, "?  [31mred 2J", "", false},
		{api.SubAccountActive, api.AccountPendingDocs, common.LangPT, "! documentos pendentes", "ainda não foi aprovada", false},
		{api.SubAccountActive, api.AccountApproved, common.LangPT, "✓ ativa", "", false},
		{api.SubAccountActive, api.AccountSuspended, common.LangPT, "⊘ suspensa", "esta subconta está suspensa", true},
	}
	for _, tc := range cases {
		t.Run(string(tc.list)+"/"+string(tc.account)+"/"+string(tc.lang), func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			m := New(Options{Session: s, Lang: tc.lang, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
			m.Update(runeKey("3"))
			wv := m.wallets()
			m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{{Reference: "loja-centro", Name: "Loja Centro", Status: tc.list}}}))
			if tc.account != "" {
				avail := api.Money(100)
				m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: "loja-centro", Req: wv.Bals["loja-centro"].Req,
					Acc: &api.Account{Status: tc.account, Balance: api.AccountBalance{Available: &avail}}}))
			}
			wv.Cursor = 1
			r, _ := wv.SelectedLine()
			if got, _ := wv.StatusText(r); got != tc.want {
				t.Errorf("status cell = %q, want %q", got, tc.want)
			}
			view := m.View()
			if !strings.Contains(view, tc.want) {
				t.Errorf("the view does not show %q:\n%s", tc.want, view)
			}
			if tc.hint != "" && !strings.Contains(view, tc.hint) {
				t.Errorf("the view does not explain %q:\n%s", tc.hint, view)
			}
			if strings.ContainsAny(withoutSelection(view), "\x1b\u009b") {
				t.Errorf("a control character from the service reached the screen: %q", view)
			}
			if got := wv.IsSuspended(r); got != tc.refused {
				t.Errorf("isSuspended = %v, want %v", got, tc.refused)
			}
		})
	}
}

func TestWalletsPrincipalAccountStatus(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{}}))
	avail := api.Money(100)
	m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: api.WalletPrincipal, Req: wv.Bals[api.WalletPrincipal].Req,
		Acc: &api.Account{Status: api.AccountSuspended, Balance: api.AccountBalance{Available: &avail}}}))
	r, _ := wv.SelectedLine()
	if txt, _ := wv.StatusText(r); txt != "⊘ suspended" || wv.RowName(r) != "main account" {
		t.Fatalf("principal: status %q, name %q", txt, wv.RowName(r))
	}
	// The main account is never refused locally: the dashboard can always go back to it.
	if wv.IsSuspended(r) {
		t.Fatal("principal counted as a suspended sub-account")
	}
	if view := m.View(); !strings.Contains(view, "the account is suspended; contact support") || !strings.Contains(view, "profile loja-centro") {
		t.Fatalf("principal detail lines:\n%s", view)
	}
}

func TestWalletsPickerItemsAndEnter(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	s.Wallet = "loja-norte"
	m, wv := walletsModel(t, s, 120, 40)
	items, loaded := wv.PickerItems()
	if loaded || len(items) != 2 || items[0].Value != api.WalletPrincipal || items[1].Value != "loja-norte" || !items[1].Current {
		t.Fatalf("before loading: %+v loaded=%v", items, loaded)
	}
	if cmd := wv.Load(); cmd != nil {
		t.Fatal("load started a second request while one is on its way")
	}
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{
		{Reference: "loja-centro", Name: "Loja Centro", Status: api.SubAccountActive},
		{Reference: "loja-antiga", Name: "Loja Antiga", Status: api.SubAccountSuspended},
		{Reference: "loja-nova", Name: "Loja Nova", Status: "em_analise"},
	}}))
	items, loaded = wv.PickerItems()
	if !loaded || len(items) != 5 {
		t.Fatalf("after loading: %+v loaded=%v", items, loaded)
	}
	want := []struct {
		value    string
		disabled bool
		current  bool
		note     string
	}{
		{api.WalletPrincipal, false, false, "main account"},
		{"loja-centro", false, false, "Loja Centro · ✓ active"},
		{"loja-antiga", true, false, "Loja Antiga · ⊘ suspended"},
		// An unknown status is offered: the service judges.
		{"loja-nova", false, false, "Loja Nova · ? em_analise"},
		{"loja-norte", false, true, "(from config) · ? unlisted"},
	}
	for i, w := range want {
		it := items[i]
		if it.Value != w.value || (it.Disabled != "") != w.disabled || it.Current != w.current || it.Note != w.note {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
	if cmd := wv.Load(); cmd != nil {
		t.Fatal("load reloaded a loaded list")
	}

	// enter: a suspended wallet is refused with the reason, another one is asked of the root.
	wv.Cursor = 2
	msg := wv.Update(tea.KeyMsg{Type: tea.KeyEnter})()
	if sm, ok := msg.(common.StatusMsg); !ok || !strings.Contains(sm.Text, "SUB_ACCOUNT_SUSPENDED") {
		t.Fatalf("enter on a suspended wallet = %#v", msg)
	}
	wv.Cursor = 1
	msg = wv.Update(tea.KeyMsg{Type: tea.KeyEnter})()
	if sw, ok := msg.(common.SwitchWalletMsg); !ok || sw.Wallet != "loja-centro" {
		t.Fatalf("enter on loja-centro = %#v", msg)
	}
	// The root makes it active, broadcasts the change, and the view reads the new wallet's balance.
	m.Update(reply(m, msg))
	if m.app.Wallet != "loja-centro" || !wv.Bals["loja-centro"].Loading {
		t.Fatalf("wallet = %s, balance reload = %+v", m.app.Wallet, wv.Bals["loja-centro"])
	}
	if !strings.Contains(m.View(), "wallet loja-centro") {
		t.Fatal("the header does not show the new wallet")
	}
}

func TestWalletsSubAccountErrorOnSwitchGoesToStatus(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	m.Update(common.SwitchWalletMsg{Wallet: "loja-centro"})
	b := wv.Bals["loja-centro"]
	forbidden := &api.Error{HTTPStatus: 403, Kind: api.KindForbidden, Code: api.CodeSubAccountForbidden,
		Message: "SUB_ACCOUNT_FORBIDDEN: This credential is not authorized to operate sub-accounts"}
	cmd := wv.Update(wallets.BalanceMsg{Tag: m.tagNow(), Ref: "loja-centro", Req: b.Req, Err: forbidden, OnSwitch: true})
	if cmd == nil {
		t.Fatal("no status for a refused wallet")
	}
	sm, ok := runReply(cmd).(common.StatusMsg)
	if !ok || !strings.Contains(sm.Text, "Access to sub-accounts") {
		t.Fatalf("status = %#v", sm)
	}
}

func TestWalletsCreateFormMessages(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq}))
	m.Update(runeKey("c"))
	if wv.Form == nil || !m.activePane().CapturesText() {
		t.Fatal("c did not open the form")
	}
	walletsType(m, "loja-x")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	// Without a name nothing is sent.
	cmd := wv.Submit()
	if wv.Form.Sending {
		t.Fatal("sent without a name")
	}
	if msg := walletsRunStatus(cmd); !strings.Contains(msg, "nothing was sent") {
		t.Fatalf("status = %q", msg)
	}
	if _, nameErr := wv.FormErrors(); !strings.Contains(nameErr, "required") {
		t.Fatalf("name error = %q", nameErr)
	}
	walletsType(m, strings.Repeat("n", 256))
	if _, nameErr := wv.FormErrors(); !strings.Contains(nameErr, "at most 255") {
		t.Fatalf("long name error = %q", nameErr)
	}
	for range 256 {
		m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	walletsType(m, "Loja X")
	if cmd := wv.Submit(); cmd == nil || !wv.Form.Sending {
		t.Fatal("a valid form was not sent")
	}
	errs := []struct {
		err   error
		field int
		want  string
	}{
		{&api.Error{HTTPStatus: 409, Kind: api.KindConflict, Code: api.CodeSubAccountReferenceTaken}, 0, "loja-x is already used in this account"},
		{&api.Error{HTTPStatus: 409, Kind: api.KindConflict, Code: api.CodeSubAccountQuotaExceeded}, 0, "SUB_ACCOUNT_QUOTA_EXCEEDED"},
		{&api.Error{HTTPStatus: 400, Kind: api.KindBadRequest, Code: api.CodeSubAccountInvalidReference}, 0, "SUB_ACCOUNT_INVALID_REFERENCE"},
		{&api.Error{HTTPStatus: 400, Kind: api.KindBadRequest, Message: "name is required"}, 1, "name is required"},
	}
	for _, e := range errs {
		wv.Form.Server = [2]string{}
		m.Update(reply(m, wallets.CreatedMsg{Tag: m.tagNow(), Ref: "loja-x", Err: e.err}))
		if wv.Form == nil || !strings.Contains(wv.Form.Server[e.field], e.want) {
			t.Errorf("%v: field %d message = %q, want %q", e.err, e.field, wv.Form.Server, e.want)
		}
		if !strings.Contains(m.View(), e.want) {
			t.Errorf("%v: the message is not on screen", e.err)
		}
	}
	// Typing in the field clears the service's message.
	m.Update(tea.KeyMsg{Type: tea.KeyShiftTab})
	walletsType(m, "y")
	if wv.Form.Server[0] != "" {
		t.Fatal("the refusal stayed after the reference changed")
	}
	// A reply from another session is ignored.
	t0 := m.tagNow()
	t0.Gen++
	m.Update(reply(m, wallets.CreatedMsg{Tag: t0, Ref: "loja-xy", Sub: &api.SubAccount{Reference: "loja-xy"}}))
	if wv.Form == nil {
		t.Fatal("a reply from another session closed the form")
	}
	// Success closes the form, lists and selects the new wallet, and reloads.
	m.Update(reply(m, wallets.CreatedMsg{Tag: m.tagNow(), Ref: "loja-xy", Sub: &api.SubAccount{Reference: "loja-xy", Name: "Loja XY", Status: api.SubAccountApproved}}))
	if wv.Form != nil || len(m.app.SubAccounts) != 1 {
		t.Fatalf("after success: form=%v subAccounts=%v", wv.Form != nil, m.app.SubAccounts)
	}
	if r, _ := wv.SelectedLine(); r.Ref != "loja-xy" {
		t.Fatalf("selected %q after creating loja-xy", r.Ref)
	}
}

// walletsType types s into the model one rune at a time.
func walletsType(m *Model, s string) {
	for _, r := range s {
		m.Update(runeKey(string(r)))
	}
}

// walletsRunStatus runs a command (and batches) and returns the text of the first status message.
func walletsRunStatus(cmd tea.Cmd) string {
	for _, msg := range walletsRunCmds(cmd) {
		if sm, ok := msg.(common.StatusMsg); ok {
			return sm.Text
		}
	}
	return ""
}

// walletsRunCmds runs a command and every command of its batches concurrently, returning their messages.
func walletsRunCmds(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := runReply(cmd)
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		if msg == nil {
			return nil
		}
		return []tea.Msg{msg}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var out []tea.Msg
	for _, c := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs := walletsRunCmds(c)
			mu.Lock()
			out = append(out, msgs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

func TestWalletsBalanceCallsAreBounded(t *testing.T) {
	srv := sandbox.New(sandbox.DefaultFixture())
	t.Cleanup(srv.Close)
	// Hold the call a moment so unbounded callers would pile up.
	h, peak := apitest.InFlight(srv, "/account", 15*time.Millisecond)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := api.NewClient(ts.URL+sandbox.Prefix, DemoClientID, demoSecret)
	if err != nil {
		t.Fatal(err)
	}
	s := goldenSession(t, api.Sandbox)
	s.Client = c
	m, wv := walletsModel(t, s, 120, 40)
	var subs []api.SubAccount
	for i := range 12 {
		subs = append(subs, api.SubAccount{Reference: fmt.Sprintf("loja-%02d", i), Status: api.SubAccountApproved})
	}
	cmd := wv.Update(wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: subs})
	msgs := walletsRunCmds(cmd)
	if len(msgs) != 13 {
		t.Fatalf("%d balance replies, want 13", len(msgs))
	}
	if p := peak(); p > workflow.MaxBalanceReads || p < 1 {
		t.Fatalf("%d balance calls were in flight at once, want at most %d", p, workflow.MaxBalanceReads)
	}
	for _, msg := range msgs {
		m.Update(reply(m, msg))
	}
	if c, _ := wv.BalanceCells(api.WalletPrincipal); !strings.HasPrefix(c[0], "R$ ") {
		t.Fatalf("principal balance = %q", c[0])
	}
	if c, _ := wv.BalanceCells("loja-03"); c[0] != "not found" {
		t.Fatalf("unknown wallet balance = %q, want not found", c[0])
	}
}

func TestWalletsScrollKeepsCursorVisible(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 80, 24)
	var subs []api.SubAccount
	for i := range 40 {
		subs = append(subs, api.SubAccount{Reference: fmt.Sprintf("loja-%02d", i), Name: fmt.Sprintf("Loja %02d", i), Status: api.SubAccountApproved})
	}
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: subs}))
	m.Update(runeKey("G"))
	view := m.View()
	if !strings.Contains(view, "loja-39") || strings.Contains(view, "loja-00 ") {
		t.Fatalf("the last wallet is not on screen after G:\n%s", view)
	}
	if !strings.Contains(view, "of 41") {
		t.Fatalf("no scroll position:\n%s", view)
	}
	m.Update(runeKey("g"))
	if view := m.View(); !strings.Contains(view, "loja-00") {
		t.Fatalf("the first wallet is not on screen after g:\n%s", view)
	}
}

// --- goldens --------------------------------------------------------------------------------

// walletsGoldenData fills the view with a fixed list and balances, as the commands would.
func walletsGoldenData(t *testing.T, m *Model, wv *wallets.View) {
	t.Helper()
	day := 24 * time.Hour
	subs := []api.SubAccount{
		{ID: "5b7a0c1e-0000-4000-8000-000000000001", Reference: "loja-centro", Name: "Loja Centro", Status: api.SubAccountActive, CreatedAt: goldenNow.Add(-90 * day)},
		{ID: "5b7a0c1e-0000-4000-8000-000000000002", Reference: "loja-praia", Name: "Loja Praia", Status: api.SubAccountActive, CreatedAt: goldenNow.Add(-30 * day)},
		{ID: "5b7a0c1e-0000-4000-8000-000000000003", Reference: "parceiro_entregas", Name: "Parceiro de Entregas", Status: api.SubAccountApproved, CreatedAt: goldenNow.Add(-12 * day)},
		{ID: "5b7a0c1e-0000-4000-8000-000000000004", Reference: "loja-antiga", Name: "Loja Antiga (fechada)", Status: api.SubAccountSuspended, CreatedAt: goldenNow.Add(-400 * day)},
		{ID: "5b7a0c1e-0000-4000-8000-000000000005", Reference: "quiosque", Name: "Quiosque da praça", Status: "under_review", CreatedAt: goldenNow.Add(-2 * day)},
	}
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: subs}))
	money := func(v api.Money) *api.Money { return &v }
	balanceAt := goldenNow.Add(-time.Minute)
	replies := map[string]wallets.BalanceMsg{
		api.WalletPrincipal: {Acc: &api.Account{ID: "7d0c2f4e-1b7a-4c55-9a3e-0f6b2d9c1a11", Status: api.AccountApproved, Balance: api.AccountBalance{
			Available: money(1234567), Promotional: money(0), Held: money(4250), Total: money(1238817), Currency: "BRL", UpdatedAt: &balanceAt}}},
		"loja-centro": {Acc: &api.Account{Status: api.AccountApproved, Balance: api.AccountBalance{
			Available: money(9630), Promotional: money(1000), Held: money(1500), Total: money(12130), Currency: "BRL"}}},
		// Only some figures sent, and an account still waiting for documents.
		"loja-praia": {Acc: &api.Account{Status: api.AccountPendingDocs, Balance: api.AccountBalance{Available: money(5500)}}},
		"loja-antiga": {Err: &api.Error{HTTPStatus: 403, Kind: api.KindForbidden, Code: api.CodeSubAccountSuspended,
			Message: "SUB_ACCOUNT_SUSPENDED: Sub-account 'loja-antiga' is suspended", TraceID: "tr-0004"}},
		"quiosque": {Err: &api.Error{HTTPStatus: 500, Kind: api.KindInternalError, Message: "An unexpected error occurred", TraceID: "tr-0005"}},
		"loja-norte": {Err: &api.Error{HTTPStatus: 404, Kind: api.KindNotFound, Code: api.CodeSubAccountNotFound,
			Message: "SUB_ACCOUNT_NOT_FOUND: Sub-account 'loja-norte' not found", TraceID: "tr-0006"}},
		// parceiro_entregas has not answered yet.
	}
	for ref, r := range replies {
		r.Tag, r.Ref, r.Req = m.tagNow(), ref, wv.Bals[ref].Req
		m.Update(reply(m, r))
	}
}

func TestGoldenWallets(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, m *Model, wv *wallets.View)
	}{
		{"loading", nil},
		{"full", func(t *testing.T, m *Model, wv *wallets.View) {
			walletsGoldenData(t, m, wv)
			m.Update(runeKey("g"))
			m.Update(runeKey("j"))
		}},
		{"suspended_selected", func(t *testing.T, m *Model, wv *wallets.View) {
			walletsGoldenData(t, m, wv)
			m.Update(runeKey("g"))
			for range 4 {
				m.Update(runeKey("j"))
			}
		}},
		{"empty", func(t *testing.T, m *Model, wv *wallets.View) {
			m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{}}))
		}},
		{"list_error", func(t *testing.T, m *Model, wv *wallets.View) {
			m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Err: &api.Error{HTTPStatus: 403, Kind: api.KindForbidden,
				Message: "Insufficient permissions. Required: SUBACCOUNT:READ", TraceID: "tr-0007"}}))
		}},
		{"create_taken", func(t *testing.T, m *Model, wv *wallets.View) {
			walletsGoldenData(t, m, wv)
			m.Update(runeKey("c"))
			walletsType(m, "loja-centro")
			m.Update(tea.KeyMsg{Type: tea.KeyTab})
			walletsType(m, "Loja Centro 2")
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
			m.Update(reply(m, wallets.CreatedMsg{Tag: m.tagNow(), Ref: "loja-centro", Err: &api.Error{HTTPStatus: 409, Kind: api.KindConflict,
				Code: api.CodeSubAccountReferenceTaken, Message: "SUB_ACCOUNT_REFERENCE_TAKEN: reference 'loja-centro' is already used in this account"}}))
		}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s := goldenSession(t, api.Sandbox)
				s.Wallet = "loja-norte"
				m, wv := walletsModel(t, s, size[0], size[1])
				if tc.do != nil {
					tc.do(t, m, wv)
				}
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

func TestWalletsViewFitsEverySize(t *testing.T) {
	sizes := [][2]int{{80, 24}, {81, 25}, {95, 30}, {120, 40}, {200, 60}, {260, 24}}
	states := map[string]func(m *Model, wv *wallets.View){
		"loading": func(*Model, *wallets.View) {},
		"full":    func(m *Model, wv *wallets.View) { walletsGoldenData(t, m, wv) },
		"form": func(m *Model, wv *wallets.View) {
			walletsGoldenData(t, m, wv)
			m.Update(runeKey("c"))
			walletsType(m, "Bad Ref "+strings.Repeat("x", 40))
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
			m.Update(reply(m, wallets.CreatedMsg{Tag: m.tagNow(), Ref: "x", Err: errors.New(strings.Repeat("network down ", 30))}))
		},
		"error": func(m *Model, wv *wallets.View) {
			m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Err: errors.New(strings.Repeat("long failure ", 40))}))
		},
	}
	for name, setup := range states {
		for _, env := range []api.Environment{api.Sandbox, api.Production} {
			for _, size := range sizes {
				s := goldenSession(t, env)
				s.Wallet = "loja-norte"
				m, wv := walletsModel(t, s, size[0], size[1])
				setup(m, wv)
				lines := strings.Split(m.View(), "\n")
				if len(lines) > size[1] {
					t.Errorf("%s %v %s: %d lines", name, size, env, len(lines))
				}
				for i, l := range lines {
					if lw := lipgloss.Width(l); lw > size[0] {
						t.Errorf("%s %v %s: line %d is %d wide:\n%s", name, size, env, i, lw, l)
					}
				}
				// The view itself fills exactly its body.
				bw, bh := m.bodySize()
				if n := len(strings.Split(viewAt(wv, bw, bh), "\n")); n != bh {
					t.Errorf("%s %v %s: view has %d lines for a body of %d", name, size, env, n, bh)
				}
			}
		}
	}
}

func TestWalletsHostileListIsFlattened(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	m, wv := walletsModel(t, s, 120, 40)
	m.Update(reply(m, wallets.ListMsg{Tag: m.tagNow(), Seq: wv.Seq, Subs: []api.SubAccount{
		{Reference: "loja\x1b]52;c;AAAA\x07", Name: "Nome\x1b[2J\u009b6n", Status: "\x1b[5mative"},
	}}))
	m.Update(reply(m, wallets.BalanceMsg{Tag: m.tagNow(), Ref: api.WalletPrincipal, Req: wv.Bals[api.WalletPrincipal].Req,
		Acc: &api.Account{Status: "\u009b31m", Balance: api.AccountBalance{Currency: "\x1b[0mUSD"}}}))
	wv.Cursor = 1
	frames := []string{m.View()}
	m.Update(runeKey("w"))
	frames = append(frames, m.View())
	for i, fr := range frames {
		for _, r := range withoutSelection(fr) {
			if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("frame %d carries control character %U:\n%q", i, r, fr)
			}
		}
	}
	if !strings.Contains(frames[0], "Nome [2J 6n") || !strings.Contains(frames[1], "loja ]52;c;AAAA") {
		t.Fatalf("the flattened texts are not shown:\n%s\n%s", frames[0], frames[1])
	}
}
