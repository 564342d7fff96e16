package api

import (
	"fmt"
	"sync"
	"testing"
)

// The deduplication set keeps counts per id across shards, and a large one is split.
func TestSeenIDsCounts(t *testing.T) {
	for _, limit := range []int{1, 3, 2047, 2048, DefaultWebhookSeenCapacity} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := newSeenIDs(limit)
			wantShards := 1
			if limit >= 2*minShardIDs {
				wantShards = 2
			}
			if limit == DefaultWebhookSeenCapacity {
				wantShards = maxSeenShards
			}
			if len(s.shards) != wantShards {
				t.Fatalf("%d shards, want %d", len(s.shards), wantShards)
			}
			n, ticket := s.begin("evt-a")
			if n != 0 || ticket.slot < 0 || !s.keeping("evt-a") {
				t.Fatalf("first begin = %d, %d (keeping %t)", n, ticket.slot, s.keeping("evt-a"))
			}
			s.end(ticket, true)
			if s.count("evt-a") != 1 || s.keeping("evt-a") {
				t.Fatalf("after accept: count %d keeping %t", s.count("evt-a"), s.keeping("evt-a"))
			}
			if n, _ := s.begin("evt-a"); n != 2 {
				t.Fatalf("redelivery counted %d, want 2", n)
			}
			// A delivery the sink refused leaves the id unaccepted: the next one is taken.
			_, ticket = s.begin("evt-b")
			s.end(ticket, false)
			if n, _ := s.begin("evt-b"); n != 0 || s.count("evt-b") != 0 {
				t.Fatalf("after a refused delivery: begin %d, count %d", n, s.count("evt-b"))
			}
		})
	}
}

// Ids whose first hashes collide are told apart by the second; one that collides with an id
// being kept is not remembered at all rather than taking its place.
func TestSeenIDsCollisions(t *testing.T) {
	s := newSeenIDs(8)
	sh := &s.shards[0]
	a, b := seenKey{key: 7, check: 1}, seenKey{key: 7, check: 2}
	ia := sh.add(a)
	if ia < 0 {
		t.Fatal("add a refused")
	}
	if sh.add(b) != -1 {
		t.Fatal("b took the slot of a while a is being kept")
	}
	sh.ring[ia].keeping, sh.ring[ia].n = false, 1
	if e, _ := sh.find(b); e != nil {
		t.Fatal("b found under a's slot")
	}
	ib := sh.add(b)
	if ib != ia {
		t.Fatalf("b added at %d, want a's slot %d", ib, ia)
	}
	if e, _ := sh.find(a); e != nil {
		t.Fatal("a still remembered after b took its slot")
	}
	if e, _ := sh.find(b); e == nil || !e.keeping {
		t.Fatal("b not remembered as being kept")
	}
	s.end(seenTicket{k: b, slot: -1}, true) // not remembered: a no-op
}

// Concurrent first deliveries of many ids each get one slot, and every id ends accepted once.
func TestSeenIDsConcurrent(t *testing.T) {
	s := newSeenIDs(DefaultWebhookSeenCapacity)
	const workers, each = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("evt-%d-%d", w, i)
				n, ticket := s.begin(id)
				if n != 0 {
					t.Errorf("%s: first delivery counted %d", id, n)
					return
				}
				s.end(ticket, true)
			}
		})
	}
	wg.Wait()
	if ids, _ := s.len(); ids != workers*each {
		t.Fatalf("%d ids remembered, want %d", ids, workers*each)
	}
	for w := range workers {
		if n := s.count(fmt.Sprintf("evt-%d-%d", w, each-1)); n != 1 {
			t.Fatalf("count %d, want 1", n)
		}
	}
}
