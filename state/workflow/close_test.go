package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// closeStore answers CloseDay with a report of the wallets it was built with.
type closeStore struct {
	wallets []string
	err     error
	got     state.CloseQuery
}

func (s *closeStore) CloseDay(_ context.Context, q state.CloseQuery) (state.CloseReport, error) {
	s.got = q
	if s.err != nil {
		return state.CloseReport{}, s.err
	}
	r := state.CloseReport{Profile: "loja", Day: q.Day}
	for _, w := range s.wallets {
		r.Wallets = append(r.Wallets, state.CloseLine{Totals: state.Totals{Wallet: w, Paid: 1, Gross: 1000}})
	}
	return r, nil
}

// accounts answers GetAccount per X-Sub-Account ("" is principal), counting how many reads
// run at once.
type accounts struct {
	mu            sync.Mutex
	inFlight, max int
	seen          []string
	delay         time.Duration
	avail         map[string]api.Money
	errs          map[string]error
}

func (a *accounts) GetAccount(ctx context.Context, opts ...api.RequestOption) (*api.Account, error) {
	sub := options(opts).SubAccount
	a.mu.Lock()
	a.inFlight++
	a.max = max(a.max, a.inFlight)
	a.seen = append(a.seen, sub)
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.inFlight--
		a.mu.Unlock()
	}()
	select {
	case <-time.After(a.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := a.errs[sub]; err != nil {
		return nil, err
	}
	v, ok := a.avail[sub]
	if !ok {
		return nil, &api.Error{HTTPStatus: 404, Kind: "NotFound", Message: "Sub-account not found"}
	}
	held, total := api.Money(100), v+100
	return &api.Account{Balance: api.AccountBalance{Available: &v, Held: &held, Total: &total}}, nil
}

func TestCloseDayRecordsBalances(t *testing.T) {
	store := &closeStore{wallets: []string{"principal", "loja-sul", "loja-norte"}}
	acct := &accounts{
		avail: map[string]api.Money{"": 5000, "loja-sul": 700},
		errs: map[string]error{"loja-norte": &api.Error{HTTPStatus: 403, Kind: "Forbidden",
			Message: "Sub-account access disabled", TraceID: "0af7651916cd43dd8448eb211c80319c"}},
	}
	q := state.CloseQuery{Day: state.Days(time.Now(), 1, time.Local), Wallets: []string{"principal"}, Fee: 99, HasFee: true}
	r, err := CloseDay(context.Background(), store, acct, q)
	if err != nil {
		t.Fatal(err)
	}
	if store.got.Fee != 99 || !store.got.HasFee || len(store.got.Wallets) != 1 {
		t.Errorf("query passed as %+v", store.got)
	}
	byWallet := map[string]state.CloseLine{}
	for _, l := range r.Wallets {
		byWallet[l.Wallet] = l
	}
	if b := byWallet["principal"].Balance; b == nil || *b.Available != 5000 || *b.Held != 100 || *b.Total != 5100 {
		t.Errorf("principal balance %+v", b)
	}
	if b := byWallet["loja-sul"].Balance; b == nil || *b.Available != 700 || byWallet["loja-sul"].BalanceErr != "" {
		t.Errorf("loja-sul balance %+v %q", b, byWallet["loja-sul"].BalanceErr)
	}
	norte := byWallet["loja-norte"]
	if norte.Balance != nil || !strings.Contains(norte.BalanceErr, "Sub-account access disabled") ||
		!strings.Contains(norte.BalanceErr, "0af7651916cd43dd8448eb211c80319c") {
		t.Errorf("loja-norte: balance %+v, reason %q", norte.Balance, norte.BalanceErr)
	}
	if r.Total.Balance != nil {
		t.Errorf("total balance %+v with a wallet missing", r.Total.Balance)
	}
	// principal is read with no X-Sub-Account.
	acct.mu.Lock()
	seen := strings.Join(acct.seen, ",")
	acct.mu.Unlock()
	for _, want := range []string{"loja-sul", "loja-norte"} {
		if !strings.Contains(seen, want) {
			t.Errorf("wallets read: %q", seen)
		}
	}
	if strings.Contains(seen, "principal") {
		t.Errorf("principal read with a sub-account header: %q", seen)
	}
}

func TestCloseDayTotalBalanceWhenEveryWalletIsRead(t *testing.T) {
	store := &closeStore{wallets: []string{"principal", "loja-sul"}}
	acct := &accounts{avail: map[string]api.Money{"": 5000, "loja-sul": 700}}
	r, err := CloseDay(context.Background(), store, acct, state.CloseQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Total.Balance; b == nil || *b.Available != 5700 || *b.Total != 5900 {
		t.Errorf("total balance %+v", b)
	}
}

func TestCloseDayWithoutServiceLeavesBalancesUnread(t *testing.T) {
	store := &closeStore{wallets: []string{"principal"}}
	r, err := CloseDay(context.Background(), store, nil, state.CloseQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Wallets[0].Balance != nil || r.Wallets[0].BalanceErr != "" {
		t.Errorf("line %+v", r.Wallets[0])
	}
}

func TestCloseDayStoreErrorFails(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := CloseDay(context.Background(), &closeStore{err: boom}, &accounts{}, state.CloseQuery{})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestCloseDayBoundsConcurrentReads(t *testing.T) {
	var wallets []string
	avail := map[string]api.Money{}
	for i := range 12 {
		w := fmt.Sprintf("loja-%02d", i)
		wallets = append(wallets, w)
		avail[w] = api.Money(i)
	}
	acct := &accounts{avail: avail, delay: 20 * time.Millisecond}
	r, err := CloseDay(context.Background(), &closeStore{wallets: wallets}, acct, state.CloseQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if acct.max > MaxBalanceReads || acct.max < 2 {
		t.Errorf("at most %d reads ran at once, want 2..%d", acct.max, MaxBalanceReads)
	}
	for _, l := range r.Wallets {
		if l.Balance == nil {
			t.Errorf("%s not read: %q", l.Wallet, l.BalanceErr)
		}
	}
}

func TestCloseDayCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	acct := &accounts{avail: map[string]api.Money{"a": 1, "b": 2}, delay: time.Hour}
	time.AfterFunc(20*time.Millisecond, cancel)
	r, err := CloseDay(ctx, &closeStore{wallets: []string{"a", "b"}}, acct, state.CloseQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r.Wallets {
		if l.Balance != nil || l.BalanceErr != "cancelled" {
			t.Errorf("%s: %+v %q", l.Wallet, l.Balance, l.BalanceErr)
		}
	}
}

func TestBalanceErrText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&api.Error{HTTPStatus: 403, Kind: "Forbidden", Message: "no access", TraceID: "abc"}, "Forbidden: no access (trace abc)"},
		{fmt.Errorf("get: %w", &api.Error{HTTPStatus: 503}), "503 Service Unavailable"},
		{&api.Error{HTTPStatus: 502, Body: "<html>bad\x1b[2Jgateway"}, "<html>bad[2Jgateway"},
		{context.DeadlineExceeded, "timed out"},
		{errors.New("dial tcp: refused\nsecond line"), "dial tcp: refused second line"},
		{errors.New(strings.Repeat("x", 500)), strings.Repeat("x", 159) + "…"},
	} {
		if got := BalanceErrText(c.err); got != c.want {
			t.Errorf("BalanceErrText(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func needShell(t *testing.T) {
	t.Helper()
	for _, p := range []string{"sh", "cat"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not found", p)
		}
	}
}

func TestPrintReportSendsTheReportOnStdin(t *testing.T) {
	needShell(t)
	out := filepath.Join(t.TempDir(), "printed.txt")
	report := []byte("FECHAMENTO DE CAIXA\nBruto   R$ 1.234,56\n")
	t.Setenv("PIXDASH_TEST_SECRET_TOKEN", "s3cr3t")
	t.Setenv("LANG", "pt_BR.UTF-8")
	script := `cat > "$1"; env > "$1.env"`
	if err := PrintReport(context.Background(), []string{"sh", "-c", script, "sh", out}, report, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(report) {
		t.Errorf("printed %q", got)
	}
	env, err := os.ReadFile(out + ".env")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "s3cr3t") || !strings.Contains(string(env), "LANG=pt_BR.UTF-8") {
		t.Errorf("environment:\n%s", env)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(env)), "\n") {
		name, _, _ := strings.Cut(line, "=")
		switch name {
		case "PATH", "HOME", "LANG", "TZ", "TMPDIR", "PWD", "SHLVL", "_", "OLDPWD": // the last four are the shell's own
		default:
			t.Errorf("unexpected variable %q passed on", name)
		}
	}
	// cat alone, reading stdin and writing stdout, succeeds.
	if err := PrintReport(context.Background(), []string{"cat"}, report, 0); err != nil {
		t.Errorf("cat: %v", err)
	}
}

func TestPrintEnv(t *testing.T) {
	got := PrintEnv([]string{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C.UTF-8", "TZ=UTC", "TMPDIR=/t", "PIXDASH_SECRET=x", "AWS_SECRET_ACCESS_KEY=y", "LOJA2_SENHA=z", "USER=u", "PATHX=z", "noequals"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/h LANG=C LC_ALL=C.UTF-8 TZ=UTC TMPDIR=/t" {
		t.Errorf("PrintEnv = %q", got)
	}
}

func TestPrintReportFailureQuotesStderr(t *testing.T) {
	needShell(t)
	err := PrintReport(context.Background(), []string{"sh", "-c", `cat >/dev/null; echo "first line" >&2; printf 'lp: no default \033[31mdestination\n' >&2; exit 1`}, []byte("x"), 5*time.Second)
	if err == nil {
		t.Fatal("no error")
	}
	want := `print command "sh" failed: exit status 1: lp: no default [31mdestination`
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Errorf("err %T does not wrap the *exec.ExitError", err)
	}
}

func TestPrintReportNotFound(t *testing.T) {
	err := PrintReport(context.Background(), []string{"pixdash-no-such-printer-program"}, []byte("x"), time.Second)
	if err == nil || !strings.Contains(err.Error(), `"pixdash-no-such-printer-program": program not found`) {
		t.Errorf("err = %v", err)
	}
}

func TestPrintReportTimeout(t *testing.T) {
	needShell(t)
	start := time.Now()
	err := PrintReport(context.Background(), []string{"sh", "-c", "sleep 30"}, []byte("x"), 200*time.Millisecond)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `print command "sh" timed out after 200ms`) {
		t.Errorf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestPrintReportNeedsACommand(t *testing.T) {
	for _, argv := range [][]string{nil, {}, {" "}} {
		if err := PrintReport(context.Background(), argv, []byte("x"), 0); !errors.Is(err, ErrNoPrintCommand) || !strings.Contains(err.Error(), "print_command") {
			t.Errorf("PrintReport(%q) = %v", argv, err)
		}
	}
}

type fakeLister struct {
	subs []api.SubAccount
	err  error
}

func (f fakeLister) ListSubAccounts(context.Context) ([]api.SubAccount, error) { return f.subs, f.err }

func TestCloseWallets(t *testing.T) {
	subs := []api.SubAccount{
		{Reference: "loja-centro", Status: api.SubAccountActive},
		{Reference: "loja-antiga", Status: api.SubAccountSuspended},
		{Reference: "principal-dup", Status: api.SubAccountApproved},
		{Reference: "loja-sul", Status: api.SubAccountApproved},
	}
	for _, tc := range []struct {
		name string
		l    SubAccountLister
		base []string
		want string
	}{
		{"every usable sub-account after the base, once", fakeLister{subs: subs}, []string{"principal", "loja-sul"}, "principal,loja-sul,loja-centro,principal-dup"},
		{"the list cannot be read", fakeLister{err: errors.New("offline")}, []string{"principal"}, "principal"},
		{"no service", nil, []string{"principal"}, "principal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(CloseWallets(context.Background(), tc.l, tc.base), ","); got != tc.want {
				t.Fatalf("CloseWallets = %s, want %s", got, tc.want)
			}
		})
	}
}

// The printer gets the report's text only (no ESC, C1, bidi or zero-width character; its line
// breaks kept) and none of the parent's other variables: no profile's secret.
func TestPrintReportCleanTextAllowListedEnv(t *testing.T) {
	needShell(t)
	t.Setenv("LOJA2_SENHA", "secret-loja2")
	t.Setenv("FILIAL_WH", "secret-wh")
	out := filepath.Join(t.TempDir(), "printed")
	report := []byte("DAY CLOSE\r\nPayer: \x1b]0;PWNED\x07Ana\u009b2J\u202eanA\u200b\n\x1bE\x1b@cut\n")
	if err := PrintReport(context.Background(), []string{"sh", "-c", `cat > "$1"; env > "$1.env"`, "sh", out}, report, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if string(got) != "DAY CLOSE\r\nPayer:  ]0;PWNED Ana 2JanA\n E @cut\n" {
		t.Errorf("printed %q", got)
	}
	env, _ := os.ReadFile(out + ".env")
	if strings.Contains(string(env), "secret-") {
		t.Errorf("a secret reached the printer:\n%s", env)
	}
}
