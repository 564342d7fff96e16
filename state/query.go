package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ChargeQuery selects charges for the charges list.
type ChargeQuery struct {
	// Wallet keeps one wallet ("principal" or a sub-account reference; "" for all).
	Wallet string
	// Status keeps one display state (FilterAll for all).
	Status StatusFilter
	// Text keeps charges whose id, description, reference, wallet, amount, status, payer, date
	// ("dd/mm/yyyy hh:mm" as the list shows it) or e2eId contains it, ignoring case and accents
	// ("pao" finds "Pão de queijo", and "pão" does too).
	Text string
}

// ChargePage is a window of the charges a query selects, newest first.
type ChargePage struct {
	Query ChargeQuery
	// Offset is the position of Charges[0] in the whole selection.
	Offset  int
	Charges []Charge
	// Total is how many charges the query selects; with Capped, at least that many (a text
	// filter counts its matches up to MaxCountedMatches).
	Total  int
	Capped bool
	// Version is the store's charges counter (Versions) when the page was read.
	Version uint64
}

// MaxCountedMatches is how many matches of a text filter are counted exactly.
const MaxCountedMatches = 1000

// smallSlice is the size under which a state (or wallet) slice is walked through its index,
// checking the text, rather than streaming the text's matches and checking the state: each
// costs a few microseconds a row, so the smaller side should drive.
const smallSlice = 3000

// ChargeWindow reads up to limit charges of q, newest first, starting at offset, and counts
// the selection. A keystroke in the filter costs one call: at a million charges a few
// milliseconds (see README, Performance).
func (s *Store) ChargeWindow(ctx context.Context, q ChargeQuery, offset, limit int) (ChargePage, error) {
	cv, _ := s.Versions()
	page := ChargePage{Query: q, Offset: max(offset, 0), Version: cv}
	text := Fold(strings.TrimSpace(q.Text))
	exact, err := s.countSlice(ctx, q.Wallet, q.Status)
	if err != nil {
		return page, err
	}
	if text == "" {
		page.Total = exact
	}
	plan := planCharges(q, text, exact)
	useFTS, from, where, order, args := plan.fts, plan.from, plan.where, plan.order, plan.args
	// A window in the older half of an exact list is read from the other end: OFFSET walks
	// the index, and the bottom of a million charges is one key (G) away.
	reverse := text == "" && page.Offset > exact/2
	qOffset, qLimit := page.Offset, limit
	if reverse {
		qOffset = max(exact-page.Offset-limit, 0)
		qLimit = max(min(limit, exact-page.Offset), 0)
		order = `c.seq ASC`
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+chargeColsC+` FROM `+from+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, qLimit, qOffset)...)
	if err != nil {
		return page, classify(err)
	}
	if page.Charges, err = scanCharges(rows); err != nil {
		return page, err
	}
	if reverse {
		slices.Reverse(page.Charges)
	}
	switch {
	case text != "" && !useFTS && exact > smallSlice:
		// A text of one or two characters is checked row by row: counting its matches would
		// read the rows again, so the list says only that there are more than it holds.
		page.Total, page.Capped = page.Offset+len(page.Charges), len(page.Charges) == limit
	case text != "":
		var n int
		err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+from+where+` LIMIT ?)`, append(args, MaxCountedMatches+1)...).Scan(&n)
		if err != nil {
			return page, classify(err)
		}
		page.Total, page.Capped = min(n, MaxCountedMatches), n > MaxCountedMatches
		if page.Capped && len(page.Charges) > 0 && page.Offset+len(page.Charges) > page.Total {
			page.Total = page.Offset + len(page.Charges)
		}
	}
	return page, nil
}

// chargePlan is how ChargeWindow selects a query's charges: the FROM, WHERE and ORDER BY
// parts and their arguments.
type chargePlan struct {
	fts                bool
	from, where, order string
	args               []any
}

// planCharges builds the selection of q (text folded, Fold) on a slice of exact charges.
func planCharges(q ChargeQuery, text string, exact int) chargePlan {
	// The trigram index finds a substring of 3 or more characters; shorter ones are checked
	// row by row (they match most rows, so the first page fills fast), as are small slices.
	// The full-text query language ends a string at a NUL: such a text is checked row by row.
	p := chargePlan{from: `charges c`, order: `c.seq DESC`}
	p.fts = text != "" && utf8.RuneCountInString(text) >= 3 && exact > smallSlice && !strings.ContainsRune(text, 0)
	var conds []string
	if q.Wallet != "" {
		conds, p.args = append(conds, "c.wallet = ?"), append(p.args, q.Wallet)
	}
	if q.Status != FilterAll {
		conds, p.args = append(conds, "c.state = ?"), append(p.args, string(q.Status))
	}
	if p.fts {
		p.from = `charges_fts f CROSS JOIN charges c ON c.seq = f.rowid`
		conds = append([]string{"charges_fts MATCH ?"}, conds...)
		p.args = append([]any{trigramMatch(text)}, p.args...)
		p.order = `f.rowid DESC`
		conds, p.args = append(conds, "instr(c.hay, ?) > 0"), append(p.args, text)
	} else if text != "" {
		conds, p.args = append(conds, "instr(c.hay, ?) > 0"), append(p.args, text)
	}
	if len(conds) > 0 {
		p.where = " WHERE " + strings.Join(conds, " AND ")
	}
	return p
}

// countSlice counts the charges of a wallet and state ("" and FilterAll for all), exactly.
func (s *Store) countSlice(ctx context.Context, wallet string, status StatusFilter) (int, error) {
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM charge_counts WHERE (?1 = '' OR wallet = ?1) AND (?2 = '' OR state = ?2)`, wallet, string(status)).Scan(&n)
	return n, classify(err)
}

// Count is how many charges are in one display state, and their sum in centavos.
type Count struct {
	N      int
	Amount int64
}

// Counts returns the number and sum of the charges of a wallet ("" for all) per display state.
func (s *Store) Counts(ctx context.Context, wallet string) (map[ChargeState]Count, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT state, sum(n), sum(amount) FROM charge_counts WHERE (?1 = '' OR wallet = ?1) GROUP BY state`, wallet)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := make(map[ChargeState]Count)
	for rows.Next() {
		var st string
		var c Count
		if err := rows.Scan(&st, &c.N, &c.Amount); err != nil {
			return nil, classify(err)
		}
		if c.N > 0 {
			out[ChargeState(st)] = c
		}
	}
	return out, classify(rows.Err())
}

// scanCharges decodes rows of chargeCols.
func scanCharges(rows *sql.Rows) ([]Charge, error) {
	defer rows.Close()
	var out []Charge
	var r chargeRow
	for rows.Next() {
		out = append(out, Charge{})
		if err := scanChargeRow(rows, &r, &out[len(out)-1]); err != nil {
			return nil, err
		}
	}
	return out, classify(rows.Err())
}

// ChargesBefore reads up to limit charges of q that come after position before in the list
// (math.MaxInt64: from the newest), newest first in ChargeWindow's order, and returns the
// position of the last one read, to pass as before for the next batch. Unlike a window at an
// offset, which walks every row above it, each batch costs the same however deep it is, so
// reading the whole list (an export) takes time linear in its length. The position is the
// charge's place in the list (charges.seq), unique even among charges created in the same
// millisecond, so no row is skipped or repeated at a batch boundary.
func (s *Store) ChargesBefore(ctx context.Context, q ChargeQuery, before int64, limit int) (charges []Charge, last int64, err error) {
	return s.chargesBefore(ctx, q, before, limit, nil)
}

// ChargesRefundsBefore is ChargesBefore that also reads, in the same query, the refund asked
// from the dashboard of each charge of the batch that has one (what RefundsOf would answer for
// the batch), by charge id: an export reads both, and one probe of the refunds a row costs less
// than a second query a batch.
func (s *Store) ChargesRefundsBefore(ctx context.Context, q ChargeQuery, before int64, limit int) (charges []Charge, refunds map[string]Refund, last int64, err error) {
	refunds = make(map[string]Refund)
	charges, last, err = s.chargesBefore(ctx, q, before, limit, refunds)
	return charges, refunds, last, err
}

// chargesBefore is ChargesBefore, with the charges' refunds put in refunds when it is not nil.
func (s *Store) chargesBefore(ctx context.Context, q ChargeQuery, before int64, limit int, refunds map[string]Refund) (charges []Charge, last int64, err error) {
	text := Fold(strings.TrimSpace(q.Text))
	var exact int // the plan weighs the slice's size only against a text
	if text != "" {
		if exact, err = s.countSlice(ctx, q.Wallet, q.Status); err != nil {
			return nil, before, err
		}
	}
	plan := planCharges(q, text, exact)
	key := `c.seq`
	if plan.fts {
		key = `f.rowid` // equal to c.seq, and the order of the full-text match
	}
	where := plan.where
	if where == "" {
		where = " WHERE " + key + " < ?"
	} else {
		where += " AND " + key + " < ?"
	}
	from, refundCol := plan.from, `NULL`
	if refunds != nil {
		from += ` LEFT JOIN refunds r ON r.charge_id = c.id`
		refundCol = `r.doc`
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+key+`, `+refundCol+`, `+chargeColsC+` FROM `+from+where+` ORDER BY `+plan.order+` LIMIT ?`,
		append(plan.args, before, max(limit, 0))...)
	if err != nil {
		return nil, before, classify(err)
	}
	defer rows.Close()
	last = before
	var (
		r      chargeRow
		refund sql.RawBytes
	)
	charges = make([]Charge, 0, min(max(limit, 0), 1024))
	dest := r.dest(&last, &refund)
	for rows.Next() {
		charges = append(charges, Charge{})
		c := &charges[len(charges)-1]
		if err := rows.Scan(dest...); err != nil {
			return nil, before, classify(err)
		}
		if err := r.charge(c); err != nil {
			return nil, before, err
		}
		if refund != nil && refunds != nil {
			var rf Refund
			if err := json.Unmarshal(refund, &rf); err != nil {
				return nil, before, fmt.Errorf("%w: refund of %s: %w", ErrDamaged, c.ID, err)
			}
			refunds[c.ID] = rf
		}
	}
	if err := rows.Err(); err != nil {
		return nil, before, classify(err)
	}
	return charges, last, nil
}

// RefundsOf reads the refunds recorded for the given charges in one query (RefundOf for many,
// as an export reads a batch of the list); a charge with none is absent from the map.
func (s *Store) RefundsOf(ctx context.Context, chargeIDs []string) (map[string]Refund, error) {
	out := make(map[string]Refund)
	if len(chargeIDs) == 0 {
		return out, nil
	}
	ids, err := json.Marshal(chargeIDs)
	if err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT charge_id, doc FROM refunds WHERE charge_id IN (SELECT value FROM json_each(?))`, string(ids))
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, classify(err)
		}
		var r Refund
		if err := json.Unmarshal(doc, &r); err != nil {
			return nil, fmt.Errorf("%w: refund of %s: %w", ErrDamaged, id, err)
		}
		out[id] = r
	}
	return out, classify(rows.Err())
}
