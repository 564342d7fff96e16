package state

import (
	"slices"
	"sync"
	"time"

	"pixdash/api"
)

// EventEntry is one distinct webhook event (by eventId) as the dashboard received it.
type EventEntry struct {
	// Event is the decoded payload, Raw included; it is shared and must not be modified.
	Event *api.Event
	// ReceivedAt is when the first copy arrived.
	ReceivedAt time.Time
	// Count is how many copies arrived (1 for an event never re-sent).
	Count int
	// Verdict is what the service answered when the event was read back against it.
	Verdict Verdict
	// VerdictReason says why, for a disputed or unknown event (English; e.g. "the service
	// says pending").
	VerdictReason string
}

// Verdict is the outcome of reading a payment event's transaction back from the service. A
// webhook is only a hint: a charge changes by what GET /transactions/{id} answers, never by an
// event alone.
type Verdict string

// Verdicts.
const (
	// VerdictUnchecked: not read back yet, or not a payment event.
	VerdictUnchecked Verdict = ""
	// VerdictConfirmed: the service's transaction agrees with the event.
	VerdictConfirmed Verdict = "confirmed"
	// VerdictDisputed: the service disagrees (status, amount or e2eId); the event was not applied.
	VerdictDisputed Verdict = "disputed"
	// VerdictUnknown: the service does not know the transaction; the event added nothing.
	VerdictUnknown Verdict = "unknown"
)

// setVerdict records the verdict of a known event; it reports whether the id was known.
func (l *EventLog) setVerdict(id string, v Verdict, reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.byID[id]
	if ok {
		l.entries[i].Verdict, l.entries[i].VerdictReason = v, reason
		l.version++
	}
	return ok
}

// EventLog keeps webhook events deduplicated by eventId, newest first, with a kind and wallet filter.
// It is safe for concurrent use. Changes made directly here are not persisted (use Store.ApplyEvent).
type EventLog struct {
	mu      sync.RWMutex
	entries []EventEntry   // in arrival order
	byID    map[string]int // eventId -> index in entries
	view    []int32        // indices of entries passing the filter, arrival order; used only when filtered
	kind    api.EventKind
	wallet  string
	wallets map[string]int // wallet -> number of events
	version uint64
}

// NewEventLog returns an empty log.
func NewEventLog() *EventLog {
	return &EventLog{byID: map[string]int{}, wallets: map[string]int{}}
}

// Apply records e, received now-ish (its own createdAt is used as the receipt time); it reports
// whether this is the first copy of its eventId. Use ApplyAt to give the receipt time.
func (l *EventLog) Apply(e *api.Event) (first bool) { return l.ApplyAt(e, e.CreatedAt) }

// ApplyAt records e received at receivedAt; it reports whether this is the first copy of its eventId.
func (l *EventLog) ApplyAt(e *api.Event, receivedAt time.Time) (first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applyLocked(e, receivedAt, 1)
}

func (l *EventLog) applyLocked(e *api.Event, receivedAt time.Time, count int) bool {
	l.version++
	if i, ok := l.byID[e.EventID]; ok {
		l.entries[i].Count += count
		return false
	}
	i := len(l.entries)
	l.entries = append(l.entries, EventEntry{Event: e, ReceivedAt: receivedAt, Count: count})
	l.byID[e.EventID] = i
	l.wallets[e.Wallet()]++
	if l.filtered() && l.matches(e) {
		l.view = append(l.view, int32(i))
	}
	return true
}

// countDuplicate adds a copy of a known eventId; it reports whether the id was known.
func (l *EventLog) countDuplicate(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.byID[id]
	if ok {
		l.entries[i].Count++
		l.version++
	}
	return ok
}

// Seen returns how many copies of the event id arrived (0 when never).
func (l *EventLog) Seen(id string) int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if i, ok := l.byID[id]; ok {
		return l.entries[i].Count
	}
	return 0
}

// Get returns the event with the given eventId.
func (l *EventLog) Get(id string) (EventEntry, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if i, ok := l.byID[id]; ok {
		return l.entries[i], true
	}
	return EventEntry{}, false
}

func (l *EventLog) filtered() bool { return l.kind != "" || l.wallet != "" }

func (l *EventLog) matches(e *api.Event) bool {
	return (l.kind == "" || e.Kind == l.kind) && (l.wallet == "" || e.Wallet() == l.wallet)
}

// SetFilter shows only events of kind (all when "") for wallet (all when ""; "principal" for the main account).
func (l *EventLog) SetFilter(kind api.EventKind, wallet string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if kind == l.kind && wallet == l.wallet {
		return
	}
	l.kind, l.wallet = kind, wallet
	l.version++
	l.view = nil
	if !l.filtered() {
		return
	}
	for i := range l.entries {
		if l.matches(l.entries[i].Event) {
			l.view = append(l.view, int32(i))
		}
	}
}

// Filter returns the current kind and wallet filter.
func (l *EventLog) Filter() (api.EventKind, string) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.kind, l.wallet
}

// Len returns how many events the filter shows.
func (l *EventLog) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.filtered() {
		return len(l.view)
	}
	return len(l.entries)
}

// Total returns how many distinct events were received, ignoring the filter.
func (l *EventLog) Total() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.entries)
}

// At returns the i-th event of the filtered view, newest first; false when out of range.
func (l *EventLog) At(i int) (EventEntry, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.atLocked(i)
}

func (l *EventLog) atLocked(i int) (EventEntry, bool) {
	if l.filtered() {
		if i < 0 || i >= len(l.view) {
			return EventEntry{}, false
		}
		return l.entries[l.view[len(l.view)-1-i]], true
	}
	if i < 0 || i >= len(l.entries) {
		return EventEntry{}, false
	}
	return l.entries[len(l.entries)-1-i], true
}

// Window returns up to n events of the filtered view from position start (newest first) and the Version they belong to.
func (l *EventLog) Window(start, n int) ([]EventEntry, uint64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []EventEntry
	for i := max(start, 0); len(out) < n; i++ {
		e, ok := l.atLocked(i)
		if !ok {
			break
		}
		out = append(out, e)
	}
	return out, l.version
}

// Wallets returns the wallets events arrived for, sorted.
func (l *EventLog) Wallets() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]string, 0, len(l.wallets))
	for w := range l.wallets {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// Version changes whenever events, counts or the filter change.
func (l *EventLog) Version() uint64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.version
}

// each calls f for every event in arrival order, under the read lock.
func (l *EventLog) each(f func(e *EventEntry)) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for i := range l.entries {
		f(&l.entries[i])
	}
}
