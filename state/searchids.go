package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// searchGap is the step between the search numbers (charges.fts_id, migration 0011) of charges
// next to each other in the list, as the schema's triggers give them to new charges: small, so
// the trigram index stores each distance in one byte, and not 1, so a charge created before
// others already stored usually finds a number free between its neighbours'.
const searchGap = 4

// searchIDFor is the number a charge at seq ?1 takes between its neighbours' (the schema's
// triggers compute the same), NULL when there is none free.
const searchIDFor = `SELECT CASE
      WHEN n IS NULL THEN coalesce(p, 0) + 4
      WHEN p IS NULL THEN n - 4
      WHEN n - p >= 2 THEN p + (n - p) / 2
    END FROM (SELECT
      (SELECT fts_id FROM charges WHERE seq < ?1 AND fts_id IS NOT NULL ORDER BY seq DESC LIMIT 1) AS p,
      (SELECT fts_id FROM charges WHERE seq > ?1 AND fts_id IS NOT NULL ORDER BY seq LIMIT 1) AS n)`

// labelSearchRows gives a search number to every charge left without one (a charge whose
// neighbours' numbers are next to each other), renumbering a few of its neighbours, and so
// puts them in the search index. The store's writer runs it before each commit; it costs one
// index probe when every charge has its number.
func labelSearchRows(tx *sql.Tx) error { return labelSearchRowsWith(tx, nil) }

// unlabelledSQL finds a charge without a search number.
const unlabelledSQL = `SELECT seq FROM charges WHERE fts_id IS NULL LIMIT 1`

// labelSearchRowsWith is labelSearchRows with unlabelledSQL prepared (nil: parsed here), as
// the writer runs it after every group of a flood.
func labelSearchRowsWith(tx *sql.Tx, unlabelled *sql.Stmt) error {
	for {
		var seq int64
		var err error
		if unlabelled != nil {
			err = tx.Stmt(unlabelled).QueryRow().Scan(&seq)
		} else {
			err = tx.QueryRow(unlabelledSQL).Scan(&seq)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := relabelAround(tx, seq); err != nil {
			return fmt.Errorf("numbering the search index: %w", err)
		}
	}
}

// labelRow is a charge's place in the list and its search number (Valid false: none).
type labelRow struct {
	seq int64
	id  sql.NullInt64
}

// relabelAround numbers the charge at seq and renumbers its neighbours, evenly, in the
// smallest window around it (2, 4, 8... charges on each side) whose numbers leave enough room:
// the denser the numbers may be the smaller the window (an order-maintenance list: a charge
// costs a few renumberings on average however many are added at one place). A window that
// reaches either end of the list always has room there.
func relabelAround(tx *sql.Tx, seq int64) error {
	read := func(q string, limit int) ([]labelRow, error) {
		rows, err := tx.Query(q, seq, limit)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []labelRow
		for rows.Next() {
			var r labelRow
			if err := rows.Scan(&r.seq, &r.id); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	var self sql.NullInt64
	if err := tx.QueryRow(`SELECT fts_id FROM charges WHERE seq = ?`, seq).Scan(&self); err != nil {
		return err
	}
	for level := 1; ; level++ {
		w := 1 << level
		before, err := read(`SELECT seq, fts_id FROM charges WHERE seq < ? ORDER BY seq DESC LIMIT ?`, w+1)
		if err != nil {
			return err
		}
		after, err := read(`SELECT seq, fts_id FROM charges WHERE seq > ? ORDER BY seq LIMIT ?`, w+1)
		if err != nil {
			return err
		}
		loOpen, hiOpen := len(before) <= w, len(after) <= w
		var lo, hi int64
		if !loOpen {
			if !before[w].id.Valid {
				continue // a bound without a number: a wider window
			}
			lo, before = before[w].id.Int64, before[:w]
		}
		if !hiOpen {
			if !after[w].id.Valid {
				continue
			}
			hi, after = after[w].id.Int64, after[:w]
		}
		win := make([]labelRow, 0, len(before)+1+len(after))
		for i := len(before) - 1; i >= 0; i-- {
			win = append(win, before[i])
		}
		win = append(win, labelRow{seq: seq, id: self})
		win = append(win, after...)
		n := int64(len(win))
		var first, step int64
		switch {
		case loOpen && hiOpen:
			first, step = searchGap, searchGap
		case loOpen:
			first, step = hi-n*searchGap, searchGap
		case hiOpen:
			first, step = lo+searchGap, searchGap
		default:
			// The room a window of this level needs per charge: from a little more than one
			// number (the smallest windows, renumbered often but cheaply) up to searchGap for
			// 4,096 charges on each side, so wider windows keep room for the narrower ones.
			need := 1 + float64(level)/4
			if float64(hi-lo) < float64(n+1)*need {
				continue
			}
			step = (hi - lo) / (n + 1)
			first = lo + step
		}
		return setLabels(tx, win, first, step)
	}
}

// setLabels numbers win's charges first, first+step, ... in two passes (every changed one
// out of the index, then each in with its new number), so no number is ever held twice.
func setLabels(tx *sql.Tx, win []labelRow, first, step int64) error {
	var changed []int
	for i, r := range win {
		if want := first + int64(i)*step; !r.id.Valid || r.id.Int64 != want {
			changed = append(changed, i)
		}
	}
	clear, err := tx.Prepare(`UPDATE charges SET fts_id = NULL WHERE seq = ?`)
	if err != nil {
		return err
	}
	defer clear.Close()
	set, err := tx.Prepare(`UPDATE charges SET fts_id = ? WHERE seq = ?`)
	if err != nil {
		return err
	}
	defer set.Close()
	for _, i := range changed {
		if win[i].id.Valid {
			if _, err := clear.Exec(win[i].seq); err != nil {
				return err
			}
		}
	}
	for _, i := range changed {
		if _, err := set.Exec(first+int64(i)*step, win[i].seq); err != nil {
			return err
		}
	}
	return nil
}

// searchOrderCheck counts the charges whose search number is set and in the list's order
// (greater than the one before it), against every charge: a charge left out of the search
// index, or listed by it out of order, is a difference.
var searchOrderCheck = indexCheck{"charges_fts_id",
	`SELECT count(*), 0 FROM (SELECT fts_id, lag(fts_id) OVER (ORDER BY seq) AS p FROM charges NOT INDEXED) WHERE fts_id IS NOT NULL AND (p IS NULL OR fts_id > p)`,
	`SELECT coalesce(sum(n), 0), 0 FROM charge_counts`, "charges in the list's order"}

// renumberSearch gives every charge its search number afresh (searchGap apart in the list's
// order) and refills the search index from the charges' haystacks: the repair of numbers
// found missing or out of order.
func renumberSearch(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		`UPDATE charges SET fts_id = NULL WHERE fts_id IS NOT NULL`,
		`UPDATE charges SET fts_id = r.n * 4 FROM (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM charges) AS r WHERE charges.seq = r.seq`,
		`INSERT INTO charges_fts(charges_fts) VALUES ('rebuild')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
