package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// File format (both the journal and the snapshot): one record per line,
//
//	{"v":1,"t":"<type>","at":"<RFC 3339>","d":{...}} <8 hex digits>\n
//
// where the hex digits are the CRC-32C of the JSON text before the space. A line without its
// newline, with a bad checksum or with JSON that does not parse is damaged.

// recordVersion is the "v" of every record this package writes.
const recordVersion = 1

// Record types.
const (
	recHead       = "head"        // first line of a journal: {"gen":N}
	recSnap       = "snap"        // first line of a snapshot: {"gen":N}
	recEnd        = "end"         // last line of a snapshot: {"n":records}
	recCharge     = "charge"      // a Charge (its full state after the change)
	recEvent      = "event"       // {"e":<payload>,"n":copies}; outside a snapshot, a legacy record that also updates its charge
	recHint       = "hint"        // an event as recEvent, recorded without touching any charge
	recEventDup   = "event_dup"   // {"id":"<eventId>"}: one more copy of a known event
	recSubBegin   = "sub_begin"   // a Submission
	recSubDone    = "sub_done"    // {"key":..., "charge":Charge}
	recSubAbandon = "sub_abandon" // {"key":...}
	recFee        = "fee"         // a LearnedFee
	recLookup     = "lookup"      // a Lookup
	recVerdict    = "verdict"     // {"id":"<eventId>","v":Verdict,"r":reason}
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// record is one line of a journal or snapshot.
type record struct {
	V  int             `json:"v"`
	T  string          `json:"t"`
	At time.Time       `json:"at"`
	D  json.RawMessage `json:"d"`
}

// newRecord encodes v as the data of a record of type t.
func newRecord(t string, at time.Time, v any) (record, error) {
	d, err := json.Marshal(v)
	if err != nil {
		return record{}, fmt.Errorf("encode %s record: %w", t, err)
	}
	return record{V: recordVersion, T: t, At: at.UTC(), D: d}, nil
}

// encodeLine returns the record's line, newline included.
func encodeLine(r *record) ([]byte, error) {
	j, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode %s record: %w", r.T, err)
	}
	out := make([]byte, 0, len(j)+10)
	out = append(out, j...)
	out = append(out, ' ')
	out = fmt.Appendf(out, "%08x", crc32.Checksum(j, crcTable))
	return append(out, '\n'), nil
}

// encodedRecord is a record together with its line.
type encodedRecord struct {
	rec  record
	line []byte
}

// encodeRecord builds the line of a record of type t whose data d is compact JSON (no newline)
// without a JSON encoding pass; the line is exactly what encodeLine writes for the same record
// (short of encoding/json's HTML escaping, which decodeLine does not need). The record's D
// shares the line's bytes.
func encodeRecord(t string, at time.Time, d []byte) (encodedRecord, error) {
	at = at.UTC()
	if y := at.Year(); y < 0 || y > 9999 || bytes.IndexByte(d, '\n') >= 0 {
		r := record{V: recordVersion, T: t, At: at, D: d}
		line, err := encodeLine(&r)
		return encodedRecord{rec: r, line: line}, err
	}
	const head, mid, tail = `{"v":1,"t":"`, `","at":"`, `","d":`
	line := make([]byte, 0, len(head)+len(t)+len(mid)+len(time.RFC3339Nano)+len(tail)+len(d)+11)
	line = append(line, head...)
	line = append(line, t...)
	line = append(line, mid...)
	line = at.AppendFormat(line, time.RFC3339Nano)
	line = append(line, tail...)
	dStart := len(line)
	line = append(line, d...)
	dEnd := len(line)
	line = append(line, '}')
	sum := crc32.Checksum(line, crcTable)
	line = append(line, ' ')
	line = appendHex32(line, sum)
	line = append(line, '\n')
	return encodedRecord{rec: record{V: recordVersion, T: t, At: at, D: json.RawMessage(line[dStart:dEnd:dEnd])}, line: line}, nil
}

// appendHex32 appends v as 8 lowercase hex digits.
func appendHex32(b []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}

var (
	errNoChecksum  = errors.New("no checksum")
	errBadChecksum = errors.New("checksum mismatch")
)

// decodeLine parses one line (without its newline).
func decodeLine(line []byte) (record, error) {
	if len(line) < 11 || line[len(line)-9] != ' ' {
		return record{}, errNoChecksum
	}
	j, sum := line[:len(line)-9], line[len(line)-8:]
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil {
		return record{}, errNoChecksum
	}
	if crc32.Checksum(j, crcTable) != uint32(want) {
		return record{}, errBadChecksum
	}
	r, ok := decodeEnvelope(j)
	if !ok {
		if err := json.Unmarshal(j, &r); err != nil {
			return record{}, fmt.Errorf("invalid record: %w", err)
		}
	}
	if r.T == "" || r.V < 1 {
		return record{}, errors.New("record without type or version")
	}
	return r, nil
}

// decodeEnvelope reads a record in the exact shape encodeLine writes without a full JSON pass
// (the checksum already vouched for the bytes; "d" is validated when its reader decodes it, and
// a record whose "d" does not decode is skipped). It reports false for any other shape, which
// then goes through encoding/json.
func decodeEnvelope(j []byte) (record, bool) {
	const head, mid, tail = `{"v":1,"t":"`, `","at":"`, `","d":`
	if !bytes.HasPrefix(j, []byte(head)) || j[len(j)-1] != '}' {
		return record{}, false
	}
	rest := j[len(head):]
	q := bytes.IndexByte(rest, '"')
	if q <= 0 {
		return record{}, false
	}
	t := rest[:q]
	for _, c := range t {
		if (c < 'a' || c > 'z') && c != '_' {
			return record{}, false
		}
	}
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(mid)) {
		return record{}, false
	}
	rest = rest[len(mid):]
	q = bytes.IndexByte(rest, '"')
	if q < 0 {
		return record{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, string(rest[:q]))
	if err != nil {
		return record{}, false
	}
	rest = rest[q:]
	if !bytes.HasPrefix(rest, []byte(tail)) || len(rest) <= len(tail)+1 {
		return record{}, false
	}
	d := bytes.TrimSpace(rest[len(tail) : len(rest)-1])
	if len(d) == 0 {
		return record{}, false
	}
	return record{V: recordVersion, T: string(t), At: at, D: json.RawMessage(d)}, true
}

// parsed is what parseRecords found in a piece of a file.
type parsed struct {
	recs []record
	// good is the length of the prefix made of valid records (everything when nothing is damaged).
	good int64
	// lines is how many lines the good prefix holds.
	lines int
	// badLine is the 1-based line (within the piece) of the first damaged record, 0 when none.
	badLine int
	badErr  error
	// tail reports that nothing valid follows the damage: a record torn by a crash mid-write.
	tail bool
}

// parseRecords splits buf into records, stopping the good prefix at the first damaged line.
func parseRecords(buf []byte) parsed {
	var p parsed
	off, line := 0, 0
	for off < len(buf) {
		line++
		nl := bytes.IndexByte(buf[off:], '\n')
		if nl < 0 {
			// The last line lacks its newline: a write that did not finish.
			if p.badLine == 0 {
				p.badLine, p.badErr = line, errors.New("incomplete last record")
			}
			break
		}
		r, err := decodeLine(buf[off : off+nl])
		off += nl + 1
		switch {
		case err != nil:
			if p.badLine == 0 {
				p.badLine, p.badErr = line, err
			}
		case p.badLine == 0:
			p.recs = append(p.recs, r)
			p.good, p.lines = int64(off), line
		default:
			// A valid record after a damaged one: the damage is not a torn tail.
			return p
		}
	}
	p.tail = p.badLine != 0
	return p
}

// CorruptError reports a state file that was damaged in the middle (not a torn last record).
// The file was moved aside, never deleted; the store keeps the records before the damage.
type CorruptError struct {
	Path    string // the damaged file
	MovedTo string // where it is now
	Line    int    // 1-based line of the first damaged record
	Err     error  // what was wrong with that line
	// KeptRest reports that the undamaged records after the line were kept too (the inbox,
	// whose entries are independent); otherwise only those before it were.
	KeptRest bool
}

// Error describes the damage and where the file went.
func (e *CorruptError) Error() string {
	if e.KeptRest {
		return fmt.Sprintf("state file %s is damaged at line %d (%v); a copy was kept as %s and the undamaged records were kept",
			e.Path, e.Line, e.Err, e.MovedTo)
	}
	return fmt.Sprintf("state file %s is damaged at line %d (%v); it was moved to %s and the records before that line were kept",
		e.Path, e.Line, e.Err, e.MovedTo)
}

// Unwrap returns what was wrong with the damaged line.
func (e *CorruptError) Unwrap() error { return e.Err }

// ProfileFileName turns a profile name into a safe file name stem: letters, digits, '.', '-'
// and '_' are kept, anything else becomes '_' and a short hash of the original is appended so
// that different names never share a file.
func ProfileFileName(profile string) string {
	if profile == "" {
		return "default"
	}
	var b strings.Builder
	changed := false
	for _, r := range profile {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	s := b.String()
	if strings.HasPrefix(s, ".") {
		s = "_" + s[1:]
		changed = true
	}
	if len(s) > 64 {
		s = s[:64]
		changed = true
	}
	if changed {
		sum := sha256.Sum256([]byte(profile))
		s += "-" + hex.EncodeToString(sum[:4])
	}
	return s
}

// syncDir makes a rename or a new file in dir durable.
func syncDir(dir string) error {
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

// moveAside keeps path's current content under path.corrupt-<UTC time> (never overwriting
// another file) and returns that name. It hard-links when it can, so that the damaged file stays
// at path until the caller replaces it atomically: a crash in between only repeats the recovery.
func moveAside(path string, now time.Time) (string, error) {
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	to := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s-%d", base, i)
	}
	if err := os.Link(path, to); err != nil {
		if err := os.Rename(path, to); err != nil {
			return "", fmt.Errorf("move damaged state file aside: %w", err)
		}
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return to, err
	}
	return to, nil
}
