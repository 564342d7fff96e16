package state

import (
	"container/heap"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixdash/api"
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
)

// StatusFilters returns the filters in the order a "cycle status filter" key walks them.
func StatusFilters() []StatusFilter {
	return []StatusFilter{FilterAll, FilterPending, FilterPaid, FilterExpired, FilterFailed, FilterCancelled}
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
	if d > p.Max {
		d = p.Max
	}
	return d
}

// chargeEntry is a charge with its poll state.
type chargeEntry struct {
	c Charge

	// Polling state, used while the charge is not final.
	heapIdx    int // index in the poll heap, -1 when absent
	last       time.Time
	polls      int
	leaseUntil time.Time
	due        time.Time
}

// Charges is the set of tracked charges, newest first, with a filtered view and a poll schedule.
// It is safe for concurrent use. Changes made directly here are not persisted: a Store's
// methods change its collection and persist the change.
type Charges struct {
	mu      sync.RWMutex
	byID    map[string]*chargeEntry
	sorted  []row   // ascending by (CreatedAt, ID): the newest is last, so new charges append
	view    []int32 // indices in sorted of the charges the filter shows, ascending; used only when filtered
	query   string  // lowercased
	status  StatusFilter
	want    uint8   // stateCode of status, 0 for all
	wallet  string  // only this wallet when not ""
	qpairs  pairSet // pairsOf(query)
	version uint64
	policy  PollPolicy
	polls   pollHeap
}

// NewCharges returns an empty collection with the default poll policy.
func NewCharges() *Charges {
	return &Charges{byID: map[string]*chargeEntry{}, policy: DefaultPollPolicy()}
}

// SetPollPolicy replaces the poll intervals (schedules already computed keep their due time until the next poll).
func (cs *Charges) SetPollPolicy(p PollPolicy) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.policy = p
}

// row is what filtering reads, kept contiguous so that a scan of 100k charges follows memory.
type row struct {
	e     *chargeEntry
	pairs pairSet // byte pairs of hay: a query with a pair missing here cannot match
	hay   string  // lowercased search text
	state uint8   // stateCode of the charge's display state
}

// pairSet is a 256-bit Bloom filter of the adjacent byte pairs of a text.
type pairSet [4]uint64

func pairsOf(s string) pairSet {
	var p pairSet
	for i := 0; i+1 < len(s); i++ {
		h := (uint32(s[i])*2654435761 ^ uint32(s[i+1])) * 2246822519 >> 24
		p[h>>6] |= 1 << (h & 63)
	}
	return p
}

// covers reports whether every pair of q may be in p.
func (p *pairSet) covers(q *pairSet) bool {
	return p[0]&q[0] == q[0] && p[1]&q[1] == q[1] && p[2]&q[2] == q[2] && p[3]&q[3] == q[3]
}

// stateCode numbers display states for rows (0 is reserved for "any").
func stateCode(s ChargeState) uint8 {
	switch s {
	case StatePending:
		return 1
	case StatePaid:
		return 2
	case StateExpired:
		return 3
	case StateFailed:
		return 4
	case StateCancelled:
		return 5
	case "":
		return 0
	}
	return 6
}

func entryLess(a, b *chargeEntry) bool {
	if !a.c.CreatedAt.Equal(b.c.CreatedAt) {
		return a.c.CreatedAt.Before(b.c.CreatedAt)
	}
	return a.c.ID < b.c.ID
}

// search returns the position of e (or where it belongs) in s, which is sorted by entryLess.
func search(s []row, e *chargeEntry) int {
	// Fast path: charges usually arrive newest last.
	if n := len(s); n == 0 || entryLess(s[n-1].e, e) {
		return n
	}
	return sort.Search(len(s), func(i int) bool { return !entryLess(s[i].e, e) })
}

func insertAt(s []row, i int, r row) []row {
	s = append(s, row{})
	copy(s[i+1:], s[i:])
	s[i] = r
	return s
}

// find returns the index of e in s, found by binary search on e's current sort key, or -1.
func find(s []row, e *chargeEntry) int {
	i := search(s, e)
	for i < len(s) && s[i].e != e { // identical keys cannot happen (IDs are unique); be safe anyway
		i++
	}
	if i == len(s) {
		return -1
	}
	return i
}

// viewPos returns where sorted index i is (or belongs) in a view.
func viewPos(v []int32, i int) int {
	return sort.Search(len(v), func(k int) bool { return int(v[k]) >= i })
}

// shiftView adds delta to every view index at or after sorted index from.
func shiftView(v []int32, from, delta int) {
	for k := viewPos(v, from); k < len(v); k++ {
		v[k] += int32(delta)
	}
}

// haystack builds the lowercased text a query is matched against: the fields separated by NUL
// (which a query never contains, so no match spans two fields).
func haystack(c *Charge, state ChargeState) string {
	b := make([]byte, 0, len(c.ID)+len(c.Description)+len(c.ExternalReference)+len(c.Wallet)+len(c.PayerName)+len(c.E2EID)+80)
	text := func(s string) {
		b = append(b, strings.ToLower(s)...) // no allocation when s is already lowercase ASCII
		b = append(b, 0)
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
	b = append(b, ',', byte('0'+cents/10), byte('0'+cents%10), 0)
	b = strconv.AppendUint(b, reais, 10)
	b = append(b, ',', byte('0'+cents/10), byte('0'+cents%10), 0)
	b = strconv.AppendUint(b, reais, 10)
	b = append(b, '.', byte('0'+cents/10), byte('0'+cents%10), 0)
	b = strconv.AppendUint(b, u, 10)
	b = append(b, 0)
	text(string(c.Status))
	text(string(state))
	text(c.PayerName)
	b = append(b, strings.ToLower(c.E2EID)...)
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

func (cs *Charges) matches(r *row) bool {
	return (cs.want == 0 || r.state == cs.want) &&
		(cs.wallet == "" || r.e.c.Wallet == cs.wallet) &&
		(cs.query == "" || (r.pairs.covers(&cs.qpairs) && strings.Contains(r.hay, cs.query)))
}

func (cs *Charges) filtered() bool { return cs.query != "" || cs.want != 0 || cs.wallet != "" }

// SetWallet restricts the view to one wallet ("principal" or a reference); "" shows every wallet.
func (cs *Charges) SetWallet(wallet string) {
	if wallet != "" {
		wallet = NormalizeWallet(wallet)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if wallet == cs.wallet {
		return
	}
	cs.wallet = wallet
	cs.version++
	if !cs.filtered() {
		cs.view = cs.view[:0]
		return
	}
	cs.view = cs.scan(cs.view[:0])
}

// Wallet returns the wallet the view is restricted to ("" for all).
func (cs *Charges) Wallet() string {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return cs.wallet
}

// Upsert inserts c or replaces the charge with the same ID; it reports whether c was new.
func (cs *Charges) Upsert(c Charge) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.upsertLocked(c)
}

func (cs *Charges) upsertLocked(c Charge) bool {
	if c.Wallet == "" {
		c.Wallet = api.WalletPrincipal
	}
	cs.version++
	filtered := cs.filtered()
	e, ok := cs.byID[c.ID]
	if !ok {
		e = &chargeEntry{c: c, heapIdx: -1}
		cs.byID[c.ID] = e
		cs.place(e, newRow(e), filtered)
		cs.schedule(e, true)
		return true
	}
	i := find(cs.sorted, e)
	wasIn := filtered && cs.matches(&cs.sorted[i])
	keyChanged := !e.c.CreatedAt.Equal(c.CreatedAt)
	e.c = c
	r := newRow(e)
	if !keyChanged {
		cs.sorted[i] = r
		if isIn := filtered && cs.matches(&r); isIn != wasIn {
			k := viewPos(cs.view, i)
			if isIn {
				cs.view = slices.Insert(cs.view, k, int32(i))
			} else {
				cs.view = slices.Delete(cs.view, k, k+1)
			}
		}
	} else {
		// Rare (a charge first seen in an event learns its creation time): move it.
		cs.sorted = slices.Delete(cs.sorted, i, i+1)
		if filtered {
			if wasIn {
				k := viewPos(cs.view, i)
				cs.view = slices.Delete(cs.view, k, k+1)
			}
			shiftView(cs.view, i, -1)
		}
		cs.place(e, r, filtered)
	}
	cs.schedule(e, false)
	return false
}

// place inserts e's row in sorted (usually at the end) and in the view when it matches.
func (cs *Charges) place(e *chargeEntry, r row, filtered bool) {
	j := search(cs.sorted, e)
	cs.sorted = insertAt(cs.sorted, j, r)
	if !filtered {
		return
	}
	if j < len(cs.sorted)-1 {
		shiftView(cs.view, j, 1)
	}
	if cs.matches(&r) {
		cs.view = slices.Insert(cs.view, viewPos(cs.view, j), int32(j))
	}
}

func newRow(e *chargeEntry) row {
	st := e.c.State()
	hay := haystack(&e.c, st)
	return row{e: e, pairs: pairsOf(hay), hay: hay, state: stateCode(st)}
}

// Get returns the charge with the given ID.
func (cs *Charges) Get(id string) (Charge, bool) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	e, ok := cs.byID[id]
	if !ok {
		return Charge{}, false
	}
	return e.c, true
}

// Total returns how many charges are tracked, ignoring the filter.
func (cs *Charges) Total() int {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return len(cs.sorted)
}

// lenLocked returns how many charges the filter shows.
func (cs *Charges) lenLocked() int {
	if cs.filtered() {
		return len(cs.view)
	}
	return len(cs.sorted)
}

// entryAt returns the i-th charge the filter shows, newest first (i must be in range).
func (cs *Charges) entryAt(i int) *chargeEntry {
	if cs.filtered() {
		return cs.sorted[cs.view[len(cs.view)-1-i]].e
	}
	return cs.sorted[len(cs.sorted)-1-i].e
}

// Len returns how many charges the current filter shows.
func (cs *Charges) Len() int {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return cs.lenLocked()
}

// At returns the i-th charge of the filtered view, newest first; false when i is out of range.
func (cs *Charges) At(i int) (Charge, bool) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	if i < 0 || i >= cs.lenLocked() {
		return Charge{}, false
	}
	return cs.entryAt(i).c, true
}

// Window returns up to n charges of the filtered view from position start (newest first),
// together with the Version they belong to, read atomically.
func (cs *Charges) Window(start, n int) ([]Charge, uint64) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	start = max(start, 0)
	n = min(n, cs.lenLocked()-start)
	if n <= 0 {
		return nil, cs.version
	}
	out := make([]Charge, n)
	for k := range out {
		out[k] = cs.entryAt(start + k).c
	}
	return out, cs.version
}

// Index returns the position of the charge id in the filtered view, or -1.
func (cs *Charges) Index(id string) int {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	e, ok := cs.byID[id]
	if !ok {
		return -1
	}
	i := find(cs.sorted, e)
	if i < 0 {
		return -1
	}
	if !cs.filtered() {
		return len(cs.sorted) - 1 - i
	}
	if k := viewPos(cs.view, i); k < len(cs.view) && int(cs.view[k]) == i {
		return len(cs.view) - 1 - k
	}
	return -1
}

// Filter returns the current query (as given to SetFilter, lowercased) and status filter.
func (cs *Charges) Filter() (string, StatusFilter) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return cs.query, cs.status
}

// SetFilter shows only charges whose text contains query (case-insensitive: ID, description,
// external reference, wallet, amount as "12,34", "12.34" or "1234", status, payer, e2eId) and
// whose display state passes status.
func (cs *Charges) SetFilter(query string, status StatusFilter) {
	q := strings.ToLower(strings.ReplaceAll(query, "\x00", ""))
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if q == cs.query && status == cs.status {
		return
	}
	// A query that contains the previous one (same status) can only narrow the previous result.
	narrowing := cs.filtered() && status == cs.status && strings.Contains(q, cs.query)
	cs.query, cs.status = q, status
	cs.qpairs = pairsOf(q)
	cs.want = 0
	if status != FilterAll {
		cs.want = stateCode(ChargeState(status))
	}
	cs.version++
	if !cs.filtered() {
		cs.view = cs.view[:0] // kept for the next scan
		return
	}
	if narrowing {
		// Filter the previous view in place: it is not used again.
		out := cs.view[:0]
		for _, i := range cs.view {
			if cs.matches(&cs.sorted[i]) {
				out = append(out, i)
			}
		}
		cs.view = out
		return
	}
	cs.view = cs.scan(cs.view[:0])
}

// scan appends to out the sorted indices of the rows the filter shows.
func (cs *Charges) scan(out []int32) []int32 {
	for i := range cs.sorted {
		if cs.matches(&cs.sorted[i]) {
			out = append(out, int32(i))
		}
	}
	return out
}

// Version changes whenever the charges or the filter change.
func (cs *Charges) Version() uint64 {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return cs.version
}

// each calls f for every charge, oldest first, under the read lock.
func (cs *Charges) each(f func(c *Charge)) {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	for _, r := range cs.sorted {
		f(&r.e.c)
	}
}

// schedule puts e in the poll heap, updates it or takes it out, after its charge changed.
func (cs *Charges) schedule(e *chargeEntry, isNew bool) {
	if e.c.Final() {
		if e.heapIdx >= 0 {
			heap.Remove(&cs.polls, e.heapIdx)
		}
		return
	}
	if e.heapIdx >= 0 {
		return // still pending: keep its schedule
	}
	if isNew || e.last.IsZero() {
		e.last = e.c.UpdatedAt
		if e.last.IsZero() {
			e.last = e.c.CreatedAt
		}
		e.polls, e.leaseUntil = 0, time.Time{}
	}
	e.due = cs.dueOf(e)
	heap.Push(&cs.polls, e)
}

func (cs *Charges) dueOf(e *chargeEntry) time.Time {
	if !e.leaseUntil.IsZero() {
		return e.leaseUntil
	}
	return e.last.Add(cs.policy.interval(e.polls))
}

// DuePolls returns the IDs of pending charges to poll now, at most max: the focused charge
// every Focused interval, the others with backoff, the most overdue first. Each ID returned is
// leased: it is not returned again until MarkPolled (or until the lease runs out).
func (cs *Charges) DuePolls(now time.Time, focusedID string, max int) []string {
	if max <= 0 {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var out []string
	lease := func(e *chargeEntry) {
		e.leaseUntil = now.Add(cs.policy.Lease)
		e.due = e.leaseUntil
		heap.Fix(&cs.polls, e.heapIdx)
		out = append(out, e.c.ID)
	}
	if e, ok := cs.byID[focusedID]; ok && e.heapIdx >= 0 {
		leased := !e.leaseUntil.IsZero() && now.Before(e.leaseUntil)
		if !leased && !now.Before(e.last.Add(cs.policy.Focused)) {
			lease(e)
		}
	}
	for len(out) < max && len(cs.polls) > 0 && !now.Before(cs.polls[0].due) {
		lease(cs.polls[0])
	}
	return out
}

// MarkPolled records that the charge id was polled at now, ending its lease and backing off.
func (cs *Charges) MarkPolled(id string, now time.Time) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	e, ok := cs.byID[id]
	if !ok || e.heapIdx < 0 {
		return
	}
	e.last, e.leaseUntil = now, time.Time{}
	e.polls++
	e.due = cs.dueOf(e)
	heap.Fix(&cs.polls, e.heapIdx)
}

// PendingCount returns how many tracked charges are waiting for a final state.
func (cs *Charges) PendingCount() int {
	cs.mu.RLock()
	defer cs.mu.RUnlock()
	return len(cs.polls)
}

// pollHeap orders pending charges by due time.
type pollHeap []*chargeEntry

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
	e := x.(*chargeEntry)
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

func heapInit(h *pollHeap) { heap.Init(h) }

// ByExternalReference finds the newest charge of wallet whose externalReference is ref.
func (cs *Charges) ByExternalReference(ref, wallet string) (Charge, bool) {
	var (
		found Charge
		ok    bool
	)
	cs.each(func(c *Charge) {
		if c.ExternalReference == ref && NormalizeWallet(c.Wallet) == NormalizeWallet(wallet) &&
			(!ok || c.CreatedAt.After(found.CreatedAt)) {
			found, ok = *c, true
		}
	})
	return found, ok
}
