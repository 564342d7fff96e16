package state

import (
	"container/heap"
	"strconv"
	"sync"
	"time"
)

// StatusFilter restricts the charges view to one display state; FilterAll shows every charge.
type StatusFilter string

// Status filters, one per display state.
const (
	FilterAll       StatusFilter = ""
	FilterPending   StatusFilter = StatusFilter(StatePending)
	FilterPaid      StatusFilter = StatusFilter(StatePaid)
	FilterExpired   StatusFilter = StatusFilter(StateExpired)
	FilterFailed    StatusFilter = StatusFilter(StateFailed)
	FilterCancelled StatusFilter = StatusFilter(StateCancelled)
	FilterRefunded  StatusFilter = StatusFilter(StateRefunded)
	FilterReturned  StatusFilter = StatusFilter(StateReturned)
	FilterBlocked   StatusFilter = StatusFilter(StateBlocked)
	FilterNotFound  StatusFilter = StatusFilter(StateNotFound)
)

// StatusFilters returns the filters in the order a "cycle status filter" key walks them.
func StatusFilters() []StatusFilter {
	return []StatusFilter{FilterAll, FilterPending, FilterPaid, FilterExpired, FilterFailed, FilterCancelled,
		FilterRefunded, FilterReturned, FilterBlocked, FilterNotFound}
}

// Next returns the filter after f in StatusFilters (wrapping around).
func (f StatusFilter) Next() StatusFilter {
	all := StatusFilters()
	for i, g := range all {
		if g == f {
			return all[(i+1)%len(all)]
		}
	}
	return FilterAll
}

// Match reports whether a charge in display state s passes the filter.
func (f StatusFilter) Match(s ChargeState) bool { return f == FilterAll || ChargeState(f) == s }

// hayDateLayout is how the list shows a charge's creation date; the filter matches it.
const hayDateLayout = "02/01/2006 15:04"

// haystack builds the folded text (Fold: lower case, no accents) the list filter matches: the
// fields separated by U+001F (which a filter never contains, so no match spans two fields).
func haystack(c *Charge, state ChargeState, loc *time.Location) string {
	b := make([]byte, 0, len(c.ID)+len(c.Description)+len(c.ExternalReference)+len(c.Wallet)+len(c.PayerName)+len(c.E2EID)+100)
	text := func(s string) {
		b = append(b, Fold(s)...) // no allocation when s is already lowercase ASCII
		b = append(b, 0x1f)
	}
	text(c.ID)
	text(c.Description)
	text(c.ExternalReference)
	text(NormalizeWallet(c.Wallet))
	// The amount as people type it: "r$ 1.234,56", "1234,56", "1234.56" and bare digits "123456".
	u := uint64(c.Amount)
	if c.Amount < 0 {
		u = -u
		b = append(b, '-')
	}
	reais, cents := u/100, u%100
	b = append(b, "r$ "...)
	b = appendGrouped(b, reais)
	b = append(b, ',', byte('0'+cents/10), byte('0'+cents%10), 0x1f)
	if reais >= 1000 {
		// Under R$ 1.000 "123,45" is already there, inside "r$ 123,45": a filter text never
		// holds the separator, so it matches either both or neither (4 in 5 charges: 5 B less).
		b = strconv.AppendUint(b, reais, 10)
		b = append(b, ',', byte('0'+cents/10), byte('0'+cents%10), 0x1f)
	}
	b = strconv.AppendUint(b, reais, 10)
	b = append(b, '.', byte('0'+cents/10), byte('0'+cents%10), 0x1f)
	b = strconv.AppendUint(b, u, 10)
	b = append(b, 0x1f)
	text(string(c.Status))
	if string(state) != string(c.Status) {
		text(string(state)) // "pending" once when the service's status and the list's state agree
	}
	text(c.PayerName)
	if !c.CreatedAt.IsZero() {
		if loc == nil {
			loc = time.Local
		}
		b = c.CreatedAt.In(loc).AppendFormat(b, hayDateLayout)
		b = append(b, 0x1f)
	}
	b = append(b, Fold(c.E2EID)...)
	return string(b)
}

// appendGrouped appends n with a dot every three digits ("1.234.567").
func appendGrouped(b []byte, n uint64) []byte {
	d := strconv.AppendUint(nil, n, 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, '.')
		}
		b = append(b, c)
	}
	return b
}

// PollPolicy sets how often pending charges are polled with GET /transactions/{id}.
type PollPolicy struct {
	Focused time.Duration // interval for the charge on screen
	Base    time.Duration // first interval for the others, doubled after each poll
	Max     time.Duration // ceiling of the others' interval
	Lease   time.Duration // a charge handed out by DuePolls is due again after this if MarkPolled never comes
}

// DefaultPollPolicy returns 2 s for the focused charge, 5 s doubling to 60 s for the others, a 30 s lease.
func DefaultPollPolicy() PollPolicy {
	return PollPolicy{Focused: 2 * time.Second, Base: 5 * time.Second, Max: 60 * time.Second, Lease: 30 * time.Second}
}

// interval returns the wait after n polls of a charge that is not focused.
func (p PollPolicy) interval(n int) time.Duration {
	d := p.Base
	for i := 0; i < n && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// pollEntry is a pending charge with its poll state.
type pollEntry struct {
	c          Charge
	putAt      uint64 // the set's stamp when the charge was last put
	heapIdx    int
	last       time.Time
	polls      int
	leaseUntil time.Time
	due        time.Time
}

// pollSet is the poll schedule of the charges that are not final: the only charges the store
// keeps in memory (charges end within their expiry, so they are few whatever the history).
type pollSet struct {
	mu   sync.Mutex
	puts uint64 // stamps puts, so a reload does not undo a newer write
	// loads counts reloads under way; while there are, gone keeps when each charge left the
	// set (turned final), so a reload read before does not bring it back.
	loads  int
	gone   map[string]uint64
	policy PollPolicy
	byID   map[string]*pollEntry
	heap   pollHeap
}

func newPollSet(p PollPolicy) *pollSet {
	return &pollSet{policy: p, byID: make(map[string]*pollEntry)}
}

// put adds, updates or (once final) removes a charge.
func (p *pollSet) put(c Charge) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.putLocked(c)
}

func (p *pollSet) putLocked(c Charge) {
	p.puts++
	e, ok := p.byID[c.ID]
	if c.Final() {
		if ok {
			heap.Remove(&p.heap, e.heapIdx)
			delete(p.byID, c.ID)
		}
		if p.loads > 0 {
			p.gone[c.ID] = p.puts
		}
		return
	}
	if ok {
		e.c, e.putAt = c, p.puts // keeps its schedule
		return
	}
	e = &pollEntry{c: c, last: c.UpdatedAt, putAt: p.puts}
	if e.last.IsZero() {
		e.last = c.CreatedAt
	}
	e.due = p.dueOf(e)
	p.byID[c.ID] = e
	heap.Push(&p.heap, e)
}

// stamp begins a reload: it returns the current put stamp, taken before reading the charges
// for reset (which ends the reload).
func (p *pollSet) stamp() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loads == 0 {
		p.gone = make(map[string]uint64)
	}
	p.loads++
	return p.puts
}

// abort ends a reload that failed, leaving the set as it is.
func (p *pollSet) abort() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loads--; p.loads == 0 {
		p.gone = nil
	}
}

// reset replaces the set by cs, read from the database after stamp since, keeping the
// schedule of charges already in it; a charge put after since is newer than cs and stays as
// it is.
func (p *pollSet) reset(cs []Charge, since uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := make(map[string]bool, len(cs))
	for _, c := range cs {
		keep[c.ID] = true
	}
	for id, e := range p.byID {
		if !keep[id] && e.putAt <= since {
			heap.Remove(&p.heap, e.heapIdx)
			delete(p.byID, id)
		}
	}
	for _, c := range cs {
		if e, ok := p.byID[c.ID]; ok && e.putAt > since || p.gone[c.ID] > since {
			continue
		}
		p.putLocked(c)
	}
	if p.loads--; p.loads == 0 {
		p.gone = nil
	}
}

func (p *pollSet) get(id string) (Charge, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.byID[id]; ok {
		return e.c, true
	}
	return Charge{}, false
}

func (p *pollSet) dueOf(e *pollEntry) time.Time {
	if !e.leaseUntil.IsZero() {
		return e.leaseUntil
	}
	return e.last.Add(p.policy.interval(e.polls))
}

// DuePolls returns the IDs of pending charges to poll now, at most max: the focused charge
// every Focused interval, the others with backoff, the most overdue first. Each ID returned is
// leased: it is not returned again until MarkPolled (or until the lease runs out).
func (s *Store) DuePolls(now time.Time, focusedID string, max int) []string {
	if max <= 0 {
		return nil
	}
	p := s.polls
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	lease := func(e *pollEntry) {
		e.leaseUntil = now.Add(p.policy.Lease)
		e.due = e.leaseUntil
		heap.Fix(&p.heap, e.heapIdx)
		out = append(out, e.c.ID)
	}
	if e, ok := p.byID[focusedID]; ok {
		leased := !e.leaseUntil.IsZero() && now.Before(e.leaseUntil)
		if !leased && !now.Before(e.last.Add(p.policy.Focused)) {
			lease(e)
		}
	}
	for len(out) < max && len(p.heap) > 0 && !now.Before(p.heap[0].due) {
		lease(p.heap[0])
	}
	return out
}

// MarkPolled records that the charge id was polled at now, ending its lease and backing off.
func (s *Store) MarkPolled(id string, now time.Time) {
	p := s.polls
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.byID[id]
	if !ok {
		return
	}
	e.last, e.leaseUntil = now, time.Time{}
	e.polls++
	e.due = p.dueOf(e)
	heap.Fix(&p.heap, e.heapIdx)
}

// PendingCount returns how many charges that are not final the poll schedule holds: all of
// them up to MaxPolled after a reload (the newest beyond that), and those written since.
func (s *Store) PendingCount() int {
	s.polls.mu.Lock()
	defer s.polls.mu.Unlock()
	return len(s.polls.heap)
}

// pollHeap orders pending charges by due time.
type pollHeap []*pollEntry

func (h pollHeap) Len() int { return len(h) }
func (h pollHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].c.ID < h[j].c.ID
}
func (h pollHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *pollHeap) Push(x any) {
	e := x.(*pollEntry)
	e.heapIdx = len(*h)
	*h = append(*h, e)
}
func (h *pollHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.heapIdx = -1
	*h = old[:len(old)-1]
	return e
}
