package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"pixdash/api"
)

// ErrClosed is returned by a write to a closed Store.
var ErrClosed = errors.New("state store is closed")

// Option configures a Store.
type Option func(*options)

type options struct {
	now func() time.Time
	loc *time.Location
	log *slog.Logger
}

// WithClock sets the clock used to timestamp what the store records (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithLocation sets the time zone of the dates the list filter matches (default time.Local):
// the one the dashboard shows them in.
func WithLocation(loc *time.Location) Option { return func(o *options) { o.loc = loc } }

// Store is one profile's dashboard state in an SQLite database: tracked charges, webhook
// events, pending submissions, the learned fee and recent lookups. It is safe for concurrent
// use, also by several processes on one file. Every write method returns once its transaction
// is committed (the WAL fsynced): a nil error is the acknowledgement. Concurrent writes share
// one commit. Reads never load the whole history: the lists are read a window at a time.
type Store struct {
	profile string
	file    string // "" in memory
	// refunds are the refund records in memory (see refundCache).
	refundsOnce sync.Once
	refunds     *refundCache
	now         func() time.Time
	loc         *time.Location
	log         *slog.Logger // debug lines of the writes (nil: none)
	// created is told of each charge this pixdash created, after its commit (OnChargeCreated).
	created atomic.Pointer[func(Charge)]
	// noRollups makes DayReport read the charges' rows alone, as before the hourly rollups
	// (migration 0010): the tests and benchmarks compare the two.
	noRollups bool
	// refundRate is how many refund lines per hour the last read of a period found (float64
	// bits): refundLines sizes its maps with it.
	refundRate atomic.Uint64

	wdb, rdb *sql.DB
	ckpt     *checkpointer // nil in memory
	stmts    statements
	counts   eventCounts // the events the writer's transaction under way stored (events.go)
	w        *writer
	polls    *pollSet
	decoded  eventCache // the events written last, decoded (EventsAfter, EventWindow)
	// maxPolled is MaxPolled (smaller in tests).
	maxPolled int
	recent    recentCache

	// insTx and insStmt are the insertEvent statement bound to the writer's transaction under
	// way (insertIn); only the committing goroutine (one at a time, see writer) touches them.
	insTx   *sql.Tx
	insStmt *sql.Stmt

	feeMu sync.Mutex
	fee   *LearnedFee

	version    atomic.Uint64
	chargesVer atomic.Uint64
	eventsVer  atomic.Uint64
	settledVer atomic.Uint64 // SettledVersion
	marks      atomic.Uint32 // what the commit under way changed (change bits)
	chMu       sync.Mutex
	changed    chan struct{} // closed (and replaced) after each change

	refreshMu      sync.Mutex
	refreshConn    *sql.Conn // holds PRAGMA data_version's connection
	dataVersion    int64
	chargesVersion int64

	imported *ImportReport
	// checked is closed once the check Open starts is done; damage is what it found.
	checked   chan struct{}
	checkStop context.CancelFunc
	damage    atomic.Pointer[error]
	ready     chan struct{} // closed once the pending charges are loaded
	loadErr   atomic.Pointer[error]
	loading   atomic.Bool // the background load was started
	closed    atomic.Bool
}

// DBFileName is the database file of a profile inside the state directory.
func DBFileName(profile string) string { return ProfileFileName(profile) + ".db" }

// openPatience is how long Open waits for another window that keeps the database busy while
// it creates or migrates it (each try already waits busy_timeout).
const openPatience = time.Minute

// Open opens the profile's database in dir (normally $XDG_STATE_HOME/pixdash), creating dir
// (mode 0700) and the database (mode 0600) when needed and bringing its schema up to date. When
// dir holds the profile's files from the journal pixdash used before, they are imported first
// and renamed with a ".imported" suffix; Notice says so once.
func Open(ctx context.Context, dir, profile string, opts ...Option) (*Store, error) {
	if dir == "" {
		return nil, errors.New("state: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	file := filepath.Join(dir, DBFileName(profile))
	if err := createOrCheckFile(ctx, file); err != nil {
		return nil, err
	}
	s, err := open(ctx, file, profile, opts)
	// Another window may be creating or migrating the same database (a first start of two
	// windows at once, on a loaded machine): wait for it rather than fail.
	for deadline := time.Now().Add(openPatience); errors.Is(err, ErrBusy) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("state: %s: %w", file, err)
		case <-time.After(200 * time.Millisecond):
		}
		s, err = open(ctx, file, profile, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("state: %s: %w", file, err)
	}
	s.startCheck()
	imported, err := importLegacy(ctx, s, dir, profile)
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("state: importing the old journal: %w", err)
	}
	s.imported = imported
	if err := s.backfillRefunds(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("state: %w", err)
	}
	if err := s.load(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("state: %w", err)
	}
	return s, nil
}

// startCheck checks, in the background, the money indexes against the counts kept beside them
// (CheckIndexes; a few hundred milliseconds at a million charges, which the first frame does not
// wait for): a damaged page must not make the day's totals silently wrong. Damage reports it.
func (s *Store) startCheck() {
	ctx, stop := context.WithCancel(context.Background())
	s.checkStop = stop
	done := make(chan struct{})
	s.checked = done
	go func() {
		defer close(done)
		var de *DamageError
		if err := s.Check(ctx, CheckIndexes); errors.As(err, &de) {
			s.damage.Store(&err)
		}
	}()
}

// Damage reports what the check every Open starts in the background found: a *DamageError
// (matching ErrDamaged) naming the file and the indexes that disagree with the counts kept
// beside them; nil while it runs, when it found nothing, and for a store in memory. It does
// no I/O.
func (s *Store) Damage() error {
	if p := s.damage.Load(); p != nil {
		return *p
	}
	return nil
}

// Checked is closed once the check Open started is done (at once for a store in memory).
func (s *Store) Checked() <-chan struct{} { return s.checked }

// emptyFilePatience is how long Open waits for an empty database file to be written by the
// window that created it, before reporting it as truncated.
const emptyFilePatience = 2 * time.Second

// createOrCheckFile creates the database file (mode 0600, so that SQLite, which would use
// 0644, opens an existing file) or, when it exists with nothing in it, waits briefly for the
// window creating it and then reports it (ErrEmptyDatabase) rather than start a new profile
// over a truncated one.
func createOrCheckFile(ctx context.Context, file string) error {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("state: %w", err)
	}
	for deadline := time.Now().Add(emptyFilePatience); ; {
		fi, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		if fi.Size() > 0 {
			return nil
		}
		if wal, err := os.Stat(file + "-wal"); err == nil && wal.Size() > 0 {
			return nil // the content is still in the write-ahead log, not checkpointed yet
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("state: %s: %w", file, ErrEmptyDatabase)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// OpenMemory returns a store that keeps nothing on disk (demo mode).
func OpenMemory(opts ...Option) *Store {
	s, err := open(context.Background(), "", "", opts)
	if err == nil {
		err = s.load(context.Background())
	}
	if err != nil {
		panic(fmt.Sprintf("state: in-memory database: %v", err)) // only a broken build fails here
	}
	return s
}

func open(ctx context.Context, file, profile string, opts []Option) (*Store, error) {
	o := options{now: time.Now, loc: time.Local}
	for _, f := range opts {
		f(&o)
	}
	wdb, rdb, err := openDB(ctx, file)
	if err != nil {
		return nil, classify(err)
	}
	s := &Store{profile: profile, file: file, now: o.now, loc: o.loc, log: o.log, wdb: wdb, rdb: rdb,
		polls: newPollSet(DefaultPollPolicy()), maxPolled: MaxPolled, changed: make(chan struct{}), ready: make(chan struct{})}
	s.recent.init()
	s.checked = make(chan struct{})
	close(s.checked) // until startCheck
	if err := errors.Join(s.stmts.prepare(ctx, wdb), s.stmts.prepareReaders(ctx, rdb)); err != nil {
		s.stmts.close()
		_ = wdb.Close()
		if rdb != wdb {
			_ = rdb.Close()
		}
		return nil, classify(err)
	}
	if file != "" {
		if s.ckpt, err = newCheckpointer(file); err != nil {
			_ = wdb.Close()
			_ = rdb.Close()
			return nil, classify(err)
		}
	}
	s.w = newWriter(wdb, func() { s.bump(); s.ckpt.committed() })
	s.w.begin = func() { s.counts.reset(); s.insTx, s.insStmt = nil, nil }
	s.w.finish = func(tx *sql.Tx) error { return s.counts.flush(tx, s.stmts.addCounts) }
	s.w.label = func(tx *sql.Tx) error { return labelSearchRowsWith(tx, s.stmts.unlabelled) }
	return s, nil
}

// load reads what the store keeps in memory: the pending charges (for polling) and the fee.
func (s *Store) load(ctx context.Context) error {
	// The pending charges are read in the background: the first frame does not wait for them
	// (at a million charges there may be tens of thousands); polling starts once they are in.
	s.loading.Store(true)
	// Detached from ctx on purpose: Open's context bounds the open, not this load.
	go func() { //nolint:gosec // G118: see above
		defer close(s.ready)
		if err := s.loadPending(context.Background()); err != nil {
			s.loadErr.Store(&err)
		}
		// The refunds asked from this dashboard, for the rows' labels (PeekRefund).
		if err := s.LoadRefunds(context.Background()); err != nil {
			s.loadErr.Store(&err)
		}
	}()
	f, ok, err := s.readFee(ctx)
	if err != nil {
		return err
	}
	if ok {
		s.feeMu.Lock()
		s.fee = &f
		s.feeMu.Unlock()
	}
	if s.file == "" {
		return nil
	}
	conn, err := s.rdb.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	s.refreshConn = conn
	s.dataVersion, _ = s.readDataVersion(ctx)
	return nil
}

// Ready is closed once the pending charges are loaded into the poll schedule (soon after Open);
// LoadErr then says whether that failed.
func (s *Store) Ready() <-chan struct{} { return s.ready }

// LoadErr is the failure of the background load of the pending charges, or nil.
func (s *Store) LoadErr() error {
	if p := s.loadErr.Load(); p != nil {
		return *p
	}
	return nil
}

// String names the store's profile and file; printing a Store never walks its internals.
func (s *Store) String() string {
	if s.file == "" {
		return "state.Store(memory)"
	}
	return "state.Store(" + s.profile + ", " + s.file + ")"
}

// Profile is the profile the store belongs to ("" in memory).
func (s *Store) Profile() string { return s.profile }

// Persistent reports whether the store keeps its state on disk.
func (s *Store) Persistent() bool { return s.file != "" }

// Path is the database file ("" in memory).
func (s *Store) Path() string { return s.file }

// Imported is what opening the store imported from an older pixdash's journal (nil when nothing).
func (s *Store) Imported() *ImportReport { return s.imported }

// Notice is what opening the store has to tell once, in English (an import of the old journal), or "".
func (s *Store) Notice() string { return s.imported.String() }

// Close commits the writes under way and closes the database.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.w.close()
	if s.checkStop != nil {
		s.checkStop()
	}
	<-s.checked
	s.forgetWindow() // its refund claims end with it
	if s.loading.Load() {
		<-s.ready // the background load uses the readers
	}
	s.stmts.close()
	var errs []error
	errs = append(errs, s.ckpt.close())
	if s.refreshConn != nil {
		errs = append(errs, s.refreshConn.Close())
	}
	if s.rdb != s.wdb {
		errs = append(errs, s.rdb.Close())
	}
	errs = append(errs, s.wdb.Close())
	return errors.Join(errs...)
}

// Version changes whenever the store's content may have changed (a write of this process, or
// one of another process seen by Refresh).
func (s *Store) Version() uint64 { return s.version.Load() }

// Versions are the change counters of the charges and of the events: a list reads again only
// when its own counter moved (a flood of webhooks does not re-read the charges).
func (s *Store) Versions() (charges, events uint64) { return s.chargesVer.Load(), s.eventsVer.Load() }

// SettledVersion counts the changes to events other than their arrival: the verdicts and
// outcomes of their read-backs, which move the money figures (a confirmed refund), and what
// another process wrote. Events that only arrived, a webhook being a hint, change no figure:
// a flood of them leaves it as it was (issue 27: the charges list re-read its day's strip and
// refunds twice a second under a flood).
func (s *Store) SettledVersion() uint64 { return s.settledVer.Load() }

// change says what a write changed.
type change uint32

const (
	changeCharges change = 1 << iota
	// changeEvents: events changed in another way than arriving (a verdict, an outcome), or
	// in a way Refresh cannot tell.
	changeEvents
	// changeArrivals: webhook events arrived, and nothing else about them changed.
	changeArrivals
)

// mark records what the commit under way changes; the writer announces it once committed.
func (s *Store) mark(c change) { s.marks.Or(uint32(c)) }

// Changed returns a channel closed at the next change.
func (s *Store) Changed() <-chan struct{} {
	s.chMu.Lock()
	defer s.chMu.Unlock()
	return s.changed
}

// bump announces what the commits since the last call changed (nothing when nothing was marked).
func (s *Store) bump() {
	m := change(s.marks.Swap(0))
	if m == 0 {
		return
	}
	if m&changeCharges != 0 {
		s.chargesVer.Add(1)
	}
	if m&(changeEvents|changeArrivals) != 0 {
		s.eventsVer.Add(1)
	}
	if m&changeEvents != 0 {
		s.settledVer.Add(1)
	}
	s.version.Add(1)
	s.chMu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.chMu.Unlock()
}

// write runs f in a write transaction: see writer.do.
func (s *Store) write(ctx context.Context, f func(tx *sql.Tx) (after func(), err error)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.w.do(ctx, f)
}

// writeEvents is write for an f that records webhook events and writes no charge.
func (s *Store) writeEvents(ctx context.Context, f func(tx *sql.Tx) (after func(), err error)) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.w.doNoCharges(ctx, f)
}

// Refresh notices what other processes wrote to the profile's database since the last call
// (a cheap check when nothing changed): the version moves on and the pending charges are read
// again. It reports whether anything changed.
func (s *Store) Refresh(ctx context.Context) (bool, error) {
	if s.file == "" || s.closed.Load() {
		return false, nil
	}
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	dv, err := s.readDataVersion(ctx)
	if err != nil {
		return false, err
	}
	if dv == s.dataVersion {
		return false, nil
	}
	s.dataVersion = dv
	var cv int64
	if err := s.refreshConn.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'charges_version'`).Scan(&cv); err != nil {
		return false, classify(err)
	}
	if cv != s.chargesVersion {
		s.chargesVersion = cv
		s.recent.clear()
		if err := s.loadPending(ctx); err != nil {
			return false, err
		}
		s.mark(changeCharges)
	} else {
		s.mark(changeEvents) // events, verdicts, or something no list shows
	}
	if f, ok, err := s.readFee(ctx); err == nil && ok {
		s.feeMu.Lock()
		s.fee = &f
		s.feeMu.Unlock()
	}
	// Another window's refunds (a claim, an outcome) reach the rows' labels (PeekRefund).
	if err := s.LoadRefunds(ctx); err != nil {
		return true, err
	}
	s.bump()
	return true, nil
}

func (s *Store) readDataVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.refreshConn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v)
	return v, classify(err)
}

// MaxPolled is how many charges that are not final the poll schedule holds after a reload: the
// newest, the ones a customer may still pay. A profile whose abandoned checkouts pile up (a
// million pending charges with a 7-day expiry) keeps its memory and its reload bounded; the
// older ones are still confirmed by their webhooks (read back against the service), and
// PendingPage reads them all, a page at a time.
const MaxPolled = 5000

// loadPending reads the newest MaxPolled charges that are not final into the poll schedule.
func (s *Store) loadPending(ctx context.Context) error {
	since := s.polls.stamp()
	cs, err := s.readPending(ctx, s.maxPolled)
	if err != nil {
		s.polls.abort()
		return err
	}
	s.polls.reset(cs, since)
	return nil
}

// pendingStates is the condition of the partial index charges_pending (migration 0010): a
// query must repeat it for SQLite to use the index.
const pendingStates = `state IN ('pending', 'unknown')`

// readPendingSQL reads the newest charges that are not final: the first entries of the pending
// index in the list's order (charges_pending_seq, migration 0013), walked backwards, however
// many charges are pending.
const readPendingSQL = `SELECT ` + chargeColsPlain + ` FROM charges INDEXED BY charges_pending_seq
	WHERE ` + pendingStates + ` ORDER BY seq DESC LIMIT ?`

// readPending reads the newest limit charges that are not final.
func (s *Store) readPending(ctx context.Context, limit int) ([]Charge, error) {
	rows, err := s.rdb.QueryContext(ctx, readPendingSQL, limit)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var cs []Charge
	var r chargeRow
	for rows.Next() {
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, classify(err)
		}
		var c Charge
		if r.charge(&c) == nil && !c.Final() {
			cs = append(cs, c)
		}
	}
	return cs, classify(rows.Err())
}

// PendingPage reads up to limit charges that are not final (pending, or in a status the spec
// does not name), in the order of their ids, after the id after ("" for the first page); next
// is the id to pass for the following page, "" once there is none. A charge that stays
// pending while the pages are read is returned exactly once, whatever else changes meanwhile
// (a charge moving in the list when its creation time is learned included: the pages follow
// the ids, not the list's order); one that turns final before its page is not returned. Each
// page costs the same however many charges the profile holds (the partial index
// charges_pending holds only these).
func (s *Store) PendingPage(ctx context.Context, after string, limit int) (cs []Charge, next string, err error) {
	if limit <= 0 {
		return nil, "", nil
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+chargeColsPlain+` FROM charges INDEXED BY charges_pending
		WHERE `+pendingStates+` AND id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, "", classify(err)
	}
	defer rows.Close()
	n := 0
	var r chargeRow
	for rows.Next() {
		var c Charge
		if err := scanChargeRow(rows, &r, &c); err != nil {
			return nil, "", err
		}
		n, next = n+1, r.id
		if !c.Final() {
			cs = append(cs, c)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, "", classify(err)
	}
	if n < limit {
		next = ""
	}
	return cs, next, nil
}

// ---- charges ----

// chargeSeqShift is how many low bits of charges.seq count charges created in the same millisecond.
const chargeSeqShift = 20

// nextChargeSeq returns a free list position for a charge created at t.
func nextChargeSeq(tx *sql.Tx, t time.Time) (int64, error) {
	ms := max(t.UnixMilli(), 0)
	base := ms << chargeSeqShift
	var top sql.NullInt64
	if err := tx.QueryRow(`SELECT max(seq) FROM charges WHERE seq BETWEEN ? AND ?`, base, base|(1<<chargeSeqShift-1)).Scan(&top); err != nil {
		return 0, err
	}
	if !top.Valid {
		return base, nil
	}
	if top.Int64 == base|(1<<chargeSeqShift-1) {
		return 0, errors.New("state: too many charges in one millisecond")
	}
	return top.Int64 + 1, nil
}

// getChargeTx reads a charge inside a write transaction.
func getChargeTx(tx *sql.Tx, id string) (Charge, bool, error) {
	var r chargeRow
	err := tx.QueryRow(`SELECT `+chargeColsPlain+` FROM charges WHERE id = ?`, id).Scan(r.rowDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return Charge{}, false, nil
	}
	if err != nil {
		return Charge{}, false, err
	}
	var c Charge
	if err := r.charge(&c); err != nil {
		return Charge{}, false, err
	}
	return c, true, nil
}

// putChargeTx merges c into the stored charge with its ID (or adds it) and returns the result
// and whether anything changed.
func (s *Store) putChargeTx(tx *sql.Tx, c Charge) (Charge, bool, error) {
	old, ok, err := getChargeTx(tx, c.ID)
	if err != nil {
		return Charge{}, false, err
	}
	if ok {
		merged := old
		merged.Merge(c)
		merged.dropSpentCode()
		if reflect.DeepEqual(merged, old) {
			return merged, false, nil
		}
		c = merged
	} else {
		if c.Wallet == "" {
			c.Wallet = api.WalletPrincipal
		}
		c.dropSpentCode()
	}
	doc := chargeDoc(&c)
	var paid, fee any
	if c.PaidAt != nil {
		paid = c.PaidAt.UnixMilli()
	}
	if c.Fee != nil {
		fee = int64(*c.Fee)
	}
	st := c.State()
	hay := haystack(&c, st, s.loc)
	if ok {
		seq := "seq"
		var args []any
		if !c.CreatedAt.IsZero() && !c.CreatedAt.Equal(old.CreatedAt) {
			// The list is ordered by creation: a charge first tracked without its creation
			// time (from an event) moves to its place once the service tells it.
			n, err := nextChargeSeq(tx, c.CreatedAt)
			if err != nil {
				return Charge{}, false, err
			}
			seq, args = "?", []any{n}
		}
		created := "created_at" // unknown yet: keep when it was first seen
		if !c.CreatedAt.IsZero() {
			created = strconv.FormatInt(c.CreatedAt.UnixMilli(), 10)
		}
		args = append(args, c.Wallet, string(st), int64(c.Amount), c.ExternalReference, paid, fee, c.UpdatedAt.UnixMilli(), hay, doc, c.ID)
		_, err = tx.Exec(`UPDATE charges SET seq = `+seq+`, wallet = ?, state = ?, amount = ?, external_reference = ?, created_at = `+created+`, paid_at = ?, fee = ?, updated_at = ?, hay = ?, doc = ? WHERE id = ?`, args...)
		return c, true, err
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = s.now()
	}
	seq, err := nextChargeSeq(tx, created)
	if err != nil {
		return Charge{}, false, err
	}
	// Its search number given here (NULL when none is free: labelSearchRows numbers it before
	// the commit) spares the schema's trigger an UPDATE of the new row.
	var fid sql.NullInt64
	if err := tx.QueryRow(searchIDFor, seq).Scan(&fid); err != nil {
		return Charge{}, false, err
	}
	_, err = tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, external_reference, created_at, paid_at, fee, updated_at, hay, doc, fts_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		seq, c.ID, c.Wallet, string(st), int64(c.Amount), c.ExternalReference, created.UnixMilli(), paid, fee, c.UpdatedAt.UnixMilli(), hay, doc, fid)
	return c, true, err
}

// changeCharge runs a read-merge-write of one charge: f gets the stored charge (ok=false when
// untracked) and returns the charge to merge in, or keep=false to write nothing.
func (s *Store) changeCharge(ctx context.Context, id string, f func(c Charge, ok bool) (Charge, bool)) (out Charge, tracked bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		c, ok, err := getChargeTx(tx, id)
		if err != nil {
			return nil, err
		}
		tracked = ok
		next, keep := f(c, ok)
		if !keep {
			out = c
			return nil, nil
		}
		merged, changed, err := s.putChargeTx(tx, next)
		if err != nil {
			return nil, err
		}
		out = merged
		if !changed {
			return nil, nil
		}
		return func() { s.cacheCharge(merged) }, nil
	})
	return out, tracked, err
}

// cacheCharge keeps a committed charge where Peek and the poll schedule find it, and marks the
// charges as changed.
func (s *Store) cacheCharge(c Charge) {
	s.logWrite("charge", "upsert", c.ID, slog.String("wallet", c.Wallet), slog.String("status", string(c.Status)), slog.Int64("amount", int64(c.Amount)))
	s.polls.put(c)
	s.recent.put(c)
	s.mark(changeCharges)
	s.tellCreated(c)
}

// UpsertCharge merges c into the tracked charge with its ID (adding it when unknown) and persists the result.
func (s *Store) UpsertCharge(ctx context.Context, c Charge) (Charge, error) {
	if c.ID == "" {
		return Charge{}, errors.New("state: charge without id")
	}
	out, _, err := s.changeCharge(ctx, c.ID, func(Charge, bool) (Charge, bool) { return c, true })
	return out, err
}

// ApplyTransaction merges a GET /transactions/{id} reply into the tracked charge with that ID;
// it returns false (and changes nothing) when no such charge is tracked.
func (s *Store) ApplyTransaction(ctx context.Context, tx *api.Transaction) (Charge, bool, error) {
	return s.changeCharge(ctx, tx.ID, func(c Charge, ok bool) (Charge, bool) {
		if !ok {
			return c, false
		}
		c.ApplyTransaction(tx)
		return c, true
	})
}

// TrackTransaction merges a GET /transactions/{id} reply, adding the charge (source "lookup",
// in wallet) when it is not tracked yet.
func (s *Store) TrackTransaction(ctx context.Context, tx *api.Transaction, wallet string) (Charge, error) {
	out, _, err := s.changeCharge(ctx, tx.ID, func(c Charge, ok bool) (Charge, bool) {
		if !ok {
			c = Charge{ID: tx.ID, Wallet: NormalizeWallet(wallet), Source: SourceLookup}
		}
		c.ApplyTransaction(tx)
		return c, true
	})
	return out, err
}

// Charge reads the tracked charge with the given ID.
func (s *Store) Charge(ctx context.Context, id string) (Charge, bool, error) {
	var r chargeRow
	err := s.rdb.QueryRowContext(ctx, `SELECT `+chargeColsPlain+` FROM charges WHERE id = ?`, id).Scan(r.rowDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return Charge{}, false, nil
	}
	if err != nil {
		return Charge{}, false, classify(err)
	}
	var c Charge
	if err := r.charge(&c); err != nil {
		return Charge{}, false, err
	}
	s.recent.put(c)
	return c, true, nil
}

// Peek returns the charge with the given ID when it is in memory (pending, or written or read
// lately); it never touches the database, so a view may call it while drawing.
func (s *Store) Peek(id string) (Charge, bool) {
	if c, ok := s.polls.get(id); ok {
		return c, true
	}
	return s.recent.get(id)
}

// ---- submissions ----

// BeginSubmission persists a charge about to be created; call it before the first POST /pix.
// Beginning the same key again replaces its request (the service refuses a different body for a key).
func (s *Store) BeginSubmission(ctx context.Context, sub Submission) error {
	if err := api.ValidateIdempotencyKey(sub.Key); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	sub.Wallet = NormalizeWallet(sub.Wallet)
	if sub.CreatedAt.IsZero() {
		sub.CreatedAt = s.now()
	}
	doc, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		_, err := tx.Exec(`INSERT INTO submissions(key, wallet, created_at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT(key) DO UPDATE SET wallet = excluded.wallet, doc = excluded.doc`, sub.Key, sub.Wallet, sub.CreatedAt.UnixMilli(), doc)
		return func() { s.logWrite("submission", "begin", sub.Key, slog.String("wallet", sub.Wallet)) }, err
	})
}

// CompleteSubmission records the charge the service created (201) for the submission key and tracks it.
func (s *Store) CompleteSubmission(ctx context.Context, key string, c Charge) (Charge, error) {
	if c.ID == "" {
		return Charge{}, errors.New("state: charge without id")
	}
	if c.IdempotencyKey == "" {
		c.IdempotencyKey = key
	}
	var out Charge
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`DELETE FROM submissions WHERE key = ?`, key); err != nil {
			return nil, err
		}
		merged, _, err := s.putChargeTx(tx, c)
		if err != nil {
			return nil, err
		}
		out = merged
		return func() {
			s.logWrite("submission", "complete", key, slog.String("charge", merged.ID))
			s.cacheCharge(merged)
		}, nil
	})
	return out, err
}

// ResolveSubmission completes a pending submission from the reply of GET /transactions/{key}
// (the charge exists: the POST reached the service before the crash or timeout).
func (s *Store) ResolveSubmission(ctx context.Context, key string, tx *api.Transaction) (Charge, error) {
	sub, ok, err := s.Submission(ctx, key)
	if err != nil {
		return Charge{}, err
	}
	var c Charge
	if ok {
		c = ChargeFromTransaction(tx, &sub)
	} else {
		c = ChargeFromTransaction(tx, nil)
		c.IdempotencyKey = key
	}
	return s.CompleteSubmission(ctx, key, c)
}

// AbandonSubmission forgets a submission the service refused (a 4xx: nothing was created).
func (s *Store) AbandonSubmission(ctx context.Context, key string) error {
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		_, err := tx.Exec(`DELETE FROM submissions WHERE key = ?`, key)
		return func() { s.logWrite("submission", "abandon", key) }, err
	})
}

// PendingSubmissions returns the submissions never completed nor abandoned, oldest first; after
// a restart, resolve each with GET /transactions/{Key}.
func (s *Store) PendingSubmissions(ctx context.Context) ([]Submission, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT key, doc FROM submissions ORDER BY created_at, key`)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Submission
	for rows.Next() {
		var key string
		var doc []byte
		if err := rows.Scan(&key, &doc); err != nil {
			return nil, classify(err)
		}
		sub, err := decodeSubmission(doc)
		if err != nil {
			return nil, fmt.Errorf("%w: submission %s: %w", ErrDamaged, key, err)
		}
		out = append(out, sub)
	}
	return out, classify(rows.Err())
}

// Submission returns the pending submission with the given key.
func (s *Store) Submission(ctx context.Context, key string) (Submission, bool, error) {
	var doc []byte
	err := s.rdb.QueryRowContext(ctx, `SELECT doc FROM submissions WHERE key = ?`, key).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return Submission{}, false, nil
	}
	if err != nil {
		return Submission{}, false, classify(err)
	}
	sub, err := decodeSubmission(doc)
	if err != nil {
		return Submission{}, false, fmt.Errorf("%w: submission %s: %w", ErrDamaged, key, err)
	}
	return sub, true, nil
}

// decodeSubmission reads a stored submission keeping its numbers exact (metadata values are
// sent again, byte for byte, under the same Idempotency-Key).
func decodeSubmission(doc []byte) (Submission, error) {
	var sub Submission
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	err := d.Decode(&sub)
	return sub, err
}

// ---- fee and lookups ----

// LearnFee records the fee the service revealed; a zero LearnedAt means now. The newest fee wins.
func (s *Store) LearnFee(ctx context.Context, f LearnedFee) error {
	if f.LearnedAt.IsZero() {
		f.LearnedAt = s.now()
	}
	doc, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		var cur []byte
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'fee'`).Scan(&cur)
		if err == nil {
			var old LearnedFee
			if json.Unmarshal(cur, &old) == nil && f.LearnedAt.Before(old.LearnedAt) {
				return nil, nil
			}
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES ('fee', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, string(doc)); err != nil {
			return nil, err
		}
		return func() {
			s.logWrite("fee", "learn", "fee")
			s.feeMu.Lock()
			s.fee = &f
			s.feeMu.Unlock()
		}, nil
	})
}

func (s *Store) readFee(ctx context.Context) (LearnedFee, bool, error) {
	var doc []byte
	err := s.rdb.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'fee'`).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return LearnedFee{}, false, nil
	}
	if err != nil {
		return LearnedFee{}, false, classify(err)
	}
	var f LearnedFee
	if err := json.Unmarshal(doc, &f); err != nil {
		return LearnedFee{}, false, fmt.Errorf("%w: learned fee: %w", ErrDamaged, err)
	}
	return f, true, nil
}

// LearnedFee returns the fee learned from the service, if any (from memory).
func (s *Store) LearnedFee() (LearnedFee, bool) {
	s.feeMu.Lock()
	defer s.feeMu.Unlock()
	if s.fee == nil {
		return LearnedFee{}, false
	}
	return *s.fee, true
}

// MaxRecentLookups is how many inspector lookups are remembered.
const MaxRecentLookups = 20

// AddLookup remembers an inspector query (the same query and wallet moves to the top); a zero At means now.
func (s *Store) AddLookup(ctx context.Context, l Lookup) error {
	if l.Query == "" {
		return nil
	}
	if l.At.IsZero() {
		l.At = s.now()
	}
	l.Wallet = NormalizeWallet(l.Wallet)
	doc, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`DELETE FROM lookups WHERE json_extract(doc, '$.query') = ? AND coalesce(json_extract(doc, '$.wallet'), '') = ?`, l.Query, l.Wallet); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO lookups(at, doc) VALUES (?, ?)`, l.At.UnixMilli(), doc); err != nil {
			return nil, err
		}
		_, err := tx.Exec(`DELETE FROM lookups WHERE seq NOT IN (SELECT seq FROM lookups ORDER BY at DESC, seq DESC LIMIT ?)`, MaxRecentLookups)
		return nil, err
	})
}

// RecentLookups returns the last MaxRecentLookups inspector queries, newest first.
func (s *Store) RecentLookups(ctx context.Context) ([]Lookup, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT doc FROM lookups ORDER BY at DESC, seq DESC LIMIT ?`, MaxRecentLookups)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Lookup
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return nil, classify(err)
		}
		var l Lookup
		if json.Unmarshal(doc, &l) == nil {
			out = append(out, l)
		}
	}
	return out, classify(rows.Err())
}

// ---- small in-memory cache ----

// recentCache keeps charges written or read lately, for Peek.
type recentCache struct {
	mu sync.Mutex
	m  map[string]Charge
}

const recentCacheSize = 2048

func (r *recentCache) init() { r.m = make(map[string]Charge) }

func (r *recentCache) put(c Charge) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= recentCacheSize {
		clear(r.m)
	}
	r.m[c.ID] = c
}

func (r *recentCache) get(id string) (Charge, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.m[id]
	return c, ok
}

func (r *recentCache) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.m)
}

// unixMilli turns stored unix milliseconds back into a time.
func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
