package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// testFixtureTOML is the conformance suite's world.
const testFixtureTOML = `
[[accounts]]
name = "Loja Teste Ltda"
environment = "sandbox"
city = "Curitiba"
pix_fee = "0.99"
block_cnpj_payers = true
self_routing = true
sub_account_quota = 6

  [[accounts.credentials]]
  client_id = "mp_test_full"
  client_secret = "s-full"
  permissions = ["FULL_ACCESS"]
  sub_account_access = true

  [[accounts.credentials]]
  client_id = "mp_test_nosub"
  client_secret = "s-nosub"
  permissions = ["FULL_ACCESS"]

  [[accounts.credentials]]
  client_id = "mp_test_read"
  client_secret = "s-read"
  permissions = ["TRANSACTION:READ"]
  sub_account_access = true

  [[accounts.credentials]]
  client_id = "mp_test_none"
  client_secret = "s-none"
  permissions = ["WITHDRAWAL:WRITE"]
  sub_account_access = true

  [[accounts.credentials]]
  client_id = "mp_test_revoked"
  client_secret = "s-revoked"
  permissions = ["FULL_ACCESS"]
  revoked = true

  [[accounts.credentials]]
  client_id = "mp_test_farip"
  client_secret = "s-farip"
  permissions = ["FULL_ACCESS"]
  ip_allowlist = ["10.9.8.7", "192.168.0.0/16"]

  [[accounts.credentials]]
  client_id = "mp_test_localip"
  client_secret = "s-localip"
  permissions = ["FULL_ACCESS"]
  ip_allowlist = ["127.0.0.0/8", "::1"]

  [[accounts.sub_accounts]]
  reference = "loja-a"
  name = "Loja A"
  status = "active"

  [[accounts.sub_accounts]]
  reference = "loja-b"
  name = "Loja B"
  promotional = "10.00"

  [[accounts.sub_accounts]]
  reference = "loja_c"
  name = "Loja C"

  [[accounts.sub_accounts]]
  reference = "suspensa"
  name = "Suspensa"
  status = "suspended"

  [[accounts.projects]]
  name = "Beta"
  color = "#00FF00"
  description = "second"

  [[accounts.projects]]
  name = "alpha"
  color = "#FF0000"
  description = "first"

  [[accounts.projects]]
  name = "Gamma"

  [[accounts.psp_credentials]]
  id = "11111111-1111-4111-8111-111111111111"
  name = "OK"

  [[accounts.psp_credentials]]
  id = "22222222-2222-4222-8222-222222222222"
  name = "Disabled"
  enabled = false

  [[accounts.psp_credentials]]
  id = "33333333-3333-4333-8333-333333333333"
  name = "Inactive"
  active = false

  [[accounts.psp_credentials]]
  id = "44444444-4444-4444-8444-444444444444"
  name = "No capacity"
  out_capacity = false

  [[accounts.psp_credentials]]
  id = "55555555-5555-4555-8555-555555555555"
  name = "Down"
  down = true

[[accounts]]
name = "Conta Unica"
environment = "sandbox"
pix_fee = "0.50"
self_routing = false

  [[accounts.credentials]]
  client_id = "mp_test_single"
  client_secret = "s-single"
  permissions = ["FULL_ACCESS"]
  sub_account_access = true

  [[accounts.projects]]
  name = "Only"

  [[accounts.psp_credentials]]
  id = "66666666-6666-4666-8666-666666666666"
  name = "Some bank"

[[accounts]]
name = "Loja Teste Ltda"
environment = "production"
pix_fee = "0.99"

  [[accounts.credentials]]
  client_id = "mp_live_full"
  client_secret = "s-live"
  permissions = ["FULL_ACCESS"]
  sub_account_access = true

  [[accounts.sub_accounts]]
  reference = "loja-a"
  name = "Loja A (produção)"

  [[accounts.sub_accounts]]
  reference = "so-producao"
  name = "Só produção"
`

// Credentials of the test fixture.
var testSecrets = map[string]string{
	"mp_test_full": "s-full", "mp_test_nosub": "s-nosub", "mp_test_read": "s-read", "mp_test_none": "s-none",
	"mp_test_revoked": "s-revoked", "mp_test_farip": "s-farip", "mp_test_localip": "s-localip",
	"mp_test_single": "s-single", "mp_live_full": "s-live",
}

var testStart = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

type env struct {
	t     testing.TB
	srv   *Server
	hs    *httptest.Server
	clock *FakeClock
	base  string

	mu     sync.Mutex
	tokens map[string]cachedToken
}

type cachedToken struct {
	tok string
	at  time.Time
}

func testFixture(t testing.TB) *Fixture {
	t.Helper()
	fx, err := ParseFixture([]byte(testFixtureTOML))
	if err != nil {
		t.Fatalf("test fixture: %v", err)
	}
	return fx
}

// newEnv serves the test fixture on a loopback httptest server with a fake clock.
func newEnv(t testing.TB, opts ...Option) *env {
	t.Helper()
	return newEnvFixture(t, testFixture(t), opts...)
}

func newEnvFixture(t testing.TB, fx *Fixture, opts ...Option) *env {
	t.Helper()
	clock := NewFakeClock(testStart)
	all := append([]Option{WithClock(clock), WithRand(42), WithWebhookScale(0.001)}, opts...)
	srv := New(fx, all...)
	hs := httptest.NewServer(srv)
	e := &env{t: t, srv: srv, hs: hs, clock: clock, base: hs.URL + Prefix, tokens: map[string]cachedToken{}}
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return e
}

// resp is a raw HTTP reply.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("reply %d is not a JSON object: %v: %s", r.status, err, r.body)
	}
	return m
}

func (r resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("reply %d does not decode into %T: %v: %s", r.status, v, err, r.body)
	}
}

// raw sends one request; body may be nil, a string/[]byte (sent as is) or a value (JSON encoded).
func (e *env) raw(method, path string, body any, hdr map[string]string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		e.t.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := e.hs.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: b}
}

// token returns a fresh access token for clientID.
func (e *env) token(clientID string) string {
	e.t.Helper()
	r := e.raw(http.MethodPost, "/auth", map[string]string{"client_id": clientID, "client_secret": testSecrets[clientID]}, nil)
	if r.status != http.StatusOK {
		e.t.Fatalf("auth %s: %d %s", clientID, r.status, r.body)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(e.t, &tr)
	return tr.AccessToken
}

// as sends an authenticated request as clientID (token cached per credential).
func (e *env) as(clientID, method, path string, body any, hdr map[string]string) resp {
	e.t.Helper()
	now := e.clock.Now()
	e.mu.Lock()
	ct, ok := e.tokens[clientID]
	e.mu.Unlock()
	if !ok || now.Sub(ct.at) >= 4*time.Minute || now.Before(ct.at) {
		ct = cachedToken{tok: e.token(clientID), at: now}
		e.mu.Lock()
		e.tokens[clientID] = ct
		e.mu.Unlock()
	}
	h := map[string]string{"Authorization": "Bearer " + ct.tok}
	for k, v := range hdr {
		h[k] = v
	}
	return e.raw(method, path, body, h)
}

func (e *env) full(method, path string, body any, hdr map[string]string) resp {
	e.t.Helper()
	return e.as("mp_test_full", method, path, body, hdr)
}

// client returns an api.Client for clientID that shares the fake clock and retries without waiting.
func (e *env) client(clientID string, opts ...api.Option) *api.Client {
	e.t.Helper()
	all := append([]api.Option{
		api.WithClock(e.clock.Now),
		api.WithHTTPClient(e.hs.Client()),
		api.WithSleep(func(context.Context, time.Duration) error { return nil }),
	}, opts...)
	c, err := api.NewClient(e.base, clientID, api.Secret(testSecrets[clientID]), all...)
	if err != nil {
		e.t.Fatalf("client: %v", err)
	}
	return c
}

// createPix creates a charge through raw HTTP as mp_test_full and returns the 201 body.
func (e *env) createPix(body any, hdr map[string]string) api.PixCharge {
	e.t.Helper()
	r := e.full(http.MethodPost, "/pix", body, hdr)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /pix: %d %s", r.status, r.body)
	}
	var pc api.PixCharge
	r.decode(e.t, &pc)
	return pc
}

func (e *env) getTx(id string, hdr map[string]string) api.Transaction {
	e.t.Helper()
	r := e.full(http.MethodGet, "/transactions/"+id, nil, hdr)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET /transactions/%s: %d %s", id, r.status, r.body)
	}
	var tx api.Transaction
	r.decode(e.t, &tx)
	return tx
}

// wallets returns available balances by wallet label for clientID's account.
func (e *env) wallets(clientID string) map[string]Wallet {
	e.t.Helper()
	r := e.as(clientID, http.MethodGet, "/_sandbox/wallets", nil, nil)
	if r.status != http.StatusOK {
		e.t.Fatalf("wallets: %d %s", r.status, r.body)
	}
	var lb listBody[Wallet]
	r.decode(e.t, &lb)
	out := map[string]Wallet{}
	for _, w := range lb.Items {
		out[w.SubAccount] = w
	}
	return out
}

// charges counts the PIX charges the server holds.
func (e *env) charges() int {
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	n := 0
	for _, t := range e.srv.txs {
		if t.typ == api.TypePayment {
			n++
		}
	}
	return n
}

// expectError checks status, envelope fields, kind and (when not empty) the exact message.
func expectError(t testing.TB, r resp, status int, kind, msg string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	m := r.json(t)
	checkEnvelope(t, m, status)
	if m["error"] != kind {
		t.Errorf("error %q, want %q (%s)", m["error"], kind, r.body)
	}
	if msg != "" && m["message"] != msg {
		t.Errorf("message\n got %q\nwant %q", m["message"], msg)
	}
	return m
}

// checkEnvelope checks the spec's required envelope fields.
func checkEnvelope(t testing.TB, m map[string]any, status int) {
	t.Helper()
	if sc, ok := m["statusCode"].(float64); !ok || int(sc) != status {
		t.Errorf("statusCode %v, want %d", m["statusCode"], status)
	}
	for _, k := range []string{"error", "message", "timestamp", "traceId"} {
		if s, ok := m[k].(string); !ok || s == "" {
			t.Errorf("envelope field %q missing or empty in %v", k, m)
		}
	}
	if ts, _ := m["timestamp"].(string); ts != "" {
		p, err := time.Parse(time.RFC3339, ts)
		if err != nil || p.Location() != time.UTC || !strings.HasSuffix(ts, "Z") {
			t.Errorf("timestamp %q is not ISO 8601 UTC", ts)
		}
	}
}

// detail returns details[key] of an envelope.
func detail(m map[string]any, key string) any {
	d, _ := m["details"].(map[string]any)
	return d[key]
}

// hook is a webhook endpoint recording what it receives.
type hook struct {
	hs     *httptest.Server
	mu     sync.Mutex
	got    []hookReq
	fail   int // answer 500 to this many requests first
	status int // otherwise answer this (default 200)
	ch     chan hookReq
}

type hookReq struct {
	body   []byte
	header http.Header
}

func newHook(t testing.TB) *hook {
	t.Helper()
	h := &hook{ch: make(chan hookReq, 256)}
	h.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req := hookReq{body: b, header: r.Header.Clone()}
		h.mu.Lock()
		h.got = append(h.got, req)
		fail := h.fail > 0
		if fail {
			h.fail--
		}
		status := h.status
		h.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
		} else if status != 0 {
			w.WriteHeader(status)
		}
		select {
		case h.ch <- req:
		default:
		}
	}))
	t.Cleanup(h.hs.Close)
	return h
}

// next waits for the next request (bounded wait, not a timing assertion).
func (h *hook) next(t testing.TB) hookReq {
	t.Helper()
	select {
	case r := <-h.ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook arrived")
		return hookReq{}
	}
}

// nextEvent waits for the next delivery and decodes it.
func (h *hook) nextEvent(t testing.TB) (*api.Event, hookReq) {
	t.Helper()
	r := h.next(t)
	ev, err := api.DecodeEvent(r.body)
	if err != nil {
		t.Fatalf("webhook body: %v: %s", err, r.body)
	}
	return ev, r
}

// register registers the hook for clientID's account (sub "" is the main account) and returns the secret.
func (e *env) register(clientID string, h *hook, sub string) api.Secret {
	e.t.Helper()
	r := e.as(clientID, http.MethodPost, "/_sandbox/webhook-endpoints", map[string]string{"url": h.hs.URL + "/hook", "subAccount": sub}, nil)
	if r.status != http.StatusCreated {
		e.t.Fatalf("register webhook: %d %s", r.status, r.body)
	}
	var we WebhookEndpoint
	r.decode(e.t, &we)
	return we.Secret
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v %s", v, v, v, v) }

// newTestServer serves srv on loopback and closes both at cleanup.
func newTestServer(t testing.TB, srv *Server) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return hs
}
