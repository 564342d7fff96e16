package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
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
	Accepted   uint64 // first deliveries handed on through Events
	Duplicates uint64 // redeliveries of an eventId already accepted (answered 200, not handed on)
	Rejected   uint64 // missing or bad signature (401)
	Malformed  uint64 // signed but not a usable event (400)
	Overflow   uint64 // Events buffer full (503, the sender retries)
	TooLarge   uint64 // body above the limit (413)
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
func WithBuffer(n int) ReceiverOption {
	return func(r *Receiver) { r.buffer = max(n, 1) }
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
//   - decodes the event, which needs eventId and event (400 otherwise);
//   - answers 200 to a redelivery of an eventId it already accepted, without handing it on again
//     (Seen reports how many times an event was delivered);
//   - hands a first delivery to Events without blocking and answers 200; when the Events buffer
//     is full it answers 503 and does not remember the eventId, so the sender's retry is accepted
//     once the consumer catches up.
//
// It remembers the last WithSeenCapacity distinct eventIds (oldest forgotten first), so memory stays
// bounded. It is safe for concurrent use.
type Receiver struct {
	// secret is a pointer so that printing a Receiver (fmt cannot call Secret's redacting
	// methods on an unexported field) shows an address, never the key.
	secret  *Secret
	maxBody int64
	buffer  int
	seenCap int
	seed    []string
	onDup   func(eventID string, seen int)

	events chan *Event

	mu       sync.Mutex
	seen     seenSet
	bodySeed maphash.Seed // hashes accepted bodies, so that an identical redelivery needs no decoding

	accepted, duplicates, rejected, malformed, overflow, tooLarge atomic.Uint64
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
	r.events = make(chan *Event, r.buffer)
	r.seen = seenSet{limit: r.seenCap, ids: make(map[string]seenID)}
	r.bodySeed = maphash.MakeSeed()
	for _, id := range r.seed {
		if id != "" && r.seen.ids[id].n == 0 {
			r.seen.add(id, 0)
		}
	}
	r.seed = nil
	return r
}

// Events delivers each verified event once, in arrival order. It is never closed.
func (r *Receiver) Events() <-chan *Event { return r.events }

// Seen reports how many deliveries of eventID were received (1 for an accepted or seeded id,
// more after redeliveries; 0 when unknown or already forgotten).
func (r *Receiver) Seen(eventID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen.ids[eventID].n
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
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.maxBody))
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
	// The eventId is read with a cheap scan (or, when the scan is unsure, a full decode), so
	// that a redelivery of an accepted body byte for byte and a delivery that finds the buffer
	// full are answered without decoding; a first delivery is decoded before it is accepted.
	var ev *Event
	id, _, ok := scanEvent(body)
	if !ok {
		if ev, err = DecodeEvent(body); err != nil {
			r.malformed.Add(1)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id = ev.EventID
	}
	sum := maphash.Bytes(r.bodySeed, body) | 1 // 0 marks an id whose body is not known

	r.mu.Lock()
	prev := r.seen.ids[id]
	if prev.n > 0 && (ev != nil || prev.sum == sum) {
		r.duplicateLocked(w, id) // unlocks
		return
	}
	if prev.n == 0 && len(r.events) == cap(r.events) {
		r.mu.Unlock()
		r.refuseFull(w)
		return
	}
	r.mu.Unlock()
	if ev == nil {
		// Known to be new (or a redelivery with another body): decode it; a body that is not a
		// usable event gets 400 whatever its id.
		if ev, err = DecodeEvent(body); err != nil {
			r.malformed.Add(1)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id = ev.EventID // the scan agrees with the decoder; the decoder has the last word
	}

	r.mu.Lock()
	if r.seen.ids[id].n > 0 {
		r.duplicateLocked(w, id)
		return
	}
	// Hand on and remember atomically: a concurrent redelivery either sees the id or waits here.
	select {
	case r.events <- ev:
		r.seen.add(id, sum)
		r.mu.Unlock()
		r.accepted.Add(1)
		w.WriteHeader(http.StatusOK)
	default:
		r.mu.Unlock()
		r.refuseFull(w)
	}
}

// duplicateLocked counts a redelivery of an accepted id and answers 200; it releases r.mu.
func (r *Receiver) duplicateLocked(w http.ResponseWriter, id string) {
	e := r.seen.ids[id]
	e.n++
	r.seen.ids[id] = e
	r.mu.Unlock()
	r.duplicates.Add(1)
	if r.onDup != nil {
		r.onDup(id, e.n)
	}
	w.WriteHeader(http.StatusOK)
}

// refuseFull answers 503: the Events buffer is full and the sender retries later.
func (r *Receiver) refuseFull(w http.ResponseWriter) {
	r.overflow.Add(1)
	w.Header().Set("Retry-After", "2")
	http.Error(w, "event buffer full, retry later", http.StatusServiceUnavailable)
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

// seenSet remembers the last limit distinct ids with their delivery counts, forgetting the oldest first.
type seenSet struct {
	limit int
	ids   map[string]seenID
	ring  []string // insertion order; grows up to limit, then overwritten from next
	next  int
}

// seenID is what seenSet keeps of an id: its delivery count and a hash of the accepted body
// (0 when unknown, e.g. a seeded id).
type seenID struct {
	n   int
	sum uint64
}

// add records a new id (not already present) with count 1, evicting the oldest id when full.
func (s *seenSet) add(id string, sum uint64) {
	if len(s.ring) < s.limit {
		s.ring = append(s.ring, id)
	} else {
		delete(s.ids, s.ring[s.next])
		s.ring[s.next] = id
		s.next = (s.next + 1) % s.limit
	}
	s.ids[id] = seenID{n: 1, sum: sum}
}
