package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// pixdashMain is the pixdash command inside the test binary: testscript scripts run it as
// `exec pixdash …` in a process of its own, so exit codes, stdout and stderr are the real ones.
func pixdashMain() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// updateScripts rewrites the files a script's cmp compares with (its goldens) from what the
// commands printed: go test -run TestScripts/golden -update-scripts, then read the diff.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the scripts' cmp files (goldens) from the output")

// scriptFixedClock is the emulator's clock in scripts whose name starts with "golden": with
// WithRand every id is fixed too, so their --json output is compared whole.
var scriptFixedClock = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// TestScripts runs testdata/script/*.txtar against an in-process emulator (api/sandbox) of
// their own. Each script gets a config with the profiles
//
//	sbx   the sandbox account's full credential (default_profile)
//	ro    the same, read_only = true
//	prod  the production account's credential (production writes are confirmed)
//	read  a sandbox credential with TRANSACTION:READ only
//	gone  a revoked sandbox credential
//
// $SANDBOX is the emulator's base URL; XDG_CONFIG_HOME, XDG_STATE_HOME and HOME are the
// script's own. Extra commands: jsonvar NAME FIELD (NAME = FIELD of the last line of stdout,
// a JSON object); exits N PROGRAM ARGS... (runs it like exec and wants exit status N); faults
// JSON (the emulator's PUT /_sandbox/faults, e.g. '{"dropResponseAfterCommit":1}').
//
// Scripts whose name holds "listen" also get the profile "hook" (sandbox, with a webhook
// receiver on a free port, registered with the emulator) and $APP, the merchant's own app:
// it checks each forwarded delivery's signature with its own HMAC (secret $APP_SECRET),
// answers /flaky's first delivery of each event 500, takes a second to answer /slow, and
// appgot PATH N waits until PATH took N correctly signed deliveries (and none was badly
// signed; "started:/slow" counts the /slow deliveries begun).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"jsonvar": cmdJSONVar,
			"exits":   cmdExits,
			"appgot":  cmdAppGot,
			"faults":  cmdFaults,
		},
	})
}

func setupScript(env *testscript.Env) error {
	opts := []sandbox.Option{sandbox.WithRand(7), sandbox.WithWebhookScale(0.01)}
	if name := env.T().(interface{ Name() string }).Name(); strings.Contains(name, "/golden") {
		opts = append(opts, sandbox.WithClock(sandbox.NewFakeClock(scriptFixedClock)))
	}
	srv := sandbox.New(sandbox.DefaultFixture(), opts...)
	hs := httptest.NewServer(srv)
	env.Defer(hs.Close)
	env.Defer(srv.Close)
	base := hs.URL + "/v2"
	hookListen := ""
	if name := env.T().(interface{ Name() string }).Name(); strings.Contains(name, "listen") {
		var err error
		if hookListen, err = setupListen(env, base); err != nil {
			return err
		}
	}
	cfgDir := filepath.Join(env.WorkDir, ".config")
	if err := os.MkdirAll(filepath.Join(cfgDir, "pixdash"), 0o700); err != nil {
		return err
	}
	profile := func(name, id, secretEnv, extra string) string {
		return fmt.Sprintf("[profiles.%s]\nbase_url = %q\nclient_id = %q\nclient_secret_env = %q\n%s\n", name, base, id, secretEnv, extra)
	}
	cfg := "default_profile = \"sbx\"\n\n" +
		profile("sbx", "mp_test_demo_full", "PIXDASH_SBX_SECRET", "") +
		profile("ro", "mp_test_demo_full", "PIXDASH_SBX_SECRET", "read_only = true") +
		profile("prod", "mp_live_demo_full", "PIXDASH_PROD_SECRET", "") +
		profile("read", "mp_test_demo_read", "PIXDASH_READ_SECRET", "") +
		profile("gone", "mp_test_demo_revoked", "PIXDASH_GONE_SECRET", "")
	if name := env.T().(interface{ Name() string }).Name(); strings.Contains(name, "readme") {
		// The README's worked script runs against pixdash sandbox on a port of its own.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		port := ln.Addr().String()
		_ = ln.Close()
		env.Setenv("SANDBOX_ADDR", port)
		cfg += fmt.Sprintf("[profiles.local]\nbase_url = \"http://%s/v2\"\nclient_id = \"mp_test_demo_full\"\nclient_secret_env = \"PIXDASH_SBX_SECRET\"\n", port)
	}
	if hookListen != "" {
		onPaid := fmt.Sprintf("on_paid = [\"sh\", \"-c\", \"echo paid $PIXDASH_CHARGE_ID $PIXDASH_AMOUNT_CENTS >> %s\"]\n", filepath.Join(env.WorkDir, "on_paid.log"))
		cfg += profile("hook", "mp_test_demo_full", "PIXDASH_SBX_SECRET", onPaid+"[profiles.hook.webhook]\nlisten = \""+hookListen+"\"\nsecret_env = \"PIXDASH_HOOK_SECRET\"")
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "pixdash", "config.toml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"SANDBOX": base, "XDG_CONFIG_HOME": cfgDir, "XDG_STATE_HOME": filepath.Join(env.WorkDir, ".state"),
		"XDG_DATA_HOME": filepath.Join(env.WorkDir, ".data"), "HOME": env.WorkDir,
		"PIXDASH_CONFIG": "", "PIXDASH_PROFILE": "", "NO_COLOR": "1", "TZ": "UTC",
		"PIXDASH_SBX_SECRET": "demo-full-secret", "PIXDASH_PROD_SECRET": "demo-live-secret",
		"PIXDASH_READ_SECRET": "demo-read-secret", "PIXDASH_GONE_SECRET": "demo-revoked-secret",
		"PIXDASH_HOOK_SECRET": scriptHookSecret, "APP_SECRET": scriptAppSecret,
	} {
		env.Setenv(k, v)
	}
	return nil
}

// cmdJSONVar sets an environment variable of the script from a field of the JSON object on
// the last line of the last command's stdout: jsonvar NAME FIELD.
func cmdJSONVar(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonvar NAME FIELD")
	}
	lines := strings.Split(strings.TrimSpace(ts.ReadFile("stdout")), "\n")
	var obj map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil {
		ts.Fatalf("jsonvar: stdout's last line is not a JSON object: %v", err)
	}
	v, ok := obj[args[1]]
	if !ok {
		ts.Fatalf("jsonvar: no field %q in %s", args[1], lines[len(lines)-1])
	}
	ts.Setenv(args[0], fmt.Sprint(v))
}

// cmdExits runs a program as exec does (stdout and stderr kept for the next assertions) and
// wants its exit status to be N: exits N PROGRAM ARGS...
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROGRAM ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// Secrets of the listen scripts: the receiver's (shared with the emulator) and the app's.
const (
	scriptHookSecret = "whsec-script-hook-0001"
	scriptAppSecret  = "whsec-script-app-00001"
)

// testApp is the merchant's app listen --forward-to delivers to.
type testApp struct {
	mu    sync.Mutex
	got   map[string][]string // path -> event ids, correctly signed
	bad   int                 // deliveries with a wrong or missing signature
	tried map[string]bool     // /flaky: events already answered 500 once
}

func (a *testApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// An independent check of the signature: HMAC-SHA256 of the raw body, hex, "sha256=".
	m := hmac.New(sha256.New, []byte(scriptAppSecret))
	m.Write(body)
	want := "sha256=" + hex.EncodeToString(m.Sum(nil))
	a.mu.Lock()
	defer a.mu.Unlock()
	if !hmac.Equal([]byte(r.Header.Get("X-Pague-Signature")), []byte(want)) || r.Header.Get("X-Pague-Timestamp") == "" {
		a.bad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var ev struct {
		EventID string `json:"eventId"`
	}
	_ = json.Unmarshal(body, &ev)
	if r.URL.Path == "/slow" {
		// A delivery still in flight when listen is told to stop: counted only if listen waits
		// for the answer (a client that went away cancels the request's context).
		a.got["started:/slow"] = append(a.got["started:/slow"], ev.EventID)
		a.mu.Unlock()
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
		a.mu.Lock()
		if r.Context().Err() != nil {
			return
		}
	}
	if r.URL.Path == "/flaky" && !a.tried[ev.EventID] {
		a.tried[ev.EventID] = true
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	a.got[r.URL.Path] = append(a.got[r.URL.Path], ev.EventID)
	w.WriteHeader(http.StatusOK)
}

// setupListen starts the app, picks the hook profile's receiver address and registers it with
// the emulator (as the profile's first run would; the emulator retries a delivery the receiver
// is not up for yet).
func setupListen(env *testscript.Env, base string) (string, error) {
	app := &testApp{got: map[string][]string{}, tried: map[string]bool{}}
	as := httptest.NewServer(app)
	env.Defer(as.Close)
	env.Values["app"] = app
	env.Setenv("APP", as.URL)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c, err := api.NewClient(base, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		return "", err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = sandbox.NewControl(c).RegisterWebhookSecret(ctx, "http://"+addr+api.WebhookPath, "", api.Secret(scriptHookSecret))
	return addr, err
}

// cmdAppGot waits (up to 30 s) until the app took N correctly signed deliveries on PATH, and
// fails on any badly signed one: appgot PATH N.
func cmdAppGot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: appgot PATH N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("appgot: %q is not a number", args[1])
	}
	app, _ := ts.Value("app").(*testApp)
	if app == nil {
		ts.Fatalf("appgot: no app (the script's name must hold \"listen\")")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		app.mu.Lock()
		got, bad := len(app.got[args[0]]), app.bad
		app.mu.Unlock()
		if bad > 0 {
			ts.Fatalf("the app refused %d badly signed deliveries", bad)
		}
		if got >= n {
			ts.Logf("the app took %d deliveries on %s", got, args[0])
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the app took %d deliveries on %s, want %d", got, args[0], n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cmdFaults sets the emulator's faults: faults JSON.
func cmdFaults(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: faults JSON")
	}
	var f sandbox.Faults
	if err := json.Unmarshal([]byte(args[0]), &f); err != nil {
		ts.Fatalf("faults: %v", err)
	}
	c, err := api.NewClient(ts.Getenv("SANDBOX"), sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		ts.Fatalf("faults: %v", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The faults may drop this very reply: the setting took effect all the same.
	_ = sandbox.NewControl(c).SetFaults(ctx, f)
}
