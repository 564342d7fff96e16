package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"pixdash/api"
)

// WithdrawalState is where a withdrawal asked from this dashboard stands.
type WithdrawalState string

// Withdrawal states. Requested is written before the request is sent, so a crash or a lost
// reply leaves a trace; the same Idempotency-Key then asks again and the service answers the
// first outcome instead of paying twice.
const (
	WithdrawalRequested WithdrawalState = "requested" // recorded; the request is being sent
	WithdrawalPending   WithdrawalState = "pending"   // the service took it; an event settles it
	WithdrawalCompleted WithdrawalState = "completed" // withdrawal_completed
	WithdrawalFailed    WithdrawalState = "failed"    // withdrawal_failed: the money went back
	WithdrawalReversed  WithdrawalState = "reversed"  // withdrawal_reversed: the money came back
	WithdrawalRefused   WithdrawalState = "refused"   // the service (or a local rule) refused it: nothing left
	WithdrawalUnknown   WithdrawalState = "unknown"   // the reply was lost: ask again with the same key
)

// Open reports whether the outcome of the request is not known (it may have landed).
func (s WithdrawalState) Open() bool { return s == WithdrawalRequested || s == WithdrawalUnknown }

// Taken reports whether the service took the withdrawal (whatever happened to it later).
func (s WithdrawalState) Taken() bool {
	return s == WithdrawalPending || s == WithdrawalCompleted || s == WithdrawalFailed || s == WithdrawalReversed
}

// Settled reports whether no event is awaited any more (completed may still be reversed,
// but the merchant's wait is over).
func (s WithdrawalState) Settled() bool {
	return s == WithdrawalCompleted || s == WithdrawalFailed || s == WithdrawalReversed || s == WithdrawalRefused
}

// Withdrawal is a PIX withdrawal asked from this dashboard. Key is its Idempotency-Key, minted
// when the form opened and reused by every retry; ID is the service's id once it answered.
type Withdrawal struct {
	Key            string          `json:"key"`
	ID             string          `json:"id,omitempty"`
	Wallet         string          `json:"wallet"`
	PixKeyType     api.PixKeyType  `json:"pixKeyType"`
	PixKey         string          `json:"pixKey"`
	HolderName     string          `json:"holderName"`
	HolderDocument string          `json:"holderDocument"`
	ByNet          bool            `json:"byNet,omitempty"` // netAmount was sent (else amount)
	Amount         api.Money       `json:"amount"`          // gross: what leaves the wallet (asked, or as the service computed it)
	Fee            api.Money       `json:"fee,omitempty"`
	NetAmount      api.Money       `json:"netAmount,omitempty"` // what the recipient receives
	State          WithdrawalState `json:"state"`
	Attempts       int             `json:"attempts,omitempty"`
	FailureReason  string          `json:"failureReason,omitempty"`
	E2EID          string          `json:"e2eId,omitempty"`
	// Message and TraceID are the service's envelope when it refused the withdrawal.
	Message     string    `json:"message,omitempty"`
	TraceID     string    `json:"traceId,omitempty"`
	RequestedAt time.Time `json:"requestedAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// PutWithdrawal records w (replacing the record with the same key); a zero UpdatedAt means now.
func (s *Store) PutWithdrawal(ctx context.Context, w Withdrawal) (Withdrawal, error) {
	if w.Key == "" {
		return w, errors.New("state: a withdrawal needs its Idempotency-Key")
	}
	if w.UpdatedAt.IsZero() {
		w.UpdatedAt = s.now()
	}
	if w.RequestedAt.IsZero() {
		w.RequestedAt = w.UpdatedAt
	}
	w.Wallet = NormalizeWallet(w.Wallet)
	doc, err := json.Marshal(w)
	if err != nil {
		return w, err
	}
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`INSERT INTO withdrawals(idem_key, wallet, requested_at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT(idem_key) DO UPDATE SET doc = excluded.doc, wallet = excluded.wallet`,
			w.Key, w.Wallet, w.RequestedAt.UnixMilli(), string(doc)); err != nil {
			return nil, err
		}
		s.mark(changeEvents)
		return func() {
			s.logWrite("withdrawal", "put", w.Key, slog.String("wallet", w.Wallet), slog.String("state", string(w.State)), slog.Int64("amount", int64(w.Amount)))
		}, nil
	})
	return w, err
}

// WithdrawalByKey reads the withdrawal recorded under an Idempotency-Key.
func (s *Store) WithdrawalByKey(ctx context.Context, key string) (Withdrawal, bool, error) {
	var doc []byte
	err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM withdrawals WHERE idem_key = ?`, key).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return Withdrawal{}, false, nil
	}
	if err != nil {
		return Withdrawal{}, false, classify(err)
	}
	var w Withdrawal
	if err := json.Unmarshal(doc, &w); err != nil {
		return Withdrawal{}, false, fmt.Errorf("%w: withdrawal %s: %w", ErrDamaged, key, err)
	}
	return w, true, nil
}

// Withdrawals lists a wallet's withdrawals, newest first, at most limit (all when limit <= 0).
func (s *Store) Withdrawals(ctx context.Context, wallet string, limit int) ([]Withdrawal, error) {
	if limit <= 0 {
		limit = -1
	}
	return s.queryWithdrawals(ctx, func(Withdrawal) bool { return true },
		`SELECT doc FROM withdrawals WHERE wallet = ? ORDER BY requested_at DESC, rowid DESC LIMIT ?`, NormalizeWallet(wallet), limit)
}

// queryWithdrawals runs a query of withdrawal docs and keeps the readable ones that keep accepts.
func (s *Store) queryWithdrawals(ctx context.Context, keep func(Withdrawal) bool, query string, args ...any) ([]Withdrawal, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Withdrawal
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return nil, classify(err)
		}
		var w Withdrawal
		if json.Unmarshal(doc, &w) == nil && w.Key != "" && keep(w) {
			out = append(out, w)
		}
	}
	return out, classify(rows.Err())
}

// withdrawalEventScan bounds how many recent withdrawal events WithdrawalEvents reads (their
// id is in the payload, not in an indexed column).
const withdrawalEventScan = 2000

// WithdrawalEvents reads the withdrawal_* events recorded for a withdrawal id that the service
// confirmed (ConfirmEvent read the withdrawal back and found it as the event says), oldest
// first: an event not read back yet, or contradicted by the service, moves nothing.
func (s *Store) WithdrawalEvents(ctx context.Context, wallet, id string) ([]*api.Event, error) {
	if id == "" {
		return nil, nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE wallet = ? AND kind IN (?, ?, ?) AND verdict = 'confirmed' ORDER BY seq DESC LIMIT ?`,
		NormalizeWallet(wallet), string(api.EventWithdrawalCompleted), string(api.EventWithdrawalFailed), string(api.EventWithdrawalReversed), withdrawalEventScan)
	if err != nil {
		return nil, classify(err)
	}
	es, err := scanEvents(rows)
	if err != nil {
		return nil, err
	}
	var out []*api.Event
	for i := len(es) - 1; i >= 0; i-- {
		if e := es[i]; !e.Damaged && e.Event != nil && e.Event.WithdrawalID == id {
			out = append(out, e.Event)
		}
	}
	return out, nil
}

// ApplyWithdrawalEvent moves w by one withdrawal_* event; it reports whether w changed. A
// reversal wins over completion; a completion never undoes a failure or a reversal.
func ApplyWithdrawalEvent(w *Withdrawal, ev *api.Event, at time.Time) bool {
	var next WithdrawalState
	switch ev.Kind {
	case api.EventWithdrawalCompleted:
		if w.State == WithdrawalFailed || w.State == WithdrawalReversed {
			return false
		}
		next = WithdrawalCompleted
	case api.EventWithdrawalFailed:
		if w.State == WithdrawalReversed {
			return false
		}
		next = WithdrawalFailed
	case api.EventWithdrawalReversed:
		next = WithdrawalReversed
	default:
		return false
	}
	changed := next != w.State
	w.State = next
	if ev.FailureReason != "" && w.FailureReason != ev.FailureReason {
		w.FailureReason, changed = ev.FailureReason, true
	}
	if e2e := withdrawalE2E(ev); e2e != "" && w.E2EID == "" {
		w.E2EID, changed = e2e, true
	}
	if ev.FeeAmount > 0 && w.Fee == 0 {
		w.Fee, changed = ev.FeeAmount, true
	}
	if changed {
		w.UpdatedAt = at
		w.Message, w.TraceID = "", ""
	}
	return changed
}

// withdrawalE2E is the end-to-end id of a withdrawal event: e2eId, else the pspReference the
// payload carries (in data or at the top level), which api.Event does not decode.
func withdrawalE2E(ev *api.Event) string {
	if ev.E2EID != "" {
		return ev.E2EID
	}
	var p struct {
		PspReference string `json:"pspReference"`
		Data         struct {
			PspReference string `json:"pspReference"`
		} `json:"data"`
	}
	if len(ev.Raw) == 0 || json.Unmarshal(ev.Raw, &p) != nil {
		return ""
	}
	if p.Data.PspReference != "" {
		return p.Data.PspReference
	}
	return p.PspReference
}

// OpenWithdrawals lists the withdrawals of every wallet whose outcome is not known
// (requested or unknown: a lost reply, a crash), oldest first.
func (s *Store) OpenWithdrawals(ctx context.Context) ([]Withdrawal, error) {
	return s.queryWithdrawals(ctx, func(w Withdrawal) bool { return w.State.Open() },
		`SELECT doc FROM withdrawals WHERE json_extract(doc, '$.state') IN (?, ?) ORDER BY requested_at, rowid`,
		string(WithdrawalRequested), string(WithdrawalUnknown))
}
