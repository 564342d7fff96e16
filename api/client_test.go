package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test credentials: recognisable substrings so leak checks can search for them.
const (
	ctClientID         = "mp_test_ct-client-0001"
	ctSecret    Secret = "ct-SECRET-9f2c41d7e0"
	ctTokenMark        = "ct-TOKEN-"
)

// ctClock is a fake clock.
type ctClock struct {
	mu sync.Mutex
	t  time.Time
}

func newCtClock() *ctClock {
	return &ctClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *ctClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *ctClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ctRecorded is one request as the fake service saw it.
type ctRecorded struct {
	Method, Path, EscapedPath, RawQuery string
	Header                              http.Header
	Body                                []byte
}

// ctServer is a fake payment service: POST /v2/auth issues tokens valid for lifetime seconds
// of the fake clock; every other path requires a valid bearer token and is handled by route.
type ctServer struct {
	t     testing.TB
	clock *ctClock
	srv   *httptest.Server

	mu        sync.Mutex
	authCalls int
	authReqs  []ctRecorded
	reqs      []ctRecorded
	unauth    int                  // 401s the fake answered for a bad token
	tokens    map[string]time.Time // token -> expiry on the fake clock
	revoked   map[string]bool
	nextTok   int
	lifetime  int
	authFn    func(w http.ResponseWriter, r *http.Request) bool // optional: true when it answered
	route     func(w http.ResponseWriter, r *http.Request, rec ctRecorded)
}

func newCtServer(t testing.TB, route func(w http.ResponseWriter, r *http.Request, rec ctRecorded)) *ctServer {
	t.Helper()
	s := &ctServer{t: t, clock: newCtClock(), tokens: map[string]time.Time{}, revoked: map[string]bool{}, lifetime: 300, route: route}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *ctServer) URL() string { return s.srv.URL + "/v2" }

func (s *ctServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := ctRecorded{Method: r.Method, Path: r.URL.Path, EscapedPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if r.URL.Path == "/v2/auth" {
		s.mu.Lock()
		s.authCalls++
		s.authReqs = append(s.authReqs, rec)
		fn := s.authFn
		s.mu.Unlock()
		if fn != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			if fn(w, r) {
				return
			}
		}
		s.issue(w)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	exp, ok := s.tokens[tok]
	valid := ok && !s.revoked[tok] && s.clock.Now().Before(exp) && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !valid {
		s.unauth++
	}
	route := s.route
	s.mu.Unlock()
	if !valid {
		ctJSON(w, 401, map[string]any{"statusCode": 401, "error": "Unauthorized", "message": "Invalid or expired token", "timestamp": "2025-03-01T12:00:00Z"})
		return
	}
	if route == nil {
		ctJSON(w, 200, map[string]any{})
		return
	}
	route(w, r, rec)
}

// issue answers POST /auth with a new token.
func (s *ctServer) issue(w http.ResponseWriter) {
	s.mu.Lock()
	s.nextTok++
	tok := fmt.Sprintf("%s%d-eyJhbGciOiJIUzI1NiJ9", ctTokenMark, s.nextTok)
	s.tokens[tok] = s.clock.Now().Add(time.Duration(s.lifetime) * time.Second)
	life := s.lifetime
	s.mu.Unlock()
	ctJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": life})
}

func (s *ctServer) revokeAll() {
	s.mu.Lock()
	for tok := range s.tokens {
		s.revoked[tok] = true
	}
	s.mu.Unlock()
}

func (s *ctServer) counts() (auth, reqs, unauth int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authCalls, len(s.reqs), s.unauth
}

func (s *ctServer) lastReq() ctRecorded {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		s.t.Fatal("the fake service received no request")
	}
	return s.reqs[len(s.reqs)-1]
}

func (s *ctServer) setRoute(route func(w http.ResponseWriter, r *http.Request, rec ctRecorded)) {
	s.mu.Lock()
	s.route = route
	s.mu.Unlock()
}

func ctJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func ctRaw(status int, contentType, body string) func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
	return func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func ctNoSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// ctNewClient builds a client for s with the fake clock, instant sleeps and a fast retry policy.
func ctNewClient(t testing.TB, s *ctServer, opts ...Option) *Client {
	t.Helper()
	base := []Option{
		WithClock(s.clock.Now),
		WithSleep(ctNoSleep),
		WithRetry(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}),
		WithAuthTimeout(5 * time.Second),
	}
	c, err := NewClient(s.URL(), ctClientID, ctSecret, append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func ctCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a timing assertion
	t.Cleanup(cancel)
	return ctx
}

// ctNoLeak fails if s contains the client secret or any token the fake issued.
func ctNoLeak(t testing.TB, where, s string) {
	t.Helper()
	if strings.Contains(s, ctSecret.Reveal()) || strings.Contains(s, ctTokenMark) || strings.Contains(s, "eyJhbGci") {
		t.Errorf("%s leaks a secret: %q", where, s)
	}
}

const ctChargeJSON = `{"id":"6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f","status":"pending","amount":10.5,"currency":"BRL",
"pixCopyPaste":"00020126...6304ABCD","expiresAt":"2025-03-02T12:00:00Z","createdAt":"2025-03-01T12:00:00Z",
"qrCodeBase64":"data:image/png;base64,iVBORw0KGgo=","pspPaymentId":"psp-77","pspCredentialId":"11111111-2222-3333-4444-555555555555",
"externalReference":"order-1","split":[{"subAccount":"loja-a","amount":2.25},{"subAccount":"loja-b","amount":1}],"unknownField":true}`

const ctTxJSON = `{"id":"6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f","status":"failed","type":"payment","paymentMethod":"pix",
"amount":99.99,"currency":"BRL","description":"d","externalReference":"order-1","customerId":"c1","projectId":"p1",
"metadata":{"k":"v"},"pixCopyPaste":"000201","expiresAt":"2025-03-02T12:00:00Z","paidAt":"2025-03-01T12:05:00Z",
"e2eId":"E123","counterpartName":"ACME LTDA","counterpartDocument":"12345678000199","failureReason":"cnpj payer",
"blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending","e2eId":null,"settledAt":null}},
"createdAt":"2025-03-01T12:00:00Z","updatedAt":"2025-03-01T12:06:00Z","brandNew":"kept out"}`

func TestNewClientValidation(t *testing.T) {
	cases := []struct {
		name, base, id string
		secret         Secret
		wantErr        string
	}{
		{"ok https", "https://api.example.com/v2", "mp_live_abc", "s", ""},
		{"ok trailing slash", "https://api.example.com/v2/", "mp_test_abc", "s", ""},
		{"ok loopback http", "http://127.0.0.1:8080/v2", "mp_test_abc", "s", ""},
		{"ok localhost http", "http://localhost:8080/api/v2", "mp_test_abc", "s", ""},
		{"not v2", "https://api.example.com/v1", "mp_live_abc", "s", "must end in /v2"},
		{"no scheme", "api.example.com/v2", "mp_live_abc", "s", "scheme"},
		{"ftp", "ftp://api.example.com/v2", "mp_live_abc", "s", "scheme"},
		{"http remote", "http://api.example.com/v2", "mp_live_abc", "s", "plain http"},
		{"userinfo", "https://u:p@api.example.com/v2", "mp_live_abc", "s", "user information"},
		{"query", "https://api.example.com/v2?x=1", "mp_live_abc", "s", "query"},
		{"bad id", "https://api.example.com/v2", "live_abc", "s", "must start with"},
		{"bare prefix", "https://api.example.com/v2", "mp_live_", "s", "must start with"},
		{"no secret", "https://api.example.com/v2", "mp_live_abc", "", "client_secret is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.base, tc.id, tc.secret)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				if strings.HasSuffix(c.BaseURL(), "/") || !strings.HasSuffix(c.BaseURL(), "/v2") {
					t.Errorf("BaseURL() = %q", c.BaseURL())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
	live, _ := NewClient("https://a.example/v2", "mp_live_x", "s")
	test, _ := NewClient("https://a.example/v2", "mp_test_x", "s")
	if live.Environment() != Production || test.Environment() != Sandbox {
		t.Errorf("environments = %q, %q", live.Environment(), test.Environment())
	}
	if _, err := NewClient("https://a.example/v2", "mp_live_x", "super-secret-value-1"); err != nil {
		t.Fatal(err)
	}
	_, err := NewClient("http://api.example.com/v2", "mp_live_x", "super-secret-value-1")
	ctNoLeak(t, "NewClient error", err.Error())
}

func TestClientPrintingHidesSecrets(t *testing.T) {
	s := newCtServer(t, ctRaw(200, "application/json", ctTxJSON))
	var logs bytes.Buffer
	c := ctNewClient(t, s, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if _, err := c.GetTransaction(ctCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("%v %+v %#v %s %q %x %v %+v %#v", c, c, c, c, c, c, *c, *c, *c)
	ctNoLeak(t, "fmt of Client", out)
	if !strings.Contains(out, s.URL()) {
		t.Errorf("printing should still say which service: %s", out)
	}
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "c", c, "v", *c)
	ctNoLeak(t, "logs", logs.String())
	if !strings.Contains(logs.String(), "access token obtained") {
		t.Errorf("debug log should record the token refresh: %s", logs.String())
	}
	ctNoLeak(t, "tokenSource", fmt.Sprintf("%v %s", c.tokens, c.tokens))
}

func TestCreatePixRequestAndDecoding(t *testing.T) {
	s := newCtServer(t, ctRaw(201, "application/json", ctChargeJSON))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	req := &CreatePixRequest{
		Amount: 1050, Description: "Pedido 1", Customer: &Customer{Name: "Ana", Document: "12345678909"},
		ExpiresIn: 3600, ExternalReference: "order-1", Metadata: map[string]any{"k": "v"},
		Split: []SplitItem{{SubAccount: "loja-a", Amount: 225}, {SubAccount: "loja-b", Amount: 100}},
	}
	ch, err := c.CreatePix(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rec := s.lastReq()
	if rec.Method != "POST" || rec.Path != "/v2/pix" || rec.RawQuery != "" {
		t.Errorf("request = %s %s?%s", rec.Method, rec.Path, rec.RawQuery)
	}
	auth := rec.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "Bearer "+ctTokenMark) {
		t.Errorf("Authorization = %q", auth)
	}
	for h, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "pixdash/" + Version} {
		if got := rec.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if _, ok := rec.Header["X-Sub-Account"]; ok {
		t.Errorf("X-Sub-Account sent without WithSubAccount")
	}
	if key := rec.Header.Get("Idempotency-Key"); !regexp.MustCompile(`^pixdash-[0-9a-f]{32}$`).MatchString(key) {
		t.Errorf("generated Idempotency-Key = %q", key)
	}
	wantBody := `{"amount":10.50,"description":"Pedido 1","customer":{"name":"Ana","document":"12345678909"},"expiresIn":3600,"externalReference":"order-1","metadata":{"k":"v"},"split":[{"subAccount":"loja-a","amount":2.25},{"subAccount":"loja-b","amount":1.00}]}`
	if string(rec.Body) != wantBody {
		t.Errorf("body =\n%s\nwant\n%s", rec.Body, wantBody)
	}
	want := &PixCharge{
		ID: "6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f", Status: StatusPending, Amount: 1050, Currency: "BRL",
		PixCopyPaste: "00020126...6304ABCD", ExpiresAt: time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC),
		CreatedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), QRCodeBase64: "data:image/png;base64,iVBORw0KGgo=",
		PspPaymentID: "psp-77", PspCredentialID: "11111111-2222-3333-4444-555555555555", ExternalReference: "order-1",
		Split: []SplitItem{{SubAccount: "loja-a", Amount: 225}, {SubAccount: "loja-b", Amount: 100}},
	}
	if fmt.Sprint(ch) != fmt.Sprint(want) {
		t.Errorf("charge =\n%+v\nwant\n%+v", ch, want)
	}

	// The caller's key and sub-account are sent as given; each call without a key gets a new one.
	if _, err := c.CreatePix(ctx, req, WithIdempotencyKey("order-1-attempt"), WithSubAccount("loja-a")); err != nil {
		t.Fatal(err)
	}
	rec2 := s.lastReq()
	if rec2.Header.Get("Idempotency-Key") != "order-1-attempt" || rec2.Header.Get("X-Sub-Account") != "loja-a" {
		t.Errorf("headers = %v", rec2.Header)
	}
	if _, err := c.CreatePix(ctx, req, WithSubAccount(WalletPrincipal)); err != nil {
		t.Fatal(err)
	}
	rec3 := s.lastReq()
	if _, ok := rec3.Header["X-Sub-Account"]; ok {
		t.Errorf("principal should be sent as no X-Sub-Account (main account)")
	}
	if rec3.Header.Get("Idempotency-Key") == rec.Header.Get("Idempotency-Key") {
		t.Errorf("two creates shared a generated key")
	}
}

func TestCreatePixValidatesBeforeSending(t *testing.T) {
	s := newCtServer(t, ctRaw(201, "application/json", ctChargeJSON))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	good := &CreatePixRequest{Amount: 1000, Description: "Venda"}
	cases := []struct {
		name   string
		req    *CreatePixRequest
		opts   []RequestOption
		fields []string
	}{
		{"nil request", nil, nil, []string{"body"}},
		{"amount below 1", &CreatePixRequest{Amount: 99, Description: "Venda"}, nil, []string{FieldAmount}},
		{"no description", &CreatePixRequest{Amount: 1000}, nil, []string{FieldDescription}},
		{"blank description", &CreatePixRequest{Amount: 1000, Description: " \t"}, nil, []string{FieldDescription}},
		{"several fields", &CreatePixRequest{Amount: 0, ExpiresIn: 299, ProjectID: "x"}, nil, []string{FieldAmount, FieldDescription, FieldExpiresIn, FieldProjectID}},
		{"bad sub-account", good, []RequestOption{WithSubAccount("Loja A")}, []string{FieldSubAccountHeader}},
		{"key too short", good, []RequestOption{WithIdempotencyKey("1234567")}, []string{FieldIdempotencyKeyHeader}},
		{"key too long", good, []RequestOption{WithIdempotencyKey(strings.Repeat("k", 256))}, []string{FieldIdempotencyKeyHeader}},
		{"key with space", good, []RequestOption{WithIdempotencyKey("key with space")}, []string{FieldIdempotencyKeyHeader}},
		{"key with newline", good, []RequestOption{WithIdempotencyKey("key\r\nX-Evil: 1")}, []string{FieldIdempotencyKeyHeader}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreatePix(ctx, tc.req, tc.opts...)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
				t.Errorf("fields = %v, want %v (%v)", got, tc.fields, err)
			}
			if IsNetwork(err) {
				t.Errorf("a validation error is not a network error")
			}
		})
	}
	// Boundary values pass: 8 and 255 characters, amount exactly 1.
	for _, key := range []string{"12345678", strings.Repeat("k", 255)} {
		if _, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 100, Description: "Venda"}, WithIdempotencyKey(key)); err != nil {
			t.Errorf("key of %d chars: %v", len(key), err)
		}
	}
	// A split is not checked by the client (it does not know the fee): 11 legs are sent.
	legs := make([]SplitItem, 11)
	for i := range legs {
		legs[i] = SplitItem{SubAccount: fmt.Sprintf("w%02d", i), Amount: 1}
	}
	if _, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 100, Description: "Venda", Split: legs}); err != nil {
		t.Errorf("split sent as is: %v", err)
	}
	if _, reqs, _ := s.counts(); reqs != 3 {
		t.Errorf("requests sent = %d, want 3 (only the valid ones)", reqs)
	}
}

func TestGetTransactionEscapesAndDecodes(t *testing.T) {
	s := newCtServer(t, ctRaw(200, "application/json", ctTxJSON))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	cases := []struct{ id, escaped string }{
		{"6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f", "/v2/transactions/6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f"},
		{"pedido/42", "/v2/transactions/pedido%2F42"},
		{"a b?c#d", "/v2/transactions/a%20b%3Fc%23d"},
		{"ção&x=1", "/v2/transactions/%C3%A7%C3%A3o&x=1"},
		{"..", "/v2/transactions/%2E%2E"},
		{".", "/v2/transactions/%2E"},
		{"pixdash-0123456789abcdef", "/v2/transactions/pixdash-0123456789abcdef"},
	}
	for _, tc := range cases {
		tx, err := c.GetTransaction(ctx, tc.id, WithSubAccount("loja_1"))
		if err != nil {
			t.Fatalf("%q: %v", tc.id, err)
		}
		rec := s.lastReq()
		if rec.Method != "GET" || rec.EscapedPath != tc.escaped || rec.RawQuery != "" || rec.Path != "/v2/transactions/"+tc.id {
			t.Errorf("%q: sent %s %s (path %q, query %q), want %s", tc.id, rec.Method, rec.EscapedPath, rec.Path, rec.RawQuery, tc.escaped)
		}
		if rec.Header.Get("X-Sub-Account") != "loja_1" || len(rec.Body) != 0 || rec.Header.Get("Content-Type") != "" {
			t.Errorf("%q: headers %v body %q", tc.id, rec.Header, rec.Body)
		}
		if tx.ID != "6f1c2a4e-8b1d-4c5e-9f00-0a1b2c3d4e5f" {
			t.Errorf("id = %q", tx.ID)
		}
	}
	tx, _ := c.GetTransaction(ctx, "x")
	if tx.Amount != 9999 || tx.Status != StatusFailed || tx.Type != TypePayment || tx.PaymentMethod != MethodPix ||
		tx.BlockedDeposit == nil || tx.BlockedDeposit.Reason != ReasonCNPJPayerNotAllowed || tx.BlockedDeposit.Refund.Status != RefundPending ||
		tx.BlockedDeposit.Refund.E2EID != nil || tx.PaidAt == nil || tx.UpdatedAt == nil || tx.CounterpartDocument != "12345678000199" ||
		tx.Metadata["k"] != "v" || tx.E2EID != "E123" || tx.FailureReason == "" {
		t.Errorf("decoded transaction = %+v", tx)
	}
	if _, err := c.GetTransaction(ctx, ""); err == nil {
		t.Errorf("empty id accepted")
	}
}

func TestCreateSubAccount(t *testing.T) {
	s := newCtServer(t, ctRaw(201, "application/json", `{"id":"a1","reference":"loja-a","name":"Loja A","status":"approved","createdAt":"2025-03-01T12:00:00Z"}`))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	sa, err := c.CreateSubAccount(ctx, &CreateSubAccountRequest{Reference: "loja-a", Name: "Loja A"})
	if err != nil {
		t.Fatal(err)
	}
	rec := s.lastReq()
	if rec.Method != "POST" || rec.Path != "/v2/sub-accounts" || string(rec.Body) != `{"reference":"loja-a","name":"Loja A"}` {
		t.Errorf("sent %s %s %s", rec.Method, rec.Path, rec.Body)
	}
	if _, ok := rec.Header["X-Sub-Account"]; ok {
		t.Errorf("X-Sub-Account sent to /sub-accounts")
	}
	if _, ok := rec.Header["Idempotency-Key"]; ok {
		t.Errorf("Idempotency-Key sent to /sub-accounts")
	}
	if rec.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(rec.Header.Get("Authorization"), "Bearer ") {
		t.Errorf("headers = %v", rec.Header)
	}
	if sa.ID != "a1" || sa.Reference != "loja-a" || sa.Status != SubAccountApproved || !sa.Status.Usable() || sa.CreatedAt.IsZero() {
		t.Errorf("decoded = %+v", sa)
	}
	for _, bad := range []*CreateSubAccountRequest{
		nil, {Reference: "principal", Name: "x"}, {Reference: "Loja", Name: "x"}, {Reference: "a", Name: "x"},
		{Reference: "loja-b", Name: strings.Repeat("é", 256)},
	} {
		_, err := c.CreateSubAccount(ctx, bad)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%+v: err = %v, want *ValidationError", bad, err)
		}
	}
	if _, reqs, _ := s.counts(); reqs != 1 {
		t.Errorf("requests = %d, want 1", reqs)
	}
}

func TestListSubAccountsShapes(t *testing.T) {
	item := `{"id":"a1","reference":"loja-a","name":"Loja A","status":"suspended","createdAt":"2025-03-01T12:00:00Z"}`
	cases := []struct {
		name, body string
		want       int
		wantErr    bool
	}{
		{"data object", `{"data":[` + item + `,` + item + `]}`, 2, false},
		{"data with unknown members", `{"data":[` + item + `],"meta":{"next":null}}`, 1, false},
		{"empty data", `{"data":[]}`, 0, false},
		{"bare array (not the service's shape)", "[" + item + "]", 0, true},
		{"items object (not the service's shape)", `{"items":[` + item + `],"total":1}`, 0, true},
		{"unknown object", `{"things":[]}`, 0, true},
		{"data not a list", `{"data":{"a":1}}`, 0, true},
		{"not a list", `{"items":{"a":1}}`, 0, true},
		{"html", `<html><title>Bad Gateway</title></html>`, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, ctRaw(200, "application/json", tc.body))
			c := ctNewClient(t, s)
			list, err := c.ListSubAccounts(ctCtx(t))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %v", list)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != tc.want {
				t.Fatalf("len = %d, want %d", len(list), tc.want)
			}
			if tc.want > 0 && (list[0].Reference != "loja-a" || list[0].Status != SubAccountSuspended || list[0].Status.Usable()) {
				t.Errorf("item = %+v", list[0])
			}
			rec := s.lastReq()
			if rec.Method != "GET" || rec.Path != "/v2/sub-accounts" || rec.RawQuery != "" {
				t.Errorf("sent %s %s?%s", rec.Method, rec.Path, rec.RawQuery)
			}
			if _, ok := rec.Header["X-Sub-Account"]; ok {
				t.Errorf("X-Sub-Account sent to /sub-accounts")
			}
		})
	}
}

func TestListBalanceBlocks(t *testing.T) {
	body := `{"items":[{"id":"b1","transactionId":"t1","amount":12.34,"status":"awaiting_response","blockType":"med",
"referenceNumber":"R1","reason":"fraude","createdAt":"2025-03-01T12:00:00Z","externalReference":"o1","e2eId":"E1",
"resolutionReason":"","resolvedAt":null},{"id":"b2","transactionId":"t2","amount":1,"status":"under_review","blockType":"judicial","createdAt":"2025-03-01T12:00:00Z"}],"total":2}`
	s := newCtServer(t, ctRaw(200, "application/json", body))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	list, err := c.ListBalanceBlocks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if rec := s.lastReq(); rec.Path != "/v2/balance-blocks" || rec.RawQuery != "" || rec.Method != "GET" {
		t.Errorf("sent %s %s?%s", rec.Method, rec.Path, rec.RawQuery)
	}
	if list.Total != 2 || len(list.Items) != 2 || list.Items[0].Amount != 1234 || list.Items[0].Status != BlockAwaitingResponse ||
		list.Items[0].BlockType != BlockTypeMED || list.Items[1].Status != "under_review" || list.Items[1].Status.Known() {
		t.Errorf("decoded = %+v", list)
	}
	for _, st := range BlockStatuses {
		if _, err := c.ListBalanceBlocks(ctx, st, WithSubAccount("loja-a")); err != nil {
			t.Fatal(err)
		}
		rec := s.lastReq()
		if rec.RawQuery != "status="+string(st) || rec.Header.Get("X-Sub-Account") != "loja-a" {
			t.Errorf("status %s: query %q headers %v", st, rec.RawQuery, rec.Header)
		}
	}
}

func TestListProjects(t *testing.T) {
	body := `{"items":[{"id":"p1","name":"Loja","color":"#ff0000","createdAt":"2025-03-01T12:00:00Z","description":"d","logoUrl":"https://x/l.png"}],"total":41,"page":2,"limit":20,"totalPages":3}`
	s := newCtServer(t, ctRaw(200, "application/json", body))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	ok := []struct {
		q     ProjectQuery
		query string
	}{
		{ProjectQuery{}, ""},
		{ProjectQuery{Page: 2, Limit: 20}, "limit=20&page=2"},
		{ProjectQuery{Page: 1, Limit: 1, SortBy: SortByName, SortOrder: SortAsc}, "limit=1&page=1&sortBy=name&sortOrder=asc"},
		{ProjectQuery{Limit: 100, SortBy: SortByUpdatedAt, SortOrder: SortDesc}, "limit=100&sortBy=updatedAt&sortOrder=desc"},
		{ProjectQuery{SortBy: SortByCreatedAt}, "sortBy=createdAt"},
	}
	for _, tc := range ok {
		list, err := c.ListProjects(ctx, tc.q, WithSubAccount("loja-a"))
		if err != nil {
			t.Fatalf("%+v: %v", tc.q, err)
		}
		rec := s.lastReq()
		if rec.Path != "/v2/projects" || rec.RawQuery != tc.query || rec.Header.Get("X-Sub-Account") != "loja-a" {
			t.Errorf("%+v: sent %s?%s", tc.q, rec.Path, rec.RawQuery)
		}
		if list.Total != 41 || list.Page != 2 || list.Limit != 20 || list.TotalPages != 3 || len(list.Items) != 1 || list.Items[0].LogoURL != "https://x/l.png" {
			t.Errorf("decoded = %+v", list)
		}
	}
	_, before, _ := s.counts()
	bad := []ProjectQuery{{Limit: 101}, {Limit: -1}, {Page: -1}, {SortBy: "amount"}, {SortOrder: "ASC"}}
	for _, q := range bad {
		_, err := c.ListProjects(ctx, q)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%+v: err = %v, want *ValidationError", q, err)
		}
	}
	if _, after, _ := s.counts(); after != before {
		t.Errorf("invalid queries were sent")
	}
}

func TestGetAccount(t *testing.T) {
	m := func(v Money) *Money { return &v }
	bal := func(c int, f string) string { return fmt.Sprintf(`{"amount":%d,"amountFormatted":%s}`, c, f) }
	cases := []struct {
		name, body string
		want       string // ctAccountView, or the error's text
		wantErr    bool
	}{
		{"full", `{"account":{"id":"acc1","status":"approved"},"balance":{"available":` + bal(15075, "150.75") + `,"promotional":` + bal(0, "0") +
			`,"held":` + bal(2500, "25") + `,"total":` + bal(17575, "175.75") + `,"currency":"BRL","updatedAt":"2026-02-10T14:30:00.000Z"},"extra":{"x":1}}`,
			ctAccountView(&Account{ID: "acc1", Status: AccountApproved, Balance: AccountBalance{Available: m(15075), Promotional: m(0), Held: m(2500), Total: m(17575), Currency: "BRL"}}), false},
		{"unknown status kept, figures missing", `{"account":{"id":"acc2","status":"under_review"},"balance":{"available":{"amount":7}}}`,
			ctAccountView(&Account{ID: "acc2", Status: "under_review", Balance: AccountBalance{Available: m(7)}}), false},
		{"no balance", `{"account":{"id":"acc3","status":"suspended"}}`, ctAccountView(&Account{ID: "acc3", Status: AccountSuspended}), false},
		{"negative total", `{"balance":{"total":{"amount":-150,"amountFormatted":-1.5}}}`, ctAccountView(&Account{Balance: AccountBalance{Total: m(-150)}}), false},
		{"centavos with a fraction", `{"balance":{"available":{"amount":150.75}}}`, "whole number of centavos", true},
		{"centavos as a string", `{"balance":{"available":{"amount":"15075"}}}`, "whole number of centavos", true},
		{"centavos with an exponent", `{"balance":{"held":{"amount":1e3}}}`, "whole number of centavos", true},
		{"formatted disagrees", `{"balance":{"held":` + bal(2500, "26") + `}}`, "amount and amountFormatted disagree", true},
		{"formatted with 3 decimals", `{"balance":{"held":` + bal(2500, "25.001") + `}}`, "decimal", true},
		{"amount missing", `{"balance":{"held":{"amountFormatted":25}}}`, "missing", true},
		{"the old flat shape", `{"id":"acc1","balance":{"available":10.5}}`, "cannot unmarshal", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, ctRaw(200, "application/json", tc.body))
			c := ctNewClient(t, s)
			acc, err := c.GetAccount(ctCtx(t), WithSubAccount("loja-a"))
			if rec := s.lastReq(); rec.Path != "/v2/account" || rec.Method != "GET" || rec.Header.Get("X-Sub-Account") != "loja-a" {
				t.Errorf("sent %s %s %v", rec.Method, rec.Path, rec.Header)
			}
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want one containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ctAccountView(acc); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if string(acc.Raw) != tc.body {
				t.Errorf("Raw = %s", acc.Raw)
			}
		})
	}
}

// ctAccountView dereferences the balance pointers for comparison.
func ctAccountView(a *Account) string {
	f := func(m *Money) string {
		if m == nil {
			return "nil"
		}
		return m.Decimal()
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s", a.ID, a.Status, f(a.Balance.Available), f(a.Balance.Promotional), f(a.Balance.Held), f(a.Balance.Total), a.Balance.Currency)
}

func TestDo(t *testing.T) {
	s := newCtServer(t, ctRaw(200, "application/json", `{"fee":0.99}`))
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	var out struct {
		Fee Money `json:"fee"`
	}
	if err := c.Do(ctx, "POST", "/_sandbox/fee?mode=fixed", map[string]any{"fee": Money(99)}, &out, WithSubAccount("loja-a")); err != nil {
		t.Fatal(err)
	}
	rec := s.lastReq()
	if rec.Path != "/v2/_sandbox/fee" || rec.RawQuery != "mode=fixed" || string(rec.Body) != `{"fee":0.99}` || out.Fee != 99 ||
		rec.Header.Get("X-Sub-Account") != "loja-a" || rec.Header.Get("Content-Type") != "application/json" {
		t.Errorf("sent %s?%s %s %v; out %+v", rec.Path, rec.RawQuery, rec.Body, rec.Header, out)
	}
	if _, ok := rec.Header["Idempotency-Key"]; ok {
		t.Errorf("Idempotency-Key on a POST that did not ask for one")
	}
	if err := c.Do(ctx, "GET", "/_sandbox/state", nil, nil); err != nil {
		t.Fatalf("out nil: %v", err)
	}
	if err := c.Do(ctx, "POST", "/pix", map[string]any{"amount": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if key := s.lastReq().Header.Get("Idempotency-Key"); !strings.HasPrefix(key, "pixdash-") {
		t.Errorf("POST /pix through Do has Idempotency-Key %q", key)
	}
	_, before, _ := s.counts()
	refused := []struct {
		method, path string
		opts         []RequestOption
	}{
		{"POST", "/auth", nil},
		{"GET", "/sub-accounts", []RequestOption{WithSubAccount("loja-a")}},
		{"POST", "/sub-accounts/x", []RequestOption{WithSubAccount("loja-a")}},
		{"GET", "relative", nil},
		{"get", "/x", nil},
		{"GET", "/x", []RequestOption{WithSubAccount("../etc")}},
	}
	for _, tc := range refused {
		if err := c.Do(ctx, tc.method, tc.path, nil, nil, tc.opts...); err == nil {
			t.Errorf("Do(%s %s) accepted", tc.method, tc.path)
		}
	}
	if _, after, _ := s.counts(); after != before {
		t.Errorf("refused calls reached the server")
	}
	if err := c.Do(ctx, "GET", "/sub-accounts", nil, nil, WithSubAccount(WalletPrincipal)); err != nil {
		t.Errorf("principal on /sub-accounts means no header: %v", err)
	}
	if _, ok := s.lastReq().Header["X-Sub-Account"]; ok {
		t.Errorf("X-Sub-Account sent to /sub-accounts")
	}
}

func TestSuccessBodyProblems(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		want              string
	}{
		{"invalid JSON", "application/json", `{"id": "x",`, "decoding 200 response"},
		{"wrong type", "application/json", `{"id": 5}`, "decoding 200 response"},
		{"html", "text/html", `<!DOCTYPE html><html><head><title>Login required</title></head></html>`, "not JSON (HTML page: Login required)"},
		{"empty", "application/json", ``, "empty body"},
		{"too large", "application/json", `{"id":"` + strings.Repeat("x", maxSuccessBodyBytes) + `"}`, "exceeds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, ctRaw(200, tc.ctype, tc.body))
			c := ctNewClient(t, s)
			_, err := c.GetTransaction(ctCtx(t), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "GET /transactions/x") {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if _, reqs, _ := s.counts(); reqs != 1 {
				t.Errorf("a malformed success was retried: %d requests", reqs)
			}
			var ae *Error
			if errors.As(err, &ae) {
				t.Errorf("a 2xx decoding failure is not a service refusal")
			}
		})
	}
}

// TestErrorShapes decodes every error shape of the spec as the client receives it.
func TestErrorShapes(t *testing.T) {
	type check func(t *testing.T, e *Error)
	cases := []struct {
		name   string
		status int
		ctype  string
		body   string
		is     []error
		check  check
	}{
		{"404 with details", 404, "application/json",
			`{"statusCode":404,"error":"NotFound","message":"Transaction not found","details":{"resource":"transaction","id":"abc"},"timestamp":"2025-03-01T12:00:00.000Z","traceId":"tr-1"}`,
			[]error{ErrNotFound},
			func(t *testing.T, e *Error) {
				if e.Detail("resource") != "transaction" || e.Detail("id") != "abc" || e.TraceID != "tr-1" || e.Timestamp == "" || e.StatusCode != 404 {
					t.Errorf("%+v", e)
				}
				if !strings.Contains(e.Error(), "Transaction not found") || !strings.Contains(e.Error(), "tr-1") {
					t.Errorf("Error() = %q", e.Error())
				}
			}},
		{"409 with details", 409, "application/json",
			`{"statusCode":409,"error":"Conflict","message":"Reference already in use","details":{"resource":"subAccount","field":"reference","value":"loja-a","code":"SUB_ACCOUNT_REFERENCE_TAKEN"},"timestamp":"t"}`,
			[]error{ErrConflict, ErrSubAccountReferenceTaken},
			func(t *testing.T, e *Error) {
				if e.Detail("field") != "reference" || e.Detail("value") != "loja-a" || e.Detail("resource") != "subAccount" {
					t.Errorf("%+v", e.Details)
				}
			}},
		{"split sum DomainError", 400, "application/json",
			`{"statusCode":400,"error":"DomainError","message":"A soma do split (R$ 10,00) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)","timestamp":"t"}`,
			[]error{ErrBadRequest, ErrSplitSum},
			func(t *testing.T, e *Error) {
				info, ok := e.SplitSum()
				if !ok || info != (SplitSumInfo{Sum: 1000, Net: 901, Gross: 1000, Fee: 99}) {
					t.Errorf("SplitSum() = %+v, %v", info, ok)
				}
			}},
		{"split unknown destination", 400, "application/json",
			`{"statusCode":400,"error":"BadRequest","message":"Subconta 'loja-x' não existe nesta conta ou não está ativa","timestamp":"t"}`,
			[]error{ErrBadRequest},
			func(t *testing.T, e *Error) {
				if _, ok := e.SplitSum(); ok || errors.Is(e, ErrSplitSum) {
					t.Errorf("not a sum error")
				}
			}},
		{"403 permission", 403, "application/json",
			`{"statusCode":403,"error":"Forbidden","message":"Insufficient permissions. Required: PIX:WRITE","timestamp":"t"}`,
			[]error{ErrForbidden},
			func(t *testing.T, e *Error) {
				if e.RequiredPermission() != "PIX:WRITE" || e.SubAccountCode() != "" {
					t.Errorf("RequiredPermission() = %q", e.RequiredPermission())
				}
			}},
		{"403 IP allow-list", 403, "application/json", `{"statusCode":403,"error":"Forbidden","message":"Forbidden","timestamp":"t"}`,
			[]error{ErrForbidden}, func(t *testing.T, e *Error) {
				if e.RequiredPermission() != "" || e.SubAccountCode() != "" {
					t.Errorf("%+v", e)
				}
			}},
		{"sub-account code field", 403, "application/json",
			`{"statusCode":403,"error":"Forbidden","code":"SUB_ACCOUNT_FORBIDDEN","message":"Credential cannot operate sub-accounts","timestamp":"t"}`,
			[]error{ErrForbidden, ErrSubAccountForbidden}, nil},
		{"sub-account code in details", 403, "application/json",
			`{"statusCode":403,"error":"Forbidden","message":"Sub-account suspended","details":{"code":"SUB_ACCOUNT_SUSPENDED"},"timestamp":"t"}`,
			[]error{ErrForbidden, ErrSubAccountSuspended}, nil},
		{"sub-account code in message", 404, "application/json",
			`{"statusCode":404,"error":"NotFound","message":"SUB_ACCOUNT_NOT_FOUND: reference loja-z does not exist","timestamp":"t"}`,
			[]error{ErrNotFound, ErrSubAccountNotFound}, nil},
		{"quota", 409, "application/json",
			`{"statusCode":409,"error":"SUB_ACCOUNT_QUOTA_EXCEEDED","message":"Maximum number of sub-accounts reached","timestamp":"t"}`,
			[]error{ErrConflict, ErrSubAccountQuotaExceeded}, nil},
		{"invalid reference", 400, "application/json",
			`{"statusCode":400,"error":"BadRequest","message":"reference is reserved","code":"SUB_ACCOUNT_INVALID_REFERENCE","timestamp":"t"}`,
			[]error{ErrBadRequest, ErrSubAccountInvalidReference}, nil},
		{"institution reason", 400, "application/json",
			`{"statusCode":400,"error":"BadRequest","message":"Institution choice is not enabled","reason":"self_routing_disabled","timestamp":"t"}`,
			[]error{ErrBadRequest, &Error{Reason: ReasonSelfRoutingDisabled}},
			func(t *testing.T, e *Error) {
				if e.InstitutionReason() != ReasonSelfRoutingDisabled || !strings.Contains(e.Error(), "self_routing_disabled") {
					t.Errorf("%q %q", e.InstitutionReason(), e.Error())
				}
			}},
		{"institution reason in details", 400, "application/json",
			`{"statusCode":400,"error":"BadRequest","message":"Institution refused","details":{"reason":"out_capacity_exhausted"},"timestamp":"t"}`,
			[]error{&Error{Reason: ReasonOutCapacityExhausted}}, nil},
		{"422 idempotency", 422, "application/json",
			`{"statusCode":422,"error":"UnprocessableEntity","message":"Idempotency-Key reused with a different body","timestamp":"t"}`,
			[]error{ErrIdempotencyConflict}, nil},
		{"validation message array", 400, "application/json",
			`{"statusCode":400,"message":["split must contain no more than 10 elements","split.0.amount must not be less than 0.01"],"error":"Bad Request"}`,
			[]error{ErrBadRequest},
			func(t *testing.T, e *Error) {
				if e.Message != "split must contain no more than 10 elements; split.0.amount must not be less than 0.01" {
					t.Errorf("Message = %q", e.Message)
				}
			}},
		{"html 502 from proxy", 502, "text/html",
			`<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>`,
			[]error{&Error{HTTPStatus: 502}},
			func(t *testing.T, e *Error) {
				if !strings.Contains(e.Error(), "502 Bad Gateway") || !strings.Contains(e.Error(), "HTML page") || !e.Temporary() {
					t.Errorf("Error() = %q", e.Error())
				}
			}},
		{"empty body 503", 503, "", ``, []error{&Error{HTTPStatus: 503}},
			func(t *testing.T, e *Error) {
				if !strings.Contains(e.Error(), "empty body") || !strings.Contains(e.Error(), "Service Unavailable") {
					t.Errorf("Error() = %q", e.Error())
				}
			}},
		{"500 internal", 500, "application/json",
			`{"statusCode":500,"error":"InternalError","message":"An unexpected error occurred","timestamp":"t"}`,
			[]error{&Error{Kind: KindInternalError}}, nil},
		{"500 pinned institution down", 500, "application/json",
			`{"statusCode":500,"error":"InternalError","message":"Payment service temporarily unavailable","timestamp":"t"}`,
			nil, func(t *testing.T, e *Error) {
				if e.Message != MessagePaymentServiceDown {
					t.Errorf("%q", e.Message)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, ctRaw(tc.status, tc.ctype, tc.body))
			c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 1}))
			_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 1000, Description: "Venda"})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %T %v, want *Error", err, err)
			}
			if e.HTTPStatus != tc.status || e.Method != "POST" || e.Path != "/pix" {
				t.Errorf("status/method/path = %d %s %s", e.HTTPStatus, e.Method, e.Path)
			}
			for _, target := range tc.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(err, %+v) = false; err = %v", target, err)
				}
			}
			if IsNetwork(err) {
				t.Errorf("a reply is not a network error")
			}
			if tc.check != nil {
				tc.check(t, e)
			}
			if tc.status < 500 {
				if _, ok := IdempotencyKeyOf(err); ok {
					t.Errorf("a refusal is a known outcome; no key should be attached")
				}
				if _, direct := err.(*Error); !direct {
					t.Errorf("a refusal is returned as is, got %T", err)
				}
			}
		})
	}
}

func TestAuthErrorShapes(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		message string
	}{
		{"400 missing fields", 400, `{"error":"Bad Request","message":"client_id and client_secret are required"}`, MessageCredentialsRequired},
		{"401 invalid", 401, `{"error":"Unauthorized","message":"Invalid credentials"}`, MessageInvalidCredentials},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, nil)
			s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
				return true
			}
			c := ctNewClient(t, s)
			for _, call := range []func() error{
				func() error { return c.Authenticate(ctCtx(t)) },
				func() error { _, err := c.GetTransaction(ctCtx(t), "x"); return err },
				func() error {
					_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 100, Description: "Venda"})
					return err
				},
			} {
				err := call()
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if e.HTTPStatus != tc.status || e.Message != tc.message || e.Path != "/auth" || e.Method != "POST" || e.StatusCode != tc.status {
					t.Errorf("decoded %+v", e)
				}
				if e.Details != nil || e.TraceID != "" {
					t.Errorf("bare body decoded extra fields: %+v", e)
				}
				ctNoLeak(t, "auth error", err.Error())
			}
			auth, reqs, _ := s.counts()
			if auth != 3 || reqs != 0 {
				t.Errorf("auth calls = %d (want 3: one per call, never retried), other requests = %d", auth, reqs)
			}
			if _, ok := c.TokenExpiry(); ok {
				t.Errorf("no token after a failed exchange")
			}
		})
	}
}
