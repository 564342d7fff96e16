package state

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"pixdash/api"
)

// ErrClosed is returned by a write to a closed Store.
var ErrClosed = errors.New("state store is closed")

// DefaultCompactEvery is how many journal records trigger a snapshot (at least; see Store.Compact).
const DefaultCompactEvery = 20000

// Option configures a Store.
type Option func(*options)

type options struct {
	now          func() time.Time
	compactEvery int
	poll         PollPolicy
}

// WithClock sets the clock used to timestamp records (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithCompactEvery sets how many journal records trigger a snapshot (default DefaultCompactEvery).
func WithCompactEvery(n int) Option { return func(o *options) { o.compactEvery = n } }

// WithPollPolicy sets the polling intervals of pending charges (default DefaultPollPolicy).
func WithPollPolicy(p PollPolicy) Option { return func(o *options) { o.poll = p } }

// Store is one profile's dashboard state (tracked charges, events, pending submissions, learned
// fee, recent lookups) and its persistence. It is safe for concurrent use. Every write method
// returns only once the change is on disk (fsynced): a nil error is the acknowledgement. Writes
// from several goroutines are committed together (one fsync per batch).
type Store struct {
	profile    string
	persistent bool
	now        func() time.Time
	every      int
	poll       PollPolicy

	journalPath, snapshotPath, lockPath, dir string

	mu      sync.Mutex // guards m's maps, queue, closed and problem
	m       *memState
	queue   *batch // records applied in memory and not yet taken by the writer
	closed  bool
	problem error // damage found by a background write, reported by the next Refresh

	ioMu       sync.Mutex // guards the fields below and all file access
	lock       *os.File
	offset     int64 // journal bytes applied
	lines      int   // journal lines applied
	records    int   // journal records after the header
	gen        uint64
	journalIno uint64
	snapStamp  fileStamp

	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

// batch is records waiting to be written together; done closes once they are (err says how).
type batch struct {
	recs    []record
	data    []byte
	compact bool
	done    chan struct{}
	err     error
}

// fileStamp identifies a version of a file cheaply.
type fileStamp struct {
	ino   uint64
	size  int64
	mtime int64
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{ino: inode(fi), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

func newStore(profile string, opts []Option) *Store {
	o := options{now: time.Now, compactEvery: DefaultCompactEvery, poll: DefaultPollPolicy()}
	for _, f := range opts {
		f(&o)
	}
	if o.compactEvery < 1 {
		o.compactEvery = DefaultCompactEvery
	}
	return &Store{profile: profile, now: o.now, every: o.compactEvery, poll: o.poll, m: newMemState(o.poll)}
}

// OpenMemory returns a store that keeps nothing on disk (demo mode).
func OpenMemory(opts ...Option) *Store { return newStore("", opts) }

// Open loads the profile's state from dir (normally $XDG_STATE_HOME/pixdash), creating dir when
// needed. Files: <name>.journal (append-only records), <name>.snapshot (compacted state) and
// <name>.lock, where name is ProfileFileName(profile). A record torn by a crash is dropped. When
// a file is damaged in the middle, it is moved aside to <file>.corrupt-<time> and Open returns
// the store holding the records before the damage (which are saved again) together with a
// *CorruptError; any other error means no store.
func Open(dir, profile string, opts ...Option) (*Store, error) {
	if dir == "" {
		return nil, errors.New("state: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	s := newStore(profile, opts)
	s.persistent = true
	name := ProfileFileName(profile)
	s.dir = dir
	s.journalPath = filepath.Join(dir, name+".journal")
	s.snapshotPath = filepath.Join(dir, name+".snapshot")
	s.lockPath = filepath.Join(dir, name+".lock")
	lf, err := os.OpenFile(s.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	s.lock = lf
	s.ioMu.Lock()
	var ce *CorruptError
	err = s.locked(func() error {
		var err error
		ce, err = s.load()
		return err
	})
	s.ioMu.Unlock()
	if err != nil {
		_ = lf.Close()
		return nil, fmt.Errorf("state: %w", err)
	}
	s.wake = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go s.writer()
	if ce != nil {
		return s, ce
	}
	return s, nil
}

// Profile returns the profile name the store was opened for.
func (s *Store) Profile() string { return s.profile }

// Persistent reports whether the store writes to disk (false for OpenMemory).
func (s *Store) Persistent() bool { return s.persistent }

// Path returns the journal's path ("" for a memory store).
func (s *Store) Path() string { return s.journalPath }

// Charges returns the tracked charges (read, filter and poll scheduling; change them through the Store).
func (s *Store) Charges() *Charges { return s.m.charges }

// Events returns the event log (read and filter; change it through the Store).
func (s *Store) Events() *EventLog { return s.m.events }

// Charge returns the tracked charge with the given ID.
func (s *Store) Charge(id string) (Charge, bool) { return s.m.charges.Get(id) }

// Close writes what is queued and releases the files; later writes return ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if !s.persistent {
		return nil
	}
	close(s.stop)
	<-s.stopped
	return s.lock.Close()
}

// commit queues a record built under s.mu (the caller holds it and has applied the change in
// memory) and returns the batch to wait on, or nil for a memory store.
func (s *Store) commitLocked(t string, at time.Time, v any) (*batch, error) {
	if !s.persistent {
		return nil, nil
	}
	r, err := newRecord(t, at, v)
	if err != nil {
		return nil, err
	}
	line, err := encodeLine(&r)
	if err != nil {
		return nil, err
	}
	return s.queueLocked(encodedRecord{rec: r, line: line}), nil
}

// queueLocked adds an encoded record to the batch being filled (the caller holds s.mu) and returns that batch.
func (s *Store) queueLocked(r encodedRecord) *batch {
	if s.queue == nil {
		s.queue = &batch{done: make(chan struct{})}
	}
	s.queue.recs = append(s.queue.recs, r.rec)
	s.queue.data = append(s.queue.data, r.line...)
	return s.queue
}

// reserveLocked makes room for n more records of size bytes in the batch being filled (the
// caller holds s.mu) and returns that batch.
func (s *Store) reserveLocked(n, size int) *batch {
	if s.queue == nil {
		s.queue = &batch{done: make(chan struct{})}
	}
	s.queue.recs = slices.Grow(s.queue.recs, n)
	s.queue.data = slices.Grow(s.queue.data, size)
	return s.queue
}

// wait signals the writer and blocks until b is on disk.
func (s *Store) wait(b *batch) error {
	if b == nil {
		return nil
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-b.done
	return b.err
}

// write runs change under s.mu and waits for the record it queued.
func (s *Store) write(change func() (*batch, error)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	b, err := change()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.wait(b)
}

// UpsertCharge merges c into the tracked charge with its ID (adding it when unknown) and persists the result.
func (s *Store) UpsertCharge(c Charge) (Charge, error) {
	if c.ID == "" {
		return Charge{}, errors.New("state: charge without id")
	}
	var out Charge
	err := s.write(func() (*batch, error) {
		merged, changed := s.m.putCharge(c)
		out = merged
		if !changed {
			return nil, nil
		}
		return s.commitLocked(recCharge, s.now(), merged)
	})
	return out, err
}

// ApplyTransaction merges a GET /transactions/{id} reply into the tracked charge with that ID;
// it returns false (and changes nothing) when no such charge is tracked.
func (s *Store) ApplyTransaction(tx *api.Transaction) (Charge, bool, error) {
	var (
		out     Charge
		tracked bool
	)
	err := s.write(func() (*batch, error) {
		c, ok := s.m.charges.Get(tx.ID)
		if !ok {
			return nil, nil
		}
		tracked = true
		c.ApplyTransaction(tx)
		merged, changed := s.m.putCharge(c)
		out = merged
		if !changed {
			return nil, nil
		}
		return s.commitLocked(recCharge, s.now(), merged)
	})
	return out, tracked, err
}

// TrackTransaction merges a GET /transactions/{id} reply, adding the charge (source "lookup",
// in wallet) when it is not tracked yet.
func (s *Store) TrackTransaction(tx *api.Transaction, wallet string) (Charge, error) {
	var out Charge
	err := s.write(func() (*batch, error) {
		c, ok := s.m.charges.Get(tx.ID)
		if !ok {
			c = Charge{ID: tx.ID, Wallet: NormalizeWallet(wallet), Source: SourceLookup}
		}
		c.ApplyTransaction(tx)
		merged, changed := s.m.putCharge(c)
		out = merged
		if !changed {
			return nil, nil
		}
		return s.commitLocked(recCharge, s.now(), merged)
	})
	return out, err
}

// ApplyEvent records a verified webhook event; it reports whether its eventId was new. A
// duplicate is counted (see EventLog.Seen). No charge changes: a webhook is a hint, and
// ConfirmEvent applies what the service answers for it. The store keeps e: do not modify it
// afterwards.
// e.Raw, when set, must be the payload as DecodeEvent validated it: it is stored as is.
func (s *Store) ApplyEvent(e *api.Event) (first bool, err error) {
	fs, err := s.ApplyEvents([]*api.Event{e})
	if len(fs) == 1 {
		first = fs[0]
	}
	return first, err
}

// ApplyEvents records a batch of verified webhook events as ApplyEvent does, under one lock and
// with one commit (one fsync) for the whole batch; first[i] reports whether es[i]'s eventId was
// new (a later copy of an id earlier in the batch is a duplicate). A nil or id-less event
// refuses the whole batch before anything is applied.
func (s *Store) ApplyEvents(es []*api.Event) (first []bool, err error) {
	for _, e := range es {
		if e == nil || e.EventID == "" {
			return nil, fmt.Errorf("state: %w", api.ErrEventInvalid)
		}
	}
	if len(es) == 0 {
		return nil, nil
	}
	first = make([]bool, len(es))
	// The receipt time is read, and the first-copy records encoded, before taking the lock:
	// records are order-tolerant, so a concurrent writer's earlier stamp is harmless.
	now := s.now()
	var (
		recs []encodedRecord
		size int // bytes of the first-copy lines
	)
	if s.persistent {
		recs = make([]encodedRecord, len(es))
		var data []byte // the data of every record, one after the other
		for i, e := range es {
			p, err := eventPayload(e)
			if err != nil {
				return nil, err
			}
			if data == nil {
				data = make([]byte, 0, len(es)*(len(p)+16))
			}
			start := len(data)
			data = appendEventData(data, p, 1)
			if recs[i], err = encodeRecord(recHint, now, data[start:len(data):len(data)]); err != nil {
				return nil, err
			}
			size += len(recs[i].line)
		}
	}
	err = s.write(func() (*batch, error) {
		var b *batch
		if s.persistent {
			// Room for the whole batch at once, so that queueing does not copy it again and again.
			b = s.reserveLocked(len(es), size)
		}
		for i, e := range es {
			first[i] = s.m.applyEvent(e, now, 1, false)
			if !s.persistent {
				continue
			}
			r := recs[i]
			if !first[i] {
				var err error
				if r, err = encodeRecord(recEventDup, now, appendDupData(nil, e.EventID)); err != nil {
					return nil, err
				}
			}
			b = s.queueLocked(r)
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return first, nil
}

// BeginSubmission persists a charge about to be created; call it before the first POST /pix.
// Beginning the same key again replaces its request (the service refuses a different body for a key).
func (s *Store) BeginSubmission(sub Submission) error {
	if err := api.ValidateIdempotencyKey(sub.Key); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	sub.Wallet = NormalizeWallet(sub.Wallet)
	return s.write(func() (*batch, error) {
		if sub.CreatedAt.IsZero() {
			sub.CreatedAt = s.now()
		}
		if _, done := s.m.finished[sub.Key]; done {
			return nil, fmt.Errorf("state: submission %s already finished", sub.Key)
		}
		s.m.beginSub(sub)
		return s.commitLocked(recSubBegin, sub.CreatedAt, sub)
	})
}

// CompleteSubmission records the charge the service created (201) for the submission key and tracks it.
func (s *Store) CompleteSubmission(key string, c Charge) (Charge, error) {
	if c.ID == "" {
		return Charge{}, errors.New("state: charge without id")
	}
	if c.IdempotencyKey == "" {
		c.IdempotencyKey = key
	}
	var out Charge
	err := s.write(func() (*batch, error) {
		s.m.finishSub(key)
		out, _ = s.m.putCharge(c)
		return s.commitLocked(recSubDone, s.now(), subDoneData{Key: key, Charge: &out})
	})
	return out, err
}

// ResolveSubmission completes a pending submission from the reply of GET /transactions/{key}
// (the charge exists: the POST reached the service before the crash or timeout).
func (s *Store) ResolveSubmission(key string, tx *api.Transaction) (Charge, error) {
	s.mu.Lock()
	sub, ok := s.m.subs[key]
	s.mu.Unlock()
	var c Charge
	if ok {
		c = ChargeFromTransaction(tx, &sub)
	} else {
		c = ChargeFromTransaction(tx, nil)
		c.IdempotencyKey = key
	}
	return s.CompleteSubmission(key, c)
}

// AbandonSubmission forgets a submission the service refused (a 4xx: nothing was created).
func (s *Store) AbandonSubmission(key string) error {
	return s.write(func() (*batch, error) {
		if _, ok := s.m.subs[key]; !ok {
			return nil, nil
		}
		s.m.finishSub(key)
		return s.commitLocked(recSubAbandon, s.now(), subDoneData{Key: key})
	})
}

// PendingSubmissions returns the submissions never completed nor abandoned, oldest first; after
// a restart, resolve each with GET /transactions/{Key}.
func (s *Store) PendingSubmissions() []Submission {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Submission, 0, len(s.m.subs))
	for _, sub := range s.m.subs {
		out = append(out, sub)
	}
	slices.SortFunc(out, func(a, b Submission) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out
}

// Submission returns the pending submission with the given key.
func (s *Store) Submission(key string) (Submission, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.m.subs[key]
	return sub, ok
}

// LearnFee records the fee the service revealed; a zero LearnedAt means now. The newest fee wins.
func (s *Store) LearnFee(f LearnedFee) error {
	return s.write(func() (*batch, error) {
		if f.LearnedAt.IsZero() {
			f.LearnedAt = s.now()
		}
		s.m.setFee(f)
		return s.commitLocked(recFee, f.LearnedAt, f)
	})
}

// SetEventVerdict records what the service answered when the event eventID was read back
// against it. An unknown eventID is ErrUnknownEvent.
func (s *Store) SetEventVerdict(eventID string, v Verdict, reason string) error {
	return s.write(func() (*batch, error) {
		if !s.m.events.setVerdict(eventID, v, reason) {
			return nil, fmt.Errorf("%w: %q", ErrUnknownEvent, eventID)
		}
		return s.commitLocked(recVerdict, s.now(), verdictData{ID: eventID, V: v, R: reason})
	})
}

// ErrUnknownEvent reports an eventId the store never received.
var ErrUnknownEvent = errors.New("no such event")

// LearnedFee returns the fee learned from the service, if any.
func (s *Store) LearnedFee() (LearnedFee, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m.fee == nil {
		return LearnedFee{}, false
	}
	return *s.m.fee, true
}

// AddLookup remembers an inspector query (the same query and wallet moves to the top); a zero At means now.
func (s *Store) AddLookup(l Lookup) error {
	if l.Query == "" {
		return nil
	}
	return s.write(func() (*batch, error) {
		if l.At.IsZero() {
			l.At = s.now()
		}
		l.Wallet = NormalizeWallet(l.Wallet)
		s.m.addLookup(l)
		return s.commitLocked(recLookup, l.At, l)
	})
}

// RecentLookups returns the last MaxRecentLookups inspector queries, newest first.
func (s *Store) RecentLookups() []Lookup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.m.lookups)
}

// Refresh applies the records other instances appended for this profile since the last read
// (when a write runs, it does this first anyway); it is cheap when nothing changed (two stat
// calls). It reports whether anything was applied.
// A *CorruptError means damage was found (and handled as in Open) since the last call.
func (s *Store) Refresh() (changed bool, err error) {
	if !s.persistent {
		return false, nil
	}
	s.mu.Lock()
	closed, problem := s.closed, s.problem
	s.problem = nil
	s.mu.Unlock()
	if closed {
		return false, ErrClosed
	}
	s.ioMu.Lock()
	defer s.ioMu.Unlock()
	if problem == nil && stampOf(s.snapshotPath) == s.snapStamp {
		fi, serr := os.Stat(s.journalPath)
		switch {
		case serr == nil && fi.Size() == s.offset && inode(fi) == s.journalIno:
			return false, nil
		case errors.Is(serr, os.ErrNotExist) && s.offset == 0:
			return false, nil
		}
	}
	s.mu.Lock()
	before := s.m.applied
	s.mu.Unlock()
	var ce *CorruptError
	err = s.locked(func() error {
		var err error
		ce, err = s.catchUp()
		return err
	})
	s.mu.Lock()
	changed = s.m.applied != before
	s.mu.Unlock()
	switch {
	case err != nil:
		return changed, fmt.Errorf("state: %w", err)
	case ce != nil:
		return changed, ce
	case problem != nil:
		return changed, problem
	}
	return changed, nil
}

// Compact writes a snapshot of the whole state and empties the journal. It is done automatically
// once the journal holds WithCompactEvery records, or as many as the snapshot would hold
// (the newest MaxSnapshotEvents events plus the charges) when that is more.
func (s *Store) Compact() error {
	if !s.persistent {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	if s.queue == nil {
		s.queue = &batch{done: make(chan struct{})}
	}
	s.queue.compact = true
	b := s.queue
	s.mu.Unlock()
	return s.wait(b)
}

// locked runs f holding the profile's file lock (the caller holds ioMu).
func (s *Store) locked(f func() error) error {
	if err := lockFile(s.lock); err != nil {
		return fmt.Errorf("lock %s: %w", s.lockPath, err)
	}
	err := f()
	if uerr := unlockFile(s.lock); err == nil && uerr != nil {
		err = uerr
	}
	return err
}

// writer writes queued batches until Close.
func (s *Store) writer() {
	defer close(s.stopped)
	for {
		select {
		case <-s.wake:
			s.flush()
		case <-s.stop:
			s.flush()
			return
		}
	}
}

// finish acknowledges a batch.
func finish(b *batch, err error) {
	b.err = err
	close(b.done)
}

// flush writes every queued batch under the file lock, after applying other instances' records.
// Each batch is acknowledged as soon as it is fsynced (a Compact request once the snapshot is in place).
func (s *Store) flush() {
	s.ioMu.Lock()
	defer s.ioMu.Unlock()
	s.mu.Lock()
	empty := s.queue == nil
	s.mu.Unlock()
	if empty {
		return
	}
	err := s.locked(func() error {
		ce, err := s.catchUp()
		if ce != nil {
			s.setProblem(ce)
		}
		if err != nil {
			return err
		}
		for {
			s.mu.Lock()
			b := s.queue
			s.queue = nil
			s.mu.Unlock()
			if b == nil {
				return nil
			}
			if err := s.appendBatch(b); err != nil {
				finish(b, err)
				return err
			}
			if !b.compact && s.records < s.compactAt() {
				finish(b, nil)
				continue
			}
			// Compact. Records that arrived meanwhile are written first, holding s.mu so that
			// no more arrive: the snapshot must hold exactly what the journal holds.
			done := []*batch{b}
			s.mu.Lock()
			if q := s.queue; q != nil {
				s.queue = nil
				if err := s.appendBatch(q); err != nil {
					s.mu.Unlock()
					finish(b, nil)
					finish(q, err)
					return err
				}
				done = append(done, q)
			}
			cerr := s.compactLocked() // releases s.mu
			for _, w := range done {
				if w.compact {
					finish(w, cerr)
				} else {
					finish(w, nil)
				}
			}
			if cerr != nil && !b.compact {
				s.setProblem(cerr)
			}
		}
	})
	if err != nil {
		err = fmt.Errorf("state: %w", err)
		// Batches never written (the lock or the catch-up failed) are refused too.
		s.mu.Lock()
		b := s.queue
		s.queue = nil
		s.mu.Unlock()
		if b != nil {
			finish(b, err)
		}
	}
}

// compactAt is how many journal records trigger a snapshot: the configured count, or as many
// records as the snapshot would hold when that is more, so that the records a compaction
// rewrites are paid for by as many appended since the last one (a large state is not rewritten
// every few thousand records).
func (s *Store) compactAt() int {
	size := min(s.m.events.Total(), MaxSnapshotEvents) + s.m.charges.Total()
	return max(s.every, size)
}

func (s *Store) setProblem(err error) {
	s.mu.Lock()
	s.problem = err
	s.mu.Unlock()
}

// headerLine returns the first line of a journal of generation gen.
func (s *Store) headerLine(gen uint64) ([]byte, error) {
	r, err := newRecord(recHead, s.now(), genData{Gen: gen})
	if err != nil {
		return nil, err
	}
	return encodeLine(&r)
}

// appendBatch appends b to the journal (with a header when it is empty) and fsyncs it.
func (s *Store) appendBatch(b *batch) error {
	if len(b.data) == 0 {
		return nil
	}
	f, err := os.OpenFile(s.journalPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	data, lines := b.data, len(b.recs)
	fresh := fi.Size() == 0
	if fresh {
		hdr, err := s.headerLine(s.gen)
		if err != nil {
			return err
		}
		data = append(hdr, data...)
		lines++
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Truncate(fi.Size()) // leave the journal as it was acknowledged
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if fresh {
		if err := syncDir(s.dir); err != nil {
			return err
		}
	}
	s.offset = fi.Size() + int64(len(data))
	s.lines += lines
	s.records += len(b.recs)
	s.journalIno = inode(fi)
	return nil
}

// compactLocked snapshots the state (the caller holds s.mu, which this releases) and empties the journal.
func (s *Store) compactLocked() error {
	gen := s.gen + 1
	data, err := s.m.snapshot(gen, s.now())
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.installSnapshot(data, gen)
}

// installSnapshot replaces the snapshot file atomically, then starts an empty journal of generation gen.
// A crash between the two leaves a journal of an older generation, which the next load ignores.
func (s *Store) installSnapshot(data []byte, gen uint64) error {
	if _, err := replaceFile(s.dir, s.snapshotPath, data); err != nil {
		return err
	}
	s.snapStamp = stampOf(s.snapshotPath)
	return s.resetJournal(gen)
}

// resetJournal replaces the journal with an empty one of generation gen (a new file renamed
// into place, so a copy kept aside by moveAside is left intact).
func (s *Store) resetJournal(gen uint64) error {
	hdr, err := s.headerLine(gen)
	if err != nil {
		return err
	}
	fi, err := replaceFile(s.dir, s.journalPath, hdr)
	if err != nil {
		return err
	}
	s.gen, s.offset, s.lines, s.records, s.journalIno = gen, int64(len(hdr)), 1, 0, inode(fi)
	return nil
}

func headGen(r *record) uint64 {
	var g genData
	_ = json.Unmarshal(r.D, &g)
	return g.Gen
}

// catchUp applies what other instances appended since the last read (the caller holds the file
// lock), truncating a torn last record; it reloads everything when the files were replaced.
func (s *Store) catchUp() (*CorruptError, error) {
	if stampOf(s.snapshotPath) != s.snapStamp {
		return s.load()
	}
	f, err := os.OpenFile(s.journalPath, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		if s.offset == 0 {
			return nil, nil
		}
		return s.load()
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size < s.offset || (s.offset > 0 && inode(fi) != s.journalIno) {
		return s.load()
	}
	if size == s.offset {
		return nil, nil
	}
	buf := make([]byte, size-s.offset)
	if _, err := f.ReadAt(buf, s.offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	p := parseRecords(buf)
	if p.badLine != 0 && !p.tail {
		return s.load() // finds the damage again, moves the file aside and reports it
	}
	recs := p.recs
	if s.offset == 0 && len(recs) > 0 && recs[0].T == recHead {
		if headGen(&recs[0]) != s.gen {
			return s.load()
		}
		recs = recs[1:]
	}
	s.mu.Lock()
	_, _ = s.m.applyAll(recs, false) // a record that does not decode is skipped
	s.mu.Unlock()
	s.offset += p.good
	s.lines += p.lines
	s.records += len(recs)
	s.journalIno = inode(fi)
	if p.badLine != 0 {
		// A torn last record: never acknowledged, and nobody is writing (we hold the lock).
		if err := f.Truncate(s.offset); err != nil {
			return nil, err
		}
		if err := f.Sync(); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// load rebuilds the state from the snapshot and the journal (the caller holds the file lock),
// then swaps it in, re-applying the records still queued. Damage in the middle of a file moves
// that file aside and saves the good prefix as a new snapshot.
func (s *Store) load() (*CorruptError, error) {
	now := s.now()
	ns := newMemState(s.poll)
	var snapCE, journalCE *CorruptError

	snapGen := uint64(0)
	buf, err := os.ReadFile(s.snapshotPath)
	switch {
	case err == nil:
		p := parseRecords(buf)
		recs, badLine, bad := p.recs, p.badLine, p.badErr
		if len(recs) > 0 && recs[0].T == recSnap {
			snapGen = headGen(&recs[0])
			recs = recs[1:]
		} else if bad == nil {
			badLine, bad = 1, errors.New("no snapshot header")
		}
		if n := len(recs); n > 0 && recs[n-1].T == recEnd {
			var e endData
			_ = json.Unmarshal(recs[n-1].D, &e)
			recs = recs[:n-1]
			if bad == nil && e.N != len(recs) {
				badLine, bad = n+1, fmt.Errorf("snapshot holds %d records, its end says %d", len(recs), e.N)
			}
		} else if bad == nil {
			badLine, bad = p.lines+1, errors.New("snapshot ends early")
		}
		_, _ = ns.applyAll(recs, true)
		if bad != nil {
			moved, err := moveAside(s.snapshotPath, now)
			if err != nil {
				return nil, err
			}
			snapCE = &CorruptError{Path: s.snapshotPath, MovedTo: moved, Line: badLine, Err: bad}
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}

	buf, err = os.ReadFile(s.journalPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	p := parseRecords(buf)
	recs := p.recs
	jGen := snapGen
	if len(recs) > 0 && recs[0].T == recHead {
		jGen = headGen(&recs[0])
		recs = recs[1:]
	} else if len(recs) > 0 {
		jGen = 0
	}
	if p.badLine != 0 && !p.tail {
		journalCE = &CorruptError{Path: s.journalPath, Line: p.badLine, Err: p.badErr}
	}
	stale := jGen < snapGen // already folded into the snapshot (a crash during compaction)
	if !stale {
		_, _ = ns.applyAll(recs, false)
	}
	gen := max(snapGen, jGen)
	switch {
	case snapCE != nil || journalCE != nil:
		gen++
		data, err := ns.snapshot(gen, now)
		if err != nil {
			return nil, err
		}
		if journalCE != nil {
			moved, err := moveAside(s.journalPath, now)
			if err != nil {
				return nil, err
			}
			journalCE.MovedTo = moved
		}
		if err := s.installSnapshot(data, gen); err != nil {
			return nil, err
		}
	case stale:
		if err := s.resetJournal(snapGen); err != nil {
			return nil, err
		}
	default:
		if p.badLine != 0 {
			// A torn last record (a crash mid-write): it was never acknowledged.
			if err := truncateFile(s.journalPath, p.good); err != nil {
				return nil, err
			}
		}
		s.gen, s.offset, s.lines, s.records = gen, p.good, p.lines, len(recs)
		s.journalIno = 0
		if fi, err := os.Stat(s.journalPath); err == nil {
			s.journalIno = inode(fi)
		}
	}
	s.snapStamp = stampOf(s.snapshotPath)

	s.mu.Lock()
	if s.queue != nil {
		_, _ = ns.applyAll(s.queue.recs, false)
	}
	s.m.charges.adopt(ns.charges)
	s.m.events.adopt(ns.events)
	s.m.subs, s.m.finished, s.m.fee, s.m.lookups = ns.subs, ns.finished, ns.fee, ns.lookups
	s.m.applied++
	s.mu.Unlock()
	if snapCE != nil {
		return snapCE, nil
	}
	return journalCE, nil
}

func truncateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// replaceFile atomically replaces path (in dir) with data: a temp file written and fsynced,
// renamed into place, then the directory fsynced. It returns the new file's info.
func replaceFile(dir, path string, data []byte) (os.FileInfo, error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	var fi os.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	return fi, syncDir(dir)
}
