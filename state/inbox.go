package state

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"pixdash/api"
)

// Inbox errors.
var (
	// ErrInboxFull is returned by Accept while the unapplied entries exceed the inbox's limit.
	ErrInboxFull = fmt.Errorf("webhook inbox: %w", api.ErrSinkFull)
	// ErrInboxClosed is returned by Accept after Close.
	ErrInboxClosed = errors.New("webhook inbox is closed")
	// ErrInboxBusy is returned by OpenInbox when another process receives the profile's webhooks.
	ErrInboxBusy = errors.New("another pixdash is receiving this profile's webhooks (its inbox is locked)")
)

// Inbox limits: unapplied bytes before Accept refuses (the sender retries later), and how much
// Next reads at a time.
const (
	DefaultInboxLimit       = 256 << 20
	DefaultMemoryInboxLimit = 32 << 20
	inboxReadChunk          = 4 << 20
)

// Inbox is the durable queue between the webhook receiver and the Store (an api.EventSink).
// The receiver appends each verified first delivery with Accept, which returns once the payload
// is written to the file, so an acknowledged event survives pixdash being killed; the file is
// fsynced in the background right behind the writes (Sync waits for it). Concurrent Accepts are
// written together, one write per batch. The dashboard reads the entries with Next, applies
// them to the Store and acknowledges them with Done; entries not yet acknowledged are read
// again after a restart (the Store drops events it already holds, by eventId).
//
// File format, <name>.inbox: one entry per line, the CRC-32C of the payload in 8 hex digits, a
// space, the payload (a JSON document; newlines, which JSON allows only as whitespace, are
// stored as spaces). A torn last line is dropped on open; a damaged line followed by others is
// dropped and the file is kept aside as <name>.inbox.corrupt-<UTC time>.
//
// Accept is safe for concurrent use; Next and Done are for one consumer.
type Inbox struct {
	path  string
	f     *os.File // nil in memory
	limit int64

	mu       sync.Mutex
	cond     sync.Cond   // synced, writing, closed or err changed
	cur      *inboxWrite // entries appended and not yet taken by the writer
	spare    []byte      // the previous write's buffer, reused
	mem      []byte      // the file of a memory inbox
	appended uint64      // entries appended
	written  uint64      // entries written to the file
	synced   uint64      // entries fsynced
	writing  bool        // a writer is between taking buf and writing it
	size     int64       // bytes in the file
	readOff  int64       // bytes applied (acknowledged with Done)
	replay   int64       // bytes an earlier run wrote (read again after a restart)
	err      error       // sticky write or fsync error
	closed   bool

	writes atomic.Uint64 // write calls, for InboxStats

	ready   chan struct{}
	wake    chan struct{} // the writer has something to write
	syncReq chan struct{}
	stop    chan struct{}
	stopped chan struct{} // the writer and the syncer are done
}

// inboxWrite is entries written together; done closes once they are (err says how).
type inboxWrite struct {
	data []byte
	n    uint64 // in.appended after its last entry
	done chan struct{}
	err  error
}

// MemoryInbox returns an inbox that keeps its entries in memory (demo mode), refusing more than
// DefaultMemoryInboxLimit unapplied bytes.
func MemoryInbox() *Inbox {
	return newInbox("", nil, DefaultMemoryInboxLimit)
}

// OpenInbox opens the profile's inbox, <dir>/<name>.inbox where name is ProfileFileName(profile),
// creating it when needed, and locks it for this process (ErrInboxBusy when another holds it).
// Entries left unapplied by an earlier run are ready to be read. When the file is damaged in the
// middle, its good entries are kept, the file is kept aside and OpenInbox returns the inbox
// together with a *CorruptError.
func OpenInbox(dir, profile string) (*Inbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	path := filepath.Join(dir, ProfileFileName(profile)+".inbox")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	if err := tryLockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, ErrInboxBusy
		}
		return nil, fmt.Errorf("inbox: lock %s: %w", path, err)
	}
	size, ce, err := recoverInbox(f, path)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("inbox: %w", err)
	}
	in := newInbox(path, f, DefaultInboxLimit)
	in.size, in.replay = size, size
	if size > 0 {
		in.ready <- struct{}{}
	}
	in.cur = &inboxWrite{done: make(chan struct{})}
	var workers sync.WaitGroup
	workers.Go(in.writer)
	workers.Go(in.syncer)
	go func() { workers.Wait(); close(in.stopped) }()
	if ce != nil {
		return in, ce
	}
	return in, nil
}

func newInbox(path string, f *os.File, limit int64) *Inbox {
	in := &Inbox{
		path:    path,
		f:       f,
		limit:   limit,
		ready:   make(chan struct{}, 1),
		wake:    make(chan struct{}, 1),
		syncReq: make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	in.cond.L = &in.mu
	return in
}

// Path returns the inbox file ("" in memory).
func (in *Inbox) Path() string { return in.path }

// Ready receives a value when entries may be waiting for Next.
func (in *Inbox) Ready() <-chan struct{} { return in.ready }

// Accept appends raw (see api.EventSink) and returns once it is written to the file.
func (in *Inbox) Accept(raw []byte) error {
	in.mu.Lock()
	pending := 0
	if in.cur != nil {
		pending = len(in.cur.data)
	}
	switch {
	case in.closed:
		in.mu.Unlock()
		return ErrInboxClosed
	case in.err != nil:
		in.mu.Unlock()
		return in.err
	case in.size-in.readOff+int64(pending+len(raw)) > in.limit:
		in.mu.Unlock()
		return ErrInboxFull
	}
	in.appended++
	if in.f == nil {
		in.mem = appendInboxLine(in.mem, raw)
		in.size = int64(len(in.mem))
		in.written, in.synced = in.appended, in.appended
		in.mu.Unlock()
		signal(in.ready)
		return nil
	}
	w := in.cur
	w.data = appendInboxLine(w.data, raw)
	w.n = in.appended
	in.mu.Unlock()
	signal(in.wake)
	<-w.done
	return w.err
}

// writer writes what Accept buffered, one write per batch, until the inbox is closed; each
// batch's callers are woken when it is written.
func (in *Inbox) writer() {
	for {
		stopping := false
		select {
		case <-in.wake:
		case <-in.stop:
			stopping = true // write what was accepted before Close, then stop
		}
		// Let the deliveries already running reach Accept first, so that a burst is written
		// together (one write for tens of events) instead of one write each.
		runtime.Gosched()
		in.mu.Lock()
		w, at := in.cur, in.size
		if len(w.data) == 0 {
			in.mu.Unlock()
			if stopping {
				return
			}
			continue
		}
		in.cur = &inboxWrite{data: in.spare[:0], done: make(chan struct{})}
		in.writing = true
		in.mu.Unlock()

		_, err := in.f.WriteAt(w.data, at)
		in.writes.Add(1)

		in.mu.Lock()
		in.writing = false
		switch {
		case err != nil && in.err == nil:
			// What follows must not land after a hole: refuse everything from now on.
			in.err = fmt.Errorf("inbox: write: %w", err)
			w.err = in.err
		case in.err != nil:
			w.err = in.err
		default:
			in.written, in.size = w.n, at+int64(len(w.data))
		}
		in.spare = w.data[:0]
		in.cond.Broadcast()
		in.mu.Unlock()
		close(w.done)
		signal(in.ready)
		signal(in.syncReq)
	}
}

// signal sends on a channel of capacity 1 without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// syncer fsyncs the file whenever something was written since the last fsync.
func (in *Inbox) syncer() {
	for {
		select {
		case <-in.stop:
			return
		case <-in.syncReq:
		}
		in.mu.Lock()
		target := in.written
		in.mu.Unlock()
		err := in.f.Sync()
		in.mu.Lock()
		if err != nil && in.err == nil {
			// After a failed fsync the written pages may be lost: acknowledge nothing more.
			in.err = fmt.Errorf("inbox: fsync: %w", err)
		} else if err == nil && target > in.synced {
			in.synced = target
		}
		in.cond.Broadcast()
		in.mu.Unlock()
	}
}

// Sync waits until every entry accepted so far is fsynced.
func (in *Inbox) Sync() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	target := in.appended
	for in.synced < target && in.err == nil && !in.closed {
		signal(in.syncReq)
		in.cond.Wait()
	}
	if in.synced < target {
		if in.err != nil {
			return in.err
		}
		return ErrInboxClosed
	}
	return nil
}

// InboxStats counts an inbox's entries.
type InboxStats struct {
	Accepted uint64 // entries accepted since it was opened
	Synced   uint64 // of those, entries fsynced
	Pending  int64  // bytes written and not yet acknowledged with Done
	Writes   uint64 // write calls that carried them (fewer than Accepted under load)
}

// Stats returns the inbox's counters.
func (in *Inbox) Stats() InboxStats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return InboxStats{Accepted: in.appended, Synced: in.synced, Pending: in.size - in.readOff, Writes: in.writes.Load()}
}

// InboxBatch is entries read by Next, acknowledged with Done once applied.
type InboxBatch struct {
	// Raw holds the payloads, oldest first.
	Raw [][]byte
	// Replayed is how many of Raw's first entries an earlier run wrote: the Store may already
	// hold them if that run applied them and stopped before Done.
	Replayed int
	end      int64 // file offset after the last entry
}

// InboxEvents decodes the payloads of b for ApplyEvents, leaving out the replayed entries whose
// event the store already holds (applied by the run that wrote them, which stopped before Done:
// they are not new deliveries) and any payload that no longer decodes (the file was edited under
// a matching checksum), counted in skipped.
func (s *Store) InboxEvents(b InboxBatch) (evs []*api.Event, skipped int) {
	evs = make([]*api.Event, 0, len(b.Raw))
	for i, raw := range b.Raw {
		ev, err := api.DecodeEvent(raw)
		if err != nil {
			skipped++
			continue
		}
		if i < b.Replayed && s.m.events.Seen(ev.EventID) > 0 {
			continue
		}
		evs = append(evs, ev)
	}
	return evs, skipped
}

// Next reads up to max entries written and not yet acknowledged (all of them when max < 1).
// It does not consume them: Done does.
func (in *Inbox) Next(max int) (InboxBatch, error) {
	in.mu.Lock()
	off, size, replay := in.readOff, in.size, in.replay
	in.mu.Unlock()
	b := InboxBatch{end: off}
	chunk := int64(inboxReadChunk)
	for b.end < size && (max < 1 || len(b.Raw) < max) {
		data, err := in.readAt(b.end, min(size-b.end, chunk))
		if err != nil {
			return b, err
		}
		start, rest := b.end, data
		for len(rest) > 0 && (max < 1 || len(b.Raw) < max) {
			nl := bytes.IndexByte(rest, '\n')
			if nl < 0 {
				break
			}
			if raw, ok := parseInboxLine(rest[:nl]); ok {
				b.Raw = append(b.Raw, raw)
				if b.end < replay {
					b.Replayed++
				}
			}
			// A damaged line (possible only if the disk changed it under us) is skipped.
			b.end += int64(nl + 1)
			rest = rest[nl+1:]
		}
		if b.end == start {
			if size-start <= chunk {
				break // no whole line left (cannot happen: only whole lines are written)
			}
			chunk *= 2 // a line longer than the chunk
		}
	}
	return b, nil
}

// readAt returns n bytes of the file from off.
func (in *Inbox) readAt(off, n int64) ([]byte, error) {
	if in.f == nil {
		in.mu.Lock()
		defer in.mu.Unlock()
		return bytes.Clone(in.mem[off : off+n]), nil
	}
	data := make([]byte, n)
	if _, err := in.f.ReadAt(data, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("inbox: read: %w", err)
	}
	return data, nil
}

// Done acknowledges the entries of b (the Store has committed them); once every written entry
// is acknowledged the file is emptied, so that a restart reads again only what was not.
func (in *Inbox) Done(b InboxBatch) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if b.end < in.readOff || b.end > in.size {
		return nil // a batch read before the file was emptied: already acknowledged
	}
	in.readOff = b.end
	if in.readOff < in.size {
		signal(in.ready)
		return nil
	}
	if in.writing {
		return nil // emptied by a later Done
	}
	if in.f == nil {
		in.mem, in.size, in.readOff = in.mem[:0], 0, 0
		return nil
	}
	if err := in.f.Truncate(0); err != nil {
		return fmt.Errorf("inbox: empty: %w", err)
	}
	in.size, in.readOff, in.replay = 0, 0, 0
	signal(in.syncReq)
	return nil
}

// Close writes what was accepted, stops the inbox, fsyncs the file and releases it. Accept
// then returns ErrInboxClosed.
func (in *Inbox) Close() error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return nil
	}
	in.closed = true
	in.cond.Broadcast()
	in.mu.Unlock()
	if in.f == nil {
		return nil
	}
	close(in.stop)
	<-in.stopped
	err := in.f.Sync()
	_ = unlockFile(in.f)
	if cerr := in.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// appendInboxLine appends raw as one inbox line.
func appendInboxLine(b, raw []byte) []byte {
	start := len(b) + 9
	b = append(b, "00000000 "...)
	b = append(b, raw...)
	line := b[start:]
	for i := bytes.IndexByte(line, '\n'); i >= 0; i = bytes.IndexByte(line, '\n') {
		line[i] = ' '
		line = line[i+1:]
	}
	sum := crc32.Checksum(b[start:], crcTable)
	appendHex32(b[start-9:start-9], sum)
	return append(b, '\n')
}

// parseInboxLine returns the payload of one line (without its newline) if its checksum holds.
func parseInboxLine(line []byte) ([]byte, bool) {
	if len(line) < 10 || line[8] != ' ' {
		return nil, false
	}
	var want uint32
	for _, c := range line[:8] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			return nil, false
		}
		want = want<<4 | uint32(d)
	}
	raw := line[9:]
	return raw, crc32.Checksum(raw, crcTable) == want
}

// recoverInbox checks the file's lines on open: a torn last line is cut off; damaged lines
// are dropped, the file being copied aside first. It returns the file's size.
func recoverInbox(f *os.File, path string) (int64, *CorruptError, error) {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return 0, nil, err
	}
	var good []byte // the file without its damaged lines, built only after the first one
	firstBad, lineNo := 0, 0
	var badErr error
	rest, off := data, 0
	for len(rest) > 0 {
		lineNo++
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break // a torn last line
		}
		_, ok := parseInboxLine(rest[:nl])
		switch {
		case ok && good != nil:
			good = append(good, rest[:nl+1]...)
		case !ok && good == nil:
			good = append([]byte{}, data[:off]...)
			firstBad, badErr = lineNo, errBadChecksum
		}
		off += nl + 1
		rest = rest[nl+1:]
	}
	if good == nil {
		if off < len(data) {
			if err := f.Truncate(int64(off)); err != nil {
				return 0, nil, err
			}
			if err := f.Sync(); err != nil {
				return 0, nil, err
			}
		}
		return int64(off), nil, nil
	}
	moved, err := copyAside(path, data, time.Now())
	if err != nil {
		return 0, nil, err
	}
	if _, err := f.WriteAt(good, 0); err != nil {
		return 0, nil, err
	}
	if err := f.Truncate(int64(len(good))); err != nil {
		return 0, nil, err
	}
	if err := f.Sync(); err != nil {
		return 0, nil, err
	}
	return int64(len(good)), &CorruptError{Path: path, MovedTo: moved, Line: firstBad, Err: badErr, KeptRest: true}, nil
}

// copyAside writes data, the content of path, to path.corrupt-<UTC time> (never overwriting
// another file) and returns that name.
func copyAside(path string, data []byte, now time.Time) (string, error) {
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	to := base
	for i := 1; ; i++ {
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			to = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("keep damaged inbox aside: %w", err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("keep damaged inbox aside: %w", err)
		}
		return to, syncDir(filepath.Dir(path))
	}
}
