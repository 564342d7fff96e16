package state

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"pixdash/api"
)

// Submission is a POST /pix about to be sent (or sent without a confirmed answer). It is
// persisted before the first attempt so that a crash or restart never creates a second charge:
// retries reuse Key and Request exactly, and after a restart GET /transactions/{Key} resolves it.
type Submission struct {
	Key       string               `json:"key"`
	Wallet    string               `json:"wallet,omitempty"`
	Request   api.CreatePixRequest `json:"request"`
	CreatedAt time.Time            `json:"createdAt"`
	// InFlightUntil is when no attempt of this create can still be in flight: the deadline of
	// its last attempt plus a margin for the service to act on a request it already received.
	// Until then a 404 for its key does not prove the charge was never created. Zero (records
	// written before it existed) means already past.
	InFlightUntil time.Time `json:"inFlightUntil,omitzero"`
}

// InFlight reports whether an attempt of the submission may still land at now.
func (s Submission) InFlight(now time.Time) bool { return now.Before(s.InFlightUntil) }

// LearnedFee is the originator's PIX fee as the service revealed it (in a split refusal).
type LearnedFee struct {
	Fee       api.Money `json:"fee"`
	LearnedAt time.Time `json:"learnedAt"`
	// From says what revealed it, e.g. the refusal message.
	From string `json:"from,omitempty"`
	// Wallet is the originating wallet of the refused charge.
	Wallet string `json:"wallet,omitempty"`
}

// Lookup is one transaction-inspector query.
type Lookup struct {
	Query  string    `json:"query"`
	Wallet string    `json:"wallet,omitempty"`
	At     time.Time `json:"at"`
	// Found reports whether the query matched a transaction; TxID is the one it matched.
	Found bool   `json:"found,omitempty"`
	TxID  string `json:"txId,omitempty"`
}

// ProfileFileName turns a profile name into a safe file name stem: letters, digits, '.', '-'
// and '_' are kept, anything else becomes '_' and a short hash of the original is appended so
// that different names never share a file.
func ProfileFileName(profile string) string {
	if profile == "" {
		return "default"
	}
	var b strings.Builder
	changed := false
	for _, r := range profile {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	s := b.String()
	if strings.HasPrefix(s, ".") {
		s = "_" + s[1:]
		changed = true
	}
	if len(s) > 64 {
		s = s[:64]
		changed = true
	}
	if changed {
		sum := sha256.Sum256([]byte(profile))
		s += "-" + hex.EncodeToString(sum[:4])
	}
	return s
}
