package state

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"pixdash/api"
)

// EventEntry is one distinct webhook event (by eventId) as the dashboard received it.
type EventEntry struct {
	// Seq is the event's place in arrival order (larger is newer).
	Seq int64
	// Event is the decoded payload, Raw included; it is shared and must not be modified. When
	// the stored payload no longer decodes (Damaged), it holds the id and kind only.
	Event *api.Event
	// ReceivedAt is when the first copy arrived.
	ReceivedAt time.Time
	// Count is how many copies arrived (1 for an event never re-sent).
	Count int
	// Verdict is what the service answered when the event was read back against it.
	Verdict Verdict
	// VerdictReason says why, for a disputed or unknown event (see Reason and ParseReason).
	VerdictReason string
	// Damaged reports a stored payload that no longer decodes.
	Damaged bool
	// Charge is the tracked charge the event names, as EventWindow read it; nil when none.
	Charge *Charge
}

// Verdict is the outcome of reading a payment event's transaction back from the service. A
// webhook is only a hint: a charge changes by what GET /transactions/{id} answers, never by an
// event alone.
type Verdict string

// Verdicts.
const (
	// VerdictUnchecked: not read back yet, or of a kind that is not read back.
	VerdictUnchecked Verdict = ""
	// VerdictConfirmed: the service's transaction agrees with the event.
	VerdictConfirmed Verdict = "confirmed"
	// VerdictDisputed: the service disagrees (status, amount or e2eId); the event was not applied.
	VerdictDisputed Verdict = "disputed"
	// VerdictUnknown: the service does not know the transaction; the event added nothing.
	VerdictUnknown Verdict = "unknown"
)

// ErrUnknownEvent reports an eventId the store never received.
var ErrUnknownEvent = errors.New("no such event")

// MaxEventBytes is the largest payload the store keeps; the receiver's body limit is lower.
const MaxEventBytes = 1 << 20

// insertEventTx records one event; it reports whether its eventId was new (a copy of a known
// one only counts). An event that names its charge only by externalReference gets the id of
// the newest tracked charge with that reference in its wallet.
func (s *Store) insertEventTx(tx *sql.Tx, e *api.Event, receivedAt time.Time) (bool, error) {
	first, _, err := s.insertEventSeqTx(tx, tx.Stmt(s.stmts.insertEvent), e, receivedAt)
	return first, err
}

// insertEventSeqTx is insertEventTx through ins (the transaction's insertEvent statement,
// prepared once per transaction); seq is the new row's when first.
func (s *Store) insertEventSeqTx(tx *sql.Tx, ins *sql.Stmt, e *api.Event, receivedAt time.Time) (first bool, seq int64, err error) {
	raw := e.Raw
	if len(raw) == 0 {
		return false, 0, fmt.Errorf("%w: event %s has no payload", api.ErrEventInvalid, e.EventID)
	}
	if len(raw) > MaxEventBytes {
		return false, 0, fmt.Errorf("%w: event %s is larger than %d bytes", api.ErrEventInvalid, e.EventID, MaxEventBytes)
	}
	wallet := NormalizeWallet(e.Wallet())
	txID := e.TransactionID
	if txID == "" && e.Kind.IsPayment() && e.ExternalReference != "" {
		err := tx.QueryRow(`SELECT id FROM charges WHERE external_reference = ? AND wallet = ? ORDER BY seq DESC LIMIT 1`, e.ExternalReference, wallet).Scan(&txID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return false, 0, err
		}
	}
	payment := 0 // the column says "read back against the service" (api.EventKind.ReadBack)
	if e.Kind.ReadBack() {
		payment = 1
	}
	res, err := ins.Exec(e.EventID, string(e.Kind), wallet, txID, receivedAt.UnixMilli(), payment, raw)
	if err != nil {
		return false, 0, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		seq, err = res.LastInsertId()
		s.counts.add(wallet, string(e.Kind))
		return true, seq, err
	}
	_, err = tx.Stmt(s.stmts.copyEvent).Exec(e.EventID)
	return false, 0, err
}

// insertIn is the insertEvent statement bound to tx, the writer's transaction under way: bound
// once per transaction, not once per delivery (each of a flood's deliveries is a job of its
// own, and binding a statement to a transaction allocates and registers it there).
func (s *Store) insertIn(tx *sql.Tx) *sql.Stmt {
	if s.insTx != tx {
		s.insTx, s.insStmt = tx, tx.Stmt(s.stmts.insertEvent)
	}
	return s.insStmt
}

// eventCounts is what the transaction under way adds to event_counts: the events it stored
// by wallet and kind, written once per commit (flush) instead of once per event. Only the
// committing goroutine touches it (one at a time, see writer), between the start of a
// transaction (reset) and its commit.
type eventCounts map[eventCountKey]int

type eventCountKey struct{ wallet, kind string }

func (c *eventCounts) add(wallet, kind string) {
	if *c == nil {
		*c = eventCounts{}
	}
	(*c)[eventCountKey{wallet, kind}]++
}

// reset forgets what a transaction rolled back had added.
func (c eventCounts) reset() { clear(c) }

// flush adds the counts to event_counts in tx and forgets them.
func (c eventCounts) flush(tx *sql.Tx, add *sql.Stmt) error {
	if len(c) == 0 {
		return nil
	}
	st := tx.Stmt(add)
	for k, n := range c {
		if _, err := st.Exec(k.wallet, k.kind, n); err != nil {
			return err
		}
	}
	clear(c)
	return nil
}

// insertEventSQL stores one webhook event (insertEventSeqTx); a known eventId inserts nothing.
const insertEventSQL = `INSERT INTO events(event_id, kind, wallet, transaction_id, received_at, payment, raw) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(event_id) DO NOTHING`

// statements are the writer's prepared statements for what a webhook flood repeats.
type statements struct {
	insertEvent, copyEvent, addCounts *sql.Stmt
	// unlabelled finds a charge without a search number (labelSearchRows, after every group).
	unlabelled *sql.Stmt
	// eventsAfter is EventsAfter's query, prepared on the readers (the engine's feed runs it
	// at every commit of a flood).
	eventsAfter *sql.Stmt
}

func (st *statements) prepare(ctx context.Context, db *sql.DB) error {
	var err error
	if st.insertEvent, err = db.PrepareContext(ctx, insertEventSQL); err != nil {
		return err
	}
	if st.copyEvent, err = db.PrepareContext(ctx, `UPDATE events SET copies = copies + 1 WHERE event_id = ?`); err != nil {
		return err
	}
	if st.addCounts, err = db.PrepareContext(ctx, `INSERT INTO event_counts(wallet, kind, n) VALUES (?, ?, ?)
		ON CONFLICT(wallet, kind) DO UPDATE SET n = n + excluded.n`); err != nil {
		return err
	}
	st.unlabelled, err = db.PrepareContext(ctx, unlabelledSQL)
	return err
}

// prepareReaders prepares the readers' repeated statements (each reader connection prepares
// it once, when it first runs it).
func (st *statements) prepareReaders(ctx context.Context, db *sql.DB) error {
	var err error
	st.eventsAfter, err = db.PrepareContext(ctx, `SELECT `+eventCols+` FROM events WHERE seq > ? ORDER BY seq LIMIT ?`)
	return err
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.insertEvent, st.copyEvent, st.addCounts, st.unlabelled, st.eventsAfter} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// ApplyEvents records a batch of verified webhook events in one commit; first[i] reports
// whether es[i]'s eventId was new (a later copy of an id is counted, see EventEntry.Count). No
// charge changes: a webhook is a hint, and ConfirmEvent applies what the service answers for
// it. Each event must be what DecodeEvent returned for its Raw (the payload is stored as is,
// and the event is what this process's reads of it return). A nil,
// id-less or payload-less event refuses the whole batch before anything is written.
func (s *Store) ApplyEvents(ctx context.Context, es []*api.Event) (first []bool, err error) {
	for _, e := range es {
		if e == nil || e.EventID == "" || len(e.Raw) == 0 {
			return nil, fmt.Errorf("state: %w", api.ErrEventInvalid)
		}
	}
	if len(es) == 0 {
		return nil, nil
	}
	first = make([]bool, len(es))
	seqs := make([]int64, len(es))
	now := s.now()
	err = s.writeEvents(ctx, func(tx *sql.Tx) (func(), error) {
		ins := s.insertIn(tx)
		for i, e := range es {
			f, seq, err := s.insertEventSeqTx(tx, ins, e, now)
			if err != nil {
				return nil, err
			}
			first[i], seqs[i] = f, seq
		}
		return func() {
			// The dashboard reads what arrived right after this commit: it finds these
			// events decoded (scanEvents), not to be decoded again.
			for i, e := range es {
				if first[i] {
					s.decoded.put(seqs[i], e)
				}
			}
			for i, e := range es {
				op := "stored"
				if !first[i] {
					op = "copy counted"
				}
				s.logWrite("event", op, e.EventID, slog.String("kind", string(e.Kind)), slog.String("charge", e.TransactionID))
			}
			s.mark(changeArrivals)
		}, nil
	})
	if err != nil {
		return nil, err
	}
	return first, nil
}

// ApplyEvent records one event as ApplyEvents does.
func (s *Store) ApplyEvent(ctx context.Context, e *api.Event) (bool, error) {
	f, err := s.ApplyEvents(ctx, []*api.Event{e})
	if err != nil {
		return false, err
	}
	return f[0], nil
}

// SetEventVerdict records what the service answered when the event eventID was read back
// against it. An unknown eventID is ErrUnknownEvent.
func (s *Store) SetEventVerdict(ctx context.Context, eventID string, v Verdict, reason string) error {
	return s.write(ctx, func(tx *sql.Tx) (func(), error) {
		if err := setVerdictTx(tx, eventID, v, reason); err != nil {
			return nil, err
		}
		// A refund the service confirmed is what happened to the charge's money (outcome.go).
		c, changed, err := s.refundOutcomeTx(tx, eventID, v)
		if err != nil {
			return nil, err
		}
		logged := func() { s.logWrite("verdict", string(v), eventID, slog.String("reason", logReason(reason))) }
		if changed {
			return func() { logged(); s.mark(changeEvents); s.cacheCharge(c) }, nil
		}
		return func() { logged(); s.mark(changeEvents) }, nil
	})
}

// setVerdictTx records the verdict of event eventID in tx; a refund_completed confirmed gets its
// line in refund_lines in the same transaction (a verdict moving away from confirmed takes it
// out: a trigger of migration 0014).
func setVerdictTx(tx *sql.Tx, eventID string, v Verdict, reason string) error {
	var (
		seq  int64
		kind string
	)
	err := tx.QueryRow(`UPDATE events SET verdict = ?, verdict_reason = ? WHERE event_id = ? RETURNING seq, kind`, string(v), reason, eventID).Scan(&seq, &kind)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %q", ErrUnknownEvent, eventID)
	}
	if err != nil {
		return err
	}
	if v == VerdictConfirmed && api.EventKind(kind) == api.EventRefundCompleted {
		return putRefundLineTx(tx, seq)
	}
	return nil
}

// EventQuery selects events for the events view.
type EventQuery struct {
	// Kind keeps one kind ("" for all).
	Kind api.EventKind
	// Wallet keeps one wallet ("" for all).
	Wallet string
}

// EventPage is a window of the events a query selects, newest first.
type EventPage struct {
	Query EventQuery
	// Offset is the position of Entries[0] in the whole selection.
	Offset  int
	Entries []EventEntry
	// Total is how many events the query selects.
	Total int
	// Version is the store's events counter (Versions) when the page was read.
	Version uint64
}

const eventCols = `seq, event_id, kind, transaction_id, received_at, copies, verdict, verdict_reason, raw`

// scanEvents reads rows of eventCols.
func scanEvents(rows *sql.Rows) ([]EventEntry, error) { return scanEventsWith(rows, nil) }

// scanEventsWith reads rows of eventCols, taking each payload's decoded event from cache when
// it holds the same payload (nil: decode every one).
func scanEventsWith(rows *sql.Rows, cache *eventCache) ([]EventEntry, error) {
	defer rows.Close()
	var out []EventEntry
	for rows.Next() {
		var (
			e                 EventEntry
			id, kind, txID, r string
			received          int64
			// raw is the driver's copy of the payload, valid until the next row: the cache
			// compares it and DecodeEvent copies it, so Scan need not copy it again.
			raw sql.RawBytes
		)
		if err := rows.Scan(&e.Seq, &id, &kind, &txID, &received, &e.Count, (*string)(&e.Verdict), &r, &raw); err != nil {
			return nil, classify(err)
		}
		e.VerdictReason = r
		e.ReceivedAt = unixMilli(received)
		ev := cache.get(e.Seq, raw)
		if ev == nil {
			var err error
			ev, err = api.DecodeEvent(raw)
			if err != nil || ev.EventID != id {
				ev, e.Damaged = &api.Event{EventID: id, Kind: api.EventKind(kind)}, true
			}
		}
		if ev.TransactionID == "" && txID != "" {
			cp := *ev
			cp.TransactionID = txID
			ev = &cp
		}
		e.Event = ev
		out = append(out, e)
	}
	return out, classify(rows.Err())
}

// eventCache holds the decoded events this process wrote last, by their seq: the dashboard
// reads each new event right after its commit (the feed, the events view), and decoding every
// payload again was most of that read's work during a flood. An entry serves a row only when
// the row's payload is byte for byte the one it was decoded from, so it is never stale (a seq
// reused after a prune holds another payload). The zero value is empty and ready; nil is never
// consulted.
type eventCache struct {
	mu   sync.Mutex
	m    map[int64]*api.Event
	ring [eventCacheSize]int64
	next int
}

// eventCacheSize is how many decoded events the cache keeps (about 1 KB each).
const eventCacheSize = 4096

// put keeps a copy of e (its payload copied: the caller may reuse its buffer) as the event of seq.
func (c *eventCache) put(seq int64, e *api.Event) {
	if c == nil || e == nil {
		return
	}
	cp := *e
	cp.Raw = bytes.Clone(e.Raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[int64]*api.Event, eventCacheSize)
	}
	if old := c.ring[c.next]; old != 0 {
		delete(c.m, old)
	}
	c.ring[c.next] = seq
	c.next = (c.next + 1) % eventCacheSize
	c.m[seq] = &cp
}

// get returns the decoded event of seq when the cache holds it for this very payload, else nil.
func (c *eventCache) get(seq int64, raw []byte) *api.Event {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	e := c.m[seq]
	c.mu.Unlock()
	if e == nil || !bytes.Equal(e.Raw, raw) {
		return nil
	}
	return e
}

func (q EventQuery) where() (string, []any) {
	var conds []string
	var args []any
	if q.Wallet != "" {
		conds, args = append(conds, "wallet = ?"), append(args, q.Wallet)
	}
	if q.Kind != "" {
		conds, args = append(conds, "kind = ?"), append(args, string(q.Kind))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// EventWindow reads up to limit events of q, newest first, starting at offset.
func (s *Store) EventWindow(ctx context.Context, q EventQuery, offset, limit int) (EventPage, error) {
	_, ev := s.Versions()
	page := EventPage{Query: q, Offset: offset, Version: ev}
	where, args := q.where()
	if err := s.rdb.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM event_counts`+where, args...).Scan(&page.Total); err != nil {
		return page, classify(err)
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events`+where+` ORDER BY seq DESC LIMIT ? OFFSET ?`, append(args, limit, max(offset, 0))...)
	if err != nil {
		return page, classify(err)
	}
	if page.Entries, err = scanEventsWith(rows, &s.decoded); err != nil {
		return page, err
	}
	return page, s.attachCharges(ctx, page.Entries)
}

// attachCharges sets each entry's Charge to the tracked charge its event names.
func (s *Store) attachCharges(ctx context.Context, es []EventEntry) error {
	ids := make([]string, 0, len(es))
	for _, e := range es {
		if e.Event.TransactionID != "" {
			ids = append(ids, e.Event.TransactionID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	list, err := json.Marshal(ids) // one parameter, however long the window
	if err != nil {
		return err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+chargeColsPlain+` FROM charges WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return classify(err)
	}
	cs, err := scanCharges(rows)
	if err != nil {
		return err
	}
	byID := make(map[string]*Charge, len(cs))
	for i := range cs {
		byID[cs[i].ID] = &cs[i]
	}
	for i := range es {
		es[i].Charge = byID[es[i].Event.TransactionID]
	}
	return nil
}

// EventFacets is what the events view's filters and header need besides a window.
type EventFacets struct {
	// Kinds and Wallets are those events arrived with, sorted.
	Kinds   []api.EventKind
	Wallets []string
	// Total is how many events the store holds; LastAt is when the newest arrived.
	Total  int
	LastAt time.Time
}

// Facets reads the kinds and wallets present, the total and the newest arrival.
func (s *Store) Facets(ctx context.Context) (EventFacets, error) {
	var f EventFacets
	rows, err := s.rdb.QueryContext(ctx, `SELECT wallet, kind, n FROM event_counts WHERE n > 0 ORDER BY kind, wallet`)
	if err != nil {
		return f, classify(err)
	}
	defer rows.Close()
	kinds, wallets := map[api.EventKind]bool{}, map[string]bool{}
	for rows.Next() {
		var w, k string
		var n int
		if err := rows.Scan(&w, &k, &n); err != nil {
			return f, classify(err)
		}
		f.Total += n
		if !kinds[api.EventKind(k)] {
			kinds[api.EventKind(k)] = true
			f.Kinds = append(f.Kinds, api.EventKind(k))
		}
		wallets[w] = true
	}
	if err := rows.Err(); err != nil {
		return f, classify(err)
	}
	for w := range wallets {
		f.Wallets = append(f.Wallets, w)
	}
	slices.Sort(f.Wallets)
	var last sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, `SELECT received_at FROM events ORDER BY seq DESC LIMIT 1`).Scan(&last); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return f, classify(err)
	}
	if last.Valid {
		f.LastAt = unixMilli(last.Int64)
	}
	return f, nil
}

// Event reads one event by its eventId.
func (s *Store) Event(ctx context.Context, id string) (EventEntry, bool, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE event_id = ?`, id)
	if err != nil {
		return EventEntry{}, false, classify(err)
	}
	es, err := scanEvents(rows)
	if err != nil || len(es) == 0 {
		return EventEntry{}, false, err
	}
	return es[0], true, nil
}

// EventsAfter reads up to max events that arrived after the one at seq, oldest first: the
// dashboard's feed of new events (from this process's receiver or another's).
func (s *Store) EventsAfter(ctx context.Context, seq int64, max int) ([]EventEntry, error) {
	rows, err := s.stmts.eventsAfter.QueryContext(ctx, seq, max)
	if err != nil {
		return nil, classify(err)
	}
	return scanEventsWith(rows, &s.decoded)
}

// LastEventSeq is the Seq of the newest event (0 when none).
func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.rdb.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM events`).Scan(&seq)
	return seq, classify(err)
}

// UncheckedPayments reads up to max events of the kinds read back against the service
// (payments, refunds, withdrawals, balance blocks: api.EventKind.ReadBack) not read back yet,
// newest first. Events recorded before a kind was read back stay out of it.
func (s *Store) UncheckedPayments(ctx context.Context, max int) ([]EventEntry, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE verdict = '' AND payment = 1 ORDER BY seq DESC LIMIT ?`, max)
	if err != nil {
		return nil, classify(err)
	}
	return scanEvents(rows)
}

// CountEventsBefore reports how many events were received before the given time: what
// PruneEvents(before) would delete now.
func (s *Store) CountEventsBefore(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE received_at < ?`, before.UnixMilli()).Scan(&n)
	return n, classify(err)
}

// PruneEvents deletes the events received before the given time and reports how many; charges
// keep their state (they never depend on an event). A pruned event re-sent later is recorded
// again as new, and read back against the service again.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) (func(), error) {
		res, err := tx.Exec(`DELETE FROM events WHERE received_at < ?`, before.UnixMilli())
		if err != nil {
			return nil, err
		}
		n, _ = res.RowsAffected()
		return func() { s.mark(changeEvents) }, nil
	})
	return int(n), err
}
