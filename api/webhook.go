package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
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
	Stale      uint64 // signed, but the timestamp header was unreadable or outside the tolerance (400)
	// Evicted counts quiet connections closed to make room at the connection cap; Refused new
	// connections closed because every held one was busy.
	Evicted, Refused uint64
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

// DefaultWebhookMaxConns caps the connections Serve holds at once.
const DefaultWebhookMaxConns = 256

// WithMaxConns caps the connections Serve holds (default 256, at least 1). At the cap a new
// connection evicts the one quiet longest (never a delivery in progress).
func WithMaxConns(n int) ReceiverOption {
	return func(r *Receiver) { r.maxConns = max(n, 1) }
}

// WithServerLog sends the HTTP server's own errors to l (default: discarded).
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
//   - when TimestampHeader is present, refuses a delivery more than the tolerance away from
//     the clock, or whose timestamp cannot be read (400, counted as Stale);
//   - checks that the body is an event, JSON with eventId and event (400 otherwise);
//   - answers 200 to a redelivery of an eventId it already accepted, without handing it on again
//     (Seen reports how many times an event was delivered); a redelivery that arrives while the
//     first copy is being kept waits for the outcome;
//   - hands a first delivery to its sink (WithSink; by default an EventQueue read through
//     Events) and answers 200 once the sink kept it. A full sink gets 503 and a failing one 500;
//     either way the eventId is not remembered, so the sender's retry is taken.
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

	accepted, duplicates, rejected, malformed, overflow, tooLarge, failed, stale atomic.Uint64
	connEvicted, connRefused                                                     atomic.Uint64
}

// NewReceiver builds a Receiver that verifies deliveries with the endpoint's signing secret.
func NewReceiver(secret Secret, opts ...ReceiverOption) *Receiver {
	r := &Receiver{
		secret:     &secret,
		maxConns:   DefaultWebhookMaxConns,
		log:        slog.New(slog.DiscardHandler),
		sigHeaders: []string{PagueSignatureHeader, SignatureHeader},
		tolerance:  DefaultWebhookTolerance,
		now:        time.Now,
		maxBody:    DefaultWebhookMaxBody,
		buffer:     DefaultWebhookBuffer,
		seenCap:    DefaultWebhookSeenCapacity,
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
		Accepted:   r.accepted.Load(),
		Duplicates: r.duplicates.Load(),
		Rejected:   r.rejected.Load(),
		Malformed:  r.malformed.Load(),
		Overflow:   r.overflow.Load(),
		TooLarge:   r.tooLarge.Load(),
		Failed:     r.failed.Load(),
		Stale:      r.stale.Load(),
		Evicted:    r.connEvicted.Load(),
		Refused:    r.connRefused.Load(),
	}
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
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	bp := r.body()
	defer r.bodies.Put(bp)
	body, err := readAll(http.MaxBytesReader(w, req.Body, r.maxBody), (*bp)[:0])
	*bp = body[:0]
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			r.tooLarge.Add(1)
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	if err := VerifySignature(body, r.signature(req.Header), *r.secret); err != nil {
		r.rejected.Add(1)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if ts, ok := req.Header[TimestampHeader]; ok {
		if err := CheckTimestamp(strings.Join(ts, ","), r.now(), r.tolerance); err != nil {
			r.stale.Add(1)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	// One pass validates the body and reads its eventId; when the scan is unsure (escapes,
	// odd spellings) the decoder has the last word, and a body that is not an event gets 400
	// whether or not its id was seen.
	id, _, ok := scanEvent(body)
	if !ok {
		ev, err := DecodeEvent(body)
		if err != nil {
			r.malformed.Add(1)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id = ev.EventID
	}

	n, ticket := r.seen.begin(id)
	if n > 0 {
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
		r.accepted.Add(1)
		w.WriteHeader(http.StatusOK)
	case errors.Is(err, ErrSinkFull):
		r.overflow.Add(1)
		w.Header().Set("Retry-After", "2")
		http.Error(w, "cannot take the event now (buffer or disk full), retry later", http.StatusServiceUnavailable)
	case errors.Is(err, ErrEventInvalid):
		r.malformed.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
	default:
		// The sink's error may name local files: the sender only needs to know to retry.
		r.failed.Add(1)
		http.Error(w, "could not store the event, retry later", http.StatusInternalServerError)
	}
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
	switch d := now.Sub(at); {
	case d > tolerance:
		return fmt.Errorf("%w: sent %s ago, allowed %s", ErrTimestampOutside, d.Round(time.Second), tolerance)
	case d < -tolerance:
		return fmt.Errorf("%w: dated %s ahead of the local clock, allowed %s", ErrTimestampOutside, (-d).Round(time.Second), tolerance)
	}
	return nil
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
	guard := newConnGuard(ln, r.maxConns, &r.connEvicted, &r.connRefused)
	ln = guard
	srv := &http.Server{
		Handler: mux,
		// A delivery is one small POST: short timeouts free the sockets of slow or idle peers.
		// The read deadline also bounds a TLS handshake.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ConnState:         guard.connState,
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
