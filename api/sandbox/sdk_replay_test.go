package sandbox

// Replay of the service's own PHP SDK (MountBit/pague-dev-php-sdk, v2) against the emulator:
// every route the SDK calls, with the headers and the exact bodies it sends (PHP's json_encode:
// "\/" for slashes, "\u00e3" for accents, 5.0 for a whole float, [] for a request without
// fields), and the SDK's webhook verification (HMAC-SHA256 of the raw body in
// X-Pague-Signature, X-Pague-Timestamp within 300 s). The facts come from the SDK's README,
// src/ and tests/; the requests and values here are written for pixdash.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sdkUserAgent is the SDK's default User-Agent.
const sdkUserAgent = "pague.dev - PHP SDK"

// sdkEvents are the event kinds the SDK's README lists.
var sdkEvents = []string{"payment_completed", "payment_expired", "refund_completed", "withdrawal_completed",
	"withdrawal_failed", "withdrawal_reversed", "balance_block_created", "balance_block_approved", "balance_block_rejected"}

// sdkConn speaks to the emulator as the SDK's connector does.
type sdkConn struct {
	t     *testing.T
	e     *env
	token string
	sub   string // forSubAccount(): X-Sub-Account on the routes that take it
}

// send sends one SDK request: body "" sends none (a request without HasBody), anything else is
// sent as is with the SDK's JSON headers.
func (c *sdkConn) send(method, path, body string, hdr map[string]string) resp {
	c.t.Helper()
	h := map[string]string{"Accept": "application/json", "User-Agent": sdkUserAgent}
	if c.token != "" {
		h["Authorization"] = "Bearer " + c.token
	}
	// The SDK drops X-Sub-Account on /auth and the sub-account routes.
	if c.sub != "" && path != "/auth" && !strings.HasPrefix(path, "/sub-accounts") {
		h["X-Sub-Account"] = c.sub
	}
	for k, v := range hdr {
		h[k] = v
	}
	var b any
	if body != "" {
		b = body
		h["Content-Type"] = "application/json"
	}
	r := c.e.raw(method, path, b, h)
	checkMillis(c.t, method+" "+path, r.body)
	return r
}

// newSDK authenticates as the SDK does (POST /auth with client_id and client_secret).
func newSDK(t *testing.T, e *env, clientID, secret string) *sdkConn {
	t.Helper()
	c := &sdkConn{t: t, e: e}
	r := c.send(http.MethodPost, "/auth", `{"client_id":"`+clientID+`","client_secret":"`+secret+`"}`, nil)
	if r.status != http.StatusOK {
		t.Fatalf("POST /auth: %d %s", r.status, r.body)
	}
	m := r.json(t)
	tok, _ := m["access_token"].(string)
	if tok == "" || m["token_type"] != "Bearer" || m["expires_in"] != float64(300) {
		t.Fatalf("POST /auth body %s", r.body)
	}
	c.token = tok
	return c
}

// millisRE is how the service writes every timestamp: UTC with exactly three fractional digits.
var millisRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// checkMillis checks every timestamp member (…At, timestamp) of a JSON reply, outside metadata.
func checkMillis(t *testing.T, where string, body []byte) {
	t.Helper()
	var v any
	if json.Unmarshal(body, &v) != nil {
		return // not JSON: the caller's checks say so
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, kv := range x {
				if k == "metadata" {
					continue
				}
				if s, ok := kv.(string); ok && (k == "timestamp" || strings.HasSuffix(k, "At")) && !millisRE.MatchString(s) {
					t.Errorf("%s: %s.%s = %q, want UTC with milliseconds (….000Z)", where, path, k, s)
				}
				walk(path+"."+k, kv)
			}
		case []any:
			for i, el := range x {
				walk(path+"["+strconv.Itoa(i)+"]", el)
			}
		}
	}
	walk("", v)
}

// hasMembers checks that m has each name (null counts as present) and that the ones in nulls are null.
func hasMembers(t *testing.T, where string, m map[string]any, names []string, nulls ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := m[n]; !ok {
			t.Errorf("%s: member %s missing", where, n)
		}
	}
	for _, n := range nulls {
		if v, ok := m[n]; !ok || v != nil {
			t.Errorf("%s: %s = %v (present %v), want null", where, n, v, ok)
		}
	}
}

// sdkVerify checks a delivery as the SDK's parseWebhook does with a timestamp header and a
// tolerance of 300 s, and returns the envelope.
func sdkVerify(t *testing.T, req hookReq, secret string, now time.Time) map[string]any {
	t.Helper()
	sig, _ := strings.CutPrefix(req.header.Get("X-Pague-Signature"), "sha256=")
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(req.body)
	if !hmac.Equal([]byte(sig), []byte(hex.EncodeToString(m.Sum(nil)))) {
		t.Fatalf("X-Pague-Signature %q does not verify the raw body", req.header.Get("X-Pague-Signature"))
	}
	ts, err := strconv.ParseInt(req.header.Get("X-Pague-Timestamp"), 10, 64)
	if err != nil {
		t.Fatalf("X-Pague-Timestamp %q: %v", req.header.Get("X-Pague-Timestamp"), err)
	}
	if d := now.Sub(time.UnixMilli(ts)); d < -300*time.Second || d > 300*time.Second {
		t.Errorf("X-Pague-Timestamp %d is %s from the clock", ts, d)
	}
	var ev map[string]any
	if err := json.Unmarshal(req.body, &ev); err != nil {
		t.Fatalf("webhook body: %v", err)
	}
	for _, k := range []string{"event", "eventId", "timestamp", "data"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("webhook without %s: %s", k, req.body)
		}
	}
	if kind, _ := ev["event"].(string); !slices.Contains(sdkEvents, kind) && kind != "payment_failed" {
		t.Errorf("event %q is not one the SDK accepts", kind)
	}
	checkMillis(t, "webhook "+req.header.Get("X-Pague-Event"), req.body)
	return ev
}

// TestSDKReplay replays every route of the SDK in the order an integration would use them,
// against the built-in fixture (what `pixdash sandbox` serves).
func TestSDKReplay(t *testing.T) {
	e := newEnvFixture(t, DefaultFixture())
	sdk := newSDK(t, e, "mp_test_demo_full", "demo-full-secret")

	// A webhook endpoint for the main account (control endpoint), verified as the SDK does.
	h := newHook(t)
	r := sdk.send(http.MethodPost, "/_sandbox/webhook-endpoints", `{"url":"`+h.hs.URL+`/hook"}`, nil)
	if r.status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	secret, _ := r.json(t)["secret"].(string)
	events := map[string]map[string]any{}
	await := func(kind string) map[string]any {
		t.Helper()
		for events[kind] == nil {
			ev := sdkVerify(t, h.next(t), secret, e.clock.Now())
			events[ev["event"].(string)] = ev
		}
		return events[kind]
	}

	t.Run("GET /account", func(t *testing.T) {
		// Account\Get sends no body; the connector's list variant sends [] with the JSON headers.
		for _, body := range []string{"", "[]"} {
			r := sdk.send(http.MethodGet, "/account", body, nil)
			if r.status != http.StatusOK {
				t.Fatalf("body %q: %d %s", body, r.status, r.body)
			}
			m := r.json(t)
			bal, _ := m["balance"].(map[string]any)
			hasMembers(t, "account", m, []string{"account", "balance"})
			hasMembers(t, "balance", bal, []string{"available", "promotional", "held", "total", "currency", "updatedAt"})
		}
		sub := *sdk
		sub.sub = "loja-centro"
		if r := sub.send(http.MethodGet, "/account", "", nil); r.status != http.StatusOK {
			t.Errorf("forSubAccount: %d %s", r.status, r.body)
		}
	})

	var projectID string
	t.Run("POST /projects and GET /projects/{id}", func(t *testing.T) {
		r := sdk.send(http.MethodPost, "/projects", `{"name":"Quiosque","color":"#3B82F6","description":"Quiosque do shopping","logoUrl":"https:\/\/example.com\/quiosque.png"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		m := r.json(t)
		hasMembers(t, "project 201", m, []string{"id", "name", "color", "description", "logoUrl", "createdAt"})
		if m["logoUrl"] != "https://example.com/quiosque.png" {
			t.Errorf("logoUrl %v", m["logoUrl"])
		}
		projectID, _ = m["id"].(string)
		r = sdk.send(http.MethodPost, "/projects", `{"name":"Sem logo","color":"#10B981"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		hasMembers(t, "project without a logo (201)", r.json(t), []string{"id"}, "logoUrl")
		noLogo, _ := r.json(t)["id"].(string)
		r = sdk.send(http.MethodGet, "/projects/"+url.PathEscape(projectID), "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		hasMembers(t, "project 200", r.json(t), []string{"id", "name", "color", "description", "logoUrl", "createdAt", "updatedAt"})
		r = sdk.send(http.MethodGet, "/projects/"+noLogo, "", nil)
		hasMembers(t, "project without a logo (200)", r.json(t), []string{"updatedAt"}, "logoUrl")
	})

	t.Run("GET /projects", func(t *testing.T) {
		r := sdk.send(http.MethodGet, "/projects?page=1&limit=20&sortBy=createdAt&sortOrder=desc", "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("%d %s", r.status, r.body)
		}
		m := r.json(t)
		hasMembers(t, "projects", m, []string{"items", "total", "page", "limit", "totalPages"})
		items, _ := m["items"].([]any)
		if len(items) < 3 {
			t.Fatalf("items %v", items)
		}
		for _, it := range items {
			p := it.(map[string]any)
			if _, ok := p["updatedAt"]; ok {
				t.Errorf("list item %v carries updatedAt", p["name"])
			}
			if _, ok := p["logoUrl"]; !ok {
				t.Errorf("list item %v without logoUrl (null when none)", p["name"])
			}
		}
	})

	t.Run("POST /sub-accounts and GET /sub-accounts", func(t *testing.T) {
		sub := *sdk
		sub.sub = "loja-centro" // forSubAccount: the SDK leaves the header off these routes
		r := sub.send(http.MethodPost, "/sub-accounts", `{"reference":"quiosque-1","name":"Quiosque Shopping"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		hasMembers(t, "sub-account 201", r.json(t), []string{"id", "reference", "name", "status", "createdAt"})
		for _, ref := range []string{"Quiosque 2", "x", "principal", "-quiosque"} {
			r := sub.send(http.MethodPost, "/sub-accounts", `{"reference":"`+ref+`","name":"Outro"}`, nil)
			if r.status != http.StatusBadRequest || detail(r.json(t), "code") != "SUB_ACCOUNT_INVALID_REFERENCE" {
				t.Errorf("reference %q: %d %s, want 400 SUB_ACCOUNT_INVALID_REFERENCE", ref, r.status, r.body)
			}
		}
		r = sub.send(http.MethodGet, "/sub-accounts", "", nil)
		data, _ := r.json(t)["data"].([]any)
		if r.status != http.StatusOK || len(data) == 0 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		hasMembers(t, "sub-account item", data[0].(map[string]any), []string{"id", "reference", "name", "status", "createdAt"})
	})

	var chargeID string
	t.Run("POST /pix and GET /transactions/{id}", func(t *testing.T) {
		body := `{"amount":100.5,"description":"Pedido #12345","customer":{"name":"Jo\u00e3o da Silva","document":"12345678909","email":"joao@example.com","phone":"+5511999998888"},` +
			`"projectId":"` + projectID + `","expiresIn":3600,"externalReference":"pedido-12345","metadata":{"orderId":"12345","createdAt":"2026-01-01T00:00:00Z"}}`
		r := sdk.send(http.MethodPost, "/pix", body, map[string]string{"Idempotency-Key": "pedido-12345"})
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		m := r.json(t)
		hasMembers(t, "pix 201", m, []string{"id", "status", "amount", "currency", "pixCopyPaste", "qrCodeBase64", "pspPaymentId", "expiresAt", "externalReference", "createdAt"})
		chargeID, _ = m["id"].(string)
		if m["amount"] != 100.5 || m["status"] != "pending" {
			t.Errorf("pix 201 %s", r.body)
		}
		// The same key replays the same 201.
		if again := sdk.send(http.MethodPost, "/pix", body, map[string]string{"Idempotency-Key": "pedido-12345"}); again.status != http.StatusCreated || again.json(t)["id"] != chargeID {
			t.Errorf("replay: %d %s", again.status, again.body)
		}
		// GET /transactions/{id}: by id, externalReference and Idempotency-Key (rawurlencode'd).
		for _, id := range []string{chargeID, "pedido-12345"} {
			r := sdk.send(http.MethodGet, "/transactions/"+url.PathEscape(id), "", nil)
			if r.status != http.StatusOK || r.json(t)["id"] != chargeID {
				t.Fatalf("GET /transactions/%s: %d %s", id, r.status, r.body)
			}
			tx := r.json(t)
			hasMembers(t, "transaction", tx, []string{"id", "status", "type", "amount", "currency", "pixCopyPaste", "expiresAt", "createdAt", "metadata"})
			if md, _ := tx["metadata"].(map[string]any); md["createdAt"] != "2026-01-01T00:00:00Z" {
				t.Errorf("metadata rewritten: %v", tx["metadata"])
			}
		}
		// The payment comes in; its webhook carries the environment.
		if r := sdk.send(http.MethodPost, "/_sandbox/charges/"+chargeID+"/pay", `{"payerName":"Maria Pagadora","payerDocument":"12345678909"}`, nil); r.status != http.StatusOK {
			t.Fatalf("pay: %d %s", r.status, r.body)
		}
		ev := await("payment_completed")
		data := ev["data"].(map[string]any)
		if data["id"] != chargeID || data["environment"] != "sandbox" {
			t.Errorf("payment_completed data %v", data)
		}
	})

	t.Run("payment_failed of a blocked deposit", func(t *testing.T) {
		r := sdk.send(http.MethodPost, "/pix", `{"amount":25.0,"description":"Venda balc\u00e3o"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		id, _ := r.json(t)["id"].(string)
		if r := sdk.send(http.MethodPost, "/_sandbox/charges/"+id+"/pay", `{"payerName":"Empresa X Ltda","payerDocument":"11222333000181"}`, nil); r.status != http.StatusOK {
			t.Fatalf("pay: %d %s", r.status, r.body)
		}
		data := await("payment_failed")["data"].(map[string]any)
		if data["id"] != id || data["blockedDeposit"] == nil || data["environment"] != "sandbox" {
			t.Errorf("payment_failed data %v", data)
		}
	})

	t.Run("POST /transactions/{id}/refund with []", func(t *testing.T) {
		if chargeID == "" {
			t.Fatal("needs the charge of POST /pix")
		}
		// The SDK sends [] when no reason is given (its own test asserts that body).
		r := sdk.send(http.MethodPost, "/transactions/"+url.PathEscape(chargeID)+"/refund", "[]", nil)
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		m := r.json(t)
		hasMembers(t, "refund 201", m, []string{"originalTransactionId", "pspProvider", "pspRefundTransactionId", "status"})
		if m["originalTransactionId"] != chargeID || m["status"] != "PENDING" {
			t.Errorf("refund 201 %s", r.body)
		}
		e.clock.Advance(e.srv.scaled(RefundConfirmDelay))
		data := await("refund_completed")["data"].(map[string]any)
		if data["originalTransactionId"] != chargeID || data["environment"] != "sandbox" {
			t.Errorf("refund_completed data %v", data)
		}
		// With a reason, {"reason": …}; a non-empty array is still not a body.
		r = sdk.send(http.MethodPost, "/pix", `{"amount":10.0,"description":"Outra"}`, nil)
		other, _ := r.json(t)["id"].(string)
		sdk.send(http.MethodPost, "/_sandbox/charges/"+other+"/pay", `{"payerName":"Ana","payerDocument":"12345678909"}`, nil)
		if r := sdk.send(http.MethodPost, "/transactions/"+other+"/refund", `["motivo"]`, nil); r.status != http.StatusBadRequest {
			t.Errorf(`["motivo"]: %d %s`, r.status, r.body)
		}
		if r := sdk.send(http.MethodPost, "/transactions/"+other+"/refund", `{"reason":"Cliente solicitou cancelamento"}`, nil); r.status != http.StatusCreated {
			t.Errorf("with a reason: %d %s", r.status, r.body)
		}
	})

	t.Run("POST /withdrawals of R$ 1,00", func(t *testing.T) {
		// The SDK's integration test withdraws 1.0 and expects success.
		body := `{"pixKey":"teste@teste.com.br","pixKeyType":"email","holderName":"Teste Silva","holderDocument":"12345678909","holderDocumentType":"cpf","amount":1.0}`
		r := sdk.send(http.MethodPost, "/withdrawals", body, map[string]string{"Idempotency-Key": "saque-0001"})
		if r.status != http.StatusCreated {
			t.Fatalf("%d %s", r.status, r.body)
		}
		m := r.json(t)
		hasMembers(t, "withdrawal 201", m, []string{"id", "projectId", "amount", "feeAmount", "netAmount", "status", "snapshotPixKey",
			"snapshotPixKeyType", "snapshotHolderName", "snapshotHolderDocument", "createdAt", "externalReference"},
			"failureReason", "pspReference", "processedAt")
		if m["amount"] != 1.0 || m["netAmount"] != 1.0 || m["feeAmount"] != 0.0 {
			t.Errorf("withdrawal figures %s", r.body)
		}
		// netAmount instead of amount.
		r = sdk.send(http.MethodPost, "/withdrawals", `{"pixKey":"12345678909","pixKeyType":"cpf","holderName":"Jo\u00e3o","holderDocument":"12345678909","holderDocumentType":"cpf","netAmount":2.5}`,
			map[string]string{"Idempotency-Key": "saque-0002"})
		if r.status != http.StatusCreated || r.json(t)["netAmount"] != 2.5 {
			t.Errorf("netAmount: %d %s", r.status, r.body)
		}
		id, _ := m["id"].(string)
		e.clock.Advance(e.srv.scaled(WithdrawalDelay))
		for {
			data := await("withdrawal_completed")["data"].(map[string]any)
			if data["withdrawalId"] == id {
				if data["environment"] != "sandbox" {
					t.Errorf("withdrawal_completed data %v", data)
				}
				break
			}
			delete(events, "withdrawal_completed")
		}
	})

	t.Run("GET /balance-blocks", func(t *testing.T) {
		for _, q := range []string{"", "?status=awaiting_response"} {
			r := sdk.send(http.MethodGet, "/balance-blocks"+q, "", nil)
			if r.status != http.StatusOK {
				t.Fatalf("%d %s", r.status, r.body)
			}
			m := r.json(t)
			items, _ := m["items"].([]any)
			if _, ok := m["total"]; !ok || len(items) == 0 {
				t.Fatalf("blocks %s", r.body)
			}
			open := 0
			for _, it := range items {
				b := it.(map[string]any)
				hasMembers(t, "block", b, []string{"id", "transactionId", "amount", "status", "blockType", "referenceNumber", "reason",
					"externalReference", "e2eId", "resolutionReason", "resolvedAt", "createdAt"})
				if b["status"] == "awaiting_response" {
					open++
					hasMembers(t, "open block", b, nil, "resolutionReason", "resolvedAt")
				}
			}
			if open == 0 {
				t.Errorf("no open block to check in %s", r.body)
			}
		}
	})
}
