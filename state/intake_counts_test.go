package state

import (
	"bytes"
	"database/sql"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// holdWriter blocks the store's writer in a job until release is called, so that the writes
// queued meanwhile share its next commit; queued reports how many wait.
func holdWriter(t *testing.T, s *Store) (queued func() int, release func()) {
	t.Helper()
	held, free := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.write(ctx, func(*sql.Tx) (func(), error) {
			close(held)
			<-free
			return nil, nil
		})
	}()
	<-held
	queued = func() int {
		s.w.mu.Lock()
		defer s.w.mu.Unlock()
		return len(s.w.queue)
	}
	var once sync.Once
	release = func() { once.Do(func() { close(free) }) }
	t.Cleanup(release)
	return queued, release
}

// eventCountsT reads event_counts and a recount of the events, by wallet and kind.
func eventCountsT(t *testing.T, s *Store) (kept, recount map[string]int) {
	t.Helper()
	kept = rowCounts(t, s, `SELECT wallet || '/' || kind, n FROM event_counts WHERE n <> 0`)
	recount = rowCounts(t, s, `SELECT wallet || '/' || kind, count(*) FROM events NOT INDEXED GROUP BY wallet, kind`)
	return kept, recount
}

// The events' counts are written once per commit (migration 0012) and stay equal to a recount
// of the events: concurrent deliveries sharing commits, copies of one eventId (counted once),
// several wallets and kinds, and a delivery that fails inside a shared commit, which is rolled
// back and run again without it (what the others had added is not added twice).
func TestEventCountsPerCommitEqualRecount(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	body := func(id, kind, wallet string) []byte {
		sub := ""
		if wallet != "" {
			sub = fmt.Sprintf(`"subAccount":%q,`, wallet)
		}
		return fmt.Appendf(nil, `{"event":%q,"eventId":%q,"timestamp":"2026-11-23T12:00:00Z",%s"data":{"transactionId":"tx-%s","amount":12.34}}`, kind, id, sub, id)
	}
	kinds := []string{"payment_completed", "payment_expired", "refund_completed", "withdrawal_completed"}
	wallets := []string{"", "loja-centro", "loja-norte"}
	decoded := func(id string, i int) *api.Event {
		e, err := api.DecodeEvent(body(id, kinds[i%len(kinds)], wallets[i%len(wallets)]))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}

	// One shared commit holding good deliveries, copies and a failing one.
	queued, release := holdWriter(t, s)
	const group = 40
	var wg sync.WaitGroup
	errs := make([]error, group)
	for i := range group {
		wg.Go(func() {
			switch {
			case i == group/2: // fails inside the transaction: larger than the store keeps
				big := decoded("g-big", i)
				big.Raw = append(bytes.Clone(big.Raw), bytes.Repeat([]byte(" "), MaxEventBytes)...)
				_, errs[i] = s.ApplyEvents(ctx, []*api.Event{big})
			case i%10 == 9: // a copy of an event of this group
				_, errs[i] = s.ApplyEvents(ctx, []*api.Event{decoded(fmt.Sprintf("g-%d", i-1), i-1)})
			default:
				_, errs[i] = s.ApplyEvents(ctx, []*api.Event{decoded(fmt.Sprintf("g-%d", i), i)})
			}
		})
	}
	for deadline := time.Now().Add(10 * time.Second); queued() < group; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d writes queued", queued(), group)
		}
		time.Sleep(time.Millisecond)
	}
	v := s.Version()
	release()
	wg.Wait()
	for i, err := range errs {
		if (i == group/2) != (err != nil) {
			t.Fatalf("delivery %d: %v", i, err)
		}
	}
	if commits := s.Version() - v; commits > 3 {
		t.Errorf("%d commits for one group", commits)
	}
	kept, recount := eventCountsT(t, s)
	if !maps.Equal(kept, recount) {
		t.Fatalf("after a shared commit with a failed delivery: counts %v, recount %v", kept, recount)
	}

	// A flood through Accept from many senders, each event sent twice.
	const senders, each = 16, 25
	for w := range senders {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("f-%d-%d", w, i)
				b := body(id, kinds[(w+i)%len(kinds)], wallets[(w*i)%len(wallets)])
				for range 2 {
					if err := in.Accept(b); err != nil {
						t.Errorf("Accept %s: %v", id, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	kept, recount = eventCountsT(t, s)
	if !maps.Equal(kept, recount) {
		t.Fatalf("after a flood: counts %v, recount %v", kept, recount)
	}
	total := 0
	for _, n := range kept {
		total += n
	}
	if want := group - 1 - group/10 + senders*each; total != want {
		t.Fatalf("%d events counted, want %d", total, want)
	}
	// The events view's totals read the counts.
	page, err := s.EventWindow(ctx, EventQuery{Wallet: "loja-centro", Kind: "refund_completed"}, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != recount["loja-centro/refund_completed"] {
		t.Fatalf("the view's total %d, recount %d", page.Total, recount["loja-centro/refund_completed"])
	}
	// Pruning still counts down.
	if _, err := s.PruneEvents(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if kept, _ = eventCountsT(t, s); len(kept) != 0 {
		t.Fatalf("after pruning every event: counts %v", kept)
	}
	if err := s.Check(ctx, CheckTables); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// The events view's filtered windows, the read-back queue and the dedupe search an index (the
// intake's changes keep every index a view reads): a filter on a rare kind or a small wallet
// never scans the whole history.
func TestEventQueryPlans(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	for _, c := range []struct {
		name, sql string
		args      []any
		index     string
	}{
		{"view by kind", `SELECT ` + eventCols + ` FROM events WHERE kind = ? ORDER BY seq DESC LIMIT ? OFFSET ?`, []any{"refund_completed", 40, 0}, "events_kind"},
		{"view by wallet", `SELECT ` + eventCols + ` FROM events WHERE wallet = ? ORDER BY seq DESC LIMIT ? OFFSET ?`, []any{"loja-norte", 40, 0}, "events_wallet"},
		{"view by wallet and kind", `SELECT ` + eventCols + ` FROM events WHERE wallet = ? AND kind = ? ORDER BY seq DESC LIMIT ? OFFSET ?`, []any{"loja-norte", "refund_completed", 40, 0}, "events_wallet"},
		{"read-back queue", `SELECT ` + eventCols + ` FROM events WHERE verdict = '' AND payment = 1 ORDER BY seq DESC LIMIT ?`, []any{100}, "events_unchecked"},
		{"dedupe", `INSERT INTO events(event_id, kind, wallet, transaction_id, received_at, payment, raw) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(event_id) DO NOTHING`, nil, ""},
		{"event by id", `SELECT ` + eventCols + ` FROM events WHERE event_id = ?`, []any{"e-1"}, "sqlite_autoindex_events_1"},
		{"counts", `SELECT coalesce(sum(n), 0) FROM event_counts WHERE wallet = ? AND kind = ?`, []any{"loja-norte", "refund_completed"}, "PRIMARY KEY"},
	} {
		if c.index == "" {
			// The insert's conflict target must be a unique index (the dedupe).
			var n int
			if err := s.rdb.QueryRow(`SELECT count(*) FROM pragma_index_list('events') WHERE "unique" = 1 AND origin = 'u'`).Scan(&n); err != nil || n != 1 {
				t.Fatalf("%s: %d unique indexes on events (%v)", c.name, n, err)
			}
			continue
		}
		plan, err := queryPlan(s, c.sql, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// A partial index is scanned whole (it holds only what the query wants); the table never is.
		uses := strings.Contains(plan, "USING INDEX "+c.index) || strings.Contains(plan, "USING COVERING INDEX "+c.index) ||
			strings.Contains(plan, "USING "+c.index)
		if !uses || strings.Contains(plan+"\n", "SCAN events\n") {
			t.Errorf("%s: the plan does not search %s:\n%s", c.name, c.index, plan)
		}
	}
}

// Copies of the same events delivered at once by many senders (the receiver's memory of ids
// is per process: after a restart, or from two windows' senders, copies reach the store
// concurrently) are stored once each, their copies counted, and counted once in the totals.
func TestIntakeDedupeUnderConcurrency(t *testing.T) {
	s := openT(t, t.TempDir(), "p")
	in, err := s.OpenIntake()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	const senders, ids = 16, 60
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range senders {
		wg.Go(func() {
			<-start
			for i := range ids {
				id := (i + w*7) % ids // each sender in its own order
				if err := in.Accept(eventBody(fmt.Sprintf("dup-%d", id), fmt.Sprintf("tx-%d", id))); err != nil {
					t.Errorf("Accept: %v", err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	got := rowCounts(t, s, qEventCopies)
	if len(got) != ids {
		t.Fatalf("%d events stored, want %d", len(got), ids)
	}
	for id, n := range got {
		if n != senders {
			t.Errorf("%s: %d copies, want %d", id, n, senders)
		}
	}
	kept, recount := eventCountsT(t, s)
	if !maps.Equal(kept, recount) || kept["principal/payment_completed"] != ids {
		t.Fatalf("counts %v, recount %v, want %d", kept, recount, ids)
	}
	// Every payment event waits for its read-back once.
	un, err := s.UncheckedPayments(ctx, 10*ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(un) != ids {
		t.Fatalf("%d events wait for their read-back, want %d", len(un), ids)
	}
}
