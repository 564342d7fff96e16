package state

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func openT(t *testing.T, dir, profile string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(dir, profile, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testCharge(i int) Charge {
	return Charge{ID: fmt.Sprintf("ch-%04d", i), Amount: api.Money(100 + i), Status: api.StatusPending,
		CreatedAt: at(i), UpdatedAt: at(i), Description: fmt.Sprintf("item %d", i), Source: SourceCreated}
}

// fill writes a mix of every record type and returns what a reader should find.
func fill(t *testing.T, s *Store) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		_, err := s.UpsertCharge(testCharge(i))
		must(err)
	}
	paid := &api.Transaction{ID: "ch-0003", Status: api.StatusCompleted, PaidAt: tp(at(100)), UpdatedAt: tp(at(100)), E2EID: "E3"}
	_, ok, err := s.ApplyTransaction(paid)
	must(err)
	if !ok {
		t.Fatal("tracked charge not found")
	}
	e := &api.Event{EventID: "ev-1", Kind: api.EventPaymentCompleted, CreatedAt: at(200), TransactionID: "ch-0005",
		Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 50}}}
	first, err := s.ApplyEvent(e)
	must(err)
	if !first {
		t.Fatal("new event reported as duplicate")
	}
	first, err = s.ApplyEvent(e)
	must(err)
	if first {
		t.Fatal("duplicate reported as new")
	}
	ev2 := &api.Event{EventID: "ev-2", Kind: api.EventPaymentFailed, CreatedAt: at(300), TransactionID: "ch-9999", SubAccount: "loja-b", Amount: 4200}
	_, err = s.ApplyEvent(ev2)
	must(err)
	// The events changed no charge; the service's answers do.
	if c, _ := s.Charge("ch-0005"); c.Status != api.StatusPending {
		t.Fatalf("an event alone changed ch-0005: %+v", c)
	}
	r := &fakeReader{txs: map[string]*api.Transaction{
		"principal/ch-0005": {ID: "ch-0005", Status: api.StatusCompleted, Amount: testCharge(5).Amount, UpdatedAt: tp(at(200))},
		"loja-b/ch-9999":    {ID: "ch-9999", Status: api.StatusFailed, Amount: 4200, UpdatedAt: tp(at(300))},
	}}
	for _, ev := range []*api.Event{e, ev2} {
		c, err := s.ConfirmEvent(context.Background(), r, ev)
		must(err)
		if c.Verdict != VerdictConfirmed {
			t.Fatalf("%s: %s %s", ev.EventID, c.Verdict, c.Reason)
		}
	}
	must(s.BeginSubmission(Submission{Key: "key-pending-1", Wallet: "loja-a",
		Request: api.CreatePixRequest{Amount: 1500, Description: "pending", Metadata: map[string]any{"n": 12345678901234567}}}))
	must(s.BeginSubmission(Submission{Key: "key-done-0001", Request: api.CreatePixRequest{Amount: 2500}}))
	_, err = s.CompleteSubmission("key-done-0001", Charge{ID: "ch-created", Amount: 2500, Status: api.StatusPending, CreatedAt: at(400), Source: SourceCreated})
	must(err)
	must(s.BeginSubmission(Submission{Key: "key-refused-1", Request: api.CreatePixRequest{Amount: 1}}))
	must(s.AbandonSubmission("key-refused-1"))
	must(s.LearnFee(LearnedFee{Fee: 99, From: "split refusal", Wallet: "principal"}))
	for _, q := range []string{"a-ref", "b-ref", "a-ref"} {
		must(s.AddLookup(Lookup{Query: q, Found: true}))
	}
}

// checkFilled asserts what fill wrote.
func checkFilled(t *testing.T, s *Store) {
	t.Helper()
	cs := s.Charges()
	if cs.Total() != 12 {
		t.Fatalf("%d charges, want 12", cs.Total())
	}
	c, _ := s.Charge("ch-0003")
	if c.Status != api.StatusCompleted || c.E2EID != "E3" {
		t.Fatalf("ch-0003: %+v", c)
	}
	c, _ = s.Charge("ch-0005")
	if c.Status != api.StatusCompleted || !c.HasDistributed || len(c.SplitDistributed) != 1 {
		t.Fatalf("ch-0005: %+v", c)
	}
	c, _ = s.Charge("ch-9999")
	if c.Source != SourceEvent || c.Wallet != "loja-b" || c.Status != api.StatusFailed || c.Amount != 4200 {
		t.Fatalf("ch-9999: %+v", c)
	}
	for _, id := range []string{"ev-1", "ev-2"} {
		if e, _ := s.Events().Get(id); e.Verdict != VerdictConfirmed {
			t.Fatalf("%s verdict %q", id, e.Verdict)
		}
	}
	c, _ = s.Charge("ch-created")
	if c.IdempotencyKey != "key-done-0001" {
		t.Fatalf("ch-created: %+v", c)
	}
	if n := s.Events().Seen("ev-1"); n != 2 {
		t.Fatalf("ev-1 seen %d times, want 2", n)
	}
	if s.Events().Total() != 2 {
		t.Fatalf("%d events", s.Events().Total())
	}
	subs := s.PendingSubmissions()
	if len(subs) != 1 || subs[0].Key != "key-pending-1" || subs[0].Wallet != "loja-a" || subs[0].Request.Amount != 1500 {
		t.Fatalf("pending submissions %+v", subs)
	}
	// Metadata numbers come back exactly as first sent (an idempotent retry must send the same body).
	if got := fmt.Sprint(subs[0].Request.Metadata["n"]); got != "12345678901234567" {
		t.Fatalf("metadata number %s", got)
	}
	fee, ok := s.LearnedFee()
	if !ok || fee.Fee != 99 || fee.From != "split refusal" {
		t.Fatalf("fee %+v %v", fee, ok)
	}
	var qs []string
	for _, l := range s.RecentLookups() {
		qs = append(qs, l.Query)
	}
	if !slices.Equal(qs, []string{"a-ref", "b-ref"}) {
		t.Fatalf("lookups %v", qs)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: t0}
	s := openT(t, dir, "loja", WithClock(clk.now))
	fill(t, s)
	checkFilled(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertCharge(testCharge(50)); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	s2 := openT(t, dir, "loja", WithClock(clk.now))
	checkFilled(t, s2)
	// The journal is JSON lines with checksums and carries no secret.
	data, err := os.ReadFile(s2.Path())
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if _, err := decodeLine(line); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if !bytes.HasPrefix(line, []byte(`{"v":1,"t":"`)) {
			t.Fatalf("line %d: %s", i+1, line)
		}
	}
}

func TestStoreNoWriteWhenUnchanged(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	if _, err := s.UpsertCharge(testCharge(1)); err != nil {
		t.Fatal(err)
	}
	size := fileSize(t, s.Path())
	if _, err := s.UpsertCharge(testCharge(1)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ApplyTransaction(&api.Transaction{ID: "ch-0001", Status: api.StatusPending}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if fileSize(t, s.Path()) != size {
		t.Fatal("an update that changed nothing was written")
	}
	if _, ok, _ := s.ApplyTransaction(&api.Transaction{ID: "unknown", Status: api.StatusPending}); ok {
		t.Fatal("untracked transaction reported as tracked")
	}
	if fileSize(t, s.Path()) != size {
		t.Fatal("an untracked transaction was written")
	}
	c, err := s.TrackTransaction(&api.Transaction{ID: "looked-up", Status: api.StatusCompleted, Amount: 500, CreatedAt: at(5)}, "")
	if err != nil || c.Source != SourceLookup || c.Wallet != "principal" {
		t.Fatalf("%+v %v", c, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestStoreTornTail(t *testing.T) {
	tests := []struct {
		name string
		tail func(line []byte) []byte
	}{
		{"half a record", func(line []byte) []byte { return line[:len(line)/2] }},
		{"record without newline", func(line []byte) []byte { return line[:len(line)-1] }},
		{"zeros", func([]byte) []byte { return make([]byte, 300) }},
		{"bad checksum at the end", func(line []byte) []byte {
			b := slices.Clone(line)
			b[20] ^= 1
			return b
		}},
		{"two damaged lines", func(line []byte) []byte { return append([]byte("garbage\n"), line[:10]...) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir, "p")
			for i := range 3 {
				if _, err := s.UpsertCharge(testCharge(i)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			good := fileSize(t, s.Path())
			r, _ := newRecord(recCharge, t0, testCharge(99))
			line, _ := encodeLine(&r)
			appendFile(t, s.Path(), tt.tail(line))

			s2, err := Open(dir, "p")
			if err != nil {
				t.Fatalf("torn tail reported: %v", err)
			}
			defer s2.Close()
			if s2.Charges().Total() != 3 {
				t.Fatalf("%d charges", s2.Charges().Total())
			}
			if _, ok := s2.Charge("ch-0099"); ok {
				t.Fatal("torn record applied")
			}
			if got := fileSize(t, s.Path()); got != good {
				t.Fatalf("journal is %d bytes, want truncated to %d", got, good)
			}
			// Appending after the truncation leaves a clean journal.
			if _, err := s2.UpsertCharge(testCharge(7)); err != nil {
				t.Fatal(err)
			}
			s2.Close()
			s3 := openT(t, dir, "p")
			if s3.Charges().Total() != 4 {
				t.Fatalf("%d charges after reopen", s3.Charges().Total())
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*corrupt*")); len(m) != 0 {
				t.Fatalf("torn tail treated as corruption: %v", m)
			}
		})
	}
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestStoreMidFileCorruption(t *testing.T) {
	tests := []struct {
		name   string
		damage func(line []byte) []byte
	}{
		{"flipped byte", func(line []byte) []byte {
			b := slices.Clone(line)
			b[30] ^= 0x20
			return b
		}},
		{"checksum removed", func(line []byte) []byte { return line[:len(line)-9] }},
		{"not json", func(line []byte) []byte { return []byte("hello world 0000000z") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			clk := &clock{t: t0}
			s := openT(t, dir, "p", WithClock(clk.now))
			for i := range 6 {
				if _, err := s.UpsertCharge(testCharge(i)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			orig, err := os.ReadFile(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(orig, []byte("\n"))
			// Line 1 is the header, lines 2..7 the charges: damage line 4 (the third charge).
			lines[3] = append(tt.damage(bytes.TrimSuffix(lines[3], []byte("\n"))), '\n')
			damaged := bytes.Join(lines, nil)
			if err := os.WriteFile(s.Path(), damaged, 0o600); err != nil {
				t.Fatal(err)
			}

			s2, err := Open(dir, "p", WithClock(clk.now))
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v, want *CorruptError", err)
			}
			if s2 == nil {
				t.Fatal("no store with the corruption error")
			}
			defer s2.Close()
			if ce.Line != 4 || ce.Path != s.Path() || !strings.Contains(ce.Error(), ce.MovedTo) {
				t.Fatalf("%+v: %v", ce, ce)
			}
			// Moved, not deleted: byte for byte.
			moved, err := os.ReadFile(ce.MovedTo)
			if err != nil || !bytes.Equal(moved, damaged) {
				t.Fatalf("moved file differs (%v)", err)
			}
			if !strings.HasPrefix(filepath.Base(ce.MovedTo), "p.journal.corrupt-") {
				t.Fatalf("moved to %s", ce.MovedTo)
			}
			// The good prefix (two charges) is kept, in memory and on disk.
			if got := s2.Charges().Total(); got != 2 {
				t.Fatalf("%d charges kept, want 2", got)
			}
			if _, err := s2.UpsertCharge(testCharge(40)); err != nil {
				t.Fatal(err)
			}
			s2.Close()
			s3, err := Open(dir, "p", WithClock(clk.now))
			if err != nil {
				t.Fatalf("reopen after recovery: %v", err)
			}
			defer s3.Close()
			if got := s3.Charges().Total(); got != 3 {
				t.Fatalf("%d charges after reopen, want 3", got)
			}
			// A second damage an hour later goes to a different name.
			clk.add(time.Hour)
			s3.Close()
			j, _ := os.ReadFile(s3.Path())
			j = append([]byte("junk\n"), j...)
			os.WriteFile(s3.Path(), j, 0o600)
			s4, err := Open(dir, "p", WithClock(clk.now))
			if !errors.As(err, &ce) || ce.Line != 1 {
				t.Fatalf("second damage: %v", err)
			}
			s4.Close()
			if m, _ := filepath.Glob(filepath.Join(dir, "p.journal.corrupt-*")); len(m) != 2 {
				t.Fatalf("corrupt files %v", m)
			}
		})
	}
}

func TestStoreCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p", WithCompactEvery(5))
	for i := range 8 {
		if _, err := s.UpsertCharge(testCharge(i)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	snap := filepath.Join(dir, "p.snapshot")
	data, err := os.ReadFile(snap)
	if err != nil {
		t.Fatalf("no snapshot after compaction: %v", err)
	}
	// Drop the end record: the snapshot looks complete line by line but is cut short.
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	cut := bytes.Join(lines[:len(lines)-2], nil) // without the end record and the last charge
	os.WriteFile(snap, cut, 0o600)

	s2, err := Open(dir, "p")
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != snap {
		t.Fatalf("err %v", err)
	}
	defer s2.Close()
	if moved, _ := os.ReadFile(ce.MovedTo); !bytes.Equal(moved, cut) {
		t.Fatal("snapshot not moved aside intact")
	}
	// The snapshot's readable records plus the journal: 8 charges minus the one cut.
	if got := s2.Charges().Total(); got != 7 {
		t.Fatalf("%d charges", got)
	}
}

func TestStoreConcurrentInstances(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 4, 40
	for _, every := range []int{DefaultCompactEvery, 25} {
		t.Run(fmt.Sprintf("compact every %d", every), func(t *testing.T) {
			profile := fmt.Sprintf("shared-%d", every)
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(dir, profile, WithCompactEvery(every))
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					// Two goroutines per instance: batches inside one instance, appends across instances.
					var inner sync.WaitGroup
					for g := range 2 {
						inner.Add(1)
						go func() {
							defer inner.Done()
							for i := range each / 2 {
								c := testCharge(0)
								c.ID = fmt.Sprintf("w%d-g%d-%03d", w, g, i)
								if _, err := s.UpsertCharge(c); err != nil {
									errs <- err
									return
								}
								if i%10 == 0 {
									if _, err := s.ApplyEvent(ev(fmt.Sprintf("ev-%d-%d-%d", w, g, i), api.EventRefundCompleted, "", i)); err != nil {
										errs <- err
										return
									}
									if _, err := s.Refresh(); err != nil {
										errs <- err
										return
									}
								}
							}
						}()
					}
					inner.Wait()
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			s := openT(t, dir, profile)
			if got := s.Charges().Total(); got != writers*each {
				t.Fatalf("%d charges, want %d", got, writers*each)
			}
			for w := range writers {
				for g := range 2 {
					for i := range each / 2 {
						if _, ok := s.Charge(fmt.Sprintf("w%d-g%d-%03d", w, g, i)); !ok {
							t.Fatalf("w%d-g%d-%03d missing", w, g, i)
						}
					}
				}
			}
			if got := s.Events().Total(); got != writers*2*2 {
				t.Fatalf("%d events", got)
			}
		})
	}
}

func TestStoreRefreshSeesOtherInstance(t *testing.T) {
	dir := t.TempDir()
	a := openT(t, dir, "p", WithCompactEvery(8))
	b := openT(t, dir, "p", WithCompactEvery(8))
	if changed, err := b.Refresh(); changed || err != nil {
		t.Fatalf("nothing written yet: %v %v", changed, err)
	}
	for i := range 3 {
		if _, err := a.UpsertCharge(testCharge(i)); err != nil {
			t.Fatal(err)
		}
	}
	changed, err := b.Refresh()
	if !changed || err != nil || b.Charges().Total() != 3 {
		t.Fatalf("changed %v err %v total %d", changed, err, b.Charges().Total())
	}
	if changed, _ := b.Refresh(); changed {
		t.Fatal("second refresh reports a change")
	}
	// Records that touch neither charges nor events count as changes too.
	if err := a.LearnFee(LearnedFee{Fee: 75}); err != nil {
		t.Fatal(err)
	}
	if changed, err := b.Refresh(); !changed || err != nil {
		t.Fatalf("fee not refreshed: %v %v", changed, err)
	}
	if f, ok := b.LearnedFee(); !ok || f.Fee != 75 {
		t.Fatalf("fee %+v", f)
	}
	// b writes: its own record and a's next ones interleave; a compaction by a is noticed by b.
	if _, err := b.UpsertCharge(testCharge(10)); err != nil {
		t.Fatal(err)
	}
	for i := 3; i < 12; i++ {
		if _, err := a.UpsertCharge(testCharge(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p.snapshot")); err != nil {
		t.Fatal("a did not compact")
	}
	b.Charges().SetFilter("item 1", FilterAll)
	if changed, err := b.Refresh(); !changed || err != nil {
		t.Fatalf("after compaction: %v %v", changed, err)
	}
	if b.Charges().Total() != 12 || a.Charges().Total() != 12 {
		t.Fatalf("a %d b %d", a.Charges().Total(), b.Charges().Total())
	}
	// The filter survives the reload: "item 1", "item 10", "item 11".
	if b.Charges().Len() != 3 {
		t.Fatalf("filtered %d", b.Charges().Len())
	}
}

func TestStoreSubmissionsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	req := api.CreatePixRequest{Amount: 1234, Description: "mesa 4", ExternalReference: "pedido-7",
		Split: []api.SplitItem{{SubAccount: "loja-a", Amount: 200}}}
	if err := s.BeginSubmission(Submission{Key: "short", Request: req}); err == nil {
		t.Fatal("a key shorter than 8 characters was accepted")
	}
	for _, k := range []string{"key-aaaaaaaa", "key-bbbbbbbb", "key-cccccccc"} {
		if err := s.BeginSubmission(Submission{Key: k, Wallet: "loja-b", Request: req}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	s2 := openT(t, dir, "p")
	subs := s2.PendingSubmissions()
	if len(subs) != 3 {
		t.Fatalf("%d pending", len(subs))
	}
	// Resolve one (the charge exists), abandon one (404 then refused), keep one.
	tx := &api.Transaction{ID: "real-id", Status: api.StatusPending, Amount: 1234, CreatedAt: at(9), PixCopyPaste: "000201"}
	c, err := s2.ResolveSubmission("key-aaaaaaaa", tx)
	if err != nil {
		t.Fatal(err)
	}
	if c.IdempotencyKey != "key-aaaaaaaa" || c.Wallet != "loja-b" || c.Description != "mesa 4" || c.Source != SourceLookup ||
		len(c.SplitRequested) != 1 || c.PixCopyPaste != "000201" {
		t.Fatalf("resolved %+v", c)
	}
	if err := s2.AbandonSubmission("key-bbbbbbbb"); err != nil {
		t.Fatal(err)
	}
	if err := s2.BeginSubmission(Submission{Key: "key-aaaaaaaa", Request: req}); err == nil {
		t.Fatal("a finished key was begun again")
	}
	s2.Close()

	s3 := openT(t, dir, "p")
	subs = s3.PendingSubmissions()
	if len(subs) != 1 || subs[0].Key != "key-cccccccc" || !equalJSON(t, subs[0].Request, req) {
		t.Fatalf("pending %+v", subs)
	}
	if sub, ok := s3.Submission("key-cccccccc"); !ok || sub.Wallet != "loja-b" {
		t.Fatalf("Submission: %+v %v", sub, ok)
	}
	if c, ok := s3.Charge("real-id"); !ok || c.IdempotencyKey != "key-aaaaaaaa" {
		t.Fatalf("resolved charge lost: %+v", c)
	}
}

func TestStoreCompactionKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: t0}
	s := openT(t, dir, "p", WithClock(clk.now), WithCompactEvery(7))
	fill(t, s)
	checkFilled(t, s)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	// After an explicit compaction the journal holds only its header.
	data, _ := os.ReadFile(s.Path())
	if n := bytes.Count(data, []byte("\n")); n != 1 {
		t.Fatalf("journal has %d lines after Compact", n)
	}
	checkFilled(t, s)
	s.Close()
	s2 := openT(t, dir, "p", WithClock(clk.now))
	checkFilled(t, s2)
	if err := s2.Compact(); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	s3 := openT(t, dir, "p", WithClock(clk.now))
	checkFilled(t, s3)
}

func TestStoreStaleJournalAfterCrashInCompaction(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	fill(t, s)
	s.Close()
	journal, _ := os.ReadFile(s.Path())
	// Compact, then put the old journal back: as if the process died after renaming the
	// snapshot and before emptying the journal. Its records are in the snapshot already.
	s2 := openT(t, dir, "p")
	if err := s2.Compact(); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	os.WriteFile(s.Path(), journal, 0o600)
	s3 := openT(t, dir, "p")
	checkFilled(t, s3) // ev-1 counted twice, not four times
	if data, _ := os.ReadFile(s3.Path()); bytes.Count(data, []byte("\n")) != 1 {
		t.Fatal("stale journal not emptied")
	}
}

func TestMemoryStoreWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", dir)
	wd, _ := os.Getwd()
	before, _ := os.ReadDir(wd)
	s := OpenMemory()
	if s.Persistent() || s.Path() != "" {
		t.Fatal("memory store claims to persist")
	}
	fill(t, s)
	checkFilled(t, s)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Refresh(); changed || err != nil {
		t.Fatal(changed, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("memory store wrote %v", entries)
	}
	if after, _ := os.ReadDir(wd); len(after) != len(before) {
		t.Fatal("memory store wrote into the working directory")
	}
}

func TestProfileFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"loja", "loja"},
		{"Loja_2.prod-x", "Loja_2.prod-x"},
		{"", "default"},
	}
	for _, tt := range tests {
		if got := ProfileFileName(tt.in); got != tt.want {
			t.Errorf("%q -> %q, want %q", tt.in, got, tt.want)
		}
	}
	seen := map[string]string{}
	for _, in := range []string{"a/b", "a_b", "a b", "../x", "..", ".", ".hidden", "é", "e", strings.Repeat("x", 200), "C:\\x", "a\x00b"} {
		got := ProfileFileName(in)
		if strings.ContainsAny(got, "/\\ \x00") || strings.HasPrefix(got, ".") || got == "" || len(got) > 80 {
			t.Errorf("%q -> unsafe %q", in, got)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q share %q", prev, in, got)
		}
		seen[got] = in
	}
	// The sanitised name is what lands on disk.
	dir := t.TempDir()
	s := openT(t, dir, "../../escape")
	if _, err := s.UpsertCharge(testCharge(1)); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Path()) != dir {
		t.Fatalf("journal at %s", s.Path())
	}
}

// An event alone never changes a charge (a webhook is a hint); the service's answer does.
func TestStoreEventLeavesChargeToTheService(t *testing.T) {
	s := OpenMemory()
	c, err := s.UpsertCharge(testCharge(1))
	if err != nil {
		t.Fatal(err)
	}
	v := s.Charges().Version()
	e := &api.Event{EventID: "x", Kind: api.EventPaymentExpired, CreatedAt: at(900), TransactionID: c.ID}
	first, err := s.ApplyEvent(e)
	if err != nil || !first {
		t.Fatal(first, err)
	}
	if got, _ := s.Charge(c.ID); got.State() != StatePending || s.Charges().Version() != v {
		t.Fatalf("the event alone changed the charge: %+v", got)
	}
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/" + c.ID: {ID: c.ID, Status: api.StatusCancelled, Amount: c.Amount, UpdatedAt: tp(at(900))}}}
	if _, err := s.ConfirmEvent(context.Background(), r, e); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Charge(c.ID)
	if got.State() != StateExpired || s.Charges().Version() == v || s.Charges().PendingCount() != 0 {
		t.Fatalf("%+v", got)
	}
	if _, err := s.ApplyEvent(&api.Event{Kind: api.EventPaymentCompleted}); err == nil {
		t.Fatal("event without id accepted")
	}
}

// TestStoreConcurrentReaders reads the collections the way the UI does while two instances
// write and refresh; run with -race it checks the locking.
func TestStoreConcurrentReaders(t *testing.T) {
	dir := t.TempDir()
	a := openT(t, dir, "p", WithCompactEvery(30))
	b := openT(t, dir, "p", WithCompactEvery(30))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			cs := a.Charges()
			cs.SetFilter([]string{"", "item", "item 1"}[i%3], FilterAll)
			rows, _ := cs.Window(0, 20)
			for _, c := range rows {
				_ = c.State()
			}
			_, _ = cs.At(cs.Len() - 1)
			_ = cs.DuePolls(at(i), "ch-0001", 3)
			_, _ = a.Events().Window(0, 10)
			_ = a.PendingSubmissions()
			_ = a.RecentLookups()
		}
	}()
	for i := range 60 {
		if _, err := a.UpsertCharge(testCharge(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.ApplyEvent(ev(fmt.Sprintf("e%d", i), api.EventPaymentCompleted, "", i)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if _, err := a.Refresh(); err != nil {
		t.Fatal(err)
	}
	if a.Events().Total() != 60 {
		t.Fatalf("a sees %d events", a.Events().Total())
	}
	// The events of b created no charges: only the service's answers add charges.
	if a.Charges().Total() != 60 {
		t.Fatalf("a sees %d charges", a.Charges().Total())
	}
}
