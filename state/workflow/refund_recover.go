package workflow

import (
	"context"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// RefundSettler is the store's side of settling a refund from its refund_completed event;
// *state.Store implements it.
type RefundSettler interface {
	RefundEvent(ctx context.Context, chargeID string) (state.EventEntry, bool, error)
	// ChangeRefund reads and rewrites a refund record in one transaction.
	ChangeRefund(ctx context.Context, chargeID string, f func(r state.Refund, ok bool) (state.Refund, bool)) (state.Refund, bool, error)
}

// RefundRecoveryStore is what RecoverRefunds reads and writes; *state.Store implements it.
type RefundRecoveryStore interface {
	RefundSettler
	OpenRefunds(ctx context.Context) ([]state.Refund, error)
	ApplyTransaction(ctx context.Context, tx *api.Transaction) (state.Charge, bool, error)
}

// RecoveredRefunds is the outcome of RecoverRefunds.
type RecoveredRefunds struct {
	// Completed are the refunds the service confirmed (their refund_completed read back):
	// refunded. Taken are those the service took whose refund_completed is not confirmed yet.
	Completed, Taken []state.Refund
	// Unknown counts the refunds whose request may or may not have landed: nothing shows that it
	// did, so their rows stay "refund unknown" and the form reads back before asking again.
	// Waiting counts those taken and waiting for refund_completed, or being sent by another
	// window now.
	Unknown, Waiting int
	// RetryAt is when the first claim of another window runs out (zero when none is held):
	// look again then, in case that window died with the request out.
	RetryAt time.Time
	// Err is the last failure (a read, a read-back, a write); the rest went on.
	Err error
}

// RecoverRefunds settles the refunds an earlier session (a crash, a kill, a lost reply) left
// open: requested, unknown, or taken and not completed. It runs when a session opens. A refund
// whose refund_completed the service confirmed becomes completed. One whose outcome is open
// is read back (GET /transactions/{id} in its wallet, then the refund_completed recorded for
// it): taken when a refund_completed is recorded, completed once confirmed, else it stays
// unknown (its stale claim dropped). A refund another window is sending now is left to it.
// Nothing is ever sent; a row becomes refunded only from the service's confirmation. now is
// the clock (time.Now when nil).
func RecoverRefunds(ctx context.Context, svc TransactionReader, store RefundRecoveryStore, now func() time.Time) RecoveredRefunds {
	if now == nil {
		now = time.Now
	}
	var out RecoveredRefunds
	open, err := store.OpenRefunds(ctx)
	if err != nil {
		out.Err = err
		return out
	}
	for _, r := range open {
		if r.Claim.Held(now()) {
			out.Waiting++
			if out.RetryAt.IsZero() || r.Claim.Until.Before(out.RetryAt) {
				out.RetryAt = r.Claim.Until
			}
			continue
		}
		ev, found, err := store.RefundEvent(ctx, r.ChargeID)
		if err != nil {
			out.Err = err
			out.Unknown++
			continue
		}
		if !(found && ev.Verdict == state.VerdictConfirmed) && r.State.Open() {
			// The request may have landed: the service's answer first, then the event.
			_, landed, err := readBack(ctx, svc, store, r.ChargeID, r.Wallet)
			if err != nil {
				out.Err = err
				out.Unknown++
				continue
			}
			ev, found = eventOrZero(landed)
		}
		rec, kind, err := settleOpen(ctx, store, r, ev, found, now())
		if err != nil {
			out.Err = err
		}
		switch kind {
		case state.RefundCompleted:
			out.Completed = append(out.Completed, rec)
		case state.RefundPending:
			if r.State.Open() {
				out.Taken = append(out.Taken, rec)
			} else {
				out.Waiting++
			}
		default:
			out.Unknown++
		}
	}
	return out
}

// eventOrZero unpacks an optional event entry.
func eventOrZero(e *state.EventEntry) (state.EventEntry, bool) {
	if e == nil {
		return state.EventEntry{}, false
	}
	return *e, true
}

// settleOpen writes what an open refund r becomes given its refund_completed (ev, when found):
// completed when confirmed, taken (pending) when only recorded, else unknown (a requested
// record whose window is gone). The write happens in one transaction and only while the record
// is still r's (same key), not completed, and claimed by no live window. It returns the record
// and the state it settled at.
func settleOpen(ctx context.Context, store RefundSettler, r state.Refund, ev state.EventEntry, found bool, at time.Time) (state.Refund, state.RefundState, error) {
	var next state.Refund
	switch {
	case found && ev.Verdict == state.VerdictConfirmed:
		next = completeRecord(r, ev.Event, at)
	case found && ev.Verdict != state.VerdictDisputed && ev.Verdict != state.VerdictUnknown:
		next = r
		next.State, next.UpdatedAt = state.RefundPending, at
		next.Message, next.TraceID = "", ""
	case r.State.Open():
		next = r
		next.State = state.RefundUnknown
	default:
		return r, r.State, nil
	}
	next.Claim = nil
	if next.State == r.State && r.Claim == nil {
		return r, r.State, nil
	}
	got, _, err := store.ChangeRefund(context.WithoutCancel(ctx), r.ChargeID, func(cur state.Refund, ok bool) (state.Refund, bool) {
		if !ok || cur.Key != r.Key || cur.State == state.RefundCompleted || cur.Claim.Held(at) {
			return cur, false
		}
		if cur.State.Taken() && next.State.Open() {
			return cur, false // taken meanwhile: never back to unknown
		}
		return next, true
	})
	if err != nil {
		return r, r.State, err
	}
	return got, got.State, nil
}

// SettleRefund completes the refund pixdash recorded for chargeID once its refund_completed is
// confirmed by the service (called after each confirmed refund_completed, whichever window
// asked for the refund). A record another window is still sending is left to it. ok reports
// whether the record is completed now.
func SettleRefund(ctx context.Context, store RefundSettler, chargeID string, now func() time.Time) (state.Refund, bool, error) {
	if now == nil {
		now = time.Now
	}
	ev, found, err := store.RefundEvent(ctx, chargeID)
	if err != nil || !found || ev.Verdict != state.VerdictConfirmed {
		return state.Refund{}, false, err
	}
	at := now()
	got, _, err := store.ChangeRefund(context.WithoutCancel(ctx), chargeID, func(cur state.Refund, ok bool) (state.Refund, bool) {
		if !ok || cur.State == state.RefundCompleted || cur.Claim.Held(at) {
			return cur, false
		}
		next := completeRecord(cur, ev.Event, at)
		next.Claim = nil
		return next, true
	})
	return got, err == nil && got.State == state.RefundCompleted, err
}
