package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// TestOnPaidHelperProcess is not a test: run as a child with "--" among its arguments (the
// environment would not do: the runner passes only an allow-list on), it is the on_paid
// command. Its arguments after "--": a mode and a file. "write" appends one record to the file
// (a RUN line, the bytes read on stdin, then its environment, one variable a line); "fail"
// writes the record and exits 3; "sleep" sleeps 30 s; "spam" prints 100 KiB.
func TestOnPaidHelperProcess(t *testing.T) {
	args := os.Args
	i := slices.Index(args, "--")
	if i < 0 || i+2 >= len(args) {
		t.Skip("helper process")
	}
	mode, file := args[i+1], args[i+2]
	switch mode {
	case "sleep":
		time.Sleep(30 * time.Second)
		os.Exit(0)
	case "spam":
		fmt.Print(strings.Repeat("x", 100<<10))
		os.Exit(0)
	}
	in, _ := io.ReadAll(os.Stdin)
	var b strings.Builder
	fmt.Fprintf(&b, "RUN\nSTDIN=%d\n", len(in))
	for _, kv := range os.Environ() {
		b.WriteString(kv + "\n")
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		os.Exit(10)
	}
	_, _ = f.WriteString(b.String())
	_ = f.Close()
	fmt.Println("printed a receipt")
	if mode == "fail" {
		fmt.Fprintln(os.Stderr, "printer offline")
		os.Exit(3)
	}
	os.Exit(0)
}

func helperCommand(mode, file string) *OnPaidCommand {
	return &OnPaidCommand{
		Argv:    []string{os.Args[0], "-test.run=^TestOnPaidHelperProcess$", "--", mode, file},
		Timeout: 20 * time.Second, Profile: "loja",
		Hide: []string{"PAGUE_CS"},
	}
}

func paidCharge(id string) state.Charge {
	paid := time.Date(2026, 3, 5, 14, 30, 0, 0, time.FixedZone("BRT", -3*3600))
	return state.Charge{
		ID: id, Wallet: "loja-centro", Amount: 123456, Description: "Venda\nno balcão",
		ExternalReference: "pedido-42", Status: api.StatusCompleted, PaidAt: &paid,
		PayerName: "Maria da Silva", PayerDocument: "12345678909", E2EID: "E12345678202603051730abcdefghijk",
	}
}

// runs reads the helper's records: one environment (name → value) per run.
func runs(t *testing.T, file string) []map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "RUN" {
			out = append(out, map[string]string{})
			continue
		}
		if name, value, ok := strings.Cut(line, "="); ok && len(out) > 0 {
			out[len(out)-1][name] = value
		}
	}
	return out
}

func TestRunOnPaidOncePerPaymentWithTheChargeInItsEnvironment(t *testing.T) {
	t.Setenv("PIXDASH_SANDBOX_SECRET", "secret-one")
	t.Setenv("PIXDASH_CHARGE_ID", "spoofed")
	t.Setenv("SHOP_API_TOKEN", "secret-two")
	t.Setenv("PAGUE_CS", "secret-three") // the profile's client_secret_env, whatever its name
	t.Setenv("DATABASE_URL", "postgres://u:secret-four@db/x")
	t.Setenv("SHOP_LOCALE", "pt_BR")
	// Other profiles' secrets, under names nothing marks as secret: only an allow-list keeps
	// them from the command.
	t.Setenv("LOJA2_SENHA", "secret-five")
	t.Setenv("FILIAL_WH", "secret-six") // another profile's webhook secret_env
	t.Setenv("LC_ALL", "pt_BR.UTF-8")
	t.Setenv("TMPDIR", os.TempDir())
	t.Setenv("TZ", "America/Sao_Paulo")
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "paid.txt")
	c := helperCommand("write", file)

	a, err := state.Open(ctx, dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	b, err := state.Open(ctx, dir, "loja") // a second window on the same profile
	if err != nil {
		t.Fatal(err)
	}
	ch := paidCharge("tx_1")

	// Not paid (pending, or paid only by a webhook's word and so still pending here): nothing.
	pending := ch
	pending.Status = api.StatusPending
	if r := RunOnPaid(ctx, a, c, pending); r.Ran || r.Err != nil {
		t.Fatalf("pending charge: %+v", r)
	}
	if r := RunOnPaid(ctx, a, nil, ch); r.Ran {
		t.Fatalf("no command: %+v", r)
	}

	r := RunOnPaid(ctx, a, c, ch)
	if !r.Ran || r.Err != nil || r.ExitCode != 0 || !strings.Contains(r.Output, "printed a receipt") {
		t.Fatalf("first run: %+v", r)
	}
	if r.Command != filepath.Base(os.Args[0]) || r.ChargeID != "tx_1" || r.Amount != "R$ 1.234,56" {
		t.Errorf("result names: %+v", r)
	}
	got := runs(t, file)
	if len(got) != 1 {
		t.Fatalf("%d runs after the first, want 1", len(got))
	}
	env := got[0]
	want := map[string]string{
		"PIXDASH_CHARGE_ID":          "tx_1",
		"PIXDASH_AMOUNT_CENTS":       "123456",
		"PIXDASH_AMOUNT":             "R$ 1.234,56",
		"PIXDASH_DESCRIPTION":        "Venda no balcão",
		"PIXDASH_EXTERNAL_REFERENCE": "pedido-42",
		"PIXDASH_WALLET":             "loja-centro",
		"PIXDASH_PAYER_NAME":         "Maria da Silva",
		"PIXDASH_E2E_ID":             "E12345678202603051730abcdefghijk",
		"PIXDASH_PAID_AT":            "2026-03-05T17:30:00Z",
		"PIXDASH_PROFILE":            "loja",
		"LC_ALL":                     "pt_BR.UTF-8",
		"TZ":                         "America/Sao_Paulo",
		"TMPDIR":                     os.TempDir(),
		"STDIN":                      "0",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	for k, v := range env {
		if strings.Contains(v, "secret-") || strings.Contains(v, "12345678909") {
			t.Errorf("a secret or the payer's document reached the command: %s=%s", k, v)
		}
	}
	for _, k := range []string{"PIXDASH_SANDBOX_SECRET", "SHOP_API_TOKEN", "PAGUE_CS", "DATABASE_URL", "LOJA2_SENHA", "FILIAL_WH", "SHOP_LOCALE"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s was passed", k)
		}
	}
	for k := range env {
		switch {
		case k == "PATH", k == "HOME", k == "LANG", k == "TZ", k == "TMPDIR", k == "STDIN", strings.HasPrefix(k, "LC_"):
		case strings.HasPrefix(k, "PIXDASH_") && want[k] != "":
		default:
			t.Errorf("%s is not on the allow-list but was passed", k)
		}
	}

	// Seen paid again: by the same window, by the other window, after a restart.
	if r := RunOnPaid(ctx, a, c, ch); r.Ran {
		t.Errorf("second run in the same window: %+v", r)
	}
	if r := RunOnPaid(ctx, b, c, ch); r.Ran {
		t.Errorf("run in the second window: %+v", r)
	}
	_ = a.Close()
	_ = b.Close()
	reopened, err := state.Open(ctx, dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if r := RunOnPaid(ctx, reopened, c, ch); r.Ran {
		t.Errorf("run after a restart: %+v", r)
	}
	if n := len(runs(t, file)); n != 1 {
		t.Fatalf("%d runs in all, want 1", n)
	}
	rec, ok, err := reopened.OnPaidRunOf(ctx, "tx_1")
	if err != nil || !ok || rec.Outcome != "ok" {
		t.Errorf("record: %+v %v %v", rec, ok, err)
	}
	// Another payment runs it again.
	if r := RunOnPaid(ctx, reopened, c, paidCharge("tx_2")); !r.Ran || r.Err != nil {
		t.Errorf("another payment: %+v", r)
	}
	if got := runs(t, file); len(got) != 2 || got[1]["PIXDASH_CHARGE_ID"] != "tx_2" {
		t.Errorf("runs: %v", got)
	}
}

func TestRunOnPaidReportsFailures(t *testing.T) {
	ctx := context.Background()
	s := state.OpenMemory()
	defer s.Close()
	file := filepath.Join(t.TempDir(), "paid.txt")

	r := RunOnPaid(ctx, s, helperCommand("fail", file), paidCharge("tx_fail"))
	var exit *exec.ExitError
	if !r.Ran || !errors.As(r.Err, &exit) || r.ExitCode != 3 || !strings.Contains(r.Output, "printer offline") {
		t.Errorf("failing command: %+v", r)
	}
	if rec, _, _ := s.OnPaidRunOf(ctx, "tx_fail"); rec.Outcome != "exit status 3" {
		t.Errorf("recorded outcome %q", rec.Outcome)
	}
	// A failure is not retried: the payment had its run.
	if r := RunOnPaid(ctx, s, helperCommand("write", file), paidCharge("tx_fail")); r.Ran {
		t.Errorf("failed run retried: %+v", r)
	}

	r = RunOnPaid(ctx, s, &OnPaidCommand{Argv: []string{"pixdash-no-such-program-xyz"}}, paidCharge("tx_nf"))
	if !r.Ran || !errors.Is(r.Err, ErrOnPaidNotFound) || r.Command != "pixdash-no-such-program-xyz" {
		t.Errorf("missing program: %+v", r)
	}

	c := helperCommand("sleep", file)
	c.Timeout = 300 * time.Millisecond
	start := time.Now()
	r = RunOnPaid(ctx, s, c, paidCharge("tx_slow"))
	if !r.Ran || !errors.Is(r.Err, ErrOnPaidTimeout) || r.ExitCode != -1 {
		t.Errorf("slow command: %+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %s", d)
	}

	r = RunOnPaid(ctx, s, helperCommand("spam", file), paidCharge("tx_spam"))
	if r.Err != nil || len(r.Output) != MaxOnPaidOutput || r.Truncated != 100<<10-MaxOnPaidOutput {
		t.Errorf("chatty command: err %v, kept %d, dropped %d", r.Err, len(r.Output), r.Truncated)
	}
}

// failingStore cannot record the run.
type failingStore struct{ claims int }

func (f *failingStore) ClaimOnPaid(context.Context, string, string) (bool, error) {
	f.claims++
	return false, state.ErrDiskFull
}
func (f *failingStore) FinishOnPaid(context.Context, string, string) error { return nil }

func TestRunOnPaidDoesNotRunWhatItCannotRecord(t *testing.T) {
	file := filepath.Join(t.TempDir(), "paid.txt")
	st := &failingStore{}
	r := RunOnPaid(context.Background(), st, helperCommand("write", file), paidCharge("tx_1"))
	if st.claims != 1 || !errors.Is(r.Err, state.ErrDiskFull) {
		t.Errorf("result %+v after %d claims", r, st.claims)
	}
	if n := len(runs(t, file)); n != 0 {
		t.Errorf("the command ran %d times without a record", n)
	}
}

func TestSecretLooking(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"PIXDASH_SANDBOX_SECRET", "x", true},
		{"GITHUB_TOKEN", "x", true},
		{"DB_PASSWORD", "x", true},
		{"AWS_SECRET_ACCESS_KEY", "x", true},
		{"STRIPE_KEY", "x", true},
		{"my_api_key", "x", true},
		{"SSH_AUTH_SOCK", "/tmp/x", true},
		{"HTTPS_PROXY", "http://user:pw@proxy:3128", true},
		{"PATH", "/usr/bin", false},
		{"HOME", "/home/loja", false},
		{"LANG", "pt_BR.UTF-8", false},
		{"KEYBOARD", "br", false},
		{"HTTPS_PROXY", "http://proxy:3128", false},
		{"PRINTER", "balcao", false},
	} {
		if got := SecretLooking(tc.name, tc.value); got != tc.want {
			t.Errorf("SecretLooking(%s, %s) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

// The charge's fields reach the command with no control, C1, bidi or zero-width character.
func TestOnPaidEnvValuesClean(t *testing.T) {
	ch := paidCharge("tx_1")
	ch.PayerName = "Ana\u009b2J\u202eanA\u202c\u2066x\u200b"
	ch.Description = "a\x1b]0;PWNED\x07b\u0085c"
	ch.ExternalReference = "\u202dref\u2069"
	env := OnPaidEnv(nil, nil, "loja", ch)
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
		for _, r := range v {
			if r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200b {
				t.Errorf("%s holds %U: %q", k, r, v)
			}
		}
	}
	if got["PIXDASH_PAYER_NAME"] != "Ana 2JanAx" || got["PIXDASH_DESCRIPTION"] != "a ]0;PWNED b c" || got["PIXDASH_EXTERNAL_REFERENCE"] != "ref" {
		t.Errorf("values %q", got)
	}
}

func TestChildEnvIsAnAllowList(t *testing.T) {
	got := ChildEnv([]string{"PATH=/bin", "HOME=/h", "LANG=C", "LC_ALL=C.UTF-8", "LC_TIME=pt_BR", "TZ=UTC", "TMPDIR=/t",
		"LOJA2_SENHA=x", "PIXDASH_PROFILE=spoof", "USER=u", "SHELL=/bin/sh", "PATHX=z", "XLC_A=y", "noequals", "HOME2=z"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/h LANG=C LC_ALL=C.UTF-8 LC_TIME=pt_BR TZ=UTC TMPDIR=/t" {
		t.Errorf("ChildEnv = %q", got)
	}
}
