package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/api/apitest"
	"pixdash/api/sandbox"
	"pixdash/config"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui"
)

const knownClientSecret = "cs-known-secret-7f3a9b"

// tokenTap records every access token the emulator hands out.
type tokenTap struct {
	mu     sync.Mutex
	tokens []string
	next   http.Handler
}

func (t *tokenTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/auth") {
		t.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	t.next.ServeHTTP(rec, r)
	var body struct {
		AccessToken string `json:"access_token"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &body) == nil && body.AccessToken != "" {
		t.mu.Lock()
		t.tokens = append(t.tokens, body.AccessToken)
		t.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (t *tokenTap) all() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.tokens...)
}

// secretFixture is the default fixture with the demo credential's secret replaced by a known one.
func secretFixture(t *testing.T) *sandbox.Fixture {
	t.Helper()
	fx := sandbox.DefaultFixture()
	for i := range fx.Accounts {
		for j := range fx.Accounts[i].Credentials {
			if fx.Accounts[i].Credentials[j].ClientID == sandbox.DemoClientID {
				fx.Accounts[i].Credentials[j].ClientSecret = knownClientSecret
			}
		}
	}
	return fx
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestSecretsNeverLeak(t *testing.T) {
	srv := sandbox.New(secretFixture(t), sandbox.WithWebhookScale(0.01))
	t.Cleanup(srv.Close)
	tap := &tokenTap{next: srv}
	hs := httptest.NewServer(tap)
	t.Cleanup(hs.Close)
	base := hs.URL + "/v2"

	// Register the receiver's address with the emulator to learn the endpoint's signing secret.
	listen := freePort(t)
	ctlClient, err := api.NewClient(base, sandbox.DemoClientID, knownClientSecret)
	if err != nil {
		t.Fatal(err)
	}
	ctl := sandbox.NewControl(ctlClient)
	_, whSecret, err := ctl.RegisterWebhook(context.Background(), "http://"+listen+api.WebhookPath, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PIXDASH_TEST_WEBHOOK_SECRET", whSecret.Reveal())

	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	cfgText := `default_profile = "shop"
[profiles.shop]
base_url = "` + base + `"
client_id = "` + sandbox.DemoClientID + `"
client_secret = "` + knownClientSecret + `"
[profiles.shop.webhook]
listen = "` + listen + `"
secret_env = "PIXDASH_TEST_WEBHOOK_SECRET"
`
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Profile("")
	if err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, "state")
	logger, closeLog, logPath, err := openDebugLog(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	sess, err := openProfile(context.Background(), p, stateDir, logger)
	if err != nil {
		t.Fatal(err)
	}
	m := ui.New(ui.Options{Session: sess, Logger: logger, Bell: func() {}, Clipboard: func(string) {}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	var screen bytes.Buffer
	wait := screenWaiter(t, tm, &screen)
	tm.Type("n")
	wait("New charge")
	tm.Type("12,34")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	wait("Pague com PIX")
	tm.Type("$")
	wait("PAGO")
	// The webhook arrives signed with the known secret and is applied.
	deadline := time.Now().Add(10 * time.Second)
	for eventTotal(t, sess.Store) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if eventTotal(t, sess.Store) == 0 {
		t.Fatal("no webhook event was applied")
	}
	// An error a merchant can hit, through the same client: a lookup that fails.
	_, lookupErr := sess.Client.GetTransaction(context.Background(), "no-such-charge")
	if lookupErr == nil {
		t.Fatal("lookup of an unknown id succeeded")
	}
	_ = tm.Quit()
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	rest, _ := io.ReadAll(tm.FinalOutput(t))
	screen.Write(rest)
	m.Close()

	// config check output and a failing sign-in's error.
	var out, errOut bytes.Buffer
	checkConfig(cfgPath, &out, &errOut)
	badCfg := strings.Replace(cfgText, knownClientSecret, "cs-wrong-secret-000000", 1)
	badPath := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(badPath, []byte(badCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	checkConfig(badPath, &out, &errOut)

	tokens := tap.all()
	if len(tokens) == 0 {
		t.Fatal("no token was issued; the flow did not authenticate")
	}
	secrets := append([]string{knownClientSecret, whSecret.Reveal(), "cs-wrong-secret-000000"}, tokens...)
	places := map[string]string{
		"screen":             screen.String(),
		"config check":       out.String() + errOut.String(),
		"lookup error":       lookupErr.Error(),
		"session %+v":        strings.Join([]string{sprint(sess), sprint(p), sprint(sess.Client)}, " "),
		"debug log":          readFile(t, logPath),
		"state files joined": readDir(t, filepath.Join(stateDir)),
	}
	for where, text := range places {
		if text == "" && where != "lookup error" {
			t.Fatalf("%s is empty: the test would prove nothing", where)
		}
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("a secret (%d chars, starts %q) appears in the %s", len(s), s[:4], where)
			}
		}
	}
	if !strings.Contains(readFile(t, logPath), "status") && !strings.Contains(readFile(t, logPath), "profile opened") {
		t.Fatal("the debug log recorded nothing")
	}
}

func sprint(v any) string {
	var b bytes.Buffer
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		fmt.Fprintf(&b, f, v)
	}
	return b.String()
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readDir concatenates every file under dir (state journals, snapshots, lock and log files).
func readDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOpenProfileReceiverSettings: a profile's signature_header and tolerance reach its
// receiver, and its default_description the session.
func TestOpenProfileReceiverSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", "cs-receiver-test")
	t.Setenv("PIXDASH_TEST_WEBHOOK_SECRET", "whsec-receiver-test")
	cfgText := `[profiles.loja]
base_url = "http://127.0.0.1:9/v2"
client_id = "mp_test_receiver"
client_secret_env = "PIXDASH_TEST_CLIENT_SECRET"
default_description = "Venda no balcão"
print_command = ["lp", "-d", "recibos"]
[profiles.loja.webhook]
listen = "127.0.0.1:0"
secret_env = "PIXDASH_TEST_WEBHOOK_SECRET"
signature_header = "X-Loja-Assinatura"
tolerance = "90s"
`
	cfg, err := config.Parse(filepath.Join(dir, "config.toml"), []byte(cfgText), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Profile("")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := openProfile(context.Background(), p, filepath.Join(dir, "state"), slogDiscard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.Close)
	if strings.Join(sess.PrintCommand, " ") != "lp -d recibos" {
		t.Errorf("session print command %q", sess.PrintCommand)
	}
	if sess.DefaultDescription != "Venda no balcão" || sess.WebhookTolerance != 90*time.Second || sess.WebhookURL == "" {
		t.Fatalf("session: description %q, tolerance %s, url %q", sess.DefaultDescription, sess.WebhookTolerance, sess.WebhookURL)
	}
	post := func(id, header, sig string, at time.Time) int {
		t.Helper()
		body := []byte(`{"event":"payment_completed","eventId":"` + id + `","timestamp":"2026-11-23T14:31:06.280Z","data":{"id":"tx-1","status":"completed","amount":12.34}}`)
		if sig == "" {
			sig = api.Sign(body, "whsec-receiver-test")
		}
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, sess.WebhookURL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(header, sig)
		if !at.IsZero() {
			req.Header.Set(api.TimestampHeader, fmt.Sprint(at.UnixMilli()))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The configured header is read (with or without the sha256= prefix) ...
	if code := post("evt-1", "X-Loja-Assinatura", "", time.Now()); code != http.StatusOK {
		t.Fatalf("signature in the configured header: %d", code)
	}
	body := `{"event":"payment_completed","eventId":"evt-2","timestamp":"2026-11-23T14:31:06.280Z","data":{"id":"tx-1","status":"completed","amount":12.34}}`
	bare := strings.TrimPrefix(api.Sign([]byte(body), "whsec-receiver-test"), "sha256=")
	if code := post("evt-2", "X-Loja-Assinatura", bare, time.Now()); code != http.StatusOK {
		t.Fatalf("bare signature in the configured header: %d", code)
	}
	// ... and the service's own still are.
	if code := post("evt-3", api.PagueSignatureHeader, "", time.Now()); code != http.StatusOK {
		t.Fatalf("signature in %s: %d", api.PagueSignatureHeader, code)
	}
	// 90 s, not the default 300 s: two minutes old is stale.
	if code := post("evt-4", "X-Loja-Assinatura", "", time.Now().Add(-2*time.Minute)); code != http.StatusBadRequest {
		t.Fatalf("delivery 2 minutes old: %d, want 400", code)
	}
	if st := sess.ReceiverStats(); st.Stale != 1 || st.Accepted != 3 {
		t.Fatalf("receiver stats = %+v", st)
	}
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// takeOverProfile is a profile on the emulator at base whose receiver listens on listen.
func takeOverProfile(t *testing.T, dir, base, listen string, extra ...string) *config.Profile {
	t.Helper()
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", knownClientSecret)
	t.Setenv("PIXDASH_TEST_WEBHOOK_SECRET", "whsec-takeover-test")
	cfgText := `[profiles.loja]
base_url = "` + base + `"
client_id = "` + sandbox.DemoClientID + `"
client_secret_env = "PIXDASH_TEST_CLIENT_SECRET"
[profiles.loja.webhook]
listen = "` + listen + `"
secret_env = "PIXDASH_TEST_WEBHOOK_SECRET"
` + strings.Join(extra, "\n") + "\n"
	cfg, err := config.Parse(filepath.Join(dir, "config.toml"), []byte(cfgText), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Profile("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// deliver posts a signed payment event to url with client and returns the status code.
// noKeepAlive sends each delivery on its own connection: a kept-alive one to a receiver that
// closed (a take-over) would be dead, and a POST is not retried on a stale connection.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func deliver(t *testing.T, client *http.Client, url, eventID string) int {
	t.Helper()
	body := []byte(`{"event":"payment_completed","eventId":"` + eventID + `","timestamp":"` + time.Now().UTC().Format(time.RFC3339) + `","data":{"id":"tx-takeover","status":"completed","amount":12.34}}`)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(api.PagueSignatureHeader, api.Sign(body, "whsec-takeover-test"))
	req.Header.Set(api.TimestampHeader, fmt.Sprint(time.Now().UnixMilli()))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("delivery to %s: %v", url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// openTwice opens profile p in two sessions over one state directory, as two windows do; the
// caller closes them (the first usually mid-test).
func openTwice(t *testing.T, p *config.Profile, stateDir string) (first, second *workflow.Session) {
	t.Helper()
	first, err := openProfile(context.Background(), p, stateDir, slogDiscard())
	if err != nil {
		t.Fatal(err)
	}
	second, err = openProfile(context.Background(), p, stateDir, slogDiscard())
	if err != nil {
		first.Close()
		t.Fatal(err)
	}
	return first, second
}

// TestReceiverTakeOver: a second session on a profile does not receive while the first does;
// once the first closes (port and receiver lock released before Close returns), TakeOver starts
// the receiver on the same address and deliveries land in its store.
func TestReceiverTakeOver(t *testing.T) {
	dir := t.TempDir()
	listen := freePort(t)
	p := takeOverProfile(t, dir, "http://127.0.0.1:9/v2", listen)
	stateDir := filepath.Join(dir, "state")
	first, second := openTwice(t, p, stateDir)
	t.Cleanup(second.Close)
	if first.WebhookURL != "http://"+listen+api.WebhookPath || first.TakeOver != nil {
		t.Fatalf("first session: url %q, TakeOver set %v", first.WebhookURL, first.TakeOver != nil)
	}
	if !second.ReceiverElsewhere || second.TakeOver == nil || second.Intake != nil || second.WebhookURL != "" {
		t.Fatalf("second session: elsewhere %v, TakeOver set %v, intake %v, url %q", second.ReceiverElsewhere, second.TakeOver != nil, second.Intake, second.WebhookURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := second.TakeOver(ctx); !errors.Is(err, state.ErrReceiverBusy) || r != nil {
		t.Fatalf("TakeOver while the first receives: %v, %v; want ErrReceiverBusy", r, err)
	}
	if code := deliver(t, noKeepAlive, first.WebhookURL, "evt-first"); code != http.StatusOK {
		t.Fatalf("delivery to the first session: %d", code)
	}

	first.Close()
	// Released by the time Close returns: the address can be bound and the receiver locked again.
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("the port is still held after Close: %v", err)
	}
	ln.Close()

	start := time.Now()
	r, err := second.TakeOver(ctx)
	if err != nil {
		t.Fatalf("TakeOver after the first closed: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("TakeOver took %s", d)
	}
	if r.URL != "http://"+listen+api.WebhookPath || r.Intake == nil || r.Stats == nil {
		t.Fatalf("receiving = %+v", r)
	}
	if code := deliver(t, noKeepAlive, r.URL, "evt-second"); code != http.StatusOK {
		t.Fatalf("delivery after the take-over: %d", code)
	}
	if st := r.Stats(); st.Accepted != 1 {
		t.Errorf("receiver stats after one delivery: %+v", st)
	}
	// A 200 means committed: both deliveries are in the profile's database, which the second
	// session reads (the first one's through the shared file).
	for _, id := range []string{"evt-first", "evt-second"} {
		if _, ok, err := second.Store.Event(ctx, id); err != nil || !ok {
			t.Errorf("%s answered 200 but is not in the store (found %v, %v)", id, ok, err)
		}
	}
	// A second try does not start a second receiver.
	if _, err := second.TakeOver(ctx); err == nil {
		t.Errorf("TakeOver while already receiving succeeded")
	}
}

// emulatorURL serves the emulator with secretFixture for the test and returns its base URL.
func emulatorURL(t *testing.T) string {
	t.Helper()
	srv := sandbox.New(secretFixture(t))
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL + "/v2"
}

// TestDashboardTakesReceiverOver: two dashboards on one profile; when the receiving one closes,
// the other takes the receiver over within seconds (its Events view says where it receives),
// and a signed delivery to the profile's address is answered 200 and reaches its store.
func TestDashboardTakesReceiverOver(t *testing.T) {
	base := emulatorURL(t)
	dir := t.TempDir()
	listen := freePort(t)
	p := takeOverProfile(t, dir, base, listen)
	stateDir := filepath.Join(dir, "state")
	first, second := openTwice(t, p, stateDir)
	m := ui.New(ui.Options{Session: second, Bell: func() {}, Clipboard: func(string) {}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	var screen bytes.Buffer
	wait := func(d time.Duration, texts ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			screen.Write(b)
			for _, s := range texts {
				if !bytes.Contains(screen.Bytes(), []byte(s)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(d), teatest.WithCheckInterval(20*time.Millisecond))
	}
	tm.Type("5")
	wait(5*time.Second, "Another pixdash receives this profile's webhooks")
	time.Sleep(2500 * time.Millisecond) // at least one try finds the receiver busy
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { screen.Write(b); return true })
	if bytes.Contains(screen.Bytes(), []byte("Receiving at")) {
		t.Fatal("the second window took the receiver while the first still had it")
	}

	closed := time.Now()
	first.Close()
	screen.Reset()
	wait(8*time.Second, "Receiving at http://"+listen+api.WebhookPath, "This window now receives the profile's webhooks")
	t.Logf("taken over %s after the first window closed", time.Since(closed).Round(time.Millisecond))

	if code := deliver(t, noKeepAlive, "http://"+listen+api.WebhookPath, "evt-taken-over"); code != http.StatusOK {
		t.Fatalf("delivery after the take-over: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok, err := second.Store.Event(context.Background(), "evt-taken-over"); err != nil {
			t.Fatal(err)
		} else if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the delivery never reached the second window's store")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = tm.Quit()
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	m.Close()
	// The second window released the port on quitting, too.
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("the port is still held after the second window closed: %v", err)
	}
	ln.Close()
}

// TestWebhookExposureAndTLS: a receiver beyond loopback over plain HTTP is warned about by config
// check and in the dashboard's header; on loopback, or with tls_cert and tls_key, it is not, and
// with them the receiver serves HTTPS, where a signed delivery lands.
func TestWebhookExposureAndTLS(t *testing.T) {
	base := emulatorURL(t)
	dir := t.TempDir()
	cert, key, c := apitest.SelfSigned(t, dir)
	pool := x509.NewCertPool()
	pool.AddCert(c)
	tlsLines := []string{`tls_cert = "` + cert + `"`, `tls_key = "` + key + `"`}
	header := func(s *workflow.Session) string {
		m := ui.New(ui.Options{Session: s})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		line, _, _ := strings.Cut(m.View(), "\n")
		return line
	}
	for _, tt := range []struct {
		name, listen string
		tls, warn    bool
	}{
		{name: "all interfaces, plain", listen: "0.0.0.0:0", warn: true},
		{name: "loopback, plain", listen: "127.0.0.1:0"},
		{name: "all interfaces, TLS", listen: "0.0.0.0:0", tls: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			if tt.tls {
				extra = tlsLines
			}
			sub := t.TempDir()
			p := takeOverProfile(t, sub, base, tt.listen, extra...)
			s, err := openProfile(context.Background(), p, filepath.Join(sub, "state"), slogDiscard())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			h := header(s)
			if got := strings.Contains(h, "webhooks on "+tt.listen+" without TLS"); got != tt.warn {
				t.Errorf("header warns = %v, want %v: %q", got, tt.warn, h)
			}
			if tt.warn != (s.WebhookExposed != "") {
				t.Errorf("WebhookExposed = %q", s.WebhookExposed)
			}

			// config check says the same, as file:line: key: message.
			cfgPath := filepath.Join(sub, "config.toml")
			doc := "[profiles.loja]\nbase_url = \"" + base + "\"\nclient_id = \"" + sandbox.DemoClientID + "\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n[profiles.loja.webhook]\nlisten = \"" + tt.listen + "\"\nsecret_env = \"PIXDASH_TEST_WEBHOOK_SECRET\"\n" + strings.Join(extra, "\n") + "\n"
			if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			if code := checkConfig(cfgPath, &out, &errOut); code != 0 {
				t.Fatalf("config check exit %d:\n%s%s", code, out.String(), errOut.String())
			}
			wantLine := "warning: " + cfgPath + ":6: profiles.loja.webhook.listen: \"" + tt.listen + "\" is not a loopback address and the receiver has no TLS"
			if got := strings.Contains(out.String(), wantLine); got != tt.warn {
				t.Errorf("config check warns = %v, want %v:\n%s", got, tt.warn, out.String())
			}

			scheme := "http"
			if tt.tls {
				scheme = "https"
			}
			if !strings.HasPrefix(s.WebhookURL, scheme+"://") {
				t.Fatalf("webhook URL %q, want %s", s.WebhookURL, scheme)
			}
			_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(s.WebhookURL, scheme+"://"), api.WebhookPath))
			client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
			if code := deliver(t, client, scheme+"://127.0.0.1:"+port+api.WebhookPath, "evt-"+scheme); code != http.StatusOK {
				t.Fatalf("signed delivery over %s: %d", scheme, code)
			}
			if st := s.ReceiverStats(); st.Accepted != 1 {
				t.Errorf("receiver stats: %+v", st)
			}
		})
	}
}

// eventTotal is how many distinct webhook events the store holds.
func eventTotal(t *testing.T, s *state.Store) int {
	t.Helper()
	page, err := s.EventWindow(context.Background(), state.EventQuery{}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	return page.Total
}

// pixdash events prune removes a profile's events received before a day and keeps the rest;
// a bad day or a missing subcommand is a usage error that touches nothing.
func TestEventsPrune(t *testing.T) {
	cfg, stateDir := isolatedDirs(t)
	body := "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	day := func(s string) time.Time {
		d, err := time.ParseInLocation("2006-01-02", s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, e := range []struct{ id, at string }{{"old", "2025-01-10"}, {"new", "2025-03-01"}} {
		at := day(e.at).Add(12 * time.Hour)
		s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja", state.WithClock(func() time.Time { return at }))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := api.DecodeEvent([]byte(`{"event":"refund_completed","eventId":"` + e.id + `","data":{"id":"r"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
	}
	for _, bad := range [][]string{{"events"}, {"events", "prune"}, {"events", "prune", "--before", "10/01/2025"}} {
		var out, errb strings.Builder
		if code := run(bad, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, errb.String())
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"events", "prune", "--before", "2025-02-01", "--profile", "loja", "--yes"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "Removed 1 events received before 2025-02-01 from profile loja") {
		t.Errorf("output %q", out.String())
	}
	s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string]bool{"old": false, "new": true} {
		if _, ok, err := s.Event(ctx, id); ok != want || err != nil {
			t.Errorf("event %s kept = %t, want %t (%v)", id, ok, want, err)
		}
	}
}

// noConfig points every config and state path at empty directories: no config file exists.
func noConfig(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("PIXDASH_CONFIG", "")
	t.Setenv("PIXDASH_PROFILE", "")
}

// The command line: help for every command exits 0, a mistake exits 2 with a message, and
// none of these start the dashboard.
func TestCommandLine(t *testing.T) {
	noConfig(t)
	withConfig := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(withConfig, []byte("[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		// out and errOut must contain each of these.
		out, errOut []string
	}{
		{args: []string{"--help"}, out: []string{"demo mode", "--profile", "--config", "--demo", "--lang", "--debug", "sandbox", "config", "events", "version"}},
		{args: []string{"-h"}, out: []string{"--debug"}},
		{args: []string{"help"}, out: []string{"--debug"}},
		{args: []string{"config", "--help"}, out: []string{"init", "check"}},
		{args: []string{"config", "init", "--help"}, out: []string{"--config"}},
		{args: []string{"config", "check", "--help"}, out: []string{"--config"}},
		{args: []string{"sandbox", "--help"}, out: []string{"--addr", "--fixture", "--print-fixture", "--state FILE", "--log FILE", "status429Burst", "redeliveryStorm", "webhook_endpoints"}},
		{args: []string{"events", "--help"}, out: []string{"prune"}},
		{args: []string{"events", "prune", "--help"}, out: []string{"--before", "--profile", "--config"}},
		{args: []string{"help", "config"}, out: []string{"init", "check"}},
		{args: []string{"version"}, out: []string{"pixdash " + api.Version}},
		{args: []string{"--version"}, out: []string{"pixdash " + api.Version}},
		{args: []string{"sandbox", "--print-fixture"}, out: []string{"[[accounts]]"}},

		{args: []string{"sandbox", "extra"}, code: 2, errOut: []string{`unexpected argument "extra"`, "pixdash sandbox --help"}},
		{args: []string{"version", "extra"}, code: 2, errOut: []string{`"extra"`}},
		{args: []string{"config", "init", "extra"}, code: 2, errOut: []string{`"extra"`}},
		{args: []string{"nope"}, code: 2, errOut: []string{`unknown command "nope"`}},
		{args: []string{"config"}, code: 2, errOut: []string{"init or check"}},
		{args: []string{"config", "nope"}, code: 2, errOut: []string{`unknown command "nope"`}},
		{args: []string{"--nope"}, code: 2, errOut: []string{"unknown flag: --nope"}},
		{args: []string{"sandbox", "--nope"}, code: 2, errOut: []string{"unknown flag: --nope"}},
		{args: []string{"--profile", "nope"}, code: 2, errOut: []string{"--profile nope", "no config file", "pixdash config init"}},
		{args: []string{"--profile", "nope", "--config", withConfig}, code: 2, errOut: []string{`no profile "nope"`, "available: loja"}},
		{args: []string{"--demo", "--profile", "loja"}, code: 2, errOut: []string{"--demo and --profile"}},
		{args: []string{"--lang", "fr"}, code: 2, errOut: []string{`--lang "fr"`}},
		{args: []string{"--config", filepath.Join(t.TempDir(), "missing.toml")}, code: 1, errOut: []string{"missing.toml"}},
		{args: []string{"config", "check"}, code: 1, errOut: []string{"config.toml"}},

		{args: []string{"close", "--help"}, out: []string{"fechamento de caixa", "--date", "--width", "--lang", "--csv", "--format", "--print", "--offline", "--profile", "--config", "--debug"}},
		{args: []string{"close", "--width", "20"}, code: 2, errOut: []string{"--width 20", "80 for a terminal or 48 for a receipt printer", "pixdash close --help"}},
		{args: []string{"close", "--date", "2026-13-01"}, code: 2, errOut: []string{"--date must be a day like"}},
		{args: []string{"close", "--lang", "fr"}, code: 2, errOut: []string{`--lang "fr"`}},
		{args: []string{"close", "--format", "br"}, code: 2, errOut: []string{"--format is the dialect of --csv"}},
		{args: []string{"close", "--csv", "x.csv", "--format", "xlsx"}, code: 2, errOut: []string{`--format must be "csv" or "br"`}},
		{args: []string{"close", "extra"}, code: 2, errOut: []string{`unexpected argument "extra"`}},
		{args: []string{"close", "--profile", "nope", "--config", withConfig}, code: 2, errOut: []string{`no profile "nope"`}},
		{args: []string{"close"}, code: 1, errOut: []string{"config.toml"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(tc.args, &out, &errOut)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errOut.String())
			}
			for _, w := range tc.out {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.errOut {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			if tc.code == 0 && errOut.Len() > 0 {
				t.Errorf("stderr on success: %s", errOut.String())
			}
		})
	}
}

// TestArchitecture: the packages import one way (main → ui → state → api, main → config,
// api/sandbox → api); ui does not reach the emulator, state and its workflows know nothing of
// a terminal, and api knows nothing of the dashboard; ui makes no *api.Client call. Only
// non-test files count: tests may drive the emulator.
func TestArchitecture(t *testing.T) {
	imports, err := packageImports(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"pixdash", "pixdash/ui", "pixdash/ui/common", "pixdash/ui/charges", "pixdash/ui/qr", "pixdash/state", "pixdash/state/workflow", "pixdash/state/report", "pixdash/api", "pixdash/api/sandbox", "pixdash/config"} {
		if _, ok := imports[pkg]; !ok {
			t.Fatalf("package %s not found: the test would check nothing (found %v)", pkg, slices.Collect(maps.Keys(imports)))
		}
	}
	for _, v := range architectureViolations(imports) {
		t.Error(v)
	}
	// The rules catch what they forbid.
	bad := map[string][]string{
		"pixdash/ui":             {"pixdash/api/sandbox"},
		"pixdash/state/workflow": {"github.com/charmbracelet/bubbletea", "pixdash/api/sandbox", "pixdash/ui"},
		"pixdash/state":          {"github.com/charmbracelet/lipgloss"},
		"pixdash/api":            {"pixdash/state"},
		"pixdash/api/sandbox":    {"pixdash/ui"},
		"pixdash/ui/common":      {"pixdash/ui/charges", "pixdash/ui/common/x"},
		"pixdash/ui/charges":     {"pixdash/ui/refund", "pixdash/ui", "pixdash/ui/common", "pixdash/ui/charges/cells"},
	}
	if got := architectureViolations(bad); len(got) != 10 {
		t.Errorf("%d violations found in a tree with 10:\n%s", len(got), strings.Join(got, "\n"))
	}
	// ui reaches the service only through state/workflow: no *api.Client, no sess.Client.
	checkUIClientUses(t, ".")
}

// architectureRules say which imports a package (and the packages under it) may not use.
var architectureRules = []struct {
	pkg       string
	forbidden []string
}{
	{"pixdash/ui", []string{"pixdash/api/sandbox", "pixdash/config"}},
	{"pixdash/state", []string{"github.com/charmbracelet/", "pixdash/api/sandbox", "pixdash/ui", "pixdash/config"}},
	{"pixdash/api", []string{"pixdash/state", "pixdash/ui", "pixdash/config", "github.com/charmbracelet/"}},
	{"pixdash/config", []string{"pixdash/state", "pixdash/ui", "github.com/charmbracelet/"}},
}

// architectureViolations lists the imports the rules forbid, as "pkg imports path".
func architectureViolations(imports map[string][]string) []string {
	var out []string
	for pkg, paths := range imports {
		for _, r := range architectureRules {
			if pkg != r.pkg && !strings.HasPrefix(pkg, r.pkg+"/") {
				continue
			}
			for _, path := range paths {
				for _, f := range r.forbidden {
					// "a/b" forbids a/b and the packages under it; "a/" everything under a.
					if path == f || strings.HasPrefix(path, strings.TrimSuffix(f, "/")+"/") {
						out = append(out, pkg+" imports "+path)
					}
				}
			}
		}
	}
	out = append(out, uiLayerViolations(imports)...)
	slices.Sort(out)
	return out
}

// uiLayerViolations lists the imports that break the dashboard's layers: the foundation
// (ui/common) imports no other ui package, and a view or overlay (ui/<name>) imports no other
// view, nor the root: only the foundation and its own packages.
func uiLayerViolations(imports map[string][]string) []string {
	const root, foundation = "pixdash/ui", "pixdash/ui/common"
	within := func(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }
	var out []string
	for pkg, paths := range imports {
		if !strings.HasPrefix(pkg, root+"/") {
			continue
		}
		view, _, _ := strings.Cut(strings.TrimPrefix(pkg, root+"/"), "/")
		own := root + "/" + view
		for _, path := range paths {
			if !within(path, root) || within(path, own) {
				continue
			}
			if view == "common" || !within(path, foundation) {
				out = append(out, pkg+" imports "+path)
			}
		}
	}
	return out
}

// packageImports reads the imports of every package's non-test Go files under root, keyed by
// import path (module pixdash).
func packageImports(root string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "screenshots") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := "pixdash"
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	return out, err
}

// pixdash export writes a profile's charges of a period, one wallet or all, in either dialect,
// to a file (atomically, mode 0600) or stdout; mistakes on the command line exit 2.
func TestExportCommand(t *testing.T) {
	cfg, stateDir := isolatedDirs(t)
	body := "[profiles.loja]\nbase_url = \"http://127.0.0.1:1/v2\"\nclient_id = \"mp_test_x\"\nclient_secret_env = \"PIXDASH_TEST_CLIENT_SECRET\"\npix_fee = \"0.99\"\nexport_format = \"csv\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
	if err != nil {
		t.Fatal(err)
	}
	noon := func(d string) time.Time {
		t, _ := time.ParseInLocation("2006-01-02 15:04", d+" 12:00", time.Local)
		return t
	}
	for _, c := range []state.Charge{
		{ID: "before", Wallet: "principal", Amount: 100, Status: api.StatusPending, CreatedAt: noon("2025-01-09")},
		{ID: "first", Wallet: "principal", Amount: 12345, Status: api.StatusCompleted, Description: "=1+1", CreatedAt: noon("2025-01-10")},
		{ID: "sul", Wallet: "loja-sul", Amount: 500, Status: api.StatusPending, CreatedAt: noon("2025-01-11")},
		{ID: "last", Wallet: "principal", Amount: 1, Status: api.StatusPending, CreatedAt: noon("2025-01-12").Add(11 * time.Hour)},
		{ID: "after", Wallet: "principal", Amount: 1, Status: api.StatusPending, CreatedAt: noon("2025-01-13")},
	} {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Close()

	for _, bad := range [][]string{
		{"export"},
		{"export", "--from", "2025-01-10"},
		{"export", "--from", "10/01/2025", "--to", "2025-01-12"},
		{"export", "--from", "2025-01-12", "--to", "2025-01-10"},
		{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--format", "xlsx"},
		{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--wallet", "x", "--all-wallets"},
		{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--wallet", "Not A Wallet"},
		{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--profile", "nope"},
		{"export", "--from", "2025-01-10", "--to", "2025-01-12", "extra"},
	} {
		var out, errb strings.Builder
		if code := run(bad, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, errb.String())
		}
	}

	// stdout, the profile's wallet (principal), CSV
	var out, errb strings.Builder
	if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-12"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	recs, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[1][0] != "last" || recs[2][0] != "first" {
		t.Fatalf("records %q", recs)
	}
	if first := strings.Join(recs[2], ","); !strings.Contains(first, ",123.45,0.99,yes,122.46,") || !strings.Contains(first, ",'=1+1,") {
		t.Errorf("first: %s", first)
	}
	if !strings.Contains(errb.String(), "Exported 2 charges of profile loja (wallet principal)") {
		t.Errorf("stderr %q", errb.String())
	}

	// a file, all wallets, BR
	file := filepath.Join(t.TempDir(), "jan.csv")
	out.Reset()
	errb.Reset()
	if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--all-wallets", "--format", "br", "--output", file, "--profile", "loja"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if !strings.HasPrefix(string(data), "\uFEFFid;criada_em;") || !strings.Contains(string(data), "\r\nsul;11/01/2025 12:00;") || !strings.Contains(string(data), ";123,45;0,99;sim;122,46;") {
		t.Errorf("file:\n%s", data)
	}
	if n := strings.Count(string(data), "\r\n"); n != 4 {
		t.Errorf("%d records, want a header and 3", n)
	}

	// a directory that does not exist: a failure (1), nothing left behind
	if code := run([]string{"export", "--from", "2025-01-10", "--to", "2025-01-12", "--output", filepath.Join(t.TempDir(), "no", "such.csv")}, &out, &errb); code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
}

// TestCloseCommand: pixdash close prints the day's close from the profile's database with the
// balances the service reports, writes it as a spreadsheet and sends it to print_command.
func TestCloseCommand(t *testing.T) {
	cfg, stateDir := isolatedDirs(t)
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", knownClientSecret)
	printed := filepath.Join(t.TempDir(), "printed.txt")
	body := fmt.Sprintf(`language = "pt-BR"
default_profile = "loja"

[profiles.loja]
base_url = %q
client_id = %q
client_secret_env = "PIXDASH_TEST_CLIENT_SECRET"
pix_fee = "0.99"
print_command = ["sh", "-c", "cat > \"$1\"", "sh", %q]

[profiles.bare]
base_url = "http://127.0.0.1:1/v2"
client_id = "mp_test_x"
client_secret_env = "PIXDASH_TEST_UNSET_SECRET"
`, emulatorURL(t), sandbox.DemoClientID, printed)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	paidAt := now.Add(-time.Minute)
	if now.Hour() == 0 && now.Minute() < 2 {
		paidAt = now
	}
	for _, c := range []state.Charge{
		{ID: "paid", Wallet: "principal", Amount: 12345, Status: api.StatusCompleted, CreatedAt: paidAt, PaidAt: &paidAt},
		{ID: "sul", Wallet: "loja-sul", Amount: 500, Status: api.StatusPending, CreatedAt: paidAt},
	} {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Close()

	// Offline, on a receipt printer's width, in the config's language.
	var out, errb strings.Builder
	if code := run([]string{"close", "--offline", "--width", "48"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"FECHAMENTO DE CAIXA", "Perfil: loja", "Dia: " + now.Format("02/01/2006"), "PARCIAL",
		"Carteira: principal", "Carteira: loja-sul", "R$ 123,45", "Tarifas (estimativa)", "não lido"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if ansi.StringWidth(line) > 48 {
			t.Errorf("line wider than 48: %q", line)
		}
	}

	// With the service: balances, a spreadsheet and the printer.
	file := filepath.Join(t.TempDir(), "close.csv")
	out.Reset()
	errb.Reset()
	if code := run([]string{"close", "--lang", "en", "--csv", file, "--format", "br", "--print"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text = out.String()
	if testing.Verbose() {
		t.Logf("report with the service:\n%s", text)
	}
	if !strings.Contains(text, "DAY CLOSE") || !strings.Contains(text, "Available") {
		t.Errorf("report:\n%s", text)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if !strings.HasPrefix(string(data), "\uFEFFdata;carteira;") || !strings.Contains(string(data), ";principal;1;1;123,45;0,99;1;122,46;") || !strings.Contains(string(data), "\r\n"+now.Format("02/01/2006")+";TOTAL;") {
		t.Errorf("csv:\n%s", data)
	}
	got, err := os.ReadFile(printed)
	if err != nil {
		t.Fatal(err)
	}
	// The printer gets the 48-column receipt, as from the dashboard, not the 80-column screen.
	if !strings.Contains(string(got), "DAY CLOSE") || !strings.Contains(string(got), "Available") {
		t.Errorf("printed:\n%s", got)
	}
	for _, line := range strings.Split(string(got), "\n") {
		if ansi.StringWidth(line) > 48 {
			t.Errorf("printed line wider than 48: %q", line)
		}
	}
	if !strings.Contains(text, strings.Repeat("=", 80)) {
		t.Errorf("the screen's report is not 80 columns:\n%s", text)
	}
	if !strings.Contains(errb.String(), "Wrote the close of") || !strings.Contains(errb.String(), "Sent the close to sh") {
		t.Errorf("stderr %q", errb.String())
	}

	// A past day is not partial and has none of today's figures.
	out.Reset()
	if code := run([]string{"close", "--offline", "--lang", "en", "--date", "2025-01-10"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if text := out.String(); strings.Contains(text, "PARTIAL") || !strings.Contains(text, "Day: 10/01/2025") || strings.Contains(text, "R$ 123.45") {
		t.Errorf("past day:\n%s", text)
	}

	// A day in the future has no close: a mistake on the command line, nothing printed.
	out.Reset()
	errb.Reset()
	future := now.AddDate(0, 0, 1).Format("2006-01-02")
	if code := run([]string{"close", "--offline", "--date", future}, &out, &errb); code != exitUsage || out.Len() != 0 || !strings.Contains(errb.String(), "--date "+future+" is in the future") {
		t.Errorf("future day: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"close", "--offline", "--date", now.Format("2006-01-02")}, &out, &errb); code != 0 || !strings.Contains(out.String(), "PARCIAL") {
		t.Errorf("today: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}

	// No credential: the report says why the balances were not read; no print_command: exit 1.
	out.Reset()
	errb.Reset()
	if code := run([]string{"close", "--profile", "bare", "--lang", "en"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "not read: no credential") {
		t.Errorf("report without a credential:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"close", "--profile", "bare", "--print", "--offline"}, &out, &errb); code != exitFailure || !strings.Contains(errb.String(), "no print_command") || out.Len() != 0 {
		t.Errorf("--print without print_command: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	// A directory that does not exist: a failure, nothing left behind.
	if code := run([]string{"close", "--offline", "--csv", filepath.Join(t.TempDir(), "no", "such.csv")}, &out, &errb); code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
}

func TestUTF8Locale(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, true},
		{map[string]string{"LANG": "pt_BR.UTF-8"}, true},
		{map[string]string{"LANG": "en_US.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "pt_BR.UTF-8"}, false},
		{map[string]string{"LC_CTYPE": "pt_BR.ISO-8859-1", "LANG": "pt_BR.UTF-8"}, false},
	} {
		if got := utf8Locale(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("utf8Locale(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestCloseCommandFeeEstimate: `pixdash close` estimates fees by the dashboard's rule
// (state.Store.FeeEstimate): without pix_fee, the fee learned from the service; with neither,
// the fees are unknown, never R$ 0,00.
func TestCloseCommandFeeEstimate(t *testing.T) {
	cfg, stateDir := isolatedDirs(t)
	body := `default_profile = "loja"

[profiles.loja]
base_url = "http://127.0.0.1:1/v2"
client_id = "mp_test_x"
client_secret_env = "PIXDASH_TEST_UNSET_SECRET"
`
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
	if err != nil {
		t.Fatal(err)
	}
	paidAt := time.Now()
	if _, err := s.UpsertCharge(ctx, state.Charge{ID: "paid", Wallet: "principal", Amount: 16350, Status: api.StatusCompleted, CreatedAt: paidAt, PaidAt: &paidAt}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	closeText := func() string {
		t.Helper()
		var out, errb strings.Builder
		if code := run([]string{"close", "--offline", "--lang", "en"}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	if text := closeText(); !strings.Contains(text, "1 of 1 with no fee reported and no estimate") || strings.Contains(text, "Fees (estimate)") {
		t.Errorf("no fee known:\n%s", text)
	}
	s, err = state.Open(ctx, filepath.Join(stateDir, "pixdash"), "loja")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LearnFee(ctx, state.LearnedFee{Fee: 99}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if text := closeText(); !strings.Contains(text, "1 of 1 at the estimated fee (R$ 0,99)") || !strings.Contains(text, "R$ 162,51") {
		t.Errorf("the learned fee is the dashboard's estimate:\n%s", text)
	}
}

// A profile on a local pixdash sandbox registers its receiver with the emulator, with the
// profile's own webhook secret, when it opens: a payment is delivered to it with no set-up by
// hand, and opening it again registers nothing twice.
func TestLoopbackSandboxProfileRegistersItsWebhook(t *testing.T) {
	srv := sandbox.New(secretFixture(t), sandbox.WithWebhookScale(0.01))
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	listen := freePort(t)
	dir := t.TempDir()
	p := takeOverProfile(t, dir, hs.URL+"/v2", listen) // its webhook secret is the profile's own
	stateDir := filepath.Join(dir, "state")
	for round := 0; round < 2; round++ {
		sess, err := openProfile(context.Background(), p, stateDir, slogDiscard())
		if err != nil {
			t.Fatal(err)
		}
		if sess.Notice != "" {
			t.Fatalf("notice: %q", sess.Notice)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		r := workflow.CreateCharge(ctx, sess.Client, sess.Store, workflow.Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
			Req: api.CreatePixRequest{Amount: 990, Description: "Sem curl"}}, nil)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		after, _ := sess.Store.LastEventSeq(ctx)
		if err := sess.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
			t.Fatal(err)
		}
		for got := false; !got; {
			b, ok := workflow.WaitEvents(ctx, sess.Store, after, 100)
			if !ok || b.Err != nil {
				t.Fatalf("round %d: the payment was not delivered to the profile's receiver: %+v", round, b)
			}
			after = b.Last
			for _, e := range b.Events {
				got = got || e.Kind == api.EventPaymentCompleted && e.TransactionID == r.Charge.ID
			}
		}
		cancel()
		sess.Close()
	}
	ctlClient, err := api.NewClient(hs.URL+"/v2", sandbox.DemoClientID, knownClientSecret)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := sandbox.NewControl(ctlClient).Deliveries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	endpoints := map[string]bool{}
	for _, d := range ds {
		endpoints[d.EndpointID] = true
	}
	if len(endpoints) != 1 {
		t.Fatalf("deliveries went to %d endpoints, want the one registered once: %+v", len(endpoints), ds)
	}
}

// isolatedDirs points XDG_CONFIG_HOME and XDG_STATE_HOME at fresh directories and clears
// PIXDASH_CONFIG and PIXDASH_PROFILE; it returns where the default config file goes (its
// directory made) and the state directory.
func isolatedDirs(t *testing.T) (cfg, stateDir string) {
	t.Helper()
	cfgDir, stateDir := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	t.Setenv("XDG_STATE_HOME", stateDir)
	t.Setenv("PIXDASH_CONFIG", "")
	t.Setenv("PIXDASH_PROFILE", "")
	cfg = filepath.Join(cfgDir, "pixdash", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	return cfg, stateDir
}
