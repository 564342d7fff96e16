package sandbox

// Conformance suite: one named test (or subtest) per rule of the spec (../../shared/spec/payment-api.md),
// driven through raw HTTP and the api client.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

// --- Authentication ---------------------------------------------------------------------------

func TestAuth_TokenResponse(t *testing.T) {
	e := newEnv(t)
	r := e.raw(http.MethodPost, "/auth", map[string]string{"client_id": "mp_test_full", "client_secret": "s-full"}, nil)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	m := r.json(t)
	if m["token_type"] != "Bearer" || m["expires_in"] != float64(300) {
		t.Errorf("token_type/expires_in = %v/%v, want Bearer/300", m["token_type"], m["expires_in"])
	}
	tok, _ := m["access_token"].(string)
	if parts := strings.Split(tok, "."); len(parts) != 3 {
		t.Fatalf("access_token is not a JWT (%d parts)", len(parts))
	} else {
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil {
			t.Fatalf("JWT payload: %v", err)
		}
		var c struct{ Exp, Iat int64 }
		if err := json.Unmarshal(payload, &c); err != nil || c.Exp-c.Iat != 300 || c.Iat != testStart.Unix() {
			t.Errorf("JWT iat/exp = %d/%d (err %v), want %d/+300", c.Iat, c.Exp, err, testStart.Unix())
		}
	}
}

func TestAuth_ErrorBodies(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		body   any
		status int
		want   map[string]any
	}{
		{"missing secret", map[string]string{"client_id": "mp_test_full"}, 400, map[string]any{"error": "Bad Request", "message": "client_id and client_secret are required"}},
		{"missing id", map[string]string{"client_secret": "x"}, 400, map[string]any{"error": "Bad Request", "message": "client_id and client_secret are required"}},
		{"empty body", "", 400, map[string]any{"error": "Bad Request", "message": "client_id and client_secret are required"}},
		{"malformed", "{", 400, map[string]any{"error": "Bad Request", "message": "client_id and client_secret are required"}},
		{"wrong secret", map[string]string{"client_id": "mp_test_full", "client_secret": "nope"}, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"}},
		{"unknown id", map[string]string{"client_id": "mp_test_ghost", "client_secret": "s"}, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"}},
		{"revoked", map[string]string{"client_id": "mp_test_revoked", "client_secret": "s-revoked"}, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.raw(http.MethodPost, "/auth", tc.body, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			got := r.json(t)
			if len(got) != 2 || got["error"] != tc.want["error"] || got["message"] != tc.want["message"] {
				t.Errorf("body %v, want exactly %v", got, tc.want)
			}
		})
	}
}

func TestAuth_MissingToken401(t *testing.T) {
	e := newEnv(t)
	for _, h := range []map[string]string{nil, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "}} {
		r := e.raw(http.MethodGet, "/transactions/x", nil, h)
		m := expectError(t, r, 401, api.KindUnauthorized, "")
		if msg, _ := m["message"].(string); !strings.Contains(strings.ToLower(msg), "token is required") {
			t.Errorf("message %q does not say the token is required", msg)
		}
	}
}

func TestAuth_InvalidToken401(t *testing.T) {
	e := newEnv(t)
	tok := e.token("mp_test_full")
	tampered := tok[:len(tok)-2] + "xx"
	for _, bad := range []string{"garbage", "a.b.c", tampered} {
		r := e.raw(http.MethodGet, "/transactions/x", nil, map[string]string{"Authorization": "Bearer " + bad})
		expectError(t, r, 401, api.KindUnauthorized, msgTokenInvalid)
	}
}

func TestAuth_TokenExpiresAfter300s(t *testing.T) {
	e := newEnv(t)
	tok := e.token("mp_test_full")
	h := map[string]string{"Authorization": "Bearer " + tok}
	e.clock.Advance(299 * time.Second)
	if r := e.raw(http.MethodGet, "/account", nil, h); r.status != 200 {
		t.Fatalf("token refused before 300 s: %d %s", r.status, r.body)
	}
	e.clock.Advance(time.Second)
	expectError(t, e.raw(http.MethodGet, "/account", nil, h), 401, api.KindUnauthorized, msgTokenExpired)
}

func TestAuth_RevokedCredentialTokens401(t *testing.T) {
	e := newEnv(t)
	tok := e.token("mp_test_nosub")
	e.srv.SetCredentialRevoked("mp_test_nosub", true)
	r := e.raw(http.MethodGet, "/account", nil, map[string]string{"Authorization": "Bearer " + tok})
	expectError(t, r, 401, api.KindUnauthorized, "Invalid credentials")
	r = e.raw(http.MethodPost, "/auth", map[string]string{"client_id": "mp_test_nosub", "client_secret": "s-nosub"}, nil)
	if r.status != 401 {
		t.Errorf("auth of a revoked credential: %d", r.status)
	}
}

func TestAuth_ClientAuthenticates(t *testing.T) {
	e := newEnv(t)
	c := e.client("mp_test_full")
	if err := c.Authenticate(context.Background()); err != nil {
		t.Fatal(err)
	}
	exp, ok := c.TokenExpiry()
	if !ok || !exp.Equal(testStart.Add(300*time.Second)) {
		t.Errorf("token expiry %v %v, want %v", exp, ok, testStart.Add(300*time.Second))
	}
	bad, _ := api.NewClient(e.base, "mp_test_full", "wrong", api.WithHTTPClient(e.hs.Client()))
	err := bad.Authenticate(context.Background())
	if !errors.Is(err, api.ErrUnauthorized) {
		t.Errorf("wrong secret: %v, want 401", err)
	}
}

// --- Permissions, IP allow-list, sub-account access --------------------------------------------

func TestPermissions_EachEndpoint(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		method, path, perm string
		body               any
	}{
		{http.MethodPost, "/pix", "PIX:WRITE", map[string]any{"description": "Venda", "amount": 10}},
		{http.MethodGet, "/transactions/abc", "TRANSACTION:READ", nil},
		{http.MethodPost, "/sub-accounts", "SUBACCOUNT:WRITE", map[string]any{"reference": "nova", "name": "Nova"}},
		{http.MethodGet, "/sub-accounts", "SUBACCOUNT:READ", nil},
		{http.MethodGet, "/account", "ACCOUNT:READ", nil},
		{http.MethodGet, "/balance-blocks", "BALANCE_BLOCK:READ", nil},
		{http.MethodGet, "/projects", "PROJECT:READ", nil},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := e.as("mp_test_none", tc.method, tc.path, tc.body, nil)
			m := expectError(t, r, 403, api.KindForbidden, "Insufficient permissions. Required: "+tc.perm)
			_ = m
			// The client exposes the permission.
			var ae *api.Error
			err := e.client("mp_test_none").Do(context.Background(), tc.method, tc.path, tc.body, nil)
			if !errors.As(err, &ae) || ae.RequiredPermission() != tc.perm {
				t.Errorf("client error %v: permission %q, want %q", err, ae.RequiredPermission(), tc.perm)
			}
		})
	}
	t.Run("TRANSACTION:READ allows reading", func(t *testing.T) {
		r := e.as("mp_test_read", http.MethodGet, "/transactions/abc", nil, nil)
		expectError(t, r, 404, api.KindNotFound, "")
	})
	t.Run("FULL_ACCESS allows all", func(t *testing.T) {
		for _, p := range []string{"/account", "/projects", "/balance-blocks", "/sub-accounts"} {
			if r := e.as("mp_test_nosub", http.MethodGet, p, nil, nil); r.status != 200 {
				t.Errorf("GET %s with FULL_ACCESS: %d %s", p, r.status, r.body)
			}
		}
	})
}

func TestIPAllowList(t *testing.T) {
	e := newEnv(t)
	// httptest serves on 127.0.0.1: the "far" credential is refused, the local one accepted.
	r := e.raw(http.MethodPost, "/auth", map[string]string{"client_id": "mp_test_farip", "client_secret": "s-farip"}, nil)
	if r.status != 403 {
		t.Errorf("auth from a disallowed IP: %d %s", r.status, r.body)
	}
	if got := r.json(t); got["error"] != "Forbidden" || len(got) != 2 {
		t.Errorf("auth 403 body %v", got)
	}
	if r := e.as("mp_test_localip", http.MethodGet, "/account", nil, nil); r.status != 200 {
		t.Errorf("allowed IP: %d %s", r.status, r.body)
	}
	// A token of the far credential used from a disallowed address (in-process request).
	e.srv.mu.Lock()
	tok := e.srv.issueToken(e.srv.creds["mp_test_farip"], e.clock.Now())
	e.srv.mu.Unlock()
	for addr, want := range map[string]int{"10.9.8.7:5555": 200, "192.168.44.1:1": 200, "127.0.0.1:80": 403, "[::1]:80": 403} {
		req := httptest.NewRequest(http.MethodGet, Prefix+"/account", nil)
		req.RemoteAddr = addr
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("from %s: %d, want %d: %s", addr, rec.Code, want, rec.Body)
		}
		if want == 403 {
			expectError(t, resp{status: rec.Code, body: rec.Body.Bytes()}, 403, api.KindForbidden, msgIPNotAllowed)
		}
	}
}

func TestSubAccountHeader(t *testing.T) {
	e := newEnv(t)
	t.Run("forbidden without access", func(t *testing.T) {
		for _, p := range []string{"/account", "/balance-blocks", "/projects", "/transactions/x"} {
			r := e.as("mp_test_nosub", http.MethodGet, p, nil, map[string]string{"X-Sub-Account": "loja-a"})
			m := expectError(t, r, 403, api.KindForbidden, "")
			if m["code"] != nil || detail(m, "code") != api.CodeSubAccountForbidden {
				t.Errorf("%s: top-level code %v / details.code %v", p, m["code"], detail(m, "code"))
			}
		}
		r := e.as("mp_test_nosub", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 5}, map[string]string{"X-Sub-Account": "loja-a"})
		expectError(t, r, 403, api.KindForbidden, "")
	})
	t.Run("forbidden also hides unknown references", func(t *testing.T) {
		r := e.as("mp_test_nosub", http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "nao-existe"})
		if m := expectError(t, r, 403, api.KindForbidden, ""); detail(m, "code") != api.CodeSubAccountForbidden {
			t.Errorf("details %v", m["details"])
		}
	})
	t.Run("principal needs no access", func(t *testing.T) {
		r := e.as("mp_test_nosub", http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "principal"})
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("not found", func(t *testing.T) {
		r := e.full(http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "nao-existe"})
		m := expectError(t, r, 404, api.KindNotFound, "")
		if detail(m, "code") != api.CodeSubAccountNotFound {
			t.Errorf("details %v", m["details"])
		}
		err := e.client("mp_test_full").Do(context.Background(), http.MethodGet, "/account", nil, nil, api.WithSubAccount("nao-existe"))
		if !errors.Is(err, api.ErrSubAccountNotFound) {
			t.Errorf("client: %v", err)
		}
	})
	t.Run("suspended", func(t *testing.T) {
		r := e.full(http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "suspensa"})
		m := expectError(t, r, 403, api.KindForbidden, "")
		if detail(m, "code") != api.CodeSubAccountSuspended {
			t.Errorf("details %v", m["details"])
		}
	})
	t.Run("malformed header", func(t *testing.T) {
		r := e.full(http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "Bad Ref!"})
		expectError(t, r, 400, api.KindBadRequest, "")
	})
	t.Run("access switched on takes effect for issued tokens", func(t *testing.T) {
		h := map[string]string{"X-Sub-Account": "loja-a"}
		if r := e.as("mp_test_nosub", http.MethodGet, "/account", nil, h); r.status != 403 {
			t.Fatalf("before: %d", r.status)
		}
		e.srv.SetSubAccountAccess("mp_test_nosub", true)
		defer e.srv.SetSubAccountAccess("mp_test_nosub", false)
		if r := e.as("mp_test_nosub", http.MethodGet, "/account", nil, h); r.status != 200 {
			t.Fatalf("after: %d %s", r.status, r.body)
		}
	})
	t.Run("ignored on /sub-accounts", func(t *testing.T) {
		h := map[string]string{"X-Sub-Account": "nao-existe"}
		r := e.as("mp_test_nosub", http.MethodGet, "/sub-accounts", nil, h)
		if r.status != 200 {
			t.Fatalf("GET /sub-accounts with header: %d %s", r.status, r.body)
		}
		r = e.as("mp_test_nosub", http.MethodPost, "/sub-accounts", map[string]string{"reference": "via-header", "name": "X"}, h)
		if r.status != 201 {
			t.Fatalf("POST /sub-accounts with header: %d %s", r.status, r.body)
		}
		// It was created on the main account: it now exists as a wallet.
		if _, ok := e.wallets("mp_test_full")["via-header"]; !ok {
			t.Error("sub-account not created on the main account")
		}
	})
	t.Run("operation runs in the sub-account", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 12}, map[string]string{"X-Sub-Account": "loja-b"})
		if r := e.full(http.MethodGet, "/transactions/"+pc.ID, nil, nil); r.status != 404 {
			t.Errorf("charge of loja-b visible in the main wallet: %d", r.status)
		}
		if r := e.full(http.MethodGet, "/transactions/"+pc.ID, nil, map[string]string{"X-Sub-Account": "loja-b"}); r.status != 200 {
			t.Errorf("charge of loja-b not visible in loja-b: %d", r.status)
		}
		r := e.full(http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "loja-b"})
		acc, err := api.DecodeAccount(r.body)
		if err != nil || acc.ID != e.wallets("mp_test_full")["loja-b"].ID || acc.Balance.Available == nil {
			t.Errorf("account of loja-b: %+v %v", acc, err)
		}
	})
}

func TestTrees_SandboxAndProductionInvisible(t *testing.T) {
	e := newEnv(t)
	// Same reference in both trees: distinct wallets.
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "externalReference": "shared-ref"}, map[string]string{"X-Sub-Account": "loja-a"})
	r := e.as("mp_live_full", http.MethodGet, "/transactions/"+pc.ID, nil, map[string]string{"X-Sub-Account": "loja-a"})
	expectError(t, r, 404, api.KindNotFound, "")
	r = e.as("mp_live_full", http.MethodGet, "/transactions/shared-ref", nil, map[string]string{"X-Sub-Account": "loja-a"})
	expectError(t, r, 404, api.KindNotFound, "")
	// A production-only wallet does not exist for a sandbox credential (header and split).
	r = e.full(http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "so-producao"})
	expectError(t, r, 404, api.KindNotFound, "")
	r = e.full(http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{{"subAccount": "so-producao", "amount": 1}}}, nil)
	expectError(t, r, 400, api.KindBadRequest, "Subconta 'so-producao' não existe nesta conta ou não está ativa")
	// Listing shows only the credential's tree.
	sa, err := api.DecodeSubAccounts(e.as("mp_live_full", http.MethodGet, "/sub-accounts", nil, nil).body)
	if err != nil || len(sa) != 2 {
		t.Errorf("production sub-accounts: %d %v, want 2", len(sa), err)
	}
	// Control endpoints are scoped too.
	r = e.as("mp_live_full", http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil)
	expectError(t, r, 404, api.KindNotFound, "")
}

// --- Envelope and routing ---------------------------------------------------------------------

func TestEnvelope_OnEveryError(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name         string
		method, path string
		body         any
		hdr          map[string]string
		status       int
	}{
		{"unknown route", http.MethodGet, "/nope", nil, nil, 404},
		{"outside prefix", http.MethodGet, "/../v1/pix", nil, nil, 404},
		{"wrong method", http.MethodDelete, "/pix", nil, nil, 405},
		{"malformed json", http.MethodPost, "/pix", "{", nil, 400},
		{"not an object", http.MethodPost, "/pix", "[1]", nil, 400},
		{"validation", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 0.5}, nil, 400},
		{"not found", http.MethodGet, "/transactions/zzz", nil, nil, 404},
		{"conflict", http.MethodPost, "/sub-accounts", map[string]any{"reference": "loja-a", "name": "x"}, nil, 409},
		{"idempotency 422", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 2}, map[string]string{"Idempotency-Key": "envelope-key-1"}, 422},
		{"pinned down 500", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 2, "pspCredentialId": "55555555-5555-4555-8555-555555555555"}, nil, 500},
		{"control unknown id", http.MethodPost, "/_sandbox/charges/nope/pay", nil, nil, 404},
		{"bad query", http.MethodGet, "/projects?page=0", nil, nil, 400},
	}
	e.full(http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 1}, map[string]string{"Idempotency-Key": "envelope-key-1"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.full(tc.method, tc.path, tc.body, tc.hdr)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			checkEnvelope(t, r.json(t), tc.status)
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	t.Run("unauthenticated", func(t *testing.T) {
		r := e.raw(http.MethodGet, "/projects", nil, nil)
		checkEnvelope(t, r.json(t), 401)
	})
	t.Run("405 says which methods", func(t *testing.T) {
		r := e.full(http.MethodPut, "/sub-accounts", nil, nil)
		if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") {
			t.Errorf("Allow %q", allow)
		}
	})
}

func TestBody_LimitsAndMalformed(t *testing.T) {
	e := newEnv(t)
	big := `{"amount": 10, "description": "` + strings.Repeat("x", MaxBodyBytes) + `"}`
	r := e.full(http.MethodPost, "/pix", big, nil)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("large body: %d", r.status)
	}
	checkEnvelope(t, r.json(t), r.status)
	for _, b := range []string{"", "{", `{"amount": 10} trailing`, `"str"`, `null`} {
		r := e.full(http.MethodPost, "/pix", b, nil)
		expectError(t, r, 400, api.KindBadRequest, "")
	}
	if n := e.charges(); n != 0 {
		t.Errorf("%d charges left behind", n)
	}
}

// --- POST /pix field rules --------------------------------------------------------------------

func TestCreatePix_FieldRules(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", 256)
	cases := []struct {
		name  string
		body  string
		field string // details.field (with details.code VALIDATION_ERROR)
		msg   string
	}{
		{"amount required", `{"description":"x"}`, "amount", "amount is required"},
		{"amount must be a number", `{"description":"x","amount":"10.00"}`, "amount", "amount must be a number"},
		{"amount minimum 1", `{"description":"x","amount":0.99}`, "amount", "amount must not be less than 1"},
		{"amount negative", `{"description":"x","amount":-5}`, "amount", "amount must not be less than 1"},
		{"amount 3 decimals", `{"description":"x","amount":10.001}`, "amount", "amount must have at most 2 decimal places"},
		{"description required", `{"amount":10}`, "description", "description should not be empty"},
		{"description empty", `{"amount":10,"description":""}`, "description", "description should not be empty"},
		{"description blank", `{"amount":10,"description":"   "}`, "description", "description should not be empty"},
		{"description 256", `{"amount":10,"description":"` + long + `"}`, "description", "description must be shorter than or equal to 255 characters"},
		{"description type", `{"amount":10,"description":5}`, "description", "description must be a string"},
		{"expiresIn below 300", `{"description":"x","amount":10,"expiresIn":299}`, "expiresIn", "expiresIn must not be less than 300"},
		{"expiresIn zero", `{"description":"x","amount":10,"expiresIn":0}`, "expiresIn", "expiresIn must not be less than 300"},
		{"expiresIn above 604800", `{"description":"x","amount":10,"expiresIn":604801}`, "expiresIn", "expiresIn must not be greater than 604800"},
		{"expiresIn not integer", `{"description":"x","amount":10,"expiresIn":300.5}`, "expiresIn", "expiresIn must be an integer number"},
		{"externalReference 256", `{"description":"x","amount":10,"externalReference":"` + long + `"}`, "externalReference", "externalReference must be shorter than or equal to 255 characters"},
		{"projectId uuid", `{"description":"x","amount":10,"projectId":"abc"}`, "projectId", "projectId must be a UUID"},
		{"pspCredentialId uuid", `{"description":"x","amount":10,"pspCredentialId":"abc"}`, "pspCredentialId", "pspCredentialId must be a UUID"},
		{"metadata object", `{"description":"x","amount":10,"metadata":[1]}`, "metadata", "metadata must be an object"},
		{"customer field type", `{"description":"x","amount":10,"customer":{"name":1}}`, "customer.name", "customer.name must be a string"},
		{"split array", `{"description":"x","amount":10,"split":{}}`, "split", "split must be an array"},
		{"split amount 3 decimals", `{"description":"x","amount":10,"split":[{"subAccount":"loja-a","amount":1.001}]}`, "split", "split.0.amount must have at most 2 decimal places"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.full(http.MethodPost, "/pix", tc.body, nil)
			m := expectError(t, r, 400, api.KindBadRequest, tc.msg)
			if detail(m, "code") != "VALIDATION_ERROR" || detail(m, "field") != tc.field {
				t.Errorf("details %v, want code VALIDATION_ERROR and field %s", m["details"], tc.field)
			}
		})
	}
	t.Run("several problems: a list of messages, the first field named", func(t *testing.T) {
		r := e.full(http.MethodPost, "/pix", `{"amount":0.5,"expiresIn":1}`, nil)
		if r.status != 400 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var env struct {
			Message []string       `json:"message"`
			Details map[string]any `json:"details"`
		}
		r.decode(t, &env)
		want := []string{"amount must not be less than 1", "description should not be empty", "expiresIn must not be less than 300"}
		if strings.Join(env.Message, "|") != strings.Join(want, "|") || env.Details["field"] != "amount" || env.Details["code"] != "VALIDATION_ERROR" {
			t.Errorf("envelope %s", r.body)
		}
		err := e.client("mp_test_full").Do(context.Background(), http.MethodPost, "/pix", map[string]any{"amount": 0.5}, nil)
		var ae *api.Error
		if !errors.As(err, &ae) || len(ae.Messages) != 2 || ae.Field() != "amount" || ae.BusinessCode() != "VALIDATION_ERROR" {
			t.Errorf("client error %#v", err)
		}
	})
	t.Run("client refuses a charge without description before sending", func(t *testing.T) {
		_, err := e.client("mp_test_full").CreatePix(context.Background(), &api.CreatePixRequest{Amount: 1000})
		if err == nil || !strings.Contains(err.Error(), "description should not be empty") {
			t.Errorf("client: %v", err)
		}
	})
	if n := e.charges(); n != 0 {
		t.Errorf("%d charges left behind by refusals", n)
	}
	t.Run("limits accepted", func(t *testing.T) {
		ok := `{"amount":1,"description":"` + strings.Repeat("é", 255) + `","externalReference":"` + strings.Repeat("r", 255) + `","expiresIn":300}`
		if r := e.full(http.MethodPost, "/pix", ok, nil); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount":10.50,"expiresIn":604800}`, nil); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("unknown project 404", func(t *testing.T) {
		r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount":10,"projectId":"99999999-9999-4999-8999-999999999999"}`, nil)
		m := expectError(t, r, 404, api.KindNotFound, "")
		if detail(m, "resource") != "Project" || m["message"] != "Project not found" {
			t.Errorf("details %v", m["details"])
		}
	})
}

func TestCreatePix_ExpiryDefaultAndExplicit(t *testing.T) {
	e := newEnv(t)
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	if !pc.CreatedAt.Equal(testStart) || !pc.ExpiresAt.Equal(testStart.Add(86400*time.Second)) {
		t.Errorf("default expiry: created %v expires %v", pc.CreatedAt, pc.ExpiresAt)
	}
	pc = e.createPix(map[string]any{"description": "Venda", "amount": 10, "expiresIn": 600}, nil)
	if !pc.ExpiresAt.Equal(testStart.Add(600 * time.Second)) {
		t.Errorf("expiresIn 600: expires %v", pc.ExpiresAt)
	}
	if pc.Status != api.StatusPending || pc.Currency != "BRL" || pc.Amount != 1000 || pc.PspPaymentID == "" {
		t.Errorf("charge %+v", pc)
	}
	if pc.PspCredentialID != "" {
		t.Errorf("pspCredentialId %q present without pinning", pc.PspCredentialID)
	}
	if pc.Split != nil {
		t.Errorf("split present without split: %v", pc.Split)
	}
	tx := e.getTx(pc.ID, nil)
	if tx.ExpiresAt == nil || tx.PixCopyPaste != pc.PixCopyPaste || tx.Type != api.TypePayment || tx.PaymentMethod != api.MethodPix {
		t.Errorf("transaction %+v", tx)
	}
}

func TestCreatePix_ProjectDefaulting(t *testing.T) {
	e := newEnv(t)
	// Exactly one project: it is used.
	r := e.as("mp_test_single", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10}, nil)
	var pc api.PixCharge
	r.decode(t, &pc)
	var tx api.Transaction
	e.as("mp_test_single", http.MethodGet, "/transactions/"+pc.ID, nil, nil).decode(t, &tx)
	if tx.ProjectID == "" {
		t.Error("single project not used")
	}
	// More than one project: none.
	pc = e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	if tx := e.getTx(pc.ID, nil); tx.ProjectID != "" {
		t.Errorf("project %q set with several projects", tx.ProjectID)
	}
	// Explicit project.
	var pl api.ProjectList
	e.full(http.MethodGet, "/projects", nil, nil).decode(t, &pl)
	pc = e.createPix(map[string]any{"description": "Venda", "amount": 10, "projectId": pl.Items[0].ID}, nil)
	if tx := e.getTx(pc.ID, nil); tx.ProjectID != pl.Items[0].ID {
		t.Errorf("project %q, want %q", tx.ProjectID, pl.Items[0].ID)
	}
}

// --- Split rules ------------------------------------------------------------------------------

func TestSplitRules(t *testing.T) {
	e := newEnv(t)
	leg := func(ref string, amount any) map[string]any {
		return map[string]any{"subAccount": ref, "amount": amount}
	}
	eleven := []map[string]any{}
	for range 11 {
		eleven = append(eleven, leg("loja-a", 0.01))
	}
	cases := []struct {
		name   string
		sub    string // X-Sub-Account
		amount any
		split  []map[string]any
		kind   string
		msg    string
	}{
		{"more than 10 items", "", 100, eleven, api.KindBadRequest, "split must contain no more than 10 elements"},
		{"amount below 0.01", "", 100, []map[string]any{leg("loja-a", 1), leg("loja-b", 0)}, api.KindBadRequest, "split.1.amount must not be less than 0.01"},
		{"negative amount", "", 100, []map[string]any{leg("loja-a", -1)}, api.KindBadRequest, "split.0.amount must not be less than 0.01"},
		{"unknown sub-account", "", 100, []map[string]any{leg("fantasma", 1)}, api.KindBadRequest, "Subconta 'fantasma' não existe nesta conta ou não está ativa"},
		{"suspended sub-account", "", 100, []map[string]any{leg("suspensa", 1)}, api.KindBadRequest, "Subconta 'suspensa' não existe nesta conta ou não está ativa"},
		{"malformed reference", "", 100, []map[string]any{leg("Não", 1)}, api.KindBadRequest, "Subconta 'Não' não existe nesta conta ou não está ativa"},
		{"other environment wallet", "", 100, []map[string]any{leg("so-producao", 1)}, api.KindBadRequest, "Subconta 'so-producao' não existe nesta conta ou não está ativa"},
		{"duplicate", "", 100, []map[string]any{leg("loja-a", 1), leg("loja-a", 2)}, api.KindBadRequest, "Subconta 'loja-a' aparece duas vezes no split"},
		{"duplicate principal", "loja-a", 100, []map[string]any{leg("principal", 1), leg("principal", 2)}, api.KindBadRequest, "Subconta 'principal' aparece duas vezes no split"},
		{"sum above net", "", 10, []map[string]any{leg("loja-a", 5), leg("loja-b", 4.02)}, api.KindDomainError,
			"A soma do split (R$ 9,02) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)"},
		{"sum above net from sub-account", "loja-a", 10, []map[string]any{leg("principal", 9.02)}, api.KindDomainError,
			"A soma do split (R$ 9,02) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)"},
		{"originator in its own split", "loja-a", 100, []map[string]any{leg("loja-a", 1)}, api.KindBadRequest, "A conta que origina a cobrança não pode receber rateio de si mesma"},
		{"principal from main account", "", 100, []map[string]any{leg("principal", 1)}, api.KindBadRequest, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.charges()
			var hdr map[string]string
			if tc.sub != "" {
				hdr = map[string]string{"X-Sub-Account": tc.sub}
			}
			r := e.full(http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": tc.amount, "split": tc.split}, hdr)
			m := expectError(t, r, 400, tc.kind, tc.msg)
			if tc.name == "principal from main account" {
				msg, _ := m["message"].(string)
				if !strings.Contains(msg, "principal") || !strings.Contains(msg, "conta principal") || !strings.Contains(msg, "subconta") {
					t.Errorf("message %q does not explain the principal rule", msg)
				}
			}
			if e.charges() != before {
				t.Error("a refused split left a charge behind")
			}
		})
	}
	t.Run("client parses the sum refusal", func(t *testing.T) {
		_, err := e.client("mp_test_full").CreatePix(context.Background(), &api.CreatePixRequest{Description: "Venda", Amount: 1000,
			Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 902}}})
		var ae *api.Error
		if !errors.As(err, &ae) || !errors.Is(err, api.ErrSplitSum) {
			t.Fatalf("err %v", err)
		}
		info, ok := ae.SplitSum()
		if !ok || info.Sum != 902 || info.Net != 901 || info.Gross != 1000 || info.Fee != 99 {
			t.Errorf("split sum info %+v %v", info, ok)
		}
	})
	t.Run("sum equal to net accepted", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{leg("loja-a", 5), leg("loja-b", 4.01)}}, nil)
		if len(pc.Split) != 2 || pc.Split[0].SubAccount != "loja-a" || pc.Split[0].Amount != 500 || pc.Split[1].Amount != 401 {
			t.Errorf("accepted split echoed as %+v", pc.Split)
		}
	})
	t.Run("principal allowed from a sub-account", func(t *testing.T) {
		e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{leg("principal", 2), leg("loja-b", 1)}}, map[string]string{"X-Sub-Account": "loja-a"})
	})
	t.Run("sub-account in split needs access", func(t *testing.T) {
		before := e.charges()
		r := e.as("mp_test_nosub", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{leg("loja-a", 1)}}, nil)
		m := expectError(t, r, 403, api.KindForbidden, "")
		if detail(m, "code") != api.CodeSubAccountForbidden {
			t.Errorf("details %v", m["details"])
		}
		if e.charges() != before {
			t.Error("charge left behind")
		}
	})
	t.Run("creating the charge moves no money", func(t *testing.T) {
		before := e.wallets("mp_test_full")
		e.createPix(map[string]any{"description": "Venda", "amount": 50, "split": []map[string]any{leg("loja-a", 10)}}, nil)
		after := e.wallets("mp_test_full")
		for k, w := range before {
			if after[k].Available != w.Available {
				t.Errorf("wallet %s moved from %v to %v", k, w.Available, after[k].Available)
			}
		}
	})
}

// --- Institution pinning ----------------------------------------------------------------------

func TestPinning(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, client, psp, reason string
		status                    int
	}{
		{"self routing disabled", "mp_test_single", "66666666-6666-4666-8666-666666666666", api.ReasonSelfRoutingDisabled, 400},
		{"credential not linked", "mp_test_full", "66666666-6666-4666-8666-666666666666", api.ReasonCredentialNotLinked, 400},
		{"credential not enabled", "mp_test_full", "22222222-2222-4222-8222-222222222222", api.ReasonCredentialNotEnabled, 400},
		{"credential inactive", "mp_test_full", "33333333-3333-4333-8333-333333333333", api.ReasonCredentialInactive, 400},
		{"out capacity exhausted", "mp_test_full", "44444444-4444-4444-8444-444444444444", api.ReasonOutCapacityExhausted, 400},
		{"pinned institution down", "mp_test_full", "55555555-5555-4555-8555-555555555555", "", 500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.charges()
			r := e.as(tc.client, http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10, "pspCredentialId": tc.psp}, nil)
			if tc.status == 500 {
				expectError(t, r, 500, api.KindInternalError, "Payment service temporarily unavailable")
			} else {
				m := expectError(t, r, 400, api.KindBadRequest, "")
				if m["reason"] != tc.reason || detail(m, "reason") != tc.reason {
					t.Errorf("reason %v / details.reason %v, want %s", m["reason"], detail(m, "reason"), tc.reason)
				}
				_, err := e.client(tc.client).CreatePix(context.Background(), &api.CreatePixRequest{Description: "Venda", Amount: 1000, PspCredentialID: tc.psp})
				var ae *api.Error
				if !errors.As(err, &ae) || ae.InstitutionReason() != tc.reason {
					t.Errorf("client sees reason %q (%v)", ae.InstitutionReason(), err)
				}
			}
			if e.charges() != before {
				t.Error("a refused pin left a pending charge")
			}
		})
	}
	t.Run("echoed when pinned", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "pspCredentialId": "11111111-1111-4111-8111-111111111111"}, nil)
		if pc.PspCredentialID != "11111111-1111-4111-8111-111111111111" {
			t.Errorf("pspCredentialId %q", pc.PspCredentialID)
		}
	})
	t.Run("unpinned routing fails over past the down institution", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		if pc.PspCredentialID != "" {
			t.Errorf("pspCredentialId %q without pin", pc.PspCredentialID)
		}
	})
}

// --- Idempotency ------------------------------------------------------------------------------

func TestIdempotency(t *testing.T) {
	e := newEnv(t)
	key := map[string]string{"Idempotency-Key": "order-0001-key"}
	t.Run("same key same body returns the cached 201", func(t *testing.T) {
		r1 := e.full(http.MethodPost, "/pix", `{"amount": 10, "description": "a"}`, key)
		r2 := e.full(http.MethodPost, "/pix", `{"description":"a","amount":10}`, key)
		if r1.status != 201 || r2.status != 201 {
			t.Fatalf("statuses %d %d", r1.status, r2.status)
		}
		if string(r1.body) != string(r2.body) {
			t.Errorf("replay differs:\n%s\n%s", r1.body, r2.body)
		}
		if e.charges() != 1 {
			t.Errorf("%d charges, want 1", e.charges())
		}
	})
	t.Run("same key other body 422", func(t *testing.T) {
		r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 11}`, key)
		expectError(t, r, 422, kindUnprocessable, "")
		_, err := e.client("mp_test_full").CreatePix(context.Background(), &api.CreatePixRequest{Description: "Venda", Amount: 1100}, api.WithIdempotencyKey("order-0001-key"))
		if !errors.Is(err, api.ErrIdempotencyConflict) {
			t.Errorf("client: %v", err)
		}
	})
	t.Run("key length 8 to 255", func(t *testing.T) {
		for _, k := range []string{"short", strings.Repeat("k", 256)} {
			r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 10}`, map[string]string{"Idempotency-Key": k})
			expectError(t, r, 400, api.KindBadRequest, "Idempotency-Key must be between 8 and 255 characters")
		}
		for _, k := range []string{"12345678", strings.Repeat("k", 255)} {
			if r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 10}`, map[string]string{"Idempotency-Key": k}); r.status != 201 {
				t.Errorf("key of %d chars: %d", len(k), r.status)
			}
		}
	})
	t.Run("keys are per wallet", func(t *testing.T) {
		h := map[string]string{"Idempotency-Key": "order-0001-key", "X-Sub-Account": "loja-a"}
		r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 11}`, h)
		if r.status != 201 {
			t.Fatalf("same key in another wallet: %d %s", r.status, r.body)
		}
	})
	t.Run("refusals are not cached", func(t *testing.T) {
		h := map[string]string{"Idempotency-Key": "refused-key-1"}
		expectError(t, e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 0.5}`, h), 400, api.KindBadRequest, "")
		if r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 5}`, h); r.status != 201 {
			t.Errorf("after a refusal: %d", r.status)
		}
	})
	t.Run("TTL 24 hours", func(t *testing.T) {
		h := map[string]string{"Idempotency-Key": "ttl-key-0001"}
		var first, again, later api.PixCharge
		e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 3}`, h).decode(t, &first)
		e.clock.Advance(24*time.Hour - time.Second)
		e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 3}`, h).decode(t, &again)
		if again.ID != first.ID {
			t.Fatalf("before the TTL a new charge was created")
		}
		e.clock.Advance(time.Second)
		r := e.full(http.MethodPost, "/pix", `{"description":"Venda","amount": 4}`, h) // other body: no longer a conflict
		if r.status != 201 {
			t.Fatalf("after the TTL: %d %s", r.status, r.body)
		}
		r.decode(t, &later)
		if later.ID == first.ID {
			t.Error("after the TTL the cached charge was returned")
		}
	})
	t.Run("client retries after a dropped response get the same charge", func(t *testing.T) {
		n := e.charges()
		e.srv.mu.Lock()
		e.srv.faults = Faults{DropResponseAfterCommit: 0.5}
		e.srv.mu.Unlock()
		defer func() {
			e.srv.mu.Lock()
			e.srv.faults = Faults{}
			e.srv.mu.Unlock()
		}()
		c := e.client("mp_test_full", api.WithRetry(api.RetryPolicy{MaxAttempts: 20}))
		for i := range 5 {
			pc, err := c.CreatePix(context.Background(), &api.CreatePixRequest{Description: "Venda", Amount: api.Money(1000 + i)})
			if err != nil {
				t.Fatalf("create %d: %v", i, err)
			}
			if pc.Amount != api.Money(1000+i) {
				t.Errorf("amount %v", pc.Amount)
			}
		}
		if got := e.charges() - n; got != 5 {
			t.Errorf("%d charges created for 5 creates with drops, want 5", got)
		}
	})
}

// --- GET /transactions/{id} -------------------------------------------------------------------

func TestLookupOrder(t *testing.T) {
	e := newEnv(t)
	a := e.createPix(map[string]any{"description": "Venda", "amount": 10, "externalReference": "pedido-1"}, map[string]string{"Idempotency-Key": "lookup-key-A"})
	for _, id := range []string{a.ID, "pedido-1", "lookup-key-A"} {
		if tx := e.getTx(id, nil); tx.ID != a.ID {
			t.Errorf("lookup %q found %s, want %s", id, tx.ID, a.ID)
		}
	}
	// An externalReference equal to another charge's id: the id wins.
	b := e.createPix(map[string]any{"description": "Venda", "amount": 11, "externalReference": a.ID}, nil)
	if tx := e.getTx(a.ID, nil); tx.ID != a.ID {
		t.Errorf("id lookup returned %s (the charge whose externalReference is that id)", tx.ID)
	}
	// An idempotency key equal to another charge's externalReference: the externalReference wins.
	c := e.createPix(map[string]any{"description": "Venda", "amount": 12}, map[string]string{"Idempotency-Key": "pedido-1"})
	if tx := e.getTx("pedido-1", nil); tx.ID != a.ID {
		t.Errorf("externalReference lookup returned %s, want %s (not %s)", tx.ID, a.ID, c.ID)
	}
	_ = b
	// Through the client.
	tx, err := e.client("mp_test_full").GetTransaction(context.Background(), "lookup-key-A")
	if err != nil || tx.ID != a.ID {
		t.Errorf("client lookup: %v %v", tx, err)
	}
	t.Run("404 details", func(t *testing.T) {
		r := e.full(http.MethodGet, "/transactions/nao-existe", nil, nil)
		m := expectError(t, r, 404, api.KindNotFound, "")
		if detail(m, "resource") != "Transaction" || detail(m, "id") != "nao-existe" {
			t.Errorf("details %v", m["details"])
		}
	})
	t.Run("scoped to the wallet", func(t *testing.T) {
		for _, id := range []string{a.ID, "pedido-1", "lookup-key-A"} {
			r := e.full(http.MethodGet, "/transactions/"+id, nil, map[string]string{"X-Sub-Account": "loja-a"})
			expectError(t, r, 404, api.KindNotFound, "")
		}
	})
}

// --- Sub-accounts -----------------------------------------------------------------------------

func TestSubAccounts_Create(t *testing.T) {
	e := newEnv(t)
	t.Run("created approved with zero balance", func(t *testing.T) {
		r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "nova-loja", "name": "Nova Loja"}, nil)
		if r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var sa api.SubAccount
		r.decode(t, &sa)
		if sa.Reference != "nova-loja" || sa.Status != api.SubAccountApproved || sa.ID == "" || !sa.CreatedAt.Equal(testStart) {
			t.Errorf("%+v", sa)
		}
		if w := e.wallets("mp_test_full")["nova-loja"]; w.Available != 0 {
			t.Errorf("balance %v", w.Available)
		}
	})
	t.Run("principal reserved", func(t *testing.T) {
		r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "principal", "name": "x"}, nil)
		m := expectError(t, r, 400, api.KindBadRequest, "")
		if detail(m, "code") != api.CodeSubAccountInvalidReference {
			t.Errorf("details %v", m["details"])
		}
	})
	for _, ref := range []string{"a", "-abc", "Abc", "abc!", strings.Repeat("a", 33), ""} {
		t.Run("pattern "+ref, func(t *testing.T) {
			r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": ref, "name": "x"}, nil)
			expectError(t, r, 400, api.KindBadRequest, "")
		})
	}
	t.Run("name max 255", func(t *testing.T) {
		r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "nome-longo", "name": strings.Repeat("n", 256)}, nil)
		expectError(t, r, 400, api.KindBadRequest, "name must be shorter than or equal to 255 characters")
	})
	t.Run("taken 409", func(t *testing.T) {
		r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "loja-a", "name": "x"}, nil)
		m := expectError(t, r, 409, api.KindConflict, "")
		if detail(m, "code") != api.CodeSubAccountReferenceTaken || detail(m, "resource") != "Sub-account" || detail(m, "field") != "reference" || detail(m, "value") != "loja-a" {
			t.Errorf("envelope %v", m)
		}
		_, err := e.client("mp_test_full").CreateSubAccount(context.Background(), &api.CreateSubAccountRequest{Reference: "loja-a", Name: "x"})
		if !errors.Is(err, api.ErrSubAccountReferenceTaken) {
			t.Errorf("client: %v", err)
		}
	})
	t.Run("same reference in the other environment is distinct", func(t *testing.T) {
		r := e.as("mp_live_full", http.MethodPost, "/sub-accounts", map[string]string{"reference": "nova-loja", "name": "Nova"}, nil)
		if r.status != 201 {
			t.Errorf("%d %s", r.status, r.body)
		}
	})
	t.Run("quota 409", func(t *testing.T) {
		// Quota 6: 4 seeded + nova-loja = 5; one more fits.
		if r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "sexta", "name": "x"}, nil); r.status != 201 {
			t.Fatalf("sixth: %d %s", r.status, r.body)
		}
		r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "setima", "name": "x"}, nil)
		m := expectError(t, r, 409, api.KindConflict, "")
		if detail(m, "code") != api.CodeSubAccountQuotaExceeded || detail(m, "resource") == nil || detail(m, "field") == nil || detail(m, "value") == nil {
			t.Errorf("envelope %v", m)
		}
	})
}

func TestSubAccounts_ListAndAccount(t *testing.T) {
	e := newEnv(t)
	r := e.full(http.MethodGet, "/sub-accounts", nil, nil)
	var lb struct {
		Data []api.SubAccount `json:"data"`
	}
	r.decode(t, &lb)
	if m := r.json(t); len(m) != 1 || m["data"] == nil {
		t.Errorf("listing members %v, want only data", m)
	}
	if len(lb.Data) != 4 || lb.Data[0].Reference != "loja-a" || lb.Data[0].Status != api.SubAccountActive ||
		lb.Data[1].Status != api.SubAccountApproved || lb.Data[3].Status != api.SubAccountSuspended {
		t.Errorf("listing %+v", lb)
	}
	subs, err := e.client("mp_test_full").ListSubAccounts(context.Background())
	if err != nil || len(subs) != 4 || !subs[0].Status.Usable() || subs[3].Status.Usable() {
		t.Errorf("client listing: %+v %v", subs, err)
	}
	acc, err := e.client("mp_test_full").GetAccount(context.Background())
	if err != nil || acc.Status != api.AccountApproved || acc.Balance.Available == nil || acc.Balance.Held == nil ||
		acc.Balance.Promotional == nil || acc.Balance.Total == nil || acc.Balance.Currency != "BRL" || acc.Balance.UpdatedAt == nil {
		t.Errorf("account %+v %v", acc, err)
	}
	ws := e.wallets("mp_test_full")
	if acc.ID != ws["principal"].ID {
		t.Errorf("account id %q, want %q", acc.ID, ws["principal"].ID)
	}
	acc, err = e.client("mp_test_full").GetAccount(context.Background(), api.WithSubAccount("loja-a"))
	if err != nil || acc.ID != ws["loja-a"].ID || acc.Status != api.AccountApproved {
		t.Errorf("sub-account %+v %v", acc, err)
	}
}

// --- Balance blocks ---------------------------------------------------------------------------

func TestBalanceBlocks_FilterAndLifecycle(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	secret := e.register("mp_test_full", h, "")
	pay := func(amount float64) string {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": amount}, nil)
		if r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil); r.status != 200 {
			t.Fatalf("pay: %d %s", r.status, r.body)
		}
		ev, _ := h.nextEvent(t) // payment_completed
		if ev.Kind != api.EventPaymentCompleted {
			t.Fatalf("event %s", ev.Kind)
		}
		return pc.ID
	}
	ids := []string{pay(100), pay(100), pay(100), pay(100)}
	before := e.wallets("mp_test_full")["principal"]
	var blocks []api.BalanceBlock
	for _, id := range ids {
		r := e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": id, "amount": 30, "blockType": "med", "reason": "golpe"}, nil)
		if r.status != 201 {
			t.Fatalf("create block: %d %s", r.status, r.body)
		}
		var b api.BalanceBlock
		r.decode(t, &b)
		blocks = append(blocks, b)
		ev, req := h.nextEvent(t)
		if ev.Kind != api.EventBalanceBlockCreated || ev.BalanceBlock == nil || ev.BalanceBlock.ID != b.ID {
			t.Errorf("event %+v", ev)
		}
		if err := api.VerifySignature(req.body, req.header.Get(api.SignatureHeader), secret); err != nil {
			t.Error(err)
		}
	}
	w := e.wallets("mp_test_full")["principal"]
	if w.Available != before.Available-12000 || w.Blocked != before.Blocked+12000 {
		t.Errorf("after 4 blocks of 30: available %v blocked %v (before %v %v)", w.Available, w.Blocked, before.Available, before.Blocked)
	}
	resolve := func(id string, st api.BlockStatus) resp {
		return e.full(http.MethodPost, "/_sandbox/balance-blocks/"+id+"/resolve", map[string]any{"status": st, "resolutionReason": "ok"}, nil)
	}
	if r := resolve(blocks[1].ID, api.BlockDefended); r.status != 200 {
		t.Fatalf("defend: %d %s", r.status, r.body)
	}
	if r := resolve(blocks[2].ID, api.BlockApproved); r.status != 200 {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	if ev, _ := h.nextEvent(t); ev.Kind != api.EventBalanceBlockApproved {
		t.Errorf("event %s", ev.Kind)
	}
	if r := resolve(blocks[3].ID, api.BlockRejected); r.status != 200 {
		t.Fatalf("reject: %d %s", r.status, r.body)
	}
	if ev, _ := h.nextEvent(t); ev.Kind != api.EventBalanceBlockRejected {
		t.Errorf("event %s", ev.Kind)
	}
	w = e.wallets("mp_test_full")["principal"]
	// Approved: the 30 went to the payer; rejected: the 30 came back.
	if w.Available != before.Available-9000 || w.Blocked != before.Blocked+6000 {
		t.Errorf("after resolutions: available %v blocked %v", w.Available, w.Blocked)
	}
	expectError(t, resolve(blocks[2].ID, api.BlockRejected), 409, api.KindConflict, "")
	expectError(t, resolve(blocks[0].ID, "awaiting_response"), 400, api.KindBadRequest, "")
	expectError(t, resolve("nao-existe", api.BlockApproved), 404, api.KindNotFound, "")

	for st, want := range map[api.BlockStatus]int{api.BlockAwaitingResponse: 1, api.BlockDefended: 1, api.BlockApproved: 1, api.BlockRejected: 1, "": 4} {
		l, err := e.client("mp_test_full").ListBalanceBlocks(context.Background(), st)
		if err != nil || l.Total != want || len(l.Items) != want {
			t.Errorf("status %q: %v %v", st, l, err)
			continue
		}
		for _, b := range l.Items {
			if st != "" && b.Status != st {
				t.Errorf("filter %s returned %s", st, b.Status)
			}
		}
	}
	expectError(t, e.full(http.MethodGet, "/balance-blocks?status=open", nil, nil), 400, api.KindBadRequest, "")
	// Blocks belong to the wallet.
	var l api.BalanceBlockList
	e.full(http.MethodGet, "/balance-blocks", nil, map[string]string{"X-Sub-Account": "loja-a"}).decode(t, &l)
	if l.Total != 0 {
		t.Errorf("loja-a sees %d blocks of the main wallet", l.Total)
	}
}

// --- Projects ---------------------------------------------------------------------------------

func TestProjects_PaginationAndSorting(t *testing.T) {
	e := newEnv(t)
	c := e.client("mp_test_full")
	names := func(q api.ProjectQuery) ([]string, *api.ProjectList) {
		t.Helper()
		l, err := c.ListProjects(context.Background(), q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		var out []string
		for _, p := range l.Items {
			out = append(out, p.Name)
		}
		return out, l
	}
	got, l := names(api.ProjectQuery{})
	if l.Total != 3 || l.Page != 1 || l.Limit != 20 || l.TotalPages != 1 || strings.Join(got, ",") != "Gamma,alpha,Beta" {
		t.Errorf("defaults (createdAt desc): %v %+v", got, l)
	}
	if got, _ := names(api.ProjectQuery{SortBy: "name", SortOrder: "asc"}); strings.Join(got, ",") != "alpha,Beta,Gamma" {
		t.Errorf("name asc: %v", got)
	}
	if got, _ := names(api.ProjectQuery{SortBy: "createdAt", SortOrder: "asc"}); strings.Join(got, ",") != "Beta,alpha,Gamma" {
		t.Errorf("createdAt asc: %v", got)
	}
	if got, _ := names(api.ProjectQuery{SortBy: "updatedAt", SortOrder: "desc"}); len(got) != 3 {
		t.Errorf("updatedAt: %v", got)
	}
	got, l = names(api.ProjectQuery{Page: 2, Limit: 2, SortBy: "name", SortOrder: "asc"})
	if strings.Join(got, ",") != "Gamma" || l.TotalPages != 2 || l.Page != 2 || l.Limit != 2 {
		t.Errorf("page 2 of 2: %v %+v", got, l)
	}
	got, l = names(api.ProjectQuery{Page: 5, Limit: 2})
	if len(got) != 0 || l.Total != 3 {
		t.Errorf("page past the end: %v %+v", got, l)
	}
	for q, param := range map[string]string{
		"page=0": "page", "page=x": "page", "limit=0": "limit", "limit=101": "limit", "sortBy=price": "sortBy", "sortOrder=up": "sortOrder",
	} {
		r := e.full(http.MethodGet, "/projects?"+q, nil, nil)
		m := expectError(t, r, 400, api.KindBadRequest, "")
		if msg, _ := m["message"].(string); !strings.HasPrefix(msg, param+" ") {
			t.Errorf("%s: message %q does not name %s", q, msg, param)
		}
	}
	if r := e.full(http.MethodGet, "/projects?limit=100&page=1", nil, nil); r.status != 200 {
		t.Errorf("limit 100: %d", r.status)
	}
}

// --- Real codes -------------------------------------------------------------------------------

func TestCodes_BRCodeAndQR(t *testing.T) {
	e := newEnv(t)
	pc, err := e.client("mp_test_full").CreatePix(context.Background(), &api.CreatePixRequest{Amount: 12345, Description: "Pão de queijo"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := api.ParseBRCode(pc.PixCopyPaste)
	if err != nil {
		t.Fatalf("pixCopyPaste is not a valid BR Code: %v", err)
	}
	if err := b.CheckAmount(pc.Amount); err != nil {
		t.Error(err)
	}
	if !strings.EqualFold(b.GUI, api.PixGUI) || b.MerchantName != "LOJA TESTE LTDA" || b.MerchantCity != "CURITIBA" || b.TxID == "" ||
		!strings.HasPrefix(strings.ReplaceAll(pc.ID, "-", ""), b.TxID) {
		t.Errorf("code fields %+v", b)
	}
	text := decodeQR(t, pc.QRCodeBase64)
	if text != pc.PixCopyPaste {
		t.Errorf("QR decodes to %q, want %q", text, pc.PixCopyPaste)
	}
}

// --- Money movements --------------------------------------------------------------------------

func TestPay_SettlementWithSplit(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	before := e.wallets("mp_test_full")
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 100, "externalReference": "venda-42",
		"split": []map[string]any{{"subAccount": "loja-b", "amount": 30}, {"subAccount": "loja-a", "amount": 20.5}}}, nil)
	var tx api.Transaction
	r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerName: "Maria", PayerDocument: "123.456.789-09"}, nil)
	if r.status != 200 {
		t.Fatalf("pay: %d %s", r.status, r.body)
	}
	r.decode(t, &tx)
	if tx.Status != api.StatusCompleted || tx.PaidAt == nil || !tx.PaidAt.Equal(testStart) || tx.CounterpartName != "Maria" || tx.CounterpartDocument != "12345678909" {
		t.Errorf("paid transaction %+v", tx)
	}
	if len(tx.E2EID) != 32 || tx.E2EID[0] != 'E' || tx.E2EID[9:21] != testStart.Format("200601021504") {
		t.Errorf("e2eId %q", tx.E2EID)
	}
	if tx.PixCopyPaste != "" || tx.ExpiresAt != nil {
		t.Errorf("pixCopyPaste/expiresAt kept after payment")
	}
	after := e.wallets("mp_test_full")
	if d := after["principal"].Available - before["principal"].Available; d != 10000-99-3000-2050 {
		t.Errorf("principal moved %v, want 100 - 0.99 - 30 - 20.50", d)
	}
	if d := after["loja-b"].Available - before["loja-b"].Available; d != 3000 {
		t.Errorf("loja-b moved %v", d)
	}
	if d := after["loja-a"].Available - before["loja-a"].Available; d != 2050 {
		t.Errorf("loja-a moved %v", d)
	}
	ev, _ := h.nextEvent(t)
	if ev.Kind != api.EventPaymentCompleted || ev.TransactionID != pc.ID || ev.SubAccount != "" || ev.ExternalReference != "venda-42" ||
		len(ev.Split) != 2 || ev.Split[0] != (api.SplitItem{SubAccount: "loja-b", Amount: 3000}) || ev.Split[1] != (api.SplitItem{SubAccount: "loja-a", Amount: 2050}) {
		t.Errorf("payment_completed %+v", ev)
	}
	// Statement lines: readable in their own wallets, linked by description.
	lines := e.statement(pc.ID)
	want := []struct {
		wallet string
		typ    api.TxType
		amount api.Money
		desc   string
	}{
		{"principal", api.TypeFee, -99, ""},
		{"principal", api.TypeInternalTransfer, -3000, "Split enviado para loja-b"},
		{"loja-b", api.TypeInternalTransfer, 3000, "Split recebido do pagamento " + pc.ID},
		{"principal", api.TypeInternalTransfer, -2050, "Split enviado para loja-a"},
		{"loja-a", api.TypeInternalTransfer, 2050, "Split recebido do pagamento " + pc.ID},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d statement lines, want %d", len(lines), len(want))
	}
	for i, w := range want {
		l := lines[i]
		var hdr map[string]string
		if w.wallet != "principal" {
			hdr = map[string]string{"X-Sub-Account": w.wallet}
		}
		got := e.getTx(l.id, hdr)
		if got.Type != w.typ || got.Amount != w.amount || (w.desc != "" && got.Description != w.desc) || got.Status != api.StatusCompleted {
			t.Errorf("line %d: %+v, want %+v", i, got, w)
		}
		if w.wallet != "principal" {
			if r := e.full(http.MethodGet, "/transactions/"+l.id, nil, nil); r.status != 404 {
				t.Errorf("line %d of %s readable from the main wallet", i, w.wallet)
			}
		}
	}
	t.Run("paying twice 409", func(t *testing.T) {
		expectError(t, e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil), 409, api.KindConflict, "")
	})
	t.Run("split to principal from a sub-account", func(t *testing.T) {
		before := e.wallets("mp_test_full")
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{{"subAccount": "principal", "amount": 4}}}, map[string]string{"X-Sub-Account": "loja-a"})
		e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil)
		after := e.wallets("mp_test_full")
		if d := after["principal"].Available - before["principal"].Available; d != 400 {
			t.Errorf("principal received %v", d)
		}
		if d := after["loja-a"].Available - before["loja-a"].Available; d != 1000-99-400 {
			t.Errorf("loja-a kept %v", d)
		}
		lines := e.statement(pc.ID)
		if len(lines) != 3 || lines[1].desc != "Split enviado para a conta principal" {
			t.Errorf("lines %+v", lines)
		}
		ev, _ := h.nextEvent(t) // loja-a has no endpoint: delivered to the main account's
		if ev.SubAccount != "loja-a" || len(ev.Split) != 1 || ev.Split[0].SubAccount != "principal" {
			t.Errorf("event %+v", ev)
		}
	})
}

type line struct {
	id, wallet, desc string
	amount           api.Money
}

// statement lists the lines linked to a charge in creation order.
func (e *env) statement(chargeID string) []line {
	e.srv.mu.Lock()
	defer e.srv.mu.Unlock()
	var out []*tx
	for _, t := range e.srv.txs {
		if t.parentID == chargeID {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	res := make([]line, len(out))
	for i, t := range out {
		res[i] = line{id: t.id, wallet: t.wallet.label(), desc: t.description, amount: t.amount}
	}
	return res
}

func TestSettlement_ReducedLastLegAfterFeeRise(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	split := []map[string]any{{"subAccount": "loja-a", "amount": 5}, {"subAccount": "loja-b", "amount": 4.01}}
	reduced := e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": split}, nil) // sum 9.01 == net at fee 0.99
	dropped := e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": split}, nil)
	if err := ctl.SetFee(ctx, 150); err != nil {
		t.Fatal(err)
	}
	before := e.wallets("mp_test_full")
	if err := ctl.Pay(ctx, reduced.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	ev, _ := h.nextEvent(t)
	if len(ev.Split) != 2 || ev.Split[0].Amount != 500 || ev.Split[1].Amount != 350 {
		t.Errorf("distributed %+v, want loja-a 5.00 and loja-b 3.50", ev.Split)
	}
	after := e.wallets("mp_test_full")
	if after["principal"].Available != before["principal"].Available {
		t.Errorf("originator kept %v, want 0", after["principal"].Available-before["principal"].Available)
	}
	if after["loja-b"].Available-before["loja-b"].Available != 350 {
		t.Errorf("loja-b got %v", after["loja-b"].Available-before["loja-b"].Available)
	}
	// Fee above the first leg's room: the last leg does not happen at all.
	if err := ctl.SetFee(ctx, 600); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Pay(ctx, dropped.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	ev, _ = h.nextEvent(t)
	if len(ev.Split) != 1 || ev.Split[0] != (api.SplitItem{SubAccount: "loja-a", Amount: 400}) {
		t.Errorf("distributed %+v, want only loja-a 4.00", ev.Split)
	}
	if n := len(e.statement(dropped.ID)); n != 3 {
		t.Errorf("%d statement lines, want fee + one leg (3)", n)
	}
	// A new charge is validated against the new fee.
	r := e.full(http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{{"subAccount": "loja-a", "amount": 4.01}}}, nil)
	expectError(t, r, 400, api.KindDomainError, "A soma do split (R$ 4,01) excede o líquido da cobrança (R$ 4,00 — bruto R$ 10,00 menos taxa de R$ 6,00)")
	// No split happened at all: the key is absent.
	if err := ctl.SetFee(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	none := e.createPix(map[string]any{"description": "Venda", "amount": 20, "split": []map[string]any{{"subAccount": "loja-a", "amount": 5}}}, nil)
	if err := ctl.SetFee(ctx, 2000); err != nil {
		t.Fatal(err)
	}
	_ = ctl.Pay(ctx, none.ID, "", "")
	_, req := h.nextEvent(t)
	if strings.Contains(string(req.body), `"split"`) {
		t.Errorf("payment_completed carries a split key although nothing was distributed: %s", req.body)
	}
}

func TestBlockedDeposit_CNPJPayer(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 250, "split": []map[string]any{{"subAccount": "loja-a", "amount": 10}}}, nil)
	before := e.wallets("mp_test_full")
	var tx api.Transaction
	r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerName: "Empresa X", PayerDocument: "11222333000181"}, nil)
	r.decode(t, &tx)
	if tx.Status != api.StatusFailed || tx.FailureReason == "" || tx.BlockedDeposit == nil || tx.BlockedDeposit.Reason != api.ReasonCNPJPayerNotAllowed ||
		tx.BlockedDeposit.Refund == nil || tx.BlockedDeposit.Refund.Status != api.RefundPending || tx.BlockedDeposit.Refund.E2EID != nil || tx.PaidAt != nil {
		t.Fatalf("blocked transaction %s", r.body)
	}
	after := e.wallets("mp_test_full")
	for k := range before {
		if after[k].Available != before[k].Available {
			t.Errorf("wallet %s moved: no credit, no fee, no split expected", k)
		}
	}
	if n := len(e.statement(pc.ID)); n != 0 {
		t.Errorf("%d statement lines for a blocked deposit", n)
	}
	ev, _ := h.nextEvent(t)
	if ev.Kind != api.EventPaymentFailed || ev.BlockedDeposit == nil || ev.BlockedDeposit.Refund.Status != api.RefundPending || ev.FailureReason == "" {
		t.Errorf("payment_failed %+v", ev)
	}
	// The refund settles a few seconds later (scaled: 5 s × 0.001).
	e.clock.Advance(5 * time.Millisecond)
	got := e.getTx(pc.ID, nil)
	ref := got.BlockedDeposit.Refund
	if ref.Status != api.RefundConfirmed || ref.E2EID == nil || len(*ref.E2EID) != 32 || (*ref.E2EID)[0] != 'D' || ref.SettledAt == nil || !ref.SettledAt.Equal(testStart.Add(5*time.Millisecond)) {
		t.Errorf("refund after delay %+v", ref)
	}
	t.Run("CPF payer is credited", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerDocument: "52998224725"}, nil)
		var tx api.Transaction
		r.decode(t, &tx)
		if tx.Status != api.StatusCompleted {
			t.Errorf("status %s", tx.Status)
		}
	})
	t.Run("CNPJ accepted where not blocked", func(t *testing.T) {
		r := e.as("mp_test_single", http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10}, nil)
		var pc api.PixCharge
		r.decode(t, &pc)
		r = e.as("mp_test_single", http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerDocument: "11222333000181"}, nil)
		var tx api.Transaction
		r.decode(t, &tx)
		if tx.Status != api.StatusCompleted {
			t.Errorf("status %s", tx.Status)
		}
	})
	t.Run("bad payer document", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerDocument: "123"}, nil)
		expectError(t, r, 400, api.KindBadRequest, "")
	})
}

func TestExpiry(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	before := e.wallets("mp_test_full")
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "expiresIn": 300, "split": []map[string]any{{"subAccount": "loja-a", "amount": 1}}}, nil)
	e.clock.Advance(299 * time.Second)
	if tx := e.getTx(pc.ID, nil); tx.Status != api.StatusPending {
		t.Fatalf("expired early: %s", tx.Status)
	}
	e.clock.Advance(time.Second)
	tx := e.getTx(pc.ID, nil)
	if tx.Status != api.StatusCancelled || tx.PixCopyPaste != "" || tx.ExpiresAt != nil || tx.UpdatedAt == nil || !tx.UpdatedAt.Equal(testStart.Add(300*time.Second)) {
		t.Errorf("after expiry %+v", tx)
	}
	ev, _ := h.nextEvent(t)
	if ev.Kind != api.EventPaymentExpired || ev.TransactionID != pc.ID || ev.Status != api.StatusCancelled || ev.Split != nil {
		t.Errorf("payment_expired %+v", ev)
	}
	after := e.wallets("mp_test_full")
	for k := range before {
		if after[k].Available != before[k].Available {
			t.Errorf("wallet %s moved on expiry", k)
		}
	}
	expectError(t, e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil), 409, api.KindConflict, "")
	t.Run("forced", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		if err := NewControl(e.client("mp_test_full")).Expire(context.Background(), pc.ID); err != nil {
			t.Fatal(err)
		}
		if ev, _ := h.nextEvent(t); ev.Kind != api.EventPaymentExpired {
			t.Errorf("event %s", ev.Kind)
		}
		expectError(t, e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/expire", nil, nil), 409, api.KindConflict, "")
	})
	t.Run("unknown ids 404", func(t *testing.T) {
		for _, p := range []string{"/_sandbox/charges/x/pay", "/_sandbox/charges/x/expire", "/_sandbox/transactions/x/refund", "/_sandbox/balance-blocks/x/resolve"} {
			r := e.full(http.MethodPost, p, map[string]any{"status": "approved"}, nil)
			expectError(t, r, 404, api.KindNotFound, "")
		}
		r := e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": "x"}, nil)
		expectError(t, r, 404, api.KindNotFound, "")
	})
}

func TestRefund_DebitsOnlyOriginator(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 100, "split": []map[string]any{{"subAccount": "loja-a", "amount": 99.01}}}, map[string]string{})
	if err := ctl.Pay(ctx, pc.ID, "Ana", "11144477735"); err != nil {
		t.Fatal(err)
	}
	h.nextEvent(t)
	before := e.wallets("mp_test_full")
	part := api.Money(4000)
	rt, err := ctl.RefundCharge(ctx, pc.ID, &part)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Type != api.TypeRefund || rt.Amount != -4000 || rt.Status != api.StatusCompleted || rt.E2EID == "" {
		t.Errorf("refund transaction %+v", rt)
	}
	ev, _ := h.nextEvent(t)
	if ev.Kind != api.EventRefundCompleted || ev.TransactionID != pc.ID || ev.Amount != 4000 || ev.NetAmount != 4000 || ev.FeeAmount != 0 {
		t.Errorf("refund_completed %+v", ev)
	}
	if !strings.Contains(string(ev.Raw), `"feeAmount":0.00`) {
		t.Errorf("feeAmount not sent: %s", ev.Raw)
	}
	if err := ctl.Refund(ctx, pc.ID, nil); err != nil { // the rest
		t.Fatal(err)
	}
	after := e.wallets("mp_test_full")
	if d := after["principal"].Available - before["principal"].Available; d != -10000 {
		t.Errorf("originator debited %v, want -100.00", d)
	}
	if after["principal"].Available >= 0 {
		t.Errorf("originator balance %v should be negative after refunding what it split away", after["principal"].Available)
	}
	if after["loja-a"].Available != before["loja-a"].Available {
		t.Error("split recipient was debited")
	}
	if tx := e.getTx(pc.ID, nil); tx.Status != api.StatusCompleted {
		t.Errorf("charge status after full refund %s, want completed", tx.Status)
	}
	expectError(t, e.full(http.MethodPost, "/_sandbox/transactions/"+pc.ID+"/refund", nil, nil), 409, api.KindConflict, "")
	pending := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	expectError(t, e.full(http.MethodPost, "/_sandbox/transactions/"+pending.ID+"/refund", nil, nil), 409, api.KindConflict, "")
	paid := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	_ = ctl.Pay(ctx, paid.ID, "", "")
	expectError(t, e.full(http.MethodPost, "/_sandbox/transactions/"+paid.ID+"/refund", map[string]any{"amount": 10.01}, nil), 400, api.KindBadRequest, "")
}

// --- Webhooks ---------------------------------------------------------------------------------

func TestWebhook_SignatureAndHeaders(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	ctl := NewControl(e.client("mp_test_full"))
	id, secret, err := ctl.RegisterWebhook(context.Background(), h.hs.URL+"/hook", "")
	if err != nil || id == "" || secret == "" {
		t.Fatalf("register: %q %v", id, err)
	}
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	_ = ctl.Pay(context.Background(), pc.ID, "", "")
	ev, req := h.nextEvent(t)
	if err := api.VerifySignature(req.body, req.header.Get(api.SignatureHeader), secret); err != nil {
		t.Errorf("signature: %v", err)
	}
	if !strings.HasPrefix(req.header.Get(api.SignatureHeader), "sha256=") {
		t.Errorf("signature header %q", req.header.Get(api.SignatureHeader))
	}
	if req.header.Get(api.EventIDHeader) != ev.EventID || ev.EventID == "" {
		t.Errorf("event id header %q, body %q", req.header.Get(api.EventIDHeader), ev.EventID)
	}
	if err := api.VerifySignature(req.body, req.header.Get(api.SignatureHeader), "other-secret"); err == nil {
		t.Error("signature verifies with another secret")
	}
	// The receiver of the api package accepts it (its timestamp window measured on the emulator clock).
	rcv := api.NewReceiver(secret, api.WithReceiverClock(e.clock.Now))
	rec := httptest.NewRecorder()
	hr := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(req.body)))
	for k, v := range req.header {
		hr.Header[k] = v
	}
	rcv.ServeHTTP(rec, hr)
	if rec.Code != 200 {
		t.Errorf("api.Receiver answered %d", rec.Code)
	}
}

func TestWebhook_FallbackToMainAccountEndpoint(t *testing.T) {
	e := newEnv(t)
	mainHook, subHook := newHook(t), newHook(t)
	mainSecret := e.register("mp_test_full", mainHook, "principal")
	subSecret := e.register("mp_test_full", subHook, "loja-b")
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	// loja-a has no endpoint: its event goes to the main account's, with subAccount set.
	a := e.createPix(map[string]any{"description": "Venda", "amount": 10}, map[string]string{"X-Sub-Account": "loja-a"})
	_ = ctl.Pay(ctx, a.ID, "", "")
	ev, req := mainHook.nextEvent(t)
	if ev.SubAccount != "loja-a" || ev.TransactionID != a.ID {
		t.Errorf("fallback event %+v", ev)
	}
	if err := api.VerifySignature(req.body, req.header.Get(api.SignatureHeader), mainSecret); err != nil {
		t.Error(err)
	}
	// loja-b has its own: only that one receives.
	b := e.createPix(map[string]any{"description": "Venda", "amount": 10}, map[string]string{"X-Sub-Account": "loja-b"})
	_ = ctl.Pay(ctx, b.ID, "", "")
	ev, req = subHook.nextEvent(t)
	if ev.SubAccount != "loja-b" {
		t.Errorf("own endpoint event %+v", ev)
	}
	if err := api.VerifySignature(req.body, req.header.Get(api.SignatureHeader), subSecret); err != nil {
		t.Error(err)
	}
	// Main-account events carry no subAccount.
	m := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	_ = ctl.Pay(ctx, m.ID, "", "")
	ev, _ = mainHook.nextEvent(t)
	if ev.TransactionID != m.ID || ev.SubAccount != "" || strings.Contains(string(ev.Raw), "subAccount") {
		t.Errorf("main event %s (the loja-b event must not reach the main endpoint)", ev.Raw)
	}
	mainHook.mu.Lock()
	n := len(mainHook.got)
	mainHook.mu.Unlock()
	if n != 2 {
		t.Errorf("main endpoint got %d deliveries, want 2", n)
	}
	// Unknown sub-account for an endpoint.
	r := e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]string{"url": "http://127.0.0.1:1/x", "subAccount": "fantasma"}, nil)
	expectError(t, r, 404, api.KindNotFound, "")
	r = e.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]string{"url": "ftp://x"}, nil)
	expectError(t, r, 400, api.KindBadRequest, "")
}

func TestWebhook_RetriesThenDelivered(t *testing.T) {
	e := newEnvFixture(t, testFixture(t), WithClock(realClock{}), WithWebhookScale(0.0005))
	h := newHook(t)
	h.fail = 2
	e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	_ = ctl.Pay(context.Background(), pc.ID, "", "")
	var d Delivery
	eventually(t, "delivery delivered", func() bool {
		ds, err := ctl.Deliveries(context.Background())
		if err != nil || len(ds) != 1 {
			return false
		}
		d = ds[0]
		return d.Status == DeliveryDelivered
	})
	if d.Attempts != 3 || d.LastStatusCode != 200 || d.Event != api.EventPaymentCompleted {
		t.Errorf("delivery %+v, want 3 attempts ending 200", d)
	}
	h.mu.Lock()
	got := h.got
	h.mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("endpoint saw %d attempts", len(got))
	}
	for _, r := range got[1:] {
		if string(r.body) != string(got[0].body) || r.header.Get(api.EventIDHeader) != got[0].header.Get(api.EventIDHeader) {
			t.Error("a retry changed the body or event id")
		}
	}
}

func TestWebhook_FailedAfterFiveAttempts(t *testing.T) {
	e := newEnvFixture(t, testFixture(t), WithClock(realClock{}), WithWebhookScale(0.0005))
	h := newHook(t)
	h.status = http.StatusServiceUnavailable
	e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	_ = ctl.Pay(context.Background(), pc.ID, "", "")
	var d Delivery
	eventually(t, "delivery failed", func() bool {
		ds, _ := ctl.Deliveries(context.Background())
		if len(ds) != 1 {
			return false
		}
		d = ds[0]
		return d.Status == DeliveryFailed
	})
	if d.Attempts != 5 || d.LastStatusCode != 503 {
		t.Errorf("delivery %+v", d)
	}
	h.mu.Lock()
	n := len(h.got)
	h.mu.Unlock()
	if n != 5 {
		t.Errorf("endpoint saw %d attempts, want 5", n)
	}
}

func TestWebhook_BackoffSchedule(t *testing.T) {
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := backoff(i+1, 1); got != w {
			t.Errorf("after attempt %d: %v, want %v", i+1, got, w)
		}
	}
	if got := backoff(1, 0.001); got != 2*time.Millisecond {
		t.Errorf("scaled: %v", got)
	}
}

func TestWebhook_RetryOnFakeClock(t *testing.T) {
	e := newEnvFixture(t, testFixture(t), WithWebhookScale(1))
	h := newHook(t)
	h.fail = 1
	e.register("mp_test_full", h, "")
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil)
	h.next(t)
	var d Delivery
	eventually(t, "retry scheduled", func() bool {
		var lb listBody[Delivery]
		e.full(http.MethodGet, "/_sandbox/webhook-deliveries", nil, nil).decode(t, &lb)
		if len(lb.Items) == 1 {
			d = lb.Items[0]
		}
		return d.NextAttemptAt != nil
	})
	if !d.NextAttemptAt.Equal(testStart.Add(2*time.Second)) || d.Status != DeliveryPending || d.Attempts != 1 || d.LastStatusCode != 500 {
		t.Errorf("after the first failure %+v", d)
	}
	e.clock.Advance(1999 * time.Millisecond)
	select {
	case <-h.ch:
		t.Fatal("retried before 2 s of (fake) time")
	default:
	}
	e.clock.Advance(time.Millisecond)
	h.next(t)
}

func TestControl_FeeAndFaultsValidation(t *testing.T) {
	e := newEnv(t)
	expectError(t, e.full(http.MethodPut, "/_sandbox/fee", map[string]any{"pixFee": "-1"}, nil), 400, api.KindBadRequest, "")
	expectError(t, e.full(http.MethodPut, "/_sandbox/fee", map[string]any{"pixFee": "1.001"}, nil), 400, api.KindBadRequest, "")
	if r := e.full(http.MethodPut, "/_sandbox/fee", map[string]any{"pixFee": 1.5}, nil); r.status != 200 || r.json(t)["pixFee"] != "1.50" {
		t.Errorf("numeric fee: %d %s", r.status, r.body)
	}
	expectError(t, e.full(http.MethodPut, "/_sandbox/faults", map[string]any{"error500": 2}, nil), 400, api.KindBadRequest, "")
	expectError(t, e.full(http.MethodPut, "/_sandbox/faults", map[string]any{"latencyMs": -1}, nil), 400, api.KindBadRequest, "")
	ctl := NewControl(e.client("mp_test_full"))
	if err := ctl.SetFaults(context.Background(), Faults{Error500: 1}); err != nil {
		t.Fatal(err)
	}
	r := e.full(http.MethodGet, "/account", nil, nil)
	expectError(t, r, 500, api.KindInternalError, "An unexpected error occurred")
	// Control endpoints are never affected, so faults can be cleared.
	if err := ctl.SetFaults(context.Background(), Faults{}); err != nil {
		t.Fatal(err)
	}
	if r := e.full(http.MethodGet, "/account", nil, nil); r.status != 200 {
		t.Errorf("after clearing faults: %d", r.status)
	}
	ws, err := ctl.Wallets(context.Background())
	if err != nil || len(ws) != 5 || ws[0].SubAccount != "principal" {
		t.Errorf("wallets %+v %v", ws, err)
	}
	t.Run("error500 changes nothing", func(t *testing.T) {
		_ = ctl.SetFaults(context.Background(), Faults{Error500: 1})
		n := e.charges()
		r := e.full(http.MethodPost, "/pix", map[string]any{"description": "Venda", "amount": 10}, nil)
		_ = ctl.SetFaults(context.Background(), Faults{})
		if r.status != 500 || e.charges() != n {
			t.Errorf("status %d, charges %d -> %d", r.status, n, e.charges())
		}
	})
}

func TestControl_BlockValidation(t *testing.T) {
	e := newEnv(t)
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	// Pending charge: cannot be blocked.
	expectError(t, e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": pc.ID}, nil), 409, api.KindConflict, "")
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", nil, nil)
	expectError(t, e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": pc.ID, "amount": 10.01}, nil), 400, api.KindBadRequest, "")
	expectError(t, e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": pc.ID, "blockType": "x"}, nil), 400, api.KindBadRequest, "")
	expectError(t, e.full(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{}, nil), 400, api.KindBadRequest, "")
	b, err := NewControl(e.client("mp_test_full")).CreateBlock(context.Background(), BlockRequest{TransactionID: pc.ID, BlockType: "judicial"})
	if err != nil || b.Amount != 1000 || b.BlockType != "judicial" || b.Status != api.BlockAwaitingResponse || !strings.HasPrefix(b.ReferenceNumber, "JUD-") || b.E2EID == "" {
		t.Fatalf("block %+v %v", b, err)
	}
	b, err = NewControl(e.client("mp_test_full")).ResolveBlock(context.Background(), b.ID, api.BlockApproved, "devolvido")
	if err != nil || b.Status != api.BlockApproved || b.ResolvedAt == nil || b.ResolutionReason != "devolvido" {
		t.Errorf("resolved %+v %v", b, err)
	}
}

func TestCloseStopsBackgroundWork(t *testing.T) {
	e := newEnv(t)
	e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
	if e.clock.Pending() == 0 {
		t.Fatal("no expiry timer armed for a pending charge")
	}
	e.srv.Close()
	e.srv.Close()
	if n := e.clock.Pending(); n != 0 {
		t.Errorf("%d timers left after Close", n)
	}
	e.clock.Advance(48 * time.Hour) // nothing fires, nothing panics
	e.srv.deliv.mu.Lock()
	closed := e.srv.deliv.closed
	e.srv.deliv.mu.Unlock()
	if !closed {
		t.Error("deliverer still running")
	}
}

func TestWithdrawals_AllOutcomesAndEvents(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 100}, map[string]string{"X-Sub-Account": "loja-a"})
	_ = ctl.Pay(ctx, pc.ID, "", "")
	h.nextEvent(t)
	start := e.wallets("mp_test_full")["loja-a"].Available
	cases := []struct {
		outcome string
		kinds   []api.EventKind
		status  api.TxStatus
		debit   api.Money
	}{
		{WithdrawalCompleted, []api.EventKind{api.EventWithdrawalCompleted}, api.StatusCompleted, 1000},
		{WithdrawalFailed, []api.EventKind{api.EventWithdrawalFailed}, api.StatusFailed, 0},
		{WithdrawalReversed, []api.EventKind{api.EventWithdrawalCompleted, api.EventWithdrawalReversed}, api.StatusFailed, 0},
	}
	for _, tc := range cases {
		t.Run(tc.outcome, func(t *testing.T) {
			before := e.wallets("mp_test_full")["loja-a"].Available
			tx, err := ctl.Withdraw(ctx, WithdrawalRequest{Amount: 1000, SubAccount: "loja-a", Outcome: tc.outcome})
			if err != nil {
				t.Fatal(err)
			}
			if tx.Type != api.TypeWithdrawal || tx.Amount != -1000 || tx.Status != tc.status {
				t.Errorf("withdrawal %+v", tx)
			}
			for _, k := range tc.kinds {
				ev, _ := h.nextEvent(t)
				if ev.Kind != k || ev.SubAccount != "loja-a" || ev.Amount != 1000 || ev.WithdrawalID != tx.ID || ev.ID != tx.ID {
					t.Errorf("event %+v, want %s", ev, k)
				}
			}
			if d := before - e.wallets("mp_test_full")["loja-a"].Available; d != tc.debit {
				t.Errorf("debited %v, want %v", d, tc.debit)
			}
			if got := e.getTx(tx.ID, map[string]string{"X-Sub-Account": "loja-a"}); got.Status != tc.status {
				t.Errorf("read back %s", got.Status)
			}
		})
	}
	_, err := ctl.Withdraw(ctx, WithdrawalRequest{Amount: start, SubAccount: "loja-a"})
	if !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("withdrawing more than the spendable balance: %v", err)
	}
	_, err = ctl.Withdraw(ctx, WithdrawalRequest{Amount: 1, SubAccount: "fantasma"})
	if !errors.Is(err, api.ErrSubAccountNotFound) {
		t.Errorf("unknown wallet: %v", err)
	}
}

func TestListenAndServe(t *testing.T) {
	s := New(testFixture(t), WithClock(NewFakeClock(testStart)))
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- ListenAndServe(ctx, "127.0.0.1:0", s, func(u string) { urls <- u }) }()
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v2") {
		t.Errorf("base URL %q", base)
	}
	c, err := api.NewClient(base, "mp_test_full", "s-full", api.WithClock(func() time.Time { return testStart }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListSubAccounts(ctx); err != nil {
		t.Errorf("through the listener: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("after cancel: %v", err)
	}
}
