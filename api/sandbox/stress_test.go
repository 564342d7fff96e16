package sandbox

import (
	"bytes"
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

// TestConcurrentHammer drives every kind of request from many goroutines (run with -race) and
// then checks that money was neither created nor lost and that idempotency held.
func TestConcurrentHammer(t *testing.T) {
	e := newEnv(t)
	h := newHook(t)
	e.register("mp_test_full", h, "")
	tok := e.token("mp_test_full")
	client := e.hs.Client()
	do := func(method, path string, body any, hdr map[string]string) (int, []byte, error) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, e.base+path, rd)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, b, err
	}
	const workers, rounds = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*4)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wallets := []string{"", "loja-a", "loja-b"}
			for i := range rounds {
				hdr := map[string]string{}
				if sub := wallets[(w+i)%3]; sub != "" {
					hdr["X-Sub-Account"] = sub
				}
				// Every worker uses the same key in round i: exactly one charge per key and wallet.
				hdr["Idempotency-Key"] = fmt.Sprintf("hammer-key-%03d", i)
				body := map[string]any{"description": "Venda", "amount": 10 + i, "split": []map[string]any{{"subAccount": "loja_c", "amount": 1}}}
				st, b, err := do(http.MethodPost, "/pix", body, hdr)
				if err != nil || st != 201 {
					errs <- fmt.Errorf("create: %d %v %s", st, err, b)
					continue
				}
				var pc api.PixCharge
				_ = json.Unmarshal(b, &pc)
				switch i % 4 {
				case 0, 1:
					st, b, _ = do(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{}, nil)
					if st != 200 && st != 409 { // 409: another worker paid the same charge first
						errs <- fmt.Errorf("pay: %d %s", st, b)
					}
					if i%8 == 0 {
						st, b, _ = do(http.MethodPost, "/_sandbox/transactions/"+pc.ID+"/refund", map[string]any{"amount": 1}, nil)
						if st != 201 && st != 409 && st != 400 {
							errs <- fmt.Errorf("refund: %d %s", st, b)
						}
					}
					if i%8 == 5 {
						st, b, _ = do(http.MethodPost, "/transactions/"+pc.ID+"/refund", map[string]any{"reason": "hammer"}, hdr)
						if st != 201 && st != 400 { // 400: already refunded by another worker, or not enough balance
							errs <- fmt.Errorf("public refund: %d %s", st, b)
						}
					}
					if i%8 == 1 {
						st, b, _ = do(http.MethodPost, "/_sandbox/balance-blocks", map[string]any{"transactionId": pc.ID, "amount": 2}, nil)
						if st == 201 {
							var bl api.BalanceBlock
							_ = json.Unmarshal(b, &bl)
							do(http.MethodPost, "/_sandbox/balance-blocks/"+bl.ID+"/resolve", map[string]any{"status": []string{"approved", "rejected"}[w%2]}, nil)
						}
					}
				case 2:
					do(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/expire", nil, nil)
				case 3:
					wh := map[string]string{"Idempotency-Key": fmt.Sprintf("hammer-wd-%03d", i)}
					if sub := hdr["X-Sub-Account"]; sub != "" {
						wh["X-Sub-Account"] = sub
					}
					wbody := map[string]any{"pixKey": "k@x.com", "pixKeyType": "email", "holderName": "H", "holderDocument": "12345678909",
						"holderDocumentType": "cpf", "netAmount": 1}
					st, b, _ = do(http.MethodPost, "/withdrawals", wbody, wh)
					if st != 201 && st != 400 { // 400: not enough balance
						errs <- fmt.Errorf("withdrawal: %d %s", st, b)
					}
					if st == 201 && w%2 == 0 {
						var wd api.Withdrawal
						_ = json.Unmarshal(b, &wd)
						do(http.MethodPost, "/_sandbox/withdrawals/"+wd.ID+"/fail", nil, nil)
					}
				}
				for _, p := range []string{"/transactions/" + pc.ID, "/account", "/balance-blocks", "/projects?limit=2", "/sub-accounts", "/_sandbox/wallets", "/_sandbox/webhook-deliveries"} {
					if st, b, err := do(http.MethodGet, p, nil, hdr); err != nil || st != 200 {
						errs <- fmt.Errorf("GET %s: %d %v %s", p, st, err, b)
					}
				}
				if i%5 == 0 {
					do(http.MethodPut, "/_sandbox/fee", map[string]any{"pixFee": fmt.Sprintf("0.%02d", 90+w)}, nil)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	e.clock.Advance(time.Minute) // pending refunds and withdrawals settle
	for err := range errs {
		t.Error(err)
	}
	// One charge per key and wallet.
	s := e.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	perKey := map[string]int{}
	var credited, debited api.Money
	for _, x := range s.txs {
		if x.wallet.acct.env != api.Sandbox || x.wallet.acct.name != "Loja Teste Ltda" {
			continue
		}
		switch {
		case x.typ == api.TypePayment:
			if x.idemKey != "" {
				perKey[x.wallet.label()+"/"+x.idemKey]++
			}
			if x.status == api.StatusCompleted {
				credited += x.amount
			}
		case x.typ == api.TypeFee || x.typ == api.TypeRefund:
			debited -= x.amount
		case x.typ == api.TypeWithdrawal:
			if x.idemKey != "" {
				perKey[x.wallet.label()+"/wd/"+x.idemKey]++
			}
			if x.status != api.StatusFailed { // a failed or reversed withdrawal gave the money back
				debited -= x.amount
			}
		}
	}
	for k, n := range perKey {
		if n != 1 {
			t.Errorf("key %s created %d charges", k, n)
		}
	}
	var approved api.Money
	for _, b := range s.blocks {
		if b.status == api.BlockApproved {
			approved += b.amount
		}
	}
	var total api.Money
	for _, a := range s.accounts {
		if a.name != "Loja Teste Ltda" || a.env != api.Sandbox {
			continue
		}
		for _, w := range a.wallets {
			total += w.available + w.blocked
		}
	}
	if want := credited - debited - approved; total != want {
		t.Errorf("money not conserved: wallets hold %v, payments-fees-refunds-approved blocks = %v", total, want)
	}
}

// FuzzCreatePixBody sends arbitrary bodies, keys and wallets to POST /pix: the handler never
// panics, answers 5xx only with the spec's pinned-institution error, and every 201 carries a valid
// BR Code for the charged amount.
func FuzzCreatePixBody(f *testing.F) {
	for _, s := range []string{
		`{"amount": 10}`, `{"amount": 0.5, "expiresIn": 1}`, `{"description": "x", "amount": 10}`,
		`{"amount": 10.5, "description": "café", "expiresIn": 300, "externalReference": "x"}`,
		`{"amount": 1, "split": [{"subAccount": "loja-a", "amount": 0.01}]}`,
		`{"amount": 100, "split": [{"subAccount": "principal", "amount": 99.01}]}`,
		`{"amount": 10, "pspCredentialId": "55555555-5555-4555-8555-555555555555"}`,
		`{"amount": 10, "pspCredentialId": "11111111-1111-4111-8111-111111111111", "customer": {"name": "A", "document": "1"}}`,
		`{"amount": 1e2, "metadata": {"a": [1, {"b": null}]}}`,
		`{"amount": 9999999999.99}`, `{"amount": 99999999999999999999}`, `{"amount": -0}`, `{"amount": 1.000}`,
		`{"amount": 10, "split": [null, 1, "x", {"subAccount": 5}]}`, `{"amount": 10, "expiresIn": 1e3}`,
		`[]`, `null`, ``, `{`, `{"amount": "10"}`, "{\"amount\": 10, \"description\": \"\xff\"}",
	} {
		f.Add([]byte(s), "fuzz-key-0001", uint8(0))
	}
	f.Add([]byte(`{"amount": 10}`), "", uint8(1))
	f.Add([]byte(`{"amount": 10, "split": [{"subAccount": "loja-a", "amount": 1}]}`), "short", uint8(2))

	clock := NewFakeClock(testStart)
	fx, err := ParseFixture([]byte(testFixtureTOML))
	if err != nil {
		f.Fatal(err)
	}
	srv := New(fx, WithClock(clock), WithRand(1))
	f.Cleanup(srv.Close)
	srv.mu.Lock()
	tok := srv.issueToken(srv.creds["mp_test_full"], clock.Now())
	srv.mu.Unlock()
	wallets := []string{"", "principal", "loja-a", "suspensa", "nao-existe", "Bad!"}

	f.Fuzz(func(t *testing.T, body []byte, key string, wallet uint8) {
		req := httptest.NewRequest(http.MethodPost, Prefix+"/pix", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		if wref := wallets[int(wallet)%len(wallets)]; wref != "" {
			req.Header.Set("X-Sub-Account", wref)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%d reply is not a JSON object: %q", rec.Code, rec.Body.String())
		}
		switch {
		case rec.Code == http.StatusCreated:
			var pc api.PixCharge
			if err := json.Unmarshal(rec.Body.Bytes(), &pc); err != nil {
				t.Fatalf("201 body: %v", err)
			}
			b, err := api.ParseBRCode(pc.PixCopyPaste)
			if err != nil {
				t.Fatalf("invalid BR Code %q: %v", pc.PixCopyPaste, err)
			}
			if err := b.CheckAmount(pc.Amount); err != nil {
				t.Fatal(err)
			}
			if pc.Amount < api.MinChargeAmount {
				t.Fatalf("accepted amount %v", pc.Amount)
			}
		case rec.Code >= 500:
			if m["message"] != api.MessagePaymentServiceDown {
				t.Fatalf("unexpected %d: %s (body %q)", rec.Code, rec.Body.String(), body)
			}
		default:
			if rec.Code < 400 || m["statusCode"] != float64(rec.Code) || m["error"] == "" || m["timestamp"] == nil {
				t.Fatalf("%d is not an error envelope: %s", rec.Code, rec.Body.String())
			}
			switch msg := m["message"].(type) {
			case string:
				if strings.TrimSpace(msg) == "" {
					t.Fatalf("empty message: %s", rec.Body.String())
				}
			case []any: // several validation problems at once
				if len(msg) < 2 || m["details"] == nil {
					t.Fatalf("message list without details: %s", rec.Body.String())
				}
				for _, x := range msg {
					if s, _ := x.(string); strings.TrimSpace(s) == "" {
						t.Fatalf("empty message in the list: %s", rec.Body.String())
					}
				}
			default:
				t.Fatalf("message is neither a string nor a list: %s", rec.Body.String())
			}
		}
	})
}
