package sandbox

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

func TestDefaultFixture_DemoCredentials(t *testing.T) {
	fx, err := ParseFixture(DefaultFixtureTOML())
	if err != nil {
		t.Fatalf("built-in fixture: %v", err)
	}
	if len(fx.Accounts) != 2 || fx.Accounts[0].Environment != "sandbox" || fx.Accounts[1].Environment != "production" ||
		fx.Accounts[0].Name != fx.Accounts[1].Name {
		t.Fatalf("want a sandbox and a production account of the same holder, got %d accounts", len(fx.Accounts))
	}
	type cred struct {
		secret string
		perms  string
		access bool
		rev    bool
	}
	want := map[string]cred{
		"mp_test_demo_full":    {"demo-full-secret", "FULL_ACCESS", true, false},
		"mp_test_demo_nosub":   {"demo-nosub-secret", "FULL_ACCESS", false, false},
		"mp_test_demo_read":    {"demo-read-secret", "TRANSACTION:READ", false, false},
		"mp_test_demo_revoked": {"demo-revoked-secret", "FULL_ACCESS", false, true},
		"mp_live_demo_full":    {"demo-live-secret", "FULL_ACCESS", true, false},
	}
	got := map[string]cred{}
	for _, a := range fx.Accounts {
		for _, c := range a.Credentials {
			got[c.ClientID] = cred{c.ClientSecret.Reveal(), strings.Join(c.Permissions, ","), c.SubAccountAccess, c.Revoked}
		}
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id, got[id], w)
		}
	}
	sb := fx.Accounts[0]
	if sb.PixFee != "0.99" || !sb.BlockCNPJPayers || len(sb.Projects) != 2 || len(sb.PSPCredentials) != 2 {
		t.Errorf("sandbox account settings %+v", sb)
	}
	disabled, suspended := 0, 0
	for _, p := range sb.PSPCredentials {
		if p.Enabled != nil && !*p.Enabled {
			disabled++
		}
	}
	for _, s := range sb.SubAccounts {
		if s.Status == "suspended" {
			suspended++
		}
	}
	active := 0
	for _, s := range sb.SubAccounts {
		if s.Status == "active" {
			active++
		}
	}
	if disabled != 1 || suspended != 1 || active == 0 {
		t.Errorf("disabled PSPs %d, suspended sub-accounts %d, active %d; want 1, 1 and at least 1", disabled, suspended, active)
	}
	if sb.WithdrawalFee == "" {
		t.Error("the sandbox account sets no withdrawal_fee")
	}
	if _, err := ParseFixture([]byte(strings.Replace(string(DefaultFixtureTOML()), `status = "active"`, `status = "approved"`, -1))); err != nil {
		t.Errorf("approved instead of active: %v", err)
	}
	if DefaultFixture() == nil || len(DefaultFixture().Accounts) != 2 {
		t.Error("DefaultFixture differs from the parsed TOML")
	}
}

func TestParseFixture_Errors(t *testing.T) {
	base := `
[[accounts]]
name = "A"
environment = "sandbox"
pix_fee = "0.99"
  [[accounts.credentials]]
  client_id = "mp_test_x"
  client_secret = "s"
  permissions = ["FULL_ACCESS"]
`
	cases := []struct {
		name, toml, want string
	}{
		{"unknown top key", "colour = 1\n" + base, "colour"},
		{"unknown account key", strings.Replace(base, `pix_fee = "0.99"`, "pix_fee = \"0.99\"\nfee = 1", 1), "accounts.fee"},
		{"unknown credential key", base + "  scope = \"x\"\n", "accounts.credentials.scope"},
		{"syntax", base + "[[", "fixture"},
		{"environment", strings.Replace(base, `"sandbox"`, `"staging"`, 1), "environment"},
		{"fee decimals", strings.Replace(base, `"0.99"`, `"0.999"`, 1), "pix_fee"},
		{"prefix mismatch", strings.Replace(base, "mp_test_x", "mp_live_x", 1), "production credential"},
		{"unknown permission", strings.Replace(base, "FULL_ACCESS", "EVERYTHING", 1), "EVERYTHING"},
		{"bad ip", base + "  ip_allowlist = [\"nope\"]\n", "ip_allowlist"},
		{"principal reference", base + "  [[accounts.sub_accounts]]\n  reference = \"principal\"\n  name = \"x\"\n", "reserved"},
		{"duplicate reference", base + "  [[accounts.sub_accounts]]\n  reference = \"ab\"\n  name = \"x\"\n  [[accounts.sub_accounts]]\n  reference = \"ab\"\n  name = \"y\"\n", "twice"},
		{"psp id", base + "  [[accounts.psp_credentials]]\n  id = \"x\"\n  name = \"b\"\n", "UUID"},
		{"charge state", base + "  [[accounts.charges]]\n  amount = \"10\"\n  state = \"weird\"\n", "state"},
		{"blocked needs cnpj", base + "  [[accounts.charges]]\n  amount = \"10\"\n  state = \"blocked\"\n  payer_document = \"12345678909\"\n", "CNPJ"},
		{"block seed charge", base + "  [[accounts.balance_blocks]]\n  charge = \"nope\"\n", "nope"},
		{"sub-account status", base + "  [[accounts.sub_accounts]]\n  reference = \"ab\"\n  name = \"x\"\n  status = \"pending\"\n", "approved, active or suspended"},
		{"sub-account promotional", base + "  [[accounts.sub_accounts]]\n  reference = \"ab\"\n  name = \"x\"\n  promotional = \"-1\"\n", "promotional"},
		{"withdrawal fee", strings.Replace(base, `pix_fee = "0.99"`, "pix_fee = \"0.99\"\nwithdrawal_fee = \"1.5.0\"", 1), "withdrawal_fee"},
		{"project logo", base + "  [[accounts.projects]]\n  name = \"p\"\n  logo_url = \"ftp://x\"\n", "logo_url"},
		{"duplicate client id", base + "  [[accounts.credentials]]\n  client_id = \"mp_test_x\"\n  client_secret = \"t\"\n  permissions = [\"FULL_ACCESS\"]\n", "twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFixture([]byte(tc.toml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one naming %q", err, tc.want)
			}
		})
	}
	if _, err := ParseFixture([]byte(base)); err != nil {
		t.Errorf("base fixture: %v", err)
	}
}

func TestParseFixture_SecretNotPrinted(t *testing.T) {
	fx, err := ParseFixture(DefaultFixtureTOML())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmtAll(fx), fmtAll(fx.Accounts[0].Credentials[0])} {
		if strings.Contains(s, "demo-full-secret") {
			t.Error("a printed fixture shows a client_secret")
		}
	}
}

func TestDefaultFixture_SeededHistoryLooksAlive(t *testing.T) {
	clock := NewFakeClock(testStart)
	s := New(nil, WithClock(clock), WithRand(7))
	defer s.Close()
	s.mu.Lock()
	states := map[api.TxStatus]map[string]int{}
	blocks := map[api.BlockStatus]int{}
	lines := map[api.TxType]int{}
	var blockedConfirmed, refunded int
	for _, t := range s.txs {
		if t.wallet.acct.env != api.Sandbox {
			continue
		}
		if t.typ == api.TypePayment {
			if states[t.status] == nil {
				states[t.status] = map[string]int{}
			}
			states[t.status][t.wallet.label()]++
			if t.blocked != nil && t.blocked.Refund.Status == api.RefundConfirmed {
				blockedConfirmed++
			}
			if t.refunded > 0 {
				refunded++
			}
		} else {
			lines[t.typ]++
		}
		if t.createdAt.After(testStart) {
			s.mu.Unlock()
			panic("seeded transaction in the future")
		}
	}
	for _, b := range s.blocks {
		blocks[b.status]++
	}
	s.mu.Unlock()
	for _, st := range []api.TxStatus{api.StatusCompleted, api.StatusPending, api.StatusCancelled, api.StatusFailed} {
		if len(states[st]) == 0 {
			t.Errorf("no seeded %s charge", st)
		}
	}
	if states[api.StatusCompleted]["principal"] == 0 || len(states[api.StatusCompleted]) < 2 {
		t.Errorf("paid charges should be in the principal and sub-accounts: %v", states[api.StatusCompleted])
	}
	if states[api.StatusFailed]["principal"] == 0 || len(states[api.StatusFailed]) < 2 {
		t.Errorf("blocked charges should be in the principal and sub-accounts: %v", states[api.StatusFailed])
	}
	for _, st := range api.BlockStatuses {
		if blocks[st] == 0 {
			t.Errorf("no seeded %s balance block", st)
		}
	}
	if lines[api.TypeInternalTransfer] < 4 || lines[api.TypeFee] == 0 || lines[api.TypeRefund] == 0 || blockedConfirmed == 0 || refunded == 0 {
		t.Errorf("statement lines %v, blocked+confirmed %d, refunded %d", lines, blockedConfirmed, refunded)
	}
	// A pending seeded charge expires on the clock.
	clock.Advance(25 * time.Hour)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t2 := range s.txs {
		if t2.typ == api.TypePayment && t2.status == api.StatusPending {
			t.Errorf("charge %s still pending after 25 h", t2.externalRef)
		}
	}
}

func TestDefaultFixture_DemoCredentialsWork(t *testing.T) {
	clock := NewFakeClock(testStart)
	srv := New(nil, WithClock(clock))
	e := &env{t: t, srv: srv, clock: clock, tokens: map[string]cachedToken{}}
	e.hs = newTestServer(t, srv)
	e.base = e.hs.URL + Prefix
	for id, secret := range map[string]string{"mp_test_demo_full": "demo-full-secret", "mp_live_demo_full": "demo-live-secret"} {
		c, err := api.NewClient(e.base, id, api.Secret(secret), api.WithHTTPClient(e.hs.Client()), api.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		subs, err := c.ListSubAccounts(context.Background())
		if err != nil || len(subs) == 0 {
			t.Errorf("%s: sub-accounts %v %v", id, subs, err)
		}
		acc, err := c.GetAccount(context.Background())
		if err != nil || acc.Balance.Available == nil || *acc.Balance.Available <= 0 {
			t.Errorf("%s: account %+v %v", id, acc, err)
		}
		l, err := c.ListBalanceBlocks(context.Background(), "")
		if err != nil {
			t.Errorf("%s: blocks %v", id, err)
		} else if id == "mp_test_demo_full" && l.Total == 0 {
			t.Errorf("%s: no balance blocks", id)
		}
		tx, err := c.GetTransaction(context.Background(), "pedido-1001")
		if id == "mp_test_demo_full" && (err != nil || tx.Status != api.StatusCompleted) {
			t.Errorf("seeded pedido-1001: %+v %v", tx, err)
		}
	}
	for id, secret := range map[string]string{"mp_test_demo_revoked": "demo-revoked-secret"} {
		c, _ := api.NewClient(e.base, id, api.Secret(secret), api.WithHTTPClient(e.hs.Client()))
		if err := c.Authenticate(context.Background()); err == nil {
			t.Errorf("%s authenticated", id)
		}
	}
	c, _ := api.NewClient(e.base, "mp_test_demo_read", "demo-read-secret", api.WithHTTPClient(e.hs.Client()), api.WithClock(clock.Now))
	if _, err := c.GetAccount(context.Background()); err == nil {
		t.Error("read-only credential read the account")
	}
	_ = http.MethodGet
}

func TestNew_InvalidFixtureEntriesSkipped(t *testing.T) {
	fx := &Fixture{Accounts: []AccountFixture{
		{Name: "", Environment: "sandbox"}, // skipped: no name
		{Name: "Ok", Environment: "sandbox", PixFee: "1.00", Credentials: []CredentialFixture{
			{ClientID: "mp_live_wrong", ClientSecret: "s", Permissions: []string{"FULL_ACCESS"}}, // skipped: prefix
			{ClientID: "mp_test_ok", ClientSecret: "s", Permissions: []string{"FULL_ACCESS"}},
		}, Charges: []ChargeFixture{{Amount: "0.10", State: SeedPaid}}}, // skipped: amount
	}}
	if fx.Validate() == nil {
		t.Fatal("Validate accepted an invalid fixture")
	}
	s := New(fx)
	defer s.Close()
	if len(s.accounts) != 1 || len(s.creds) != 1 || len(s.txs) != 0 {
		t.Errorf("accounts %d creds %d txs %d", len(s.accounts), len(s.creds), len(s.txs))
	}
}

func TestSecretsNotPrinted(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	var we WebhookEndpoint
	r := e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]string{"url": h.hs.URL}, nil)
	r.decode(t, &we)
	if we.Secret == "" || !strings.HasPrefix(we.Secret.Reveal(), "whsec_") {
		t.Fatalf("secret %q", we.Secret.Reveal())
	}
	e.srv.mu.Lock()
	cred := e.srv.creds["mp_test_full"]
	ep := cred.acct.endpoints[0]
	e.srv.mu.Unlock()
	for _, s := range []string{fmtAll(we), fmtAll(e.srv), fmtAll(*cred), fmtAll(cred), fmtAll(*ep), fmtAll(ep)} {
		if strings.Contains(s, we.Secret.Reveal()) || strings.Contains(s, "s-full") {
			t.Errorf("a secret shows when printing: %q", s)
		}
	}
	if strings.Contains(fmtAll(e.srv), string(e.srv.jwtKey)) {
		t.Error("the signing key shows when printing the server")
	}
}
