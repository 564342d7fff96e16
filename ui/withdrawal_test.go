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
	"pixdash/ui/common"
	"pixdash/ui/withdrawal"
)

func TestCheckPixKeyPerType(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	cases := []struct {
		typ     api.PixKeyType
		in      string
		want    string // "" when refused
		problem string // part of the refusal
	}{
		{api.PixKeyCPF, "529.982.247-25", "52998224725", ""},
		{api.PixKeyCPF, "52998224724", "", "check digits"},
		{api.PixKeyCPF, "11.222.333/0001-81", "", "a CPF key has 11 digits"},
		{api.PixKeyCPF, "111.111.111-11", "", "all 11 digits the same"}, // not "check digits": they add up
		{api.PixKeyCPF, "000.000.000-00", "", "all 11 digits the same"},
		{api.PixKeyCNPJ, "11.222.333/0001-81", "11222333000181", ""},
		{api.PixKeyCNPJ, "11222333000180", "", "check digits"},
		{api.PixKeyCNPJ, "52998224725", "", "a CNPJ key has 14 characters"},
		// The alphanumeric CNPJ (July 2026): sent upper-case and compact.
		{api.PixKeyCNPJ, "12.ABC.345/01DE-35", "12ABC34501DE35", ""},
		{api.PixKeyCNPJ, "12.abc.345/01de-35", "12ABC34501DE35", ""},
		{api.PixKeyCNPJ, "12ABC34501DE36", "", "CNPJ check digits do not match"},
		{api.PixKeyCNPJ, "12.ABC.345/01DE-3X", "", "two check digits"},
		{api.PixKeyCPF, "12.ABC.345/01DE-35", "", "a CPF key has 11 digits"},
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
		got, err := withdrawal.CheckPixKey(tr, tc.typ, tc.in)
		switch {
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%s %q: got %q, %v; want %q", tc.typ, tc.in, got, err, tc.want)
		case tc.want == "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%s %q: got %q, %v; want a refusal with %q", tc.typ, tc.in, got, err, tc.problem)
		}
	}
}

func TestCheckWithdrawalForm(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	bal := api.Money(5000)
	good := withdrawal.WdInput{KeyType: api.PixKeyEmail, Key: "maria@example.com", Name: " Maria da Silva ", Doc: "529.982.247-25", Amount: "20,00"}
	c := withdrawal.CheckWithdrawal(tr, good, &bal, 150, true)
	if !c.Ok || c.Req.Amount == nil || *c.Req.Amount != 2000 || c.Req.NetAmount != nil || c.Req.HolderName != "Maria da Silva" ||
		c.Req.HolderDocument != "52998224725" || c.Req.HolderDocumentType != api.DocumentCPF || c.Need != 2000 {
		t.Fatalf("good gross form: %+v", c)
	}
	if ps := api.CheckCreateWithdrawal(&c.Req); len(ps) > 0 {
		t.Fatalf("the request the form makes is refused by the contract: %v", ps)
	}
	net := good
	net.ByNet, net.Doc = true, "11.222.333/0001-81"
	c = withdrawal.CheckWithdrawal(tr, net, &bal, 150, true)
	if !c.Ok || c.Req.NetAmount == nil || *c.Req.NetAmount != 2000 || c.Req.Amount != nil || c.Need != 2150 || c.Req.HolderDocumentType != api.DocumentCNPJ {
		t.Fatalf("good net form: %+v", c)
	}
	cases := []struct {
		name    string
		mut     func(*withdrawal.WdInput)
		bal     *api.Money
		field   int
		problem string
	}{
		{"three decimals", func(in *withdrawal.WdInput) { in.Amount = "20,005" }, &bal, withdrawal.WfAmount, "more than 2 decimal"},
		{"under R$ 1,00", func(in *withdrawal.WdInput) { in.Amount = "0,99" }, &bal, withdrawal.WfAmount, "At least R$ 1,00"},
		{"over the balance", func(in *withdrawal.WdInput) { in.Amount = "50,01" }, &bal, withdrawal.WfAmount, "More than the spendable R$ 50,00"},
		{"net plus the fee over the balance", func(in *withdrawal.WdInput) { in.Amount, in.ByNet = "49,00", true }, &bal, withdrawal.WfAmount, "with the fee is more than the spendable"},
		{"balance unknown", func(*withdrawal.WdInput) {}, nil, withdrawal.WfAmount, "not known yet"},
		{"no amount", func(in *withdrawal.WdInput) { in.Amount = "" }, &bal, withdrawal.WfAmount, "required"},
		{"no holder", func(in *withdrawal.WdInput) { in.Name = "  " }, &bal, withdrawal.WfName, "required"},
		{"holder document digits", func(in *withdrawal.WdInput) { in.Doc = "529.982.247-24" }, &bal, withdrawal.WfDoc, "CPF check digits"},
		{"holder document length", func(in *withdrawal.WdInput) { in.Doc = "1234" }, &bal, withdrawal.WfDoc, "11 digits"},
		{"key for another type", func(in *withdrawal.WdInput) { in.KeyType = api.PixKeyCPF }, &bal, withdrawal.WfKey, "use only digits"},
		{"holder CPF of one repeated digit", func(in *withdrawal.WdInput) { in.Doc = "111.111.111-11" }, &bal, withdrawal.WfDoc, "all 11 digits the same"},
		{"holder alphanumeric CNPJ, wrong check digits", func(in *withdrawal.WdInput) { in.Doc = "12.ABC.345/01DE-53" }, &bal, withdrawal.WfDoc, "CNPJ check digits"},
	}
	for _, tc := range cases {
		in := good
		tc.mut(&in)
		c := withdrawal.CheckWithdrawal(tr, in, tc.bal, 150, true)
		if c.Ok || !strings.Contains(c.Errs[tc.field], tc.problem) {
			t.Errorf("%s: ok %v, errs %q", tc.name, c.Ok, c.Errs)
		}
	}
	// An alphanumeric CNPJ holder and key are accepted and sent compact, upper-case, typed cnpj.
	alnum := good
	alnum.KeyType, alnum.Key, alnum.Doc = api.PixKeyCNPJ, "12.abc.345/01de-35", "12.ABC.345/01DE-35"
	c = withdrawal.CheckWithdrawal(tr, alnum, &bal, 150, true)
	if !c.Ok || c.Req.PixKey != "12ABC34501DE35" || c.Req.HolderDocument != "12ABC34501DE35" || c.Req.HolderDocumentType != api.DocumentCNPJ {
		t.Fatalf("alphanumeric CNPJ: %+v", c)
	}
	// The exact balance is allowed; a net amount with the fee unknown is checked without it.
	exact := good
	exact.Amount = "50,00"
	if c := withdrawal.CheckWithdrawal(tr, exact, &bal, 0, false); !c.Ok {
		t.Errorf("the whole balance: %q", c.Errs)
	}
	exact.ByNet = true
	if c := withdrawal.CheckWithdrawal(tr, exact, &bal, 0, false); !c.Ok || c.Need != 5000 {
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
		got := common.MaskPixKey(tc.typ, tc.key)
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
	f.waitFor("Withdraw R$ 20,00 from wallet principal", "m***@example.com", "***.982.247-**")
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

// lostWithdrawal makes a withdrawal on the demo with key through the client, as the form
// would, then puts its record back to requested with no id: the reply was lost and the
// session ended before it was saved.
func lostWithdrawal(t *testing.T, s *Session, key string, amount api.Money) state.Withdrawal {
	t.Helper()
	ctx := context.Background()
	req := &api.CreateWithdrawalRequest{PixKey: "maria@example.com", PixKeyType: api.PixKeyEmail, HolderName: "Maria da Silva",
		HolderDocument: "52998224725", HolderDocumentType: api.DocumentCPF, Amount: &amount}
	wd, err := s.Client.CreateWithdrawal(ctx, req, api.WithIdempotencyKey(key))
	if err != nil || wd.ID == "" {
		t.Fatalf("the emulator's withdrawal: %+v %v", wd, err)
	}
	rec := state.Withdrawal{Key: key, Wallet: api.WalletPrincipal, PixKeyType: req.PixKeyType, PixKey: req.PixKey,
		HolderName: req.HolderName, HolderDocument: req.HolderDocument, Amount: amount, State: state.WithdrawalRequested, Attempts: 1}
	if _, err := s.Store.PutWithdrawal(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.ID = wd.ID
	return rec
}

// A withdrawal an earlier session left requested, which the service took: at start the
// dashboard looks it up by its key (nothing is sent again) and says it was taken; the form
// lists it with the service's state.
func TestFlowWithdrawalFromAnEarlierSessionWasTaken(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	key := api.NewIdempotencyKey()
	lost := lostWithdrawal(t, s, key, 2000)
	charges := srv.ChargeCount()
	f := startFlow(t, s, 120, 40)
	f.waitFor("Withdrawal of R$ 20,00 to m***@example.com from an earlier session: taken by the service (")
	list := withdrawalsOf(t, s, api.WalletPrincipal)
	if len(list) != 1 || list[0].Key != key || list[0].ID != lost.ID || !list[0].State.Taken() || list[0].Amount != 2000 {
		t.Fatalf("recorded: %+v, want taken as %s", list, lost.ID)
	}
	if srv.ChargeCount() != charges {
		t.Fatal("the recovery created something")
	}
	f.keys("3")
	f.waitFor("available R$")
	f.keys("s")
	f.waitFor("Withdrawals of this wallet", "R$ 20,00", "m***@example.com")
	f.keys("esc")
}

// A withdrawal an earlier session left unknown, which the service never saw, older than the
// window in which an attempt could still land: recorded as never sent, and said so.
func TestFlowWithdrawalFromAnEarlierSessionNeverSent(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	rec := state.Withdrawal{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, PixKeyType: api.PixKeyEmail, PixKey: "joao@example.com",
		HolderName: "Joao Souza", HolderDocument: "52998224725", Amount: 1500, State: state.WithdrawalUnknown, RequestedAt: at, UpdatedAt: at}
	if _, err := s.Store.PutWithdrawal(ctx, rec); err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, s, 120, 40)
	f.waitFor("Withdrawal of R$ 15,00 to j***@example.com from an earlier session: never reached the service; nothing left the wallet.")
	got, _, err := s.Store.WithdrawalByKey(ctx, rec.Key)
	if err != nil || got.State != state.WithdrawalRefused || !strings.Contains(got.Message, "never reached the service") || got.ID != "" {
		t.Fatalf("recorded: %+v %v", got, err)
	}
	f.keys("3")
	f.waitFor("available R$")
	f.keys("s")
	f.waitFor("Withdrawals of this wallet", "R$ 15,00", "j***@example.com", "refused")
	f.keys("esc")
}

// Directly on the model, in pt-BR: a record still inside the window is left as it is and
// looked up again; once the service holds it, the next look says so. Several are counted.
func TestRecoverWithdrawalsStatusLine(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	now := time.Now()
	m := New(Options{Session: s, Lang: common.LangPT, CustomerLang: common.LangPT, Now: func() time.Time { return now }})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	ctx := context.Background()
	// Recorded a minute ago, no reply, and the service never saw it (yet).
	early := state.Withdrawal{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, PixKeyType: api.PixKeyEmail, PixKey: "ana@example.com",
		Amount: 1200, State: state.WithdrawalRequested, RequestedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-time.Minute)}
	if _, err := s.Store.PutWithdrawal(ctx, early); err != nil {
		t.Fatal(err)
	}
	run := func() (recoveredMsg, time.Duration) {
		t.Helper()
		msg, ok := m.recoverSubmissions()().(recoveredMsg)
		if !ok || msg.withdrawals == nil {
			t.Fatalf("no withdrawals in %+v", msg)
		}
		m.Update(reply(m, msg))
		return msg, msg.retry
	}
	msg, retry := run()
	if len(msg.withdrawals.Pending) != 1 || retry <= 0 || m.status.Kind != common.StatusWarn ||
		m.status.Text != "1 saque(s) de uma sessão anterior ainda sem confirmação; consultando de novo." {
		t.Fatalf("inside the window: %+v, status %q (%d)", msg.withdrawals, m.status.Text, m.status.Kind)
	}
	if got, _, _ := s.Store.WithdrawalByKey(ctx, early.Key); got.State != state.WithdrawalRequested {
		t.Fatalf("an open record was changed inside the window: %+v", got)
	}
	// The request lands (the same key and body the form sent), and the next look finds it.
	amount := api.Money(1200)
	if _, err := s.Client.CreateWithdrawal(ctx, &api.CreateWithdrawalRequest{PixKey: "ana@example.com", PixKeyType: api.PixKeyEmail,
		HolderName: "Ana Lima", HolderDocument: "52998224725", HolderDocumentType: api.DocumentCPF, Amount: &amount},
		api.WithIdempotencyKey(early.Key)); err != nil {
		t.Fatal(err)
	}
	msg, _ = run()
	if len(msg.withdrawals.Taken) != 1 || !strings.HasPrefix(m.status.Text, "Saque de R$ 12,00 para a***@example.com de uma sessão anterior: aceito pelo serviço (") {
		t.Fatalf("after landing: %+v, status %q", msg.withdrawals, m.status.Text)
	}
	// Two at once, one taken and one never sent: counted.
	lostWithdrawal(t, s, api.NewIdempotencyKey(), 1000)
	old := now.Add(-time.Hour)
	if _, err := s.Store.PutWithdrawal(ctx, state.Withdrawal{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, PixKeyType: api.PixKeyEmail,
		PixKey: "bia@example.com", Amount: 900, State: state.WithdrawalUnknown, RequestedAt: old, UpdatedAt: old}); err != nil {
		t.Fatal(err)
	}
	run()
	if want := "1 saque(s) de uma sessão anterior aceito(s) pelo serviço. 1 saque(s) de uma sessão anterior não chegaram ao serviço; nada saiu da carteira."; m.status.Text != want || m.status.Kind != common.StatusWarn {
		t.Fatalf("status %q (%d), want %q", m.status.Text, m.status.Kind, want)
	}
}
