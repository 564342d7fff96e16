package api

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxExpiryDrift is how far a charge's expiresAt may be from createdAt plus the expiresIn asked.
const MaxExpiryDrift = 2 * time.Minute

// ErrChargeMismatch matches a ChargeMismatchError.
var ErrChargeMismatch = errors.New("the service's reply differs from the charge requested")

// ChargeMismatchError says how a POST /pix reply differs from its request; such a charge must
// not be shown to a customer.
type ChargeMismatchError struct {
	// Problems are English sentences, one per difference.
	Problems []string
}

// Error lists the differences.
func (e *ChargeMismatchError) Error() string {
	return ErrChargeMismatch.Error() + ": " + strings.Join(e.Problems, "; ")
}

// Is matches ErrChargeMismatch.
func (e *ChargeMismatchError) Is(target error) bool { return target == ErrChargeMismatch }

// VerifyCharge compares a 201 reply of POST /pix with the request that produced it: the
// amount, the amount inside the copy-and-paste code, the split legs when the reply lists them
// (in order, same wallets and amounts), the external reference when one was sent and echoed,
// and the expiry (createdAt plus expiresIn, or its default, within MaxExpiryDrift). It returns
// a *ChargeMismatchError naming every difference, or nil.
func VerifyCharge(req *CreatePixRequest, ch *PixCharge) error {
	if req == nil || ch == nil {
		return &ChargeMismatchError{Problems: []string{"no request or no reply to compare"}}
	}
	var ps []string
	if ch.Amount != req.Amount {
		ps = append(ps, fmt.Sprintf("amount is %s, %s was requested", ch.Amount.BRL(), req.Amount.BRL()))
	}
	if code, err := ParseBRCode(ch.PixCopyPaste); err != nil {
		ps = append(ps, "the copy-and-paste code cannot be read: "+err.Error())
	} else if err := code.CheckAmount(req.Amount); err != nil {
		ps = append(ps, "the copy-and-paste code: "+strings.TrimPrefix(err.Error(), ErrBRCodeAmount.Error()+": "))
	}
	if len(ch.Split) > 0 {
		if d := diffSplit(req.Split, ch.Split); d != "" {
			ps = append(ps, d)
		}
	}
	if req.ExternalReference != "" && ch.ExternalReference != "" && ch.ExternalReference != req.ExternalReference {
		ps = append(ps, fmt.Sprintf("externalReference is %q, %q was sent", truncate(ch.ExternalReference, 40), truncate(req.ExternalReference, 40)))
	}
	if !ch.CreatedAt.IsZero() && !ch.ExpiresAt.IsZero() {
		in := req.ExpiresIn
		if in == 0 {
			in = DefaultExpiresIn
		}
		want := ch.CreatedAt.Add(time.Duration(in) * time.Second)
		if d := ch.ExpiresAt.Sub(want); d > MaxExpiryDrift || d < -MaxExpiryDrift {
			ps = append(ps, fmt.Sprintf("expires at %s, %s after creation was requested", ch.ExpiresAt.UTC().Format(time.RFC3339), time.Duration(in)*time.Second))
		}
	}
	if len(ps) > 0 {
		return &ChargeMismatchError{Problems: ps}
	}
	return nil
}

// diffSplit describes how the legs in a reply differ from those requested ("" when equal).
func diffSplit(want, got []SplitItem) string {
	if len(want) != len(got) {
		return fmt.Sprintf("split has %d legs, %d were requested", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Sprintf("split leg %d is %s %s, %s %s was requested", i+1,
				truncate(got[i].SubAccount, 32), got[i].Amount.BRL(), want[i].SubAccount, want[i].Amount.BRL())
		}
	}
	return ""
}
