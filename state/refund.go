package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"pixdash/api"
)

// RefundState is where a refund asked from this dashboard stands.
type RefundState string

// Refund states. Requested is written before the request is sent, so a crash or a lost reply
// leaves a trace that is read back before anything is sent again.
const (
	RefundRequested RefundState = "requested" // recorded; the request is being sent
	RefundPending   RefundState = "pending"   // the service took it (PENDING); refund_completed confirms it
	RefundCompleted RefundState = "completed" // refund_completed was received
	RefundRefused   RefundState = "refused"   // the service refused it: nothing was refunded
	RefundUnknown   RefundState = "unknown"   // the reply was lost: read the transaction before asking again
)

// Open reports whether the outcome of the request is not known yet (it may have landed).
func (s RefundState) Open() bool { return s == RefundRequested || s == RefundUnknown }

// Taken reports whether the service took the refund (pending or completed).
func (s RefundState) Taken() bool { return s == RefundPending || s == RefundCompleted }

// Refund is a refund asked from this dashboard, one per charge (the service refunds the whole
// remaining amount). Key identifies the attempt: it is minted when the form opens and kept by
// every retry (the refund endpoint takes no Idempotency-Key, so it never goes on the wire).
type Refund struct {
	ChargeID    string      `json:"chargeId"`
	Wallet      string      `json:"wallet"`
	Key         string      `json:"key"`
	Amount      api.Money   `json:"amount"`
	Reason      string      `json:"reason,omitempty"`
	State       RefundState `json:"state"`
	Attempts    int         `json:"attempts,omitempty"`
	PspRefundID string      `json:"pspRefundId,omitempty"`
	// FeeReported is the refund fee the confirmed refund_completed reported (between 0 and the
	// amount), meaningful when HasFeeReported: reported by the event, unconfirmed (the
	// service's answer carries no refund fee), shown as such and never counted in a total.
	// The JSON names are those of the records written before it was marked so: every fee
	// they hold came from the event too.
	FeeReported    api.Money `json:"fee,omitempty"`
	HasFeeReported bool      `json:"hasFee,omitempty"`
	E2EID          string    `json:"e2eId,omitempty"`
	// Message and TraceID are the service's envelope when it refused the refund.
	Message     string    `json:"message,omitempty"`
	TraceID     string    `json:"traceId,omitempty"`
	RequestedAt time.Time `json:"requestedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// Claim names the window sending the request while it is under way (ClaimRefund); nil
	// once the outcome is recorded.
	Claim *RefundClaim `json:"claim,omitempty"`
}

// refundCache holds the store's refund records in memory so that a view may read them while
// drawing (PeekRefund).
type refundCache struct {
	mu sync.Mutex
	m  map[string]Refund
	// window is this store's id in the refund claims it takes (RefundClaim.Window).
	window string
}

// refundCache is the store's refund memory, made on first use.
func (s *Store) refundCache() *refundCache {
	s.refundsOnce.Do(func() { s.refunds = &refundCache{m: make(map[string]Refund), window: newWindowID()} })
	return s.refunds
}

// PutRefund records r (replacing the charge's previous record); a zero UpdatedAt means now.
// The charges list is told, so a row shows the refund at once.
func (s *Store) PutRefund(ctx context.Context, r Refund) (Refund, error) {
	if r.ChargeID == "" {
		return r, errors.New("state: a refund needs its charge id")
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = s.now()
	}
	if r.RequestedAt.IsZero() {
		r.RequestedAt = r.UpdatedAt
	}
	r.Wallet = NormalizeWallet(r.Wallet)
	doc, err := json.Marshal(r)
	if err != nil {
		return r, err
	}
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`INSERT INTO refunds(charge_id, doc) VALUES (?, ?) ON CONFLICT(charge_id) DO UPDATE SET doc = excluded.doc`,
			r.ChargeID, string(doc)); err != nil {
			return nil, err
		}
		s.mark(changeCharges)
		return func() { s.logRefund("put", r); s.rememberRefund(r) }, nil
	})
	return r, err
}

func (s *Store) rememberRefund(r Refund) {
	c := s.refundCache()
	c.mu.Lock()
	c.m[r.ChargeID] = r
	c.mu.Unlock()
}

// RefundOf reads the refund recorded for a charge.
func (s *Store) RefundOf(ctx context.Context, chargeID string) (Refund, bool, error) {
	var doc []byte
	err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM refunds WHERE charge_id = ?`, chargeID).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return Refund{}, false, nil
	}
	if err != nil {
		return Refund{}, false, classify(err)
	}
	var r Refund
	if err := json.Unmarshal(doc, &r); err != nil {
		return Refund{}, false, fmt.Errorf("%w: refund of %s: %w", ErrDamaged, chargeID, err)
	}
	s.rememberRefund(r)
	return r, true, nil
}

// LoadRefunds reads every refund record into memory (there is at most one per refunded
// charge) so that PeekRefund answers for charges refunded in earlier sessions or other windows.
func (s *Store) LoadRefunds(ctx context.Context) error {
	rows, err := s.rdb.QueryContext(ctx, `SELECT doc FROM refunds`)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return classify(err)
		}
		var r Refund
		if json.Unmarshal(doc, &r) == nil && r.ChargeID != "" {
			s.rememberRefund(r)
		}
	}
	return classify(rows.Err())
}

// PeekRefund returns the refund of a charge when it is in memory; it never touches the
// database, so a view may call it while drawing.
func (s *Store) PeekRefund(chargeID string) (Refund, bool) {
	c := s.refundCache()
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[chargeID]
	return r, ok
}

// RefundEvent reads the newest refund_completed event recorded for a charge, with its verdict
// (VerdictConfirmed once the service's refund line was read back: ConfirmEvent).
func (s *Store) RefundEvent(ctx context.Context, chargeID string) (EventEntry, bool, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE transaction_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1`,
		chargeID, string(api.EventRefundCompleted))
	if err != nil {
		return EventEntry{}, false, classify(err)
	}
	es, err := scanEvents(rows)
	if err != nil || len(es) == 0 || es[0].Damaged {
		return EventEntry{}, false, err
	}
	return es[0], true, nil
}

// LastRefundFee is the fee the newest refund_completed event the service confirmed reported
// (the refund fee the service charges, as reported: the service's answer does not carry it);
// ok is false when no confirmed refund reported a fee between 0 and its amount.
func (s *Store) LastRefundFee(ctx context.Context) (api.Money, bool, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE kind = ? AND verdict = 'confirmed' ORDER BY seq DESC LIMIT 1`, string(api.EventRefundCompleted))
	if err != nil {
		return 0, false, classify(err)
	}
	es, err := scanEvents(rows)
	if err != nil || len(es) == 0 || es[0].Damaged {
		return 0, false, err
	}
	if e := es[0].Event; e.FeeAmount < 0 || e.FeeAmount > e.Amount {
		return 0, false, nil
	}
	return es[0].Event.FeeAmount, true, nil
}
