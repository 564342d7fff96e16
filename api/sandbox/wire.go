package sandbox

import (
	"encoding/json"
	"time"

	"pixdash/api"
)

// PayRequest is the body of POST /_sandbox/charges/{id}/pay; empty fields get a default CPF payer.
type PayRequest struct {
	PayerName     string `json:"payerName,omitempty"`
	PayerDocument string `json:"payerDocument,omitempty"` // a CPF (11 digits) or a CNPJ (14 characters, alphanumeric too)
}

// RefundRequest is the body of POST /_sandbox/transactions/{id}/refund; no amount refunds what is left.
type RefundRequest struct {
	Amount *api.Money `json:"amount,omitempty"`
}

// BlockRequest is the body of POST /_sandbox/balance-blocks.
type BlockRequest struct {
	TransactionID string     `json:"transactionId"`
	Amount        *api.Money `json:"amount,omitempty"`    // default: the transaction's amount
	BlockType     string     `json:"blockType,omitempty"` // med (default), judicial or administrative
	Reason        string     `json:"reason,omitempty"`
}

// ResolveRequest is the body of POST /_sandbox/balance-blocks/{id}/resolve.
type ResolveRequest struct {
	Status           api.BlockStatus `json:"status"` // defended, approved or rejected
	ResolutionReason string          `json:"resolutionReason,omitempty"`
}

// FeeRequest is the body (and reply) of PUT /_sandbox/fee; fees are decimal strings such as
// "1.50". An empty field leaves that fee as it is (at least one is required); the reply has both.
type FeeRequest struct {
	PixFee        string `json:"pixFee,omitempty"`
	WithdrawalFee string `json:"withdrawalFee,omitempty"`
}

// WebhookEndpointRequest is the body of POST /_sandbox/webhook-endpoints; subAccount "" or "principal" is the main account.
// Secret, when given, is the endpoint's signing secret (so a dashboard's configured secret stays
// valid across restarts); otherwise one is generated, as the service does. Registering again the
// same url, wallet and secret returns the endpoint already there (200) instead of a second one.
type WebhookEndpointRequest struct {
	URL        string     `json:"url"`
	SubAccount string     `json:"subAccount,omitempty"`
	Secret     api.Secret `json:"secret,omitempty"`
}

// MarshalJSON sends the secret in clear: the request goes only to the emulator.
func (r WebhookEndpointRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URL        string `json:"url"`
		SubAccount string `json:"subAccount,omitempty"`
		Secret     string `json:"secret,omitempty"`
	}{r.URL, r.SubAccount, r.Secret.Reveal()})
}

// WebhookEndpoint is the reply of POST /_sandbox/webhook-endpoints; the secret is sent only there.
type WebhookEndpoint struct {
	ID         string     `json:"id"`
	URL        string     `json:"url"`
	SubAccount string     `json:"subAccount"`
	Secret     api.Secret `json:"secret"` // decodes from the reply; never printed or re-encoded
	CreatedAt  time.Time  `json:"createdAt"`
}

// endpointReply is WebhookEndpoint as the server writes it (with the secret in clear, once).
type endpointReply struct {
	ID         string    `json:"id"`
	URL        string    `json:"url"`
	SubAccount string    `json:"subAccount"`
	Secret     string    `json:"secret"`
	CreatedAt  time.Time `json:"createdAt"`
}

// Wallet is a wallet's balance as GET /_sandbox/wallets lists it.
type Wallet struct {
	SubAccount string               `json:"subAccount"` // reference, or "principal"
	ID         string               `json:"id"`
	Name       string               `json:"name"`
	Status     api.SubAccountStatus `json:"status"`
	Available  api.Money            `json:"available"`
	Blocked    api.Money            `json:"blocked"`
	Currency   string               `json:"currency"`
}

// Faults makes the API misbehave on purpose (control endpoints are never affected).
type Faults struct {
	// DropResponseAfterCommit is the probability of closing the connection after the request took effect.
	DropResponseAfterCommit float64 `json:"dropResponseAfterCommit" toml:"drop_response_after_commit"`
	// Error500 is the probability of answering 500 InternalError without doing anything.
	Error500 float64 `json:"error500" toml:"error_500"`
	// LatencyMs is added before every API request is handled.
	LatencyMs int `json:"latencyMs" toml:"latency_ms"`
	// Status5xxBurst is how many of the next API requests answer 500 InternalError without doing anything.
	Status5xxBurst int `json:"status5xxBurst" toml:"status_5xx_burst"`
	// Status429Burst is how many of the next API requests answer 429 with Retry-After, without doing anything.
	Status429Burst int `json:"status429Burst" toml:"status_429_burst"`
	// RetryAfterSeconds is the Retry-After of those 429 replies (default 1).
	RetryAfterSeconds int `json:"retryAfterSeconds" toml:"retry_after_seconds"`
	// DropReplyAfterCommit is how many of the next API requests take effect and then lose their reply (the connection closes).
	DropReplyAfterCommit int `json:"dropReplyAfterCommit" toml:"drop_reply_after_commit"`
	// RedeliveryStorm is how many more times each webhook delivered from now on is sent again (same eventId and body).
	RedeliveryStorm int `json:"redeliveryStorm" toml:"redelivery_storm"`
	// OutOfOrder sends each endpoint's waiting webhooks newest first.
	OutOfOrder bool `json:"outOfOrder" toml:"out_of_order"`
}

// MaxFaultLatencyMs bounds Faults.LatencyMs.
const MaxFaultLatencyMs = 30_000

// maxFaultCount bounds the bursts and the redelivery storm of Faults.
const maxFaultCount = 10_000

// listBody is the {"items","total"} shape of listings.
type listBody[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
}

// Withdrawal outcomes of POST /_sandbox/withdrawals.
const (
	WithdrawalCompleted = "completed" // debited; withdrawal_completed
	WithdrawalFailed    = "failed"    // debited and returned at once; withdrawal_failed
	WithdrawalReversed  = "reversed"  // debited, then returned by the institution; withdrawal_completed then withdrawal_reversed
)

// WithdrawalRequest is the body of POST /_sandbox/withdrawals (a simulated PIX withdrawal whose
// outcome is applied at once). Amount is the gross, the account's withdrawal fee included.
type WithdrawalRequest struct {
	Amount     api.Money `json:"amount"`
	SubAccount string    `json:"subAccount,omitempty"` // "" or "principal": the main account
	Outcome    string    `json:"outcome,omitempty"`    // completed (default), failed or reversed
}

// OutcomeRequest is the optional body of POST /_sandbox/withdrawals/{id}/fail and .../reverse.
type OutcomeRequest struct {
	Reason string `json:"reason,omitempty"` // failureReason; a default sentence when empty
}
