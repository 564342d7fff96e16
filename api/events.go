package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// EventKind names a webhook event; unknown kinds are kept.
type EventKind string

// Event kinds from the spec.
const (
	EventPaymentCompleted     EventKind = "payment_completed"
	EventPaymentExpired       EventKind = "payment_expired"
	EventPaymentFailed        EventKind = "payment_failed"
	EventRefundCompleted      EventKind = "refund_completed"
	EventWithdrawalCompleted  EventKind = "withdrawal_completed"
	EventWithdrawalFailed     EventKind = "withdrawal_failed"
	EventWithdrawalReversed   EventKind = "withdrawal_reversed"
	EventBalanceBlockCreated  EventKind = "balance_block_created"
	EventBalanceBlockApproved EventKind = "balance_block_approved"
	EventBalanceBlockRejected EventKind = "balance_block_rejected"
)

// EventKinds lists every kind the spec names.
var EventKinds = []EventKind{
	EventPaymentCompleted, EventPaymentExpired, EventPaymentFailed, EventRefundCompleted,
	EventWithdrawalCompleted, EventWithdrawalFailed, EventWithdrawalReversed,
	EventBalanceBlockCreated, EventBalanceBlockApproved, EventBalanceBlockRejected,
}

// Known reports whether k is one of the spec's kinds.
func (k EventKind) Known() bool {
	for _, e := range EventKinds {
		if k == e {
			return true
		}
	}
	return false
}

// IsPayment reports whether k is about a charge's payment.
func (k EventKind) IsPayment() bool {
	return k == EventPaymentCompleted || k == EventPaymentExpired || k == EventPaymentFailed
}

// IsBalanceBlock reports whether k is about a balance block.
func (k EventKind) IsBalanceBlock() bool {
	return k == EventBalanceBlockCreated || k == EventBalanceBlockApproved || k == EventBalanceBlockRejected
}

// Event is a webhook payload. Only eventId, subAccount, split, blockedDeposit, amount,
// netAmount and feeAmount are in the spec; the other fields are assumptions (see doc.go).
type Event struct {
	EventID           string          `json:"eventId"`
	Kind              EventKind       `json:"event"`
	CreatedAt         time.Time       `json:"createdAt"`
	SubAccount        string          `json:"subAccount,omitempty"`
	TransactionID     string          `json:"transactionId,omitempty"`
	ExternalReference string          `json:"externalReference,omitempty"`
	Status            TxStatus        `json:"status,omitempty"`
	Amount            Money           `json:"amount,omitempty"`
	NetAmount         Money           `json:"netAmount,omitempty"`
	FeeAmount         Money           `json:"feeAmount,omitempty"`
	Split             []SplitItem     `json:"split,omitempty"`
	BlockedDeposit    *BlockedDeposit `json:"blockedDeposit,omitempty"`
	E2EID             string          `json:"e2eId,omitempty"`
	PaidAt            *time.Time      `json:"paidAt,omitempty"`
	CounterpartName   string          `json:"counterpartName,omitempty"`
	FailureReason     string          `json:"failureReason,omitempty"`
	BalanceBlock      *BalanceBlock   `json:"balanceBlock,omitempty"`
	// Raw is the payload exactly as received.
	Raw json.RawMessage `json:"-"`
}

// Wallet returns the wallet the event belongs to ("principal" when subAccount is absent).
func (e *Event) Wallet() string {
	if e.SubAccount == "" {
		return WalletPrincipal
	}
	return e.SubAccount
}

// ErrEventInvalid reports a payload that is not a usable event.
var ErrEventInvalid = errors.New("invalid event payload")

// DecodeEvent parses a webhook payload, keeping the raw bytes; it needs eventId and event.
func DecodeEvent(body []byte) (*Event, error) {
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEventInvalid, err)
	}
	if e.EventID == "" {
		return nil, fmt.Errorf("%w: eventId missing", ErrEventInvalid)
	}
	if e.Kind == "" {
		return nil, fmt.Errorf("%w: event kind missing", ErrEventInvalid)
	}
	e.Raw = append(json.RawMessage(nil), body...)
	return &e, nil
}
