package state

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// TestPendingPageExactlyOnce: the pending charges read a page at a time while other writes
// turn some of them final, move others in the list (their creation time learned late) and add
// new ones: every charge pending from start to end comes exactly once, none comes twice, none
// that was final before the reading started comes at all, and none comes after its own page
// was read while it was final.
func TestPendingPageExactlyOnce(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const n = 400
	for i := range n {
		c := dayOpen(fmt.Sprintf("p-%05d", (i*7919)%n), api.WalletPrincipal, 1000, base.Add(time.Duration(i)*time.Minute), api.StatusPending, false)
		if i%5 == 0 { // final from the start
			c = dayOpen(c.ID, c.Wallet, c.Amount, c.CreatedAt, api.StatusCancelled, true)
		}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	finalAtStart := map[string]bool{}
	for i := 0; i < n; i += 5 {
		finalAtStart[fmt.Sprintf("p-%05d", (i*7919)%n)] = true
	}
	// Meanwhile: charges i%5==1 turn paid, i%5==2 move to another place in the list, new ones arrive.
	turned := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 1; ; i += 5 {
			select {
			case <-stop:
				return
			default:
			}
			if i >= n {
				return
			}
			id := fmt.Sprintf("p-%05d", (i*7919)%n)
			mu.Lock()
			turned[id] = true
			mu.Unlock()
			paid := base.Add(time.Duration(i)*time.Minute + time.Second)
			if _, err := s.UpsertCharge(ctx, dayPaid(id, api.WalletPrincipal, 1000, base.Add(time.Duration(i)*time.Minute), paid, nil)); err != nil {
				t.Error(err)
				return
			}
			moved := fmt.Sprintf("p-%05d", ((i+1)*7919)%n)
			c, _, err := s.Charge(ctx, moved)
			if err != nil {
				t.Error(err)
				return
			}
			c.CreatedAt = c.CreatedAt.Add(-90 * 24 * time.Hour) // to the bottom of the list
			if _, err := s.UpsertCharge(ctx, c); err != nil {
				t.Error(err)
				return
			}
			if _, err := s.UpsertCharge(ctx, dayOpen(fmt.Sprintf("new-%05d", i), api.WalletPrincipal, 500, base.AddDate(0, 1, 0), api.StatusPending, false)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	seen := map[string]int{}
	pages := 0
	for after := ""; ; {
		cs, next, err := s.PendingPage(ctx, after, 11)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, c := range cs {
			seen[c.ID]++
			if c.Final() {
				t.Errorf("%s is final (%s)", c.ID, c.State())
			}
		}
		if next == "" {
			break
		}
		if next <= after {
			t.Fatalf("the pages go back: %q after %q", next, after)
		}
		after = next
		time.Sleep(time.Millisecond) // let the writer in between pages
	}
	close(stop)
	wg.Wait()
	if pages < 20 {
		t.Fatalf("%d pages: the test means little", pages)
	}
	for i := range n {
		id := fmt.Sprintf("p-%05d", (i*7919)%n)
		mu.Lock()
		changed := turned[id]
		mu.Unlock()
		switch {
		case seen[id] > 1:
			t.Errorf("%s came %d times", id, seen[id])
		case finalAtStart[id] && seen[id] != 0:
			t.Errorf("%s was final and came", id)
		case !finalAtStart[id] && !changed && seen[id] != 1:
			t.Errorf("%s stayed pending and came %d times", id, seen[id])
		}
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("%s came %d times", id, k)
		}
	}
}

// TestLoadPendingKeepsTheNewest: a reload holds the newest MaxPolled charges that are not
// final, however many there are, and Peek still finds the others through the database.
func TestLoadPendingKeepsTheNewest(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	<-s.Ready() // the load Open starts reads maxPolled
	s.maxPolled = 120
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	total := s.maxPolled + 80
	for i := range total {
		if _, err := s.UpsertCharge(ctx, dayOpen(fmt.Sprintf("q-%05d", i), api.WalletPrincipal, 1000, base.Add(time.Duration(i)*time.Second), api.StatusPending, false)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.loadPending(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.PendingCount(); got != s.maxPolled {
		t.Fatalf("the schedule holds %d, want %d", got, s.maxPolled)
	}
	if _, ok := s.polls.get(fmt.Sprintf("q-%05d", total-1)); !ok {
		t.Error("the newest pending charge is not scheduled")
	}
	if _, ok := s.polls.get(fmt.Sprintf("q-%05d", total-s.maxPolled-1)); ok {
		t.Error("an older one than the newest maxPolled is scheduled")
	}
	var n int
	for after := ""; ; {
		cs, next, err := s.PendingPage(ctx, after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n += len(cs)
		if next == "" {
			break
		}
		after = next
	}
	if n != total {
		t.Errorf("the pages hold %d pending charges, want %d", n, total)
	}
}

// TestEventCacheServesOnlyItsPayload: the events the dashboard reads right after they were
// written come from the cache of decoded events, equal to a fresh decode of the stored
// payload (the charge's id from the row included); after a prune, a new event that gets a seq
// the cache still holds is read as itself, not as the pruned one.
func TestEventCacheServesOnlyItsPayload(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	s := OpenMemory(WithLocation(time.UTC), WithClock(clk.now))
	defer s.Close()
	apply := func(prefix string, n int) {
		t.Helper()
		var es []*api.Event
		for i := range n {
			raw := genEventPayload(fmt.Sprintf("%s-%03d", prefix, i), api.EventPaymentCompleted, i, n, clk.now())
			e, err := api.DecodeEvent(raw)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		if _, err := s.ApplyEvents(ctx, es); err != nil {
			t.Fatal(err)
		}
	}
	check := func(prefix string, n int) {
		t.Helper()
		got, err := s.EventsAfter(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.rdb.Query(`SELECT ` + eventCols + ` FROM events ORDER BY seq`)
		if err != nil {
			t.Fatal(err)
		}
		want, err := scanEvents(rows) // decoded afresh
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d events read, want %d equal to a fresh decode", len(got), n)
		}
		for i, e := range got {
			if id := fmt.Sprintf("%s-%03d", prefix, i); e.Event.EventID != id {
				t.Fatalf("event %d is %s, want %s", i, e.Event.EventID, id)
			}
		}
	}
	apply("first", 40)
	if len(s.decoded.m) != 40 {
		t.Fatalf("the cache holds %d events", len(s.decoded.m))
	}
	check("first", 40)
	clk.mu.Lock()
	clk.t = clk.t.Add(time.Hour)
	clk.mu.Unlock()
	if _, err := s.PruneEvents(ctx, clk.now()); err != nil {
		t.Fatal(err)
	}
	s.decoded.mu.Lock()
	s.decoded.m = nil // as in another process: nothing cached
	s.decoded.mu.Unlock()
	apply("second", 10) // seqs 1..10 again (INTEGER PRIMARY KEY reuses them once the table is empty)
	s.decoded.mu.Lock()
	for seq := int64(1); seq <= 10; seq++ { // the pruned events' decodings, under the new seqs
		raw := genEventPayload(fmt.Sprintf("first-%03d", seq-1), api.EventPaymentCompleted, int(seq-1), 40, clk.now())
		e, _ := api.DecodeEvent(raw)
		s.decoded.m[seq] = e
	}
	s.decoded.mu.Unlock()
	check("second", 10)
}

// TestRefundLineOf: a refund line takes from its event's payload the amount, the reported fee
// (only between 0 and the amount), the line id and, when the event row names no charge, the
// payload's transactionId; a payload that does not decode gives the row's charge alone.
func TestRefundLineOf(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	a := []byte(refundPayload("evt-a", "", "line-a", "tx-a", "10.00", "0.50", at))
	b := []byte(refundPayload("evt-b", "loja", "line-b", "tx-b", "12.34", "", at))
	big := []byte(refundPayload("evt-c", "", "line-c", "tx-c", "1.00", "2.00", at))
	for _, c := range []struct {
		txID string
		raw  []byte
		want refundRow
	}{
		{"", a, refundRow{wallet: "w", received: 7, amount: 1000, fee: 50, lineID: "line-a", chargeID: "tx-a"}},
		{"tx-row", b, refundRow{wallet: "w", received: 7, amount: 1234, lineID: "line-b", chargeID: "tx-row"}},
		{"", big, refundRow{wallet: "w", received: 7, amount: 100, lineID: "line-c", chargeID: "tx-c"}},
		{"tx-x", []byte(`{"event":`), refundRow{wallet: "w", received: 7, chargeID: "tx-x"}},
	} {
		if got := refundLineOf("w", c.txID, 7, c.raw); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.raw, got, c.want)
		}
	}
}

// TestReadPendingWalksOnlyTheNewest: the newest pending charges are read from the first
// entries of an index in the list's order, with no sort of every pending charge (before
// migration 0013 SQLite walked them all into a temporary B-tree: 200 ms at a million pending,
// while the dashboard drew its first frames).
func TestReadPendingWalksOnlyTheNewest(t *testing.T) {
	s := OpenMemory(WithLocation(time.UTC))
	defer s.Close()
	rows, err := s.rdb.QueryContext(ctx, "EXPLAIN QUERY PLAN "+readPendingSQL, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if len(plan) != 1 || plan[0] != "SCAN charges USING INDEX charges_pending_seq" {
		t.Errorf("readPending's plan %q, want one backwards walk of charges_pending_seq and no temporary B-tree", plan)
	}
}
