package api

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits from the spec.
const (
	TokenLifetime             = 300 * time.Second
	MinChargeAmount     Money = 100
	MinSplitAmount      Money = 1
	MaxSplitItems             = 10
	MinExpiresIn              = 300
	MaxExpiresIn              = 604800
	DefaultExpiresIn          = 86400
	MaxDescription            = 255
	MaxExternalRef            = 255
	MinIdempotencyKey         = 8
	MaxIdempotencyKey         = 255
	IdempotencyTTL            = 24 * time.Hour
	MaxSubAccountName         = 255
	MinProjectPageSize        = 1
	MaxProjectPageSize        = 100
	MaxProjectName            = 255
	MaxRefundReason           = 255
	MinWithdrawalAmount Money = 100
	// MaxWithdrawalText bounds a withdrawal's pixKey and holderName in characters: the
	// emulator's bound, which the dashboard checks too (the service documents none).
	MaxWithdrawalText = 255
)

// SubAccountRefPattern is the spec's pattern for sub-account references.
var SubAccountRefPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,31}$`)

// ValidateSubAccountRef checks a reference for creation: the pattern, and not "principal".
func ValidateSubAccountRef(ref string) error {
	if ref == WalletPrincipal {
		return fmt.Errorf("%q is reserved for the main account", WalletPrincipal)
	}
	return checkRefPattern(ref)
}

// ValidateWallet checks an X-Sub-Account value: a reference or "principal".
func ValidateWallet(ref string) error {
	if ref == WalletPrincipal {
		return nil
	}
	return checkRefPattern(ref)
}

func checkRefPattern(ref string) error {
	switch n := len(ref); {
	case n < 2:
		return fmt.Errorf("reference %q is too short: 2 to 32 characters", ref)
	case n > 32:
		return fmt.Errorf("reference is too long (%d characters): 2 to 32", utf8.RuneCountInString(ref))
	}
	if !SubAccountRefPattern.MatchString(ref) {
		return fmt.Errorf("reference %q may use only lowercase letters, digits, '-' and '_', starting with a letter or digit", truncate(ref, 40))
	}
	return nil
}

// ValidateIdempotencyKey checks the 8 to 255 character rule.
func ValidateIdempotencyKey(key string) error {
	if n := len(key); n < MinIdempotencyKey || n > MaxIdempotencyKey {
		return fmt.Errorf("idempotency key must be %d to %d characters, got %d", MinIdempotencyKey, MaxIdempotencyKey, n)
	}
	return nil
}

// Field names used by FieldProblem, matching the JSON body of POST /pix.
const (
	FieldAmount      = "amount"
	FieldDescription = "description"
	FieldExpiresIn   = "expiresIn"
	FieldExternalRef = "externalReference"
	FieldProjectID   = "projectId"
	FieldPspCredID   = "pspCredentialId"
	FieldSplit       = "split"
	FieldReference   = "reference"
	FieldName        = "name"
)

// FieldProblem is one rule of the spec a request field breaks.
type FieldProblem struct {
	Field string
	// Msg is an English sentence in the style of the service's validation messages.
	Msg string
}

// Error returns the message.
func (p FieldProblem) Error() string { return p.Msg }

// CheckCreatePix checks the body of POST /pix against the spec's field limits (not the split rules).
func CheckCreatePix(r *CreatePixRequest) []FieldProblem {
	var ps []FieldProblem
	if r.Amount < MinChargeAmount {
		ps = append(ps, FieldProblem{FieldAmount, "amount must not be less than 1"})
	}
	switch {
	case strings.TrimSpace(r.Description) == "":
		ps = append(ps, FieldProblem{FieldDescription, "description should not be empty"})
	case utf8.RuneCountInString(r.Description) > MaxDescription:
		ps = append(ps, FieldProblem{FieldDescription, "description must be shorter than or equal to 255 characters"})
	}
	if r.ExpiresIn != 0 && (r.ExpiresIn < MinExpiresIn || r.ExpiresIn > MaxExpiresIn) {
		if r.ExpiresIn < MinExpiresIn {
			ps = append(ps, FieldProblem{FieldExpiresIn, "expiresIn must not be less than 300"})
		} else {
			ps = append(ps, FieldProblem{FieldExpiresIn, "expiresIn must not be greater than 604800"})
		}
	}
	if utf8.RuneCountInString(r.ExternalReference) > MaxExternalRef {
		ps = append(ps, FieldProblem{FieldExternalRef, "externalReference must be shorter than or equal to 255 characters"})
	}
	if r.ProjectID != "" && !IsUUID(r.ProjectID) {
		ps = append(ps, FieldProblem{FieldProjectID, "projectId must be a UUID"})
	}
	if r.PspCredentialID != "" && !IsUUID(r.PspCredentialID) {
		ps = append(ps, FieldProblem{FieldPspCredID, "pspCredentialId must be a UUID"})
	}
	return ps
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a textual UUID.
func IsUUID(s string) bool { return uuidRE.MatchString(s) }
