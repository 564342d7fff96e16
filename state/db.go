package state

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The schema, one numbered file per version, applied in order; PRAGMA user_version is the
// number of the last one applied.
//
//go:embed migrations/*.sql
var migrations embed.FS

// cacheKiB is each connection's page cache. Memory stays flat whatever the history holds: one
// writer and up to maxReaders readers, each with this cache.
const (
	cacheKiB   = 8 << 10
	maxReaders = 4
)

// dsn is the connection string of a database file. synchronous=FULL: in WAL mode a commit
// returns only after the WAL is fsynced, so an acknowledged write survives a crash of the
// machine, not only of pixdash (NORMAL would lose the last commits on a power cut). busy_timeout
// lets a second pixdash on the same profile wait for the other's write instead of failing;
// _txlock=immediate takes the write lock at BEGIN, so a transaction that reads then writes
// never fails midway because another process wrote in between.
func dsn(file string, readOnly bool) string {
	q := url.Values{}
	for _, p := range []string{
		"busy_timeout(10000)",
		"journal_mode(WAL)",
		"synchronous(FULL)",
		"foreign_keys(1)",
		"cache_size(-" + strconv.Itoa(cacheKiB) + ")",
		"mmap_size(0)",
		"temp_store(MEMORY)",
	} {
		q.Add("_pragma", p)
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	}
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: file}).EscapedPath() + "?" + q.Encode()
}

// memorySeq names in-memory databases apart.
var memorySeq atomic.Uint64

// memoryDSN is a private in-memory database (demo mode); it lives as long as its one connection.
func memoryDSN() string {
	return fmt.Sprintf("file:pixdash-memory-%d?mode=memory&_pragma=foreign_keys(1)&_txlock=immediate", memorySeq.Add(1))
}

// openDB opens the writer and the reader pool of a database file, or one connection to a new
// in-memory database (file ""), which serves both.
func openDB(ctx context.Context, file string) (w, r *sql.DB, err error) {
	if file == "" {
		w, err = sql.Open("sqlite", memoryDSN())
		if err != nil {
			return nil, nil, err
		}
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxLifetime(0)
		w.SetConnMaxIdleTime(0)
		if err := migrateMemory(ctx, w); err != nil {
			_ = w.Close()
			return nil, nil, err
		}
		return w, w, nil
	}
	// The writer checkpoints itself only past walFallbackPages: the checkpointer does it in
	// the background (checkpoint.go).
	w, err = sql.Open("sqlite", dsn(file, false)+"&_pragma="+url.QueryEscape("wal_autocheckpoint("+strconv.Itoa(walFallbackPages)+")"))
	if err != nil {
		return nil, nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	if err := migrate(ctx, w); err != nil {
		_ = w.Close()
		return nil, nil, err
	}
	r, err = sql.Open("sqlite", dsn(file, true))
	if err != nil {
		_ = w.Close()
		return nil, nil, err
	}
	r.SetMaxOpenConns(maxReaders)
	r.SetMaxIdleConns(maxReaders)
	return w, r, nil
}

// SchemaVersion is the schema version this build writes (the number of its last migration).
func SchemaVersion() int { return len(migrationFiles()) }

func migrationFiles() []string {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		panic(err) // the pattern is constant
	}
	slices.Sort(names)
	return names
}

// ErrNewerSchema is returned by Open for a database written by a newer pixdash.
var ErrNewerSchema = errors.New("the state database was written by a newer pixdash; update pixdash to open it")

// memorySchema is an empty in-memory database with every migration applied, as bytes: built
// by the first in-memory database a process opens and copied into the next ones. Running the
// migrations takes some 0.2 s of CPU under -race, and the tests open hundreds of in-memory
// stores (the copy takes a few milliseconds). A copy lives in SQLite's memdb, which grows up
// to 1 GiB (SQLITE_MEMDB_DEFAULT_MAXSIZE): far more than a demo session writes.
var memorySchema struct {
	once sync.Once
	img  []byte
}

// migrateMemory brings a new in-memory database (one connection) to this build's schema: a
// copy of memorySchema, else the migrations themselves.
func migrateMemory(ctx context.Context, db *sql.DB) error {
	memorySchema.once.Do(func() {
		t, err := sql.Open("sqlite", memoryDSN())
		if err != nil {
			return
		}
		defer t.Close()
		t.SetMaxOpenConns(1)
		if migrate(context.Background(), t) != nil {
			return
		}
		_ = rawConn(context.Background(), t, func(c sqliteImage) (err error) {
			memorySchema.img, err = c.Serialize()
			return err
		})
	})
	if img := memorySchema.img; img != nil {
		if err := rawConn(ctx, db, func(c sqliteImage) error { return c.Deserialize(img) }); err != nil {
			return err
		}
	}
	return migrate(ctx, db) // nothing left to do after the copy
}

// sqliteImage is what the SQLite driver's connection offers to copy a database in memory.
type sqliteImage interface {
	Serialize() ([]byte, error)
	Deserialize([]byte) error
}

// rawConn runs f on the driver connection of db's one connection.
func rawConn(ctx context.Context, db *sql.DB, f func(sqliteImage) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(sqliteImage)
		if !ok {
			return fmt.Errorf("state: the SQLite driver cannot copy a database (%T)", dc)
		}
		return f(c)
	})
}

// migrate applies the migrations the database lacks, each in its own transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	files := migrationFiles()
	var have int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return err
	}
	if have > len(files) {
		return fmt.Errorf("%w (schema %d, this build knows %d)", ErrNewerSchema, have, len(files))
	}
	for i := have; i < len(files); i++ {
		body, err := migrations.ReadFile(files[i])
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		// Another process may have migrated between the check and BEGIN IMMEDIATE.
		var now int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&now); err != nil {
			_ = tx.Rollback()
			return err
		}
		if now > i {
			_ = tx.Rollback()
			continue
		}
		if prep := migrationPrep[path.Base(files[i])]; prep != nil {
			if err := prep(ctx, tx); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("migration %s: %w", path.Base(files[i]), err)
			}
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration %s: %w", path.Base(files[i]), err)
		}
		if post := migrationPost[path.Base(files[i])]; post != nil {
			if err := post(ctx, tx); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("migration %s: %w", path.Base(files[i]), err)
			}
		}
		if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(i+1)); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// migrationPrep runs, in a migration's transaction, what its SQL cannot say: adding a column
// only when it is missing, so the migration can run again over its own result.
var migrationPrep = map[string]func(context.Context, *sql.Tx) error{
	"0011_dense_search_ids.sql": addSearchIDColumn,
}

// migrationPost runs, in a migration's transaction after its SQL, what SQLite cannot compute:
// filling a table from the events' payloads, decoded in Go (money is parsed exactly). Each
// must be able to run again over its own result, as the SQL can.
var migrationPost = map[string]func(context.Context, *sql.Tx) error{
	"0014_refund_lines.sql": fillRefundLines,
}

// addSearchIDColumn adds charges.fts_id (migration 0011) unless it is there.
func addSearchIDColumn(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('charges') WHERE name = 'fts_id'`).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err := tx.ExecContext(ctx, `ALTER TABLE charges ADD COLUMN fts_id INTEGER`)
	return err
}

// ErrDiskFull reports a write refused because the disk (or the database's size limit) is full;
// nothing of that write was kept. Writes work again once there is room.
var ErrDiskFull = errors.New("the disk is full: free some space; nothing was saved")

// classify turns SQLite's errors into ones a person can act on.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL:
			return fmt.Errorf("%w (%w)", ErrDiskFull, err)
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w (%w)", ErrBusy, err)
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w (%w)", ErrDamaged, err)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			return fmt.Errorf("%w (%w)", ErrNoAccess, err)
		case sqlite3.SQLITE_IOERR:
			return fmt.Errorf("%w (%w)", ErrIO, err)
		}
	}
	return err
}

// Errors of the database, each naming its cause.
var (
	ErrBusy     = errors.New("another pixdash kept the state database busy too long; try again")
	ErrDamaged  = errors.New("the state database is damaged")
	ErrNoAccess = errors.New("the state database cannot be written (permissions or a read-only disk)")
	ErrIO       = errors.New("the disk failed to read or write the state database")
)

// job is one write: run inside the writer's transaction (it may run again, in a new one, when
// another job of its group failed: it must set its results, not add to them); after runs once
// the transaction committed.
type job struct {
	ctx context.Context
	run func(tx *sql.Tx) (after func(), err error)
	// noCharges: run writes no charge (webhook events), so a group of such jobs has none to
	// number for the search index.
	noCharges bool
	after     func()
	err       error
	done      chan struct{}
}

// writer commits jobs: all the jobs queued while a commit is under way go into the next
// transaction (group commit), so concurrent writers share one fsync. One goroutine commits at a
// time: a write that finds nobody committing commits its own group on its caller's goroutine
// (a lone write, such as each webhook of a steady stream, passes through no other goroutine),
// and what queued meanwhile is handed to the writer's loop, which commits until the queue is
// empty (issue 27: two goroutine hand-offs an event were much of the scheduler's work).
type writer struct {
	db     *sql.DB
	mu     sync.Mutex
	queue  []*job
	closed bool
	// busy: a goroutine is committing (a caller, or the loop); the queue is never left with
	// jobs and nobody busy. handed: the loop is to take over the queue (and busy).
	busy, handed bool
	wake         chan struct{}
	stopped      chan struct{}
	// committed is called after each commit that changed something, before the jobs are answered.
	committed func()
	// begin is called at the start of each transaction, finish after its jobs ran and before
	// its commit (a failure fails the whole group); both on the committing goroutine, one at a
	// time.
	begin  func()
	finish func(tx *sql.Tx) error
	// label numbers the group's charges for the search index (labelSearchRows when nil).
	label func(tx *sql.Tx) error
}

func newWriter(db *sql.DB, committed func()) *writer {
	w := &writer{db: db, wake: make(chan struct{}, 1), stopped: make(chan struct{}), committed: committed}
	go w.loop()
	return w
}

// do runs f in a write transaction and returns once it is committed (nil) or refused.
func (w *writer) do(ctx context.Context, f func(tx *sql.Tx) (after func(), err error)) error {
	return w.enqueue(&job{ctx: ctx, run: f})
}

// doNoCharges is do for an f that writes no charge (see job.noCharges).
func (w *writer) doNoCharges(ctx context.Context, f func(tx *sql.Tx) (after func(), err error)) error {
	return w.enqueue(&job{ctx: ctx, run: f, noCharges: true})
}

// enqueue queues j for the next commit and waits for it.
func (w *writer) enqueue(j *job) error {
	if err := j.ctx.Err(); err != nil {
		return err
	}
	j.done = make(chan struct{})
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	w.queue = append(w.queue, j)
	lead := !w.busy // then the queue was empty: j is first
	w.busy = true
	w.mu.Unlock()
	if lead {
		// The writes made ready at the same instant (a flood's deliveries whose bodies were
		// read together) run first and join this commit: without the yield the leader
		// commits alone and the others wait for the next commit (issue 27: 40% of a flood's
		// commits held one event).
		runtime.Gosched()
		w.commit(w.take())
		w.release()
	}
	// Once queued, the job is waited for even when ctx ends: the caller must know whether it
	// was committed.
	<-j.done
	return j.err
}

// take removes the next group from the queue (the committer's).
func (w *writer) take() []*job {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := min(len(w.queue), maxJobsPerCommit)
	jobs := slices.Clone(w.queue[:n])
	w.queue = slices.Delete(w.queue, 0, n)
	return jobs
}

// release ends a caller's commit: nobody is busy when the queue is empty, else the loop takes
// the jobs that queued meanwhile.
func (w *writer) release() {
	w.mu.Lock()
	if len(w.queue) == 0 {
		w.busy = false
	} else {
		w.handed = true
	}
	w.mu.Unlock()
	w.poke()
}

// poke wakes the loop (to take over, or to see the writer closed and idle).
func (w *writer) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// maxJobsPerCommit bounds one transaction, so a flood of writes still commits regularly.
const maxJobsPerCommit = 2048

// loop commits the queue a caller handed over, group by group until it is empty, and ends
// once the writer is closed with nothing queued and nobody committing.
func (w *writer) loop() {
	defer close(w.stopped)
	for range w.wake {
		w.mu.Lock()
		mine := w.handed
		w.handed = false
		w.mu.Unlock()
		for mine {
			runtime.Gosched() // as a leader does: the writes ready now join this group
			if jobs := w.take(); len(jobs) > 0 {
				w.commit(jobs)
				continue
			}
			w.mu.Lock()
			if mine = len(w.queue) > 0; !mine {
				w.busy = false
			}
			w.mu.Unlock()
		}
		w.mu.Lock()
		done := w.closed && !w.busy && len(w.queue) == 0
		w.mu.Unlock()
		if done {
			return
		}
	}
}

// commit runs jobs in one transaction. No savepoints: when a job fails, the transaction is
// rolled back and the others run again without it (a savepoint spanning many statements makes
// SQLite's statement journal grow with each, and a failure is rare). A failure of the
// database itself (disk full, I/O, busy, damage) fails every job of the group.
func (w *writer) commit(jobs []*job) {
	for len(jobs) > 0 {
		live := jobs[:0:0]
		for _, j := range jobs {
			if err := j.ctx.Err(); err != nil {
				j.err = err
				close(j.done)
				continue
			}
			live = append(live, j)
		}
		jobs = live
		if len(jobs) == 0 {
			return
		}
		bad, err := w.try(jobs)
		switch {
		case err == nil:
			for _, j := range jobs {
				if j.after != nil {
					j.after()
				}
			}
			if w.committed != nil {
				w.committed()
			}
			for _, j := range jobs {
				close(j.done)
			}
			return
		case bad < 0 || systemic(err):
			for _, j := range jobs {
				j.err = err
				close(j.done)
			}
			return
		default:
			jobs[bad].err = err
			close(jobs[bad].done)
			jobs = slices.Delete(jobs, bad, bad+1)
		}
	}
}

// try runs jobs in one transaction and commits it; on failure it returns the index of the job
// that failed (-1 when BEGIN or COMMIT did) and the error.
func (w *writer) try(jobs []*job) (int, error) {
	tx, err := w.db.BeginTx(context.Background(), nil)
	if err != nil {
		return -1, classify(err)
	}
	if w.begin != nil {
		w.begin()
	}
	for i, j := range jobs {
		j.after = nil
		after, err := j.run(tx)
		if err != nil {
			_ = tx.Rollback()
			return i, classify(err)
		}
		j.after = after
	}
	// A group of webhook events alone (a flood's commits) has no charge to number: the
	// probe for one is skipped (issue 27: one query a commit at 100 events a second).
	if slices.ContainsFunc(jobs, func(j *job) bool { return !j.noCharges }) {
		label := w.label
		if label == nil {
			label = labelSearchRows
		}
		if err := label(tx); err != nil {
			_ = tx.Rollback()
			return -1, classify(err)
		}
	}
	if w.finish != nil {
		if err := w.finish(tx); err != nil {
			_ = tx.Rollback()
			return -1, classify(err)
		}
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		return -1, classify(err)
	}
	return -1, nil
}

// systemic reports a failure of the database rather than of one write.
func systemic(err error) bool {
	for _, e := range []error{ErrDiskFull, ErrIO, ErrBusy, ErrNoAccess, ErrDamaged} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// close refuses new jobs, commits the queued ones and waits for the loop to end.
func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.poke()
	<-w.stopped
}

// setMaxPages caps the database at n pages (as a full disk would: writes that need more fail
// with SQLITE_FULL) or lifts the cap (n <= 0). For tests.
func (s *Store) setMaxPages(ctx context.Context, n int) error {
	if n <= 0 {
		n = 1 << 30
	}
	_, err := s.wdb.ExecContext(ctx, "PRAGMA max_page_count = "+strconv.Itoa(n))
	return err
}

// pageCount is the database's size in pages. For tests.
func (s *Store) pageCount(ctx context.Context) (int, error) {
	var n int
	err := s.wdb.QueryRowContext(ctx, "PRAGMA page_count").Scan(&n)
	return n, err
}
