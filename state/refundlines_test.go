package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pixdash/api"
)

// refundLinesScanSQL is how refundLines read a period's refunds before migration 0014: the
// confirmed refund_completed events themselves, through the partial index events_day.
const refundLinesScanSQL = `SELECT wallet, transaction_id, received_at, raw FROM events INDEXED BY events_day
	WHERE ` + dayEventKinds + ` AND kind = 'refund_completed' AND verdict = 'confirmed'
	AND received_at >= ?1 AND received_at < ?2%s ORDER BY received_at`

// scanRefundFacts is what the code before migration 0014 took from a refund event's payload
// (refundMemo.of, without the memo): ok is false when the payload does not decode.
func scanRefundFacts(raw []byte) (ok bool, amount, fee api.Money, lineID, txID string) {
	e, err := api.DecodeEvent(raw)
	if err != nil {
		return false, 0, 0, "", ""
	}
	if e.FeeAmount >= 0 && e.FeeAmount <= e.Amount {
		fee = e.FeeAmount
	}
	return true, e.Amount, fee, e.ID, e.TransactionID
}

// refundLinesScan is the oracle: refundLines as it was before migration 0014, reading and
// decoding the events of the period.
func refundLinesScan(t testing.TB, s *Store, wallet string, p Period) []RefundLine {
	t.Helper()
	return refundLinesScanMemo(t, s, nil, wallet, p)
}

// refundLinesRecount is what refund_lines must hold, recounted from every event: one row per
// confirmed refund_completed (seq, received_at, wallet, charge, line, amount, fee).
func refundLinesRecount(t testing.TB, db *sql.DB) [][]string {
	t.Helper()
	rows, err := db.Query(`SELECT seq, received_at, wallet, transaction_id, raw FROM events NOT INDEXED
		WHERE kind = 'refund_completed' AND verdict = 'confirmed' ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var (
			seq, at      int64
			wallet, txID string
			raw          []byte
		)
		if err := rows.Scan(&seq, &at, &wallet, &txID, &raw); err != nil {
			t.Fatal(err)
		}
		ok, amount, fee, lineID, payloadTx := scanRefundFacts(raw)
		if !ok {
			amount, fee, lineID = 0, 0, ""
		}
		if txID == "" {
			txID = payloadTx
		}
		out = append(out, []string{fmt.Sprint(seq), fmt.Sprint(at), wallet, txID, lineID, fmt.Sprint(int64(amount)), fmt.Sprint(int64(fee))})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// refundLinesHeld reads refund_lines as refundLinesRecount lays it out.
func refundLinesHeld(t testing.TB, db *sql.DB) [][]string {
	t.Helper()
	rows, err := db.Query(`SELECT seq, received_at, wallet, charge_id, line_id, amount, fee FROM refund_lines ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		r := make([]string, 7)
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// refundHistory writes, through the store's own writes, n refund_completed events (and a few
// payments) arriving in bursts at random times over the 40 days before end (bursts share their
// millisecond; some land on a whole hour), for three wallets, naming few charges and few refund
// lines (so both repeat), some without a charge, with fees above the refund or negative, some
// payloads that do not decode (written as a damaged file would hold them); each gets a random
// verdict, a third of them a second one later (confirmed, disputed, unknown, back to
// unchecked), and events are pruned at random times along the way (any seq, the newest too,
// which the next event then takes again).
func refundHistory(t *testing.T, s *Store, clk *testClock, n int, end time.Time, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 14))
	wallets := []string{"", "loja-centro", "loja-norte"}
	verdicts := []Verdict{VerdictConfirmed, VerdictConfirmed, VerdictConfirmed, VerdictDisputed, VerdictUnknown, VerdictUnchecked}
	at := func() time.Time {
		t := end.Add(-time.Duration(r.Int64N(int64(40 * 24 * time.Hour)))).Truncate(time.Millisecond)
		if r.IntN(8) == 0 {
			t = t.Truncate(time.Hour)
		}
		return t
	}
	money := func() string { return fmt.Sprintf("%d.%02d", r.IntN(300), r.IntN(100)) }
	var ids []string
	for i := 0; i < n; {
		clk.mu.Lock()
		clk.t = at()
		clk.mu.Unlock()
		var batch []*api.Event
		for k := 1 + r.IntN(4); k > 0 && i < n; k-- {
			id := fmt.Sprintf("evt-%04d", i)
			i++
			var raw string
			switch r.IntN(12) {
			case 0: // a payment: not a refund, never in the lines
				raw = string(genEventPayload(id, api.EventPaymentCompleted, r.IntN(40), 40, clk.now()))
			default:
				tx := fmt.Sprintf("tx-%02d", r.IntN(80))
				if r.IntN(10) == 0 {
					tx = ""
				}
				fee := ""
				switch r.IntN(5) {
				case 0:
					fee = money()
				case 1:
					fee = "0.10"
				case 2:
					fee = "-0.50"
				}
				raw = refundPayload(id, wallets[r.IntN(len(wallets))], fmt.Sprintf("line-%02d", r.IntN(100)), tx, money(), fee, clk.now())
			}
			e, err := api.DecodeEvent([]byte(raw))
			if err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			batch = append(batch, e)
			ids = append(ids, id)
		}
		if _, err := s.ApplyEvents(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if r.IntN(15) == 0 { // a payload that no longer decodes, as a damaged file holds it
			id := fmt.Sprintf("evt-bad-%04d", i)
			if _, err := s.wdb.Exec(`INSERT INTO events(event_id, kind, wallet, transaction_id, received_at, payment, raw) VALUES (?, 'refund_completed', ?, ?, ?, 1, ?)`,
				id, NormalizeWallet(wallets[r.IntN(len(wallets))]), []string{"", "tx-03"}[r.IntN(2)], clk.now().UnixMilli(), `{"event":"refund_completed","data":{"amount":1.234}}`); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		for _, e := range batch {
			if err := s.SetEventVerdict(ctx, e.EventID, verdicts[r.IntN(len(verdicts))], ""); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(3) == 0 { // a verdict changed: any earlier event, pruned or not
			id := ids[r.IntN(len(ids))]
			if err := s.SetEventVerdict(ctx, id, verdicts[r.IntN(len(verdicts))], ""); err != nil && !errors.Is(err, ErrUnknownEvent) {
				t.Fatal(err)
			}
		}
		if r.IntN(40) == 0 { // before a time in the first 5 days: refunds of any seq go
			if _, err := s.PruneEvents(ctx, end.Add(-40*24*time.Hour+time.Duration(r.Int64N(int64(5*24*time.Hour))))); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The newest event pruned: its seq is taken again by the next one.
	var newest int64
	if err := s.rdb.QueryRow(`SELECT max(seq) FROM events`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec(`DELETE FROM events WHERE seq = ?`, newest); err != nil {
		t.Fatal(err)
	}
	raw := refundPayload("evt-after", "loja-norte", "line-new", "tx-new", "7.00", "", clk.now())
	e, _ := api.DecodeEvent([]byte(raw))
	if _, err := s.ApplyEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEventVerdict(ctx, "evt-after", VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
}

// TestRefundLinesEqualRecount: after every kind of change (refunds confirmed, disputed, left
// unchecked, verdicts changed back and forth, events pruned, a seq taken again, duplicates by
// charge and by line, payloads that do not decode), refund_lines holds exactly the confirmed
// refund events, each as its payload decodes; and refundLines and the day's figures read from it
// give what the scan of the events before migration 0014 gave, for periods of every shape
// (today, 7 and 30 days, cut at any millisecond, starting or ending on an event's own
// millisecond or on a whole hour), every wallet and one, in São Paulo and in Kolkata.
func TestRefundLinesEqualRecount(t *testing.T) {
	end := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	for _, zone := range []string{"America/Sao_Paulo", "Asia/Kolkata"} {
		loc := mustZone(t, zone)
		clk := &testClock{t: end}
		s := OpenMemory(WithLocation(loc), WithClock(clk.now))
		refundHistory(t, s, clk, 1500, end, uint64(len(zone)))

		got, want := refundLinesHeld(t, s.rdb), refundLinesRecount(t, s.rdb)
		if len(want) < 300 {
			t.Fatalf("%s: only %d confirmed refunds: the test means little", zone, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: refund_lines holds %d rows %v\nthe events %d %v", zone, len(got), head(got), len(want), head(want))
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("first difference: %v, want %v", got[i], want[i])
					break
				}
			}
		}

		// Periods: the dashboard's, any millisecond, and an event's own millisecond at either end.
		var times []int64
		for _, row := range want {
			var ms int64
			fmt.Sscan(row[1], &ms)
			times = append(times, ms)
		}
		r := rand.New(rand.NewPCG(7, 14))
		var dupes, lines int
		for i := range 90 {
			now := end.Add(-time.Duration(r.Int64N(int64(40 * 24 * time.Hour)))).Add(time.Duration(r.IntN(1000)) * time.Millisecond)
			p := Days(now, []int{1, 7, 30}[i%3], loc)
			switch i % 5 {
			case 3:
				p = Period{From: now.Add(-time.Duration(r.Int64N(int64(5 * 24 * time.Hour)))), To: now}
			case 4:
				a, b := times[r.IntN(len(times))], times[r.IntN(len(times))]
				if a > b {
					a, b = b, a
				}
				p = Period{From: time.UnixMilli(a), To: time.UnixMilli(b + int64(r.IntN(2)))}
				if !p.Valid() {
					p.To = p.From.Add(time.Hour)
				}
			}
			wallet := ""
			if i%3 == 1 {
				wallet = "loja-centro"
			}
			gotLines, err := s.refundLines(ctx, wallet, p)
			if err != nil {
				t.Fatal(err)
			}
			wantLines := refundLinesScan(t, s, wallet, p)
			if !reflect.DeepEqual(gotLines, wantLines) {
				t.Errorf("%s %v–%v wallet %q: lines\n%+v\nscan\n%+v", zone, p.From, p.To, wallet, gotLines, wantLines)
			}
			lines += len(wantLines)
			var held int
			sqlText, args := dayStatement(`SELECT count(*) FROM refund_lines WHERE received_at >= ?1 AND received_at < ?2%s`, wallet, p)
			if err := s.rdb.QueryRow(sqlText, args...).Scan(&held); err != nil {
				t.Fatal(err)
			}
			dupes += held - len(wantLines)

			rep, err := s.DayReport(ctx, DayQuery{Period: p, Wallet: wallet, Now: now, Fee: 99, HasFee: true, NoBuckets: i%2 == 0})
			if err != nil {
				t.Fatal(err)
			}
			wantTotals := map[string]*Totals{}
			var all Totals
			for _, l := range wantLines {
				w := wantTotals[l.Wallet]
				if w == nil {
					w = &Totals{}
					wantTotals[l.Wallet] = w
				}
				for _, t := range []*Totals{w, &all} {
					t.Refunded++
					t.RefundedAmount += l.Amount
					t.RefundFeesReported += l.FeeReported
				}
			}
			refunds := func(t Totals) [3]int64 {
				return [3]int64{int64(t.Refunded), int64(t.RefundedAmount), int64(t.RefundFeesReported)}
			}
			if refunds(rep.Total) != refunds(all) {
				t.Errorf("%s %v–%v wallet %q: the report's refunds %v, the scan's %v", zone, p.From, p.To, wallet, refunds(rep.Total), refunds(all))
			}
			for w, tt := range wantTotals {
				if refunds(rep.Wallet(w)) != refunds(*tt) {
					t.Errorf("%s %v–%v: wallet %s's refunds %v, the scan's %v", zone, p.From, p.To, w, refunds(rep.Wallet(w)), refunds(*tt))
				}
			}
		}
		t.Logf("%s: %d confirmed refunds held, %d lines read in the periods, %d left out as repeats", zone, len(want), lines, dupes)
		if lines < 500 || dupes < 50 {
			t.Errorf("%s: %d lines read, %d left out as repeats: the periods mean little", zone, lines, dupes)
		}
		_ = s.Close()
	}
}

// TestRefundLinesPlan: a period's lines are read from refund_lines_at in the order they are
// returned (no sort), for every wallet and for one; whether a refund line was counted already
// is found by its id (before migration 0014 every confirmed refund of the wallet was read and
// decoded at each refund confirmed).
func TestRefundLinesPlan(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	p := Days(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), 30, time.UTC)
	for _, wallet := range []string{"", "loja"} {
		sqlText, args := dayStatement(refundLinesSQL, wallet, p)
		plan, err := queryPlan(s, sqlText, args)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "SEARCH refund_lines USING COVERING INDEX refund_lines_at (received_at>? AND received_at<?)") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("wallet %q: %s", wallet, plan)
		}
	}
	plan, err := queryPlan(s, refundLineCountedSQL, []any{"line", "principal", "evt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "SEARCH r USING INDEX refund_lines_line (line_id=?)") || !strings.Contains(plan, "SEARCH e USING INTEGER PRIMARY KEY (rowid=?)") {
		t.Errorf("the counted line: %s", plan)
	}
}

// TestMigrationRefundLinesOldProfile: a profile at schema 13 holding confirmed, disputed and
// unchecked refunds (one whose payload does not decode) and payments opens with refund_lines
// holding exactly its confirmed refunds, and the day's refunds are what the events gave; the
// fill can run again over its own result.
func TestMigrationRefundLinesOldProfile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName("old"))
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	files := migrationFiles()
	at := slices.IndexFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), "0014_") })
	if at != 13 {
		t.Fatalf("migration 0014 is file %d", at)
	}
	for _, f := range files[:at] {
		body, err := migrations.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if prep := migrationPrep[filepath.Base(f)]; prep != nil {
			if err := prep(ctx, tx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tx.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", at)); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	type ev struct {
		id, kind, wallet, tx, verdict, raw string
		at                                 time.Time
	}
	var evs []ev
	for i := range 40 {
		when := day.Add(time.Duration(i) * 37 * time.Minute)
		verdict := []string{"confirmed", "confirmed", "disputed", ""}[i%4]
		id := fmt.Sprintf("evt-%02d", i)
		evs = append(evs, ev{id, "refund_completed", []string{"principal", "loja"}[i%2], fmt.Sprintf("tx-%02d", i%13), verdict,
			refundPayload(id, []string{"", "loja"}[i%2], fmt.Sprintf("line-%02d", i%17), fmt.Sprintf("tx-%02d", i%13), fmt.Sprintf("%d.%02d", 10+i, i), "0.25", when), when})
	}
	evs = append(evs,
		ev{"evt-bad", "refund_completed", "principal", "tx-99", "confirmed", `{"event":"refund_completed","data":{"amount":1.234}}`, day.Add(time.Hour)},
		ev{"evt-pay", "payment_completed", "principal", "tx-01", "confirmed", string(genEventPayload("evt-pay", api.EventPaymentCompleted, 1, 40, day)), day})
	for _, e := range evs {
		if _, err := db.Exec(`INSERT INTO events(event_id, kind, wallet, transaction_id, received_at, payment, verdict, raw) VALUES (?, ?, ?, ?, ?, 1, ?, ?)`,
			e.id, e.kind, e.wallet, e.tx, e.at.UnixMilli(), e.verdict, e.raw); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()

	s := openMigratedT(t, dir, "old")
	got, want := refundLinesHeld(t, s.rdb), refundLinesRecount(t, s.rdb)
	if len(want) != 21 || !reflect.DeepEqual(got, want) {
		t.Fatalf("refund_lines holds %d rows %v, want the %d confirmed refunds %v", len(got), got, len(want), want)
	}
	p := Days(day, 2, time.UTC)
	lines, err := s.refundLines(ctx, "", p)
	if err != nil {
		t.Fatal(err)
	}
	if scan := refundLinesScan(t, s, "", p); len(scan) < 10 || !reflect.DeepEqual(lines, scan) {
		t.Errorf("the day's refunds %+v, the events' %+v", lines, scan)
	}
	if err := s.write(ctx, func(tx *sql.Tx) (func(), error) { return nil, fillRefundLines(context.Background(), tx) }); err != nil {
		t.Fatal(err)
	}
	if again := refundLinesHeld(t, s.rdb); !reflect.DeepEqual(again, got) {
		t.Errorf("filled again: %v, was %v", again, got)
	}
}

// refundFactsMemo is the memo the code before migration 0014 kept of the refund payloads it
// decoded, by their hash and length (refundMemo), for the benchmark's baseline.
type refundFactsMemo map[[2]uint64]RefundLine

// refundLinesScanMemo is refundLinesScan with the memo of decoded payloads the code before
// migration 0014 kept across reads: what the Sales view paid at every read once warm (a nil
// memo decodes every payload).
func refundLinesScanMemo(tb testing.TB, s *Store, memo refundFactsMemo, wallet string, p Period) []RefundLine {
	sqlText, args := dayStatement(refundLinesScanSQL, wallet, p)
	rows, err := s.rdb.QueryContext(ctx, sqlText, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []RefundLine
	for rows.Next() {
		var (
			l   RefundLine
			at  int64
			raw []byte
		)
		if err := rows.Scan(&l.Wallet, &l.ChargeID, &at, &raw); err != nil {
			tb.Fatal(err)
		}
		l.At = time.UnixMilli(at).In(s.loc)
		k := [2]uint64{maphash.Bytes(benchSeed, raw), uint64(len(raw))}
		f, ok := memo[k]
		if !ok {
			if ok, amount, fee, lineID, txID := scanRefundFacts(raw); ok {
				f = RefundLine{Amount: amount, FeeReported: fee, LineID: lineID, ChargeID: txID}
			}
			if memo != nil {
				memo[k] = f
			}
		}
		l.Amount, l.LineID, l.FeeReported = f.Amount, f.LineID, f.FeeReported
		if l.ChargeID == "" {
			l.ChargeID = f.ChargeID
		}
		if (l.ChargeID != "" && seen["c/"+l.ChargeID]) || (l.LineID != "" && seen["l/"+l.LineID]) {
			continue
		}
		seen["c/"+l.ChargeID], seen["l/"+l.LineID] = true, true
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

var benchSeed = maphash.MakeSeed()

// BenchmarkSalesRefunds: the 30-day refunds of the Sales view (every wallet) read from
// refund_lines (table) beside the scan of the events that ran before migration 0014 (events:
// the events_day index, each event's row and its payload, decoded once and then taken from the
// memo the code kept). The history is 30 days of 10M charges' events as the scale generator
// writes them (a refund in 12 events): 7,000 confirmed refunds among 84,000 events, in a file.
// The file is small enough for the OS to cache it whole, so the events' random reads cost less
// here than at 10M (where the Sales view's refunds took 51 ms).
//
// Each runs three times, alternately, in one go:
//
//	go test -run '^$' -bench SalesRefunds ./state/
func BenchmarkSalesRefunds(b *testing.B) {
	const events, refunds = 84_000, 7_000
	end := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	clk := &testClock{t: end}
	s, err := Open(ctx, b.TempDir(), "bench", WithLocation(time.UTC), WithClock(clk.now))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(2026, 14))
	var batch []*api.Event
	for i := range events {
		at := end.Add(-30 * 24 * time.Hour).Add(time.Duration(i) * (30 * 24 * time.Hour / events))
		kind := genEventKinds[r.IntN(len(genEventKinds))]
		if i%(events/refunds) == 0 {
			kind = api.EventRefundCompleted
		} else if kind == api.EventRefundCompleted {
			kind = api.EventPaymentCompleted
		}
		e, err := api.DecodeEvent(genEventPayload(fmt.Sprintf("evt_%06d", i), kind, r.IntN(10_000_000), 10_000_000, at))
		if err != nil {
			b.Fatal(err)
		}
		batch = append(batch, e)
		if len(batch) == 2000 || i == events-1 {
			clk.mu.Lock()
			clk.t = at
			clk.mu.Unlock()
			if _, err := s.ApplyEvents(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	// Every event confirmed, as the generator does, and the lines written as setVerdictTx would.
	if err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`UPDATE events SET verdict = 'confirmed' WHERE payment = 1`); err != nil {
			return nil, err
		}
		return nil, fillRefundLines(context.Background(), tx)
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.wdb.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil { // read from the file, as a profile is
		b.Fatal(err)
	}
	p := Days(end, 30, time.UTC)
	want := refundLinesScan(b, s, "", p)
	if len(want) < refunds*9/10 {
		b.Fatalf("only %d refund lines in 30 days", len(want))
	}
	memo := refundFactsMemo{}
	// Three rounds, the two side by side in each (the machine's load moves between them).
	for range 3 {
		for _, how := range []string{"events", "table"} {
			b.Run(how, func(b *testing.B) {
				var got []RefundLine
				b.ReportAllocs()
				for b.Loop() {
					if how == "events" {
						got = refundLinesScanMemo(b, s, memo, "", p)
					} else if got, err = s.refundLines(ctx, "", p); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if !reflect.DeepEqual(got, want) {
					b.Fatalf("%s: %d lines, want %d", how, len(got), len(want))
				}
				b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/op")
				b.ReportMetric(float64(len(got)), "lines")
			})
		}
	}
}

// TestRefundLinesCheckedAndRepaired: a profile whose refund_lines lost a line fails the full
// check (pixdash db check), naming the table, and Repair fills it again from the events.
func TestRefundLinesCheckedAndRepaired(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s, err := Open(ctx, dir, "loja", WithLocation(time.UTC), WithClock(func() time.Time { return day }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		id := fmt.Sprintf("evt-%d", i)
		e, err := api.DecodeEvent([]byte(refundPayload(id, "", fmt.Sprintf("line-%d", i), fmt.Sprintf("tx-%d", i), "10.00", "0.20", day)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
		if err := s.SetEventVerdict(ctx, id, VerdictConfirmed, ""); err != nil {
			t.Fatal(err)
		}
	}
	want := refundLinesHeld(t, s.rdb)
	if len(want) != 6 || s.Check(ctx, CheckPages) != nil {
		t.Fatalf("%d lines, check %v", len(want), s.Check(ctx, CheckPages))
	}
	if _, err := s.wdb.Exec(`DELETE FROM refund_lines WHERE seq = 3`); err != nil {
		t.Fatal(err)
	}
	err = s.Check(ctx, CheckPages)
	if err == nil || !strings.Contains(err.Error(), "table refund_lines lists 5 confirmed refunds where there are 6") {
		t.Fatalf("the check after a line was lost: %v", err)
	}
	_ = s.Close()
	rep, err := Repair(ctx, dir, "loja")
	if err != nil || len(rep.Found) != 1 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	s, err = Open(ctx, dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := refundLinesHeld(t, s.rdb); !reflect.DeepEqual(got, want) {
		t.Errorf("after the repair: %v, want %v", got, want)
	}
}
