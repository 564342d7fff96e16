package sandbox

import (
	"sort"
	"sync"
	"time"
)

// Clock is the emulator's time source: the current time and one-shot timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine (or, for FakeClock, in Advance's) once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending call scheduled by Clock.AfterFunc.
type Timer interface {
	// Stop prevents the call if it has not run yet and reports whether it did so.
	Stop() bool
}

// realClock is the wall clock.
type realClock struct{}

// Now returns the wall-clock time.
func (realClock) Now() time.Time { return time.Now() }

// AfterFunc runs f in its own goroutine after d.
func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// FakeClock is a Clock for tests whose time moves only when Advance or Set is called.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers map[*fakeTimer]struct{}
}

// NewFakeClock returns a FakeClock that reads start until moved.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start, timers: map[*fakeTimer]struct{}{}}
}

type fakeTimer struct {
	c    *FakeClock
	at   time.Time
	seq  int
	f    func()
	done bool
}

// Now returns the fake current time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f to run inside the Advance or Set call that reaches now+d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers[t] = struct{}{}
	return t
}

// Stop cancels the timer if it has not fired.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.done {
		return false
	}
	t.done = true
	delete(t.c.timers, t)
	return true
}

// Advance moves the clock forward by d, running every timer that falls due, in time order.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	c.mu.Unlock()
	c.Set(target)
}

// Set moves the clock to t, running every timer due by then in time order (each sees Now at its due time).
func (c *FakeClock) Set(t time.Time) {
	for {
		c.mu.Lock()
		var due []*fakeTimer
		for tm := range c.timers {
			if !tm.at.After(t) {
				due = append(due, tm)
			}
		}
		if len(due) == 0 {
			c.now = t
			c.mu.Unlock()
			return
		}
		sort.Slice(due, func(i, j int) bool {
			if !due[i].at.Equal(due[j].at) {
				return due[i].at.Before(due[j].at)
			}
			return due[i].seq < due[j].seq
		})
		next := due[0]
		next.done = true
		delete(c.timers, next)
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.mu.Unlock()
		// Run outside the lock: the callback may schedule further timers or read Now.
		next.f()
	}
}

// Pending returns how many timers are scheduled and not yet fired or stopped.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
