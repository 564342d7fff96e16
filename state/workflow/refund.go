package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// RefundTimeout bounds one refund: the request (sent once) and the read-back after it.
const RefundTimeout = 30 * time.Second

// RefundClaimTTL bounds a window's claim on a refund it sends (state.ClaimRefund): no request
// starts after RefundTimeout, and the read-back after a lost reply and the writes fit in the
// rest. Past it the claim is stale even if its window hangs: the next attempt reads the
// transaction back before sending anything.
const RefundClaimTTL = RefundTimeout + 30*time.Second

// RefundAPI asks the service for a refund and reads the transaction back; *api.Client
// implements it.
type RefundAPI interface {
	RefundTransaction(ctx context.Context, id string, req *api.RefundRequest, opts ...api.RequestOption) (*api.RefundResult, error)
	TransactionReader
}

// RefundStore keeps the refund records and the charges; *state.Store implements it.
type RefundStore interface {
	PutRefund(ctx context.Context, r state.Refund) (state.Refund, error)
	ClaimRefund(ctx context.Context, r state.Refund, until time.Time) (claimed, prior state.Refund, ok bool, err error)
	RefundOf(ctx context.Context, chargeID string) (state.Refund, bool, error)
	RefundEvent(ctx context.Context, chargeID string) (state.EventEntry, bool, error)
	ApplyTransaction(ctx context.Context, tx *api.Transaction) (state.Charge, bool, error)
}

// RefundOrder is a refund the merchant confirmed. Key is minted when the form opens and
// reused by every retry of the same form; ReadOnly is the profile's read_only.
type RefundOrder struct {
	Charge   state.Charge
	Amount   api.Money
	Reason   string
	Key      string
	ReadOnly bool
}

// RefundResultKind is how a refund ended.
type RefundResultKind int

// Outcomes of Refund.
const (
	// RefundDone: the service took the refund (or had already taken this one); refund_completed confirms it.
	RefundDone RefundResultKind = iota
	// RefundRefused: nothing was refunded (the service's refusal, or a local rule); Err says why.
	RefundRefused
	// RefundUnknown: the reply was lost and the read-back could not tell; nothing may be sent
	// again before the transaction is read (Refund does it on the next call).
	RefundUnknown
	// RefundBusy: another window (another pixdash on the profile) is sending this charge's
	// refund; nothing was sent from here. Err is a *state.RefundBusyError naming it.
	RefundBusy
)

// RefundOutcome is the outcome of Refund.
type RefundOutcome struct {
	Kind RefundResultKind
	// Record is the refund as recorded (zero when nothing was recorded).
	Record state.Refund
	// Reply is the service's 201 reply; nil when none came.
	Reply *api.RefundResult
	// ReadBack is the transaction read after an uncertain failure (or before a retry).
	ReadBack *api.Transaction
	// Sent reports whether a request went to the service in this call.
	Sent bool
	// Err is the refusal (an *api.Error with its message and traceId, or a local rule) or the
	// failure that left the outcome unknown.
	Err error
}

// Local reasons a refund is not sent.
var (
	ErrRefundReadOnly   = errors.New("this profile is read-only: refunds are disabled (read_only = true)")
	ErrRefundNotPaid    = errors.New("only completed (paid) payments can be refunded")
	ErrRefundPartial    = errors.New("the service refunds the whole amount of a payment; partial refunds are not offered")
	ErrRefundDone       = errors.New("this charge was already refunded from pixdash")
	ErrRefundNoKey      = errors.New("a refund needs the key minted when its form opened")
	ErrRefundLongReason = fmt.Errorf("the reason must be at most %d characters", api.MaxRefundReason)
)

// RefundNotPaid is the local refusal for a charge that is not a completed payment.
type RefundNotPaid struct{ State state.ChargeState }

func (e RefundNotPaid) Error() string {
	return fmt.Sprintf("only completed (paid) payments can be refunded; this charge is %s", e.State)
}

func (e RefundNotPaid) Unwrap() error { return ErrRefundNotPaid }

// ErrRefundNotPayment says only a payment (money received, a positive amount) can be refunded; a
// refund line, a withdrawal, a fee or a transfer cannot.
var ErrRefundNotPayment = errors.New("only payments can be refunded")

// RefundNotPayment is the local refusal for a transaction that is not a payment: Type is the
// service's type ("" when it sent none) and Amount its amount (negative for a refund line).
type RefundNotPayment struct {
	Type   api.TxType
	Amount api.Money
}

func (e RefundNotPayment) Error() string {
	if e.Type == "" || e.Type == api.TypePayment {
		return fmt.Sprintf("only payments can be refunded; this transaction's amount is %s", e.Amount.BRL())
	}
	return fmt.Sprintf("only payments can be refunded; this transaction is a %s", e.Type)
}

func (e RefundNotPayment) Unwrap() error { return ErrRefundNotPayment }

// CheckRefundTransaction says why a transaction the service showed cannot be refunded as a
// payment (nil when its type is payment, or absent, and its amount positive); CheckRefund
// still applies to the charge built from it.
func CheckRefundTransaction(tx *api.Transaction) error {
	if tx == nil {
		return ErrRefundNotPayment
	}
	if (tx.Type != "" && tx.Type != api.TypePayment) || tx.Amount <= 0 {
		return RefundNotPayment{Type: tx.Type, Amount: tx.Amount}
	}
	return nil
}

// CheckRefund says why a charge cannot be refunded from here (nil when it can): read-only
// profiles, anything that is not money received (an amount of zero or less, as a refund
// line's), charges that are not paid, charges already refunded from pixdash.
func CheckRefund(ch state.Charge, prior *state.Refund, readOnly bool) error {
	switch {
	case readOnly:
		return ErrRefundReadOnly
	case ch.Amount <= 0:
		// A refund line (negative) or nothing: not money received, whatever its status.
		return RefundNotPayment{Amount: ch.Amount}
	case prior != nil && prior.State.Taken():
		// Before the state: a charge refunded from here reads refunded once confirmed.
		return ErrRefundDone
	case ch.State() != state.StatePaid:
		return RefundNotPaid{State: ch.State()}
	}
	return nil
}

// alreadyRefunded is the service's refusal of a second refund of the same payment.
const alreadyRefunded = "already refunded"

// Refund asks the service to refund o.Charge (POST /transactions/{id}/refund in the charge's
// wallet, with o.Reason) and records the outcome on the charge. The endpoint takes no
// Idempotency-Key and is sent once per call: the record (with o.Key) is written before the
// request, and when an earlier attempt's outcome is open (a lost reply, a crash), the
// transaction and the refund_completed events are read first: a refund that landed is
// reported done, never asked again. A refusal (4xx) records the envelope's message and
// traceId; a failure with no answer reads the transaction back and, unless that settles it,
// reports RefundUnknown. now is the clock (time.Now when nil).
func Refund(ctx context.Context, svc RefundAPI, store RefundStore, o RefundOrder, now func() time.Time) RefundOutcome {
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithTimeout(ctx, RefundTimeout)
	defer cancel()
	ch := o.Charge
	if o.Key == "" {
		return RefundOutcome{Kind: RefundRefused, Err: ErrRefundNoKey}
	}
	prior, hasPrior, err := store.RefundOf(ctx, ch.ID)
	if err != nil {
		return RefundOutcome{Kind: RefundUnknown, Err: err}
	}
	var priorp *state.Refund
	if hasPrior {
		priorp = &prior
	}
	if hasPrior && prior.State.Taken() && prior.Key == o.Key {
		// This form's refund was taken already: report it, send nothing.
		return RefundOutcome{Kind: RefundDone, Record: prior}
	}
	if err := CheckRefund(ch, priorp, o.ReadOnly); err != nil {
		return RefundOutcome{Kind: RefundRefused, Record: prior, Err: err}
	}
	if len([]rune(o.Reason)) > api.MaxRefundReason {
		return RefundOutcome{Kind: RefundRefused, Err: ErrRefundLongReason}
	}
	if o.Amount <= 0 || o.Amount != ch.Amount {
		return RefundOutcome{Kind: RefundRefused, Err: ErrRefundPartial}
	}
	wallet := state.NormalizeWallet(ch.Wallet)
	at := now()
	rec := state.Refund{ChargeID: ch.ID, Wallet: wallet, Key: o.Key, Amount: o.Amount, Reason: o.Reason,
		State: state.RefundRequested, RequestedAt: at, UpdatedAt: at}
	// Claim the refund: one transaction checks that no other window sends it and records this
	// one's claim, committed before anything is read or sent. Of two windows that confirm at
	// once, one sends; the other is told who does.
	rec, prior, hasPrior, err = store.ClaimRefund(ctx, rec, at.Add(RefundClaimTTL))
	var busy *state.RefundBusyError
	switch {
	case errors.As(err, &busy):
		return RefundOutcome{Kind: RefundBusy, Record: prior, Err: err}
	case errors.Is(err, state.ErrRefundTaken) && prior.Key == o.Key:
		return RefundOutcome{Kind: RefundDone, Record: prior}
	case errors.Is(err, state.ErrRefundTaken):
		return RefundOutcome{Kind: RefundRefused, Record: prior, Err: ErrRefundDone}
	case err != nil:
		return RefundOutcome{Kind: RefundRefused, Err: fmt.Errorf("recording the refund before sending it (nothing was sent): %w", err)}
	}
	var out RefundOutcome
	if hasPrior && prior.State.Open() {
		// An earlier attempt may have landed: read before asking again.
		tx, landed, err := readBack(ctx, svc, store, ch.ID, wallet)
		out.ReadBack = tx
		switch {
		case err != nil:
			// Released as it was: still open, read back before the next request.
			prior.Claim = nil
			prior, _ = store.PutRefund(context.WithoutCancel(ctx), prior)
			return RefundOutcome{Kind: RefundUnknown, Record: prior, ReadBack: tx, Err: fmt.Errorf("reading the transaction before asking again: %w", err)}
		case landed != nil:
			return settle(ctx, store, rec, landed, now, out)
		case tx.Status != api.StatusCompleted:
			prior.State, prior.UpdatedAt, prior.Claim = state.RefundRefused, now(), nil
			prior.Message = fmt.Sprintf("the transaction is %s now", tx.Status)
			rec2, _ := store.PutRefund(context.WithoutCancel(ctx), prior)
			return RefundOutcome{Kind: RefundRefused, Record: rec2, ReadBack: tx, Err: fmt.Errorf("%w: the service reports it %s", ErrRefundNotPaid, tx.Status)}
		}
	}
	rec.Attempts++
	rec, err = store.PutRefund(ctx, rec) // still claimed
	if err != nil {
		rec.Claim = nil
		_, _ = store.PutRefund(context.WithoutCancel(ctx), rec)
		return RefundOutcome{Kind: RefundRefused, Err: fmt.Errorf("recording the refund before sending it (nothing was sent): %w", err)}
	}
	out.Sent = true
	reply, err := svc.RefundTransaction(ctx, ch.ID, &api.RefundRequest{Reason: o.Reason}, api.WithSubAccount(SubAccountHeader(wallet)))
	// The record must follow the outcome even when the context is done; writing the outcome
	// releases the claim.
	wctx := context.WithoutCancel(ctx)
	rec.Claim = nil
	if err == nil {
		out.Reply = reply
		rec.State, rec.UpdatedAt = state.RefundPending, now()
		rec.PspRefundID = reply.PspRefundTransactionID
		if reply.Status == api.RefundRequestError {
			rec.State = state.RefundRefused
			rec.Message = "the payment institution answered ERROR"
		}
		rec, perr := store.PutRefund(wctx, rec)
		out.Record = rec
		if rec.State == state.RefundRefused {
			out.Kind, out.Err = RefundRefused, errors.New(rec.Message)
			return out
		}
		out.Kind, out.Err = RefundDone, perr
		return out
	}
	var ae *api.Error
	if refused(err) && errors.As(err, &ae) {
		if rec.Attempts > 1 && strings.Contains(strings.ToLower(ae.Message), alreadyRefunded) {
			// An earlier attempt of this form landed after all.
			rec.State, rec.UpdatedAt = state.RefundPending, now()
			rec, _ = store.PutRefund(wctx, rec)
			out.Kind, out.Record = RefundDone, rec
			return out
		}
		rec.State, rec.UpdatedAt = state.RefundRefused, now()
		rec.Message, rec.TraceID = ae.Message, ae.TraceID
		rec, _ = store.PutRefund(wctx, rec)
		out.Kind, out.Record, out.Err = RefundRefused, rec, err
		return out
	}
	// No answer: the refund may have been taken. Read the transaction back.
	rctx, rcancel := context.WithTimeout(wctx, 10*time.Second)
	defer rcancel()
	tx, landed, rerr := readBack(rctx, svc, store, ch.ID, wallet)
	out.ReadBack = tx
	if rerr == nil && landed != nil {
		return settle(wctx, store, rec, landed, now, out)
	}
	rec.State, rec.UpdatedAt = state.RefundUnknown, now()
	rec, _ = store.PutRefund(wctx, rec)
	out.Kind, out.Record, out.Err = RefundUnknown, rec, err
	return out
}

// readBack reads the charge from the service (applying it to the store) and the
// refund_completed event recorded for it, if any, with its verdict.
func readBack(ctx context.Context, svc TransactionReader, store refundReader, id, wallet string) (*api.Transaction, *state.EventEntry, error) {
	tx, err := svc.GetTransaction(ctx, id, api.WithSubAccount(SubAccountHeader(wallet)))
	if err != nil {
		return nil, nil, err
	}
	if _, _, err := store.ApplyTransaction(ctx, tx); err != nil {
		return tx, nil, err
	}
	ev, ok, err := store.RefundEvent(ctx, id)
	if err != nil || !ok {
		return tx, nil, err
	}
	return tx, &ev, nil
}

// refundReader is what readBack needs of the store.
type refundReader interface {
	ApplyTransaction(ctx context.Context, tx *api.Transaction) (state.Charge, bool, error)
	RefundEvent(ctx context.Context, chargeID string) (state.EventEntry, bool, error)
}

// settle records a refund that refund_completed reported: taken (pending) until the service
// confirmed its refund line, then completed. Either way it landed and is never sent again.
func settle(ctx context.Context, store RefundStore, rec state.Refund, ev *state.EventEntry, now func() time.Time, out RefundOutcome) RefundOutcome {
	rec.Claim = nil
	if ev.Verdict == state.VerdictConfirmed {
		rec = completeRecord(rec, ev.Event, now())
	} else {
		rec.State, rec.UpdatedAt = state.RefundPending, now()
		rec.Message, rec.TraceID = "", ""
	}
	rec, err := store.PutRefund(context.WithoutCancel(ctx), rec)
	out.Kind, out.Record, out.Err = RefundDone, rec, err
	return out
}

// completeRecord marks rec completed by the confirmed refund_completed ev: its e2eId, its
// amount, and its fee as reported by the event (unconfirmed).
func completeRecord(rec state.Refund, ev *api.Event, at time.Time) state.Refund {
	rec.State, rec.UpdatedAt = state.RefundCompleted, at
	rec.E2EID = ev.E2EID
	if ev.Amount > 0 {
		rec.Amount = ev.Amount
	}
	// The event's fee is reported, not confirmed (the refund line read back carries none):
	// kept as such when possible (0 to the amount), dropped when not.
	rec.FeeReported, rec.HasFeeReported = 0, false
	if ev.FeeAmount >= 0 && ev.FeeAmount <= rec.Amount {
		rec.FeeReported, rec.HasFeeReported = ev.FeeAmount, true
	}
	rec.Message, rec.TraceID = "", ""
	return rec
}

// RefundFeed is what AwaitRefund watches: the store's change signal and its records.
type RefundFeed interface {
	Changed() <-chan struct{}
	RefundStore
}

// AwaitRefund waits until refund_completed for chargeID is recorded (by this window's receiver
// or another's) and the service confirmed it (its refund line read back), then marks the
// refund completed with the fee it reports (kept as reported, unconfirmed). It returns the record, or ctx's error when it ends
// first.
func AwaitRefund(ctx context.Context, store RefundFeed, chargeID string, now func() time.Time) (state.Refund, error) {
	if now == nil {
		now = time.Now
	}
	for {
		changed := store.Changed()
		rec, ok, err := store.RefundOf(ctx, chargeID)
		if err != nil {
			return rec, err
		}
		if ok && rec.State == state.RefundCompleted {
			return rec, nil
		}
		ev, found, err := store.RefundEvent(ctx, chargeID)
		if err != nil {
			return rec, err
		}
		// refund_completed is a hint: the refund is completed once the service confirmed its
		// refund line (the dashboard reads each one back).
		if found && ev.Verdict == state.VerdictConfirmed {
			if !ok {
				rec = state.Refund{ChargeID: chargeID, Wallet: state.NormalizeWallet(ev.Event.Wallet()), RequestedAt: now()}
			}
			return store.PutRefund(context.WithoutCancel(ctx), completeRecord(rec, ev.Event, now()))
		}
		select {
		case <-ctx.Done():
			return rec, ctx.Err()
		case <-changed:
		}
	}
}
