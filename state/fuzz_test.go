package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pixdash/api"
)

// seedJournal returns the bytes of a small valid journal.
func seedJournal(f testing.TB) []byte {
	f.Helper()
	var buf bytes.Buffer
	add := func(t string, v any) {
		r, err := newRecord(t, t0, v)
		if err != nil {
			f.Fatal(err)
		}
		line, err := encodeLine(&r)
		if err != nil {
			f.Fatal(err)
		}
		buf.Write(line)
	}
	add(recHead, genData{Gen: 0})
	add(recCharge, testCharge(1))
	add(recEvent, eventData{E: []byte(`{"eventId":"e1","event":"payment_completed","transactionId":"ch-0001","createdAt":"2025-03-01T12:00:00Z"}`), N: 1})
	add(recEventDup, dupData{ID: "e1"})
	add(recSubBegin, Submission{Key: "key-12345678", Request: api.CreatePixRequest{Amount: 100}})
	add(recSubDone, subDoneData{Key: "key-12345678"})
	add(recFee, LearnedFee{Fee: 99, LearnedAt: t0})
	add(recLookup, Lookup{Query: "x", At: t0})
	return buf.Bytes()
}

func FuzzParseRecords(f *testing.F) {
	valid := seedJournal(f)
	f.Add(valid)
	f.Add(valid[:len(valid)-5])
	f.Add(append(append([]byte{}, valid...), "junk\n"...))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"v":1,"t":"charge","at":"2025-03-01T12:00:00Z","d":{}} 00000000` + "\n"))
	f.Fuzz(func(t *testing.T, buf []byte) {
		p := parseRecords(buf)
		if p.good < 0 || p.good > int64(len(buf)) {
			t.Fatalf("good prefix %d of %d bytes", p.good, len(buf))
		}
		if p.badLine == 0 && p.good != int64(len(buf)) {
			t.Fatalf("no damage but only %d of %d bytes good", p.good, len(buf))
		}
		if p.badLine != 0 && p.badLine <= p.lines {
			t.Fatalf("damage at line %d inside the good prefix of %d lines", p.badLine, p.lines)
		}
		// The good prefix parses cleanly to the same records, and they re-encode to valid lines.
		q := parseRecords(buf[:p.good])
		if q.badLine != 0 || len(q.recs) != len(p.recs) {
			t.Fatalf("good prefix reparses to %d records, damage %d", len(q.recs), q.badLine)
		}
		for i := range p.recs {
			line, err := encodeLine(&p.recs[i])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodeLine(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
				t.Fatalf("re-encoded record %d: %v", i, err)
			}
		}
	})
}

// FuzzOpenJournal opens arbitrary journal bytes: Open never panics, reports at most a
// *CorruptError, and leaves files that open cleanly afterwards.
func FuzzOpenJournal(f *testing.F) {
	valid := seedJournal(f)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(append([]byte("garbage\n"), valid...))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, buf []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.journal"), buf, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, "p")
		var ce *CorruptError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("Open: %v", err)
		}
		if s == nil {
			t.Fatal("no store")
		}
		n := s.Charges().Total()
		if _, err := s.UpsertCharge(testCharge(77)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(dir, "p")
		if err != nil {
			t.Fatalf("second Open: %v", err)
		}
		defer s2.Close()
		if got := s2.Charges().Total(); got < n || got > n+1 {
			t.Fatalf("%d charges after reopen, had %d plus one", got, n)
		}
		if _, ok := s2.Charge("ch-0077"); !ok {
			t.Fatal("acknowledged charge lost")
		}
	})
}

// FuzzDecodeEnvelope checks that the fast envelope reader agrees with encoding/json.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(`{"v":1,"t":"charge","at":"2025-03-01T12:00:00Z","d":{"id":"x"}}`)
	f.Add(`{"v":1,"t":"event_dup","at":"2025-03-01T12:00:00.123456789-03:00","d":{"id":"e\"1"}}`)
	f.Add(`{"v":1,"t":"x","at":"bad","d":1}`)
	f.Add(`{"v":1,"t":"x","at":"2025-03-01T12:00:00Z","d":}`)
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := decodeEnvelope([]byte(s))
		if !ok {
			return
		}
		if !json.Valid(r.D) {
			return // the fast path does not validate "d": its reader does, and skips the record
		}
		var want record
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("fast path accepted %q that encoding/json refuses: %v", s, err)
		}
		if r.V != want.V || r.T != want.T || !r.At.Equal(want.At) || !bytes.Equal(r.D, want.D) {
			t.Fatalf("fast %+v, json %+v", r, want)
		}
	})
}
