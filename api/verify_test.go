package api

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func verifyCode(t *testing.T, amount Money) string {
	t.Helper()
	code, err := EncodeBRCode(BRCodeParams{URL: "pix.example.com/qr/v2/abc", MerchantName: "LOJA", MerchantCity: "SAO PAULO", Amount: amount})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// TestVerifyCharge: a reply that differs from the request in amount, code, split, reference or
// expiry is caught; the attack (12.34 asked, 99.99 answered with a valid code) first.
func TestVerifyCharge(t *testing.T) {
	created := time.Date(2026, 11, 23, 14, 30, 0, 0, time.UTC)
	req := &CreatePixRequest{Amount: 1234, Description: "Venda", ExpiresIn: 3600, ExternalReference: "ped-1",
		Split: []SplitItem{{SubAccount: "loja-a", Amount: 500}}}
	good := func() *PixCharge {
		return &PixCharge{ID: "tx", Status: StatusPending, Amount: 1234, PixCopyPaste: verifyCode(t, 1234),
			CreatedAt: created, ExpiresAt: created.Add(time.Hour), ExternalReference: "ped-1", Split: []SplitItem{{SubAccount: "loja-a", Amount: 500}}}
	}
	cases := []struct {
		name string
		edit func(c *PixCharge)
		want string // "" when the reply is faithful
	}{
		{"faithful", func(*PixCharge) {}, ""},
		{"split not echoed", func(c *PixCharge) { c.Split = nil }, ""},
		{"reference not echoed", func(c *PixCharge) { c.ExternalReference = "" }, ""},
		{"expiry within drift", func(c *PixCharge) { c.ExpiresAt = c.ExpiresAt.Add(90 * time.Second) }, ""},
		{"amount and code of 99.99", func(c *PixCharge) { c.Amount, c.PixCopyPaste = 9999, verifyCode(t, 9999) }, "amount is R$ 99,99, R$ 12,34 was requested"},
		{"code for another amount", func(c *PixCharge) { c.PixCopyPaste = verifyCode(t, 9999) }, "the code says R$ 99,99"},
		{"code without an amount", func(c *PixCharge) { c.PixCopyPaste = verifyCode(t, 0) }, "has no amount"},
		{"code unreadable", func(c *PixCharge) { c.PixCopyPaste = "not a code" }, "cannot be read"},
		{"split leg changed", func(c *PixCharge) { c.Split = []SplitItem{{SubAccount: "loja-x", Amount: 500}} }, "split leg 1 is loja-x"},
		{"split leg added", func(c *PixCharge) { c.Split = append(c.Split, SplitItem{SubAccount: "loja-x", Amount: 1}) }, "split has 2 legs, 1 were requested"},
		{"reference changed", func(c *PixCharge) { c.ExternalReference = "ped-2" }, `externalReference is "ped-2"`},
		{"expiry a day later", func(c *PixCharge) { c.ExpiresAt = c.ExpiresAt.Add(24 * time.Hour) }, "expires at"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := good()
			tc.edit(c)
			err := VerifyCharge(req, c)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("faithful reply refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrChargeMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Without expiresIn the default (24 h) is what the reply must honour.
	c := good()
	c.ExpiresAt = created.Add(24 * time.Hour)
	if err := VerifyCharge(&CreatePixRequest{Amount: 1234, Description: "Venda"}, &PixCharge{Amount: 1234, PixCopyPaste: c.PixCopyPaste, CreatedAt: created, ExpiresAt: c.ExpiresAt}); err != nil {
		t.Errorf("default expiry: %v", err)
	}
	// A split nobody asked for is a difference too.
	c = good()
	if err := VerifyCharge(&CreatePixRequest{Amount: 1234, Description: "Venda", ExpiresIn: 3600}, c); err == nil {
		t.Error("a reply with a split that was not requested passed")
	}
}
