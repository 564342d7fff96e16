package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

func TestCheckPixKeyPerType(t *testing.T) {
	tr := catalog{lang: LangEN}
	cases := []struct {
		typ     api.PixKeyType
		in      string
		want    string // "" when refused
		problem string // part of the refusal
	}{
		{api.PixKeyCPF, "529.982.247-25", "52998224725", ""},
		{api.PixKeyCPF, "52998224724", "", "check digits"},
		{api.PixKeyCPF, "11.222.333/0001-81", "", "a CPF key has 11 digits"},
		{api.PixKeyCPF, "111.111.111-11", "", "check digits"},
		{api.PixKeyCNPJ, "11.222.333/0001-81", "11222333000181", ""},
		{api.PixKeyCNPJ, "11222333000180", "", "check digits"},
		{api.PixKeyCNPJ, "52998224725", "", "a CNPJ key has 14 digits"},
		{api.PixKeyEmail, "maria@example.com", "maria@example.com", ""},
		{api.PixKeyEmail, "maria@example", "", "not an e-mail"},
		{api.PixKeyEmail, "Maria <maria@example.com>", "", "not an e-mail"},
		{api.PixKeyEmail, strings.Repeat("a", 70) + "@example.com", "", "at most 77"},
		{api.PixKeyPhone, "+55 11 98765-4321", "+5511987654321", ""},
		{api.PixKeyPhone, "(11) 98765-4321", "+5511987654321", ""},
		{api.PixKeyPhone, "5511987654321", "+5511987654321", ""},
		{api.PixKeyPhone, "11 3456-7890", "+551134567890", ""},
		{api.PixKeyPhone, "+1 415 555 0100", "", "+55"},
		{api.PixKeyPhone, "987654321", "", "area code"},
		{api.PixKeyPhone, "(01) 98765-4321", "", "11 to 99"},
		{api.PixKeyPhone, "11 88765-4321", "", "starts with 9"},
		{api.PixKeyPhone, "11 9876a-4321", "", "use digits"},
		{api.PixKeyRandom, "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000", ""},
		{api.PixKeyRandom, "123e4567-e89b-12d3-a456-42661417400", "", "UUID"},
		{api.PixKeyRandom, "", "", "required"},
		{api.PixKeyType("iban"), "x", "", "key type"},
	}
	for _, tc := range cases {
		got, err := checkPixKey(tr, tc.typ, tc.in)
		switch {
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%s %q: got %q, %v; want %q", tc.typ, tc.in, got, err, tc.want)
		case tc.want == "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%s %q: got %q, %v; want a refusal with %q", tc.typ, tc.in, got, err, tc.problem)
		}
	}
}

func TestCheckWithdrawalForm(t *testing.T) {
	tr := catalog{lang: LangEN}
	bal := api.Money(5000)
	good := wdInput{keyType: api.PixKeyEmail, key: "maria@example.com", name: " Maria da Silva ", doc: "529.982.247-25", amount: "20,00"}
	c := checkWithdrawal(tr, good, &bal, 150, true)
	if !c.ok || c.req.Amount == nil || *c.req.Amount != 2000 || c.req.NetAmount != nil || c.req.HolderName != "Maria da Silva" ||
		c.req.HolderDocument != "52998224725" || c.req.HolderDocumentType != api.DocumentCPF || c.need != 2000 {
		t.Fatalf("good gross form: %+v", c)
	}
	if ps := api.CheckCreateWithdrawal(&c.req); len(ps) > 0 {
		t.Fatalf("the request the form makes is refused by the contract: %v", ps)
	}
	net := good
	net.byNet, net.doc = true, "11.222.333/0001-81"
	c = checkWithdrawal(tr, net, &bal, 150, true)
	if !c.ok || c.req.NetAmount == nil || *c.req.NetAmount != 2000 || c.req.Amount != nil || c.need != 2150 || c.req.HolderDocumentType != api.DocumentCNPJ {
		t.Fatalf("good net form: %+v", c)
	}
	cases := []struct {
		name    string
		mut     func(*wdInput)
		bal     *api.Money
		field   int
		problem string
	}{
		{"three decimals", func(in *wdInput) { in.amount = "20,005" }, &bal, wfAmount, "more than 2 decimal"},
		{"under R$ 1,00", func(in *wdInput) { in.amount = "0,99" }, &bal, wfAmount, "At least R$ 1,00"},
		{"over the balance", func(in *wdInput) { in.amount = "50,01" }, &bal, wfAmount, "More than the spendable R$ 50,00"},
		{"net plus the fee over the balance", func(in *wdInput) { in.amount, in.byNet = "49,00", true }, &bal, wfAmount, "with the fee is more than the spendable"},
		{"balance unknown", func(*wdInput) {}, nil, wfAmount, "not known yet"},
		{"no amount", func(in *wdInput) { in.amount = "" }, &bal, wfAmount, "required"},
		{"no holder", func(in *wdInput) { in.name = "  " }, &bal, wfName, "required"},
		{"holder document digits", func(in *wdInput) { in.doc = "529.982.247-24" }, &bal, wfDoc, "CPF check digits"},
		{"holder document length", func(in *wdInput) { in.doc = "1234" }, &bal, wfDoc, "11 digits"},
		{"key for another type", func(in *wdInput) { in.keyType = api.PixKeyCPF }, &bal, wfKey, "use only digits"},
	}
	for _, tc := range cases {
		in := good
		tc.mut(&in)
		c := checkWithdrawal(tr, in, tc.bal, 150, true)
		if c.ok || !strings.Contains(c.errs[tc.field], tc.problem) {
			t.Errorf("%s: ok %v, errs %q", tc.name, c.ok, c.errs)
		}
	}
	// The exact balance is allowed; a net amount with the fee unknown is checked without it.
	exact := good
	exact.amount = "50,00"
	if c := checkWithdrawal(tr, exact, &bal, 0, false); !c.ok {
		t.Errorf("the whole balance: %q", c.errs)
	}
	exact.byNet = true
	if c := checkWithdrawal(tr, exact, &bal, 0, false); !c.ok || c.need != 5000 {
		t.Errorf("net, fee unknown: %+v", c)
	}
}

func TestMaskPixKey(t *testing.T) {
	for _, tc := range []struct {
		typ       api.PixKeyType
		key, want string
	}{
		{api.PixKeyCPF, "52998224725", "***.982.247-**"},
		{api.PixKeyCNPJ, "11222333000181", "**.222.333/****-**"},
		{api.PixKeyEmail, "maria@example.com", "m***@example.com"},
		{api.PixKeyPhone, "+5511987654321", "+55 *******4321"},
		{api.PixKeyRandom, "123e4567-e89b-12d3-a456-426614174000", "123e…4000"},
		{api.PixKeyEmail, "\x1b[31mx@y.z", "[***@y.z"},
	} {
		got := maskPixKey(tc.typ, tc.key)
		if tc.typ == api.PixKeyEmail && strings.Contains(tc.key, "\x1b") {
			if strings.Contains(got, "\x1b") {
				t.Errorf("an escape survived masking: %q", got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.typ, tc.key, got, tc.want)
		}
	}
}

func withdrawalsOf(t *testing.T, s *Session, wallet string) []state.Withdrawal {
	t.Helper()
	list, err := s.Store.Withdrawals(context.Background(), wallet, 0)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// On the demo at 80x24: the form refuses a wrong CPF and three decimals and sends nothing;
// fixed, the confirmation names the amount and the masked destination; y sends it with the
// form's key; withdrawal_completed settles it; the next form lists it with the fee.
func TestFlowWithdrawalOnTheDemo(t *testing.T) {
	s, _ := demo(t, DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.05)}})
	f := startFlow(t, s, 80, 24)
	f.waitFor("DEMO")
	f.keys("3")
	f.waitFor("available R$")
	f.keys("s")
	f.waitFor("Withdraw to a bank account (PIX)", "spendable R$")
	f.keys("maria@example.com", "tab", "Maria da Silva", "tab", "529.982.247-24", "tab", "tab", "20,005", "ctrl+s")
	f.waitFor("CPF check digits do not match", "more than 2 decimal places", "nothing was sent")
	if n := len(withdrawalsOf(t, s, api.WalletPrincipal)); n != 0 {
		t.Fatalf("%d withdrawals recorded by a refused form", n)
	}
	// The first problem has the keyboard: the document.
	f.tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	f.keys("5", "tab", "tab")
	f.tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	f.keys("ctrl+s")
	f.waitFor("Withdraw R$ 20,00 from the wallet", "m***@example.com", "***.982.247-**")
	f.keys("y")
	f.waitFor("taken by the service (pending)")
	f.waitFor("completed.")
	list := withdrawalsOf(t, s, api.WalletPrincipal)
	if len(list) != 1 || list[0].State != state.WithdrawalCompleted || list[0].Amount != 2000 || list[0].PixKey != "maria@example.com" || list[0].ID == "" {
		t.Fatalf("recorded: %+v", list)
	}
	f.keys("s")
	f.waitFor("Withdrawals of this wallet", "R$ 20,00", "completed", "(the last withdrawal's)")
	f.keys("esc")
}

// In production y is not enough: the amount must be typed, and nothing is recorded or sent
// before it is.
func TestFlowWithdrawalProductionNeedsTheTypedAmount(t *testing.T) {
	s, _ := demo(t, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	s.Demo = false
	f := startFlow(t, s, 120, 40)
	f.waitFor("PRODUCTION")
	f.keys("3")
	f.waitFor("available R$")
	f.keys("s")
	f.waitFor("Withdraw to a bank account (PIX)", "spendable R$")
	f.keys("maria@example.com", "tab", "Maria da Silva", "tab", "52998224725", "tab", "tab", "1,50", "ctrl+s")
	f.waitFor("PRODUCTION: withdraw R$ 1,50", "m***@example.com", "enter confirms")
	f.keys("y", "enter")
	f.waitFor("Type R$ 1,50 exactly to confirm; nothing was sent.")
	time.Sleep(100 * time.Millisecond)
	if n := len(withdrawalsOf(t, s, api.WalletPrincipal)); n != 0 {
		t.Fatalf("y alone recorded or sent a withdrawal (%d)", n)
	}
	f.tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	f.keys("1,50", "enter")
	f.waitFor("taken by the service (pending)")
	if list := withdrawalsOf(t, s, api.WalletPrincipal); len(list) != 1 || !list[0].State.Taken() || list[0].Amount != 150 {
		t.Fatalf("the typed amount did not send the withdrawal: %+v", list)
	}
}
