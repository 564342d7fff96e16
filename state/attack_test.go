package state

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// fillStore writes a little of everything: charges (some pending), events, a submission.
func fillStore(t *testing.T, s *Store, prefix string, n int) {
	t.Helper()
	var evs []*api.Event
	for i := range n {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		st := []api.TxStatus{api.StatusPending, api.StatusCompleted}[i%2]
		if _, err := s.UpsertCharge(ctx, Charge{ID: id, Amount: api.Money(100 + i), Status: st, CreatedAt: at(i), Description: "item " + id}); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, testEvent(t, "ev-"+id, api.EventPaymentCompleted, id))
	}
	if _, err := s.ApplyEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginSubmission(ctx, Submission{Key: "key-" + prefix + "-0001", Request: api.CreatePixRequest{Amount: 500}}); err != nil {
		t.Fatal(err)
	}
}

// checkFilled fails the test unless everything fillStore wrote is readable in s.
func checkFilled(t *testing.T, s *Store, prefix string, n int) {
	t.Helper()
	for i := range n {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		if c, ok := chargeT(t, s, id); !ok || c.Amount != api.Money(100+i) {
			t.Fatalf("charge %s: %+v %v", id, c, ok)
		}
		if e, ok := eventT(t, s, "ev-"+id); !ok || e.Damaged || e.Event.TransactionID != id {
			t.Fatalf("event ev-%s: %+v %v", id, e, ok)
		}
	}
	if _, ok, err := s.Submission(ctx, "key-"+prefix+"-0001"); !ok || err != nil {
		t.Fatalf("submission of %s: %v %v", prefix, ok, err)
	}
}

// readAll reads every window of s the dashboard reads and fails the test on an error.
func readAll(t *testing.T, s *Store) {
	t.Helper()
	cp := windowT(t, s, ChargeQuery{}, 0, 1<<20)
	ep, err := s.EventWindow(ctx, EventQuery{}, 0, 1<<20)
	if err != nil || len(cp.Charges) != cp.Total || len(ep.Entries) != ep.Total {
		t.Fatalf("windows: %d of %d charges, %d of %d events (%v)", len(cp.Charges), cp.Total, len(ep.Entries), ep.Total, err)
	}
	for _, e := range ep.Entries {
		if e.Damaged {
			t.Fatalf("event %s reads back damaged", e.Event.EventID)
		}
	}
	if _, err := s.UncheckedPayments(ctx, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EventsAfter(ctx, 0, 1<<20); err != nil {
		t.Fatal(err)
	}
}

// (a) Deeply nested events, signed (so verified) and delivered to the receiver: each is
// refused with a 4xx or stored whole; either way everything stays readable, then and after a
// reopen.
func TestAttackDeeplyNestedEvent(t *testing.T) {
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	cases := []struct {
		name, id, body string
	}{
		{"9,999 deep in data", "deep-data", `{"event":"payment_completed","eventId":"deep-data","data":{"transactionId":"ch-000","x":` + arrays(9997) + `}}`},
		{"9,999 deep at the top", "deep-top", `{"eventId":"deep-top","event":"payment_completed","transactionId":"ch-001","x":` + arrays(9998) + `}`},
		{"9,999 deep objects", "deep-obj", `{"eventId":"deep-obj","event":"refund_completed","x":` + objects(9998) + `}`},
		{"10,001 deep", "deep-over", `{"eventId":"deep-over","event":"payment_completed","x":` + arrays(10000) + `}`},
		{"100,000 deep", "deep-huge", `{"eventId":"deep-huge","event":"payment_completed","x":` + arrays(99999) + `}`},
		{"a nested eventId", "", `{"eventId":` + arrays(9998) + `,"event":"payment_completed"}`},
		{"a nested data", "deep-env", `{"event":"payment_completed","eventId":"deep-env","data":` + objects(9998) + `}`},
	}
	dir := t.TempDir()
	s := openT(t, dir, "p")
	fillStore(t, s, "ch", 3)
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	url := serveIntake(t, in)
	stored := map[string]string{}
	for _, c := range cases {
		code, reply, err := deliver(http.DefaultClient, url, []byte(c.body), testSecret)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := eventT(t, s, c.id)
		switch {
		case code == http.StatusOK && (!ok || e.Count != 1 || string(e.Event.Raw) != c.body):
			t.Errorf("%s: answered 200 but not stored whole (found %v)", c.name, ok)
		case code >= 400 && code < 500 && ok:
			t.Errorf("%s: refused with %d but stored", c.name, code)
		case code != http.StatusOK && (code < 400 || code >= 500):
			t.Errorf("%s: %d %q, want 200 or a 4xx", c.name, code, reply)
		}
		t.Logf("%s: %d", c.name, code)
		if code == http.StatusOK {
			stored[c.id] = c.body
		}
	}
	// Everything after is unharmed.
	fillStore(t, s, "after", 3)
	readAll(t, s)
	r := &fakeReader{txs: map[string]*api.Transaction{"principal/ch-000": {ID: "ch-000", Status: api.StatusCompleted, Amount: 100}}}
	if e, ok := eventT(t, s, "deep-data"); ok {
		if cf, err := s.ConfirmEvent(ctx, r, e.Event); err != nil || cf.Verdict != VerdictConfirmed {
			t.Fatalf("reading back the deep event: %+v %v", cf, err)
		}
	}
	in.Close()
	s.Close()
	s = openT(t, dir, "p")
	checkFilled(t, s, "ch", 3)
	checkFilled(t, s, "after", 3)
	readAll(t, s)
	for id, body := range stored {
		if e, ok := eventT(t, s, id); !ok || string(e.Event.Raw) != body {
			t.Fatalf("%s changed after reopen", id)
		}
	}
	checkIntegrity(t, s)
}

// (b) A torn write: the write-ahead log as a crash in the middle of a commit (B) leaves it,
// after a commit (A) that was acknowledged. A is always kept; B is kept whole or not at all.
func TestAttackTornWAL(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	fillStore(t, s, "a", 8)
	// The background checkpointer copies the log into the file at any moment after a commit:
	// stopped (its last checkpoint finished), so the database file stays as the copies below
	// take it and only the log grows, as with SQLite's own checkpoint below walFallbackPages.
	if err := s.ckpt.close(); err != nil {
		t.Fatal(err)
	}
	s.ckpt = nil
	file := s.Path()
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The store stays open (no checkpoint): the files are copied as they are on disk.
	db, wal1 := read(file), read(file+"-wal")
	var batch []*api.Event
	for i := range 30 {
		batch = append(batch, testEvent(t, fmt.Sprintf("b-%02d", i), api.EventRefundCompleted, fmt.Sprintf("tx-b-%d", i)))
	}
	if _, err := s.ApplyEvents(ctx, batch); err != nil { // one transaction
		t.Fatal(err)
	}
	wal2 := read(file + "-wal")
	if !bytes.HasPrefix(wal2, wal1) || len(wal2) <= len(wal1) || !bytes.Equal(read(file), db) {
		t.Fatalf("B was not appended to the log (%d then %d bytes): the copies do not show a torn write", len(wal1), len(wal2))
	}
	var pageSize int
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	frame := 24 + pageSize
	r := rand.New(rand.NewPCG(7, 7))
	garbage := make([]byte, 3*frame)
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	zeroedTail := slices.Clone(wal2)
	clear(zeroedTail[len(zeroedTail)-pageSize/2:])
	join := func(a, b []byte) []byte { return append(slices.Clone(a), b...) }
	cases := []struct {
		name  string
		wal   []byte
		withB bool
	}{
		{"B whole", wal2, true},
		{"A only", wal1, false},
		{"B cut in its first frame", wal2[:len(wal1)+frame/2], false},
		{"B cut before its commit frame ends", wal2[:len(wal2)-100], false},
		{"B's last sectors never written", zeroedTail, false},
		{"garbage after A", join(wal1, garbage), false},
		{"zeros after A", join(wal1, make([]byte, 3*frame)), false},
		{"B cut, then garbage", join(wal2[:len(wal2)-frame], garbage), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			name := filepath.Join(d, DBFileName("p"))
			if err := os.WriteFile(name, db, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name+"-wal", c.wal, 0o600); err != nil {
				t.Fatal(err)
			}
			s := openT(t, d, "p")
			checkFilled(t, s, "a", 8)
			got := 0
			for _, e := range batch {
				if _, ok := eventT(t, s, e.EventID); ok {
					got++
				}
			}
			if want := map[bool]int{true: len(batch)}[c.withB]; got != want {
				t.Fatalf("%d of B's %d events kept, want %d", got, len(batch), want)
			}
			// The store goes on: a new write, then a reopen.
			fillStore(t, s, "c", 2)
			s.Close()
			s = openT(t, d, "p")
			checkFilled(t, s, "a", 8)
			checkFilled(t, s, "c", 2)
			readAll(t, s)
			checkIntegrity(t, s)
		})
	}
}

// (c) The disk fills up while deliveries arrive over HTTP: the receiver answers 503 (the
// sender retries), the store says the disk is full, what was acknowledged stays, and once
// there is room again intake resumes by itself: the same senders' retries get 200.
func TestAttackDiskFull(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, "p")
	fillStore(t, s, "before", 3)
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	url := serveIntake(t, in)
	var (
		mu       sync.Mutex
		acked    = map[string]int{}
		refused  = map[string]bool{}
		reply503 string
		nAcked   atomic.Int32
		n503     atomic.Int32
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				id := fmt.Sprintf("s%d-%04d", g, i)
				for { // the sender's retries, until 200
					code, reply, err := deliver(http.DefaultClient, url, eventBody(id, "tx-"+id), testSecret)
					if err != nil || code != http.StatusOK && code != http.StatusServiceUnavailable {
						t.Errorf("delivery %s: %d %q %v", id, code, reply, err)
						return
					}
					mu.Lock()
					if code == http.StatusOK {
						acked[id]++
					} else {
						refused[id], reply503 = true, reply
					}
					mu.Unlock()
					if code == http.StatusOK {
						nAcked.Add(1)
						break
					}
					n503.Add(1)
					time.Sleep(5 * time.Millisecond)
				}
			}
		})
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) || t.Failed() {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("waiting for %s: %d acknowledged, %d refused", what, nAcked.Load(), n503.Load())
			}
		}
	}
	waitFor("deliveries", func() bool { return nAcked.Load() >= 20 })
	pages, err := s.pageCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.setMaxPages(ctx, pages); err != nil { // the disk is full now
		t.Fatal(err)
	}
	waitFor("the disk to fill", func() bool { return n503.Load() >= 8 })

	// The store and the intake name the cause; reads go on.
	pad := strings.Repeat("x", 3*4096)
	if _, err := s.UpsertCharge(ctx, Charge{ID: "big", Amount: 1, Status: api.StatusPending, Description: pad}); !errors.Is(err, ErrDiskFull) {
		t.Errorf("UpsertCharge on a full disk: %v, want ErrDiskFull", err)
	}
	if _, err := s.ApplyEvent(ctx, testEvent(t, "direct", api.EventRefundCompleted, "tx-d")); !errors.Is(err, ErrDiskFull) {
		t.Errorf("ApplyEvent on a full disk: %v, want ErrDiskFull", err)
	}
	bigEvent := []byte(`{"eventId":"big-ev","event":"refund_completed","pad":"` + pad + `"}`)
	err = in.Accept(bigEvent)
	if !errors.Is(err, api.ErrSinkFull) || !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "disk is full") {
		t.Errorf("Accept on a full disk: %v, want an api.ErrSinkFull naming the full disk", err)
	}
	readAll(t, s)

	done := nAcked.Load()
	if err := s.setMaxPages(ctx, 0); err != nil { // room again
		t.Fatal(err)
	}
	waitFor("intake to resume", func() bool { return nAcked.Load() >= done+20 })
	stop.Store(true)
	wg.Wait()
	if err := in.Accept(bigEvent); err != nil {
		t.Fatalf("Accept once there is room: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d deliveries acknowledged, %d refused while full (%q)", len(acked), len(refused), reply503)
	for id := range refused {
		if acked[id] != 1 {
			t.Fatalf("%s refused while full, then acknowledged %d times", id, acked[id])
		}
	}
	in.Close()
	s.Close()
	s = openT(t, dir, "p")
	stored := rowCounts(t, s, qEventCopies)
	for id := range acked {
		if stored[id] != 1 {
			t.Fatalf("acknowledged %s stored %d times", id, stored[id])
		}
	}
	if len(stored) != len(acked)+3+1 { // fillStore's 3 and big-ev
		t.Fatalf("%d events stored, %d acknowledged", len(stored), len(acked))
	}
	checkFilled(t, s, "before", 3)
	checkIntegrity(t, s)
}

// (d) Two windows on one profile (two Opens in one process) writing at once: everything from
// both is there exactly once, and Refresh shows each the other's writes.
func TestAttackTwoWindows(t *testing.T) {
	dir := t.TempDir()
	a, b := openT(t, dir, "p"), openT(t, dir, "p")
	const each = 12
	var wg sync.WaitGroup
	for w, s := range []*Store{a, b} {
		for g := range 2 {
			wg.Go(func() {
				for i := range each {
					id := fmt.Sprintf("w%d-g%d-%02d", w, g, i)
					if _, err := s.UpsertCharge(ctx, Charge{ID: id, Amount: 100, Status: api.StatusPending, CreatedAt: at(i)}); err != nil {
						t.Error(err)
						return
					}
					if i%3 == 0 {
						if _, err := s.ApplyEvent(ctx, testEvent(t, "ev-"+id, api.EventPaymentCompleted, id)); err != nil {
							t.Error(err)
							return
						}
						if _, err := s.Refresh(ctx); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, s := range []*Store{a, b, openT(t, dir, "p")} {
		if _, err := s.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		charges, events := rowCounts(t, s, qChargeIDs), rowCounts(t, s, qEventCopies)
		if len(charges) != 4*each || len(events) != 4*each/3 || s.PendingCount() != 4*each {
			t.Fatalf("%d charges, %d events, %d pending; want %d, %d, %d", len(charges), len(events), s.PendingCount(), 4*each, 4*each/3, 4*each)
		}
		for id, n := range events {
			if n != 1 {
				t.Fatalf("event %s stored with %d copies", id, n)
			}
		}
	}

	// Refresh: b sees a's writes, and only once.
	if changed, err := b.Refresh(ctx); changed || err != nil {
		t.Fatalf("nothing new, Refresh = %v %v", changed, err)
	}
	v, ch := b.Version(), b.Changed()
	if _, err := a.UpsertCharge(ctx, Charge{ID: "from-a", Amount: 700, Status: api.StatusPending, CreatedAt: at(100), UpdatedAt: at(100)}); err != nil {
		t.Fatal(err)
	}
	if changed, err := b.Refresh(ctx); !changed || err != nil || b.Version() == v {
		t.Fatalf("after a's write: Refresh = %v %v, version %d -> %d", changed, err, v, b.Version())
	}
	select {
	case <-ch:
	default:
		t.Fatal("Changed not signalled by Refresh")
	}
	if got := b.DuePolls(at(10_000), "", 1000); !slices.Contains(got, "from-a") || b.PendingCount() != 4*each+1 {
		t.Fatalf("b's polls miss a's pending charge: %d pending, due %v", b.PendingCount(), got)
	}
	if c, ok := b.Peek("from-a"); !ok || c.Amount != 700 {
		t.Fatalf("Peek(from-a) = %+v %v", c, ok)
	}
	if changed, _ := b.Refresh(ctx); changed {
		t.Fatal("a second Refresh reports a change")
	}
	// A charge a sees paid leaves b's polls; a fee a learns reaches b.
	if _, ok, err := a.ApplyTransaction(ctx, &api.Transaction{ID: "from-a", Status: api.StatusCompleted, UpdatedAt: tp(at(200))}); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := a.LearnFee(ctx, LearnedFee{Fee: 75, From: "split refusal"}); err != nil {
		t.Fatal(err)
	}
	if changed, err := b.Refresh(ctx); !changed || err != nil {
		t.Fatalf("Refresh = %v %v", changed, err)
	}
	if got := b.DuePolls(at(20_000), "from-a", 1000); slices.Contains(got, "from-a") || b.PendingCount() != 4*each {
		t.Fatalf("a paid charge is still polled by b: %d pending, due %v", b.PendingCount(), got)
	}
	if f, ok := b.LearnedFee(); !ok || f.Fee != 75 {
		t.Fatalf("b's fee %+v %v", f, ok)
	}
}

// (d) Two processes writing to one profile at once: everything each acknowledged is there
// exactly once, and a third process (this one) sees it all through Refresh.
func TestAttackTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, crashProfile)
	v := s.Version()
	l := newLedger()
	var helpers []*helper
	for _, run := range []string{"A", "B"} {
		helpers = append(helpers, startHelper(t, "TestCrashHelperWriter", envCrashDir+"="+dir, envCrashRun+"="+run, envCrashStop+"=8"))
	}
	var wg sync.WaitGroup
	for _, h := range helpers {
		h.start(t)
		wg.Go(func() {
			for {
				verb, kind, id, ok := h.next(t)
				if !ok {
					break
				}
				l.note(verb, kind, id)
			}
			if err := h.cmd.Wait(); err != nil {
				t.Errorf("helper: %v", err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if len(l.acked) == 0 || !equalJSON(t, l.acked, l.tried) {
		t.Fatalf("%d writes acknowledged of %d tried", len(l.acked), len(l.tried))
	}
	if changed, err := s.Refresh(ctx); !changed || err != nil || s.Version() == v {
		t.Fatalf("Refresh = %v %v", changed, err)
	}
	l.check(t, s, "after both")
	pending := rowCounts(t, s, `SELECT id, 1 FROM charges WHERE state = 'pending'`)
	if due := s.DuePolls(time.Now().Add(time.Hour), "", 1000); len(due) != len(pending) {
		t.Fatalf("%d due, %d pending", len(due), len(pending))
	}
	s.Close()
	s = openT(t, dir, crashProfile)
	l.check(t, s, "after a reopen")
	checkIntegrity(t, s)
}

// (e) One receiver per profile: a second OpenIntake, from this store, another store or another
// process, gets ErrReceiverBusy until the first intake is closed (or its process ends).
func TestAttackIntakeTwice(t *testing.T) {
	dir := t.TempDir()
	s1, s2 := openT(t, dir, "p"), openT(t, dir, "p")
	in1, err := s1.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Store{"same store": s1, "another store": s2} {
		if _, err := s.OpenIntake(); !errors.Is(err, ErrReceiverBusy) {
			t.Fatalf("%s: second OpenIntake = %v, want ErrReceiverBusy", name, err)
		}
	}
	other, err := openT(t, dir, "q").OpenIntake() // another profile is another receiver
	if err != nil {
		t.Fatalf("another profile: %v", err)
	}
	other.Close()
	if err := in1.Accept(eventBody("e-1", "tx-1")); err != nil {
		t.Fatal(err)
	}
	if err := in1.Close(); err != nil {
		t.Fatal(err)
	}
	in2, err := s2.OpenIntake()
	if err != nil {
		t.Fatalf("OpenIntake after the first closed: %v", err)
	}
	if _, err := s1.OpenIntake(); !errors.Is(err, ErrReceiverBusy) {
		t.Fatalf("OpenIntake while the second receives = %v", err)
	}
	if err := in2.Accept(eventBody("e-2", "tx-2")); err != nil {
		t.Fatal(err)
	}
	if err := in1.Accept(eventBody("e-3", "tx-3")); !errors.Is(err, ErrIntakeClosed) {
		t.Fatalf("Accept on the closed intake = %v", err)
	}
	in2.Close()

	// Another process holds the lock until it dies.
	h := startHelper(t, "TestCrashHelperReceiver", envCrashDir+"="+dir)
	h.start(t)
	if verb, _, _, ok := h.next(t); !ok || verb != "addr" {
		t.Fatal("the receiver process did not start")
	}
	s3 := openT(t, dir, crashProfile)
	if _, err := s3.OpenIntake(); !errors.Is(err, ErrReceiverBusy) {
		t.Fatalf("OpenIntake while another process receives = %v", err)
	}
	h.kill()
	in3, err := s3.OpenIntake()
	if err != nil {
		t.Fatalf("OpenIntake after the receiving process died: %v", err)
	}
	in3.Close()
}
