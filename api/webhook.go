package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SignatureHeader carries the webhook signature: "sha256=" + hex(HMAC-SHA256(secret, raw body)).
const SignatureHeader = "X-Service-Signature"

// EventIDHeader carries the event's id (assumed; informative only, never trusted: it is not signed).
const EventIDHeader = "X-Service-Event-Id"

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
// Hex digits may be in either case; the "sha256=" prefix is required. An empty secret
// verifies nothing (ErrNoSigningSecret): anyone can compute an HMAC with an empty key.
func VerifySignature(body []byte, header string, secret Secret) error {
	if secret == "" {
		return ErrNoSigningSecret
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrSignatureMissing
	}
	digest, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		return fmt.Errorf("%w: want the %q prefix", ErrSignatureMalformed, signaturePrefix)
	}
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

// Receiver is an http.Handler for the service's webhooks. Per delivery it:
//
//   - accepts only POST (405) with a body up to the limit (413);
//   - verifies SignatureHeader over the raw body before any parsing (401 when missing or bad);
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
	secret  *Secret
	maxBody int64
	buffer  int
	seenCap int
	seed    []string
	onDup   func(eventID string, seen int)
	sink    EventSink
	queue   *EventQueue // the default sink; nil with WithSink

	seen   *seenIDs
	bodies sync.Pool // *[]byte request body buffers

	accepted, duplicates, rejected, malformed, overflow, tooLarge, failed atomic.Uint64
}

// NewReceiver builds a Receiver that verifies deliveries with the endpoint's signing secret.
func NewReceiver(secret Secret, opts ...ReceiverOption) *Receiver {
	r := &Receiver{
		secret:  &secret,
		maxBody: DefaultWebhookMaxBody,
		buffer:  DefaultWebhookBuffer,
		seenCap: DefaultWebhookSeenCapacity,
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
	if err := VerifySignature(body, req.Header.Get(SignatureHeader), *r.secret); err != nil {
		r.rejected.Add(1)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
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
		http.Error(w, "event buffer full, retry later", http.StatusServiceUnavailable)
	case errors.Is(err, ErrEventInvalid):
		r.malformed.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
	default:
		// The sink's error may name local files: the sender only needs to know to retry.
		r.failed.Add(1)
		http.Error(w, "could not store the event, retry later", http.StatusInternalServerError)
	}
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
	mux := http.NewServeMux()
	mux.Handle(WebhookPath, r)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
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
