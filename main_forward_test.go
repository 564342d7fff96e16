package main

import (
	"testing"

	"pixdash/api"
)

// Issue 24: a --forward-to route may take only some kinds, only some wallets, or both; an
// unknown kind or a malformed wallet is a usage error, and resend takes a bare URL only.
func TestForwardRoutesByKindAndWallet(t *testing.T) {
	ev := func(k api.EventKind, sub string) *api.Event { return &api.Event{Kind: k, SubAccount: sub} }
	for _, tc := range []struct {
		spec  string
		takes []*api.Event
		skips []*api.Event
	}{
		{"http://app/pix", []*api.Event{ev(api.EventPaymentCompleted, ""), ev(api.EventRefundCompleted, "loja-centro")}, nil},
		{"payment_completed=http://app/pix",
			[]*api.Event{ev(api.EventPaymentCompleted, ""), ev(api.EventPaymentCompleted, "loja-centro")},
			[]*api.Event{ev(api.EventRefundCompleted, "")}},
		{"wallet:loja-centro=https://app/centro",
			[]*api.Event{ev(api.EventPaymentCompleted, "loja-centro"), ev(api.EventBalanceBlockCreated, "loja-centro")},
			[]*api.Event{ev(api.EventPaymentCompleted, ""), ev(api.EventPaymentCompleted, "loja-praia")}},
		{"wallet:principal,payment_completed=http://app/main",
			[]*api.Event{ev(api.EventPaymentCompleted, "")},
			[]*api.Event{ev(api.EventRefundCompleted, ""), ev(api.EventPaymentCompleted, "loja-centro")}},
	} {
		r, err := parseForwardTo(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		for _, e := range tc.takes {
			if !r.wants(e) {
				t.Errorf("%s does not take %s of %q", tc.spec, e.Kind, e.SubAccount)
			}
		}
		for _, e := range tc.skips {
			if r.wants(e) {
				t.Errorf("%s takes %s of %q", tc.spec, e.Kind, e.SubAccount)
			}
		}
	}
	for _, bad := range []string{"payment_done=http://app", "wallet:Loja Centro=http://app", "wallet:loja-centro=ftp://app", "wallet:loja-centro"} {
		if _, err := parseForwardTo(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
