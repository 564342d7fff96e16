package state

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"time"
)

// OnPaidRun is the record of the profile's on_paid command for one charge.
type OnPaidRun struct {
	ChargeID  string
	Command   string // the program's name (argv[0]), never its arguments' secrets: none are kept
	ClaimedAt time.Time
	// FinishedAt is zero while the run has not reported (under way, or the process that ran it
	// ended first).
	FinishedAt time.Time
	Outcome    string
}

// ClaimOnPaid records that the on_paid command named command is to run for the charge id and
// reports whether this call made the record: only the first caller for a charge, across
// windows and restarts on the same database, gets true and may run the command. The record is
// committed before it returns, so a crash after it skips the command rather than running it
// twice.
func (s *Store) ClaimOnPaid(ctx context.Context, chargeID, command string) (bool, error) {
	if chargeID == "" {
		return false, errors.New("state: on_paid needs a charge id")
	}
	at := s.now().UnixMilli()
	var claimed bool
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		res, err := tx.Exec(`INSERT OR IGNORE INTO on_paid_runs(charge_id, command, claimed_at) VALUES (?, ?, ?)`, chargeID, command, at)
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		claimed = n == 1
		return func() {
			if claimed {
				s.logWrite("on_paid", "claim", chargeID)
			}
		}, nil
	})
	if err != nil {
		return false, classify(err)
	}
	return claimed, nil
}

// FinishOnPaid records how the on_paid run of a charge ended (a short text such as "ok" or
// "exit status 2"; never the command's output).
func (s *Store) FinishOnPaid(ctx context.Context, chargeID, outcome string) error {
	at := s.now().UnixMilli()
	return classify(s.write(ctx, func(tx *sql.Tx) (func(), error) {
		_, err := tx.Exec(`UPDATE on_paid_runs SET finished_at = ?, outcome = ? WHERE charge_id = ?`, at, outcome, chargeID)
		return func() { s.logWrite("on_paid", "finish", chargeID, slog.String("outcome", logReason(outcome))) }, err
	}))
}

// OnPaidRunOf returns the on_paid record of a charge; ok is false when none was made.
func (s *Store) OnPaidRunOf(ctx context.Context, chargeID string) (r OnPaidRun, ok bool, err error) {
	var claimed int64
	var finished sql.NullInt64
	var outcome sql.NullString
	err = s.rdb.QueryRowContext(ctx, `SELECT charge_id, command, claimed_at, finished_at, outcome FROM on_paid_runs WHERE charge_id = ?`, chargeID).
		Scan(&r.ChargeID, &r.Command, &claimed, &finished, &outcome)
	if errors.Is(err, sql.ErrNoRows) {
		return OnPaidRun{}, false, nil
	}
	if err != nil {
		return OnPaidRun{}, false, classify(err)
	}
	r.ClaimedAt = unixMilli(claimed)
	if finished.Valid {
		r.FinishedAt = unixMilli(finished.Int64)
	}
	r.Outcome = outcome.String
	return r, true, nil
}
