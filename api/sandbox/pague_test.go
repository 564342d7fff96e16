package sandbox

// Conformance with the deployed service's wire format (pague.dev v2): the replay fixtures in
// ../testdata/pague hold its exact shapes; the emulator's replies must have the same members,
// nesting and JSON types.

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

// pagueFixture reads a replay fixture as generic JSON.
func pagueFixture(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "pague", name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return m
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "?"
}

// sameShape checks that got has every member of want with the same JSON type, recursively
// (arrays by their first element); exact also refuses members want does not have.
func sameShape(t testing.TB, path string, want, got any, exact bool) {
	t.Helper()
	if jsonKind(want) != jsonKind(got) {
		t.Errorf("%s: %s, want %s", path, jsonKind(got), jsonKind(want))
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g := got.(map[string]any)
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s missing", path, k)
				continue
			}
			sameShape(t, path+"."+k, wv, gv, exact)
		}
		if exact {
			for k := range g {
				if _, ok := w[k]; !ok {
					t.Errorf("%s.%s is not in the service's shape", path, k)
				}
			}
		}
	case []any:
		g := got.([]any)
		if len(w) > 0 && len(g) > 0 {
			sameShape(t, path+"[0]", w[0], g[0], exact)
		}
	}
}

func decodeMap(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, b)
	}
	return m
}

func TestReaisNumber_ShortestForm(t *testing.T) {
	for _, tc := range []struct {
		m    api.Money
		want string
	}{{15075, "150.75"}, {2500, "25"}, {0, "0"}, {4990, "49.9"}, {1, "0.01"}, {10, "0.1"}, {-5, "-0.05"}, {-100, "-1"}, {17575, "175.75"}} {
		b, err := reaisNumber(tc.m).MarshalJSON()
		if err != nil || string(b) != tc.want {
			t.Errorf("%d centavos: %s %v, want %s", int64(tc.m), b, err, tc.want)
		}
	}
}

func TestAccount_PagueShape(t *testing.T) {
	e := newEnv(t)
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	// Money in the main wallet, part of it held by a block: available, held and total differ.
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 150.75}, nil)
	if err := ctl.Pay(ctx, pc.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.CreateBlock(ctx, BlockRequest{TransactionID: pc.ID, Amount: ptr(api.Money(2500))}); err != nil {
		t.Fatal(err)
	}
	ws := e.wallets("mp_test_full")
	cases := []struct {
		name        string
		sub         string
		wallet      string
		promotional api.Money
	}{
		{"main account", "", "principal", 0},
		{"principal header", "principal", "principal", 0},
		{"active sub-account", "loja-a", "loja-a", 0},
		{"sub-account with promotional credit", "loja-b", "loja-b", 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hdr map[string]string
			if tc.sub != "" {
				hdr = map[string]string{"X-Sub-Account": tc.sub}
			}
			r := e.full(http.MethodGet, "/account", nil, hdr)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			got := decodeMap(t, r.body)
			sameShape(t, "account", pagueFixture(t, "account-principal-200.json"), got, true)
			// amount is integer centavos; amountFormatted the same in reais.
			bal := got["balance"].(map[string]any)
			for _, k := range []string{"available", "promotional", "held", "total"} {
				f := bal[k].(map[string]any)
				raw, _ := json.Marshal(f["amount"])
				if strings.ContainsAny(string(raw), ".eE") {
					t.Errorf("%s.amount %s is not whole centavos", k, raw)
				}
			}
			acc, err := api.DecodeAccount(r.body)
			if err != nil {
				t.Fatalf("DecodeAccount: %v", err)
			}
			w := ws[tc.wallet]
			b := acc.Balance
			if acc.ID != w.ID || acc.Status != api.AccountApproved || *b.Available != w.Available || *b.Held != w.Blocked ||
				*b.Promotional != tc.promotional || *b.Total != w.Available+w.Blocked+tc.promotional || b.Currency != "BRL" {
				t.Errorf("account %+v balance avail %v held %v promo %v total %v; wallet %+v", acc, *b.Available, *b.Held, *b.Promotional, *b.Total, w)
			}
			if ts, _ := bal["updatedAt"].(string); !strings.HasSuffix(ts, "Z") || b.UpdatedAt == nil || b.UpdatedAt.After(testStart) {
				t.Errorf("updatedAt %q", ts)
			}
		})
	}
	t.Run("main wallet figures", func(t *testing.T) {
		acc, err := e.client("mp_test_full").GetAccount(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if *acc.Balance.Held != 2500 || *acc.Balance.Available != 15075-99-2500 || !acc.Balance.UpdatedAt.Equal(testStart) {
			t.Errorf("held %v available %v updatedAt %v", *acc.Balance.Held, *acc.Balance.Available, acc.Balance.UpdatedAt)
		}
		r := e.full(http.MethodGet, "/account", nil, nil)
		if !strings.Contains(string(r.body), `"held":{"amount":2500,"amountFormatted":25}`) {
			t.Errorf("held not in the service's form: %s", r.body)
		}
	})
	t.Run("suspended sub-account reports suspended", func(t *testing.T) {
		e.srv.mu.Lock()
		st := accountStatus(e.srv.creds["mp_test_full"].acct.wallets["suspensa"])
		e.srv.mu.Unlock()
		if st != api.AccountSuspended {
			t.Errorf("status %q", st)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestSubAccounts_DataListWithActiveSeed(t *testing.T) {
	clock := NewFakeClock(testStart)
	srv := New(nil, WithClock(clock))
	hs := newTestServer(t, srv)
	for _, id := range []string{"mp_test_demo_full", "mp_live_demo_full"} {
		t.Run(id, func(t *testing.T) {
			secret := map[string]string{"mp_test_demo_full": "demo-full-secret", "mp_live_demo_full": "demo-live-secret"}[id]
			c, err := api.NewClient(hs.URL+Prefix, id, api.Secret(secret), api.WithHTTPClient(hs.Client()), api.WithClock(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			var raw json.RawMessage
			if err := c.Do(context.Background(), http.MethodGet, "/sub-accounts", nil, &raw); err != nil {
				t.Fatal(err)
			}
			sameShape(t, "sub-accounts", pagueFixture(t, "sub-accounts-200.json"), decodeMap(t, raw), true)
			subs, err := c.ListSubAccounts(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(subs, func(s api.SubAccount) bool { return s.Reference == "loja-centro" })
			if i < 0 || subs[i].Status != api.SubAccountActive || !subs[i].Status.Usable() {
				t.Errorf("loja-centro %+v", subs)
			}
			// An active wallet works: X-Sub-Account and split destination.
			acc, err := c.GetAccount(context.Background(), api.WithSubAccount("loja-centro"))
			if err != nil || acc.Status != api.AccountApproved || acc.ID != subs[i].ID {
				t.Errorf("account of the active wallet %+v %v", acc, err)
			}
			if _, err := c.CreatePix(context.Background(), &api.CreatePixRequest{Amount: 1000, Description: "Venda",
				Split: []api.SplitItem{{SubAccount: "loja-centro", Amount: 100}}}); err != nil {
				t.Errorf("split to the active wallet: %v", err)
			}
		})
	}
	t.Run("a new sub-account answers approved and lists as stored", func(t *testing.T) {
		c, _ := api.NewClient(hs.URL+Prefix, "mp_test_demo_full", "demo-full-secret", api.WithHTTPClient(hs.Client()), api.WithClock(clock.Now))
		sa, err := c.CreateSubAccount(context.Background(), &api.CreateSubAccountRequest{Reference: "loja-nova", Name: "Loja Nova"})
		if err != nil || sa.Status != api.SubAccountApproved {
			t.Fatalf("%+v %v", sa, err)
		}
		subs, _ := c.ListSubAccounts(context.Background())
		if i := slices.IndexFunc(subs, func(s api.SubAccount) bool { return s.Reference == "loja-nova" }); i < 0 || subs[i].Status != api.SubAccountApproved {
			t.Errorf("listing %+v", subs)
		}
	})
}

// webhookCase drives one event to the hook and says what DecodeEvent must read from it.
type webhookCase struct {
	name    string
	fixture string // replay fixture whose data members the body must carry ("" none)
	exact   bool   // the data members are exactly the fixture's
	kind    api.EventKind
	trigger func(t *testing.T) (txID string, amount api.Money, sub string)
}

func TestWebhook_PagueEnvelope(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	secret := e.register("mp_test_full", h, "")
	ctl := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	c := e.client("mp_test_full")
	paid := func(t *testing.T, amount float64, extRef, sub string, split []map[string]any) api.PixCharge {
		t.Helper()
		body := map[string]any{"description": "Venda", "amount": amount, "externalReference": extRef}
		if split != nil {
			body["split"] = split
		}
		var hdr map[string]string
		if sub != "" {
			hdr = map[string]string{"X-Sub-Account": sub}
		}
		pc := e.createPix(body, hdr)
		if err := ctl.Pay(ctx, pc.ID, "Maria Pagadora", "12345678909"); err != nil {
			t.Fatal(err)
		}
		return pc
	}
	var refundCharge api.PixCharge
	cases := []webhookCase{
		{"payment_completed", "webhook-payment-completed.json", true, api.EventPaymentCompleted, func(t *testing.T) (string, api.Money, string) {
			pc := paid(t, 12.34, "pedido-12345", "", nil)
			return pc.ID, 1234, ""
		}},
		{"payment_completed of a sub-account with a split", "webhook-payment-completed-sub.json", false, api.EventPaymentCompleted, func(t *testing.T) (string, api.Money, string) {
			pc := paid(t, 30, "mesa-4", "loja-a", []map[string]any{{"subAccount": "principal", "amount": 5}})
			return pc.ID, 3000, "loja-a"
		}},
		{"refund_completed", "webhook-refund-completed.json", false, api.EventRefundCompleted, func(t *testing.T) (string, api.Money, string) {
			refundCharge = paid(t, 12.34, "", "", nil)
			h.nextEvent(t) // its payment_completed
			if _, err := c.RefundTransaction(ctx, refundCharge.ID, nil); err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(e.srv.scaled(RefundConfirmDelay))
			return refundCharge.ID, 1234, ""
		}},
		{"withdrawal_completed", "", false, api.EventWithdrawalCompleted, func(t *testing.T) (string, api.Money, string) {
			wd, err := c.CreateWithdrawal(ctx, &api.CreateWithdrawalRequest{PixKey: "loja@example.com", PixKeyType: api.PixKeyEmail,
				HolderName: "Loja A", HolderDocument: "11222333000181", HolderDocumentType: api.DocumentCNPJ, Amount: ptr(api.Money(1000)),
				ExternalReference: "saque-1"}, api.WithSubAccount("loja-a"))
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(e.srv.scaled(WithdrawalDelay))
			return wd.ID, 1000, "loja-a"
		}},
		{"withdrawal_failed", "webhook-withdrawal-failed.json", false, api.EventWithdrawalFailed, func(t *testing.T) (string, api.Money, string) {
			wd, err := c.CreateWithdrawal(ctx, &api.CreateWithdrawalRequest{PixKey: "loja@example.com", PixKeyType: api.PixKeyEmail,
				HolderName: "Loja", HolderDocument: "12345678909", HolderDocumentType: api.DocumentCPF, Amount: ptr(api.Money(500)),
				ExternalReference: "saque-2"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ctl.FailWithdrawal(ctx, wd.ID, "Chave PIX nao encontrada"); err != nil {
				t.Fatal(err)
			}
			return wd.ID, 500, ""
		}},
		{"balance_block_created", "webhook-balance-block-created.json", false, api.EventBalanceBlockCreated, func(t *testing.T) (string, api.Money, string) {
			pc := paid(t, 12.34, "", "", nil)
			h.nextEvent(t)
			if _, err := ctl.CreateBlock(ctx, BlockRequest{TransactionID: pc.ID}); err != nil {
				t.Fatal(err)
			}
			return pc.ID, 1234, ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			txID, amount, sub := tc.trigger(t)
			ev, req := h.nextEvent(t)
			// Headers: both signatures, the attempt's time in epoch ms on the emulator clock, the kind,
			// the delivery id and the event id.
			for _, hd := range []string{api.PagueSignatureHeader, api.SignatureHeader} {
				if err := api.VerifySignature(req.body, req.header.Get(hd), secret); err != nil || !strings.HasPrefix(req.header.Get(hd), "sha256=") {
					t.Errorf("%s %q: %v", hd, req.header.Get(hd), err)
				}
			}
			ms, err := strconv.ParseInt(req.header.Get(api.TimestampHeader), 10, 64)
			if err != nil || ms != e.clock.Now().UnixMilli() {
				t.Errorf("%s %q, want %d", api.TimestampHeader, req.header.Get(api.TimestampHeader), e.clock.Now().UnixMilli())
			}
			if err := api.CheckTimestamp(req.header.Get(api.TimestampHeader), e.clock.Now(), time.Second); err != nil {
				t.Error(err)
			}
			if req.header.Get(api.EventHeader) != string(tc.kind) || req.header.Get(api.EventIDHeader) != ev.EventID ||
				!strings.HasPrefix(req.header.Get("Content-Type"), "application/json") {
				t.Errorf("headers %v", req.header)
			}
			ds, err := ctl.Deliveries(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(ds, func(d Delivery) bool { return d.EventID == ev.EventID }); i < 0 || ds[i].ID != req.header.Get(api.WebhookIDHeader) {
				t.Errorf("%s %q is not the delivery id", api.WebhookIDHeader, req.header.Get(api.WebhookIDHeader))
			}
			// Body: the envelope, the event's fields inside data.
			body := decodeMap(t, req.body)
			for k := range body {
				if !slices.Contains([]string{"event", "eventId", "timestamp", "subAccount", "data"}, k) {
					t.Errorf("top-level member %q outside the envelope", k)
				}
			}
			if _, ok := body["subAccount"]; ok != (sub != "") || (sub != "" && body["subAccount"] != sub) {
				t.Errorf("subAccount %v, want %q", body["subAccount"], sub)
			}
			ts, _ := body["timestamp"].(string)
			if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(ts) {
				t.Errorf("timestamp %q is not RFC 3339 UTC with milliseconds", ts)
			}
			if tc.fixture != "" {
				want := pagueFixture(t, tc.fixture)
				sameShape(t, "webhook", map[string]any{"event": "", "eventId": "", "timestamp": "", "data": want["data"]}, body, false)
				if tc.exact {
					// data.environment is the service's too (its Node SDK names it), beyond the PHP SDK's fixtures.
					data := maps.Clone(body["data"].(map[string]any))
					if data["environment"] != "sandbox" {
						t.Errorf("data.environment %v, want sandbox", data["environment"])
					}
					delete(data, "environment")
					sameShape(t, "webhook.data", want["data"], data, true)
				}
			}
			if !ev.Envelope || ev.Kind != tc.kind || ev.SubAccount != sub || ev.Amount != amount || !ev.CreatedAt.Equal(e.clock.Now()) || ev.DecodeErr != "" {
				t.Errorf("decoded %+v", ev)
			}
			switch {
			case tc.kind.IsWithdrawal():
				if ev.WithdrawalID != txID || ev.ID != txID {
					t.Errorf("withdrawal id %q / id %q, want %s", ev.WithdrawalID, ev.ID, txID)
				}
			default:
				if ev.TransactionID != txID {
					t.Errorf("transactionId %q, want %s", ev.TransactionID, txID)
				}
			}
			switch tc.kind {
			case api.EventRefundCompleted:
				line := e.getTx(ev.ID, nil)
				if ev.OriginalTransactionID != txID || line.Type != api.TypeRefund || line.Status != api.StatusCompleted ||
					ev.NetAmount != amount || ev.FeeAmount != 0 || ev.E2EID != line.E2EID || ev.Status != "completed" {
					t.Errorf("refund event %+v, line %+v", ev, line)
				}
			case api.EventWithdrawalCompleted:
				data := body["data"].(map[string]any)
				if data["pspReference"] == nil || data["processedAt"] == nil || ev.Status != "completed" || ev.NetAmount != amount-99 || ev.FeeAmount != 99 {
					t.Errorf("withdrawal_completed %s", req.body)
				}
			case api.EventWithdrawalFailed:
				if ev.FailureReason != "Chave PIX nao encontrada" || ev.Status != "failed" || ev.ExternalReference != "saque-2" {
					t.Errorf("withdrawal_failed %s", req.body)
				}
			case api.EventBalanceBlockCreated:
				if ev.BalanceBlock == nil || ev.BalanceBlock.TransactionID != txID || ev.BalanceBlock.Amount != amount || ev.BalanceBlock.Status != api.BlockAwaitingResponse {
					t.Errorf("block %+v", ev.BalanceBlock)
				}
			case api.EventPaymentCompleted:
				if ev.FeeAmount != 99 || ev.NetAmount != amount-99 || ev.E2EID == "" || ev.PaidAt == nil || ev.CounterpartDocument != "12345678909" {
					t.Errorf("payment_completed %s", req.body)
				}
				if sub != "" && (len(ev.Split) != 1 || ev.Split[0] != (api.SplitItem{SubAccount: "principal", Amount: 500})) {
					t.Errorf("split %+v", ev.Split)
				}
			}
			// The api package's receiver accepts the delivery as sent.
			rcv := api.NewReceiver(secret, api.WithReceiverClock(e.clock.Now))
			rec := newRecorderRequest(t, rcv, req)
			if rec != http.StatusOK {
				t.Errorf("api.Receiver answered %d", rec)
			}
		})
	}
}

// newRecorderRequest replays a received delivery into handler and returns the status.
func newRecorderRequest(t testing.TB, handler http.Handler, req hookReq) int {
	t.Helper()
	hr, err := http.NewRequest(http.MethodPost, "http://receiver/webhook", strings.NewReader(string(req.body)))
	if err != nil {
		t.Fatal(err)
	}
	hr.Header = req.header.Clone()
	rw := &statusRecorder{header: http.Header{}}
	handler.ServeHTTP(rw, hr)
	return rw.status
}

type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return len(b), nil
}
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func TestErrors_PagueDetails(t *testing.T) {
	e := newEnv(t)
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	cases := []struct {
		name    string
		method  string
		path    string
		body    any
		hdr     map[string]string
		status  int
		fixture string         // replay fixture with the same shape ("" none)
		details map[string]any // exact details (nil: none)
	}{
		{"unknown X-Sub-Account", http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "loja-sumida"}, 404,
			"error-subaccount-404.json", map[string]any{"code": "SUB_ACCOUNT_NOT_FOUND", "resource": "Sub-account", "id": "loja-sumida"}},
		{"unknown project", http.MethodGet, "/projects/2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f", nil, nil, 404,
			"error-project-404.json", map[string]any{"resource": "Project", "id": "2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f"}},
		{"unknown transaction", http.MethodGet, "/transactions/nada", nil, nil, 404, "", map[string]any{"resource": "Transaction", "id": "nada"}},
		{"several validation problems", http.MethodPost, "/pix", map[string]any{"amount": 0.5}, nil, 400,
			"error-validation-400.json", map[string]any{"code": "VALIDATION_ERROR", "field": "amount"}},
		{"one validation problem", http.MethodPost, "/pix", map[string]any{"amount": 10}, nil, 400, "", map[string]any{"code": "VALIDATION_ERROR", "field": "description"}},
		{"withdrawal validation", http.MethodPost, "/withdrawals", map[string]any{"pixKey": "x", "pixKeyType": "iban", "holderName": "A",
			"holderDocument": "12345678909", "holderDocumentType": "cpf", "amount": 10}, nil, 400, "", map[string]any{"code": "VALIDATION_ERROR", "field": "pixKeyType"}},
		{"project validation", http.MethodPost, "/projects", map[string]any{"name": "X", "color": "blue"}, nil, 400, "", map[string]any{"code": "VALIDATION_ERROR", "field": "color"}},
		{"sub-account taken", http.MethodPost, "/sub-accounts", map[string]any{"reference": "loja-a", "name": "x"}, nil, 409, "error-taken-409.json",
			map[string]any{"code": "SUB_ACCOUNT_REFERENCE_TAKEN", "resource": "Sub-account", "field": "reference", "value": "loja-a"}},
		{"suspended", http.MethodGet, "/account", nil, map[string]string{"X-Sub-Account": "suspensa"}, 403, "", map[string]any{"code": "SUB_ACCOUNT_SUSPENDED", "reference": "suspensa"}},
		{"token missing", http.MethodGet, "/account", nil, map[string]string{"Authorization": ""}, 401, "error-token-401.json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r resp
			if v, ok := tc.hdr["Authorization"]; ok && v == "" {
				r = e.raw(tc.method, tc.path, tc.body, nil)
			} else {
				r = e.full(tc.method, tc.path, tc.body, tc.hdr)
			}
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			m := decodeMap(t, r.body)
			if tr, _ := m["traceId"].(string); !hex32.MatchString(tr) || r.header.Get("X-Trace-Id") != tr {
				t.Errorf("traceId %q (header %q) is not 32 lowercase hex digits", tr, r.header.Get("X-Trace-Id"))
			}
			if _, ok := m["code"]; ok {
				t.Errorf("top-level code: business codes travel in details.code (%s)", r.body)
			}
			if tc.fixture != "" {
				sameShape(t, "error", pagueFixture(t, tc.fixture), m, false)
			}
			got, _ := m["details"].(map[string]any)
			if tc.details == nil && got != nil {
				t.Errorf("details %v, want none", got)
			}
			if tc.details != nil {
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(tc.details)
				if string(gb) != string(wb) {
					t.Errorf("details %s, want %s", gb, wb)
				}
			}
		})
	}
	t.Run("client reads the sub-account 404", func(t *testing.T) {
		_, err := e.client("mp_test_full").GetAccount(context.Background(), api.WithSubAccount("loja-sumida"))
		var ae *api.Error
		if !errors.Is(err, api.ErrSubAccountNotFound) || !errors.As(err, &ae) || ae.BusinessCode() != api.CodeSubAccountNotFound || ae.Detail("resource") != "Sub-account" {
			t.Errorf("client: %v", err)
		}
	})
}

func TestRefund_Endpoint(t *testing.T) {
	// Funds beyond the charge: the refund costs the whole amount, while the charge left it net of the fee.
	e, h, ctl, c := fundedEnv(t, 50)
	ctx := context.Background()
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 100, "externalReference": "devolver-1"}, nil)

	// A pending charge cannot be refunded.
	_, err := c.RefundTransaction(ctx, pc.ID, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 400 {
		t.Fatalf("refund of a pending charge: %v", err)
	}
	if err := ctl.Pay(ctx, pc.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	h.nextEvent(t)
	before := e.wallets("mp_test_full")["principal"].Available
	res, err := c.RefundTransaction(ctx, pc.ID, &api.RefundRequest{Reason: "Cliente desistiu"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OriginalTransactionID != pc.ID || res.PspProvider != "sandbox" || res.PspRefundTransactionID == "" || res.Status != api.RefundRequestPending {
		t.Errorf("reply %+v", res)
	}
	r := e.full(http.MethodPost, "/transactions/"+pc.ID+"/refund", nil, nil)
	expectError(t, r, 400, api.KindBadRequest, "Transaction already refunded")
	sameShape(t, "refund 400", pagueFixture(t, "error-refund-400.json"), r.json(t), false)
	if d := before - e.wallets("mp_test_full")["principal"].Available; d != 10000 {
		t.Errorf("debited %v at once, want 100.00", d)
	}
	// refund_completed arrives later, on the emulator clock.
	select {
	case req := <-h.ch:
		t.Fatalf("event before the confirmation: %s", req.body)
	case <-time.After(20 * time.Millisecond):
	}
	e.clock.Advance(e.srv.scaled(RefundConfirmDelay))
	ev, _ := h.nextEvent(t)
	if ev.Kind != api.EventRefundCompleted || ev.TransactionID != pc.ID || ev.Amount != 10000 || ev.NetAmount != 10000 || ev.FeeAmount != 0 {
		t.Errorf("refund_completed %+v", ev)
	}
	if d := before - e.wallets("mp_test_full")["principal"].Available; d != 10000 {
		t.Errorf("debited %v in all, want 100.00 once", d)
	}
	if tx := e.getTx("devolver-1", nil); tx.Status != api.StatusCompleted || tx.ID != pc.ID {
		t.Errorf("charge after the refund %+v", tx)
	}
	if line := e.getTx(ev.ID, nil); line.Type != api.TypeRefund || line.Amount != -10000 || line.Status != api.StatusCompleted || line.Metadata["reason"] != "Cliente desistiu" {
		t.Errorf("refund line %+v", line)
	}
	cases := []struct {
		name   string
		client string
		path   string
		body   any
		hdr    map[string]string
		status int
		check  func(t *testing.T, m map[string]any)
	}{
		{"unknown", "mp_test_full", "/transactions/nao-existe/refund", nil, nil, 404, func(t *testing.T, m map[string]any) {
			if detail(m, "resource") != "Transaction" || detail(m, "id") != "nao-existe" {
				t.Errorf("details %v", m["details"])
			}
		}},
		{"other wallet", "mp_test_full", "/transactions/" + pc.ID + "/refund", nil, map[string]string{"X-Sub-Account": "loja-a"}, 404, nil},
		{"reason too long", "mp_test_full", "/transactions/" + pc.ID + "/refund", map[string]any{"reason": strings.Repeat("r", 256)}, nil, 400, func(t *testing.T, m map[string]any) {
			if detail(m, "field") != "reason" || detail(m, "code") != "VALIDATION_ERROR" {
				t.Errorf("details %v", m["details"])
			}
		}},
		{"not a payment", "mp_test_full", "/transactions/" + ev.ID + "/refund", nil, nil, 400, nil},
		{"permission", "mp_test_read", "/transactions/" + pc.ID + "/refund", nil, nil, 403, func(t *testing.T, m map[string]any) {
			if m["message"] != "Insufficient permissions. Required: PIX:WRITE" {
				t.Errorf("message %v", m["message"])
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.as(tc.client, http.MethodPost, tc.path, tc.body, tc.hdr)
			if r.status != tc.status {
				t.Fatalf("%d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.check != nil {
				tc.check(t, r.json(t))
			}
		})
	}
	t.Run("originator short of balance", func(t *testing.T) {
		if r := e.full(http.MethodPost, "/sub-accounts", map[string]string{"reference": "vazia", "name": "Vazia"}, nil); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		hdr := map[string]string{"X-Sub-Account": "vazia"}
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "split": []map[string]any{{"subAccount": "principal", "amount": 9.01}}}, hdr)
		if err := ctl.Pay(ctx, pc.ID, "", ""); err != nil {
			t.Fatal(err)
		}
		h.nextEvent(t)
		r := e.full(http.MethodPost, "/transactions/"+pc.ID+"/refund", nil, hdr)
		m := expectError(t, r, 400, api.KindBadRequest, "")
		if msg, _ := m["message"].(string); !strings.HasPrefix(msg, "Insufficient balance") {
			t.Errorf("message %q", msg)
		}
		if w := e.wallets("mp_test_full")["vazia"]; w.Available != 0 {
			t.Errorf("refused refund moved money: %v", w.Available)
		}
	})
}

// fundedEnv is the emulator with a webhook endpoint for mp_test_full, whose main wallet received
// a paid charge of reais (less the fee); it returns the control and API clients of that credential.
func fundedEnv(t *testing.T, reais int) (*env, *hook, *Control, *api.Client) {
	t.Helper()
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	c := e.client("mp_test_full")
	ctl := NewControl(c)
	funds := e.createPix(map[string]any{"description": "Venda", "amount": reais}, nil)
	if err := ctl.Pay(context.Background(), funds.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	h.nextEvent(t)
	return e, h, ctl, c
}

func withdrawalReq(amount, net *api.Money) *api.CreateWithdrawalRequest {
	return &api.CreateWithdrawalRequest{PixKey: "loja@example.com", PixKeyType: api.PixKeyEmail, HolderName: "Padaria Pao Quente Ltda",
		HolderDocument: "11222333000181", HolderDocumentType: api.DocumentCNPJ, Amount: amount, NetAmount: net, ExternalReference: "saque-2026-11-23"}
}

func TestWithdrawals_Endpoint(t *testing.T) {
	// Fund the main wallet: 500.00 - 0.99.
	e, h, ctl, c := fundedEnv(t, 500)
	ctx := context.Background()
	if err := ctl.SetWithdrawalFee(ctx, 150); err != nil {
		t.Fatal(err)
	}
	balance := func() api.Money { return e.wallets("mp_test_full")["principal"].Available }

	projects, err := c.ListAllProjects(ctx)
	if err != nil || len(projects) == 0 {
		t.Fatalf("projects %v %v", projects, err)
	}
	t.Run("idempotent replay, 201 shape, lookup while processing, completion", func(t *testing.T) {
		start := balance()
		key := api.WithIdempotencyKey("saque-key-0001")
		req := withdrawalReq(ptr(api.Money(10000)), nil)
		req.ProjectID = projects[0].ID
		wd, err := c.CreateWithdrawal(ctx, req, key)
		if err != nil {
			t.Fatal(err)
		}
		if wd.Amount != 10000 || wd.FeeAmount != 150 || wd.NetAmount != 9850 || wd.Status != api.WithdrawalPending || wd.ProjectID != projects[0].ID ||
			wd.SnapshotHolderDocument != "11222333000181" || wd.ProcessedAt != nil || wd.PspReference != "" || !wd.CreatedAt.Equal(testStart) {
			t.Errorf("withdrawal %+v", wd)
		}
		sameShape(t, "withdrawal", pagueFixture(t, "withdrawal-201.json"), decodeMap(t, wd.Raw), true)
		again, err := c.CreateWithdrawal(ctx, req, key)
		if err != nil || again.ID != wd.ID || string(again.Raw) != string(wd.Raw) {
			t.Errorf("replay %+v %v", again, err)
		}
		if d := start - balance(); d != 10000 {
			t.Errorf("debited %v, want the gross 100.00 once", d)
		}
		_, err = c.CreateWithdrawal(ctx, withdrawalReq(ptr(api.Money(10001)), nil), key)
		if !errors.Is(err, api.ErrIdempotencyConflict) {
			t.Errorf("same key, other body: %v", err)
		}
		for _, id := range []string{wd.ID, "saque-key-0001", "saque-2026-11-23"} {
			tx := e.getTx(id, nil)
			if tx.ID != wd.ID || tx.Type != api.TypeWithdrawal || tx.Status != api.StatusPending || tx.Amount != -10000 || tx.CounterpartName != "Padaria Pao Quente Ltda" {
				t.Errorf("GET /transactions/%s while processing: %+v", id, tx)
			}
		}
		e.clock.Advance(e.srv.scaled(WithdrawalDelay))
		ev, _ := h.nextEvent(t)
		if ev.Kind != api.EventWithdrawalCompleted || ev.WithdrawalID != wd.ID || ev.Amount != 10000 || ev.NetAmount != 9850 || ev.FeeAmount != 150 || ev.SubAccount != "" {
			t.Errorf("withdrawal_completed %+v", ev)
		}
		if tx := e.getTx("saque-key-0001", nil); tx.Status != api.StatusCompleted || tx.E2EID == "" {
			t.Errorf("after completion %+v", tx)
		}
		if d := start - balance(); d != 10000 {
			t.Errorf("debited %v after completion", d)
		}
		// Reversed after completion: the money returns.
		got, err := ctl.ReverseWithdrawal(ctx, wd.ID, "")
		if err != nil || got.Status != api.WithdrawalReversed {
			t.Fatalf("reverse: %+v %v", got, err)
		}
		ev, _ = h.nextEvent(t)
		if ev.Kind != api.EventWithdrawalReversed || ev.WithdrawalID != wd.ID || ev.FailureReason == "" {
			t.Errorf("withdrawal_reversed %+v", ev)
		}
		if balance() != start {
			t.Errorf("balance %v after the reversal, want %v", balance(), start)
		}
		if _, err := ctl.ReverseWithdrawal(ctx, wd.ID, ""); !errors.Is(err, api.ErrConflict) {
			t.Errorf("reversing twice: %v", err)
		}
	})
	t.Run("netAmount mode adds the fee; failed before completion returns the money", func(t *testing.T) {
		start := balance()
		wd, err := c.CreateWithdrawal(ctx, withdrawalReq(nil, ptr(api.Money(9850))))
		if err != nil {
			t.Fatal(err)
		}
		if wd.Amount != 10000 || wd.NetAmount != 9850 || wd.FeeAmount != 150 {
			t.Errorf("figures %+v", wd)
		}
		if d := start - balance(); d != 10000 {
			t.Errorf("debited %v, want net + fee", d)
		}
		got, err := ctl.FailWithdrawal(ctx, wd.ID, "Chave PIX nao encontrada")
		if err != nil || got.Status != api.WithdrawalFailed || got.FailureReason != "Chave PIX nao encontrada" {
			t.Fatalf("fail: %+v %v", got, err)
		}
		ev, _ := h.nextEvent(t)
		if ev.Kind != api.EventWithdrawalFailed || ev.FailureReason != "Chave PIX nao encontrada" || ev.Amount != 10000 {
			t.Errorf("withdrawal_failed %+v", ev)
		}
		if balance() != start {
			t.Errorf("balance %v, want %v", balance(), start)
		}
		e.clock.Advance(e.srv.scaled(WithdrawalDelay)) // the completion timer was cancelled
		select {
		case req := <-h.ch:
			t.Errorf("event after the failure: %s", req.body)
		case <-time.After(20 * time.Millisecond):
		}
		if tx := e.getTx(wd.ID, nil); tx.Status != api.StatusFailed || tx.FailureReason != "Chave PIX nao encontrada" {
			t.Errorf("transaction %+v", tx)
		}
		if _, err := ctl.CompleteWithdrawal(ctx, wd.ID); !errors.Is(err, api.ErrConflict) {
			t.Errorf("completing a failed withdrawal: %v", err)
		}
	})
	t.Run("sub-account wallet and forced completion", func(t *testing.T) {
		sub := e.createPix(map[string]any{"description": "Venda", "amount": 20}, map[string]string{"X-Sub-Account": "loja-a"})
		_ = ctl.Pay(ctx, sub.ID, "", "")
		h.nextEvent(t)
		wd, err := c.CreateWithdrawal(ctx, withdrawalReq(ptr(api.Money(1000)), nil), api.WithSubAccount("loja-a"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.CompleteWithdrawal(ctx, wd.ID); err != nil {
			t.Fatal(err)
		}
		ev, _ := h.nextEvent(t)
		if ev.Kind != api.EventWithdrawalCompleted || ev.SubAccount != "loja-a" || ev.WithdrawalID != wd.ID {
			t.Errorf("event %+v", ev)
		}
		if r := e.full(http.MethodGet, "/transactions/"+wd.ID, nil, nil); r.status != 404 {
			t.Errorf("a loja-a withdrawal is visible in the main wallet: %d", r.status)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		valid := map[string]any{"pixKey": "loja@example.com", "pixKeyType": "email", "holderName": "Loja",
			"holderDocument": "123.456.789-09", "holderDocumentType": "cpf", "amount": 10}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for a, b := range valid {
				m[a] = b
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name   string
			client string
			body   any
			hdr    map[string]string
			status int
			field  string
			msg    string
		}{
			{"pixKey required", "mp_test_full", with("pixKey", nil), nil, 400, "pixKey", "pixKey should not be empty"},
			{"pixKeyType enum", "mp_test_full", with("pixKeyType", "iban"), nil, 400, "pixKeyType", ""},
			{"holderName required", "mp_test_full", with("holderName", " "), nil, 400, "holderName", ""},
			{"holderDocumentType enum", "mp_test_full", with("holderDocumentType", "rg"), nil, 400, "holderDocumentType", ""},
			{"CPF digits", "mp_test_full", with("holderDocument", "1234567890"), nil, 400, "holderDocument", "holderDocument must be a CPF of 11 digits"},
			{"neither amount", "mp_test_full", with("amount", nil), nil, 400, "amount", ""},
			{"both amounts", "mp_test_full", with("netAmount", 5), nil, 400, "amount", ""},
			{"amount minimum 1", "mp_test_full", with("amount", 0.99), nil, 400, "amount", "amount must not be less than 1"},
			{"amount not above the fee", "mp_test_full", with("amount", 1.5), nil, 400, "amount", "amount must be greater than the withdrawal fee of 1.50"},
			{"amount a number", "mp_test_full", with("amount", "10"), nil, 400, "amount", "amount must be a number"},
			{"netAmount minimum 1", "mp_test_full", map[string]any{"pixKey": "k", "pixKeyType": "random", "holderName": "Loja",
				"holderDocument": "12345678909", "holderDocumentType": "cpf", "netAmount": 0.5}, nil, 400, "netAmount", "netAmount must not be less than 1"},
			{"projectId uuid", "mp_test_full", with("projectId", "abc"), nil, 400, "projectId", "projectId must be a UUID"},
			{"unknown project", "mp_test_full", with("projectId", "99999999-9999-4999-8999-999999999999"), nil, 404, "", ""},
			{"insufficient balance", "mp_test_full", with("amount", 100000), nil, 400, "", ""},
			{"bad key", "mp_test_full", valid, map[string]string{"Idempotency-Key": "short"}, 400, "Idempotency-Key", ""},
			{"permission", "mp_test_read", valid, nil, 403, "", "Insufficient permissions. Required: WITHDRAWAL:WRITE"},
			{"suspended wallet", "mp_test_full", valid, map[string]string{"X-Sub-Account": "suspensa"}, 403, "", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				start := balance()
				r := e.as(tc.client, http.MethodPost, "/withdrawals", tc.body, tc.hdr)
				if r.status != tc.status {
					t.Fatalf("%d, want %d: %s", r.status, tc.status, r.body)
				}
				m := r.json(t)
				if tc.field != "" && (detail(m, "field") != tc.field || detail(m, "code") != "VALIDATION_ERROR") {
					t.Errorf("details %v, want field %s", m["details"], tc.field)
				}
				if tc.msg != "" && m["message"] != tc.msg {
					t.Errorf("message %v, want %q", m["message"], tc.msg)
				}
				if tc.name == "insufficient balance" {
					if msg, _ := m["message"].(string); !strings.HasPrefix(msg, "Insufficient balance") {
						t.Errorf("message %q", msg)
					}
				}
				if balance() != start {
					t.Error("a refused withdrawal moved money")
				}
			})
		}
		// WITHDRAWAL:WRITE alone is enough.
		if r := e.as("mp_test_none", http.MethodPost, "/withdrawals", valid, nil); r.status != 201 {
			t.Errorf("WITHDRAWAL:WRITE: %d %s", r.status, r.body)
		}
	})
}

func TestProjects_CreateAndGet(t *testing.T) {
	e := newEnv(t)
	c := e.client("mp_test_full")
	ctx := context.Background()
	e.clock.Advance(time.Hour)
	p, err := c.CreateProject(ctx, &api.CreateProjectRequest{Name: "Balcao", Color: "#3B82F6", Description: "Vendas no balcao", LogoURL: "https://example.com/logo.png"})
	if err != nil {
		t.Fatal(err)
	}
	if !api.IsUUID(p.ID) || p.Name != "Balcao" || p.Color != "#3B82F6" || !p.CreatedAt.Equal(testStart.Add(time.Hour)) || p.UpdatedAt != nil {
		t.Errorf("created %+v", p)
	}
	e.clock.Advance(time.Minute)
	r := e.full(http.MethodPost, "/projects", map[string]any{"name": "Delivery", "color": "#10B981", "description": "d", "logoUrl": "https://example.com/d.png"}, nil)
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	sameShape(t, "project 201", pagueFixture(t, "project-201.json"), r.json(t), true)
	r = e.full(http.MethodGet, "/projects/"+p.ID, nil, nil)
	sameShape(t, "project 200", pagueFixture(t, "project-200.json"), r.json(t), true)
	got, err := c.GetProject(ctx, p.ID)
	if err != nil || got.ID != p.ID || got.UpdatedAt == nil || got.LogoURL != "https://example.com/logo.png" || got.Description != "Vendas no balcao" {
		t.Errorf("get %+v %v", got, err)
	}
	cases := []struct {
		name   string
		client string
		body   any
		status int
		field  string
	}{
		{"same name other case", "mp_test_full", map[string]any{"name": "BALCAO", "color": "#000"}, 409, ""},
		{"seeded name", "mp_test_full", map[string]any{"name": "Alpha", "color": "#000"}, 409, ""},
		{"name required", "mp_test_full", map[string]any{"color": "#000"}, 400, "name"},
		{"name 256", "mp_test_full", map[string]any{"name": strings.Repeat("n", 256), "color": "#000"}, 400, "name"},
		{"color required", "mp_test_full", map[string]any{"name": "Nova"}, 400, "color"},
		{"color hex", "mp_test_full", map[string]any{"name": "Nova", "color": "3B82F6"}, 400, "color"},
		{"logoUrl", "mp_test_full", map[string]any{"name": "Nova", "color": "#3B82F6", "logoUrl": "ftp://x"}, 400, "logoUrl"},
		{"name type", "mp_test_full", map[string]any{"name": 5, "color": "#3B82F6"}, 400, "name"},
		{"permission", "mp_test_read", map[string]any{"name": "Nova", "color": "#3B82F6"}, 403, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.as(tc.client, http.MethodPost, "/projects", tc.body, nil)
			if r.status != tc.status {
				t.Fatalf("%d, want %d: %s", r.status, tc.status, r.body)
			}
			m := r.json(t)
			checkEnvelope(t, m, tc.status)
			if tc.field != "" && (detail(m, "field") != tc.field || detail(m, "code") != "VALIDATION_ERROR") {
				t.Errorf("details %v", m["details"])
			}
			if tc.status == 409 && (detail(m, "resource") != "Project" || detail(m, "field") != "name") {
				t.Errorf("409 details %v", m["details"])
			}
		})
	}
	_, err = c.CreateProject(ctx, &api.CreateProjectRequest{Name: "balcao", Color: "#fff"})
	if !errors.Is(err, api.ErrConflict) {
		t.Errorf("client 409: %v", err)
	}
	_, err = c.GetProject(ctx, "2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 404 || ae.Detail("resource") != "Project" || ae.Detail("id") != "2c3d4e5f-0000-4c8d-9e0f-1a2b3c4d5e6f" {
		t.Errorf("client 404: %v", err)
	}
	if r := e.as("mp_test_read", http.MethodGet, "/projects/"+p.ID, nil, nil); r.status != 403 {
		t.Errorf("GET /projects/{id} without PROJECT:READ: %d", r.status)
	}
	all, err := c.ListAllProjects(ctx)
	if err != nil || len(all) != 5 || all[0].Name != "Delivery" || all[0].UpdatedAt != nil { // list items carry no updatedAt
		t.Errorf("all projects %+v %v", all, err)
	}
	// A new project can be given to a charge.
	pc := e.createPix(map[string]any{"description": "Venda", "amount": 10, "projectId": p.ID}, nil)
	if tx := e.getTx(pc.ID, nil); tx.ProjectID != p.ID {
		t.Errorf("projectId %q", tx.ProjectID)
	}
}
