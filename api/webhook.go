package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Webhook headers. The spec names SignatureHeader; the deployed service (pague.dev v2) signs in
// PagueSignatureHeader and adds the others. A signature is "sha256=" + hex(HMAC-SHA256(secret,
// raw body)), the prefix optional.
const (
	SignatureHeader      = "X-Service-Signature"
	PagueSignatureHeader = "X-Pague-Signature"
	// TimestampHeader carries the delivery time in epoch milliseconds; when present, a delivery
	// outside the tolerance window is refused.
	TimestampHeader = "X-Pague-Timestamp"
	// EventHeader and WebhookIDHeader are informative only, never trusted (they are not signed).
	EventHeader     = "X-Pague-Event"
	WebhookIDHeader = "X-Pague-Webhook-ID"
	// EventIDHeader is the emulator's informative copy of the eventId (never trusted).
	EventIDHeader = "X-Service-Event-Id"
)

// DefaultWebhookTolerance is how far a delivery's TimestampHeader may be from the local clock.
const DefaultWebhookTolerance = 300 * time.Second

// ErrTimestampOutside reports a delivery whose TimestampHeader is unreadable or outside the window.
var ErrTimestampOutside = errors.New("webhook timestamp outside the tolerance window")

// signaturePrefix precedes the hex digest in SignatureHeader.
const signaturePrefix = "sha256="

// Signature errors; none of them ever carries the secret or the expected signature.
var (
	ErrSignatureMissing   = errors.New("webhook signature missing")
	ErrSignatureMalformed = errors.New("webhook signature malformed")
	ErrSignatureMismatch  = errors.New("webhook signature mismatch")
	ErrNoSigningSecret    = errors.New("webhook signing secret not configured")
)

// Sign returns the signature header value for body: "sha256=" + lowercase hex HMAC-SHA256.
func Sign(body []byte, secret Secret) string {
	m := hmac.New(sha256.New, []byte(secret.Reveal()))
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature checks header against the HMAC-SHA256 of the raw body in constant time.
// Hex digits may be in either case; the "sha256=" prefix is optional (the service sends it
// with or without). An empty secret verifies nothing (ErrNoSigningSecret): anyone can compute
// an HMAC with an empty key.
func VerifySignature(body []byte, header string, secret Secret) error {
	if secret == "" {
		return ErrNoSigningSecret
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrSignatureMissing
	}
	digest, _ := strings.CutPrefix(header, signaturePrefix)
	if len(digest) != 2*sha256.Size {
		return fmt.Errorf("%w: want %d hex digits, got %d", ErrSignatureMalformed, 2*sha256.Size, len(digest))
	}
	got, err := hex.DecodeString(digest)
	if err != nil {
		return fmt.Errorf("%w: not hexadecimal", ErrSignatureMalformed)
	}
	m := hmac.New(sha256.New, []byte(secret.Reveal()))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrSignatureMismatch
	}
	return nil
}

// Receiver defaults.
const (
	DefaultWebhookMaxBody      = 1 << 20 // 1 MiB
	DefaultWebhookBuffer       = 4096
	DefaultWebhookSeenCapacity = 100_000
	// WebhookPath is the path Start serves.
	WebhookPath = "/webhook"
)

// ReceiverStats counts what a Receiver did with the deliveries it got.
type ReceiverStats struct {
	Accepted   uint64 // first deliveries the sink took
	Duplicates uint64 // redeliveries of an eventId already accepted (answered 200, not handed on)
	Rejected   uint64 // missing or bad signature (401)
	Malformed  uint64 // signed but not a usable event (400)
	Overflow   uint64 // the sink was full (503, the sender retries)
	TooLarge   uint64 // body above the limit (413)
	Failed     uint64 // the sink could not keep the event (500, the sender retries)
	Stale      uint64 // signed, but its timestamp (header, else body) was unreadable or outside the tolerance (400)
	Slow       uint64 // the body did not arrive within the body deadline (408)
	// WrongEnvironment counts signed events whose environment is not the receiver's (422):
	// a sandbox event at a production profile's receiver, or the reverse.
	WrongEnvironment uint64
	// Evicted counts quiet or stalled connections closed to make room at a connection cap;
	// Refused new connections closed because every held one was busy.
	Evicted, Refused uint64
	// LastRejection is the latest delivery refused for its content or pace (Reason RejectNone
	// when none was); Receiver.Rejections keeps the recent ones.
	LastRejection Rejection
}

// RejectReason is why a Receiver refused a delivery.
type RejectReason uint8

// Reasons for refusing a delivery.
const (
	RejectNone        RejectReason = iota
	RejectSignature                // signature missing, malformed or wrong (401)
	RejectTimestamp                // dated outside the tolerance window, or undated (400)
	RejectTooLarge                 // body above the limit (413)
	RejectMalformed                // signed but not an event (400)
	RejectSlowBody                 // the body did not arrive in time (408)
	RejectEnvironment              // signed, but from the other environment (422)
)

// String is the reason in a few words of English.
func (r RejectReason) String() string {
	switch r {
	case RejectSignature:
		return "bad signature"
	case RejectTimestamp:
		return "timestamp outside the window"
	case RejectTooLarge:
		return "too large"
	case RejectMalformed:
		return "not an event"
	case RejectSlowBody:
		return "body too slow"
	case RejectEnvironment:
		return "wrong environment"
	}
	return ""
}

// Rejection is one refused delivery: when, why and from where. It never holds the body, a
// header's value beyond what Detail quotes, or a secret.
type Rejection struct {
	At     time.Time
	Reason RejectReason
	// Remote is the sender's address (host:port) as the connection reports it.
	Remote string
	// Detail is the receiver's error text, e.g. "webhook signature mismatch"; it may quote an
	// outside value (a timestamp), so sanitize it before drawing.
	Detail string
}

// rejectionLog is how many refusals a Receiver remembers.
const rejectionLog = 32

// rejections is a small ring of the latest refusals.
type rejections struct {
	mu   sync.Mutex
	ring [rejectionLog]Rejection
	n    int // how many were ever added
}

func (q *rejections) add(x Rejection) {
	q.mu.Lock()
	q.ring[q.n%rejectionLog] = x
	q.n++
	q.mu.Unlock()
}

func (q *rejections) last() Rejection {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n == 0 {
		return Rejection{}
	}
	return q.ring[(q.n-1)%rejectionLog]
}

// list returns the remembered refusals, newest first.
func (q *rejections) list() []Rejection {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := min(q.n, rejectionLog)
	out := make([]Rejection, 0, k)
	for i := range k {
		out = append(out, q.ring[(q.n-1-i)%rejectionLog])
	}
	return out
}

// ReceiverOption configures a Receiver.
type ReceiverOption func(*Receiver)

// WithMaxBody limits the request body to n bytes (default 1 MiB); larger bodies get 413.
func WithMaxBody(n int64) ReceiverOption {
	return func(r *Receiver) {
		if n > 0 {
			r.maxBody = n
		}
	}
}

// WithBuffer sets the capacity of the Events channel (default 4096; values below 1 mean 1).
// It has no effect with WithSink.
func WithBuffer(n int) ReceiverOption {
	return func(r *Receiver) { r.buffer = max(n, 1) }
}

// WithSink hands first deliveries to s instead of the Events channel: the receiver answers 200
// once s kept the event (e.g. on disk), and leaves decoding to whoever reads s.
func WithSink(s EventSink) ReceiverOption {
	return func(r *Receiver) { r.sink = s }
}

// WithSeenCapacity bounds how many distinct eventIds are remembered for deduplication (default 100,000).
func WithSeenCapacity(n int) ReceiverOption {
	return func(r *Receiver) { r.seenCap = max(n, 1) }
}

// WithSeen seeds the deduplication set with ids the application already applied (e.g. after a restart).
func WithSeen(ids []string) ReceiverOption {
	return func(r *Receiver) { r.seed = append(r.seed, ids...) }
}

// WithOnDuplicate calls fn for every redelivery of an accepted eventId with its delivery count
// (2 on the first redelivery). fn runs on the HTTP handler's goroutine: it must return quickly.
func WithOnDuplicate(fn func(eventID string, seen int)) ReceiverOption {
	return func(r *Receiver) { r.onDup = fn }
}

// WithSignatureHeader makes the receiver look for the signature in header first, before
// PagueSignatureHeader and SignatureHeader (the profile's webhook.signature_header).
func WithSignatureHeader(header string) ReceiverOption {
	return func(r *Receiver) {
		if h := http.CanonicalHeaderKey(strings.TrimSpace(header)); h != "" {
			r.sigHeaders = append([]string{h}, r.sigHeaders...)
		}
	}
}

// WithTolerance sets how far TimestampHeader may be from the clock (default 300 s); 0 or less
// keeps the default.
func WithTolerance(d time.Duration) ReceiverOption {
	return func(r *Receiver) {
		if d > 0 {
			r.tolerance = d
		}
	}
}

// WithReceiverClock sets the clock the timestamp window is measured against (default time.Now).
func WithReceiverClock(now func() time.Time) ReceiverOption {
	return func(r *Receiver) {
		if now != nil {
			r.now = now
		}
	}
}

// WithEnvironment makes the receiver refuse (422, counted as WrongEnvironment) a signed event
// whose environment ("environment" at the top level or in data) is not env; an event that does
// not say is taken. "" (the default) takes every environment.
func WithEnvironment(env Environment) ReceiverOption {
	return func(r *Receiver) { r.env = env }
}

// DefaultWebhookMaxConns caps the connections Serve holds at once.
const DefaultWebhookMaxConns = 256

// WithMaxConns caps the connections Serve holds (default 256, at least 1). At the cap a new
// connection evicts the one quiet longest (never a delivery in progress).
func WithMaxConns(n int) ReceiverOption {
	return func(r *Receiver) { r.maxConns = max(n, 1) }
}

// DefaultWebhookMaxConnsPerIP caps the connections Serve holds from one address.
const DefaultWebhookMaxConnsPerIP = 64

// WithMaxConnsPerIP caps the connections Serve holds from one remote address (default 64, at
// least 1). At that cap a new connection from the address evicts its quiet or stalled
// connection, as at the overall cap, or is refused.
func WithMaxConnsPerIP(n int) ReceiverOption {
	return func(r *Receiver) { r.maxPerIP = max(n, 1) }
}

// DefaultWebhookBodyTimeout is how long a delivery's body may take to arrive once its headers did.
const DefaultWebhookBodyTimeout = 5 * time.Second

// WithBodyTimeout sets how long a delivery's whole body may take to arrive after its headers
// (default 5 s); a slower one is refused (408). 0 or less keeps the default.
func WithBodyTimeout(d time.Duration) ReceiverOption {
	return func(r *Receiver) {
		if d > 0 {
			r.bodyTimeout = d
		}
	}
}

// WithServerLog sends the HTTP server's own errors and each refused delivery to l (default:
// discarded).
func WithServerLog(l *slog.Logger) ReceiverOption {
	return func(r *Receiver) {
		if l != nil {
			r.log = l
		}
	}
}

// Receiver is an http.Handler for the service's webhooks. Per delivery it:
//
//   - accepts only POST (405) with a body up to the limit (413);
//   - verifies the signature over the raw body before any parsing (401 when missing or bad),
//     from the first of WithSignatureHeader's, PagueSignatureHeader and SignatureHeader present;
//   - refuses a body that does not arrive within the body timeout (408, counted as Slow);
//   - refuses a delivery whose TimestampHeader, or without one the body's own "timestamp", is
//     more than the tolerance away from the clock or cannot be read (400, counted as Stale);
//   - checks that the body is an event, JSON with eventId and event (400 otherwise);
//   - with WithEnvironment, refuses an event that says it comes from the other environment
//     (422, counted as WrongEnvironment);
//   - answers 200 to a redelivery of an eventId it already accepted, without handing it on again
//     (Seen reports how many times an event was delivered); a redelivery that arrives while the
//     first copy is being kept waits for the outcome;
//   - hands a first delivery to its sink (WithSink; by default an EventQueue read through
//     Events) and answers 200 once the sink kept it. A full sink gets 503 and a failing one 500;
//     either way the eventId is not remembered, so the sender's retry is taken.
//
// Each refusal (signature, timestamp, size, not an event, slow body, environment) is kept with its time,
// reason and sender in a small ring (Rejections, Stats.LastRejection) and logged.
//
// It remembers about the last WithSeenCapacity distinct eventIds (oldest forgotten first; a set
// of 2048 or more is split in shards that each forget their own oldest), so memory stays
// bounded. It is safe for concurrent use: deliveries of different ids rarely share a lock.
type Receiver struct {
	// secret is a pointer so that printing a Receiver (fmt cannot call Secret's redacting
	// methods on an unexported field) shows an address, never the key.
	secret     *Secret
	maxConns   int
	log        *slog.Logger
	sigHeaders []string
	tolerance  time.Duration
	now        func() time.Time
	maxBody    int64
	buffer     int
	seenCap    int
	seed       []string
	onDup      func(eventID string, seen int)
	sink       EventSink
	queue      *EventQueue // the default sink; nil with WithSink

	seen   *seenIDs
	bodies sync.Pool // *[]byte request body buffers

	accepted, duplicates, rejected, malformed, overflow, tooLarge, failed, stale, slow atomic.Uint64
	connEvicted, connRefused                                                           atomic.Uint64
	refusals                                                                           rejections

	bodyTimeout time.Duration
	maxPerIP    int
	env         Environment // WithEnvironment; "" takes any
	wrongEnv    atomic.Uint64
}

// NewReceiver builds a Receiver that verifies deliveries with the endpoint's signing secret.
func NewReceiver(secret Secret, opts ...ReceiverOption) *Receiver {
	r := &Receiver{
		secret:      &secret,
		maxConns:    DefaultWebhookMaxConns,
		maxPerIP:    DefaultWebhookMaxConnsPerIP,
		bodyTimeout: DefaultWebhookBodyTimeout,
		log:         slog.New(slog.DiscardHandler),
		sigHeaders:  []string{PagueSignatureHeader, SignatureHeader},
		tolerance:   DefaultWebhookTolerance,
		now:         time.Now,
		maxBody:     DefaultWebhookMaxBody,
		buffer:      DefaultWebhookBuffer,
		seenCap:     DefaultWebhookSeenCapacity,
	}
	for _, o := range opts {
		o(r)
	}
	if r.sink == nil {
		r.queue = NewEventQueue(r.buffer)
		r.sink = r.queue
	}
	r.seen = newSeenIDs(r.seenCap)
	for _, id := range r.seed {
		if id != "" {
			r.seen.seed(id)
		}
	}
	r.seed = nil
	return r
}

// Events delivers each verified event once, in arrival order; nil with WithSink. It is never closed.
func (r *Receiver) Events() <-chan *Event {
	if r.queue == nil {
		return nil
	}
	return r.queue.Events()
}

// Seen reports how many deliveries of eventID were received (1 for an accepted or seeded id,
// more after redeliveries; 0 when unknown or already forgotten).
func (r *Receiver) Seen(eventID string) int {
	return r.seen.count(eventID)
}

// Stats returns the receiver's counters so far.
func (r *Receiver) Stats() ReceiverStats {
	return ReceiverStats{
		Accepted:         r.accepted.Load(),
		Duplicates:       r.duplicates.Load(),
		Rejected:         r.rejected.Load(),
		Malformed:        r.malformed.Load(),
		Overflow:         r.overflow.Load(),
		TooLarge:         r.tooLarge.Load(),
		Failed:           r.failed.Load(),
		Stale:            r.stale.Load(),
		Slow:             r.slow.Load(),
		WrongEnvironment: r.wrongEnv.Load(),
		Evicted:          r.connEvicted.Load(),
		Refused:          r.connRefused.Load(),
		LastRejection:    r.refusals.last(),
	}
}

// Rejections returns the latest refused deliveries (up to 32), newest first.
func (r *Receiver) Rejections() []Rejection { return r.refusals.list() }

// refuse records a refused delivery and logs it (reason, sender, error; never the body).
func (r *Receiver) refuse(req *http.Request, reason RejectReason, err error) {
	x := Rejection{At: r.now(), Reason: reason, Remote: req.RemoteAddr}
	if err != nil {
		x.Detail = truncate(err.Error(), 160)
	}
	r.refusals.add(x)
	r.log.Warn("webhook delivery refused", "verdict", "refused", "reason", reason.String(), "remote", x.Remote, "detail", MaskDigitRuns(x.Detail))
}

// delivery logs, at debug level, a signed and well-formed delivery's event id, kind and verdict
// (accepted, duplicate, deferred, failed); refusals are logged by refuse. Never the body.
func (r *Receiver) delivery(req *http.Request, id, kind, verdict, reason string) {
	attrs := []slog.Attr{slog.String("event", truncate(id, 80)), slog.String("kind", truncate(kind, 60)),
		slog.String("verdict", verdict), slog.String("remote", req.RemoteAddr)}
	if reason != "" {
		attrs = append(attrs, slog.String("reason", reason))
	}
	r.log.LogAttrs(req.Context(), slog.LevelDebug, "webhook delivery", attrs...)
}

// ServeHTTP handles one webhook delivery (see Receiver).
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: use POST", http.StatusMethodNotAllowed)
		return
	}
	if req.ContentLength > r.maxBody {
		r.tooLarge.Add(1)
		r.refuse(req, RejectTooLarge, fmt.Errorf("declared %d bytes, limit %d", req.ContentLength, r.maxBody))
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	// The whole body must arrive within bodyTimeout: a peer trickling it a byte at a time
	// holds a connection only that long (and the guard may evict it sooner when sockets run short).
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(r.bodyTimeout))
	bp := r.body()
	defer r.bodies.Put(bp)
	body, err := readAll(http.MaxBytesReader(w, req.Body, r.maxBody), (*bp)[:0])
	*bp = body[:0]
	bodyRead(req.Context())
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.tooLarge.Add(1)
			r.refuse(req, RejectTooLarge, fmt.Errorf("body above the limit of %d bytes", r.maxBody))
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			r.slow.Add(1)
			r.refuse(req, RejectSlowBody, fmt.Errorf("%d bytes in %s", len(body), r.bodyTimeout))
			http.Error(w, "request body too slow", http.StatusRequestTimeout)
			return
		}
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	if err := VerifySignature(body, r.signature(req.Header), *r.secret); err != nil {
		r.rejected.Add(1)
		r.refuse(req, RejectSignature, err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if ts, ok := req.Header[TimestampHeader]; ok {
		if err := CheckTimestamp(strings.Join(ts, ","), r.now(), r.tolerance); err != nil {
			r.stale.Add(1)
			r.refuse(req, RejectTimestamp, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	} else if at, ok := bodyTimestamp(body); ok {
		// No header: the body's own timestamp (signed with it) is held to the same window, so
		// an old delivery replayed without the header is not taken either.
		err := checkTime(at, r.now(), r.tolerance)
		if at.IsZero() {
			err = fmt.Errorf("%w: the body's timestamp is not a date", ErrTimestampOutside)
		}
		if err != nil {
			r.stale.Add(1)
			r.refuse(req, RejectTimestamp, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	// One pass validates the body and reads its eventId; when the scan is unsure (escapes,
	// odd spellings) the decoder has the last word, and a body that is not an event gets 400
	// whether or not its id was seen.
	id, kind, ok := scanEvent(body)
	if !ok {
		ev, err := DecodeEvent(body)
		if err != nil {
			r.malformed.Add(1)
			r.refuse(req, RejectMalformed, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, kind = ev.EventID, string(ev.Kind)
	}
	if r.env != "" {
		if env := eventEnvironment(body); env != "" && !strings.EqualFold(string(env), string(r.env)) {
			r.wrongEnv.Add(1)
			err := fmt.Errorf("%w: the event is from %s, this receiver is for %s", ErrWrongEnvironment, truncate(string(env), 24), r.env)
			r.refuse(req, RejectEnvironment, err)
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
	}

	n, ticket := r.seen.begin(id)
	if n > 0 {
		r.delivery(req, id, kind, "duplicate", "")
		r.duplicates.Add(1)
		if r.onDup != nil {
			r.onDup(id, n)
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	err = r.sink.Accept(body)
	r.seen.end(ticket, err == nil)
	switch {
	case err == nil:
		r.delivery(req, id, kind, "accepted", "")
		r.accepted.Add(1)
		w.WriteHeader(http.StatusOK)
	case errors.Is(err, ErrSinkFull):
		r.delivery(req, id, kind, "deferred", "buffer or disk full (503, the sender retries)")
		r.overflow.Add(1)
		w.Header().Set("Retry-After", "2")
		http.Error(w, "cannot take the event now (buffer or disk full), retry later", http.StatusServiceUnavailable)
	case errors.Is(err, ErrEventInvalid):
		r.malformed.Add(1)
		r.refuse(req, RejectMalformed, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
	default:
		// The sink's error may name local files: the sender only needs to know to retry.
		r.delivery(req, id, kind, "failed", "could not store (500, the sender retries)")
		r.log.Warn("webhook event not stored", "event", truncate(id, 80), "err", MaskDigitRuns(truncate(err.Error(), 240)))
		r.failed.Add(1)
		http.Error(w, "could not store the event, retry later", http.StatusInternalServerError)
	}
}

// ErrWrongEnvironment reports a signed event from the other environment than the receiver's.
var ErrWrongEnvironment = errors.New("webhook event from another environment")

// eventEnvironment reads the environment a valid event body says it comes from: data's
// "environment", else the top level's; "" when neither is a non-empty string.
func eventEnvironment(body []byte) Environment {
	var probe struct {
		Environment json.RawMessage `json:"environment"`
		Data        struct {
			Environment json.RawMessage `json:"environment"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &probe) != nil {
		// data that is not an object: only the top level can say.
		var top struct {
			Environment json.RawMessage `json:"environment"`
		}
		if json.Unmarshal(body, &top) != nil {
			return ""
		}
		probe.Environment = top.Environment
	}
	for _, raw := range []json.RawMessage{probe.Data.Environment, probe.Environment} {
		var s string
		if len(raw) > 0 && decodeString(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return Environment(strings.TrimSpace(s))
		}
	}
	return ""
}

// signature returns the first signature header present, in the receiver's order.
func (r *Receiver) signature(h http.Header) string {
	for _, name := range r.sigHeaders {
		if v := h[name]; len(v) > 0 && strings.TrimSpace(v[0]) != "" {
			return v[0]
		}
	}
	return ""
}

// CheckTimestamp checks a TimestampHeader value (epoch milliseconds; a value of 11 digits or
// fewer is read as seconds) against now and the tolerance.
func CheckTimestamp(v string, now time.Time, tolerance time.Duration) error {
	v = strings.TrimSpace(v)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("%w: %q is not an epoch time in milliseconds", ErrTimestampOutside, truncate(v, 24))
	}
	var at time.Time
	if n < 1e11 {
		at = time.Unix(n, 0)
	} else {
		at = time.UnixMilli(n)
	}
	return checkTime(at, now, tolerance)
}

// maxShownOffset is the largest distance from the clock a refusal prints as a duration; past
// it (time.Duration saturates near 292 years) the date itself is printed.
const maxShownOffset = 100 * 365 * 24 * time.Hour

// checkTime checks that at is within tolerance of now.
func checkTime(at, now time.Time, tolerance time.Duration) error {
	switch {
	case at.Before(now.Add(-tolerance)):
		if d := now.Sub(at); d < maxShownOffset {
			return fmt.Errorf("%w: sent %s ago, allowed %s", ErrTimestampOutside, d.Round(time.Second), tolerance)
		}
		return fmt.Errorf("%w: dated %s, allowed %s", ErrTimestampOutside, at.UTC().Format(time.RFC3339), tolerance)
	case at.After(now.Add(tolerance)):
		if d := at.Sub(now); d < maxShownOffset {
			return fmt.Errorf("%w: dated %s ahead of the local clock, allowed %s", ErrTimestampOutside, d.Round(time.Second), tolerance)
		}
		return fmt.Errorf("%w: dated %s, far ahead of the local clock, allowed %s", ErrTimestampOutside, at.UTC().Format(time.RFC3339), tolerance)
	}
	return nil
}

// bodyTimestamp reads the top-level "timestamp" of a delivery's body (RFC 3339, as the service
// sends it in its envelope); ok is false when there is none. One that cannot be read is
// reported as the zero time, which is outside any window.
func bodyTimestamp(body []byte) (time.Time, bool) {
	if !bytes.Contains(body, []byte(`"timestamp"`)) {
		return time.Time{}, false
	}
	var env struct {
		Timestamp *json.RawMessage `json:"timestamp"`
	}
	if json.Unmarshal(body, &env) != nil || env.Timestamp == nil || string(*env.Timestamp) == "null" {
		return time.Time{}, false
	}
	var at time.Time
	if at.UnmarshalJSON(*env.Timestamp) != nil {
		return time.Time{}, true
	}
	return at, true
}

// body returns a request body buffer from the pool.
func (r *Receiver) body() *[]byte {
	if bp, ok := r.bodies.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 2048)
	return &b
}

// readAll appends what rd yields to b until EOF.
func readAll(rd io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Start listens on addr (e.g. "127.0.0.1:0"), serves the receiver at WebhookPath in the
// background until ctx is done (then shuts down gracefully) and returns the webhook URL,
// e.g. "http://127.0.0.1:41234/webhook". Errors after the listener is bound are not reported;
// use Serve for those.
func (r *Receiver) Start(ctx context.Context, addr string) (string, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("webhook receiver: %w", err)
	}
	go func() { _ = r.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String() + WebhookPath, nil
}

// Serve serves the receiver at WebhookPath on ln until ctx is done, then shuts down gracefully
// (waiting up to 5 s for deliveries in flight) and returns nil; other serve errors are returned.
func (r *Receiver) Serve(ctx context.Context, ln net.Listener) error {
	return r.serve(ctx, ln, nil)
}

// serve is Serve, over TLS when cfg is not nil. The TLS layer sits under the connection cap,
// so a peer stalling its handshake is as quiet (evictable) as one sending nothing.
func (r *Receiver) serve(ctx context.Context, ln net.Listener, cfg *tls.Config) error {
	mux := http.NewServeMux()
	mux.Handle(WebhookPath, r)
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	guard := newConnGuard(ln, r.maxConns, r.maxPerIP, &r.connEvicted, &r.connRefused)
	ln = guard
	const headerTimeout = 5 * time.Second
	srv := &http.Server{
		Handler: mux,
		// A delivery is one small POST: short timeouts free the sockets of slow or idle peers.
		// The read deadline also bounds a TLS handshake; the handler narrows it to the body's.
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       headerTimeout + r.bodyTimeout,
		WriteTimeout:      headerTimeout + r.bodyTimeout + 5*time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ConnState:         guard.connState,
		ConnContext:       guard.connContext,
		// net/http's own complaints (accept errors, TLS handshakes, panics) go to the debug log,
		// never to the terminal the dashboard draws on.
		ErrorLog: slog.NewLogLogger(r.log.Handler(), slog.LevelDebug),
	}
	done := make(chan struct{})    // Serve returned
	stopped := make(chan struct{}) // shutdown finished (or not needed)
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
	}()
	err := srv.Serve(ln)
	close(done)
	<-stopped
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	_ = srv.Close()
	return fmt.Errorf("webhook receiver: %w", err)
}
