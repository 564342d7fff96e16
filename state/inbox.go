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
	"slices"
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
// is written to the file (in the kernel's page cache), so an acknowledged event survives
// pixdash being killed; the file is fsynced in the background behind the writes, within about
// syncEvery (Sync waits for it). Concurrent Accepts are written together: each adds its line to
// a shared buffer, and whichever finds no write under way writes the whole buffer while the
// others wait for it (group commit). The dashboard reads the entries with Next, applies them to the Store
// and acknowledges them with Done; entries not yet acknowledged are read again after a restart
// (the Store drops events it already holds, by eventId).
//
// File format, <name>.inbox: one entry per line, the CRC-32C of the payload in 8 hex digits, a
// space, the payload (a JSON document; newlines, which JSON allows only as whitespace, are
// stored as spaces). On open, what follows the last line (a torn line, zero bytes) is cut off;
// zero bytes within a line mark a write that a crash left unfinished (some filesystems show
// unwritten blocks as zeros after a power cut): the entry after them is kept when it is whole.
// A damaged line elsewhere is dropped and the file is kept aside as
// <name>.inbox.corrupt-<UTC time>.
//
// Accept is safe for concurrent use; Next and Done are for one consumer.
type Inbox struct {
	path  string
	f     *os.File // nil in memory
	limit int64

	mu       sync.Mutex
	wrote    sync.Cond // a write finished (or failed)
	cond     sync.Cond // synced, closed or err changed
	buf      []byte    // lines accepted and not yet written, in order
	spare    []byte    // the previous write's buffer, reused
	mem      []byte    // the file of a memory inbox
	appended uint64    // entries accepted into buf (or mem)
	written  uint64    // entries written to the file
	synced   uint64    // entries fsynced
	writing  bool      // an Accept is writing a batch
	size     int64     // bytes in the file
	readOff  int64     // bytes applied (acknowledged with Done)
	replay   int64     // bytes an earlier run wrote (read again after a restart)
	err      error     // sticky write or fsync error
	closed   bool
	writes   atomic.Uint64 // write calls, for InboxStats

	ready   chan struct{}
	syncReq chan struct{}
	stop    chan struct{}
	stopped chan struct{} // the syncer is done
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
	go in.syncer()
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
		syncReq: make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	in.wrote.L = &in.mu
	in.cond.L = &in.mu
	return in
}

// Path returns the inbox file ("" in memory).
func (in *Inbox) Path() string { return in.path }

// Ready receives a value when entries may be waiting for Next.
func (in *Inbox) Ready() <-chan struct{} { return in.ready }

// Accept appends raw (see api.EventSink) and returns once it is written to the file. An empty
// payload, or one with a zero byte (which no JSON document has), is refused as
// api.ErrEventInvalid.
func (in *Inbox) Accept(raw []byte) error {
	if len(raw) == 0 || bytes.IndexByte(raw, 0) >= 0 {
		return fmt.Errorf("webhook inbox: %w: empty or holds a zero byte", api.ErrEventInvalid)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.closed:
		return ErrInboxClosed
	case in.err != nil:
		return in.err
	case in.size-in.readOff+int64(len(in.buf)+inboxLineLen(raw)) > in.limit:
		return ErrInboxFull
	}
	in.appended++
	if in.f == nil {
		in.mem = appendInboxLine(in.mem, raw)
		in.size = int64(len(in.mem))
		in.written, in.synced = in.appended, in.appended
		signal(in.ready)
		return nil
	}
	in.buf = appendInboxLine(in.buf, raw)
	mine := in.appended
	yielded := false
	for in.written < mine && in.err == nil {
		if in.writing {
			in.wrote.Wait()
			continue
		}
		if !yielded {
			// Let the deliveries already running add their lines first, so that a burst is
			// written together (tens of entries a write) instead of one write each.
			yielded = true
			in.mu.Unlock()
			runtime.Gosched()
			in.mu.Lock()
			continue
		}
		in.writeBuffered()
	}
	if in.written < mine {
		return in.err
	}
	return nil
}

// writeBuffered writes what the Accepts buffered as one write, releasing in.mu meanwhile, and
// wakes the Accepts waiting for it. Callers hold in.mu and no write is under way.
func (in *Inbox) writeBuffered() {
	data, at, upto := in.buf, in.size, in.appended
	in.buf = in.spare[:0]
	in.writing = true
	in.mu.Unlock()
	_, err := in.f.WriteAt(data, at)
	in.writes.Add(1)
	in.mu.Lock()
	in.writing = false
	in.spare = data[:0]
	if err != nil {
		if in.err == nil {
			// What follows must not land after a hole: refuse everything from now on.
			in.err = fmt.Errorf("inbox: write: %w", err)
		}
		in.cond.Broadcast()
	} else {
		in.written, in.size = upto, at+int64(len(data))
		signal(in.ready)
		signal(in.syncReq)
	}
	in.wrote.Broadcast()
}

// signal sends on a channel of capacity 1 without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// syncEvery is the least time between two fsyncs: each one commits the filesystem's journal,
// and back to back they would slow the writes down under load.
const syncEvery = 10 * time.Millisecond

// syncer fsyncs the file whenever something was written since the last fsync, at most once
// per syncEvery.
func (in *Inbox) syncer() {
	defer close(in.stopped)
	var last time.Time
	for {
		select {
		case <-in.stop:
			return
		case <-in.syncReq:
		}
		if wait := syncEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-in.stop:
				t.Stop()
				return
			case <-t.C:
			}
		}
		last = time.Now()
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
	Accepted uint64 // entries accepted (written) since it was opened
	Synced   uint64 // of those, entries fsynced
	Pending  int64  // bytes written and not yet acknowledged with Done
	Writes   uint64 // write calls that carried them (fewer than Accepted under load)
}

// Stats returns the inbox's counters.
func (in *Inbox) Stats() InboxStats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return InboxStats{Accepted: in.written, Synced: in.synced, Pending: in.size - in.readOff, Writes: in.writes.Load()}
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
			if line, _ := splitInboxLine(rest[:nl]); line != nil {
				b.Raw = append(b.Raw, line[9:])
				if b.end < replay {
					b.Replayed++
				}
			}
			// What is not an entry (the place of a failed write, or a line the disk damaged
			// under us) is skipped.
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
		return nil // a write lands at the old end: a later Done empties the file
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

// Close waits for the write under way, stops the inbox, fsyncs the file and releases it.
// Accept then returns ErrInboxClosed.
func (in *Inbox) Close() error {
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return nil
	}
	in.closed = true
	// Accepts already waiting write their entries (they were accepted before Close).
	for (in.writing || in.written < in.appended) && in.err == nil && in.f != nil {
		if !in.writing {
			in.writeBuffered()
			continue
		}
		in.wrote.Wait()
	}
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

// inboxLineLen is the length of raw's inbox line.
func inboxLineLen(raw []byte) int { return 9 + len(raw) + 1 }

// appendInboxLine appends raw as one inbox line.
func appendInboxLine(b, raw []byte) []byte {
	n, l := len(b), inboxLineLen(raw)
	b = slices.Grow(b, l)[:n+l]
	putInboxLine(b[n:], raw)
	return b
}

// putInboxLine writes raw as one inbox line into dst, inboxLineLen(raw) bytes.
func putInboxLine(dst, raw []byte) {
	payload := dst[9 : 9+len(raw)]
	copy(payload, raw)
	for rest := payload; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		rest[i] = ' '
		rest = rest[i+1:]
	}
	appendHex32(dst[:0], crc32.Checksum(payload, crcTable))
	dst[8] = ' '
	dst[len(dst)-1] = '\n'
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

// splitInboxLine returns the entry line (without its newline) that line holds, or nil. Zero
// bytes mark a place a crash left unfinished: what follows the last one is the entry, when
// it is whole; otherwise the line was unfinished too. A line without zero bytes that is not an
// entry is damaged.
func splitInboxLine(line []byte) (entry []byte, damaged bool) {
	z := bytes.LastIndexByte(line, 0)
	if z >= 0 {
		line = line[z+1:]
	}
	if _, ok := parseInboxLine(line); ok {
		return line, false
	}
	return nil, z < 0
}

// recoverInbox checks the file's lines on open: what follows the last line (the zeros ahead of
// the writes, a torn line) is cut off; the places a crash left unfinished are dropped; damaged
// lines are dropped too, the file being copied aside first. It returns the file's size.
func recoverInbox(f *os.File, path string) (int64, *CorruptError, error) {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return 0, nil, err
	}
	var good []byte // the file rewritten, built from the first line not kept as it is
	firstBad, lineNo := 0, 0
	rest, off := data, 0
	for {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break // zeros or a torn last line
		}
		lineNo++
		entry, damaged := splitInboxLine(rest[:nl])
		if damaged && firstBad == 0 {
			firstBad = lineNo
		}
		if good == nil && len(entry) != nl {
			good = append([]byte{}, data[:off]...)
		}
		if good != nil && entry != nil {
			good = append(append(good, entry...), '\n')
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
	var ce *CorruptError
	if firstBad > 0 {
		moved, err := copyAside(path, data, time.Now())
		if err != nil {
			return 0, nil, err
		}
		ce = &CorruptError{Path: path, MovedTo: moved, Line: firstBad, Err: errBadChecksum, KeptRest: true}
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
	return int64(len(good)), ce, nil
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
