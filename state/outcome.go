package state

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"pixdash/api"
)

// What happened to a charge's money is derived here, in one place, from confirmed facts only:
// the service's status (GET /transactions/{id}), the refunds whose refund line the service
// confirmed (a refund_completed read back: ConfirmEvent), the MED blocks GET /balance-blocks
// answered (RecordBlocks), and read-backs the service answered 404 (MarkMissing). Every screen
// and file that shows a charge (list, inspector, search, QR screen, export, the day's figures
// and close) shows Outcome; a webhook event alone changes none of it.

// Outcome is what happened to a charge's money.
type Outcome struct {
	// State is the charge's display state: its status's, or, for a payment received, refunded,
	// returned or blocked, or not-found for a charge the service no longer knows.
	State ChargeState
	// Amount is what went back to the payer (refunded, returned) or is held (blocked); zero
	// for the other states.
	Amount api.Money
}

// Received reports whether the payment was received (so it counts in the day's figures, even
// when its money went back since).
func (s ChargeState) Received() bool {
	switch s {
	case StatePaid, StateRefunded, StateReturned, StateBlocked:
		return true
	}
	return false
}

// receivedStates is ChargeState.Received as an SQL list, for the charges.state column.
const receivedStates = `('paid', 'refunded', 'returned', 'blocked')`

// Block is a MED block (bloqueio cautelar) on a payment, as GET /balance-blocks answered.
type Block struct {
	ID         string          `json:"id"`
	Amount     api.Money       `json:"amount"`
	Status     api.BlockStatus `json:"status"`
	CreatedAt  time.Time       `json:"createdAt,omitzero"`
	ResolvedAt *time.Time      `json:"resolvedAt,omitempty"`
}

// Open reports whether the block still holds the money: neither approved (returned to the
// payer) nor rejected (released to the merchant). A status the spec does not name is open.
func (b *Block) Open() bool {
	return b.Status != api.BlockApproved && b.Status != api.BlockRejected
}

// Outcome is what happened to the charge's money (see the comment at the top of outcome.go):
// a charge the service stopped knowing is not-found; a payment received is returned (an
// approved MED block), else refunded (a confirmed refund), else blocked (an open MED block),
// else paid; any other charge is in its status's state.
func (c *Charge) Outcome() Outcome {
	st := c.statusState()
	if c.NotFound && !c.Status.Final() {
		return Outcome{State: StateNotFound}
	}
	if st != StatePaid && st != StateUnknown {
		return Outcome{State: st}
	}
	blocked := func() api.Money {
		if c.Block.Amount > 0 {
			return c.Block.Amount
		}
		return c.Amount
	}
	switch {
	case c.Block != nil && c.Block.Status == api.BlockApproved:
		return Outcome{State: StateReturned, Amount: blocked()}
	case c.Refunded > 0:
		return Outcome{State: StateRefunded, Amount: c.Refunded}
	case c.Block != nil && c.Block.Open() && st == StatePaid:
		return Outcome{State: StateBlocked, Amount: blocked()}
	}
	return Outcome{State: st}
}

// WithOutcomeOf returns c with the confirmed facts about the money that o holds (refund, MED
// block): the service's answer alone (a transaction) does not tell them.
func (c Charge) WithOutcomeOf(o Charge) Charge {
	if o.Refunded > c.Refunded {
		c.Refunded, c.RefundedAt = o.Refunded, o.RefundedAt
	}
	if o.Block != nil && c.Block == nil {
		c.Block = o.Block
	}
	return c
}

// mergeOutcome folds o's facts about the money into c (Merge): a refund only grows, the newer
// MED block wins, and the 404 count is o's (a charge o is built from, or the service's answer).
func (c *Charge) mergeOutcome(o Charge) {
	if o.Refunded > c.Refunded {
		c.Refunded, c.RefundedAt = o.Refunded, o.RefundedAt
	}
	if o.Block != nil && (c.Block == nil || o.Block.ID == c.Block.ID || !o.Block.CreatedAt.Before(c.Block.CreatedAt)) {
		c.Block = o.Block
	}
	c.Missing, c.MissingSince, c.NotFound = o.Missing, o.MissingSince, o.NotFound
}

// A charge the service answers 404 for is marked not-found after NotFoundMisses read-backs in
// a row spanning at least NotFoundAfter (a charge just created may not be readable at once).
const (
	NotFoundMisses = 3
	NotFoundAfter  = 5 * time.Minute
)

// MarkMissing records that the service answered 404 to a read-back of a tracked charge that is
// not final: after NotFoundMisses in a row over NotFoundAfter, the charge is not-found and is
// no longer polled. It returns the charge and whether it is tracked. Any answer of the service
// (ApplyTransaction) resets the count.
func (s *Store) MarkMissing(ctx context.Context, id string) (Charge, bool, error) {
	now := s.now()
	return s.changeCharge(ctx, id, func(c Charge, ok bool) (Charge, bool) {
		if !ok || c.Final() {
			return c, false
		}
		if c.Missing == 0 || c.MissingSince.IsZero() {
			c.MissingSince = now
		}
		c.Missing++
		if c.Missing >= NotFoundMisses && now.Sub(c.MissingSince) >= NotFoundAfter {
			c.NotFound = true
		}
		return c, true
	})
}

// RecordBlocks records MED blocks as GET /balance-blocks answered them on the tracked charges
// they name (untracked ones are skipped): an approved block shows the payment returned, an
// open one blocked. It returns how many charges changed.
func (s *Store) RecordBlocks(ctx context.Context, blocks []api.BalanceBlock) (int, error) {
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		var changed []Charge
		for _, b := range blocks {
			if b.TransactionID == "" {
				continue
			}
			c, ok, err := getChargeTx(tx, b.TransactionID)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if c.Block != nil && c.Block.ID != b.ID && b.CreatedAt.Before(c.Block.CreatedAt) {
				continue // an older block than the one recorded
			}
			c.Block = &Block{ID: b.ID, Amount: b.Amount, Status: b.Status, CreatedAt: b.CreatedAt, ResolvedAt: b.ResolvedAt}
			merged, ch, err := s.putChargeTx(tx, c)
			if err != nil {
				return nil, err
			}
			if ch {
				changed = append(changed, merged)
			}
		}
		n = len(changed)
		return func() {
			for _, c := range changed {
				s.cacheCharge(c)
			}
		}, nil
	})
	return n, err
}

// refundOutcomeTx records on its charge the refund a refund_completed event reports, once the
// service confirmed it (verdict confirmed): the first refund of a charge counts, as in the
// day's figures. changed is false when the event is no confirmed refund or the charge is not
// tracked.
func (s *Store) refundOutcomeTx(tx *sql.Tx, eventID string, v Verdict) (out Charge, changed bool, err error) {
	if v != VerdictConfirmed {
		return Charge{}, false, nil
	}
	var (
		kind, txID string
		received   int64
		raw        []byte
	)
	err = tx.QueryRow(`SELECT kind, transaction_id, received_at, raw FROM events WHERE event_id = ?`, eventID).Scan(&kind, &txID, &received, &raw)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && api.EventKind(kind) != api.EventRefundCompleted) {
		return Charge{}, false, nil
	}
	if err != nil {
		return Charge{}, false, err
	}
	e, err := api.DecodeEvent(raw)
	if err != nil {
		return Charge{}, false, nil // a damaged payload tells no amount
	}
	if txID == "" {
		txID = e.TransactionID
	}
	c, ok, err := getChargeTx(tx, txID)
	if err != nil || !ok || c.Refunded > 0 {
		return Charge{}, false, err
	}
	amount := e.Amount
	if amount < 0 {
		amount = -amount
	}
	if amount == 0 {
		amount = c.Amount // the service refunds the whole remaining amount
	}
	at := e.CreatedAt
	if at.IsZero() {
		at = time.UnixMilli(received)
	}
	c.Refunded, c.RefundedAt = amount, &at
	return s.putChargeTx(tx, c)
}

// backfillRefunds records on their charges the refunds confirmed before charges kept them
// (once per database: meta key refund_outcomes).
func (s *Store) backfillRefunds(ctx context.Context) error {
	var done string
	err := s.rdb.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'refund_outcomes'`).Scan(&done)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return classify(err)
	}
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		rows, err := tx.Query(`SELECT event_id FROM events WHERE kind = 'refund_completed' AND verdict = 'confirmed' ORDER BY seq`)
		if err != nil {
			return nil, err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				_ = rows.Close()
				return nil, err
			}
			ids = append(ids, id)
		}
		_ = rows.Close() // the rows were all read: Err says whether that went well
		if err := rows.Err(); err != nil {
			return nil, err
		}
		var changed []Charge
		for _, id := range ids {
			c, ch, err := s.refundOutcomeTx(tx, id, VerdictConfirmed)
			if err != nil {
				return nil, err
			}
			if ch {
				changed = append(changed, c)
			}
		}
		if _, err := tx.Exec(`INSERT INTO meta VALUES ('refund_outcomes', '1') ON CONFLICT(key) DO NOTHING`); err != nil {
			return nil, err
		}
		return func() {
			for _, c := range changed {
				s.cacheCharge(c)
			}
		}, nil
	})
}
