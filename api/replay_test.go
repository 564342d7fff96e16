package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The replay fixtures in testdata/pague have the deployed service's shapes (see its README).

func replayFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "pague", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replayServer answers each "METHOD path" with a fixture file and records what it was sent.
type replayServer struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	routes map[string]replayReply
	sent   []ctRecorded
}

type replayReply struct {
	status      int
	file        string // under testdata/pague; "" for an empty body
	contentType string
}

func newReplayServer(t testing.TB, routes map[string]replayReply) *replayServer {
	s := &replayServer{t: t, routes: routes}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *replayServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + strings.TrimPrefix(r.URL.Path, "/v2")
	if r.URL.RawQuery != "" {
		key += "?" + r.URL.RawQuery
	}
	s.mu.Lock()
	s.sent = append(s.sent, ctRecorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
	reply, ok := s.routes[key]
	if sub := r.Header.Get("X-Sub-Account"); sub != "" {
		reply, ok = s.routes[key+" @"+sub]
	}
	s.mu.Unlock()
	if key == "POST /auth" && !ok {
		reply, ok = replayReply{status: 200, file: "auth-200.json"}, true
	}
	if !ok {
		s.t.Errorf("replay: unexpected %s", key)
		http.NotFound(w, r)
		return
	}
	ct := reply.contentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(reply.status)
	if reply.file != "" {
		_, _ = w.Write(replayFile(s.t, reply.file))
	}
}

func (s *replayServer) last(method, path string) ctRecorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.sent) - 1; i >= 0; i-- {
		if s.sent[i].Method == method && s.sent[i].Path == "/v2"+path {
			return s.sent[i]
		}
	}
	s.t.Fatalf("replay: %s %s was never sent", method, path)
	return ctRecorded{}
}

func (s *replayServer) count(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.sent {
		if r.Method == method && r.Path == "/v2"+path {
			n++
		}
	}
	return n
}

func (s *replayServer) client(t testing.TB) *Client {
	c, err := NewClient(s.srv.URL+"/v2", "mp_test_replay", "replay-secret", WithRetry(RetryPolicy{MaxAttempts: 3}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func replayCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestReplayClientDecodesTheService reads every success shape of the service through the client.
func TestReplayClientDecodesTheService(t *testing.T) {
	const txID = "c0ffee00-1234-4abc-8def-0123456789ab"
	s := newReplayServer(t, map[string]replayReply{
		"GET /account":                                       {status: 200, file: "account-principal-200.json"},
		"GET /account @loja-centro":                          {status: 200, file: "account-loja-centro-200.json"},
		"GET /sub-accounts":                                  {status: 200, file: "sub-accounts-200.json"},
		"POST /pix":                                          {status: 201, file: "pix-create-201.json"},
		"GET /transactions/" + txID:                          {status: 200, file: "transaction-completed-200.json"},
		"POST /transactions/" + txID + "/refund":             {status: 201, file: "refund-201.json"},
		"POST /withdrawals @loja-centro":                     {status: 201, file: "withdrawal-201.json"},
		"POST /projects":                                     {status: 201, file: "project-201.json"},
		"GET /projects/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d": {status: 200, file: "project-200.json"},
		"GET /projects?limit=100&page=1":                     {status: 200, file: "projects-page1-200.json"},
		"GET /projects?limit=100&page=2":                     {status: 200, file: "projects-page2-200.json"},
	})
	c := s.client(t)
	ctx := replayCtx(t)

	t.Run("account principal", func(t *testing.T) {
		acc, err := c.GetAccount(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b := acc.Balance
		if acc.ID != "7d0c2f4e-1b7a-4c55-9a3e-0f6b2d9c1a11" || acc.Status != AccountApproved || !acc.Status.Known() ||
			b.Available.BRL() != "R$ 150,75" || b.Held.BRL() != "R$ 25,00" || *b.Promotional != 0 || b.Total.BRL() != "R$ 175,75" ||
			b.Currency != "BRL" || b.UpdatedAt == nil || !b.UpdatedAt.Equal(time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)) {
			t.Errorf("account = %s", ctAccountView(acc))
		}
		if h := s.last("GET", "/account").Header.Get("X-Sub-Account"); h != "" {
			t.Errorf("principal sent X-Sub-Account %q", h)
		}
	})
	t.Run("account of a sub-account", func(t *testing.T) {
		acc, err := c.GetAccount(ctx, WithSubAccount("loja-centro"))
		if err != nil {
			t.Fatal(err)
		}
		if acc.Balance.Available.BRL() != "R$ 49,90" || acc.Balance.Promotional.BRL() != "R$ 10,00" || acc.Balance.Total.BRL() != "R$ 59,90" {
			t.Errorf("account = %s", ctAccountView(acc))
		}
	})
	t.Run("sub-accounts", func(t *testing.T) {
		list, err := c.ListSubAccounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Reference != "loja-centro" || list[0].Status != SubAccountActive || !list[0].Status.Usable() ||
			list[1].Status != SubAccountSuspended || list[1].Status.Usable() || list[0].CreatedAt.IsZero() {
			t.Errorf("list = %+v", list)
		}
	})
	t.Run("create pix sends the description and a key", func(t *testing.T) {
		ch, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 1234, Description: "Venda", ExternalReference: "pedido-12345"})
		if err != nil {
			t.Fatal(err)
		}
		if ch.ID != txID || ch.Amount != 1234 || ch.Status != StatusPending || ch.PspPaymentID == "" || ch.QRCodeBase64 == "" {
			t.Errorf("charge = %+v", ch)
		}
		rec := s.last("POST", "/pix")
		var body map[string]any
		if err := json.Unmarshal(rec.Body, &body); err != nil || body["description"] != "Venda" || rec.Header.Get("Idempotency-Key") == "" {
			t.Errorf("sent %s with key %q", rec.Body, rec.Header.Get("Idempotency-Key"))
		}
	})
	t.Run("transaction keeps unknown members", func(t *testing.T) {
		tx, err := c.GetTransaction(ctx, txID)
		if err != nil {
			t.Fatal(err)
		}
		if tx.Status != StatusCompleted || tx.Amount != 1234 || tx.E2EID == "" || tx.CounterpartName != "Maria Pagadora" ||
			tx.CounterpartDocument != "12345678909" || tx.PaidAt == nil || tx.Metadata["orderId"] != "12345" {
			t.Errorf("transaction = %+v", tx)
		}
		if !bytes.Contains(tx.Raw, []byte(`"riskScore": 3`)) {
			t.Errorf("Raw lost the unknown member: %s", tx.Raw)
		}
	})
	t.Run("refund", func(t *testing.T) {
		res, err := c.RefundTransaction(ctx, txID, &RefundRequest{Reason: "Cliente desistiu"})
		if err != nil {
			t.Fatal(err)
		}
		if res.OriginalTransactionID != txID || res.Status != RefundRequestPending || res.PspProvider != "asaas" || res.PspRefundTransactionID != "ref_0001" {
			t.Errorf("refund = %+v", res)
		}
		rec := s.last("POST", "/transactions/"+txID+"/refund")
		if string(rec.Body) != `{"reason":"Cliente desistiu"}` || rec.Header.Get("Idempotency-Key") != "" {
			t.Errorf("sent %s, key %q", rec.Body, rec.Header.Get("Idempotency-Key"))
		}
	})
	t.Run("withdrawal", func(t *testing.T) {
		gross := Money(10000)
		w, err := c.CreateWithdrawal(ctx, &CreateWithdrawalRequest{
			PixKey: "loja@example.com", PixKeyType: PixKeyEmail, HolderName: "Padaria Pao Quente Ltda",
			HolderDocument: "11222333000181", HolderDocumentType: DocumentCNPJ, Amount: &gross, ExternalReference: "saque-2026-11-23",
		}, WithIdempotencyKey("saque-2026-11-23-a"), WithSubAccount("loja-centro"))
		if err != nil {
			t.Fatal(err)
		}
		if w.ID != "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e" || w.Amount != 10000 || w.FeeAmount != 150 || w.NetAmount != 9850 ||
			w.Status != WithdrawalPending || w.Status.Final() || w.FailureReason != "" || w.ProcessedAt != nil || w.SnapshotPixKeyType != PixKeyEmail {
			t.Errorf("withdrawal = %+v", w)
		}
		rec := s.last("POST", "/withdrawals")
		if rec.Header.Get("Idempotency-Key") != "saque-2026-11-23-a" || rec.Header.Get("X-Sub-Account") != "loja-centro" ||
			!strings.Contains(string(rec.Body), `"amount":100.00`) || strings.Contains(string(rec.Body), "netAmount") {
			t.Errorf("sent %s %v", rec.Body, rec.Header)
		}
	})
	t.Run("projects", func(t *testing.T) {
		p, err := c.CreateProject(ctx, &CreateProjectRequest{Name: "Balcao", Color: "#3B82F6", Description: "Vendas no balcao"})
		if err != nil || p.ID == "" || p.Color != "#3B82F6" {
			t.Fatalf("create = %+v, %v", p, err)
		}
		got, err := c.GetProject(ctx, p.ID)
		if err != nil || got.UpdatedAt == nil || got.Name != "Balcao" {
			t.Fatalf("get = %+v, %v", got, err)
		}
		all, err := c.ListAllProjects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 || all[2].Name != "Eventos" || s.count("GET", "/projects") != 2 {
			t.Errorf("all = %+v after %d pages", all, s.count("GET", "/projects"))
		}
	})
}

// TestReplayClientChecksBeforeSending: bad bodies of the new endpoints are refused locally.
func TestReplayClientChecksBeforeSending(t *testing.T) {
	s := newReplayServer(t, map[string]replayReply{})
	c := s.client(t)
	ctx := replayCtx(t)
	one, zero := Money(100), Money(99)
	ok := CreateWithdrawalRequest{PixKey: "k", PixKeyType: PixKeyRandom, HolderName: "n", HolderDocument: "d", HolderDocumentType: DocumentCPF, Amount: &one}
	cases := []struct {
		name  string
		edit  func(r *CreateWithdrawalRequest)
		field string
	}{
		{"neither amount", func(r *CreateWithdrawalRequest) { r.Amount = nil }, FieldAmount},
		{"both amounts", func(r *CreateWithdrawalRequest) { r.NetAmount = &one }, FieldAmount},
		{"amount below 1", func(r *CreateWithdrawalRequest) { r.Amount = &zero }, FieldAmount},
		{"net below 1", func(r *CreateWithdrawalRequest) { r.Amount, r.NetAmount = nil, &zero }, FieldNetAmount},
		{"key type", func(r *CreateWithdrawalRequest) { r.PixKeyType = "iban" }, FieldPixKeyType},
		{"document type", func(r *CreateWithdrawalRequest) { r.HolderDocumentType = "rg" }, FieldHolderDocumentType},
		{"no key", func(r *CreateWithdrawalRequest) { r.PixKey = " " }, FieldPixKey},
		{"no holder", func(r *CreateWithdrawalRequest) { r.HolderName = "" }, FieldHolderName},
		{"project id", func(r *CreateWithdrawalRequest) { r.ProjectID = "p1" }, FieldProjectID},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			_, err := c.CreateWithdrawal(ctx, &r)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Problems[0].Field != tc.field {
				t.Fatalf("err = %v, want a problem on %s", err, tc.field)
			}
		})
	}
	for _, p := range []CreateProjectRequest{{Name: "", Color: "#fff"}, {Name: "x", Color: "blue"}, {Name: "x", Color: "#12345"}, {Name: "x", Color: "#fff", LogoURL: "ftp://x"}} {
		if _, err := c.CreateProject(ctx, &p); err == nil {
			t.Errorf("project %+v was accepted", p)
		}
	}
	if _, err := c.RefundTransaction(ctx, "tx", &RefundRequest{Reason: strings.Repeat("r", 256)}); err == nil {
		t.Error("a 256-character reason was accepted")
	}
	if _, err := c.RefundTransaction(ctx, "tx", nil, WithIdempotencyKey("refund-key-1")); err == nil {
		t.Error("a refund with an Idempotency-Key was accepted")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) != 0 {
		t.Errorf("%d requests were sent", len(s.sent))
	}
}

// TestReplayErrors reads the service's error shapes.
func TestReplayErrors(t *testing.T) {
	const txID = "c0ffee00-1234-4abc-8def-0123456789ab"
	s := newReplayServer(t, map[string]replayReply{
		"POST /pix":                 {status: 400, file: "error-validation-400.json"},
		"GET /account @loja-sumida": {status: 404, file: "error-subaccount-404.json"},
		"GET /projects/2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f": {status: 404, file: "error-project-404.json"},
		"POST /sub-accounts":                     {status: 409, file: "error-taken-409.json"},
		"POST /transactions/" + txID + "/refund": {status: 400, file: "error-refund-400.json"},
		"GET /transactions/proxy":                {status: 502, file: "error-502.html", contentType: "text/html"},
		"GET /transactions/empty":                {status: 503},
		"POST /withdrawals":                      {status: 500, file: "error-refund-400.json"},
	})
	c := s.client(t)
	ctx := replayCtx(t)
	var ae *Error

	_, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 100, Description: "x"})
	if !errors.As(err, &ae) || len(ae.Messages) != 2 || ae.Field() != "description" || ae.BusinessCode() != "VALIDATION_ERROR" ||
		ae.TraceID != "be0a39e2dfb44b924445f04b0fce1928" || ae.Message != "description should not be empty; amount must not be less than 1" {
		t.Errorf("validation: %#v", err)
	}
	_, err = c.GetAccount(ctx, WithSubAccount("loja-sumida"))
	if !errors.Is(err, ErrSubAccountNotFound) || !errors.As(err, &ae) || ae.Detail("id") != "loja-sumida" || !strings.Contains(err.Error(), "SUB_ACCOUNT_NOT_FOUND") {
		t.Errorf("sub-account 404: %v", err)
	}
	_, err = c.GetProject(ctx, "2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f")
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrSubAccountNotFound) {
		t.Errorf("project 404 must not read as a sub-account: %v", err)
	}
	_, err = c.CreateSubAccount(ctx, &CreateSubAccountRequest{Reference: "loja-centro", Name: "Loja Centro"})
	if !errors.Is(err, ErrSubAccountReferenceTaken) {
		t.Errorf("409: %v", err)
	}
	_, err = c.RefundTransaction(ctx, txID, nil)
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "already refunded") || s.count("POST", "/transactions/"+txID+"/refund") != 1 {
		t.Errorf("refund 400: %v", err)
	}
	_, err = c.GetTransaction(ctx, "proxy")
	if !errors.As(err, &ae) || ae.HTTPStatus != 502 || !strings.Contains(err.Error(), "HTML page: 502 Bad Gateway") {
		t.Errorf("502: %v", err)
	}
	_, err = c.GetTransaction(ctx, "empty")
	if !errors.As(err, &ae) || ae.HTTPStatus != 503 || !strings.Contains(err.Error(), "empty body") || !ae.Temporary() {
		t.Errorf("503: %v", err)
	}
	// A withdrawal that met a 500 is retried with its key, and its outcome is reported unknown.
	one := Money(100)
	_, err = c.CreateWithdrawal(ctx, &CreateWithdrawalRequest{PixKey: "k", PixKeyType: PixKeyRandom, HolderName: "n",
		HolderDocument: "d", HolderDocumentType: DocumentCPF, Amount: &one}, WithIdempotencyKey("withdraw-key-1"))
	key, unknown := IdempotencyKeyOf(err)
	if !unknown || key != "withdraw-key-1" || s.count("POST", "/withdrawals") != 3 || !strings.Contains(err.Error(), "the withdrawal may exist") {
		t.Errorf("500 withdrawal: %v after %d attempts", err, s.count("POST", "/withdrawals"))
	}
	s.mu.Lock()
	for _, r := range s.sent {
		if r.Path == "/v2/withdrawals" && r.Header.Get("Idempotency-Key") != "withdraw-key-1" {
			t.Errorf("a retry carried key %q", r.Header.Get("Idempotency-Key"))
		}
	}
	s.mu.Unlock()
}

// TestReplayExpiredToken: an expired token is a 401; the client signs in again and replays once.
func TestReplayExpiredToken(t *testing.T) {
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/v2/auth":
			calls++
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"tok%d","token_type":"Bearer","expires_in":300}`, calls)
		case "/v2/account":
			if r.Header.Get("Authorization") == "Bearer tok1" {
				w.WriteHeader(401)
				_, _ = w.Write(replayFile(t, "error-token-401.json"))
				return
			}
			_, _ = w.Write(replayFile(t, "account-principal-200.json"))
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/v2", "mp_test_replay", "replay-secret")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := c.GetAccount(replayCtx(t))
	if err != nil || acc.Balance.Available.BRL() != "R$ 150,75" || calls != 2 {
		t.Fatalf("account %v, err %v, %d sign-ins", acc, err, calls)
	}
}

// hexHMAC is the bare hex signature the service may send without the sha256= prefix.
func hexHMAC(body []byte, secret Secret) string {
	return strings.TrimPrefix(Sign(body, secret), "sha256=")
}

// TestReplayWebhooks delivers the service's envelopes to the receiver with every signature form
// and timestamp case, then decodes them.
func TestReplayWebhooks(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 31, 7, 0, time.UTC)
	ms := func(t time.Time) string { return fmt.Sprint(t.UnixMilli()) }
	body := replayFile(t, "webhook-payment-completed.json")
	cases := []struct {
		name    string
		opts    []ReceiverOption
		headers map[string]string
		want    int
		stale   bool
	}{
		{"X-Pague-Signature without prefix", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret)}, 200, false},
		{"X-Pague-Signature with prefix", nil, map[string]string{PagueSignatureHeader: Sign(body, testWebhookSecret)}, 200, false},
		{"spec header", nil, map[string]string{SignatureHeader: Sign(body, testWebhookSecret)}, 200, false},
		{"configured header", []ReceiverOption{WithSignatureHeader("x-loja-assinatura")}, map[string]string{"X-Loja-Assinatura": hexHMAC(body, testWebhookSecret)}, 200, false},
		{"forged in the service's header", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, "whsec_attacker")}, 401, false},
		{"no signature", nil, map[string]string{TimestampHeader: ms(now)}, 401, false},
		{"fresh timestamp", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: ms(now.Add(-299 * time.Second))}, 200, false},
		{"timestamp in seconds", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: fmt.Sprint(now.Unix())}, 200, false},
		{"replayed after 301 s", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: ms(now.Add(-301 * time.Second))}, 400, true},
		{"from the future", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: ms(now.Add(10 * time.Minute))}, 400, true},
		{"unreadable timestamp", nil, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: "yesterday"}, 400, true},
		{"wider tolerance", []ReceiverOption{WithTolerance(time.Hour)}, map[string]string{PagueSignatureHeader: hexHMAC(body, testWebhookSecret), TimestampHeader: ms(now.Add(-30 * time.Minute))}, 200, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReceiver(testWebhookSecret, append([]ReceiverOption{WithReceiverClock(func() time.Time { return now })}, tc.opts...)...)
			req := httptest.NewRequest(http.MethodPost, WebhookPath, bytes.NewReader(body))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			r.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("status %d (%s), want %d", rec.Code, strings.TrimSpace(rec.Body.String()), tc.want)
			}
			st := r.Stats()
			if (st.Stale == 1) != tc.stale || (tc.want == 200) != (st.Accepted == 1) {
				t.Errorf("stats %+v", st)
			}
			if tc.want == 200 {
				select {
				case ev := <-r.Events():
					if ev.TransactionID != "c0ffee00-1234-4abc-8def-0123456789ab" || ev.Amount != 1234 {
						t.Errorf("event %+v", ev)
					}
				case <-time.After(time.Second):
					t.Fatal("no event")
				}
			}
		})
	}
}

// TestReplayEnvelopes decodes every fixture envelope into the event fields pixdash uses.
func TestReplayEnvelopes(t *testing.T) {
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	cases := []struct {
		file  string
		check func(e *Event) bool
	}{
		{"webhook-payment-completed.json", func(e *Event) bool {
			return e.Kind == EventPaymentCompleted && e.Envelope && e.Wallet() == WalletPrincipal && e.TransactionID == "c0ffee00-1234-4abc-8def-0123456789ab" &&
				e.Amount == 1234 && e.NetAmount == 1135 && e.FeeAmount == 99 && e.Status == StatusCompleted && e.CounterpartName == "Maria Pagadora" &&
				e.CounterpartDocument == "12345678909" && e.E2EID != "" && e.PaidAt != nil && e.CreatedAt.Equal(ts("2026-11-23T14:31:06.280Z")) &&
				e.ExternalReference == "pedido-12345"
		}},
		{"webhook-payment-completed-sub.json", func(e *Event) bool {
			return e.Wallet() == "loja-centro" && e.TransactionID == "d00dfeed-0000-4abc-8def-0123456789ab" && e.Amount == 3000 &&
				len(e.Split) == 1 && e.Split[0].SubAccount == WalletPrincipal && e.Split[0].Amount == 500
		}},
		{"webhook-refund-completed.json", func(e *Event) bool {
			return e.Kind == EventRefundCompleted && e.TransactionID == "c0ffee00-1234-4abc-8def-0123456789ab" && e.ID == "f0e1d2c3-b4a5-4968-8776-655443322110" &&
				e.NetAmount == 1234 && e.FeeAmount == 0
		}},
		{"webhook-withdrawal-failed.json", func(e *Event) bool {
			return e.Kind == EventWithdrawalFailed && e.WithdrawalID == "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e" && e.TransactionID == "" &&
				e.FailureReason == "Chave PIX nao encontrada" && e.Amount == 10000 && e.FeeAmount == 150
		}},
		{"webhook-balance-block-created.json", func(e *Event) bool {
			b := e.BalanceBlock
			return b != nil && b.ID == "aa11bb22-cc33-4d44-8e55-ff6677889900" && b.Status == BlockAwaitingResponse && b.BlockType == BlockTypeMED &&
				b.Amount == 1234 && b.ReferenceNumber == "MED-2026-0001" && e.TransactionID == "c0ffee00-1234-4abc-8def-0123456789ab"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			body := replayFile(t, tc.file)
			id, kind, ok := scanEvent(body)
			e, err := DecodeEvent(body)
			if err != nil {
				t.Fatal(err)
			}
			if !ok || id != e.EventID || kind != string(e.Kind) {
				t.Errorf("scanEvent = %q %q %v, DecodeEvent = %q %q", id, kind, ok, e.EventID, e.Kind)
			}
			if e.DecodeErr != "" || !tc.check(e) {
				t.Errorf("decoded %+v (DecodeErr %q)", e, e.DecodeErr)
			}
		})
	}
}

// TestEnvelopeDataNeverOverridesTheEnvelope: data cannot change the event's id, kind or time,
// and data.subAccount applies only when the envelope has none.
func TestEnvelopeDataNeverOverridesTheEnvelope(t *testing.T) {
	body := []byte(`{"event":"payment_completed","eventId":"e-1","timestamp":"2026-11-23T10:00:00Z","subAccount":"loja-a",` +
		`"data":{"eventId":"e-2","event":"payment_failed","timestamp":"2020-01-01T00:00:00Z","createdAt":"2020-01-01T00:00:00Z","subAccount":"loja-b","id":"tx-9","amount":1.005}}`)
	e, err := DecodeEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	if e.EventID != "e-1" || e.Kind != EventPaymentCompleted || e.CreatedAt.Year() != 2026 || e.SubAccount != "loja-a" || e.TransactionID != "tx-9" {
		t.Errorf("decoded %+v", e)
	}
	if !strings.Contains(e.DecodeErr, "data.amount") {
		t.Errorf("DecodeErr = %q, want the data.amount problem", e.DecodeErr)
	}
	e, err = DecodeEvent([]byte(`{"event":"payment_expired","eventId":"e-3","data":{"subAccount":"loja-b","transactionId":"tx-1"}}`))
	if err != nil || e.SubAccount != "loja-b" || e.TransactionID != "tx-1" {
		t.Errorf("decoded %+v, %v", e, err)
	}
}

func FuzzDecodeAccount(f *testing.F) {
	f.Add(replayFile(f, "account-principal-200.json"))
	f.Add([]byte(`{"balance":{"held":{"amount":1e3,"amountFormatted":1000}}}`))
	f.Add([]byte(`{"account":null,"balance":{"available":{"amount":-9223372036854775808}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		acc, err := DecodeAccount(b)
		if err != nil {
			return
		}
		if !json.Valid(b) || !bytes.Equal(acc.Raw, b) {
			t.Fatalf("accepted %q", b)
		}
	})
}
