package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// WithdrawalTimeout bounds one withdrawal request with its retries.
const WithdrawalTimeout = 30 * time.Second

// WithdrawalAPI sends a withdrawal; *api.Client implements it.
type WithdrawalAPI interface {
	CreateWithdrawal(ctx context.Context, req *api.CreateWithdrawalRequest, opts ...api.RequestOption) (*api.Withdrawal, error)
}

// WithdrawalStore keeps the withdrawal records and reads their events; *state.Store implements it.
type WithdrawalStore interface {
	PutWithdrawal(ctx context.Context, w state.Withdrawal) (state.Withdrawal, error)
	WithdrawalByKey(ctx context.Context, key string) (state.Withdrawal, bool, error)
	WithdrawalEvents(ctx context.Context, wallet, id string) ([]*api.Event, error)
}

// WithdrawalOrder is a withdrawal the merchant confirmed. Key is minted when the form opens and
// reused by every retry of the same form. Spendable is the wallet's available balance as GET
// /account last gave it (nil: unknown); Fee is the withdrawal fee last seen, used to estimate
// what a netAmount withdrawal takes from the wallet. ReadOnly is the profile's read_only.
type WithdrawalOrder struct {
	Wallet    string
	Req       api.CreateWithdrawalRequest
	Key       string
	Spendable *api.Money
	Fee       api.Money
	ReadOnly  bool
}

// Need is what the withdrawal takes from the wallet: the gross amount, or the net plus the
// fee last seen.
func (o WithdrawalOrder) Need() api.Money {
	switch {
	case o.Req.Amount != nil:
		return *o.Req.Amount
	case o.Req.NetAmount != nil:
		return *o.Req.NetAmount + o.Fee
	}
	return 0
}

// WithdrawalResultKind is how a withdrawal request ended.
type WithdrawalResultKind int

// Outcomes of Withdraw.
const (
	// WithdrawalDone: the service took the withdrawal (now or in an earlier attempt of this key).
	WithdrawalDone WithdrawalResultKind = iota
	// WithdrawalRefused: nothing left the wallet (the service's refusal or a local rule); Err says why.
	WithdrawalRefused
	// WithdrawalUnknown: no answer; the same key asks again safely (the service answers the first outcome).
	WithdrawalUnknown
)

// WithdrawalOutcome is the outcome of Withdraw.
type WithdrawalOutcome struct {
	Kind   WithdrawalResultKind
	Record state.Withdrawal
	Reply  *api.Withdrawal
	// Sent reports whether a request went to the service in this call.
	Sent bool
	Err  error
}

// Local reasons a withdrawal is not sent.
var (
	ErrWithdrawalReadOnly  = errors.New("this profile is read-only: withdrawals are disabled (read_only = true)")
	ErrWithdrawalNoKey     = errors.New("a withdrawal needs the Idempotency-Key minted when its form opened")
	ErrWithdrawalNoBalance = errors.New("the wallet's spendable balance is not known: read it (r in the wallets view) before withdrawing")
	ErrWithdrawalBalance   = errors.New("the withdrawal is more than the spendable balance")
)

// BalanceShort is the local refusal of a withdrawal larger than the spendable balance. Need is
// what would leave the wallet; Fee is the part of it that is the fee last seen (a netAmount
// withdrawal: the recipient's amount plus the fee), 0 for a gross amount.
type BalanceShort struct{ Need, Spendable, Fee api.Money }

func (e BalanceShort) Error() string {
	return fmt.Sprintf("the withdrawal takes %s and the spendable balance is %s", e.Need.BRL(), e.Spendable.BRL())
}

func (e BalanceShort) Unwrap() error { return ErrWithdrawalBalance }

// CheckWithdrawal says why o cannot be sent (nil when it can): a read-only profile, the
// request's own rules (api.CheckCreateWithdrawal) and the spendable balance.
func CheckWithdrawal(o WithdrawalOrder) error {
	if o.ReadOnly {
		return ErrWithdrawalReadOnly
	}
	if ps := api.CheckCreateWithdrawal(&o.Req); len(ps) > 0 {
		return &api.ValidationError{Problems: ps}
	}
	return o.CheckFunds()
}

// CheckFunds is the balance rule of CheckWithdrawal, the one the withdrawal form also applies
// as the amount is typed: ErrWithdrawalNoBalance while the spendable balance is unknown, a
// BalanceShort when what leaves the wallet (Need) is more than it.
func (o WithdrawalOrder) CheckFunds() error {
	if o.Spendable == nil {
		return ErrWithdrawalNoBalance
	}
	if need := o.Need(); need > *o.Spendable {
		short := BalanceShort{Need: need, Spendable: *o.Spendable}
		if o.Req.Amount == nil && o.Req.NetAmount != nil {
			short.Fee = o.Fee
		}
		return short
	}
	return nil
}

// Withdraw sends o (POST /withdrawals in o.Wallet with o.Key as its Idempotency-Key) and records
// it. The record is written before the request; a record of the same key that the service took
// already is reported, never sent again; one whose outcome is open (a lost reply, a crash) is
// asked again with the same key, which the service answers with the first outcome, so a
// withdrawal is never sent twice blindly. A refusal records the envelope's message and traceId.
func Withdraw(ctx context.Context, svc WithdrawalAPI, store WithdrawalStore, o WithdrawalOrder, now func() time.Time) WithdrawalOutcome {
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithTimeout(ctx, WithdrawalTimeout)
	defer cancel()
	if o.Key == "" {
		return WithdrawalOutcome{Kind: WithdrawalRefused, Err: ErrWithdrawalNoKey}
	}
	prior, hasPrior, err := store.WithdrawalByKey(ctx, o.Key)
	if err != nil {
		return WithdrawalOutcome{Kind: WithdrawalUnknown, Err: err}
	}
	if hasPrior && prior.State.Taken() {
		return WithdrawalOutcome{Kind: WithdrawalDone, Record: prior}
	}
	check := o
	if hasPrior && prior.State.Open() {
		// The first attempt may have taken the money already: the balance no longer tells.
		big := api.Money(1 << 62)
		check.Spendable = &big
	}
	if err := CheckWithdrawal(check); err != nil {
		return WithdrawalOutcome{Kind: WithdrawalRefused, Record: prior, Err: err}
	}
	wallet := state.NormalizeWallet(o.Wallet)
	r := o.Req
	rec := state.Withdrawal{Key: o.Key, Wallet: wallet, PixKeyType: r.PixKeyType, PixKey: r.PixKey, HolderName: r.HolderName,
		HolderDocument: r.HolderDocument, ByNet: r.NetAmount != nil, Amount: o.Need(), State: state.WithdrawalRequested,
		RequestedAt: now(), UpdatedAt: now()}
	if r.NetAmount != nil {
		rec.NetAmount, rec.Fee = *r.NetAmount, o.Fee
	}
	if hasPrior {
		rec.RequestedAt, rec.Attempts = prior.RequestedAt, prior.Attempts
	}
	rec.Attempts++
	rec, err = store.PutWithdrawal(ctx, rec)
	if err != nil {
		return WithdrawalOutcome{Kind: WithdrawalRefused, Err: fmt.Errorf("recording the withdrawal before sending it (nothing was sent): %w", err)}
	}
	out := WithdrawalOutcome{Sent: true}
	reply, err := svc.CreateWithdrawal(ctx, &r, api.WithIdempotencyKey(o.Key), api.WithSubAccount(SubAccountHeader(wallet)))
	wctx := context.WithoutCancel(ctx)
	if err == nil {
		out.Reply = reply
		rec.ID, rec.Amount, rec.Fee, rec.NetAmount = reply.ID, reply.Amount, reply.FeeAmount, reply.NetAmount
		rec.State, rec.UpdatedAt = state.WithdrawalPending, now()
		rec.Message, rec.TraceID = "", ""
		switch reply.Status {
		case api.WithdrawalCompleted:
			rec.State = state.WithdrawalCompleted
		case api.WithdrawalFailed:
			rec.State, rec.FailureReason = state.WithdrawalFailed, reply.FailureReason
		case api.WithdrawalReversed:
			rec.State, rec.FailureReason = state.WithdrawalReversed, reply.FailureReason
		}
		if evs, err := store.WithdrawalEvents(wctx, wallet, rec.ID); err == nil {
			for _, ev := range evs {
				state.ApplyWithdrawalEvent(&rec, ev, now())
			}
		}
		rec, perr := store.PutWithdrawal(wctx, rec)
		out.Kind, out.Record, out.Err = WithdrawalDone, rec, perr
		return out
	}
	var ae *api.Error
	var ve *api.ValidationError
	switch {
	case refused(err) && errors.As(err, &ae):
		rec.State, rec.UpdatedAt = state.WithdrawalRefused, now()
		rec.Message, rec.TraceID = ae.Message, ae.TraceID
		rec, _ = store.PutWithdrawal(wctx, rec)
		out.Kind, out.Record, out.Err = WithdrawalRefused, rec, err
		return out
	case errors.As(err, &ve):
		// Refused by the client before anything went out.
		rec.State, rec.UpdatedAt, rec.Message = state.WithdrawalRefused, now(), ve.Error()
		rec, _ = store.PutWithdrawal(wctx, rec)
		out.Kind, out.Record, out.Err, out.Sent = WithdrawalRefused, rec, err, false
		return out
	}
	rec.State, rec.UpdatedAt = state.WithdrawalUnknown, now()
	rec, _ = store.PutWithdrawal(wctx, rec)
	out.Kind, out.Record, out.Err = WithdrawalUnknown, rec, err
	return out
}

// settleWithdrawal applies the recorded withdrawal_* events to rec and saves it when they moved it.
func settleWithdrawal(ctx context.Context, store WithdrawalStore, rec state.Withdrawal, now func() time.Time) (state.Withdrawal, error) {
	if rec.ID == "" || !rec.State.Taken() {
		return rec, nil
	}
	evs, err := store.WithdrawalEvents(ctx, rec.Wallet, rec.ID)
	if err != nil {
		return rec, err
	}
	changed := false
	for _, ev := range evs {
		if state.ApplyWithdrawalEvent(&rec, ev, now()) {
			changed = true
		}
	}
	if !changed {
		return rec, nil
	}
	return store.PutWithdrawal(context.WithoutCancel(ctx), rec)
}

// WithdrawalFeed is what AwaitWithdrawal watches: the store's change signal and its records.
type WithdrawalFeed interface {
	Changed() <-chan struct{}
	WithdrawalStore
}

// AwaitWithdrawal waits until the withdrawal recorded under key is settled by its events
// (withdrawal_completed or _failed, or _reversed), recording what they say. It returns the
// record, or ctx's error when it ends first.
func AwaitWithdrawal(ctx context.Context, store WithdrawalFeed, key string, now func() time.Time) (state.Withdrawal, error) {
	if now == nil {
		now = time.Now
	}
	for {
		changed := store.Changed()
		rec, ok, err := store.WithdrawalByKey(ctx, key)
		if err != nil {
			return rec, err
		}
		if !ok {
			return rec, fmt.Errorf("no withdrawal is recorded under key %s", key)
		}
		if rec, err = settleWithdrawal(ctx, store, rec, now); err != nil || rec.State.Settled() {
			return rec, err
		}
		select {
		case <-ctx.Done():
			return rec, ctx.Err()
		case <-changed:
		}
	}
}

// WithdrawalLister lists a wallet's withdrawal records; *state.Store implements it.
type WithdrawalLister interface {
	WithdrawalStore
	Withdrawals(ctx context.Context, wallet string, limit int) ([]state.Withdrawal, error)
}

// ListWithdrawals reads a wallet's withdrawals, newest first, each brought up to date with the
// withdrawal_* events recorded for it (a reversal that came after the wait ended included).
func ListWithdrawals(ctx context.Context, store WithdrawalLister, wallet string, limit int, now func() time.Time) ([]state.Withdrawal, error) {
	if now == nil {
		now = time.Now
	}
	list, err := store.Withdrawals(ctx, wallet, limit)
	if err != nil {
		return nil, err
	}
	for i, w := range list {
		if w.State == state.WithdrawalPending || w.State == state.WithdrawalCompleted {
			if u, err := settleWithdrawal(ctx, store, w, now); err == nil {
				list[i] = u
			}
		}
	}
	return list, nil
}

// WithdrawalRecheck is how soon a withdrawal left open by an earlier session is looked up
// again while its outcome is still not known.
const WithdrawalRecheck = 10 * time.Second

// NotSentMessage is the Message of a withdrawal that RecoverWithdrawals found never reached
// the service (recorded refused: nothing left the wallet).
const NotSentMessage = "never reached the service: no transaction for its Idempotency-Key"

// WithdrawalRecoveryStore lists the withdrawals whose outcome is open and records what the
// service says of them; *state.Store implements it.
type WithdrawalRecoveryStore interface {
	WithdrawalStore
	OpenWithdrawals(ctx context.Context) ([]state.Withdrawal, error)
}

// WithdrawalInFlightUntil is when an attempt of w can no longer land: its last attempt began
// at the latest at the later of RequestedAt and UpdatedAt, ran at most WithdrawalTimeout, and
// the service may act on a request it received for InFlightMargin more. Until then a 404 for
// its key proves nothing.
func WithdrawalInFlightUntil(w state.Withdrawal) time.Time {
	last := w.RequestedAt
	if w.UpdatedAt.After(last) {
		last = w.UpdatedAt
	}
	return last.Add(WithdrawalTimeout + InFlightMargin)
}

// RecoveredWithdrawals is the outcome of RecoverWithdrawals.
type RecoveredWithdrawals struct {
	// Taken are the withdrawals the service holds, as now recorded (pending, completed,
	// failed or reversed).
	Taken []state.Withdrawal
	// NotSent are those that provably never reached the service, now recorded refused.
	NotSent []state.Withdrawal
	// Pending are those still open: a 404 while an attempt may still land, or a failed lookup.
	Pending []state.Withdrawal
	// RetryAt is when to look the pending ones up again (zero when none is pending).
	RetryAt time.Time
	// Err is the last failure (listing, a lookup, a write); the rest went on.
	Err error
}

// RecoverWithdrawals resolves the withdrawals left requested or unknown by a lost reply, a
// crash or a restart, in every wallet: each is looked up by its Idempotency-Key (GET
// /transactions/{key} in its wallet; a withdrawal resolves by it from its creation). Found,
// it was taken: it is recorded with the service's id, the state its transaction's status says
// and the withdrawal_* events already recorded for it. Not found while an attempt may still
// land (WithdrawalInFlightUntil), it is left as it is and RetryAt says when to look again.
// Not found after that, it never reached the service: it is recorded refused with
// NotSentMessage. Any other failure leaves it as it is. Nothing is ever sent again here.
// now is the clock (time.Now when nil).
func RecoverWithdrawals(ctx context.Context, svc TransactionReader, store WithdrawalRecoveryStore, now func() time.Time) RecoveredWithdrawals {
	if now == nil {
		now = time.Now
	}
	var out RecoveredWithdrawals
	open, err := store.OpenWithdrawals(ctx)
	if err != nil {
		out.Err = err
	}
	retry := func(w state.Withdrawal, at time.Time) {
		out.Pending = append(out.Pending, w)
		if out.RetryAt.IsZero() || at.Before(out.RetryAt) {
			out.RetryAt = at
		}
	}
	for _, w := range open {
		tx, err := svc.GetTransaction(ctx, w.Key, api.WithSubAccount(SubAccountHeader(state.NormalizeWallet(w.Wallet))))
		switch {
		case err == nil && tx.Type != "" && tx.Type != api.TypeWithdrawal:
			// The key resolved to something else (an externalReference of another
			// transaction): this does not say what became of the withdrawal.
			out.Err = fmt.Errorf("withdrawal %s: its key resolves to a %s transaction (%s), not a withdrawal", w.Key, tx.Type, tx.ID)
			retry(w, now().Add(WithdrawalRecheck))
		case err == nil:
			rec, ok, err := recordTaken(ctx, store, w, tx, now)
			switch {
			case err != nil:
				out.Err = err
				retry(w, now().Add(WithdrawalRecheck))
			case ok:
				out.Taken = append(out.Taken, rec)
			}
		case errors.Is(err, api.ErrNotFound) && now().Before(WithdrawalInFlightUntil(w)):
			// Not there yet, but an attempt may still land: still unknown, looked up again.
			at := now().Add(WithdrawalRecheck)
			if until := WithdrawalInFlightUntil(w); until.Before(at) {
				at = until
			}
			retry(w, at)
		case errors.Is(err, api.ErrNotFound):
			rec, ok, err := recordNotSent(ctx, store, w, now)
			switch {
			case err != nil:
				out.Err = err
				retry(w, now().Add(WithdrawalRecheck))
			case ok:
				out.NotSent = append(out.NotSent, rec)
			}
		default:
			out.Err = err
			retry(w, now().Add(WithdrawalRecheck))
		}
	}
	return out
}

// stillOpen reads the record of key again before it is resolved: one that meanwhile got its
// answer (a retry from the form) is left alone.
func stillOpen(ctx context.Context, store WithdrawalStore, key string) (state.Withdrawal, bool, error) {
	cur, ok, err := store.WithdrawalByKey(ctx, key)
	if err != nil || !ok || !cur.State.Open() {
		return cur, false, err
	}
	return cur, true, nil
}

// recordTaken records w as the service holds it (tx, found by its key), with the
// withdrawal_* events already recorded for it; ok is false when w was resolved meanwhile.
func recordTaken(ctx context.Context, store WithdrawalStore, w state.Withdrawal, tx *api.Transaction, now func() time.Time) (state.Withdrawal, bool, error) {
	rec, ok, err := stillOpen(ctx, store, w.Key)
	if err != nil || !ok {
		return rec, false, err
	}
	if tx.ID != "" {
		rec.ID = tx.ID
	}
	if tx.Amount != 0 {
		// The statement line is the gross, negative: what left the wallet.
		rec.Amount = max(tx.Amount, -tx.Amount)
	}
	switch tx.Status {
	case api.StatusCompleted:
		rec.State = state.WithdrawalCompleted
	case api.StatusFailed, api.StatusCancelled:
		// The money went back (a reversal, if it was one, comes as its event).
		rec.State = state.WithdrawalFailed
		rec.FailureReason = tx.FailureReason
	default:
		// pending (or a status this version does not know): taken, an event settles it.
		rec.State = state.WithdrawalPending
	}
	if tx.E2EID != "" {
		rec.E2EID = tx.E2EID
	}
	rec.Message, rec.TraceID, rec.UpdatedAt = "", "", now()
	if rec.ID != "" {
		if evs, err := store.WithdrawalEvents(ctx, rec.Wallet, rec.ID); err == nil {
			for _, ev := range evs {
				state.ApplyWithdrawalEvent(&rec, ev, now())
			}
		}
	}
	rec, err = store.PutWithdrawal(context.WithoutCancel(ctx), rec)
	return rec, err == nil, err
}

// recordNotSent records w as never having reached the service; ok is false when w was
// resolved meanwhile.
func recordNotSent(ctx context.Context, store WithdrawalStore, w state.Withdrawal, now func() time.Time) (state.Withdrawal, bool, error) {
	rec, ok, err := stillOpen(ctx, store, w.Key)
	if err != nil || !ok {
		return rec, false, err
	}
	rec.State, rec.Message, rec.TraceID, rec.UpdatedAt = state.WithdrawalRefused, NotSentMessage, "", now()
	rec, err = store.PutWithdrawal(context.WithoutCancel(ctx), rec)
	return rec, err == nil, err
}
