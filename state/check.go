package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DamageError reports a state database that failed a check: the file and what was found.
// It matches ErrDamaged.
type DamageError struct {
	File     string
	Problems []string
}

// Error names the file and the first problems found.
func (e *DamageError) Error() string {
	ps := e.Problems
	more := ""
	if len(ps) > 3 {
		more = fmt.Sprintf(" (and %d more)", len(ps)-3)
		ps = ps[:3]
	}
	return fmt.Sprintf("%s: %s: %s%s", ErrDamaged, e.File, strings.Join(ps, "; "), more)
}

// Unwrap makes a DamageError match ErrDamaged.
func (e *DamageError) Unwrap() error { return ErrDamaged }

// ErrEmptyDatabase reports a profile's database file that exists but holds nothing (0 bytes):
// it was truncated, so it is not taken for a new profile.
var ErrEmptyDatabase = errors.New("the state database file is empty (0 bytes), probably truncated; restore it from a backup, or delete it to start the profile afresh")

// indexCheck compares what an index (or a table) holds with the counts the schema's triggers
// keep beside it, or with another index.
type indexCheck struct {
	index      string
	got, want  string // each returns one row: a count and a sum
	whatWanted string
}

// name is "index X" or "table X".
func (c indexCheck) name() string {
	if strings.HasPrefix(c.got, "SELECT count(*), 0 FROM "+c.index+" NOT INDEXED") || strings.HasSuffix(c.index, "_hours") || strings.HasSuffix(c.index, "_days") || c.index == "refund_lines" {
		return "table " + c.index
	}
	return "index " + c.index
}

// indexChecks are the indexes the money figures are read from (the day's totals, the close,
// the list's counts, the refunds and blocks of a day, the withdrawals).
var indexChecks = []indexCheck{
	{"charges_paid",
		`SELECT count(*), coalesce(sum(amount), 0) FROM charges INDEXED BY charges_paid WHERE paid_at IS NOT NULL`,
		`SELECT coalesce(sum(n), 0), coalesce(sum(amount), 0) FROM paid_counts`, "paid charges"},
	{"paid_hours",
		`SELECT coalesce(sum(n), 0), coalesce(sum(gross), 0) FROM paid_hours`,
		`SELECT coalesce(sum(n), 0), coalesce(sum(amount), 0) FROM paid_counts WHERE state IN ` + receivedStates, "payments"},
	{"created_hours",
		`SELECT coalesce(sum(n), 0), 0 FROM created_hours`,
		`SELECT coalesce(sum(n), 0), 0 FROM charge_counts`, "charges"},
	{"paid_days",
		`SELECT coalesce(sum(n), 0), coalesce(sum(gross), 0) FROM paid_days`,
		`SELECT coalesce(sum(n), 0), coalesce(sum(amount), 0) FROM paid_counts WHERE state IN ` + receivedStates, "payments"},
	{"created_days",
		`SELECT coalesce(sum(n), 0), 0 FROM created_days`,
		`SELECT coalesce(sum(n), 0), 0 FROM charge_counts`, "charges"},
	{"charges_created",
		`SELECT count(*), coalesce(sum(amount), 0) FROM charges INDEXED BY charges_created`,
		`SELECT coalesce(sum(n), 0), coalesce(sum(amount), 0) FROM charge_counts`, "charges"},
	{"charges_state",
		`SELECT count(*), 0 FROM charges INDEXED BY charges_state`,
		`SELECT coalesce(sum(n), 0), 0 FROM charge_counts`, "charges"},
	{"events_day",
		`SELECT count(*), 0 FROM events INDEXED BY events_day WHERE ` + dayEventKinds,
		`SELECT count(*), 0 FROM events INDEXED BY events_kind WHERE ` + dayEventKinds, "refund and block events"},
	{"events_kind",
		`SELECT count(*), 0 FROM events INDEXED BY events_kind`,
		`SELECT coalesce(sum(n), 0), 0 FROM event_counts`, "events"},
	{"refund_lines_at",
		`SELECT count(*), coalesce(sum(amount), 0) FROM refund_lines INDEXED BY refund_lines_at`,
		`SELECT count(*), coalesce(sum(amount), 0) FROM refund_lines NOT INDEXED`, "refund lines"},
	{"withdrawals_wallet",
		`SELECT count(*), 0 FROM withdrawals INDEXED BY withdrawals_wallet`,
		`SELECT count(*), 0 FROM withdrawals NOT INDEXED`, "withdrawals"},
}

// compare runs checks on the database schema ("fresh." for an attached one, "" for main) and
// returns the disagreements found; a b-tree that cannot be read is one too.
// Every count is read in one read transaction, so another window's write cannot come between
// an index's count and the one it is compared with.
func compare(ctx context.Context, db *sql.DB, schema string, checks []indexCheck) ([]string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return nil, classify(err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") }()
	var problems []string
	for _, c := range checks {
		var gotN, gotSum, wantN, wantSum int64
		err := conn.QueryRowContext(ctx, inSchema(c.got, schema)).Scan(&gotN, &gotSum)
		if err == nil {
			err = conn.QueryRowContext(ctx, inSchema(c.want, schema)).Scan(&wantN, &wantSum)
		}
		if err != nil {
			if errors.Is(classify(err), ErrDamaged) {
				problems = append(problems, fmt.Sprintf("%s cannot be read (%v)", c.name(), err))
				continue
			}
			return nil, classify(err)
		}
		if gotN != wantN || gotSum != wantSum {
			problems = append(problems, fmt.Sprintf("%s lists %d %s where there are %d", c.name(), gotN, c.whatWanted, wantN))
		}
	}
	return problems, nil
}

// inSchema qualifies the tables a check reads with schema.
func inSchema(q, schema string) string {
	if schema == "" {
		return q
	}
	for _, t := range []string{"charges", "events", "refund_lines", "withdrawals", "paid_counts", "charge_counts", "event_counts", "paid_hours", "created_hours", "paid_days", "created_days"} {
		q = strings.ReplaceAll(q, "FROM "+t+" ", "FROM "+schema+t+" ")
		if strings.HasSuffix(q, "FROM "+t) {
			q = strings.TrimSuffix(q, t) + schema + t
		}
	}
	return q
}

// pageCheck runs PRAGMA quick_check (every page of every table and index is read and its
// structure checked, in time linear in the file's size) and returns what it found.
func pageCheck(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(20)")
	if err != nil {
		if errors.Is(classify(err), ErrDamaged) {
			return []string{err.Error()}, nil
		}
		return nil, classify(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, classify(err)
		}
		if s != "ok" {
			problems = append(problems, strings.Join(strings.Fields(s), " "))
		}
	}
	if err := rows.Err(); err != nil {
		if errors.Is(classify(err), ErrDamaged) {
			return append(problems, err.Error()), nil
		}
		return nil, classify(err)
	}
	return problems, nil
}

// CheckLevel is how thoroughly Check reads the database.
type CheckLevel int

// Check levels, each doing what the one before does and more.
const (
	// CheckIndexes compares the money indexes with the counts the schema's triggers keep beside
	// them, reading indexes and small tables only: every Open does it (about 30-50 ms at
	// 100,000 charges).
	CheckIndexes CheckLevel = iota
	// CheckTables also counts the rows of the charges and events tables against those counts
	// (about 90 ms more at 100,000 charges): pixdash close and export do it before reporting.
	CheckTables
	// CheckPages also checks every page's structure (PRAGMA quick_check, seconds at 100,000
	// charges): pixdash db check and db repair do it.
	CheckPages
)

// refundLinesCheck compares refund_lines with the refund_completed events it must hold, the
// confirmed ones (migration 0014): one read of every refund event, as the pages' check is.
var refundLinesCheck = indexCheck{"refund_lines",
	`SELECT count(*), coalesce(sum(seq), 0) FROM refund_lines NOT INDEXED`,
	`SELECT count(*), coalesce(sum(seq), 0) FROM events INDEXED BY events_kind WHERE kind = 'refund_completed' AND verdict = 'confirmed'`,
	"confirmed refunds"}

// tableChecks compare the tables' row counts with the trigger-kept counts.
var tableChecks = []indexCheck{
	{"charges", `SELECT count(*), 0 FROM charges NOT INDEXED`, `SELECT coalesce(sum(n), 0), 0 FROM charge_counts`, "charges"},
	{"events", `SELECT count(*), 0 FROM events NOT INDEXED`, `SELECT coalesce(sum(n), 0), 0 FROM event_counts`, "events"},
}

// Check checks the database at level. A damaged database gives a *DamageError naming the file
// and what was found; Repair mends what can be rebuilt. A store in memory is not checked.
func (s *Store) Check(ctx context.Context, level CheckLevel) error {
	if s.file == "" {
		return nil
	}
	return check(ctx, s.rdb, s.file, level)
}

func check(ctx context.Context, db *sql.DB, file string, level CheckLevel) error {
	checks := indexChecks
	if level >= CheckTables {
		checks = append(checks[:len(checks):len(checks)], tableChecks...)
	}
	problems, err := compare(ctx, db, "", checks)
	if err != nil {
		return err
	}
	if level >= CheckPages {
		// The search index's numbers: one full read of the charges, as the pages' check is.
		more, err := compare(ctx, db, "", []indexCheck{searchOrderCheck, refundLinesCheck})
		if err != nil {
			return err
		}
		problems = append(problems, more...)
		more, err = pageCheck(ctx, db)
		if err != nil {
			return err
		}
		problems = append(problems, more...)
	}
	if len(problems) > 0 {
		return &DamageError{File: file, Problems: problems}
	}
	return nil
}

// RepairReport is what Repair did.
type RepairReport struct {
	File string
	// Backup is the copy of the database taken before the repair.
	Backup string
	// Found lists the problems the check found before the repair (none: nothing was changed).
	Found []string
}

// Repair checks the profile's database in dir and, when it is damaged, copies it aside
// (<file>.before-repair-<time>) and mends it: first by rebuilding every index from the tables
// (REINDEX) and the counts kept beside them; when an index is too broken for that, by copying
// the tables into a new file (VACUUM INTO, which builds the indexes afresh) that replaces the
// damaged one, which needs every other pixdash on the profile closed. It checks the result
// and fails, naming the copy, when the tables themselves are damaged (then only a backup helps).
func Repair(ctx context.Context, dir, profile string) (RepairReport, error) {
	file := filepath.Join(dir, DBFileName(profile))
	rep := RepairReport{File: file}
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		return rep, fmt.Errorf("state: %w", err)
	case fi.Size() == 0:
		return rep, fmt.Errorf("state: %s: %w", file, ErrEmptyDatabase)
	}
	db, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		return rep, err
	}
	defer func() { _ = db.Close() }()
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	if err := migrate(ctx, db); err != nil {
		return rep, fmt.Errorf("state: %s: %w", file, classify(err))
	}
	err = check(ctx, db, file, CheckPages)
	var de *DamageError
	if !errors.As(err, &de) {
		return rep, err // nil: nothing to repair
	}
	rep.Found = de.Problems
	if rep.Backup, err = backup(ctx, db, file); err != nil {
		return rep, fmt.Errorf("state: copying %s aside before the repair: %w", file, err)
	}
	if err := rebuild(ctx, db); err == nil {
		if err := check(ctx, db, file, CheckPages); err == nil {
			return rep, nil
		}
	}
	// An index too broken to be rebuilt in place: copy the tables into a new file.
	if err := rebuildFromTables(ctx, db, file); err != nil {
		return rep, fmt.Errorf("state: %s: %w (a copy of the damaged file is at %s)", file, err, rep.Backup)
	}
	_ = db.Close()
	fresh, err := sql.Open("sqlite", dsn(file, false))
	if err != nil {
		return rep, err
	}
	defer func() { _ = fresh.Close() }()
	if err := check(ctx, fresh, file, CheckPages); err != nil {
		return rep, fmt.Errorf("state: %s is still damaged after the repair (%w); restore the profile from a backup (a copy of the damaged file is at %s)", file, err, rep.Backup)
	}
	return rep, nil
}

// ErrInUse reports a repair that needs the database to itself while another pixdash has it open.
var ErrInUse = errors.New("another pixdash has the state database open; close every window of the profile and try again")

// rebuildFromTables copies the tables of db (file) into a new file, rebuilding its indexes and
// counts there, and puts it in place of file. It holds db exclusively meanwhile.
func rebuildFromTables(ctx context.Context, db *sql.DB, file string) error {
	// Leaving WAL mode needs the only connection to the file: it tells that no other pixdash
	// has it open, and the exclusive lock taken next keeps it so.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = DELETE").Scan(&mode); err != nil || mode != "delete" {
		if err != nil && !errors.Is(classify(err), ErrBusy) {
			return classify(err)
		}
		return ErrInUse
	}
	if _, err := db.ExecContext(ctx, "PRAGMA locking_mode = EXCLUSIVE"); err != nil {
		return classify(err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return classify(err)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(v)); err != nil { // takes the write lock, kept
		return classify(err)
	}
	tmp := file + ".rebuilt"
	for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
		_ = os.Remove(f)
	}
	if err := copyTables(ctx, db, tmp); err != nil {
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			_ = os.Remove(f)
		}
		return fmt.Errorf("the tables themselves are damaged and cannot be copied (%w); restore the profile from a backup", classify(err))
	}
	if err := os.Rename(tmp, file); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// derivedTables are kept by the schema's triggers from the others: a copy rebuilds them.
func derivedTable(name string) bool {
	switch name {
	case "charge_counts", "event_counts", "paid_counts", "paid_hours", "created_hours", "paid_days", "created_days":
		return true
	}
	return strings.HasPrefix(name, "sqlite_") || strings.HasPrefix(name, "charges_fts")
}

// copyTables writes a new database at tmp with this build's schema and copies every table of
// db into it row by row (never through db's indexes: WHERE 1 keeps SQLite from copying them
// whole), the schema's triggers filling the counts and the search index; it checks the copy.
func copyTables(ctx context.Context, db *sql.DB, tmp string) error {
	nd, err := sql.Open("sqlite", dsn(tmp, false))
	if err != nil {
		return err
	}
	err = migrate(ctx, nd)
	if err == nil {
		_, err = nd.ExecContext(ctx, "PRAGMA journal_mode = DELETE")
	}
	_ = nd.Close()
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY rootpage`)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			_ = rows.Close()
			return err
		}
		if !derivedTable(n) {
			tables = append(tables, n)
		}
	}
	_ = rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "ATTACH DATABASE ? AS fresh", "file:"+(&url.URL{Path: tmp}).EscapedPath()); err != nil {
		return err
	}
	defer func() { _, _ = db.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE fresh") }()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, t := range tables {
		// t is one of the schema's own table names read from sqlite_schema, quoted with %q.
		q := fmt.Sprintf(`INSERT OR REPLACE INTO fresh.%[1]q SELECT * FROM main.%[1]q NOT INDEXED WHERE 1`, t) //nolint:gosec // G201: an identifier, not a value
		if t == "charges" {
			// Every column but the search number, which the new file's triggers give afresh
			// (in the list's order: the rows come in rowid order), whatever the damaged one held.
			cols, err := columnsBut(ctx, tx, "charges", "fts_id")
			if err != nil {
				return err
			}
			q = `INSERT OR REPLACE INTO fresh.charges(` + cols + `) SELECT ` + cols + ` FROM main.charges NOT INDEXED WHERE 1`
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copying %s: %w", t, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	problems, err := compare(ctx, db, "fresh.", append(append(indexChecks[:len(indexChecks):len(indexChecks)], tableChecks...), searchOrderCheck, refundLinesCheck))
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &DamageError{File: tmp, Problems: problems}
	}
	return nil
}

// columnsBut lists the columns of the main schema's table, quoted and comma-separated, but one.
func columnsBut(ctx context.Context, tx *sql.Tx, table, but string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM main.pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		if n != but {
			cols = append(cols, strconv.Quote(n))
		}
	}
	return strings.Join(cols, ", "), rows.Err()
}

// rebuild rebuilds every index from its table and the trigger-kept counts from the charges and
// events, in one transaction.
func rebuild(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, q := range []string{
		`REINDEX`,
		`DELETE FROM charge_counts`,
		`INSERT INTO charge_counts SELECT wallet, state, count(*), sum(amount) FROM charges NOT INDEXED GROUP BY 1, 2`,
		`DELETE FROM paid_counts`,
		`INSERT INTO paid_counts SELECT wallet, state, count(*), sum(amount) FROM charges NOT INDEXED WHERE paid_at IS NOT NULL GROUP BY 1, 2`,
		`DELETE FROM event_counts`,
		`INSERT INTO event_counts SELECT wallet, kind, count(*) FROM events NOT INDEXED GROUP BY 1, 2`,
		`DELETE FROM paid_hours`,
		`INSERT INTO paid_hours SELECT paid_at / 3600000, wallet, count(*), sum(amount), count(fee), coalesce(sum(fee), 0)
			FROM charges NOT INDEXED WHERE paid_at IS NOT NULL AND state IN ` + receivedStates + ` GROUP BY 1, 2`,
		`DELETE FROM created_hours`,
		`INSERT INTO created_hours SELECT created_at / 3600000, wallet, state, count(*) FROM charges NOT INDEXED GROUP BY 1, 2, 3`,
		`DELETE FROM paid_days`,
		`INSERT INTO paid_days SELECT hour / 24, wallet, sum(n), sum(gross), sum(nfee), sum(fee) FROM paid_hours GROUP BY 1, 2`,
		`DELETE FROM created_days`,
		`INSERT INTO created_days SELECT hour / 24, wallet, state, sum(n) FROM created_hours GROUP BY 1, 2, 3`,
		`INSERT INTO charges_fts(charges_fts) VALUES ('rebuild')`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", strings.Fields(q)[0], err)
		}
	}
	// The confirmed refund lines, from their events' payloads.
	if _, err := tx.ExecContext(ctx, `DELETE FROM refund_lines`); err != nil {
		return err
	}
	if err := fillRefundLines(ctx, tx); err != nil {
		return fmt.Errorf("refund lines: %w", err)
	}
	// Search numbers missing or out of the list's order: numbered afresh, the index refilled.
	var ordered, all int64
	if err := tx.QueryRowContext(ctx, searchOrderCheck.got).Scan(&ordered, new(int64)); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM charges NOT INDEXED`).Scan(&all); err != nil {
		return err
	}
	if ordered != all {
		if err := renumberSearch(ctx, tx); err != nil {
			return fmt.Errorf("numbering the search index: %w", err)
		}
	}
	return tx.Commit()
}

// backup copies the database file (its WAL folded in first, when it can be) beside itself.
func backup(ctx context.Context, db *sql.DB, file string) (string, error) {
	_, _ = db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	dst := file + ".before-repair-" + time.Now().Format("20060102-150405")
	in, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return "", err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	// The WAL, when the checkpoint could not fold it in (another window reading).
	if wal, err := os.ReadFile(file + "-wal"); err == nil && len(wal) > 0 {
		if err := os.WriteFile(dst+"-wal", wal, 0o600); err != nil {
			return "", err
		}
	}
	return dst, nil
}
