package state

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"pixdash/api"
)

// SearchKind is what a "the customer says they paid" search looks for.
type SearchKind int

// Kinds of search.
const (
	SearchE2E    SearchKind = iota + 1 // the bank's end-to-end id, exactly (case-insensitive)
	SearchAmount                       // the amount, exact centavos
	SearchPayer                        // a substring of the payer's name, ignoring case and accents
	SearchWindow                       // created or paid in [From, To)
)

// ChargeSearch is one search across every wallet of the store.
type ChargeSearch struct {
	Kind   SearchKind
	E2E    string    // SearchE2E: the id without spaces
	Amount api.Money // SearchAmount
	Payer  string    // SearchPayer
	From   time.Time // SearchWindow, inclusive
	To     time.Time // SearchWindow, exclusive
}

// MaxSearchResults is how many matches a search returns at most.
const MaxSearchResults = 50

// SearchCharges finds the charges of every wallet matching q, newest first, at most limit
// (MaxSearchResults when limit <= 0); capped reports that there were more. Each kind uses an
// existing index: the e2e id, the amount and the payer the trigram index over charges.hay (a
// text shorter than 3 characters is checked row by row), the window charges_created and
// charges_paid; every candidate is then checked on the charge itself.
func (s *Store) SearchCharges(ctx context.Context, q ChargeSearch, limit int) (out []Charge, capped bool, err error) {
	if limit <= 0 {
		limit = MaxSearchResults
	}
	var (
		from  = `charges c`
		where string
		args  []any
		keep  func(*Charge) bool
	)
	// text selects the rows whose haystack holds t (folded: Fold), through the trigram index
	// when it can.
	text := func(t string) {
		if utf8.RuneCountInString(t) >= 3 && !strings.ContainsRune(t, 0) {
			from = `charges_fts f CROSS JOIN charges c ON c.seq = f.rowid`
			where = `charges_fts MATCH ? AND instr(c.hay, ?) > 0`
			args = append(args, trigramMatch(t), t)
			return
		}
		where = `instr(c.hay, ?) > 0`
		args = append(args, t)
	}
	switch q.Kind {
	case SearchE2E:
		id := strings.ToLower(strings.Join(strings.Fields(q.E2E), ""))
		if id == "" {
			return nil, false, fmt.Errorf("an empty end-to-end id")
		}
		text(id)
		keep = func(c *Charge) bool { return strings.EqualFold(strings.Join(strings.Fields(c.E2EID), ""), id) }
	case SearchAmount:
		if q.Amount <= 0 {
			return nil, false, fmt.Errorf("an amount must be more than zero")
		}
		// The haystack holds the amount as "r$ 1.234,56"; the column confirms it exactly.
		text(strings.ToLower(q.Amount.BRL()))
		where += ` AND c.amount = ?`
		args = append(args, int64(q.Amount))
	case SearchPayer:
		p := Fold(strings.TrimSpace(q.Payer))
		if p == "" {
			return nil, false, fmt.Errorf("an empty payer name")
		}
		// The trigram index finds the name ignoring case and accents ("joao" finds "João"):
		// the haystack is folded as the text is.
		text(p)
		keep = func(c *Charge) bool { return strings.Contains(Fold(c.PayerName), p) }
	case SearchWindow:
		if !q.From.Before(q.To) {
			return nil, false, fmt.Errorf("an empty time window")
		}
		a, b := q.From.UnixMilli(), q.To.UnixMilli()
		where = `(c.created_at >= ? AND c.created_at < ?) OR (c.paid_at >= ? AND c.paid_at < ?)`
		args = append(args, a, b, a, b)
	default:
		return nil, false, fmt.Errorf("an unknown kind of search")
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+chargeColsC+` FROM `+from+` WHERE `+where+` ORDER BY c.seq DESC`, args...)
	if err != nil {
		return nil, false, classify(err)
	}
	err = scanEach(rows, func(c *Charge) bool {
		if keep != nil && !keep(c) {
			return true
		}
		if len(out) == limit {
			capped = true
			return false
		}
		out = append(out, *c)
		return true
	})
	return out, capped, err
}

// trigramMatch is the full-text query that selects the haystacks holding every trigram of t
// (3 or more characters): the index keeps no positions (detail=none, migration 0010), so the
// caller checks the text itself on each row it selects (instr over charges.hay). Trigrams that
// do not overlap, and the last, are enough: every one of t's characters is in one of them.
func trigramMatch(t string) string {
	rs := []rune(t)
	var terms []string
	add := func(i int) {
		terms = append(terms, `"`+strings.ReplaceAll(string(rs[i:i+3]), `"`, `""`)+`"`)
	}
	for i := 0; i+3 <= len(rs); i += 3 {
		add(i)
	}
	if len(rs)%3 != 0 {
		add(len(rs) - 3)
	}
	return strings.Join(terms, " AND ")
}

// scanEach decodes rows of chargeCols, handing each charge to fn until it returns false.
func scanEach(rows *sql.Rows, fn func(*Charge) bool) error {
	defer rows.Close()
	var r chargeRow
	for rows.Next() {
		var c Charge
		if err := scanChargeRow(rows, &r, &c); err != nil {
			return err
		}
		if !fn(&c) {
			break
		}
	}
	return classify(rows.Err())
}
