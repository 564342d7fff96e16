package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// hostileName tries to retitle the terminal (OSC 0), clear it (CSI 2J, also as the one-byte
// C1 CSI) and reverse what follows (bidi override, isolate), hidden behind a zero-width space.
const hostileName = "\x1b]0;PWNED\x07Ana\x1b[2J\u009b2J\u202eanA\u202c\u2066\u200b"

// assertInert fails when out holds ESC, BEL, a C1 control, a bidi control or a zero-width
// character: nothing that can drive a terminal or spoof what it shows.
func assertInert(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u202c", "\u2066", "\u200b", "\r\r"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s holds %q:\n%q", what, bad, out)
		}
	}
	for _, r := range out {
		if r >= 0x80 && r <= 0x9f {
			t.Errorf("%s holds the C1 control %U:\n%q", what, r, out)
			break
		}
	}
}

// writeConfig writes body as the config file under a fresh XDG_CONFIG_HOME, with a fresh
// XDG_STATE_HOME; it returns the state directory pixdash uses.
func writeConfig(t *testing.T, body string) (cfgPath, stateDir string) {
	t.Helper()
	cfgDir, xdgState := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	t.Setenv("XDG_STATE_HOME", xdgState)
	t.Setenv("PIXDASH_CONFIG", "")
	t.Setenv("PIXDASH_PROFILE", "")
	cfgPath = filepath.Join(cfgDir, "pixdash", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfgPath, filepath.Join(xdgState, "pixdash")
}

// seedStore writes charges into a profile's database.
func seedStore(t *testing.T, stateDir, profile string, cs ...state.Charge) {
	t.Helper()
	ctx := context.Background()
	s, err := state.Open(ctx, stateDir, profile)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range cs {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
}

// pixdash export writes a hostile payer name neither raw to the terminal nor raw into the CSV
// file, in either dialect.
func TestExportOutputInert(t *testing.T) {
	_, stateDir := writeConfig(t, "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
	noon := time.Date(2025, 1, 10, 12, 0, 0, 0, time.Local)
	seedStore(t, stateDir, "loja", state.Charge{ID: "tx_1", Wallet: "principal", Amount: 100, Status: api.StatusCompleted,
		CreatedAt: noon, PaidAt: &noon, PayerName: hostileName, Description: "\u009b31mcafé\x1b[0m"})
	for _, format := range []string{"csv", "br"} {
		var out, errb strings.Builder
		if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10", "--format", format}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		assertInert(t, format+" stdout", out.String())
		if !strings.Contains(out.String(), "]0;PWNED Ana [2J 2JanA") || !strings.Contains(out.String(), " 31mcafé [0m") {
			t.Errorf("%s: the cleaned names are missing:\n%s", format, out.String())
		}
		file := filepath.Join(t.TempDir(), "x.csv")
		if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10", "--format", format, "--output", file}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		assertInert(t, format+" file", string(data))
		if format == "br" && !strings.HasPrefix(string(data), "\uFEFF") {
			t.Errorf("the BR dialect lost its byte-order mark")
		}
	}
}

// pixdash config check shows the service's refusal on one clean line: the hostile message
// can neither retitle nor clear the terminal, nor fake a line of its own.
func TestConfigCheckServiceErrorInert(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"statusCode":401,"error":"Unauthorized","message":"bad\u001b]0;PWNED\u0007 key\u001b[2J\u009b2J\n  \u2714 fake       sandbox    signed in\u202e","traceId":"tr-\u001b[31m1"}`))
	}))
	defer srv.Close()
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", "cs-x")
	writeConfig(t, "[profiles.loja]\nbase_url = \""+srv.URL+"/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
	var out, errb strings.Builder
	if code := run([]string{"config", "check"}, &out, &errb); code != exitFailure {
		t.Fatalf("exit %d, want 1: %s%s", code, out.String(), errb.String())
	}
	assertInert(t, "stdout", out.String())
	assertInert(t, "stderr", errb.String())
	if strings.Count(out.String(), "\n") != 2 || !strings.Contains(out.String(), "✖ loja") || !strings.Contains(out.String(), "]0;PWNED  key [2J 2J") {
		t.Errorf("want the path line and one line for loja:\n%s", out.String())
	}
}

// export --wallet naming no wallet of the profile is a mistake (exit 2, nothing written), not
// "Exported 0 charges"; a wallet of the profile with no charge in the period is an empty export.
func TestExportUnknownWallet(t *testing.T) {
	_, stateDir := writeConfig(t, "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\nsub_account = \"loja-norte\"\n")
	noon := time.Date(2025, 1, 10, 12, 0, 0, 0, time.Local)
	seedStore(t, stateDir, "loja", state.Charge{ID: "tx_1", Wallet: "loja-sul", Amount: 100, Status: api.StatusPending, CreatedAt: noon})
	var out, errb strings.Builder
	code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10", "--wallet", "nonexistent"}, &out, &errb)
	if code != exitUsage || out.Len() != 0 || strings.Contains(errb.String(), "Exported") ||
		!strings.Contains(errb.String(), "--wallet nonexistent: not a wallet of profile loja") || !strings.Contains(errb.String(), "principal, loja-norte, loja-sul") {
		t.Errorf("unknown wallet: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, w := range []string{"principal", "loja-norte", "loja-sul"} {
		out.Reset()
		errb.Reset()
		if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10", "--wallet", w}, &out, &errb); code != 0 {
			t.Errorf("--wallet %s: exit %d: %s", w, code, errb.String())
		}
	}
}

// seedEvents records a webhook event per id, received at the given time.
func seedEvents(t *testing.T, stateDir, profile string, at time.Time, ids ...string) {
	t.Helper()
	ctx := context.Background()
	s, err := state.Open(ctx, stateDir, profile, state.WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range ids {
		ev, err := api.DecodeEvent([]byte(`{"event":"refund_completed","eventId":"` + id + `","data":{"id":"r"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
}

func eventCount(t *testing.T, stateDir, profile string) int {
	t.Helper()
	s, err := state.Open(context.Background(), stateDir, profile)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.CountEventsBefore(context.Background(), time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// events prune says how many events it would remove and removes them only once confirmed: a
// question on a terminal, --yes otherwise; --dry-run only counts. A day in the future (every
// event) is said so, and removing every event wants the count typed even with --yes (--all
// without a terminal): a new user deleted every event by typing a future date.
func TestEventsPruneCountsAndConfirms(t *testing.T) {
	_, stateDir := writeConfig(t, "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
	seedEvents(t, stateDir, "loja", time.Now().Add(-time.Hour), "e1", "e2")
	future := time.Now().AddDate(0, 0, 2).Format("2006-01-02")
	terminal := false
	answer := ""
	oldIn, oldTerm := promptIn, stdinTerminal
	t.Cleanup(func() { promptIn, stdinTerminal = oldIn, oldTerm })
	stdinTerminal = func() bool { return terminal }
	prune := func(extra ...string) (int, string, string) {
		promptIn = strings.NewReader(answer)
		var out, errb strings.Builder
		code := run(append([]string{"events", "prune", "--before", future}, extra...), &out, &errb)
		return code, out.String(), errb.String()
	}

	// Not a terminal and no --yes: refused, nothing removed, the count said.
	if code, out, errb := prune(); code != exitUsage || out != "" || !strings.Contains(errb, "this would remove 2 events received before "+future+" in profile loja (--before is in the future: that is every event): add --yes") {
		t.Errorf("no --yes: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	if code, out, _ := prune("--dry-run"); code != 0 || !strings.Contains(out, "Would remove 2 events") || !strings.Contains(out, "Nothing removed (--dry-run)") {
		t.Errorf("--dry-run: exit %d, %q", code, out)
	}
	if code, _, _ := prune("--dry-run", "--yes"); code != exitUsage {
		t.Errorf("--dry-run --yes: exit %d, want 2", code)
	}
	// A terminal: asked; anything but yes keeps them.
	terminal, answer = true, "\n"
	// Every event of the profile: the count must be typed, --yes or not; "yes" is not enough.
	for _, a := range []string{"\n", "s\n", "yes\n"} {
		answer = a
		if code, out, _ := prune(); code != 0 || !strings.Contains(out, "This removes 2 events received before "+future) || !strings.Contains(out, "EVERY event") || !strings.Contains(out, "Type 2 to confirm: Nothing removed.") {
			t.Errorf("declined with %q: exit %d, %q", a, code, out)
		}
		if code, out, _ := prune("--yes"); code != 0 || !strings.Contains(out, "Nothing removed.") {
			t.Errorf("--yes, declined with %q: exit %d, %q", a, code, out)
		}
	}
	if n := eventCount(t, stateDir, "loja"); n != 2 {
		t.Fatalf("%d events left after refusals, want 2", n)
	}
	answer = "2\n"
	if code, out, _ := prune(); code != 0 || !strings.Contains(out, "Removed 2 events") {
		t.Errorf("confirmed: exit %d, %q", code, out)
	}
	if code, out, _ := prune("--yes"); code != 0 || !strings.Contains(out, "No events received before "+future+" in profile loja; nothing to remove.") {
		t.Errorf("nothing left: exit %d, %q", code, out)
	}
	// Without a terminal, every event needs --all beside --yes.
	seedEvents(t, stateDir, "loja", time.Now().Add(-time.Hour), "e3")
	terminal = false
	if code, out, errb := prune("--yes"); code != exitUsage || out != "" || !strings.Contains(errb, "every event of the profile: add --all") {
		t.Errorf("--yes, every event: exit %d, %q, %q", code, out, errb)
	}
	if code, out, _ := prune("--yes", "--all"); code != 0 || !strings.Contains(out, "Removed 1 events") {
		t.Errorf("--yes --all: exit %d, %q", code, out)
	}
	// Not every event: --yes removes without asking.
	seedEvents(t, stateDir, "loja", time.Now().Add(-72*time.Hour), "old")
	seedEvents(t, stateDir, "loja", time.Now().Add(-time.Hour), "recent")
	yesterday := time.Now().AddDate(0, 0, -1).Format("2006-01-02")
	var out, errb strings.Builder
	if code := run([]string{"events", "prune", "--before", yesterday, "--yes"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Removed 1 events") {
		t.Errorf("--yes, some events: exit %d, %q, %q", code, out.String(), errb.String())
	}
}

// Each error says what failed once: no "profile a: profile \"a\": …", no "sandbox: sandbox:
// listen on …: listen tcp …", no "already exists; not overwriting it: file already exists".
func TestErrorsWrappedOnce(t *testing.T) {
	cfgPath, _ := writeConfig(t, "[profiles.bare]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_UNSET_SECRET\"\n")
	t.Setenv("PIXDASH_TEST_UNSET_SECRET", "")
	os.Unsetenv("PIXDASH_TEST_UNSET_SECRET")

	var out, errb strings.Builder
	if code := run([]string{"--profile", "bare"}, &out, &errb); code != exitFailure ||
		errb.String() != "pixdash: profile bare: environment variable PIXDASH_TEST_UNSET_SECRET (client_secret_env) is not set\n" {
		t.Errorf("dashboard: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"config", "check"}, &out, &errb); code != exitFailure || strings.Count(out.String(), "bare") != 1 ||
		!strings.Contains(out.String(), "✖ bare") || !strings.Contains(out.String(), "environment variable PIXDASH_TEST_UNSET_SECRET (client_secret_env) is not set") {
		t.Errorf("config check: exit %d, stdout %q", code, out.String())
	}
	errb.Reset()
	if code := run([]string{"config", "init"}, &out, &errb); code != exitFailure || errb.String() != "pixdash config init: "+cfgPath+" already exists; not overwriting it\n" {
		t.Errorf("config init: exit %d, stderr %q", code, errb.String())
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	errb.Reset()
	code := run([]string{"sandbox", "--addr", ln.Addr().String()}, &out, &errb)
	if code != exitFailure || !strings.HasPrefix(errb.String(), "pixdash sandbox: listen tcp "+ln.Addr().String()+": ") || strings.Count(errb.String(), "listen") != 1 {
		t.Errorf("sandbox: exit %d, stderr %q", code, errb.String())
	}
}

// language = "pt" in the config means what --lang pt means.
func TestLanguagePtLikeLangFlag(t *testing.T) {
	_, stateDir := writeConfig(t, "language = \"pt\"\n[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n")
	seedStore(t, stateDir, "loja")
	var out, errb strings.Builder
	if code := run([]string{"close", "--offline", "--date", "2025-01-10"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "FECHAMENTO DE CAIXA") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, l := range []string{"pt", "PT", "pt_BR", "pt-br"} {
		if got, ok := parseLang(l); !ok || got != "pt-BR" {
			t.Errorf("--lang %s = %q %v", l, got, ok)
		}
	}
}

// export writes in the profile's export_format when --format is not given: br by default, as
// the dashboard's export.
func TestExportFormatDefaultsToProfile(t *testing.T) {
	_, stateDir := writeConfig(t, "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n\n[profiles.rfc]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\nexport_format = \"csv\"\n")
	seedStore(t, stateDir, "loja")
	seedStore(t, stateDir, "rfc")
	for _, tc := range []struct{ args, prefix string }{
		{"--profile loja", "\uFEFFid;criada_em;"},
		{"--profile rfc", "id,created_at,"},
		{"--profile rfc --format br", "\uFEFFid;criada_em;"},
		{"--profile loja --format csv", "id,created_at,"},
	} {
		var out, errb strings.Builder
		args := append([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10"}, strings.Fields(tc.args)...)
		if code := run(args, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), tc.prefix) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-10", "--format", " "}, &out, &errb); code != exitUsage {
		t.Errorf("--format blank: exit %d", code)
	}
}
