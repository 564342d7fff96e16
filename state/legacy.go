package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"pixdash/api"
)

// The files of the journal pixdash kept before SQLite, per profile (stem ProfileFileName):
//
//	<stem>.snapshot  compacted state: a "snap" record, the records, an "end" record
//	<stem>.journal   records appended since the snapshot, after a "head" record
//	<stem>.inbox     verified webhook payloads not applied yet
//	<stem>.lock      flock'ed by the old pixdash while it read or wrote the files
//
// A snapshot or journal line is a JSON record, a space and the CRC-32C of the JSON in 8 hex
// digits; an inbox line is the CRC-32C of the payload, a space and the payload.

// ErrLegacyInUse reports an older pixdash still running on the profile's journal files.
var ErrLegacyInUse = errors.New("an older pixdash is still using this profile's files; close it and start again")

// legacyImportedSuffix is appended to the name of an imported file.
const legacyImportedSuffix = ".imported"

// legacyMaxCopies bounds the copies an event record may claim (the count is an SQLite integer).
const legacyMaxCopies = 1 << 30

// legacyLockWait is how long the import waits for the old lock (an old pixdash takes it only
// while it reads or writes).
const legacyLockWait = 10 * time.Second

var legacyCRC = crc32.MakeTable(crc32.Castagnoli)

// legacyRecord is one line of a journal or snapshot.
type legacyRecord struct {
	V  int             `json:"v"`
	T  string          `json:"t"`
	At time.Time       `json:"at"`
	D  json.RawMessage `json:"d"`
}

// Data of the records that are not a bare domain value.
type (
	legacyEventData struct {
		E json.RawMessage `json:"e"`
		N int             `json:"n,omitempty"`
	}
	legacyIDData struct {
		ID string `json:"id"`
	}
	legacyVerdictData struct {
		ID string  `json:"id"`
		V  Verdict `json:"v"`
		R  string  `json:"r,omitempty"`
	}
	legacySubDoneData struct {
		Key    string  `json:"key"`
		Charge *Charge `json:"charge,omitempty"`
	}
	legacyGenData struct {
		Gen uint64 `json:"gen"`
	}
)

// legacyFile is one old file found in the state directory.
type legacyFile struct {
	name string // base name
	path string
	data []byte
	sum  string // SHA-256 of data: tells whether this content was imported already
	f    *os.File
}

// legacyParsed is the valid records of a snapshot or journal and how many lines were damaged.
type legacyParsed struct {
	recs []legacyRecord
	bad  int
}

// importLegacy imports the profile's old journal files into s, in one transaction, then
// renames them with a ".imported" suffix; it returns what it did (nil when there was nothing
// to import).
func importLegacy(ctx context.Context, s *Store, dir, profile string) (*ImportReport, error) {
	stem := ProfileFileName(profile)
	snapPath := filepath.Join(dir, stem+".snapshot")
	journalPath := filepath.Join(dir, stem+".journal")
	inboxPath := filepath.Join(dir, stem+".inbox")
	if !legacyExists(snapPath) && !legacyExists(journalPath) && !legacyExists(inboxPath) {
		return nil, nil
	}
	lockPath := filepath.Join(dir, stem+".lock")
	lock, err := legacyLock(ctx, lockPath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if lock != nil {
			_ = lock.Close()
		}
	}()
	var files []*legacyFile // snapshot, journal, inbox: the order of the import
	defer func() {
		for _, f := range files {
			if f != nil && f.f != nil {
				_ = f.f.Close()
			}
		}
	}()
	for _, p := range []string{snapPath, journalPath, inboxPath} {
		f, err := legacyRead(p, p == inboxPath)
		if err != nil {
			return nil, err
		}
		files = append(files, f) // nil when absent (another pixdash imported it meanwhile)
	}
	if files[0] == nil && files[1] == nil && files[2] == nil {
		_ = lock.Close()
		lock = nil
		_ = os.Remove(lockPath)
		return nil, nil
	}

	imp := &legacyImport{s: s, ctx: ctx}
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		imp.reset(tx)
		return nil, imp.run(files)
	})
	if err != nil {
		return nil, err
	}

	var kept []string
	for _, f := range files {
		if f == nil {
			continue
		}
		if f.f != nil {
			_ = f.f.Close() // also releases an inbox lock; Windows renames closed files only
			f.f = nil
		}
		to, err := legacyRename(f.path)
		if err != nil {
			return nil, fmt.Errorf("the old files were imported but %s could not be renamed: %w", f.name, err)
		}
		kept = append(kept, filepath.Base(to))
	}
	if err := legacySyncDir(dir); err != nil {
		return nil, err
	}
	_ = lock.Close()
	lock = nil
	_ = os.Remove(lockPath)
	return imp.report(kept, dir), nil
}

// legacyExists reports whether path may exist (one stat call).
func legacyExists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// legacyLock takes the old pixdash's profile lock, waiting a while for an old pixdash that
// holds it; another new pixdash importing the same files waits here too.
func legacyLock(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(legacyLockWait)
	for {
		err := tryLockFile(f)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, errLocked) {
			_ = f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return nil, ErrLegacyInUse
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// legacyRead reads an old file (nil when absent). The inbox stays open and locked until it is
// renamed: an old pixdash holds that lock while it receives webhooks.
func legacyRead(path string, inbox bool) (*legacyFile, error) {
	flag := os.O_RDONLY
	if inbox {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if inbox {
		if err := tryLockFile(f); err != nil {
			_ = f.Close()
			if errors.Is(err, errLocked) {
				return nil, ErrLegacyInUse
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	lf := &legacyFile{name: filepath.Base(path), path: path, data: data}
	sum := sha256.Sum256(data)
	lf.sum = hex.EncodeToString(sum[:])
	if inbox {
		lf.f = f
	} else {
		_ = f.Close()
	}
	return lf, nil
}

// legacyRename renames path to path.imported (path.imported.2, … when taken) and returns the new name.
func legacyRename(path string) (string, error) {
	to := path + legacyImportedSuffix
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = path + legacyImportedSuffix + "." + strconv.Itoa(i)
	}
	return to, os.Rename(path, to)
}

// legacySyncDir makes the renames in dir durable.
func legacySyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// legacyLines calls f with each line of buf, newline excluded; the last line may lack it.
// What precedes the last zero byte of a line (a write a crash left unfinished) is cut off
// and reported with zeros.
func legacyLines(buf []byte, f func(line []byte, zeros bool)) {
	for len(buf) > 0 {
		line := buf
		nl := bytes.IndexByte(buf, '\n')
		if nl >= 0 {
			line, buf = buf[:nl], buf[nl+1:]
		} else {
			buf = nil
		}
		z := bytes.LastIndexByte(line, 0)
		if z >= 0 {
			line = line[z+1:]
		}
		f(line, z >= 0)
	}
}

// legacyHex reads 8 hex digits.
func legacyHex(b []byte) (uint32, bool) {
	if len(b) != 8 {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

// legacyParse reads the records of a snapshot or journal; every line stands alone.
func legacyParse(buf []byte) legacyParsed {
	var p legacyParsed
	legacyLines(buf, func(line []byte, zeros bool) {
		if len(line) == 0 {
			if zeros {
				p.bad++
			}
			return
		}
		r, ok := legacyDecodeLine(line)
		if !ok || zeros {
			p.bad++ // with zeros and a good record: the write the zeros stand for is lost
		}
		if ok {
			p.recs = append(p.recs, r)
		}
	})
	return p
}

// legacyDecodeLine parses one record line whose checksum holds.
func legacyDecodeLine(line []byte) (legacyRecord, bool) {
	if len(line) < 11 || line[len(line)-9] != ' ' {
		return legacyRecord{}, false
	}
	j := line[:len(line)-9]
	want, ok := legacyHex(line[len(line)-8:])
	if !ok || crc32.Checksum(j, legacyCRC) != want {
		return legacyRecord{}, false
	}
	r, ok := legacyEnvelope(j)
	if !ok {
		if err := json.Unmarshal(j, &r); err != nil {
			return legacyRecord{}, false
		}
	}
	if r.T == "" || r.V < 1 {
		return legacyRecord{}, false
	}
	return r, true
}

// legacyEnvelope reads a record in the shape the old pixdash wrote (false for another shape),
// leaving "d" to its reader, as the old pixdash did: the envelope adds no nesting level.
func legacyEnvelope(j []byte) (legacyRecord, bool) {
	const head, mid, tail = `{"v":1,"t":"`, `","at":"`, `","d":`
	if !bytes.HasPrefix(j, []byte(head)) || j[len(j)-1] != '}' {
		return legacyRecord{}, false
	}
	rest := j[len(head):]
	q := bytes.IndexByte(rest, '"')
	if q <= 0 {
		return legacyRecord{}, false
	}
	t := rest[:q]
	for _, c := range t {
		if (c < 'a' || c > 'z') && c != '_' {
			return legacyRecord{}, false
		}
	}
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(mid)) {
		return legacyRecord{}, false
	}
	rest = rest[len(mid):]
	q = bytes.IndexByte(rest, '"')
	if q < 0 {
		return legacyRecord{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, string(rest[:q]))
	if err != nil {
		return legacyRecord{}, false
	}
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(tail)) || len(rest) <= len(tail)+1 {
		return legacyRecord{}, false
	}
	d := bytes.TrimSpace(rest[len(tail) : len(rest)-1])
	if len(d) == 0 {
		return legacyRecord{}, false
	}
	return legacyRecord{V: 1, T: string(t), At: at, D: json.RawMessage(d)}, true
}

// legacyGen is the generation in a "snap" or "head" record.
func legacyGen(r *legacyRecord) (uint64, bool) {
	var g legacyGenData
	if json.Unmarshal(r.D, &g) != nil {
		return 0, false
	}
	return g.Gen, true
}

// legacyImport applies old records inside the import's transaction, as the old in-memory state did.
type legacyImport struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	n   int // records applied, to check ctx now and then

	finished map[string]bool // submissions completed or abandoned
	pending  map[string]bool // submissions begun and not finished
	charges  map[string]bool // ids of the charges written
	inboxIDs map[string]bool // eventIds first recorded from the inbox
	events   int             // events recorded (new eventIds)
	bad      int             // damaged or unreadable records skipped
	fee      *LearnedFee
	lookups  []Lookup // newest first

	// Charges the database did not hold are merged in memory, then written by flush.
	empty     bool               // the database held no charge before the import
	held      map[string]*Charge // charges waiting for flush
	heldOrder []string           // their ids, in the order they first came
	stored    map[string]bool    // charges known to be in the database
	seqs      map[int64]int64    // seq base -> next free seq, for the bases flush wrote
}

// reset starts over in a new transaction (the writer may run a job again).
func (imp *legacyImport) reset(tx *sql.Tx) {
	*imp = legacyImport{s: imp.s, ctx: imp.ctx, tx: tx, finished: map[string]bool{}, pending: map[string]bool{},
		charges: map[string]bool{}, inboxIDs: map[string]bool{}, held: map[string]*Charge{}, stored: map[string]bool{},
		seqs: map[int64]int64{}}
}

// legacySumKey is the meta key holding the SHA-256 of an imported file, so that a crash
// between the commit and the renames never imports it twice.
func legacySumKey(name string) string { return "legacy_import:" + name }

// run imports the files (snapshot, journal, inbox; nil when absent).
func (imp *legacyImport) run(files []*legacyFile) error {
	todo := make([]bool, len(files))
	for i, f := range files {
		if f == nil {
			continue
		}
		var done string
		err := imp.tx.QueryRow(`SELECT value FROM meta WHERE key = ?`, legacySumKey(f.name)).Scan(&done)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		todo[i] = done != f.sum
	}
	var some int
	if err := imp.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM charges)`).Scan(&some); err != nil {
		return err
	}
	imp.empty = some == 0
	var snap, journal legacyParsed
	snapGen, journalGen := uint64(0), uint64(0)
	if files[0] != nil {
		snap = legacyParse(files[0].data)
		if len(snap.recs) > 0 && snap.recs[0].T == "snap" {
			snapGen, _ = legacyGen(&snap.recs[0])
		}
	}
	stale := false
	if files[1] != nil {
		journal = legacyParse(files[1].data)
		if len(journal.recs) > 0 && journal.recs[0].T == "head" {
			var ok bool
			journalGen, ok = legacyGen(&journal.recs[0])
			// A journal older than the snapshot was already folded into it (a crash while
			// the old pixdash compacted): the old pixdash ignored it too.
			stale = ok && journalGen < snapGen
		}
	}
	if todo[0] {
		imp.bad += snap.bad
		if err := imp.applyAll(snap.recs, true); err != nil {
			return err
		}
	}
	if todo[1] && !stale {
		imp.bad += journal.bad
		if err := imp.applyAll(journal.recs, false); err != nil {
			return err
		}
	}
	if todo[2] {
		if err := imp.applyInbox(files[2]); err != nil {
			return err
		}
	}
	if err := imp.flush(); err != nil {
		return err
	}
	if err := imp.writeFee(); err != nil {
		return err
	}
	if err := imp.writeLookups(); err != nil {
		return err
	}
	for i, f := range files {
		if f == nil || !todo[i] {
			continue
		}
		if _, err := imp.tx.Exec(`INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
			legacySumKey(f.name), f.sum); err != nil {
			return err
		}
	}
	return nil
}

// legacyFatal reports an error that ends the import: the database failed. A record the
// database refuses (a constraint) or that cannot be encoded is only skipped.
func legacyFatal(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_MISMATCH:
			return false
		}
		return true
	}
	for _, target := range []error{ErrDamaged, sql.ErrTxDone, sql.ErrConnDone, driver.ErrBadConn, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// step counts a record and checks the context now and then.
func (imp *legacyImport) step() error {
	imp.n++
	if imp.n%1024 == 0 {
		return imp.ctx.Err()
	}
	return nil
}

func (imp *legacyImport) applyAll(recs []legacyRecord, snapshot bool) error {
	for i := range recs {
		if err := imp.step(); err != nil {
			return err
		}
		ok, err := imp.apply(&recs[i], snapshot)
		if err != nil {
			if legacyFatal(err) {
				return err
			}
			ok = false
		}
		if !ok {
			imp.bad++
		}
	}
	return nil
}

// apply replays one record; false when it cannot be read or applied.
func (imp *legacyImport) apply(r *legacyRecord, snapshot bool) (bool, error) {
	if r.V != 1 {
		return false, nil
	}
	switch r.T {
	case "head", "snap", "end":
		return true, nil
	case "charge":
		var c Charge
		if json.Unmarshal(r.D, &c) != nil || c.ID == "" {
			return false, nil
		}
		return true, imp.putCharge(c)
	case "event", "hint":
		var d legacyEventData
		if json.Unmarshal(r.D, &d) != nil {
			return false, nil
		}
		e, err := api.DecodeEvent(d.E)
		if err != nil || len(e.Raw) > MaxEventBytes {
			return false, nil
		}
		return true, imp.applyEvent(e, r.At, min(max(d.N, 1), legacyMaxCopies), r.T == "event" && !snapshot)
	case "event_dup":
		var d legacyIDData
		if json.Unmarshal(r.D, &d) != nil {
			return false, nil
		}
		_, err := imp.tx.Exec(`UPDATE events SET copies = copies + 1 WHERE event_id = ?`, d.ID)
		return true, err
	case "verdict":
		var d legacyVerdictData
		if json.Unmarshal(r.D, &d) != nil {
			return false, nil
		}
		if err := setVerdictTx(imp.tx, d.ID, d.V, d.R); err != nil && !errors.Is(err, ErrUnknownEvent) {
			return true, err
		}
		return true, nil
	case "sub_begin":
		sub, err := decodeSubmission(r.D)
		if err != nil || sub.Key == "" {
			return false, nil
		}
		return true, imp.beginSub(sub)
	case "sub_done", "sub_abandon":
		var d legacySubDoneData
		if json.Unmarshal(r.D, &d) != nil {
			return false, nil
		}
		imp.finished[d.Key] = true
		delete(imp.pending, d.Key)
		if _, err := imp.tx.Exec(`DELETE FROM submissions WHERE key = ?`, d.Key); err != nil {
			return true, err
		}
		if d.Charge != nil && d.Charge.ID != "" {
			return true, imp.putCharge(*d.Charge)
		}
		return true, nil
	case "fee":
		var f LearnedFee
		if json.Unmarshal(r.D, &f) != nil {
			return false, nil
		}
		if imp.fee == nil || !f.LearnedAt.Before(imp.fee.LearnedAt) {
			imp.fee = &f
		}
		return true, nil
	case "lookup":
		var l Lookup
		if json.Unmarshal(r.D, &l) != nil {
			return false, nil
		}
		imp.addLookup(l)
		return true, nil
	}
	return false, nil
}

// putCharge merges c into the charge with its ID as putChargeTx does. A charge the database
// did not hold is merged in memory (each write costs a full-text index flush) until flush.
func (imp *legacyImport) putCharge(c Charge) error {
	imp.charges[c.ID] = true
	if p, ok := imp.held[c.ID]; ok {
		p.Merge(c)
		return nil
	}
	if !imp.stored[c.ID] {
		exists := false
		if !imp.empty {
			var err error
			if _, exists, err = getChargeTx(imp.tx, c.ID); err != nil {
				return err
			}
		}
		if !exists {
			if c.Wallet == "" {
				c.Wallet = api.WalletPrincipal
			}
			imp.held[c.ID] = &c
			imp.heldOrder = append(imp.heldOrder, c.ID)
			return nil
		}
		imp.stored[c.ID] = true
	}
	_, _, err := imp.s.putChargeTx(imp.tx, c)
	return err
}

// getCharge reads a charge as putCharge left it.
func (imp *legacyImport) getCharge(id string) (Charge, error) {
	if p, ok := imp.held[id]; ok {
		return *p, nil
	}
	c, _, err := getChargeTx(imp.tx, id)
	return c, err
}

// flush writes the charges held in memory, in the order they first came.
func (imp *legacyImport) flush() error {
	if len(imp.heldOrder) == 0 {
		return nil
	}
	cs := make([]Charge, 0, len(imp.heldOrder))
	for _, id := range imp.heldOrder {
		cs = append(cs, *imp.held[id])
		delete(imp.held, id)
		imp.stored[id] = true
	}
	imp.heldOrder = imp.heldOrder[:0]
	for chunk := range slices.Chunk(cs, legacyInsertRows) {
		err := imp.insertCharges(chunk)
		if err == nil {
			continue
		}
		if legacyFatal(err) {
			return err
		}
		// One charge the database refuses: the others are written one by one.
		for _, c := range chunk {
			if _, _, err := imp.s.putChargeTx(imp.tx, c); err != nil {
				if legacyFatal(err) {
					return err
				}
				imp.bad++
				delete(imp.charges, c.ID)
			}
		}
	}
	return nil
}

// legacyInsertRows is how many charges one INSERT adds: each statement flushes the
// full-text index, so rows one at a time would cost minutes for a large journal.
const legacyInsertRows = 256

// insertCharges adds charges the database does not hold, in one statement, with the row
// putChargeTx writes for each (TestLegacyInsertMatchesPutCharge checks they agree).
func (imp *legacyImport) insertCharges(cs []Charge) error {
	const cols = 12
	args := make([]any, 0, len(cs)*cols)
	next := map[int64]int64{} // seq base -> next free seq in this statement
	for i := range cs {
		c := &cs[i]
		c.dropSpentCode()
		doc := chargeDoc(c)
		var paid, fee any
		if c.PaidAt != nil {
			paid = c.PaidAt.UnixMilli()
		}
		if c.Fee != nil {
			fee = int64(*c.Fee)
		}
		created := c.CreatedAt
		if created.IsZero() {
			created = imp.s.now()
		}
		seq, err := imp.nextSeq(created, next)
		if err != nil {
			return err
		}
		st := c.State()
		args = append(args, seq, c.ID, c.Wallet, string(st), int64(c.Amount), c.ExternalReference, created.UnixMilli(),
			paid, fee, c.UpdatedAt.UnixMilli(), haystack(c, st, imp.s.loc), doc)
	}
	row := "(?" + strings.Repeat(", ?", cols-1) + ")"
	q := `INSERT INTO charges(seq, id, wallet, state, amount, external_reference, created_at, paid_at, fee, updated_at, hay, doc) VALUES ` +
		row + strings.Repeat(", "+row, len(cs)-1)
	_, err := imp.tx.Exec(q, args...)
	if err == nil {
		maps.Copy(imp.seqs, next)
	}
	return err
}

// nextSeq is nextChargeSeq for a charge created at t, counting the positions taken earlier
// in the import (seqs) and in the statement being built (next).
func (imp *legacyImport) nextSeq(t time.Time, next map[int64]int64) (int64, error) {
	base := max(t.UnixMilli(), 0) << chargeSeqShift
	seq, ok := next[base]
	if !ok {
		seq, ok = imp.seqs[base]
	}
	if !ok {
		if imp.empty {
			seq = base
		} else {
			var err error
			if seq, err = nextChargeSeq(imp.tx, t); err != nil {
				return 0, err
			}
		}
	}
	if seq > base|(1<<chargeSeqShift-1) || seq < base {
		return 0, errors.New("state: too many charges in one millisecond")
	}
	next[base] = seq + 1
	return seq, nil
}

// applyEvent records n copies of an event received at at; a legacy journal event (written
// before webhooks became hints) also updates its charge, as the old pixdash did.
func (imp *legacyImport) applyEvent(e *api.Event, at time.Time, n int, legacy bool) error {
	if e.Kind.IsPayment() && e.TransactionID == "" && e.ExternalReference != "" {
		// The charge named only by its reference (insertEventTx finds it the same way).
		if err := imp.flush(); err != nil {
			return err
		}
		err := imp.tx.QueryRow(`SELECT id FROM charges WHERE external_reference = ? AND wallet = ? ORDER BY seq DESC LIMIT 1`,
			e.ExternalReference, NormalizeWallet(e.Wallet())).Scan(&e.TransactionID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	first, err := imp.s.insertEventTx(imp.tx, e, at)
	if err != nil {
		return err
	}
	if n > 1 {
		if _, err := imp.tx.Exec(`UPDATE events SET copies = copies + ? WHERE event_id = ?`, n-1, e.EventID); err != nil {
			return err
		}
	}
	if !first {
		return nil
	}
	imp.events++
	if !legacy || !e.Kind.IsPayment() || e.TransactionID == "" {
		return nil
	}
	c, err := imp.getCharge(e.TransactionID)
	if err != nil {
		return err
	}
	c.ApplyEvent(e)
	return imp.putCharge(c)
}

func (imp *legacyImport) beginSub(sub Submission) error {
	if imp.finished[sub.Key] {
		return nil
	}
	sub.Wallet = NormalizeWallet(sub.Wallet)
	doc, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	if _, err := imp.tx.Exec(`INSERT INTO submissions(key, wallet, created_at, doc) VALUES (?, ?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET wallet = excluded.wallet, created_at = excluded.created_at, doc = excluded.doc`,
		sub.Key, sub.Wallet, sub.CreatedAt.UnixMilli(), doc); err != nil {
		return err
	}
	imp.pending[sub.Key] = true
	return nil
}

func (imp *legacyImport) addLookup(l Lookup) {
	l.Wallet = NormalizeWallet(l.Wallet)
	imp.lookups = slices.DeleteFunc(imp.lookups, func(o Lookup) bool { return o.Query == l.Query && o.Wallet == l.Wallet })
	i, _ := slices.BinarySearchFunc(imp.lookups, l, func(a, b Lookup) int { return b.At.Compare(a.At) }) // newest first
	imp.lookups = slices.Insert(imp.lookups, i, l)
	if len(imp.lookups) > MaxRecentLookups {
		imp.lookups = imp.lookups[:MaxRecentLookups]
	}
}

// applyInbox records the inbox's payloads as events received when the file was last written.
// A payload whose event was recorded before the inbox was read is skipped: the old pixdash
// applied it and stopped before emptying the inbox.
func (imp *legacyImport) applyInbox(f *legacyFile) error {
	at := imp.s.now()
	if f.f != nil {
		if fi, err := f.f.Stat(); err == nil {
			at = fi.ModTime()
		}
	}
	var err error
	legacyLines(f.data, func(line []byte, zeros bool) {
		if err != nil {
			return
		}
		if err = imp.step(); err != nil {
			return
		}
		if len(line) == 0 {
			if zeros {
				imp.bad++
			}
			return
		}
		ok, aerr := imp.applyInboxLine(line, at)
		if aerr != nil {
			if legacyFatal(aerr) {
				err = aerr
				return
			}
			ok = false
		}
		if !ok || zeros {
			imp.bad++
		}
	})
	return err
}

func (imp *legacyImport) applyInboxLine(line []byte, at time.Time) (bool, error) {
	if len(line) < 10 || line[8] != ' ' {
		return false, nil
	}
	want, ok := legacyHex(line[:8])
	raw := line[9:]
	if !ok || crc32.Checksum(raw, legacyCRC) != want {
		return false, nil
	}
	e, err := api.DecodeEvent(raw)
	if err != nil || len(e.Raw) > MaxEventBytes {
		return false, nil
	}
	if !imp.inboxIDs[e.EventID] {
		var one int
		err := imp.tx.QueryRow(`SELECT 1 FROM events WHERE event_id = ?`, e.EventID).Scan(&one)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return true, err
		}
		imp.inboxIDs[e.EventID] = true
	}
	return true, imp.applyEvent(e, at, 1, false)
}

// writeFee keeps the newest of the imported fee and the stored one.
func (imp *legacyImport) writeFee() error {
	if imp.fee == nil {
		return nil
	}
	var cur []byte
	err := imp.tx.QueryRow(`SELECT value FROM meta WHERE key = 'fee'`).Scan(&cur)
	if err == nil {
		var old LearnedFee
		if json.Unmarshal(cur, &old) == nil && imp.fee.LearnedAt.Before(old.LearnedAt) {
			return nil
		}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	doc, err := json.Marshal(imp.fee)
	if err != nil {
		return nil // a fee that cannot be written is left out
	}
	_, err = imp.tx.Exec(`INSERT INTO meta(key, value) VALUES ('fee', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, string(doc))
	return err
}

// writeLookups adds the imported lookups, oldest first, as AddLookup does.
func (imp *legacyImport) writeLookups() error {
	if len(imp.lookups) == 0 {
		return nil
	}
	for _, l := range slices.Backward(imp.lookups) {
		doc, err := json.Marshal(l)
		if err != nil {
			continue
		}
		if _, err := imp.tx.Exec(`DELETE FROM lookups WHERE json_extract(doc, '$.query') = ? AND coalesce(json_extract(doc, '$.wallet'), '') = ?`, l.Query, l.Wallet); err != nil {
			return err
		}
		if _, err := imp.tx.Exec(`INSERT INTO lookups(at, doc) VALUES (?, ?)`, l.At.UnixMilli(), doc); err != nil {
			return err
		}
	}
	_, err := imp.tx.Exec(`DELETE FROM lookups WHERE seq NOT IN (SELECT seq FROM lookups ORDER BY at DESC, seq DESC LIMIT ?)`, MaxRecentLookups)
	return err
}

// ImportReport says what Open imported from an older pixdash's journal files.
type ImportReport struct {
	Charges, Events, Submissions int
	// Damaged is how many records were skipped because they failed their checksum or did not decode.
	Damaged int
	// Kept names the renamed old files, in Dir.
	Kept []string
	Dir  string
}

// report tells what was imported and where the old files went (nil when nothing was found).
func (imp *legacyImport) report(kept []string, dir string) *ImportReport {
	subs := len(imp.pending)
	if len(imp.charges) == 0 && imp.events == 0 && subs == 0 && imp.bad == 0 && imp.fee == nil && len(imp.lookups) == 0 {
		return nil
	}
	return &ImportReport{Charges: len(imp.charges), Events: imp.events, Submissions: subs, Damaged: imp.bad, Kept: kept, Dir: dir}
}

// String is the report in English, e.g. "Imported 3 charges and 2 events from the old journal. …".
func (r *ImportReport) String() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("Imported ")
	parts := []string{legacyCount(r.Charges, "charge", "charges"), legacyCount(r.Events, "event", "events")}
	if r.Submissions > 0 {
		parts = append(parts, legacyCount(r.Submissions, "pending submission", "pending submissions"))
	}
	b.WriteString(legacyJoin(parts))
	b.WriteString(" from the old journal")
	switch r.Damaged {
	case 0:
		b.WriteString(". ")
	case 1:
		b.WriteString("; 1 damaged record was skipped. ")
	default:
		b.WriteString("; " + legacyCount(r.Damaged, "", "") + " damaged records were skipped. ")
	}
	if len(r.Kept) == 1 {
		b.WriteString("The old file is kept as " + r.Kept[0])
	} else {
		b.WriteString("The old files are kept as " + legacyJoin(r.Kept))
	}
	b.WriteString(" in " + r.Dir + ".")
	return b.String()
}

// legacyCount writes n with thousands separators ("1,234") and the noun that goes with it.
func legacyCount(n int, one, many string) string {
	d := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	switch {
	case n == 1 && one != "":
		return b.String() + " " + one
	case many != "":
		return b.String() + " " + many
	}
	return b.String()
}

// legacyJoin joins items as "a", "a and b", "a, b and c".
func legacyJoin(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
