package workflow

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// Timing of a charge creation.
const (
	// CreateTimeout bounds one creation: every attempt (retries reuse the key) starts within it.
	CreateTimeout = 45 * time.Second
	// InFlightMargin is how long after the last attempt's deadline the service may still act
	// on a create it received: a submission is abandoned on a 404 only after that.
	InFlightMargin = 2 * time.Minute
)

// SubAccountHeader maps a wallet to its X-Sub-Account value ("" for the main account).
func SubAccountHeader(wallet string) string {
	if wallet == api.WalletPrincipal {
		return ""
	}
	return wallet
}

// Draft is a validated charge ready to send. Key is its Idempotency-Key, minted before the
// first attempt and reused by every retry; Wallet the wallet it is created in.
type Draft struct {
	Key    string
	Wallet string
	Req    api.CreatePixRequest
}

// Created is the outcome of CreateCharge.
type Created struct {
	// Charge is the charge as tracked; nil when none was created or the outcome is unknown. It
	// is set, with Err, when the service created it but saving it locally failed.
	Charge *state.Charge
	// Unconfirmed reports that the outcome is unknown (network, 5xx, 429): the submission stays
	// pending, and RecoverSubmissions looks it up by its key before anything is sent again.
	Unconfirmed bool
	Err         error
}

// CreateCharge creates d on the service: it records the submission first (a crash then never
// creates a second charge), calls POST /pix with d.Key as Idempotency-Key and d.Wallet as
// X-Sub-Account, and completes the submission with the charge. A refusal (4xx other than 429)
// abandons the submission: nothing was created. Any other failure leaves it pending
// (Unconfirmed). A charge that differs from the request is tracked with Mismatch set, so that
// it is never shown to a customer. No attempt starts after CreateTimeout. now is the clock
// (time.Now when nil).
func CreateCharge(ctx context.Context, c ChargeAPI, s SubmissionStore, d Draft, now func() time.Time) Created {
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithTimeout(ctx, CreateTimeout)
	defer cancel()
	start := now()
	// An attempt already received may still be acted on for a while after its reply was lost.
	sub := state.Submission{Key: d.Key, Wallet: d.Wallet, Request: d.Req, CreatedAt: start,
		InFlightUntil: start.Add(CreateTimeout + InFlightMargin)}
	if err := s.BeginSubmission(ctx, sub); err != nil {
		return Created{Err: err}
	}
	req := d.Req
	pix, err := c.CreatePix(ctx, &req, api.WithIdempotencyKey(d.Key), api.WithSubAccount(SubAccountHeader(d.Wallet)))
	if err != nil {
		if refused(err) {
			// Nothing was created; the key is not used again. The context may be done, yet
			// the record must go.
			_ = s.AbandonSubmission(context.WithoutCancel(ctx), d.Key)
			return Created{Err: err}
		}
		return Created{Err: err, Unconfirmed: true}
	}
	ch := state.ChargeFromPix(pix, &req, d.Wallet, d.Key)
	if ch.CreatedAt.IsZero() {
		ch.CreatedAt = now()
	}
	var mismatch *api.ChargeMismatchError
	if errors.As(api.VerifyCharge(&req, pix), &mismatch) {
		// The charge exists on the service, so it is tracked, but never shown to a customer.
		ch.Mismatch = strings.Join(mismatch.Problems, "; ")
	}
	saved, err := s.CompleteSubmission(ctx, d.Key, ch)
	if err != nil {
		return Created{Charge: &ch, Err: err}
	}
	return Created{Charge: &saved}
}

// refused reports whether the service answered a create with a refusal: an answer below 500
// other than 429 (too many requests, which may be retried with the same key).
func refused(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.HTTPStatus < 500 && ae.HTTPStatus != 429
}

// Recovered is the outcome of RecoverSubmissions.
type Recovered struct {
	// Resolved are the charges found by their key and now tracked.
	Resolved []state.Charge
	// Pending counts submissions still unconfirmed (a failed lookup, or an attempt that may
	// still land); Abandoned those that provably never reached the service.
	Pending, Abandoned int
	// Err is the last failure (reading the submissions, a lookup, a write); the rest went on.
	Err error
}

// RecoverSubmissions resolves the submissions left unconfirmed by a lost reply, a crash or a
// restart: each is looked up by its key (GET /transactions/{key} in its wallet). Found, it is
// tracked. Not found while an attempt may still land (Submission.InFlight), it stays pending.
// Not found after that, it never reached the service and is abandoned. now is the clock
// (time.Now when nil).
func RecoverSubmissions(ctx context.Context, c TransactionReader, s SubmissionStore, now func() time.Time) Recovered {
	if now == nil {
		now = time.Now
	}
	var out Recovered
	subs, err := s.PendingSubmissions(ctx)
	if err != nil {
		out.Err = err
	}
	for _, sub := range subs {
		tx, err := c.GetTransaction(ctx, sub.Key, api.WithSubAccount(SubAccountHeader(sub.Wallet)))
		switch {
		case err == nil:
			ch, err := s.ResolveSubmission(ctx, sub.Key, tx)
			if err != nil {
				out.Err = err
				out.Pending++
				continue
			}
			out.Resolved = append(out.Resolved, ch)
		case errors.Is(err, api.ErrNotFound) && sub.InFlight(now()):
			// Not there yet, but an attempt may still land: unconfirmed, looked up again.
			out.Pending++
		case errors.Is(err, api.ErrNotFound):
			// No attempt can land any more: the request never reached the service.
			if err := s.AbandonSubmission(ctx, sub.Key); err != nil {
				out.Err = err
				out.Pending++
				continue
			}
			out.Abandoned++
		default:
			out.Pending++
			out.Err = err
		}
	}
	return out
}

// Polled is the outcome of PollCharge.
type Polled struct {
	// Tx is the service's answer (nil on failure).
	Tx *api.Transaction
	// Before and After are the tracked charge before and after the answer was applied.
	Before, After state.Charge
	Err           error
}

// PollCharge reads transaction id of wallet from the service and applies the answer to the
// tracked charge: the only way a charge becomes paid. A 404 is counted (state.Store.MarkMissing):
// after a few in a row over some minutes the charge is not-found and no longer polled.
func PollCharge(ctx context.Context, c TransactionReader, s ChargeStore, id, wallet string) Polled {
	tx, err := c.GetTransaction(ctx, id, api.WithSubAccount(SubAccountHeader(wallet)))
	if errors.Is(err, api.ErrNotFound) && !errors.Is(err, api.ErrSubAccountNotFound) {
		before, _, _ := s.Charge(ctx, id)
		after, _, merr := s.MarkMissing(ctx, id)
		if merr != nil {
			err = errors.Join(err, merr)
		}
		return Polled{Before: before, After: after, Err: err}
	}
	if err != nil {
		return Polled{Err: err}
	}
	// Before is only compared with After: a failed read leaves it zero.
	before, _, _ := s.Charge(ctx, id)
	after, _, err := s.ApplyTransaction(ctx, tx)
	return Polled{Tx: tx, Before: before, After: after, Err: err}
}

// TrackRef names a charge the service holds: its id and wallet ("principal" or a sub-account).
type TrackRef struct {
	ID     string
	Wallet string
}

// TrackCharges reads each charge from the service and tracks it, skipping those of a wallet
// the credential may not read; it stops at the first other failure.
func TrackCharges(ctx context.Context, c TransactionReader, s Tracker, refs []TrackRef) error {
	for _, ref := range refs {
		tx, err := c.GetTransaction(ctx, ref.ID, api.WithSubAccount(SubAccountHeader(ref.Wallet)))
		if errors.Is(err, api.ErrSubAccountForbidden) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := s.TrackTransaction(ctx, tx, ref.Wallet); err != nil {
			return err
		}
	}
	return nil
}

// Authenticate signs in (POST /auth) so that bad credentials surface at once.
func Authenticate(ctx context.Context, a Authenticator) error { return a.Authenticate(ctx) }

// LoadProjects lists the projects of wallet, every page, sorted by name (case-insensitive).
func LoadProjects(ctx context.Context, p ProjectLister, wallet string) ([]api.Project, error) {
	// Every page: the service may page by fewer than the limit asked.
	items, err := p.ListAllProjects(ctx, api.WithSubAccount(SubAccountHeader(wallet)))
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(items, func(a, b api.Project) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return items, nil
}
