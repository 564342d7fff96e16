package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// searchNumbersInOrder fails t unless every charge has a search number and the numbers follow
// the list's order, and the full-text index agrees with the charges' haystacks.
func searchNumbersInOrder(t *testing.T, db *sql.DB) {
	t.Helper()
	var ordered, all, nulls int64
	if err := db.QueryRow(searchOrderCheck.got).Scan(&ordered, new(int64)); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*), count(*) - count(fts_id) FROM charges`).Scan(&all, &nulls); err != nil {
		t.Fatal(err)
	}
	if ordered != all || nulls != 0 {
		t.Fatalf("%d of %d charges numbered in the list's order, %d without a number", ordered, all, nulls)
	}
	if _, err := db.Exec(`INSERT INTO charges_fts(charges_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("the search index disagrees with the charges: %v", err)
	}
}

// indexAgreesWithScan fails t unless, for each text, the list's plan through the trigram index
// selects exactly the charges, in the list's order, that instr over every haystack selects.
func indexAgreesWithScan(t *testing.T, s *Store, texts []string) {
	t.Helper()
	for _, text := range texts {
		p := planCharges(ChargeQuery{Status: FilterAll}, text, smallSlice+1)
		if !p.fts {
			t.Fatalf("%q: not through the index", text)
		}
		got := dumpRows(t, s, `SELECT c.id FROM `+p.from+p.where+` ORDER BY `+p.order, p.args...)
		want := dumpRows(t, s, `SELECT id FROM charges WHERE instr(hay, ?) > 0 ORDER BY seq DESC`, text)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%q: the index selects %v, the scan %v", text, got, want)
		}
	}
}

// TestSearchIndexStaysExact: a random sequence of new charges (newest, oldest, and many
// crowded between two neighbours, in rising, falling and random order, so the numbers between
// them run out and neighbours are renumbered), changed haystacks, charges moved in the list
// and deleted, some several in one transaction: after each transaction every charge has its
// search number in the list's order, the index passes FTS5's integrity check against the
// charges, and the index's answers (in the list's order) equal a full instr scan.
func TestSearchIndexStaysExact(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	r := rand.New(rand.NewPCG(27, 11))
	words := []string{"bolo", "suco", "pao de queijo", "joao", "maria", "acai", "cafe", "loja", "pedido", "pix"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	n := 0
	hay := func() string {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "\x1f%d", r.IntN(1000))
		return b.String()
	}
	// Two neighbours far apart in time but next to each other in the list: the crowded spot.
	for _, at := range []time.Duration{0, time.Hour, 2 * time.Hour} {
		n++
		c := Charge{ID: fmt.Sprintf("c%04d", n), Amount: 100, Status: api.StatusPending, CreatedAt: base.Add(at), Description: "marco"}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	spotLo, spotHi := (base.UnixMilli())<<chargeSeqShift, (base.Add(time.Hour).UnixMilli())<<chargeSeqShift
	crowd := spotLo + 1<<30 // seqs handed out in the crowded spot
	renumbered := 0
	for round := range 160 {
		err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
			for range 1 + r.IntN(4) {
				switch op := r.IntN(10); {
				case op < 4: // crowded: rising, falling or random inside the spot
					var seq int64
					switch round % 3 {
					case 0:
						crowd++
						seq = crowd
					case 1:
						seq = spotLo + 1<<29 - int64(round)*1000 - r.Int64N(900)
					default:
						seq = spotLo + 1 + r.Int64N(spotHi-spotLo-1)
					}
					n++
					id := fmt.Sprintf("c%04d", n)
					if _, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (?, ?, 'principal', 'pending', 1, ?, 0, ?, '{}')`,
						seq, id, seq>>chargeSeqShift, hay()); err != nil {
						return nil, err
					}
					ids = append(ids, id)
				case op < 6: // the newest or the oldest
					n++
					id := fmt.Sprintf("c%04d", n)
					at := base.Add(time.Duration(3+n) * time.Hour)
					if r.IntN(3) == 0 {
						at = base.Add(-time.Duration(n) * time.Hour)
					}
					if _, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (?, ?, 'principal', 'pending', 1, ?, 0, ?, '{}')`,
						at.UnixMilli()<<chargeSeqShift, id, at.UnixMilli(), hay()); err != nil {
						return nil, err
					}
					ids = append(ids, id)
				case op < 8 && len(ids) > 0: // a new haystack
					if _, err := tx.Exec(`UPDATE charges SET hay = ? WHERE id = ?`, hay(), ids[r.IntN(len(ids))]); err != nil {
						return nil, err
					}
				case op < 9 && len(ids) > 0: // moved in the list (its creation time learnt), maybe with a new haystack
					seq := spotLo + 1 + r.Int64N(spotHi-spotLo-1)
					if r.IntN(2) == 0 {
						seq = base.Add(time.Duration(r.IntN(400)-200)*time.Hour).UnixMilli()<<chargeSeqShift + int64(r.IntN(1000))
					}
					q := `UPDATE charges SET seq = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM charges WHERE seq = ?1)`
					if r.IntN(2) == 0 {
						q = `UPDATE charges SET seq = ?, hay = hay || ' movido' WHERE id = ? AND NOT EXISTS (SELECT 1 FROM charges WHERE seq = ?1)`
					}
					if _, err := tx.Exec(q, seq, ids[r.IntN(len(ids))]); err != nil {
						return nil, err
					}
				case len(ids) > 3:
					i := 3 + r.IntN(len(ids)-3)
					if _, err := tx.Exec(`DELETE FROM charges WHERE id = ?`, ids[i]); err != nil {
						return nil, err
					}
					ids = slices.Delete(ids, i, i+1)
				}
			}
			var nulls int
			if err := tx.QueryRow(`SELECT count(*) FROM charges WHERE fts_id IS NULL`).Scan(&nulls); err != nil {
				return nil, err
			}
			if nulls > 0 {
				renumbered++
			}
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		searchNumbersInOrder(t, s.wdb)
		if round%8 == 7 {
			texts := []string{"pao", "de queijo", "joao maria", "marco", "movido", "o\x1f1", "cafe pix", "olo suc", "zzz"}
			for _, row := range dumpRows(t, s, `SELECT hay FROM charges ORDER BY random() LIMIT 6`) {
				rs := []rune(row[0])
				if len(rs) >= 5 {
					i := r.IntN(len(rs) - 4)
					texts = append(texts, string(rs[i:i+3+r.IntN(min(len(rs)-i-3, 6)+1)]))
				}
			}
			indexAgreesWithScan(t, s, texts)
		}
	}
	if renumbered < 5 {
		t.Fatalf("only %d transactions left a charge without a number: the crowded spot did not run out", renumbered)
	}
	if len(ids) < 150 {
		t.Fatalf("only %d charges: the test means little", len(ids))
	}
	// The list reads the same through the store's own paths (the filter and the export's batches).
	for _, text := range []string{"pao", "marco", "joao"} {
		p := windowT(t, s, ChargeQuery{Text: text}, 0, 1<<20)
		want := dumpRows(t, s, `SELECT id FROM charges WHERE instr(hay, ?) > 0 ORDER BY seq DESC`, text)
		if got := chargeIDs(p.Charges); len(got) != len(want) {
			t.Errorf("%q: the window has %d charges, the scan %d", text, len(got), len(want))
		}
	}
}

// TestRelabelCostStaysSmall: a thousand charges added one by one, each in its own transaction,
// at one place of a long list (the worst order: each after the one before, where the numbers
// run out at once) renumber some tens of neighbours each (about 49), not the 2,000 charges
// behind them.
func TestRelabelCostStaysSmall(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	const existing, added = 2000, 300 // renumbering everything behind would be 1,000 a charge
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		for i := range existing {
			if _, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (?, ?, 'principal', 'pending', 1, 0, 0, 'x', '{}')`,
				int64(i+1)<<30, fmt.Sprintf("e%d", i)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := s.rdb.QueryRow(`SELECT value FROM meta WHERE key = 'charges_version'`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	for i := range added {
		err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
			_, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (?, ?, 'principal', 'pending', 1, 0, 0, 'y', '{}')`,
				int64(existing/2)<<30+int64(i+1), fmt.Sprintf("a%d", i))
			return nil, err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	searchNumbersInOrder(t, s.wdb)
	// Every UPDATE of a charge moves charges_version: the renumbering's are two per charge renumbered.
	var after int64
	if err := s.rdb.QueryRow(`SELECT value FROM meta WHERE key = 'charges_version'`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	perCharge := float64(after-before-2*added) / 2 / added
	t.Logf("%.1f charges renumbered per charge added", perCharge)
	if perCharge > 100 {
		t.Errorf("%.1f charges renumbered per charge added, want some tens (the list behind holds %d)", perCharge, existing/2)
	}
}

// TestMigrationNumbersOldProfile: a profile written by the build before migration 0011 (its
// search index keyed by charges.seq) opens with every charge numbered in the list's order, the
// index refilled under the numbers (the filter finds what it found before, in the same order),
// and new charges numbered after them.
func TestMigrationNumbersOldProfile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName("old"))
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		t.Fatal(err)
	}
	files := migrationFiles()
	at := slices.IndexFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), "0011_") })
	if at < 0 {
		t.Fatal("no migration 0011")
	}
	for _, f := range files[:at] {
		body, err := migrations.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(body)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", at)); err != nil {
		t.Fatal(err)
	}
	var cs []Charge
	for i := range 60 {
		cs = append(cs, Charge{ID: fmt.Sprintf("old-%02d", i), Wallet: "principal", Amount: api.Money(100 + i),
			Description: []string{"pao de queijo", "bolo de fuba", "suco"}[i%3], Status: api.StatusCompleted,
			CreatedAt: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*7919%60) * time.Hour)})
	}
	for _, c := range cs {
		doc, _ := json.Marshal(&c)
		if _, err := db.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, created_at, updated_at, hay, doc) VALUES (?, ?, 'principal', ?, ?, ?, 0, ?, ?)`,
			c.CreatedAt.UnixMilli()<<chargeSeqShift, c.ID, string(c.State()), int64(c.Amount), c.CreatedAt.UnixMilli(), haystack(&c, c.State(), time.UTC), doc); err != nil {
			t.Fatal(err)
		}
	}
	var oldKey int64
	if err := db.QueryRow(`SELECT max(rowid) FROM charges_fts WHERE charges_fts MATCH '"fub"'`).Scan(&oldKey); err != nil || oldKey < 1<<40 {
		t.Fatalf("the old index is not keyed by seq: %d, %v", oldKey, err)
	}
	_ = db.Close()

	s := openMigratedT(t, dir, "old")
	searchNumbersInOrder(t, s.wdb)
	var maxID int64
	if err := s.rdb.QueryRow(`SELECT max(fts_id) FROM charges`).Scan(&maxID); err != nil || maxID != int64(len(cs))*searchGap {
		t.Fatalf("the numbers go up to %d (%v), want %d", maxID, err, len(cs)*searchGap)
	}
	indexAgreesWithScan(t, s, []string{"fub", "pao de", "suco", "old-1", "r$ 1,"})
	c := Charge{ID: "new", Amount: 5, Description: "bolo de fuba novo", Status: api.StatusPending, CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := s.UpsertCharge(ctx, c); err != nil {
		t.Fatal(err)
	}
	var newID int64
	if err := s.rdb.QueryRow(`SELECT fts_id FROM charges WHERE id = 'new'`).Scan(&newID); err != nil || newID != maxID+searchGap {
		t.Fatalf("the new charge's number %d (%v), want %d", newID, err, maxID+searchGap)
	}
	p := windowT(t, s, ChargeQuery{Text: "fuba"}, 0, 5)
	if got := chargeIDs(p.Charges); len(got) != 5 || got[0] != "new" || p.Total != 21 {
		t.Fatalf("fuba after the migration: %v (total %d)", got, p.Total)
	}
	searchNumbersInOrder(t, s.wdb)
}

// TestRepairRenumbersSearch: a charge whose search number was lost (out of the index: the
// filter no longer finds it) or put out of the list's order is found by the full check, and
// Repair numbers the charges afresh and refills the index.
func TestRepairRenumbersSearch(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(ctx, dir, "p", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := insertFillers(s, func() []Charge {
		var cs []Charge
		for i := range smallSlice + 10 {
			cs = append(cs, filler(i))
		}
		return cs
	}()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec(`UPDATE charges SET fts_id = NULL WHERE id = 'fill-00007'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.wdb.Exec(`UPDATE charges SET fts_id = 3 WHERE id = 'fill-00100'`); err != nil {
		t.Fatal(err)
	}
	if p := windowT(t, s, ChargeQuery{Text: "fill-00007"}, 0, 5); len(p.Charges) != 0 {
		t.Fatalf("the damage did not take: %v", chargeIDs(p.Charges))
	}
	err = s.Check(ctx, CheckPages)
	if err == nil || !strings.Contains(err.Error(), "charges_fts_id") {
		t.Fatalf("the full check says %v, want the search numbers", err)
	}
	_ = s.Close()
	rep, err := Repair(ctx, dir, "p")
	if err != nil || len(rep.Found) == 0 {
		t.Fatalf("Repair: %+v, %v", rep, err)
	}
	s, err = Open(ctx, dir, "p", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	searchNumbersInOrder(t, s.wdb)
	if err := s.Check(ctx, CheckPages); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"fill-00007", "fill-00100"} {
		if p := windowT(t, s, ChargeQuery{Text: id}, 0, 5); len(p.Charges) != 1 || p.Charges[0].ID != id {
			t.Errorf("%s after the repair: %v", id, chargeIDs(p.Charges))
		}
	}
}

// BenchmarkBytesPerCharge reports the disk a charge of the 100k generated history costs, the
// file and its parts (dbstat), with the search index keyed by charges.seq as before migration
// 0011 ("before": the same file, the index re-keyed and refilled as migration 0010 left it)
// and by charges.fts_id ("after", refilled the same way, and "generated": as genBuild's
// inserts left it), side by side: go test -run XXX -bench BytesPerCharge -benchtime 1x ./state/
func BenchmarkBytesPerCharge(b *testing.B) {
	src := genDB(b, benchDir(), benchCharges, benchEvents)
	measure := func(b *testing.B, name, rekey string) {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				path := copyDB(b, src, dir, "bytes")
				db, err := sql.Open("sqlite", dsn(path, false))
				if err != nil {
					b.Fatal(err)
				}
				if rekey != "" {
					if _, err := db.Exec(`DROP TABLE charges_fts;
						CREATE VIRTUAL TABLE charges_fts USING fts5(hay, content='charges', content_rowid='` + rekey + `', tokenize='trigram', detail=none, columnsize=0);
						INSERT INTO charges_fts(charges_fts) VALUES ('rebuild');
						VACUUM;`); err != nil {
						b.Fatal(err)
					}
				}
				var n, fts, table, hay, index, total int64
				err = db.QueryRow(`SELECT (SELECT count(*) FROM charges),
						(SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'charges_fts%'),
						(SELECT sum(pgsize) FROM dbstat WHERE name = 'charges'),
						(SELECT sum(length(hay)) FROM charges),
						(SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'charges')),
						(SELECT sum(pgsize) FROM dbstat)`).Scan(&n, &fts, &table, &hay, &index, &total)
				_ = db.Close()
				if err != nil {
					b.Fatal(err)
				}
				fi, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(fi.Size())/float64(n), "file-B/charge")
				b.ReportMetric(float64(fts)/float64(n), "fts-B/charge")
				b.ReportMetric(float64(table)/float64(n), "table-B/charge")
				b.ReportMetric(float64(hay)/float64(n), "hay-B/charge")
				b.ReportMetric(float64(index)/float64(n), "indexes-B/charge")
				b.ReportMetric(float64(total)/float64(n), "all-B/charge")
			}
		})
	}
	measure(b, "generated", "")
	measure(b, "before=seq", "seq")
	measure(b, "after=fts_id", "fts_id")
}

// TestHaystackKeepsEveryText: the haystack leaves out only what it already holds elsewhere in
// one field (the amount as "123,45" under R$ 1.000, inside "r$ 123,45"; the list's state when
// it is the service's status), so every text a filter can hold (no U+001F) matches it exactly
// when it matches the haystack with every part written out.
func TestHaystackKeepsEveryText(t *testing.T) {
	full := func(c *Charge, st ChargeState) string {
		u := uint64(max(c.Amount, -c.Amount))
		reais, cents := u/100, u%100
		sign := ""
		if c.Amount < 0 {
			sign = "-"
		}
		return strings.Join([]string{Fold(c.ID), Fold(c.Description), Fold(c.ExternalReference), Fold(NormalizeWallet(c.Wallet)),
			sign + "r$ " + string(appendGrouped(nil, reais)) + fmt.Sprintf(",%02d", cents), fmt.Sprintf("%d,%02d", reais, cents),
			fmt.Sprintf("%d.%02d", reais, cents), fmt.Sprint(u), string(c.Status), string(st), Fold(c.PayerName),
			c.CreatedAt.UTC().Format(hayDateLayout), Fold(c.E2EID)}, "\x1f")
	}
	r := rand.New(rand.NewPCG(5, 7))
	statuses := []api.TxStatus{api.StatusPending, api.StatusCompleted, api.StatusFailed, api.StatusCancelled}
	for i := range 400 {
		c := Charge{ID: fmt.Sprintf("id-%d", i), Amount: api.Money(r.Int64N(300000) - 1000), Status: statuses[r.IntN(len(statuses))],
			Description: "Pão", PayerName: "Zé", CreatedAt: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Expired: r.IntN(3) == 0}
		if i%50 == 0 {
			c.Amount = api.Money([]int64{99999, 100000, 0, -99999, -100000, 99900, 100001}[i/50%7])
		}
		st := c.State()
		h, f := haystack(&c, st, time.UTC), full(&c, st)
		if small := max(c.Amount, -c.Amount) < 100000; small && len(h) >= len(f) || !small && len(h) > len(f) {
			t.Fatalf("amount %d: the haystack %q repeats what the full text %q holds once", c.Amount, h, f)
		}
		for _, field := range strings.Split(f, "\x1f") {
			rs := []rune(field)
			for a := range rs {
				for b := a + 1; b <= len(rs); b++ {
					if sub := string(rs[a:b]); !strings.Contains(h, sub) {
						t.Fatalf("amount %d, %s/%s: %q holds %q, the haystack %q does not", c.Amount, c.Status, st, f, sub, h)
					}
				}
			}
		}
		for _, field := range strings.Split(h, "\x1f") {
			if !strings.Contains(f, field) {
				t.Fatalf("the haystack %q holds %q, which the full text %q does not", h, field, f)
			}
		}
	}
}

// BenchmarkKeystrokeBySearchKey runs the filter's keystrokes (keystrokeQueries: the page and
// the count, as ChargeWindow reads them) on the 100k generated history with the search index
// keyed by charges.seq as before migration 0011 and by charges.fts_id, interleaved in one run:
// go test -run XXX -bench KeystrokeBySearchKey -count 3 ./state/
func BenchmarkKeystrokeBySearchKey(b *testing.B) {
	src := genDB(b, benchDir(), benchCharges, benchEvents)
	dir := b.TempDir()
	open := func(name, key string) *sql.DB {
		path := copyDB(b, src, filepath.Join(dir, name), "k")
		db, err := sql.Open("sqlite", dsn(path, false))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = db.Close() })
		// Both indexes filled the same way (one 'rebuild': its segments merged).
		if _, err := db.Exec(`DROP TABLE charges_fts;
			CREATE VIRTUAL TABLE charges_fts USING fts5(hay, content='charges', content_rowid='` + key + `', tokenize='trigram', detail=none, columnsize=0);
			INSERT INTO charges_fts(charges_fts) VALUES ('rebuild')`); err != nil {
			b.Fatal(err)
		}
		return db
	}
	dbs := map[string]*sql.DB{"seq": open("seq", "seq"), "fts_id": open("fts_id", "fts_id")}
	for _, q := range keystrokeQueries {
		for _, key := range []string{"seq", "fts_id"} {
			db := dbs[key]
			b.Run(q.name+"/key="+key, func(b *testing.B) {
				text := Fold(q.text)
				var exact int
				if err := db.QueryRow(`SELECT coalesce(sum(n), 0) FROM charge_counts WHERE wallet = ?`, api.WalletPrincipal).Scan(&exact); err != nil {
					b.Fatal(err)
				}
				p := planCharges(ChargeQuery{Wallet: api.WalletPrincipal, Text: text}, text, exact)
				from := strings.Replace(p.from, "c.fts_id = f.rowid", "c."+key+" = f.rowid", 1)
				var n int
				for b.Loop() {
					rows, err := db.Query(`SELECT c.doc FROM `+from+p.where+` ORDER BY `+p.order+` LIMIT ? OFFSET 0`, append(p.args, benchPage)...)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := scanCharges(rows); err != nil {
						b.Fatal(err)
					}
					if p.fts || exact <= smallSlice {
						if err := db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM `+from+p.where+` LIMIT ?)`, append(p.args, MaxCountedMatches+1)...).Scan(&n); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(n), "matches")
			})
		}
	}
}

// TestChargesBeforeThroughSearchNumbers: an export's batches through the trigram index (a text
// of 3 or more characters on more than smallSlice charges) read the list exactly, in order,
// when charges were added between others (renumbering their neighbours) and when the charge a
// batch ended on is deleted before the next batch.
func TestChargesBeforeThroughSearchNumbers(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	var cs []Charge
	for i := range smallSlice + 100 {
		cs = append(cs, filler(i))
	}
	if err := insertFillers(s, cs); err != nil {
		t.Fatal(err)
	}
	// Charges created in the same milliseconds as fillers: each goes right after its filler.
	for i := range 40 {
		c := filler(1000 + i%4)
		c.ID, c.Description = fmt.Sprintf("late-%02d", i), "suco tardio"
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	searchNumbersInOrder(t, s.wdb)
	q := ChargeQuery{Text: "suco"}
	if p := planCharges(q, "suco", smallSlice+140); !p.fts {
		t.Fatal("not through the index")
	}
	want := dumpRows(t, s, `SELECT id FROM charges WHERE instr(hay, 'suco') > 0 ORDER BY seq DESC`)
	var got []string
	before := int64(math.MaxInt64)
	for batch := 0; ; batch++ {
		page, last, err := s.ChargesBefore(ctx, q, before, 97)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			got = append(got, c.ID)
		}
		if len(page) < 97 {
			break
		}
		if batch == 2 {
			// The charge the batch ended on goes: the next batch starts below it all the same.
			if _, err := s.wdb.Exec(`DELETE FROM charges WHERE seq = ?`, last); err != nil {
				t.Fatal(err)
			}
			want = slices.DeleteFunc(want, func(r []string) bool { return r[0] == page[len(page)-1].ID })
			got = got[:len(got)-1]
		}
		before = last
	}
	var wantIDs []string
	for _, r := range want {
		wantIDs = append(wantIDs, r[0])
	}
	if len(wantIDs) < 600 || !slices.Equal(got, wantIDs) {
		t.Fatalf("the batches read %d charges, the scan %d (equal: %v)", len(got), len(wantIDs), slices.Equal(got, wantIDs))
	}
}

// A commit of webhook events alone writes no charge: it does not probe for one to number in the
// search index (issue 27: one query a commit under a flood); a commit with a charge does, and a
// charge committed together with events is numbered and found.
func TestEventsOnlyCommitNumbersNothing(t *testing.T) {
	ctx := context.Background()
	s := OpenMemory()
	t.Cleanup(func() { _ = s.Close() })
	var probes atomic.Int64
	label := s.w.label
	s.w.label = func(tx *sql.Tx) error {
		probes.Add(1)
		return label(tx)
	}
	for i := range 3 {
		if _, err := s.ApplyEvent(ctx, testEvent(t, fmt.Sprint("ev-", i), api.EventPaymentCompleted, fmt.Sprint("tx-", i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := probes.Load(); n != 0 {
		t.Fatalf("%d search-number probes for commits of events alone, want 0", n)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := s.ApplyEvent(ctx, testEvent(t, "ev-with", api.EventPaymentCompleted, "tx-with")); err != nil {
			t.Error(err)
		}
	})
	if _, err := s.UpsertCharge(ctx, Charge{ID: "c-zebra", Description: "zebra crossing", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if probes.Load() == 0 {
		t.Fatal("a commit with a charge did not number it")
	}
	page, err := s.ChargeWindow(ctx, ChargeQuery{Text: "zebra"}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Charges) != 1 || page.Charges[0].ID != "c-zebra" {
		t.Fatalf("search for the charge: %+v", page.Charges)
	}
}
