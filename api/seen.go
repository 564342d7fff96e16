package api

import (
	"hash/maphash"
	"sync"
)

// Shards of a seenIDs: a set of at least 2*minShardIDs ids is split in up to maxSeenShards
// shards, so that concurrent deliveries rarely wait for one another's lock; a smaller set is one
// shard and forgets strictly oldest first.
const (
	maxSeenShards = 64
	minShardIDs   = 1024
)

// seenIDs is the receiver's deduplication memory: up to about limit distinct eventIds with their
// delivery counts. Each shard forgets its oldest id first when full, so with several shards the
// order of forgetting is oldest first within a shard, roughly oldest first overall.
//
// An id is remembered by two 64-bit keyed hashes of it (random keys per process), not by its
// text: the set holds no pointers for the garbage collector to scan and costs 16 bytes a slot.
// Two ids are taken for one only when both hashes collide (about 2^-128 per pair); two ids
// whose first hashes collide are both new, the later one taking the earlier one's place.
type seenIDs struct {
	key, check maphash.Seed
	shards     []seenShard
}

// seenShard is the ids whose hash falls in one shard, under one lock.
type seenShard struct {
	mu      sync.Mutex
	settled sync.Cond        // a delivery being kept was accepted or released
	waiting int              // redeliveries waiting on settled
	ids     map[uint64]int32 // first hash → slot
	ring    []seenSlot       // insertion order; grows up to limit, then overwritten from next
	next    int
	limit   int
	_       [64]byte // keeps neighbouring shards' locks off one cache line
}

// seenSlot is what a shard keeps of an id: its delivery count (0 while none was accepted) and
// whether a delivery of it is being kept by the sink.
type seenSlot struct {
	key, check uint64 // the id's two hashes
	n          int32
	keeping    bool
}

func newSeenIDs(limit int) *seenIDs {
	limit = max(limit, 1)
	n := 1
	for n < maxSeenShards && limit/(2*n) >= minShardIDs {
		n *= 2
	}
	s := &seenIDs{key: maphash.MakeSeed(), check: maphash.MakeSeed(), shards: make([]seenShard, n)}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.settled.L = &sh.mu
		sh.limit = (limit + n - 1) / n
		sh.ids = make(map[uint64]int32)
	}
	return s
}

// seenKey is an id as a seenIDs remembers it.
type seenKey struct{ key, check uint64 }

func (s *seenIDs) keyOf(id string) seenKey {
	return seenKey{maphash.String(s.key, id), maphash.String(s.check, id)}
}

// shard returns k's shard, chosen by the top bits of its first hash (the map uses all of them).
func (s *seenIDs) shard(k seenKey) *seenShard {
	return &s.shards[k.key>>58&uint64(len(s.shards)-1)]
}

// find returns k's slot in sh, or nil.
func (sh *seenShard) find(k seenKey) (*seenSlot, int) {
	i, ok := sh.ids[k.key]
	if !ok || sh.ring[i].check != k.check {
		return nil, 0
	}
	return &sh.ring[i], int(i)
}

// seenTicket is a first delivery in progress: what end needs to settle it.
type seenTicket struct {
	k    seenKey
	slot int // -1 when the id could not be remembered (see add)
}

// begin starts a delivery of id. For an accepted id it counts the redelivery and returns its
// delivery count (2 on the first redelivery). Otherwise it marks id as being kept and returns
// 0 and the ticket that end needs. A delivery of an id that is being kept waits for its outcome.
func (s *seenIDs) begin(id string) (deliveries int, t seenTicket) {
	k := s.keyOf(id)
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for {
		e, i := sh.find(k)
		if e == nil {
			return 0, seenTicket{k, sh.add(k)}
		}
		switch {
		case e.keeping:
			sh.waiting++
			sh.settled.Wait()
			sh.waiting--
		case e.n > 0:
			e.n++
			return int(e.n), seenTicket{k, -1}
		default:
			e.keeping = true
			return 0, seenTicket{k, i}
		}
	}
}

// end finishes a delivery begun with begin: when accepted, its id counts as delivered once;
// otherwise it stays unaccepted, so the next delivery is taken.
func (s *seenIDs) end(t seenTicket, accepted bool) {
	if t.slot < 0 {
		return // not remembered (see add)
	}
	sh := s.shard(t.k)
	sh.mu.Lock()
	if e := &sh.ring[t.slot]; e.key == t.k.key && e.check == t.k.check && e.keeping { // else forgotten meanwhile
		e.keeping = false
		if accepted {
			e.n = 1
		}
	}
	if sh.waiting > 0 {
		sh.settled.Broadcast()
	}
	sh.mu.Unlock()
}

// add remembers k as being kept (forgetting the shard's oldest id when full) and returns its
// slot, or -1 when it cannot be remembered.
func (sh *seenShard) add(k seenKey) int {
	e := seenSlot{key: k.key, check: k.check, keeping: true}
	if i, ok := sh.ids[k.key]; ok {
		// Another id with the same first hash: this one takes its slot (the other is forgotten).
		if sh.ring[i].keeping {
			// ...unless it is being kept: then this id is not remembered at all (its
			// redeliveries reach the sink, whose store drops what it already holds).
			return -1
		}
		sh.ring[i] = e
		return int(i)
	}
	if len(sh.ring) < sh.limit {
		sh.ring = append(sh.ring, e)
		sh.ids[k.key] = int32(len(sh.ring) - 1)
		return len(sh.ring) - 1
	}
	i := sh.next
	old := &sh.ring[i]
	if old.keeping {
		// The oldest id is still being kept (a tiny set under load): forgetting it would let
		// its redeliveries through. Grow this once instead.
		sh.ring = append(sh.ring, e)
		sh.ids[k.key] = int32(len(sh.ring) - 1)
		sh.limit++
		return len(sh.ring) - 1
	}
	delete(sh.ids, old.key)
	*old = e
	sh.ids[k.key] = int32(i)
	sh.next = (i + 1) % sh.limit
	return i
}

// seed remembers id as accepted once, unless it is already known.
func (s *seenIDs) seed(id string) {
	k := s.keyOf(id)
	sh := s.shard(k)
	sh.mu.Lock()
	if e, _ := sh.find(k); e == nil {
		if i := sh.add(k); i >= 0 {
			sh.ring[i].keeping, sh.ring[i].n = false, 1
		}
	}
	sh.mu.Unlock()
}

// count returns the delivery count of id (0 when unknown, forgotten or not yet accepted).
func (s *seenIDs) count(id string) int {
	k := s.keyOf(id)
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e, _ := sh.find(k); e != nil {
		return int(e.n)
	}
	return 0
}

// keeping reports whether a delivery of id is being kept by the sink.
func (s *seenIDs) keeping(id string) bool {
	k := s.keyOf(id)
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, _ := sh.find(k)
	return e != nil && e.keeping
}

// waiters returns how many redeliveries wait for the outcome of a first copy.
func (s *seenIDs) waiters() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.waiting
		sh.mu.Unlock()
	}
	return n
}

// len returns how many ids are remembered, and the capacity of the slots holding them.
func (s *seenIDs) len() (ids, slots int) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		ids += len(sh.ids)
		slots += len(sh.ring)
		sh.mu.Unlock()
	}
	return ids, slots
}
