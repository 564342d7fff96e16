package state

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// RefundClaim names the window sending a refund. It is written with the refund's record, in
// the same transaction that checks no other window holds one, and committed before the
// request goes out: of two windows on one profile (two processes sharing the database) that
// confirm the same refund at once, one claims it and sends, the other is told who sends.
type RefundClaim struct {
	// PID and Host are the claiming process's; Window tells apart the stores (windows) one
	// process opened.
	PID    int    `json:"pid"`
	Host   string `json:"host,omitempty"`
	Window string `json:"window"`
	// Since is when the claim was taken; Until bounds it: the sender sends nothing after it,
	// so a claim past Until is stale whatever became of its window.
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// Held reports whether the claim may still be in use at now: before Until, and its process
// not known to be gone. A claim of this process counts only while the window that took it is
// open (a restarted pixdash reusing the pid does not inherit it); a claim of another process
// on this host ends with that process; a claim from another host lasts until Until.
func (c *RefundClaim) Held(now time.Time) bool {
	if c == nil || !now.Before(c.Until) {
		return false
	}
	if c.Host != hostName() {
		return true
	}
	if c.PID == os.Getpid() {
		_, open := openWindows.Load(c.Window)
		return open
	}
	return processAlive(c.PID)
}

// OnThisHost reports whether the claim was taken on this machine.
func (c *RefundClaim) OnThisHost() bool { return c != nil && c.Host == hostName() }

// HeldBefore reports whether the claim is before its Until at now, without asking whether its
// process lives (cheap enough for a view or an update).
func (c *RefundClaim) HeldBefore(now time.Time) bool { return c != nil && now.Before(c.Until) }

// RefundBusyError is ClaimRefund's answer while another window sends the charge's refund.
type RefundBusyError struct {
	Claim RefundClaim
}

func (e *RefundBusyError) Error() string {
	return fmt.Sprintf("this refund is being sent by another window (pid %d) since %s", e.Claim.PID, e.Claim.Since.Format("15:04:05"))
}

// ErrRefundTaken is ClaimRefund's answer when the service took the charge's refund already
// (pending or completed): nothing may be sent again.
var ErrRefundTaken = errors.New("the service took this charge's refund already")

// openWindows holds the window ids of the stores this process has open.
var openWindows sync.Map

// hostName is this machine's name ("" when unknown), read once.
var hostName = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

// newWindowID mints the id of a store (window) of this process.
func newWindowID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	openWindows.Store(id, struct{}{})
	return id
}

// claimant is who this store claims refunds as.
func (s *Store) claimant(since, until time.Time) RefundClaim {
	return RefundClaim{PID: os.Getpid(), Host: hostName(), Window: s.refundCache().window, Since: since, Until: until}
}

// forgetWindow ends this store's claims (its window closed).
func (s *Store) forgetWindow() {
	openWindows.Delete(s.refundCache().window)
}

// ClaimRefund records r as being sent by this window until until, in one transaction that
// first reads the charge's record: when the service took its refund already (pending or
// completed) it writes nothing and returns ErrRefundTaken; when another window holds a claim
// (RefundClaim.Held at r.UpdatedAt) it writes nothing and returns a *RefundBusyError naming
// it. Otherwise it writes r with this window's claim (keeping the attempt count and request
// time of an earlier attempt with the same key) and returns the record written and the one
// it replaced (ok false when none). The claim is committed before ClaimRefund returns, so
// the request may go out; the sender's next PutRefund with a nil Claim releases it.
func (s *Store) ClaimRefund(ctx context.Context, r Refund, until time.Time) (claimed, prior Refund, ok bool, err error) {
	if r.ChargeID == "" {
		return r, prior, false, errors.New("state: a refund needs its charge id")
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = s.now()
	}
	if r.RequestedAt.IsZero() {
		r.RequestedAt = r.UpdatedAt
	}
	r.Wallet = NormalizeWallet(r.Wallet)
	now := r.UpdatedAt
	var refusal error
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		// The writer may run this again with the same transaction's other jobs: it sets its
		// results, nothing else.
		claimed, prior, ok, refusal = r, Refund{}, false, nil
		var doc []byte
		switch qerr := tx.QueryRow(`SELECT doc FROM refunds WHERE charge_id = ?`, r.ChargeID).Scan(&doc); {
		case errors.Is(qerr, sql.ErrNoRows):
		case qerr != nil:
			return nil, qerr
		default:
			if jerr := json.Unmarshal(doc, &prior); jerr != nil {
				return nil, fmt.Errorf("%w: refund of %s: %w", ErrDamaged, r.ChargeID, jerr)
			}
			ok = true
		}
		if ok {
			switch {
			case prior.State.Taken():
				refusal = ErrRefundTaken
				return nil, nil // nothing written
			case prior.Claim.Held(now):
				refusal = &RefundBusyError{Claim: *prior.Claim}
				return nil, nil
			}
			if prior.Key == r.Key {
				claimed.RequestedAt = prior.RequestedAt
				claimed.Attempts = max(claimed.Attempts, prior.Attempts)
			}
		}
		c := s.claimant(now, until)
		claimed.Claim = &c
		body, jerr := json.Marshal(claimed)
		if jerr != nil {
			return nil, jerr
		}
		if _, err := tx.Exec(`INSERT INTO refunds(charge_id, doc) VALUES (?, ?) ON CONFLICT(charge_id) DO UPDATE SET doc = excluded.doc`,
			r.ChargeID, string(body)); err != nil {
			return nil, err
		}
		s.mark(changeCharges)
		rec := claimed
		return func() { s.logRefund("claim", rec); s.rememberRefund(rec) }, nil
	})
	if err != nil {
		return r, prior, ok, classify(err)
	}
	if refusal != nil {
		s.rememberRefund(prior) // what this window shows catches up with the other's
		return prior, prior, ok, refusal
	}
	return claimed, prior, ok, nil
}

// ChangeRefund reads the charge's refund record and writes what f makes of it, in one
// transaction (no other window writes in between). f gets the record and whether there is
// one; it returns the record to write, or false to write nothing. f may run more than once
// and must not have side effects. It returns the record as it stands afterwards.
func (s *Store) ChangeRefund(ctx context.Context, chargeID string, f func(r Refund, ok bool) (Refund, bool)) (Refund, bool, error) {
	var out Refund
	var have, wrote bool
	now := s.now()
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		var cur Refund
		var doc []byte
		have, wrote = false, false
		switch qerr := tx.QueryRow(`SELECT doc FROM refunds WHERE charge_id = ?`, chargeID).Scan(&doc); {
		case errors.Is(qerr, sql.ErrNoRows):
		case qerr != nil:
			return nil, qerr
		default:
			if jerr := json.Unmarshal(doc, &cur); jerr != nil {
				return nil, fmt.Errorf("%w: refund of %s: %w", ErrDamaged, chargeID, jerr)
			}
			have = true
		}
		out = cur
		next, write := f(cur, have)
		if !write {
			return nil, nil
		}
		next.ChargeID = chargeID
		if next.UpdatedAt.IsZero() {
			next.UpdatedAt = now
		}
		if next.RequestedAt.IsZero() {
			next.RequestedAt = next.UpdatedAt
		}
		next.Wallet = NormalizeWallet(next.Wallet)
		body, jerr := json.Marshal(next)
		if jerr != nil {
			return nil, jerr
		}
		if _, err := tx.Exec(`INSERT INTO refunds(charge_id, doc) VALUES (?, ?) ON CONFLICT(charge_id) DO UPDATE SET doc = excluded.doc`,
			chargeID, string(body)); err != nil {
			return nil, err
		}
		out, have, wrote = next, true, true
		s.mark(changeCharges)
		rec := next
		return func() { s.logRefund("change", rec); s.rememberRefund(rec) }, nil
	})
	if err != nil {
		return out, have, classify(err)
	}
	if have && !wrote {
		s.rememberRefund(out)
	}
	return out, have, nil
}

// OpenRefunds reads the refund records whose outcome is not settled: requested, unknown, or
// taken (pending) and not completed yet.
func (s *Store) OpenRefunds(ctx context.Context) ([]Refund, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT doc FROM refunds`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Refund
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return nil, classify(err)
		}
		var r Refund
		if json.Unmarshal(doc, &r) != nil || r.ChargeID == "" {
			continue
		}
		if r.State.Open() || r.State == RefundPending {
			out = append(out, r)
		}
	}
	return out, classify(rows.Err())
}
