package state

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"pixdash/api"
)

// charges100k builds a collection the size the dashboard must stay fast at, the way it grows:
// charges created over time (UUID ids), a third of them later paid or expired.
func charges100k(b *testing.B) *Charges {
	b.Helper()
	r := rand.New(rand.NewPCG(9, 9))
	cs := NewCharges()
	for i := range 100_000 {
		c := randomCharge(r, i)
		c.ID = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.IntN(1<<16), r.Uint64()&(1<<48-1))
		c.CreatedAt = at(i)
		c.Status = api.StatusPending
		c.Expired = false
		cs.Upsert(c)
		if i >= 100 && r.IntN(3) == 0 {
			old, _ := cs.At(r.IntN(100))
			old.Status = testStatuses[1+r.IntN(3)]
			cs.Upsert(old)
		}
	}
	return cs
}

// BenchmarkFilter100k measures one keystroke of the filter over 100k charges: the query grows
// by one character (narrowing) and then loses it again (a full scan), alternately.
func BenchmarkFilter100k(b *testing.B) {
	cs := charges100k(b)
	queries := []string{"c", "ca", "caf", "café", "caf", "ca"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cs.SetFilter(queries[i%len(queries)], FilterAll)
	}
}

// BenchmarkFilter100kFullScan measures the worst keystroke: a new query scanned over every charge.
func BenchmarkFilter100kFullScan(b *testing.B) {
	cs := charges100k(b)
	queries := []string{"loja-b", "1234", "açaí", "ref-12", "pending"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cs.SetFilter(queries[i%len(queries)], FilterAll)
		cs.SetFilter("", FilterAll)
	}
}

// BenchmarkUpsert measures adding a new charge (newest first) to 100k and updating an existing one.
func BenchmarkUpsert(b *testing.B) {
	b.Run("new", func(b *testing.B) {
		cs := charges100k(b)
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			cs.Upsert(Charge{ID: fmt.Sprintf("new-%d", i), Amount: 1000, Status: api.StatusPending, CreatedAt: at(200_000 + i)})
		}
	})
	b.Run("update", func(b *testing.B) {
		cs := charges100k(b)
		cs.SetFilter("bolo", FilterAll)
		r := rand.New(rand.NewPCG(1, 1))
		b.ResetTimer()
		for b.Loop() {
			c, _ := cs.At(r.IntN(100_000))
			c.Status = api.StatusCompleted
			c.Description = "bolo pago"
			cs.Upsert(c)
		}
	})
}

// BenchmarkEventApply measures deduplicating an event into a log of 100k.
func BenchmarkEventApply(b *testing.B) {
	l := NewEventLog()
	for i := range 100_000 {
		l.Apply(ev(fmt.Sprintf("e%d", i), api.EventPaymentCompleted, "", i))
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		l.Apply(ev(fmt.Sprintf("e%d", 50_000+i), api.EventPaymentCompleted, "", i))
	}
}

// BenchmarkStoreApplyEvent measures a persisted event (fsync included) with concurrent callers,
// which share fsyncs.
func BenchmarkStoreApplyEvent(b *testing.B) {
	s, err := Open(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprintf("e-%d", n.Add(1))
			if _, err := s.ApplyEvent(ev(id, api.EventRefundCompleted, "", 1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkOpen100k measures starting the dashboard on a profile with 100k tracked charges
// (snapshot replay).
func BenchmarkOpen100k(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, "big")
	if err != nil {
		b.Fatal(err)
	}
	src := charges100k(b)
	src.each(func(c *Charge) { s.m.putCharge(*c) })
	if err := s.Compact(); err != nil {
		b.Fatal(err)
	}
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(dir, "big")
		if err != nil {
			b.Fatal(err)
		}
		if s.Charges().Total() != 100_000 {
			b.Fatalf("%d charges", s.Charges().Total())
		}
		s.Close()
	}
}
