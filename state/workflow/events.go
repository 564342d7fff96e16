package workflow

import (
	"context"
	"fmt"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// EventFeedCoalesce is how long WaitEvents lets new events gather before it reads them: a
// flood becomes one batch, not one per commit.
const EventFeedCoalesce = 25 * time.Millisecond

// EventBatch is what WaitEvents returns: the webhook events recorded after a position, in
// arrival order.
type EventBatch struct {
	Events []*api.Event
	// Last is the position (state.EventEntry.Seq) of the newest event read; the next wait
	// starts after it. It is the position waited after when no event was read.
	Last int64
	Err  error
}

// WaitEvents waits until the store holds events after position after and returns up to max of
// them. A negative after starts where the recorded events end now (what is stored is history,
// not news). ok is false when ctx ended first.
func WaitEvents(ctx context.Context, s EventFeed, after int64, max int) (b EventBatch, ok bool) {
	if after < 0 {
		last, err := s.LastEventSeq(ctx)
		if err != nil {
			return EventBatch{Last: after, Err: err}, ctx.Err() == nil
		}
		after = last
	}
	for {
		changed := s.Changed()
		es, err := s.EventsAfter(ctx, after, max)
		switch {
		case ctx.Err() != nil:
			return EventBatch{Last: after}, false
		case err != nil:
			return EventBatch{Last: after, Err: err}, true
		case len(es) > 0:
			b := EventBatch{Last: es[len(es)-1].Seq, Events: make([]*api.Event, len(es))}
			for i := range es {
				b.Events[i] = es[i].Event
			}
			return b, true
		}
		if !wait(ctx, changed) || !wait(ctx, time.After(EventFeedCoalesce)) {
			return EventBatch{Last: after}, false
		}
	}
}

// wait waits until ch delivers, or reports false when ctx ends first.
func wait[T any](ctx context.Context, ch <-chan T) bool {
	select {
	case <-ctx.Done():
		return false
	case <-ch:
		return true
	}
}

// ConfirmPayment reads the transaction of payment event e back from the service, records the
// verdict and applies the service's answer, never the event's (see state.Store.ConfirmEvent):
// a charge is paid because GET /transactions/{id} says so. A failure leaves the event
// unchecked, to be tried again. A refund_completed the service confirmed settles the refund
// pixdash recorded for its charge (SettleRefund) when s keeps refunds (RefundSettler, as
// *state.Store does), whichever window asked for it: a row does not stay "refunding".
func ConfirmPayment(ctx context.Context, c TransactionReader, s PaymentChecker, e *api.Event) (state.Confirmation, error) {
	conf, err := s.ConfirmEvent(ctx, c, e)
	if err != nil || e.Kind != api.EventRefundCompleted || conf.Verdict != state.VerdictConfirmed || e.TransactionID == "" {
		return conf, err
	}
	if rs, ok := s.(RefundSettler); ok {
		if _, _, err := SettleRefund(ctx, rs, e.TransactionID, nil); err != nil {
			// The verdict is recorded; the record is settled again at the next start.
			return conf, fmt.Errorf("settling the refund of %s: %w", e.TransactionID, err)
		}
	}
	return conf, nil
}

// UncheckedPayments returns up to max of the newest payment events never read back (left by a
// restart, or beyond what a flood let through).
func UncheckedPayments(ctx context.Context, s PaymentChecker, max int) ([]*api.Event, error) {
	es, err := s.UncheckedPayments(ctx, max)
	if err != nil {
		return nil, err
	}
	out := make([]*api.Event, 0, len(es))
	for _, e := range es {
		out = append(out, e.Event)
	}
	return out, nil
}

// PruneEvents removes the webhook events received more than days days before now and returns
// how many went; days <= 0 keeps every event. Charges are kept.
func PruneEvents(ctx context.Context, s EventPruner, now time.Time, days int) (int, error) {
	if days <= 0 {
		return 0, nil
	}
	return s.PruneEvents(ctx, now.AddDate(0, 0, -days))
}
