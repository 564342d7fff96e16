package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
)

// replayDir holds the real service's (pague.dev v2) replies, byte for byte.
const replayDir = "../api/testdata/pague"

// replayChargeID is the charge of pix-create-201.json, which the webhook fixtures refer to.
const replayChargeID = "c0ffee00-1234-4abc-8def-0123456789ab"

// replayServer answers as the real service did, from the fixture files: POST /auth, GET /account
// (per X-Sub-Account), GET /sub-accounts, GET /projects (two pages), POST /pix and
// GET /transactions/{id}, pending until paid is set.
type replayServer struct {
	t  *testing.T
	ts *httptest.Server

	mu   sync.Mutex
	paid bool
	// answerAmount, when set, is the amount POST /pix answers with (and its code carries),
	// whatever was asked: a service that lies.
	answerAmount api.Money
	pix          []api.CreatePixRequest // bodies of POST /pix, in order
	keys         []string               // their Idempotency-Keys
	calls        []string               // "METHOD path [X-Sub-Account]" of every request
}

func newReplayServer(t *testing.T) *replayServer {
	t.Helper()
	r := &replayServer{t: t}
	r.ts = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.ts.Close)
	return r
}

// fixture reads a fixture file.
func (r *replayServer) fixture(name string) []byte {
	b, err := os.ReadFile(filepath.Join(replayDir, name))
	if err != nil {
		r.t.Errorf("replay fixture: %v", err)
	}
	return b
}

func (r *replayServer) setPaid() {
	r.mu.Lock()
	r.paid = true
	r.mu.Unlock()
}

func (r *replayServer) serve(w http.ResponseWriter, req *http.Request) {
	sub := req.Header.Get("X-Sub-Account")
	r.mu.Lock()
	r.calls = append(r.calls, strings.TrimSpace(req.Method+" "+req.URL.Path+" "+sub))
	paid := r.paid
	r.mu.Unlock()
	reply := func(status int, body []byte) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
	path := strings.TrimPrefix(req.URL.Path, "/v2")
	if path != "/auth" && req.Header.Get("Authorization") != "Bearer eyJhbGciOiJIUzI1NiJ9.cmVwbGF5.c2ln" {
		reply(http.StatusUnauthorized, r.fixture("error-token-401.json"))
		return
	}
	switch {
	case req.Method == http.MethodPost && path == "/auth":
		reply(http.StatusOK, r.fixture("auth-200.json"))
	case req.Method == http.MethodGet && path == "/account":
		switch sub {
		case "", "principal":
			reply(http.StatusOK, r.fixture("account-principal-200.json"))
		case "loja-centro":
			reply(http.StatusOK, r.fixture("account-loja-centro-200.json"))
		case "loja-velha":
			reply(http.StatusForbidden, []byte(`{"statusCode":403,"error":"Forbidden","message":"SUB_ACCOUNT_SUSPENDED: Sub-account 'loja-velha' is suspended","details":{"code":"SUB_ACCOUNT_SUSPENDED"},"timestamp":"2026-11-23T14:30:00.000Z"}`))
		default:
			reply(http.StatusNotFound, r.fixture("error-subaccount-404.json"))
		}
	case req.Method == http.MethodGet && path == "/sub-accounts":
		reply(http.StatusOK, r.fixture("sub-accounts-200.json"))
	case req.Method == http.MethodGet && path == "/projects":
		// The real service pages by two here, whatever the limit asked.
		if req.URL.Query().Get("page") == "2" {
			reply(http.StatusOK, r.fixture("projects-page2-200.json"))
			return
		}
		reply(http.StatusOK, r.fixture("projects-page1-200.json"))
	case req.Method == http.MethodPost && path == "/pix":
		r.createPix(w, req, reply)
	case req.Method == http.MethodGet && path == "/transactions/"+replayChargeID:
		if paid {
			reply(http.StatusOK, r.fixture("transaction-completed-200.json"))
			return
		}
		reply(http.StatusOK, r.pendingTransaction())
	default:
		reply(http.StatusNotFound, []byte(`{"statusCode":404,"error":"Not Found","message":"Cannot `+req.Method+` `+req.URL.Path+`","timestamp":"2026-11-23T14:30:00.000Z"}`))
	}
}

// createPix answers POST /pix with pix-create-201.json, its pixCopyPaste a valid BR Code for the
// amount asked; the fixture's charge is R$ 12,34, so any other amount is refused.
func (r *replayServer) createPix(w http.ResponseWriter, req *http.Request, reply func(int, []byte)) {
	body, _ := io.ReadAll(req.Body)
	var pr api.CreatePixRequest
	if err := json.Unmarshal(body, &pr); err != nil {
		reply(http.StatusBadRequest, r.fixture("error-validation-400.json"))
		return
	}
	if strings.TrimSpace(pr.Description) == "" || pr.Amount != 1234 {
		reply(http.StatusBadRequest, r.fixture("error-validation-400.json"))
		return
	}
	r.mu.Lock()
	r.pix = append(r.pix, pr)
	r.keys = append(r.keys, req.Header.Get("Idempotency-Key"))
	r.mu.Unlock()
	var doc map[string]any
	if err := json.Unmarshal(r.fixture("pix-create-201.json"), &doc); err != nil {
		r.t.Errorf("pix fixture: %v", err)
	}
	doc["pixCopyPaste"] = replayCode(r.t, pr.Amount)
	r.mu.Lock()
	if lie := r.answerAmount; lie != 0 {
		doc["amount"] = json.Number(lie.Decimal())
		doc["pixCopyPaste"] = replayCode(r.t, lie)
	}
	r.mu.Unlock()
	// Dates relative to now, so the charge is not already past its expiry on screen.
	doc["createdAt"] = time.Now().UTC().Format(time.RFC3339)
	doc["expiresAt"] = time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	out, _ := json.Marshal(doc)
	reply(http.StatusCreated, out)
}

// pendingTransaction is the charge before payment: the completed fixture without what payment
// adds, with the copy-and-paste code and the expiry.
func (r *replayServer) pendingTransaction() []byte {
	var doc map[string]any
	if err := json.Unmarshal(r.fixture("transaction-completed-200.json"), &doc); err != nil {
		r.t.Errorf("transaction fixture: %v", err)
	}
	for _, k := range []string{"paidAt", "e2eId", "counterpartName", "counterpartDocument"} {
		delete(doc, k)
	}
	doc["status"] = "pending"
	doc["pixCopyPaste"] = replayCode(r.t, 1234)
	doc["expiresAt"] = time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	out, _ := json.Marshal(doc)
	return out
}

func (r *replayServer) requests() ([]api.CreatePixRequest, []string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]api.CreatePixRequest(nil), r.pix...), append([]string(nil), r.keys...), append([]string(nil), r.calls...)
}

// replayCode is a valid BR Code for amount.
func replayCode(t *testing.T, amount api.Money) string {
	code, err := api.EncodeBRCode(api.BRCodeParams{
		URL: "qr.pague.dev/pix/v2/c0ffee00123", MerchantName: "Padaria Pao Quente", MerchantCity: "Sao Paulo", Amount: amount,
	})
	if err != nil {
		t.Errorf("BR Code: %v", err)
	}
	return code
}

// replaySession is a real profile's session against the replay server, with the dashboard's
// webhook receiver on loopback; it returns the session and the endpoint's signing secret.
func replaySession(t *testing.T, r *replayServer) (*Session, api.Secret) {
	t.Helper()
	client, err := api.NewClient(r.ts.URL+"/v2", "mp_test_replay", "replay-secret")
	if err != nil {
		t.Fatal(err)
	}
	secret := api.Secret("whsec_replay_0123456789")
	store := state.OpenMemory()
	intake, err := store.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	recv := api.NewReceiver(secret, api.WithSink(intake), api.WithTolerance(api.DefaultWebhookTolerance))
	ctx, cancel := context.WithCancel(context.Background())
	u, err := recv.Start(ctx, "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &Session{
		Profile: "pague", Env: api.Sandbox, Client: client, Store: store,
		Intake: intake, ReceiverStats: recv.Stats, WebhookURL: u,
		WebhookTolerance: api.DefaultWebhookTolerance, DefaultDescription: "Venda",
		PixFee: 99, HasPixFee: true,
		Close: func() { cancel(); _ = intake.Close(); _ = store.Close() },
	}
	t.Cleanup(s.Close)
	return s, secret
}

// deliverWebhook POSTs body to the receiver as the service does: the signature in
// X-Pague-Signature without the sha256= prefix, and the delivery time in X-Pague-Timestamp.
func deliverWebhook(t *testing.T, url string, body []byte, secret api.Secret, at time.Time) int {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.PagueSignatureHeader, strings.TrimPrefix(api.Sign(body, secret), "sha256="))
	req.Header.Set(api.TimestampHeader, fmt.Sprint(at.UnixMilli()))
	req.Header.Set(api.EventHeader, "payment_completed")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// waitForAll waits until the program has printed a line matching re and every one of texts.
func (f *flow) waitForAll(re *regexp.Regexp, texts ...string) {
	f.t.Helper()
	f.waitForFunc(func(all string) bool {
		for _, s := range texts {
			if !strings.Contains(all, s) {
				return false
			}
		}
		return re.MatchString(all)
	})
}

// waitForFunc waits until ok accepts what the program printed since the last wait.
func (f *flow) waitForFunc(ok func(string) bool) {
	f.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	buf := make([]byte, 64<<10)
	for {
		n, _ := f.tm.Output().Read(buf)
		f.out.mu.Lock()
		f.out.buf.Write(buf[:n])
		all := f.out.buf.String()
		f.out.mu.Unlock()
		if ok(all) {
			f.out.mu.Lock()
			f.out.buf.Reset()
			f.out.mu.Unlock()
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out; the last output:\n%s", tail(all, 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestReplayFlowWalletsSplitChargeWebhook drives the dashboard against the real service's
// replies: balances as sent, an active sub-account usable everywhere, a charge created with the
// default description, and a webhook signed as the service signs it turning the charge paid.
func TestReplayFlowWalletsSplitChargeWebhook(t *testing.T) {
	r := newReplayServer(t)
	s, secret := replaySession(t, r)
	f := startFlow(t, s, 120, 40)
	f.waitFor("SANDBOX", "charges")

	// (a) Wallets: principal's balance exactly as GET /account sent it (centavos).
	f.keys("3")
	f.waitForAll(regexp.MustCompile(`principal +main account +✓ approved +R\$ 150,75 +R\$ 25,00 +R\$ 0,00 +R\$ 175,75`),
		"loja-centro", "Loja Centro", "✓ active", "loja-velha", "⊘ suspended")
	f.keys("j") // loja-centro: its own balance, read with X-Sub-Account
	f.waitFor("available R$ 49,90 · held R$ 0,00 · promotional R$ 10,00 · total R$ 59,90")

	// (b) The active sub-account is offered by the wallet switcher and becomes the active wallet;
	// the suspended one is refused.
	f.keys("w")
	f.waitFor("Switch wallet", "Loja Centro · ✓ active", "Loja Velha · ⊘ suspended")
	f.keys("j", "j", "enter")
	f.waitFor("loja-velha is suspended (SUB_ACCOUNT_SUSPENDED): it cannot be made active")
	f.keys("k", "enter")
	f.waitFor("wallet loja-centro", "Active wallet: loja-centro")
	f.keys("w")
	f.waitFor("Switch wallet")
	f.keys("k", "enter")
	f.waitFor("Active wallet: principal")

	// ... and is accepted as a split destination (the builder suggests it, and only it).
	f.keys("n")
	f.waitFor("New charge", "Venda")
	f.keys("12,34")
	f.tm.Send(splitKey(tea.KeyCtrlP))
	f.waitFor("Split · new charge from principal")
	f.tm.Send(splitKey(tea.KeyRight)) // the first suggestion
	f.waitFor("loja-centro")
	f.keys("tab", "1,00")
	f.waitForAll(regexp.MustCompile(`\[loja-centro +\] \[1,00 +\] += R\$ 1,00 ✓`))
	// loja-velha is refused on its leg.
	f.tm.Send(splitKey(tea.KeyCtrlN))
	f.keys("loja-velha")
	f.waitFor("sub-account loja-velha is suspended: it cannot receive a split")
	f.keys("esc", "esc", "y") // the split builder, then the filled form (y discards it)
	f.waitFor("STATUS")

	// The projects of both pages are offered (GET /projects pages by two).
	f.keys("n")
	f.waitFor("New charge")
	f.keys("tab", "tab", "tab", "tab")
	f.waitFor("‹ default ›")
	f.tm.Send(splitKey(tea.KeyLeft)) // the last project by name, from page 2
	f.waitFor("‹ Eventos ›")
	f.keys("esc", "y") // a project was chosen: discarding the form takes a y
	f.waitFor("STATUS")

	// (c) At the counter: an amount and ctrl+s; the description is the profile's default.
	f.keys("n")
	f.waitFor("New charge", "Venda")
	f.keys("12,34", "ctrl+s")
	f.waitFor("Pague com PIX", "Aguardando pagamento", "PIX copia e cola:")
	f.keys("esc", "1")
	f.waitFor("Venda", "pending")

	// The service confirms the payment and delivers payment_completed, signed in
	// X-Pague-Signature without the sha256= prefix.
	r.setPaid()
	body, err := os.ReadFile(filepath.Join(replayDir, "webhook-payment-completed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if code := deliverWebhook(t, s.WebhookURL, body, secret, time.Now()); code != http.StatusOK {
		t.Fatalf("webhook delivery: status %d, want 200", code)
	}
	f.waitFor("paid", "R$ 12,34")
	f.keys("5")
	f.waitFor("payment received", "R$ 12,34", "payer Maria Pagadora", "1 event ")

	// A delivery dated outside the tolerance is refused and counted, never shown.
	stale := bytes.Replace(body, []byte("a0b78f10-c7f4-4f5d-98dd-3e36eafeb812"), []byte("a0b78f10-c7f4-4f5d-98dd-3e36eafeb999"), 1)
	if code := deliverWebhook(t, s.WebhookURL, stale, secret, time.Now().Add(-10*time.Minute)); code != http.StatusBadRequest {
		t.Fatalf("stale delivery: status %d, want 400", code)
	}
	f.waitFor("1 refused: timestamp outside ±5m")

	ch, ok := chargeByID(t, s.Store, replayChargeID)
	if !ok || ch.State() != state.StatePaid || ch.Amount != 1234 || ch.Description != "Venda" {
		t.Fatalf("tracked charge = %+v (tracked %t)", ch, ok)
	}
	if n := eventsTotal(t, s.Store); n != 1 {
		t.Fatalf("%d events kept, want 1", n)
	}
	pix, keys, calls := r.requests()
	if len(pix) != 1 || pix[0].Description != "Venda" || pix[0].Amount != 1234 || len(pix[0].Split) != 0 || keys[0] == "" {
		t.Fatalf("POST /pix bodies = %+v, keys %v", pix, keys)
	}
	joined := strings.Join(calls, "\n")
	for _, want := range []string{"GET /v2/account loja-centro", "GET /v2/sub-accounts", "POST /v2/pix", "GET /v2/projects"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q among the requests:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "POST /v2/pix loja-centro") {
		t.Error("the charge was created in loja-centro, not in principal")
	}
}
