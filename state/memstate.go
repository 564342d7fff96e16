package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"pixdash/api"
)

// verdictData is the body of a verdict record.
type verdictData struct {
	ID string  `json:"id"`
	V  Verdict `json:"v"`
	R  string  `json:"r,omitempty"`
}

// Submission is a POST /pix about to be sent (or sent without a confirmed answer). It is
// persisted before the first attempt so that a crash or restart never creates a second charge:
// retries reuse Key and Request exactly, and after a restart GET /transactions/{Key} resolves it.
type Submission struct {
	Key       string               `json:"key"`
	Wallet    string               `json:"wallet,omitempty"`
	Request   api.CreatePixRequest `json:"request"`
	CreatedAt time.Time            `json:"createdAt"`
	// InFlightUntil is when no attempt of this create can still be in flight: the deadline of
	// its last attempt plus a margin for the service to act on a request it already received.
	// Until then a 404 for its key does not prove the charge was never created. Zero (records
	// written before it existed) means already past.
	InFlightUntil time.Time `json:"inFlightUntil,omitzero"`
}

// InFlight reports whether an attempt of the submission may still land at now.
func (s Submission) InFlight(now time.Time) bool { return now.Before(s.InFlightUntil) }

// LearnedFee is the originator's PIX fee as the service revealed it (in a split refusal).
type LearnedFee struct {
	Fee       api.Money `json:"fee"`
	LearnedAt time.Time `json:"learnedAt"`
	// From says what revealed it, e.g. the refusal message.
	From string `json:"from,omitempty"`
	// Wallet is the originating wallet of the refused charge.
	Wallet string `json:"wallet,omitempty"`
}

// Lookup is one transaction-inspector query.
type Lookup struct {
	Query  string    `json:"query"`
	Wallet string    `json:"wallet,omitempty"`
	At     time.Time `json:"at"`
	// Found reports whether the query matched a transaction; TxID is the one it matched.
	Found bool   `json:"found,omitempty"`
	TxID  string `json:"txId,omitempty"`
}

// MaxSnapshotEvents is how many events (the newest) a snapshot keeps: compaction rewrites at
// most these, and older events are dropped from the state when the journal holding them is
// compacted away (the receiver remembers as many eventIds for deduplication).
const MaxSnapshotEvents = 100_000

// MaxRecentLookups is how many inspector lookups are remembered.
const MaxRecentLookups = 20

// memState is the profile's state in memory; every change to it is one journal record.
type memState struct {
	charges  *Charges
	events   *EventLog
	subs     map[string]Submission
	finished map[string]struct{} // submissions completed or abandoned (this journal generation)
	fee      *LearnedFee
	lookups  []Lookup // newest first
	applied  uint64   // records applied, to tell whether a refresh changed anything
}

func newMemState(policy PollPolicy) *memState {
	cs := NewCharges()
	cs.policy = policy
	return &memState{charges: cs, events: NewEventLog(), subs: map[string]Submission{}, finished: map[string]struct{}{}}
}

// putCharge merges c into the tracked charge with its ID (or adds it); it returns the result
// and whether anything changed.
func (m *memState) putCharge(c Charge) (Charge, bool) {
	cs := m.charges
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if e, ok := cs.byID[c.ID]; ok {
		merged := e.c
		merged.Merge(c)
		if reflect.DeepEqual(merged, e.c) {
			return merged, false
		}
		c = merged
	} else if c.Wallet == "" {
		c.Wallet = api.WalletPrincipal
	}
	cs.upsertLocked(c)
	return c, true
}

// applyEvent records an event (n copies) and reports whether it was new. The first copy of a
// payment event that names its charge only by externalReference gets that charge's id. Only
// legacy journal records (events written before webhooks became hints) also update the charge;
// now a charge changes by the service's answer alone (Store.ConfirmEvent).
func (m *memState) applyEvent(e *api.Event, at time.Time, n int, legacy bool) bool {
	m.events.mu.Lock()
	first := m.events.applyLocked(e, at, max(n, 1))
	m.events.mu.Unlock()
	if first && e.Kind.IsPayment() && e.TransactionID == "" && e.ExternalReference != "" {
		// An event that names its charge only by the caller's reference (data.externalReference).
		if c, ok := m.charges.ByExternalReference(e.ExternalReference, e.Wallet()); ok {
			e.TransactionID = c.ID
		}
	}
	if first && legacy && e.Kind.IsPayment() && e.TransactionID != "" {
		c, _ := m.charges.Get(e.TransactionID)
		c.ApplyEvent(e)
		m.putCharge(c)
	}
	return first
}

func (m *memState) beginSub(sub Submission) {
	if _, done := m.finished[sub.Key]; done {
		return
	}
	m.subs[sub.Key] = sub
}

func (m *memState) finishSub(key string) {
	delete(m.subs, key)
	m.finished[key] = struct{}{}
}

func (m *memState) setFee(f LearnedFee) {
	if m.fee == nil || !f.LearnedAt.Before(m.fee.LearnedAt) {
		m.fee = &f
	}
}

func (m *memState) addLookup(l Lookup) {
	l.Wallet = NormalizeWallet(l.Wallet)
	m.lookups = slices.DeleteFunc(m.lookups, func(o Lookup) bool { return o.Query == l.Query && o.Wallet == l.Wallet })
	i, _ := slices.BinarySearchFunc(m.lookups, l, func(a, b Lookup) int { return b.At.Compare(a.At) }) // newest first
	m.lookups = slices.Insert(m.lookups, i, l)
	if len(m.lookups) > MaxRecentLookups {
		m.lookups = m.lookups[:MaxRecentLookups]
	}
}

// Data of the records that are not a bare domain value.
type (
	eventData struct {
		E json.RawMessage `json:"e"`
		N int             `json:"n,omitempty"`
	}
	dupData struct {
		ID string `json:"id"`
	}
	subDoneData struct {
		Key    string  `json:"key"`
		Charge *Charge `json:"charge,omitempty"`
	}
	genData struct {
		Gen uint64 `json:"gen"`
	}
	endData struct {
		N int `json:"n"`
	}
)

// eventPayload returns the event as it was received (or encoded when it was built in code),
// as compact JSON on one line. A received payload (Raw, validated by api.DecodeEvent) is kept as
// is, not validated again; only a payload spanning several lines is compacted.
func eventPayload(e *api.Event) (json.RawMessage, error) {
	if len(e.Raw) == 0 {
		return json.Marshal(e)
	}
	if bytes.IndexByte(e.Raw, '\n') < 0 {
		return e.Raw, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, e.Raw); err != nil {
		return json.Marshal(e)
	}
	return buf.Bytes(), nil
}

// appendEventData appends the data of an event record, {"e":<payload>,"n":copies}, as
// encoding/json writes eventData.
func appendEventData(b []byte, payload []byte, n int) []byte {
	b = append(b, `{"e":`...)
	b = append(b, payload...)
	if n != 0 {
		b = append(b, `,"n":`...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, '}')
}

// appendDupData appends the data of an event_dup record, {"id":"<eventId>"}.
func appendDupData(b []byte, id string) []byte {
	b = append(b, `{"id":`...)
	plain := true
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, id...)
		b = append(b, '"')
	} else {
		q, _ := json.Marshal(id) // a string always encodes
		b = append(b, q...)
	}
	return append(b, '}')
}

// apply replays one record. Records of unknown type or a newer version are skipped.
func (m *memState) apply(r *record, snapshot bool) error {
	m.applied++
	if r.V != recordVersion {
		return nil
	}
	switch r.T {
	case recCharge:
		var c Charge
		if err := json.Unmarshal(r.D, &c); err != nil {
			return err
		}
		if c.ID != "" {
			m.putCharge(c)
		}
	case recEvent, recHint:
		var d eventData
		if err := json.Unmarshal(r.D, &d); err != nil {
			return err
		}
		e, err := api.DecodeEvent(d.E)
		if err != nil {
			return err
		}
		m.applyEvent(e, r.At, d.N, r.T == recEvent && !snapshot)
	case recVerdict:
		var d verdictData
		if err := json.Unmarshal(r.D, &d); err != nil {
			return err
		}
		m.events.setVerdict(d.ID, d.V, d.R)
	case recEventDup:
		var d dupData
		if err := json.Unmarshal(r.D, &d); err != nil {
			return err
		}
		m.events.countDuplicate(d.ID)
	case recSubBegin:
		var sub Submission
		dec := json.NewDecoder(bytes.NewReader(r.D))
		dec.UseNumber() // metadata numbers must be re-sent exactly as first sent
		if err := dec.Decode(&sub); err != nil {
			return err
		}
		m.beginSub(sub)
	case recSubDone, recSubAbandon:
		var d subDoneData
		if err := json.Unmarshal(r.D, &d); err != nil {
			return err
		}
		m.finishSub(d.Key)
		if d.Charge != nil && d.Charge.ID != "" {
			m.putCharge(*d.Charge)
		}
	case recFee:
		var f LearnedFee
		if err := json.Unmarshal(r.D, &f); err != nil {
			return err
		}
		m.setFee(f)
	case recLookup:
		var l Lookup
		if err := json.Unmarshal(r.D, &l); err != nil {
			return err
		}
		m.addLookup(l)
	}
	return nil
}

// applyAll replays records, stopping at the first that cannot be decoded; it returns how many were applied.
func (m *memState) applyAll(recs []record, snapshot bool) (int, error) {
	for i := range recs {
		if err := m.apply(&recs[i], snapshot); err != nil {
			return i, fmt.Errorf("%s record: %w", recs[i].T, err)
		}
	}
	return len(recs), nil
}

// snapshot encodes the whole state as a snapshot file of generation gen.
func (m *memState) snapshot(gen uint64, at time.Time) ([]byte, error) {
	var buf bytes.Buffer
	n := 0
	add := func(t string, at time.Time, v any) error {
		r, err := newRecord(t, at, v)
		if err != nil {
			return err
		}
		line, err := encodeLine(&r)
		if err != nil {
			return err
		}
		buf.Write(line)
		n++
		return nil
	}
	if err := add(recSnap, at, genData{Gen: gen}); err != nil {
		return nil, err
	}
	var err error
	skip := m.events.Total() - MaxSnapshotEvents // the oldest events are left out
	var data []byte
	m.events.each(func(e *EventEntry) {
		if skip > 0 {
			skip--
			return
		}
		if err != nil {
			return
		}
		var p json.RawMessage
		if p, err = eventPayload(e.Event); err != nil {
			return
		}
		data = appendEventData(data[:0], p, e.Count)
		var r encodedRecord
		if r, err = encodeRecord(recEvent, e.ReceivedAt, data); err == nil {
			buf.Write(r.line)
			n++
		}
		if err == nil && e.Verdict != VerdictUnchecked {
			vd, merr := json.Marshal(verdictData{ID: e.Event.EventID, V: e.Verdict, R: e.VerdictReason})
			if merr != nil {
				err = merr
				return
			}
			if r, err = encodeRecord(recVerdict, e.ReceivedAt, vd); err == nil {
				buf.Write(r.line)
				n++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	m.charges.each(func(c *Charge) {
		if err == nil {
			err = add(recCharge, c.UpdatedAt, c)
		}
	})
	if err != nil {
		return nil, err
	}
	subs := make([]Submission, 0, len(m.subs))
	for _, s := range m.subs {
		subs = append(subs, s)
	}
	slices.SortFunc(subs, func(a, b Submission) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, s := range subs {
		if err := add(recSubBegin, s.CreatedAt, s); err != nil {
			return nil, err
		}
	}
	if m.fee != nil {
		if err := add(recFee, m.fee.LearnedAt, m.fee); err != nil {
			return nil, err
		}
	}
	for i := len(m.lookups) - 1; i >= 0; i-- {
		if err := add(recLookup, m.lookups[i].At, m.lookups[i]); err != nil {
			return nil, err
		}
	}
	if err := add(recEnd, at, endData{N: n - 1}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// adopt takes over o's charges (keeping this collection's filter, policy and poll schedules).
func (cs *Charges) adopt(o *Charges) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	old := cs.byID
	cs.byID, cs.sorted, cs.polls = o.byID, o.sorted, o.polls
	for id, e := range cs.byID {
		if p, ok := old[id]; ok && e.heapIdx >= 0 && p.heapIdx >= 0 {
			e.last, e.polls, e.leaseUntil = p.last, p.polls, p.leaseUntil
			e.due = cs.dueOf(e)
		}
	}
	if len(old) > 0 {
		// Due times may have changed: rebuild the heap order.
		for i, e := range cs.polls {
			e.heapIdx = i
		}
		heapInit(&cs.polls)
	}
	cs.view = nil
	if cs.filtered() {
		cs.view = cs.scan(nil)
	}
	cs.version++
}

// adopt takes over o's events (keeping this log's filter).
func (l *EventLog) adopt(o *EventLog) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries, l.byID, l.wallets = o.entries, o.byID, o.wallets
	l.view = nil
	if l.filtered() {
		for i := range l.entries {
			if l.matches(l.entries[i].Event) {
				l.view = append(l.view, int32(i))
			}
		}
	}
	l.version++
}
