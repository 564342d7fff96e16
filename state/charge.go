package state

import (
	"slices"
	"time"

	"pixdash/api"
)

// Sources of a tracked charge: how the dashboard first learned about it.
const (
	SourceCreated = "created" // created from this dashboard (201 of POST /pix)
	SourceEvent   = "event"   // first seen in a webhook event
	SourceLookup  = "lookup"  // first seen in a GET /transactions/{id} reply
	SourceHub     = "hub"     // created at another counter, announced through the hub (TrackRemoteCharge)
)

// ChargeState is how the dashboard classifies a charge for display and filtering.
type ChargeState string

// Display states of a charge.
const (
	StatePending   ChargeState = "pending"
	StatePaid      ChargeState = "paid"
	StateExpired   ChargeState = "expired"
	StateFailed    ChargeState = "failed"
	StateCancelled ChargeState = "cancelled"
	StateUnknown   ChargeState = "unknown" // a status the spec does not name
	// Money outcomes of a paid charge (see Charge.Outcome): the payment was received, then the
	// service confirmed it went back, or holds it.
	StateRefunded ChargeState = "refunded" // refunded to the payer (a refund line read back)
	StateReturned ChargeState = "returned" // returned to the payer by an approved MED block
	StateBlocked  ChargeState = "blocked"  // held by an open MED block
	// StateNotFound: the service answered 404 to every read-back for a while (see MarkMissing).
	StateNotFound ChargeState = "not-found"
)

// Charge is a PIX charge the dashboard tracks. Slices and pointers in a Charge are never
// modified in place by this package, so copies may share them.
type Charge struct {
	ID                string       `json:"id"`
	IdempotencyKey    string       `json:"idempotencyKey,omitempty"`
	Wallet            string       `json:"wallet,omitempty"` // "principal" or a sub-account reference
	Amount            api.Money    `json:"amount"`
	Description       string       `json:"description,omitempty"`
	ExternalReference string       `json:"externalReference,omitempty"`
	Status            api.TxStatus `json:"status"`
	// Expired is set when the charge ended by expiry (payment_expired, or a cancelled charge past its expiry).
	Expired        bool                `json:"expired,omitempty"`
	CreatedAt      time.Time           `json:"createdAt,omitzero"`
	ExpiresAt      time.Time           `json:"expiresAt,omitzero"`
	PaidAt         *time.Time          `json:"paidAt,omitempty"`
	PixCopyPaste   string              `json:"pixCopyPaste,omitempty"`
	E2EID          string              `json:"e2eId,omitempty"`
	PayerName      string              `json:"payerName,omitempty"`
	PayerDocument  string              `json:"payerDocument,omitempty"`
	FailureReason  string              `json:"failureReason,omitempty"`
	BlockedDeposit *api.BlockedDeposit `json:"blockedDeposit,omitempty"`
	// SplitRequested is the split the service accepted at creation.
	SplitRequested []api.SplitItem `json:"splitRequested,omitempty"`
	// SplitDistributed is what payment_completed says was actually distributed; meaningful when HasDistributed.
	SplitDistributed []api.SplitItem `json:"splitDistributed,omitempty"`
	// HasDistributed is set once a payment_completed event was applied (an empty SplitDistributed then means nothing was distributed).
	HasDistributed bool `json:"hasDistributed,omitempty"`
	// Fee is the payment's fee as the service confirmed it; nil when it did not (the service's
	// GET /transactions/{id} carries no fee: the totals then use the estimate).
	Fee *api.Money `json:"fee,omitempty"`
	// FeeReported is the fee a confirmed payment_completed reported (feeAmount, else amount
	// minus netAmount), between 0 and the amount: shown as reported by the event, unconfirmed,
	// and never counted in the totals. nil when the event reported none (or an impossible one).
	FeeReported *api.Money `json:"feeReported,omitempty"`
	// SplitReported is a split a confirmed payment_completed reported that does not agree with
	// the split the service accepted at creation (SplitRequested): kept as reported by the
	// event, unconfirmed, and never counted. Empty when the event's split agreed (it is then
	// SplitDistributed) or it sent none.
	SplitReported []api.SplitItem `json:"splitReported,omitempty"`
	UpdatedAt     time.Time       `json:"updatedAt,omitzero"`
	Source        string          `json:"source,omitempty"`
	// Counter is the counter that created the charge when another one did (SourceHub); "" otherwise.
	Counter string `json:"counter,omitempty"`
	// Refunded is what went back to the payer by a refund the service confirmed (a
	// refund_completed whose refund line was read back); RefundedAt is when it was reported.
	Refunded   api.Money  `json:"refunded,omitempty"`
	RefundedAt *time.Time `json:"refundedAt,omitempty"`
	// Block is the MED block on the payment as GET /balance-blocks last answered; nil for none.
	Block *Block `json:"block,omitempty"`
	// Missing counts the read-backs in a row the service answered 404 since MissingSince;
	// NotFound is set once they were enough (see MarkMissing). Both reset when it answers.
	Missing      int       `json:"missing,omitempty"`
	MissingSince time.Time `json:"missingSince,omitzero"`
	NotFound     bool      `json:"notFound,omitempty"`
	// Mismatch says how the service's reply to POST /pix differed from the request (amount,
	// the code's amount, split, expiry; see api.VerifyCharge): such a charge is never shown to
	// a customer. Empty when the reply was faithful.
	Mismatch string `json:"mismatch,omitempty"`
}

// NormalizeWallet returns "principal" for the main account ("" or "principal") and ref otherwise.
func NormalizeWallet(ref string) string {
	if ref == "" {
		return api.WalletPrincipal
	}
	return ref
}

// ChargeFromPix builds a tracked charge from the 201 reply of POST /pix, the request sent, the wallet and the idempotency key.
func ChargeFromPix(p *api.PixCharge, req *api.CreatePixRequest, wallet, key string) Charge {
	c := Charge{
		ID:                p.ID,
		IdempotencyKey:    key,
		Wallet:            NormalizeWallet(wallet),
		Amount:            p.Amount,
		ExternalReference: p.ExternalReference,
		Status:            p.Status,
		CreatedAt:         p.CreatedAt,
		ExpiresAt:         p.ExpiresAt,
		PixCopyPaste:      p.PixCopyPaste,
		SplitRequested:    slices.Clone(p.Split),
		UpdatedAt:         p.CreatedAt,
		Source:            SourceCreated,
	}
	if c.Status == "" {
		c.Status = api.StatusPending
	}
	if req != nil {
		c.Description = req.Description
		if c.ExternalReference == "" {
			c.ExternalReference = req.ExternalReference
		}
		if c.Amount == 0 {
			c.Amount = req.Amount
		}
		if len(c.SplitRequested) == 0 && len(req.Split) > 0 && len(p.Split) == 0 {
			// The 201 normally echoes the accepted split; keep the request's when it does not.
			c.SplitRequested = slices.Clone(req.Split)
		}
	}
	return c
}

// ChargeFromTransaction builds a tracked charge from a GET /transactions/{id} reply; sub, when
// not nil, is the submission that created it and supplies the wallet, key and requested split.
func ChargeFromTransaction(tx *api.Transaction, sub *Submission) Charge {
	c := Charge{ID: tx.ID, Source: SourceLookup, Wallet: api.WalletPrincipal}
	if sub != nil {
		c.IdempotencyKey = sub.Key
		c.Wallet = NormalizeWallet(sub.Wallet)
		c.Description = sub.Request.Description
		c.ExternalReference = sub.Request.ExternalReference
		c.SplitRequested = slices.Clone(sub.Request.Split)
	}
	c.ApplyTransaction(tx)
	return c
}

// State classifies the charge for display and filtering: its money outcome (see Outcome).
func (c *Charge) State() ChargeState { return c.Outcome().State }

// statusState is the state the service's status alone gives.
func (c *Charge) statusState() ChargeState {
	switch {
	case c.Expired:
		return StateExpired
	case c.Status == api.StatusPending || c.Status == "":
		return StatePending
	case c.Status == api.StatusCompleted:
		return StatePaid
	case c.Status == api.StatusFailed:
		return StateFailed
	case c.Status == api.StatusCancelled:
		return StateCancelled
	}
	return StateUnknown
}

// Final reports whether the charge reached a state that no longer changes (so it is not
// polled): a final status, or a charge the service no longer knows.
func (c *Charge) Final() bool { return c.Status.Final() || c.NotFound }

// ApplyTransaction merges a GET /transactions/{id} reply for this charge.
func (c *Charge) ApplyTransaction(tx *api.Transaction) {
	if c.ID == "" {
		c.ID = tx.ID
	}
	var when time.Time
	if tx.UpdatedAt != nil {
		when = *tx.UpdatedAt
	}
	statusApplied := c.takeStatus(tx.Status, when)
	c.Missing, c.MissingSince, c.NotFound = 0, time.Time{}, false // the service knows it
	if tx.Amount != 0 {
		c.Amount = tx.Amount
	}
	setStr(&c.Description, tx.Description)
	setStr(&c.ExternalReference, tx.ExternalReference)
	if !tx.CreatedAt.IsZero() {
		c.CreatedAt = tx.CreatedAt
	}
	if tx.ExpiresAt != nil {
		c.ExpiresAt = *tx.ExpiresAt
	}
	setStr(&c.PixCopyPaste, tx.PixCopyPaste)
	setStr(&c.E2EID, tx.E2EID)
	setStr(&c.PayerName, tx.CounterpartName)
	setStr(&c.PayerDocument, tx.CounterpartDocument)
	if statusApplied {
		if tx.PaidAt != nil {
			c.PaidAt = tx.PaidAt
		}
		if tx.BlockedDeposit != nil {
			c.BlockedDeposit = tx.BlockedDeposit
		}
		setStr(&c.FailureReason, tx.FailureReason)
		// A cancelled charge that was never paid and whose expiry had passed when it was last updated expired.
		if c.Status == api.StatusCancelled && c.PaidAt == nil && !c.ExpiresAt.IsZero() &&
			(tx.UpdatedAt == nil || !tx.UpdatedAt.Before(c.ExpiresAt)) {
			c.Expired = true
		}
	}
	if !when.IsZero() && when.After(c.UpdatedAt) {
		c.UpdatedAt = when
	} else if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	if c.Source == "" {
		c.Source = SourceLookup
	}
	if c.Wallet == "" {
		c.Wallet = api.WalletPrincipal
	}
}

// ApplyEvent merges a payment_* webhook event about this charge; other kinds are ignored.
func (c *Charge) ApplyEvent(e *api.Event) {
	if !e.Kind.IsPayment() {
		return
	}
	if c.ID == "" {
		c.ID = e.TransactionID
	}
	if c.Source == "" {
		c.Source = SourceEvent
	}
	if c.Wallet == "" {
		c.Wallet = e.Wallet()
	}
	if c.Amount == 0 {
		c.Amount = e.Amount
	}
	setStr(&c.ExternalReference, e.ExternalReference)
	if c.CreatedAt.IsZero() {
		// The event does not say when the charge was created; its own time is the best estimate.
		c.CreatedAt = e.CreatedAt
	}
	status := e.Status
	switch e.Kind {
	case api.EventPaymentCompleted:
		if status == "" || status == api.StatusPending {
			status = api.StatusCompleted
		}
	case api.EventPaymentExpired:
		if status == "" || status == api.StatusPending {
			// Assumption: the spec does not say which status expiry leads to; cancelled is the only fit.
			status = api.StatusCancelled
		}
	case api.EventPaymentFailed:
		if status == "" || status == api.StatusPending {
			status = api.StatusFailed
		}
	}
	applied := c.takeStatus(status, e.CreatedAt)
	setStr(&c.E2EID, e.E2EID)
	setStr(&c.PayerName, e.CounterpartName)
	if applied {
		switch e.Kind {
		case api.EventPaymentCompleted:
			if e.PaidAt != nil {
				c.PaidAt = e.PaidAt
			} else if c.PaidAt == nil && !e.CreatedAt.IsZero() {
				t := e.CreatedAt
				c.PaidAt = &t
			}
		case api.EventPaymentExpired:
			c.Expired = true
		case api.EventPaymentFailed:
			setStr(&c.FailureReason, e.FailureReason)
			if e.BlockedDeposit != nil {
				c.BlockedDeposit = e.BlockedDeposit
			}
		}
	}
	if e.Kind == api.EventPaymentCompleted {
		// What was distributed is recorded even when a newer status is kept.
		c.HasDistributed = true
		c.SplitDistributed = slices.Clone(e.Split)
	}
	if e.CreatedAt.After(c.UpdatedAt) {
		c.UpdatedAt = e.CreatedAt
	}
}

// applyConfirmed records what only a confirmed event tells (the service's transaction does not):
// what a payment's split actually distributed, and that a cancellation was an expiry.
func (c *Charge) applyConfirmed(e *api.Event) {
	switch e.Kind {
	case api.EventPaymentCompleted:
		if SplitAgrees(c.SplitRequested, e.Split) {
			c.HasDistributed = true
			c.SplitDistributed = slices.Clone(e.Split)
			c.SplitReported = nil
		} else {
			c.SplitReported = slices.Clone(e.Split)
		}
		if fee, ok := eventFee(e, c.Amount); ok {
			c.FeeReported = &fee
		}
	case api.EventPaymentExpired:
		c.Expired = true
	}
}

// eventFee is the fee a payment event reports for a payment of amount: feeAmount, else amount
// minus netAmount; ok is false when it reports neither, or a fee below 0 or above the amount.
func eventFee(e *api.Event, amount api.Money) (api.Money, bool) {
	var fee api.Money
	switch {
	case e.FeeAmount != 0:
		fee = e.FeeAmount
	case e.NetAmount != 0:
		fee = e.Amount - e.NetAmount
	default:
		return 0, false
	}
	if fee < 0 || fee > amount {
		return 0, false
	}
	return fee, true
}

// SplitAgrees reports whether distributed, what a payment_completed says a split paid, can be
// what the service did with the split it accepted at creation (requested): the legs served in
// the order sent, each to its destination, every one in full but the last, which may be reduced
// (spec: split rule 7). A split reported for a charge created with none never agrees.
func SplitAgrees(requested, distributed []api.SplitItem) bool {
	if len(distributed) > len(requested) {
		return false
	}
	for i, leg := range distributed {
		want := requested[i]
		if NormalizeWallet(leg.SubAccount) != NormalizeWallet(want.SubAccount) || leg.Amount <= 0 || leg.Amount > want.Amount {
			return false
		}
		if leg.Amount < want.Amount && i != len(distributed)-1 {
			return false
		}
	}
	return true
}

// Merge folds o, a newer view of the same charge, into c: o's non-empty fields win, but a final
// status never goes back to pending and a final status is replaced by another only when o is newer.
func (c *Charge) Merge(o Charge) {
	if c.ID == "" {
		c.ID = o.ID
	}
	prev := c.Status
	if c.takeStatus(o.Status, o.UpdatedAt) {
		if prev == o.Status {
			c.Expired = c.Expired || o.Expired
		} else {
			c.Expired = o.Expired
		}
		if o.PaidAt != nil {
			c.PaidAt = o.PaidAt
		}
		setStr(&c.FailureReason, o.FailureReason)
		if o.BlockedDeposit != nil {
			c.BlockedDeposit = o.BlockedDeposit
		}
	}
	setStr(&c.IdempotencyKey, o.IdempotencyKey)
	setStr(&c.Mismatch, o.Mismatch)
	if o.Wallet != "" && (c.Wallet == "" || c.Source == SourceEvent) {
		c.Wallet = o.Wallet
	}
	if o.Amount != 0 {
		c.Amount = o.Amount
	}
	setStr(&c.Description, o.Description)
	setStr(&c.ExternalReference, o.ExternalReference)
	setStr(&c.Counter, o.Counter)
	if !o.CreatedAt.IsZero() && (c.CreatedAt.IsZero() || o.Source != SourceEvent) {
		c.CreatedAt = o.CreatedAt
	}
	if !o.ExpiresAt.IsZero() {
		c.ExpiresAt = o.ExpiresAt
	}
	setStr(&c.PixCopyPaste, o.PixCopyPaste)
	setStr(&c.E2EID, o.E2EID)
	setStr(&c.PayerName, o.PayerName)
	setStr(&c.PayerDocument, o.PayerDocument)
	if len(o.SplitRequested) > 0 {
		c.SplitRequested = o.SplitRequested
	}
	if o.HasDistributed {
		c.HasDistributed = true
		c.SplitDistributed = o.SplitDistributed
	}
	if o.Fee != nil {
		c.Fee = o.Fee
	}
	if o.FeeReported != nil {
		c.FeeReported = o.FeeReported
	}
	if o.HasDistributed {
		c.SplitReported = o.SplitReported
	} else if len(o.SplitReported) > 0 {
		c.SplitReported = o.SplitReported
	}
	c.mergeOutcome(o)
	if o.UpdatedAt.After(c.UpdatedAt) {
		c.UpdatedAt = o.UpdatedAt
	}
	if sourceRank(o.Source) > sourceRank(c.Source) {
		c.Source = o.Source
	}
}

// takeStatus sets s unless it would move a final status back to pending, or replace a final
// status with another one learned earlier than the charge's last update. It reports whether s
// is now the charge's status (so the fields that go with it may be taken too).
func (c *Charge) takeStatus(s api.TxStatus, when time.Time) bool {
	switch {
	case s == "":
		return false
	case c.Status == s:
		return true
	case !c.Status.Final():
		c.Status = s
		c.Expired = false
		return true
	case !s.Final():
		return false
	case !when.IsZero() && when.Before(c.UpdatedAt):
		return false
	}
	c.Status = s
	c.Expired = false
	return true
}

// sourceRank orders sources by how much the dashboard knows about a charge from each.
func sourceRank(s string) int {
	switch s {
	case SourceCreated:
		return 3
	case SourceLookup:
		return 2
	case SourceEvent:
		return 1
	}
	return 0
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}
