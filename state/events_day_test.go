package state

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// TestEventInsertBuildsNoTemporaryTable: the insert of a webhook event evaluates the
// conditions of the events' partial indexes in place. events_day's condition used to be an
// IN list of four kinds, which SQLite builds into a temporary B-tree at every execution of
// the INSERT (OpenEphemeral), about 4 µs of the writer's time per event (migration 0015).
func TestEventInsertBuildsNoTemporaryTable(t *testing.T) {
	s := openT(t, t.TempDir(), "p", WithLocation(time.UTC))
	var ops []string
	for _, row := range dumpRowsOn(t, s.wdb, `EXPLAIN `+insertEventSQL, "e", "payment_completed", "principal", "", 0, 1, []byte("{}")) {
		ops = append(ops, row[1])
	}
	if len(ops) == 0 {
		t.Fatal("EXPLAIN returned no program")
	}
	for _, op := range ops {
		if strings.Contains(op, "Ephemeral") {
			t.Fatalf("the event insert opens a temporary table (%s): program %v", op, ops)
		}
	}
}

// TestEventsDayIndexServesItsQueries: the day's queries that name events_day still find every
// refund and MED block event through it, and only those, after migration 0015 rewrote its
// condition: the close's block counts and the index check agree with a count of the table.
func TestEventsDayIndexServesItsQueries(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir(), "p", WithLocation(time.UTC))
	kinds := []api.EventKind{api.EventPaymentCompleted, api.EventRefundCompleted, api.EventBalanceBlockCreated,
		api.EventBalanceBlockApproved, api.EventBalanceBlockRejected, api.EventWithdrawalCompleted, api.EventPaymentExpired}
	var es []*api.Event
	for i := range 70 {
		k := kinds[i%len(kinds)]
		es = append(es, rawEvent(t, &api.Event{EventID: "evt-" + string(k) + "-" + string(rune('a'+i/len(kinds))), Kind: k, TransactionID: "tx"}))
	}
	if _, err := s.ApplyEvents(ctx, es); err != nil {
		t.Fatal(err)
	}
	var viaIndex, viaTable int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM events INDEXED BY events_day WHERE ` + dayEventKinds).Scan(&viaIndex); err != nil {
		t.Fatal(err)
	}
	if err := s.rdb.QueryRow(`SELECT count(*) FROM events NOT INDEXED WHERE kind IN ('refund_completed', 'balance_block_created', 'balance_block_approved', 'balance_block_rejected')`).Scan(&viaTable); err != nil {
		t.Fatal(err)
	}
	if viaIndex != 40 || viaTable != 40 {
		t.Fatalf("events_day lists %d refund and block events, the table holds %d; want 40", viaIndex, viaTable)
	}
	if err := s.Check(ctx, CheckTables); err != nil {
		t.Fatalf("check: %v", err)
	}
	// The close's query (closeBlocks) is planned on the index.
	rows, err := s.rdb.Query(`EXPLAIN QUERY PLAN SELECT wallet, kind, count(*) FROM events INDEXED BY events_day
		WHERE `+dayEventKinds+` AND kind <> 'refund_completed' AND verdict = 'confirmed' AND received_at >= ? AND received_at < ? GROUP BY 1, 2`, 0, 1)
	if err != nil {
		t.Fatalf("the close's query cannot use events_day: %v", err)
	}
	_ = rows.Close()
}

// TestInsertInBindsOncePerTransaction: the deliveries a commit groups share one insert
// statement bound to its transaction, and the next transaction binds its own.
func TestInsertInBindsOncePerTransaction(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir(), "p", WithLocation(time.UTC))
	var first *sql.Stmt
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		first = s.insertIn(tx)
		if again := s.insertIn(tx); again != first {
			t.Errorf("a second delivery of the transaction bound the statement again")
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if s.insertIn(tx) == first {
			t.Errorf("the next transaction got the statement of the one before")
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Deliveries recorded one job each, in one commit or several, are all stored once.
	es := make([]*api.Event, 40)
	for i := range es {
		es[i] = rawEvent(t, &api.Event{EventID: fmt.Sprintf("evt-%02d", i), Kind: api.EventPaymentCompleted, TransactionID: "tx"})
	}
	var wg sync.WaitGroup
	for _, e := range es {
		wg.Go(func() {
			if _, err := s.ApplyEvent(ctx, e); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, err := s.EventsAfter(ctx, 0, 100); err != nil || len(got) != len(es) {
		t.Fatalf("EventsAfter: %d events (%v), want %d", len(got), err, len(es))
	}
}

// TestEventsAfterCopiesPayloadOnce: the feed's read of new events (EventsAfter, at every
// commit of a flood) takes each payload's decoded event from the cache, and the payload read
// from the database is copied once, by the driver, not a second time by Scan.
func TestEventsAfterCopiesPayloadOnce(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir(), "p", WithLocation(time.UTC))
	const n = 200
	long := strings.Repeat("x", 8<<10)
	es := make([]*api.Event, n)
	for i := range es {
		es[i] = rawEvent(t, &api.Event{EventID: fmt.Sprintf("evt-%03d", i), Kind: api.EventPaymentCompleted, TransactionID: "tx", CounterpartName: long})
	}
	if _, err := s.ApplyEvents(ctx, es); err != nil {
		t.Fatal(err)
	}
	read := func() {
		got, err := s.EventsAfter(ctx, 0, n)
		if err != nil || len(got) != n || got[n-1].Event.CounterpartName != long || got[n-1].Damaged {
			t.Fatalf("EventsAfter: %d events (%v)", len(got), err)
		}
	}
	read() // the statement prepared, the pool warm
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	const rounds = 10
	for range rounds {
		read()
	}
	runtime.ReadMemStats(&m1)
	perEvent := float64(m1.TotalAlloc-m0.TotalAlloc) / (rounds * n)
	if raw := float64(len(es[0].Raw)); perEvent > 1.5*raw {
		t.Fatalf("EventsAfter allocated %.0f bytes per event of a %.0f-byte payload: the payload is copied more than once", perEvent, raw)
	}
}
