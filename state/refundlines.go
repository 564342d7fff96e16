package state

import (
	"context"
	"database/sql"
	"errors"

	"pixdash/api"
)

// The confirmed refund lines (migration 0014): one row of refund_lines per refund_completed
// event whose verdict is confirmed, written in the transaction that confirms it (setVerdictTx),
// taken out by triggers when the verdict moves away or the event is deleted. The day's figures
// read a period's refunds there (refundLines) instead of decoding every refund event's payload.

// refundLineOf is the refund line a refund_completed event stored with wallet, transaction id
// txID, arrival received (unix ms) and payload raw reports: the charge is txID, else the
// payload's transactionId; a payload that does not decode gives no line id and no amounts.
func refundLineOf(wallet, txID string, received int64, raw []byte) refundRow {
	r := refundRow{wallet: wallet, chargeID: txID, received: received}
	e, err := api.DecodeEvent(raw)
	if err != nil {
		return r
	}
	r.amount, r.lineID = e.Amount, e.ID
	if e.FeeAmount >= 0 && e.FeeAmount <= e.Amount {
		r.fee = e.FeeAmount
	}
	if r.chargeID == "" {
		r.chargeID = e.TransactionID
	}
	return r
}

// refundRow is one row of refund_lines.
type refundRow struct {
	wallet, chargeID, lineID string
	received                 int64
	amount, fee              api.Money
}

const insertRefundLineSQL = `INSERT OR REPLACE INTO refund_lines(seq, received_at, wallet, charge_id, line_id, amount, fee) VALUES (?, ?, ?, ?, ?, ?, ?)`

// putRefundLineTx writes the refund line of the event at seq (a confirmed refund_completed).
func putRefundLineTx(tx *sql.Tx, seq int64) error {
	var (
		wallet, txID string
		received     int64
		raw          []byte
	)
	err := tx.QueryRow(`SELECT wallet, transaction_id, received_at, raw FROM events WHERE seq = ?`, seq).Scan(&wallet, &txID, &received, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	r := refundLineOf(wallet, txID, received, raw)
	_, err = tx.Exec(insertRefundLineSQL, seq, r.received, r.wallet, r.chargeID, r.lineID, int64(r.amount), int64(r.fee))
	return err
}

// refundFillBatch is how many events fillRefundLines reads at a time (its memory stays flat
// whatever the history holds).
const refundFillBatch = 1024

// fillRefundLines writes the refund line of every confirmed refund_completed event in tx (after
// migration 0014's SQL, on a history written before it; a generated history). It replaces rows
// already there, so it can run again.
func fillRefundLines(ctx context.Context, tx *sql.Tx) error {
	ins, err := tx.PrepareContext(ctx, insertRefundLineSQL)
	if err != nil {
		return err
	}
	defer ins.Close()
	type event struct {
		seq, received int64
		wallet, txID  string
		raw           []byte
	}
	after := int64(-1 << 63)
	for {
		rows, err := tx.QueryContext(ctx, `SELECT seq, wallet, transaction_id, received_at, raw FROM events INDEXED BY events_kind
			WHERE kind = 'refund_completed' AND verdict = 'confirmed' AND seq > ? ORDER BY seq LIMIT ?`, after, refundFillBatch)
		if err != nil {
			return err
		}
		var batch []event
		for rows.Next() {
			var e event
			if err := rows.Scan(&e.seq, &e.wallet, &e.txID, &e.received, &e.raw); err != nil {
				_ = rows.Close()
				return err
			}
			batch = append(batch, e)
		}
		_ = rows.Close() // the rows were all read: Err says whether that went well
		if err := rows.Err(); err != nil {
			return err
		}
		for _, e := range batch {
			r := refundLineOf(e.wallet, e.txID, e.received, e.raw)
			if _, err := ins.ExecContext(ctx, e.seq, r.received, r.wallet, r.chargeID, r.lineID, int64(r.amount), int64(r.fee)); err != nil {
				return err
			}
		}
		if len(batch) < refundFillBatch {
			return nil
		}
		after = batch[len(batch)-1].seq
	}
}
