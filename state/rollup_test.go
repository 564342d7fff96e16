package state

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pixdash/api"
)

// rollupHistory writes n random charges over the 40 days before end, then changes a third of
// them as the service's answers would (paid, refunded, expired, a MED outcome, a fee reported,
// the creation time learned late, a wallet corrected) and deletes a few, through the store's
// own writes, so the rollups' triggers see every kind of change. Each of the two steps is one
// transaction of the store's writer (as a group commit is): the triggers run row by row all the
// same, and the history is written in seconds, not a minute, under -race.
func rollupHistory(t *testing.T, s *Store, n int, end time.Time, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 27))
	wallets := []string{api.WalletPrincipal, "loja-centro", "loja-norte"}
	at := func() time.Time {
		return end.Add(-time.Duration(r.Int64N(int64(40 * 24 * time.Hour)))).Truncate(time.Millisecond)
	}
	var ids []string
	var charges []Charge
	for i := range n {
		created := at()
		c := dayOpen(fmt.Sprintf("c-%04d", i), wallets[r.IntN(len(wallets))], api.Money(100+r.IntN(50000)), created, api.StatusPending, false)
		switch r.IntN(4) {
		case 0, 1:
			paid := created.Add(time.Duration(r.IntN(7200)) * time.Second)
			var fee *api.Money
			if r.IntN(2) == 0 {
				fee = feeOf(api.Money(r.IntN(200)))
			}
			c = dayPaid(c.ID, c.Wallet, c.Amount, created, paid, fee)
		case 2:
			c = dayOpen(c.ID, c.Wallet, c.Amount, created, api.StatusCancelled, r.IntN(2) == 0)
		}
		charges = append(charges, c)
		ids = append(ids, c.ID)
	}
	// UpsertCharge's own merge and write (changeCharge), all in one transaction.
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		for _, c := range charges {
			if _, ok, err := getChargeTx(tx, c.ID); err != nil || ok {
				return nil, fmt.Errorf("charge %s: tracked %v, %v", c.ID, ok, err)
			}
			if _, _, err := s.putChargeTx(tx, c); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	type change struct {
		q    string
		args []any
	}
	var changes []change
	for _, id := range ids {
		if r.IntN(3) != 0 {
			continue
		}
		var q string
		var args []any
		switch r.IntN(7) {
		case 0: // paid now
			q, args = `UPDATE charges SET state = 'paid', paid_at = created_at + ? WHERE id = ?`, []any{r.Int64N(3_600_000)}
		case 1: // refunded
			q = `UPDATE charges SET state = 'refunded' WHERE id = ? AND paid_at IS NOT NULL`
		case 2: // a MED block returned the money
			q = `UPDATE charges SET state = 'returned' WHERE id = ? AND paid_at IS NOT NULL`
		case 3: // the fee reported, or a different one
			q, args = `UPDATE charges SET fee = ? WHERE id = ?`, []any{r.Int64N(300)}
		case 4: // the creation time learned late: another hour, another place in the list
			ms := at().UnixMilli()
			q, args = `UPDATE charges SET created_at = ?, seq = ? WHERE id = ?`, []any{ms, ms<<chargeSeqShift | r.Int64N(1<<10)}
		case 5: // another wallet, another amount
			q, args = `UPDATE charges SET wallet = ?, amount = amount + 7 WHERE id = ?`, []any{wallets[r.IntN(len(wallets))]}
		case 6:
			q = `DELETE FROM charges WHERE id = ?`
		}
		changes = append(changes, change{q, append(args, id)})
	}
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		for _, c := range changes {
			if _, err := tx.Exec(c.q, c.args...); err != nil {
				return nil, fmt.Errorf("%s: %w", c.q, err)
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRollupsEqualRecount: after every kind of change, the hourly and daily rollups hold exactly
// what a recount of the charges gives, hour by hour (day by day), wallet by wallet (and state by
// state); a repair's rebuild gives the same rows.
func TestRollupsEqualRecount(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	rollupHistory(t, s, 600, time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC), 1)
	type q struct{ rollup, recount string }
	for _, c := range []q{
		{`SELECT hour, wallet, n, gross, nfee, fee FROM paid_hours WHERE n <> 0 ORDER BY 1, 2`,
			`SELECT paid_at / 3600000, wallet, count(*), sum(amount), count(fee), coalesce(sum(fee), 0) FROM charges NOT INDEXED
				WHERE paid_at IS NOT NULL AND state IN ` + receivedStates + ` GROUP BY 1, 2 ORDER BY 1, 2`},
		{`SELECT hour, wallet, state, n FROM created_hours WHERE n <> 0 ORDER BY 1, 2, 3`,
			`SELECT created_at / 3600000, wallet, state, count(*) FROM charges NOT INDEXED GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`},
		{`SELECT day, wallet, n, gross, nfee, fee FROM paid_days WHERE n <> 0 ORDER BY 1, 2`,
			`SELECT paid_at / 86400000, wallet, count(*), sum(amount), count(fee), coalesce(sum(fee), 0) FROM charges NOT INDEXED
				WHERE paid_at IS NOT NULL AND state IN ` + receivedStates + ` GROUP BY 1, 2 ORDER BY 1, 2`},
		{`SELECT day, wallet, state, n FROM created_days WHERE n <> 0 ORDER BY 1, 2, 3`,
			`SELECT created_at / 86400000, wallet, state, count(*) FROM charges NOT INDEXED GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`},
	} {
		got, want := dumpRows(t, s, c.rollup), dumpRows(t, s, c.recount)
		if len(want) < 30 {
			t.Fatalf("the history is too small to mean anything: %d rows", len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %d rows %v\nwant %d rows %v", c.rollup, len(got), head(got), len(want), head(want))
		}
	}
	// Zero rows left by changes are harmless; nothing is negative.
	var neg int
	if err := s.rdb.QueryRow(`SELECT (SELECT count(*) FROM paid_hours WHERE n < 0 OR nfee < 0) + (SELECT count(*) FROM created_hours WHERE n < 0)`).Scan(&neg); err != nil || neg != 0 {
		t.Errorf("%d negative rollup rows (%v)", neg, err)
	}
	before := dumpRows(t, s, `SELECT * FROM paid_hours WHERE n <> 0 ORDER BY 1, 2`)
	if err := rebuild(ctx, s.wdb); err != nil {
		t.Fatal(err)
	}
	if after := dumpRows(t, s, `SELECT * FROM paid_hours ORDER BY 1, 2`); !reflect.DeepEqual(before, after) {
		t.Errorf("the rebuild's paid_hours differ: %d rows, was %d", len(after), len(before))
	}
}

// TestDayReportRollupEqualsScan: DayReport through the rollups gives what it gave from the
// charges' rows alone, for periods of every shape: today, 7 and 30 days, cut at any
// millisecond, one wallet or all, with and without the chart, in São Paulo, in a zone whose
// offset is not whole hours (the chart's days start inside a UTC hour) and in one with a
// 30-minute clock change.
//
// One history serves the three zones: the charges' rows and the rollups are kept in UTC
// milliseconds and hours whatever the store's zone (only the search text, which DayReport does
// not read, is written in it), so the store is switched to each zone in turn and answers as a
// store opened in that zone would.
func TestDayReportRollupEqualsScan(t *testing.T) {
	end := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	zones := []string{"America/Sao_Paulo", "Asia/Kolkata", "Australia/Lord_Howe"}
	s := OpenMemory(WithLocation(mustZone(t, zones[0])))
	defer s.Close()
	rollupHistory(t, s, 800, end, 2)
	<-s.Ready() // nothing in the background reads the zone while it changes
	for _, zone := range zones {
		loc := mustZone(t, zone)
		s.loc = loc
		r := rand.New(rand.NewPCG(3, 27))
		for i := range 60 {
			now := end.Add(-time.Duration(r.Int64N(int64(10 * 24 * time.Hour)))).Add(time.Duration(r.IntN(1000)) * time.Millisecond)
			p := Days(now, []int{1, 7, 30}[i%3], loc)
			if i%4 == 3 { // a period that ends at any millisecond and starts at any one (a chart by the hour) or
				// on a quarter hour (by the day: the scan sums quarter hours, exact only from there)
				p = Period{From: now.Add(-time.Duration(r.Int64N(int64(5 * 24 * time.Hour)))), To: now}
				if p.To.Sub(p.From) > 25*time.Hour {
					p.From = p.From.Truncate(15 * time.Minute)
				}
			}
			q := DayQuery{Period: p, Now: now, Fee: 99, HasFee: i%2 == 0, NoBuckets: i%5 == 4}
			if i%3 == 1 {
				q.Wallet = "loja-centro"
			}
			s.noRollups = false
			got, err := s.DayReport(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			s.noRollups = true
			want, err := s.DayReport(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v–%v wallet %q: rollups\n%+v\nscan\n%+v", zone, p.From, p.To, q.Wallet, got, want)
			}
			if i == 1 && want.Total.Paid == 0 {
				t.Errorf("%s: no payment in a 7-day period: the test means nothing", zone)
			}
		}
	}
}

// dumpRows reads every row of a query as strings.
func dumpRows(t *testing.T, s *Store, q string, args ...any) [][]string {
	t.Helper()
	return dumpRowsOn(t, s.rdb, q, args...)
}

// dumpRowsOn is dumpRows on the connections of db.
func dumpRowsOn(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func head(rows [][]string) [][]string { return rows[:min(len(rows), 5)] }

// TestTrigramIndexFindsWhatTheScanFinds: the search index without positions (migration 0010),
// asked for a text's trigrams and each match checked on its haystack, selects exactly the
// charges, in the list's order, that a row-by-row check of every haystack selects: for every
// substring of 3 to 9 characters of the haystacks (accents folded, quotes, the query language's
// own words and signs), for their accented and capitalised forms (the filter folds them), and
// for texts no haystack holds although each of their trigrams is somewhere (which an index of
// trigrams alone would wrongly find).
func TestTrigramIndexFindsWhatTheScanFinds(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	for _, c := range append(probeCharges(), searchCharges()...) {
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		if _, err := s.UpsertCharge(ctx, filler(i)); err != nil {
			t.Fatal(err)
		}
	}
	texts := map[string]bool{"joão": true, "JOAO DA": true, "PÃO DE": true, "açaí": true, "ÁGUA gel": true,
		"bolosuco": true, "quemis": true, "joaomaria": true, "silvasouza": true, `"oi" já`: true, "near(a b": true, "50% a_b": true}
	rows := dumpRows(t, s, `SELECT hay FROM charges`)
	for _, r := range rows {
		rs := []rune(r[0])
		for i := 0; i+3 <= len(rs); i += 2 {
			for n := 3; n <= 9 && i+n <= len(rs); n += 3 {
				texts[string(rs[i:i+n])] = true
			}
		}
	}
	for text := range texts {
		folded := Fold(text)
		if utf8.RuneCountInString(folded) < 3 || strings.ContainsRune(folded, 0) {
			continue
		}
		p := planCharges(ChargeQuery{Status: FilterAll}, folded, smallSlice+1)
		if !p.fts {
			t.Fatalf("%q: not through the index", text)
		}
		got := dumpRows(t, s, `SELECT c.id FROM `+p.from+p.where+` ORDER BY `+p.order, p.args...)
		want := dumpRows(t, s, `SELECT id FROM charges WHERE instr(hay, ?) > 0 ORDER BY seq DESC`, folded)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the index selects %v, the scan %v", text, got, want)
		}
	}
	if len(texts) < 500 {
		t.Fatalf("only %d texts: the test means little", len(texts))
	}
}
