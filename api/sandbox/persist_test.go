package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/apitest"
)

// stateEnv serves Open(testFixture, file) on a loopback httptest server with a fake clock at at.
func stateEnv(t *testing.T, file string, at time.Time, opts ...Option) (*env, bool) {
	t.Helper()
	clock := NewFakeClock(at)
	all := append([]Option{WithClock(clock), WithRand(42), WithWebhookScale(0.001)}, opts...)
	srv, restored, err := Open(testFixture(t), file, all...)
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	hs := httptest.NewServer(srv)
	e := &env{t: t, srv: srv, hs: hs, clock: clock, base: hs.URL + Prefix, tokens: map[string]cachedToken{}}
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return e, restored
}

func (e *env) stop() {
	e.hs.Close()
	e.srv.Close()
}

// views reads back everything a merchant can see of the account, as the service answers it.
func (e *env) views(ids []string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	get := func(path string, hdr map[string]string) {
		r := e.full(http.MethodGet, path, nil, hdr)
		if r.status != http.StatusOK {
			e.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		out[path+" "+hdr["X-Sub-Account"]] = string(r.body)
	}
	for _, id := range ids {
		get("/transactions/"+id, nil)
	}
	get("/sub-accounts", nil)
	get("/projects", nil)
	get("/balance-blocks", nil)
	get("/account", nil)
	get("/account", map[string]string{"X-Sub-Account": "loja-a"})
	get("/_sandbox/wallets", nil)
	return out
}

// A restart with --state keeps charges (and their idempotency keys), sub-accounts, projects,
// blocks, withdrawals and webhook endpoints with their secrets; ids and the clock's timers go on.
func TestStateSurvivesRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.db")
	e, restored := stateEnv(t, file, testStart)
	if restored {
		t.Fatal("a new file reported a restored state")
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", fi, err)
	}
	key := map[string]string{"Idempotency-Key": "persist-key-0001"}
	paid := e.createPix(map[string]any{"amount": 25, "description": "Pago", "externalReference": "ext-paid"}, key)
	if r := e.full(http.MethodPost, "/_sandbox/charges/"+paid.ID+"/pay", map[string]any{}, nil); r.status != http.StatusOK {
		t.Fatalf("pay: %d %s", r.status, r.body)
	}
	pending := e.createPix(map[string]any{"amount": 10, "description": "Pendente", "expiresIn": 600}, nil)
	if r := e.full(http.MethodPost, "/sub-accounts", map[string]any{"name": "Loja Nova", "reference": "loja-nova"}, nil); r.status != http.StatusCreated {
		t.Fatalf("sub-account: %d %s", r.status, r.body)
	}
	if r := e.full(http.MethodPost, "/projects", map[string]any{"name": "Projeto Persistente", "color": "#3B82F6"}, nil); r.status != http.StatusCreated {
		t.Fatalf("project: %d %s", r.status, r.body)
	}
	if r := e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": paid.ID, "amount": 5, "blockType": "med", "reason": "disputa"}, nil); r.status != http.StatusCreated {
		t.Fatalf("block: %d %s", r.status, r.body)
	}
	wr := e.full(http.MethodPost, "/_sandbox/withdrawals", map[string]any{"amount": 3}, nil)
	if wr.status != http.StatusCreated && wr.status != http.StatusOK {
		t.Fatalf("withdrawal: %d %s", wr.status, wr.body)
	}
	var wtx api.Transaction
	wr.decode(t, &wtx)
	h := newHook(t)
	secret := "whsec_fixed_for_the_dashboard_01"
	if r := e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]any{"url": h.hs.URL + "/hook", "secret": secret}, nil); r.status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	ids := []string{paid.ID, pending.ID, wtx.ID}
	before := e.views(ids)
	e.stop()

	e2, restored := stateEnv(t, file, testStart)
	if !restored {
		t.Fatal("the state was not restored")
	}
	after := e2.views(ids)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s after the restart:\n got %s\nwant %s", k, after[k], v)
		}
	}
	// The idempotency key still answers with the same charge.
	r := e2.full(http.MethodPost, "/pix", map[string]any{"amount": 25, "description": "Pago", "externalReference": "ext-paid"}, key)
	if r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay after restart: %d %v %s", r.status, r.header, r.body)
	}
	// The id generator goes on: the same seed does not hand out an id twice.
	fresh := e2.createPix(map[string]any{"amount": 11, "description": "Nova"}, nil)
	for _, id := range ids {
		if fresh.ID == id {
			t.Fatalf("id %s handed out again after the restart", id)
		}
	}
	// The endpoint and its fixed secret survived: a payment is delivered and signed with it.
	if r := e2.full(http.MethodPost, "/_sandbox/charges/"+fresh.ID+"/pay", map[string]any{}, nil); r.status != http.StatusOK {
		t.Fatalf("pay after restart: %d %s", r.status, r.body)
	}
	ev, req := h.nextEvent(t)
	if ev.Kind != api.EventPaymentCompleted || api.VerifySignature(req.body, req.header.Get(api.PagueSignatureHeader), api.Secret(secret)) != nil {
		t.Fatalf("delivery after restart: %+v, signature verifies: false", ev)
	}
	// The pending charge's expiry was armed again on the clock.
	e2.clock.Advance(601 * time.Second)
	eventually(t, "the restored charge's expiry", func() bool {
		return e2.getTx(pending.ID, nil).Status == api.StatusCancelled
	})
}

// Saving is fast enough for development: a state of 1000 lines saves a change in well under
// a second (the rows that did not change are not written again).
func TestStateSaveIsIncremental(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.db")
	e, _ := stateEnv(t, file, testStart)
	e.srv.mu.Lock()
	w := e.srv.accounts[0].main()
	for i := range 1000 {
		e.srv.addLine(w, api.TypeFee, -1, "linha "+string(rune('a'+i%26)), "", testStart)
	}
	e.srv.mu.Unlock()
	if err := e.srv.save(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	const n = 10
	for range n {
		e.createPix(map[string]any{"amount": 10, "description": "Rápida"}, nil)
	}
	per := time.Since(start) / n
	t.Logf("POST /pix with 1000 transactions in the state: %s each", per)
	if per > time.Second {
		t.Fatalf("a change takes %s to save", per)
	}
}

// A file written by another version of the rows is refused, not misread.
func TestStateOtherVersionRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.db")
	e, _ := stateEnv(t, file, testStart)
	e.stop()
	p, err := openPersister(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.Exec(`UPDATE entities SET data = json_set(data, '$.version', 99) WHERE kind = 'meta'`); err != nil {
		t.Fatal(err)
	}
	_ = p.close()
	if _, _, err := Open(testFixture(t), file); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("open: %v", err)
	}
}

// A webhook endpoint's secret can be given at registration and in the fixture; registering the
// same url, wallet and secret again keeps one endpoint.
func TestWebhookFixedSecret(t *testing.T) {
	h := newHook(t)
	const secret = "fixture-secret-0123456789"
	fx := testFixture(t)
	fx.Accounts[0].WebhookEndpoints = []WebhookEndpointFixture{{URL: h.hs.URL + "/hook", Secret: secret}}
	if err := fx.Validate(); err != nil {
		t.Fatal(err)
	}
	e := newEnvFixture(t, fx)
	pc := e.createPix(map[string]any{"amount": 10, "description": "Fixa"}, nil)
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	_, req := h.nextEvent(t)
	if api.VerifySignature(req.body, req.header.Get(api.PagueSignatureHeader), secret) != nil {
		t.Fatal("the fixture's secret does not verify the delivery")
	}
	k := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	id1, err := k.RegisterWebhookSecret(ctx, "http://127.0.0.1:9/hook", "", "control-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	id2, err := k.RegisterWebhookSecret(ctx, "http://127.0.0.1:9/hook", "principal", "control-secret-0123456789")
	if err != nil || id2 != id1 {
		t.Fatalf("registering again: %s, %v (first %s)", id2, err, id1)
	}
	for _, tc := range []struct{ secret, want string }{
		{"short", "secret must be 16 to 255 characters"},
		{"has a space in it 0123", "secret must be printable ASCII without spaces"},
	} {
		r := e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/x", "secret": tc.secret}, nil)
		expectError(t, r, http.StatusBadRequest, api.KindBadRequest, tc.want)
	}
	bad := testFixture(t)
	bad.Accounts[0].WebhookEndpoints = []WebhookEndpointFixture{{URL: "ftp://x", Secret: secret}, {URL: "http://x/", SubAccount: "nope", Secret: secret}}
	err = bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "webhook_endpoints[0]: url") || !strings.Contains(err.Error(), `webhook_endpoints[1]: sub_account "nope"`) {
		t.Fatalf("validate: %v", err)
	}
}

// --log writes one JSON line per request and per delivery attempt, with the receiver's answer,
// and never a secret.
func TestEventLog(t *testing.T) {
	var buf apitest.SyncBuffer
	e := newEnv(t, WithEventLog(&buf))
	h := newHook(t)
	h.status = http.StatusUnauthorized
	hookSecret := e.register("mp_test_full", h, "")
	h.mu.Lock()
	h.status = 0
	h.mu.Unlock()
	pc := e.createPix(map[string]any{"amount": 10, "description": "Logada"}, map[string]string{"X-Sub-Account": "loja-a"})
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	h.next(t)
	eventually(t, "the delivery's log line", func() bool { return strings.Contains(buf.String(), `"type":"delivery"`) })
	var sawReq, sawDelivery bool
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		switch m["type"] {
		case "request":
			if m["method"] == "POST" && m["path"] == "/v2/pix" {
				sawReq = m["wallet"] == "loja-a" && m["status"] == float64(201) && len(m["traceId"].(string)) == traceIDLen && m["durationMs"] != nil
			}
		case "delivery":
			sawDelivery = m["event"] == "payment_completed" && m["status"] == float64(200) && m["outcome"] == "delivered" && m["attempt"] == float64(1)
		}
	}
	if !sawReq || !sawDelivery {
		t.Fatalf("request line %v, delivery line %v:\n%s", sawReq, sawDelivery, buf.String())
	}
	for _, s := range []string{hookSecret.Reveal(), "s-full", "Bearer", "eyJ"} {
		if strings.Contains(buf.String(), s) {
			t.Fatalf("the log holds %q", s)
		}
	}
}

// A receiver's refusal is kept with the delivery and logged: why it was rejected, not a count.
func TestDeliveryKeepsTheReceiversAnswer(t *testing.T) {
	var buf apitest.SyncBuffer
	e := newEnv(t, WithEventLog(&buf))
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "invalid signature\x1b[31m", http.StatusUnauthorized)
	}))
	defer refuse.Close()
	r := e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]any{"url": refuse.URL + "/hook"}, nil)
	if r.status != http.StatusCreated {
		t.Fatal(r.status)
	}
	pc := e.createPix(map[string]any{"amount": 10, "description": "Recusada"}, nil)
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	k := NewControl(e.client("mp_test_full"))
	eventually(t, "the refused attempt", func() bool {
		ds, err := k.Deliveries(context.Background())
		return err == nil && len(ds) == 1 && ds[0].Attempts >= 1 && ds[0].LastStatusCode == http.StatusUnauthorized && ds[0].LastAnswer == "invalid signature [31m"
	})
	if !strings.Contains(buf.String(), `"answer":"invalid signature [31m","error":"endpoint answered 401","outcome":"retrying"`) {
		t.Fatalf("log: %s", buf.String())
	}
}

// A webhook still being retried when the emulator stops is delivered after the restart, with its
// eventId and body, signed with its endpoint's secret.
func TestStateKeepsPendingDeliveries(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.db")
	e, _ := stateEnv(t, file, testStart)
	h := newHook(t)
	h.status = http.StatusServiceUnavailable
	secret := e.register("mp_test_full", h, "")
	pc := e.createPix(map[string]any{"amount": 10, "description": "Pendente"}, nil)
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	first, _ := h.nextEvent(t) // refused: waits for a retry on the fake clock
	k := NewControl(e.client("mp_test_full"))
	eventually(t, "the refused attempt saved", func() bool {
		ds, _ := k.Deliveries(context.Background())
		if len(ds) != 1 || ds[0].Attempts != 1 {
			return false
		}
		p, err := openPersister(file)
		if err != nil {
			return false
		}
		defer p.close()
		rows, _ := p.read()
		return len(rows[kindDelivery]) == 1 && strings.Contains(rows[kindDelivery][0], `"attempts":1`)
	})
	e.stop()
	h.mu.Lock()
	h.status = 0
	h.mu.Unlock()

	e2, _ := stateEnv(t, file, testStart.Add(time.Minute))
	ev, req := h.nextEvent(t)
	if ev.EventID != first.EventID || api.VerifySignature(req.body, req.header.Get(api.PagueSignatureHeader), secret) != nil {
		t.Fatalf("after the restart: %+v, first %+v", ev, first)
	}
	k2 := NewControl(e2.client("mp_test_full"))
	eventually(t, "the delivery done", func() bool {
		ds, _ := k2.Deliveries(context.Background())
		return len(ds) == 1 && ds[0].Status == DeliveryDelivered && ds[0].Attempts == 2
	})
}

// A fixture's fixed-secret endpoint applies to a restored state too, once however many restarts.
func TestStateFixtureEndpointOnRestore(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.db")
	e, _ := stateEnv(t, file, testStart)
	e.stop()
	h := newHook(t)
	const secret = "fixture-secret-on-restore-1"
	open := func() *env {
		fx := testFixture(t)
		fx.Accounts[0].WebhookEndpoints = []WebhookEndpointFixture{{URL: h.hs.URL + "/hook", Secret: secret}}
		srv, restored, err := Open(fx, file, WithClock(NewFakeClock(testStart)), WithRand(42))
		if err != nil || !restored {
			t.Fatalf("open: %v, restored %v", err, restored)
		}
		hs := httptest.NewServer(srv)
		e := &env{t: t, srv: srv, hs: hs, clock: NewFakeClock(testStart), base: hs.URL + Prefix, tokens: map[string]cachedToken{}}
		t.Cleanup(func() { hs.Close(); srv.Close() })
		return e
	}
	open().stop()
	e2 := open()
	e2.srv.mu.Lock()
	n := len(e2.srv.accounts[0].endpoints)
	e2.srv.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d endpoints after two restarts with the fixture's endpoint", n)
	}
	pc := e2.createPix(map[string]any{"amount": 10, "description": "Fixa"}, nil)
	e2.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	_, req := h.nextEvent(t)
	if api.VerifySignature(req.body, req.header.Get(api.PagueSignatureHeader), secret) != nil {
		t.Fatal("the fixture's secret does not verify the delivery")
	}
}
