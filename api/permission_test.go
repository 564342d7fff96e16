package api

import (
	"errors"
	"net/http"
	"testing"
)

// CanCreateCharges reads the service's answer to an empty POST /pix: a refused body means the
// permission (and the wallet) passed, a 403 naming PIX:WRITE that it did not; the request
// carries no Idempotency-Key, an empty object, the wallet as X-Sub-Account, and is sent once.
func TestCanCreateCharges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   map[string]any
		wallet string
		want   func(error) bool
	}{
		{"body refused: allowed", 400, map[string]any{"statusCode": 400, "error": "Bad Request", "message": []string{"amount must be a number"},
			"details": map[string]any{"code": "VALIDATION_ERROR", "field": "amount"}}, "", func(err error) bool { return err == nil }},
		{"no permission", 403, map[string]any{"statusCode": 403, "error": "Forbidden", "message": "Insufficient permissions. Required: PIX:WRITE"}, "",
			func(err error) bool { return errors.Is(err, ErrNoChargePermission) }},
		{"sub-account refused", 403, map[string]any{"statusCode": 403, "error": "Forbidden", "message": "no", "details": map[string]any{"code": "SUB_ACCOUNT_FORBIDDEN"}}, "loja-norte",
			func(err error) bool {
				var ae *Error
				return errors.As(err, &ae) && !errors.Is(err, ErrNoChargePermission)
			}},
		{"IP outside the allow-list", 403, map[string]any{"statusCode": 403, "error": "Forbidden", "message": "IP not allowed"}, "",
			func(err error) bool { return err != nil && !errors.Is(err, ErrNoChargePermission) }},
		{"an empty body accepted", 201, map[string]any{"id": "x"}, "", func(err error) bool { return err != nil }},
		{"server error", 500, map[string]any{"statusCode": 500, "error": "InternalError", "message": "boom"}, "", func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
				ctJSON(w, tc.status, tc.body)
			})
			c := ctNewClient(t, s)
			err := c.CanCreateCharges(ctCtx(t), tc.wallet)
			if !tc.want(err) {
				t.Errorf("CanCreateCharges = %v", err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.reqs) != 1 {
				t.Fatalf("%d requests, want exactly one", len(s.reqs))
			}
			r := s.reqs[0]
			if r.Method != http.MethodPost || r.Path != "/v2/pix" || string(r.Body) != "{}" || r.Header.Get("Idempotency-Key") != "" {
				t.Errorf("request %s %s %q key %q", r.Method, r.Path, r.Body, r.Header.Get("Idempotency-Key"))
			}
			if got := r.Header.Get("X-Sub-Account"); got != tc.wallet {
				t.Errorf("X-Sub-Account = %q, want %q", got, tc.wallet)
			}
		})
	}
}
