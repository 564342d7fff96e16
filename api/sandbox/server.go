package sandbox

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"pixdash/api"
)

// Prefix is the path under which the API is served (the base URL's last segment).
const Prefix = "/v2"

// ControlPrefix is the path, under Prefix, of the emulator's control endpoints.
const ControlPrefix = "/_sandbox"

// Defaults of the emulator.
const (
	// MaxBodyBytes limits every request body; larger bodies get 413.
	MaxBodyBytes = 1 << 20
	// DefaultCity is the merchant city in PIX codes when the fixture gives none.
	DefaultCity = "SAO PAULO"
	// BlockedRefundDelay is how long a blocked deposit's return stays pending (before WithWebhookScale).
	BlockedRefundDelay = 5 * time.Second
	// maxIdempotencyEntries caps the idempotency cache beyond its 24 h TTL sweep.
	maxIdempotencyEntries = 100_000
	// maxEndpointsPerAccount caps registered webhook endpoints.
	maxEndpointsPerAccount = 50
)

// Option configures a Server.
type Option func(*Server)

// WithClock sets the time source (default: the wall clock); tests pass a *FakeClock.
func WithClock(c Clock) Option {
	return func(s *Server) {
		if c != nil {
			s.clock = c
		}
	}
}

// WithWebhookScale multiplies webhook retry intervals and the blocked-deposit refund delay (tests use e.g. 0.001).
func WithWebhookScale(f float64) Option {
	return func(s *Server) {
		if f >= 0 {
			s.scale = f
		}
	}
}

// WithLogger sets the logger (default: discard). Secrets and bodies are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// WithRand makes generated ids, codes and fault draws deterministic for a seed.
func WithRand(seed uint64) Option {
	return func(s *Server) { s.seed, s.seeded = seed, true }
}

// Server is the stateful emulator of the payment service; it is an http.Handler serving Prefix.
type Server struct {
	clock       Clock
	log         *slog.Logger
	scale       float64
	seed        uint64
	seeded      bool
	hookTimeout time.Duration
	ids         *idGen
	jwtKey      []byte
	routes      []route
	deliv       *deliverer
	elog        *eventLog  // --log: one JSON line per request and delivery attempt
	persist     *persister // --state: nil keeps everything in memory only

	mu        sync.Mutex
	closed    bool
	accounts  []*account
	creds     map[string]*credential
	txs       map[string]*tx
	txSeq     uint64
	blocks    map[string]*block
	idem      map[string]*idemEntry
	idemQ     []idemQItem
	timers    map[uint64]Timer
	nextTimer uint64
	faults    Faults
}

// New builds an emulator from fx (nil means DefaultFixture), seeding its history relative to the clock.
// Fixture entries that fail validation are skipped and logged; use ParseFixture or Fixture.Validate to see why.
func New(fx *Fixture, opts ...Option) *Server {
	s := newServer(opts)
	if fx == nil {
		fx = DefaultFixture()
	}
	s.mu.Lock()
	s.load(fx)
	s.mu.Unlock()
	s.applyFixtureFaults(fx)
	return s
}

// Open is New with a state file (pixdash sandbox --state): when the file holds a saved state, that
// state is restored (the fixture's accounts are not loaded again, its faults are applied) and
// restored is true; otherwise fx is loaded and saved there. From then on every change is saved
// before its reply is sent. Close closes the file.
func Open(fx *Fixture, statePath string, opts ...Option) (s *Server, restored bool, err error) {
	p, err := openPersister(statePath)
	if err != nil {
		return nil, false, err
	}
	rows, err := p.read()
	if err != nil {
		_ = p.close()
		return nil, false, fmt.Errorf("sandbox state %s: %w", statePath, err)
	}
	s = newServer(opts)
	if fx == nil {
		fx = DefaultFixture()
	}
	s.mu.Lock()
	restored, err = s.restore(rows)
	if err == nil && restored {
		s.rearm()
		s.loadFixtureEndpoints(fx)
	}
	if err == nil && !restored {
		s.load(fx)
	}
	s.mu.Unlock()
	if err != nil {
		s.Close()
		_ = p.close()
		return nil, false, fmt.Errorf("sandbox state %s: %w", statePath, err)
	}
	s.applyFixtureFaults(fx)
	s.persist = p
	s.deliv.mu.Lock()
	s.deliv.changed = func() { _ = s.save() }
	s.deliv.mu.Unlock()
	if err := s.save(); err != nil {
		s.Close()
		return nil, false, err
	}
	return s, restored, nil
}

// newServer builds a server without accounts.
func newServer(opts []Option) *Server {
	s := &Server{
		clock:       realClock{},
		log:         slog.New(slog.DiscardHandler),
		scale:       1,
		hookTimeout: 5 * time.Second,
		creds:       map[string]*credential{},
		txs:         map[string]*tx{},
		blocks:      map[string]*block{},
		idem:        map[string]*idemEntry{},
		timers:      map[uint64]Timer{},
	}
	for _, o := range opts {
		o(s)
	}
	if !s.seeded {
		var b [8]byte
		_, _ = crand.Read(b[:])
		s.seed = binary.LittleEndian.Uint64(b[:])
	}
	s.ids = newIDGen(s.seed)
	s.jwtKey = make([]byte, 32)
	_, _ = crand.Read(s.jwtKey)
	s.routes = s.buildRoutes()
	s.deliv = newDeliverer(s.clock, s.scale, s.hookTimeout, s.log, s.elog)
	return s
}

// Close stops background work: expiry and refund timers, webhook deliveries and their retries.
// It is safe to call more than once; the handler keeps answering but no timer fires afterwards.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for id, t := range s.timers {
		t.Stop()
		delete(s.timers, id)
	}
	p := s.persist
	s.mu.Unlock()
	s.deliv.close()
	if p != nil {
		p.mu.Lock() // after any save under way
		p.closed = true
		_ = p.close()
		p.mu.Unlock()
	}
}

// String describes the server without its state (which holds secrets).
func (s *Server) String() string { return "sandbox.Server" }

// GoString describes the server for %#v without its state.
func (s *Server) GoString() string { return s.String() }

// Format prints the server the same way for every verb, without its state.
func (s *Server) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue keeps the server's state out of logs.
func (s *Server) LogValue() slog.Value { return slog.StringValue(s.String()) }

// SetCredentialRevoked revokes (or restores) a credential at once, also for its issued tokens; false if unknown.
func (s *Server) SetCredentialRevoked(clientID string, revoked bool) bool {
	return s.change(func() bool {
		c, ok := s.creds[clientID]
		if ok {
			c.revoked = revoked
		}
		return ok
	})
}

// SetSubAccountAccess switches a credential's sub-account access, effective for issued tokens; false if unknown.
func (s *Server) SetSubAccountAccess(clientID string, on bool) bool {
	return s.change(func() bool {
		c, ok := s.creds[clientID]
		if ok {
			c.subAccess = on
		}
		return ok
	})
}

// SetSubAccountStatus changes the status of sub-account ref in the account of clientID; false if unknown.
func (s *Server) SetSubAccountStatus(clientID, ref string, status api.SubAccountStatus) bool {
	return s.change(func() bool {
		c, ok := s.creds[clientID]
		if !ok {
			return false
		}
		w := c.acct.wallets[ref]
		if w == nil || ref == "" {
			return false
		}
		w.status = status
		return true
	})
}

// change runs f with s.mu held, then saves the state when f changed something.
func (s *Server) change(f func() bool) bool {
	s.mu.Lock()
	ok := f()
	s.mu.Unlock()
	if ok {
		_ = s.save()
	}
	return ok
}

// BaseURL returns the API base URL ("http://host:port/v2") for a listener.
func BaseURL(ln net.Listener) string {
	return "http://" + ln.Addr().String() + Prefix
}

// Serve answers HTTP on ln until ctx is done, then shuts the listener down gracefully.
// It does not Close the Server; the caller does.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	return err
}

// ListenAndServe listens on addr (e.g. "127.0.0.1:8080"), calls ready with the base URL once
// listening, and serves until ctx is done.
func ListenAndServe(ctx context.Context, addr string, s *Server, ready func(baseURL string)) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err // "listen tcp ADDR: …" already names what failed; the command names the sandbox
	}
	if ready != nil {
		ready(BaseURL(ln))
	}
	return s.Serve(ctx, ln)
}

// --- request plumbing -------------------------------------------------------------------------

// call is one request being handled.
type call struct {
	s       *Server
	w       *bufferedWriter
	r       *http.Request
	params  []string
	traceID string
	cred    *credential
	acct    *account
	wallet  *wallet // the wallet of X-Sub-Account, or the main wallet
}

type route struct {
	method  string
	segs    []string // "*" matches one segment
	auth    bool
	perm    string
	subHdr  bool // X-Sub-Account is honoured
	control bool
	h       func(*call)
}

func (s *Server) buildRoutes() []route {
	r := func(method, path string, auth bool, perm string, subHdr bool, h func(*call)) route {
		return route{method: method, segs: splitPath(path), auth: auth, perm: perm, subHdr: subHdr,
			control: strings.HasPrefix(path, ControlPrefix+"/"), h: h}
	}
	return []route{
		r(http.MethodPost, "/auth", false, "", false, s.handleAuth),
		r(http.MethodPost, "/pix", true, permPixWrite, true, s.handleCreatePix),
		r(http.MethodGet, "/transactions/*", true, permTxRead, true, s.handleGetTransaction),
		// The service names no permission for refunds; assumed PIX:WRITE (FULL_ACCESS covers it).
		r(http.MethodPost, "/transactions/*/refund", true, permPixWrite, true, s.handleRefundTransaction),
		r(http.MethodPost, "/withdrawals", true, permWithdrawalWrite, true, s.handleCreateWithdrawal),
		r(http.MethodPost, "/sub-accounts", true, permSubWrite, false, s.handleCreateSubAccount),
		r(http.MethodGet, "/sub-accounts", true, permSubRead, false, s.handleListSubAccounts),
		r(http.MethodGet, "/account", true, permAccountRead, true, s.handleGetAccount),
		r(http.MethodGet, "/balance-blocks", true, permBlockRead, true, s.handleListBlocks),
		r(http.MethodGet, "/projects", true, permProjectRead, true, s.handleListProjects),
		r(http.MethodPost, "/projects", true, permProjectWrite, true, s.handleCreateProject),
		r(http.MethodGet, "/projects/*", true, permProjectRead, true, s.handleGetProject),

		r(http.MethodPost, "/_sandbox/charges/*/pay", true, "", false, s.handlePay),
		r(http.MethodPost, "/_sandbox/charges/*/expire", true, "", false, s.handleExpire),
		r(http.MethodPost, "/_sandbox/transactions/*/refund", true, "", false, s.handleRefund),
		r(http.MethodPost, "/_sandbox/balance-blocks", true, "", false, s.handleCreateBlock),
		r(http.MethodPost, "/_sandbox/balance-blocks/*/resolve", true, "", false, s.handleResolveBlock),
		r(http.MethodPost, "/_sandbox/withdrawals", true, "", false, s.handleWithdraw),
		r(http.MethodPost, "/_sandbox/withdrawals/*/complete", true, "", false, s.handleCompleteWithdrawal),
		r(http.MethodPost, "/_sandbox/withdrawals/*/fail", true, "", false, s.handleFailWithdrawal),
		r(http.MethodPost, "/_sandbox/withdrawals/*/reverse", true, "", false, s.handleReverseWithdrawal),
		r(http.MethodPut, "/_sandbox/fee", true, "", false, s.handleSetFee),
		r(http.MethodPost, "/_sandbox/webhook-endpoints", true, "", false, s.handleRegisterWebhook),
		r(http.MethodGet, "/_sandbox/webhook-deliveries", true, "", false, s.handleDeliveries),
		r(http.MethodGet, "/_sandbox/wallets", true, "", false, s.handleWallets),
		r(http.MethodPut, "/_sandbox/faults", true, "", false, s.handleSetFaults),
		r(http.MethodGet, "/_sandbox/faults", true, "", false, s.handleGetFaults),
	}
}

// faulty reports whether injected faults apply: every API route but POST /auth; never control routes.
func (rt *route) faulty() bool { return !rt.control && rt.auth }

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// match finds the route for method and the escaped path below Prefix; allowed lists methods when only the method differs.
func (s *Server) match(method, escaped string) (rt *route, params []string, allowed []string, found bool) {
	raw := splitPath(escaped)
	segs := make([]string, len(raw))
	for i, seg := range raw {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return nil, nil, nil, false
		}
		segs[i] = u
	}
	for i := range s.routes {
		cand := &s.routes[i]
		if len(cand.segs) != len(segs) {
			continue
		}
		var ps []string
		ok := true
		for j, want := range cand.segs {
			switch {
			case want == "*" && segs[j] != "":
				ps = append(ps, segs[j])
			case want != segs[j]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		if cand.method == method {
			return cand, ps, nil, true
		}
		allowed = append(allowed, cand.method)
	}
	return nil, nil, allowed, false
}

// ServeHTTP serves the API under Prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	bw := &bufferedWriter{header: http.Header{}}
	c := &call{s: s, w: bw, r: r, traceID: s.ids.hex(traceIDLen)}
	var rt *route
	defer func() { // after the handler (and its panic, recovered below)
		if rt != nil && s.save() != nil {
			// What the request did is in memory but not in the state file: no success is reported.
			bw.reset()
			c.fail(http.StatusInternalServerError, api.KindInternalError, "The sandbox could not save its state", nil)
		}
		status, dropped := s.finish(w, r, bw, rt)
		if s.elog != nil {
			line := RequestLine{Time: s.clock.Now().UTC(), Type: "request", Method: r.Method, Path: r.URL.Path,
				Status: status, DurationMs: float64(time.Since(start).Microseconds()) / 1000, TraceID: c.traceID, Dropped: dropped}
			if c.wallet != nil {
				line.Wallet = c.wallet.label()
			}
			s.elog.write(line)
		}
	}()
	defer func() {
		if rec := recover(); rec != nil {
			if rec == http.ErrAbortHandler { //nolint:errorlint // sentinel compared by identity
				panic(rec)
			}
			s.log.Error("sandbox: handler panic", "trace", c.traceID, "panic", fmt.Sprint(rec), "stack", string(debug.Stack()))
			bw.reset()
			c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		}
	}()

	escaped := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(escaped, Prefix)
	if !ok || (rest != "" && rest[0] != '/') {
		c.fail(http.StatusNotFound, api.KindNotFound, fmt.Sprintf("Cannot %s %s", r.Method, truncateText(r.URL.Path, 200)), nil)
		return
	}
	found, params, allowed, ok := s.match(r.Method, rest)
	if !ok {
		if len(allowed) > 0 {
			bw.Header().Set("Allow", strings.Join(allowed, ", "))
			c.fail(http.StatusMethodNotAllowed, kindMethodNotAllowed, fmt.Sprintf("Method %s is not allowed on %s", r.Method, truncateText(r.URL.Path, 200)), nil)
			return
		}
		c.fail(http.StatusNotFound, api.KindNotFound, fmt.Sprintf("Cannot %s %s", r.Method, truncateText(r.URL.Path, 200)), nil)
		return
	}
	rt = found
	c.params = params
	if rt.faulty() {
		if !s.injectBefore(c) {
			return
		}
	}
	if rt.auth && !s.authenticate(c, rt) {
		return
	}
	rt.h(c)
}

// finish writes the buffered response, or drops the connection when a fault says so.
func (s *Server) finish(w http.ResponseWriter, r *http.Request, bw *bufferedWriter, rt *route) (status int, dropped bool) {
	status = bw.status
	if status == 0 {
		status = http.StatusOK
	}
	// Only a reply of a request that took effect (not a 4xx or 5xx) is dropped.
	if rt != nil && rt.faulty() && status < 400 && s.dropReply() {
		s.log.Info("sandbox: fault: dropping response after commit", "method", r.Method, "path", r.URL.Path)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
			return status, true
		}
		panic(http.ErrAbortHandler)
	}
	for k, v := range bw.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(bw.buf.Bytes())
	s.log.Debug("sandbox: request", "method", r.Method, "path", r.URL.Path, "status", status, "trace", bw.header.Get("X-Trace-Id"))
	return status, false
}

// bufferedWriter holds a response until the handler is done, so faults and panics can replace it.
type bufferedWriter struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

// Header returns the buffered headers.
func (b *bufferedWriter) Header() http.Header { return b.header }

// Write buffers body bytes.
func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.buf.Write(p)
}

// WriteHeader records the first status.
func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) reset() {
	b.header = http.Header{}
	b.status = 0
	b.buf.Reset()
}

// --- responses --------------------------------------------------------------------------------

// Envelope error kinds the spec does not list.
const (
	kindMethodNotAllowed = "MethodNotAllowed"
	kindUnprocessable    = "UnprocessableEntity"
	kindPayloadTooLarge  = "PayloadTooLarge"
)

// envelope is the error body: the spec's fields, message a string or (several validation
// problems at once) a list of strings, and the institution-choice reason also at the top level.
type envelope struct {
	StatusCode int            `json:"statusCode"`
	Error      string         `json:"error"`
	Message    any            `json:"message"`
	Reason     string         `json:"reason,omitempty"`
	Details    map[string]any `json:"details,omitempty"`
	Timestamp  string         `json:"timestamp"`
	TraceID    string         `json:"traceId,omitempty"`
}

// traceIDLen is the number of lowercase hex digits of a traceId (the service's 128-bit ids).
const traceIDLen = 32

// codeValidation is details.code of a validation failure; details.field names the first bad field.
const codeValidation = "VALIDATION_ERROR"

// Resource names of 404 details (and 409 details).
const (
	resSubAccount   = api.ResourceSubAccount
	resProject      = "Project"
	resTransaction  = "Transaction"
	resWithdrawal   = "Withdrawal"
	resBalanceBlock = "Balance block"
)

func (c *call) json(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.s.log.Error("sandbox: encode response", "err", err)
		c.fail(http.StatusInternalServerError, api.KindInternalError, api.MessageUnexpected, nil)
		return
	}
	c.raw(status, b)
}

func (c *call) raw(status int, b []byte) {
	c.w.reset()
	h := c.w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Trace-Id", c.traceID)
	h.Set("Cache-Control", "no-store")
	c.w.WriteHeader(status)
	_, _ = c.w.Write(b)
	_, _ = c.w.Write([]byte("\n"))
}

// fail writes the error envelope.
func (c *call) fail(status int, kind, msg string, details map[string]any) {
	c.failWith(status, kind, msg, details)
}

// failWith writes the error envelope with msg a string or a []string.
func (c *call) failWith(status int, kind string, msg any, details map[string]any) {
	e := envelope{
		StatusCode: status, Error: kind, Message: msg, Details: details,
		Timestamp: c.s.clock.Now().UTC().Format(timeLayout), TraceID: c.traceID,
	}
	if reason, ok := details["reason"].(string); ok {
		e.Reason = reason
	}
	allow := c.w.Header().Get("Allow")
	b, _ := json.Marshal(e)
	c.raw(status, b)
	if allow != "" {
		c.w.Header().Set("Allow", allow)
	}
}

func (c *call) badRequest(msg string) {
	c.fail(http.StatusBadRequest, api.KindBadRequest, msg, nil)
}

// invalid answers a validation failure of one field: 400 with details {code: VALIDATION_ERROR, field}.
func (c *call) invalid(field, msg string) {
	c.validation([]api.FieldProblem{{Field: field, Msg: msg}})
}

// validation answers 400 for the problems found: the message is the only problem's sentence or
// the list of all of them; details.code is VALIDATION_ERROR and details.field the first bad field.
// A problem without a field (the body is not a JSON object) is sent without details.
func (c *call) validation(ps []api.FieldProblem) {
	if len(ps) == 0 {
		return
	}
	var msg any = ps[0].Msg
	if len(ps) > 1 {
		msgs := make([]string, len(ps))
		for i, p := range ps {
			msgs[i] = p.Msg
		}
		msg = msgs
	}
	var details map[string]any
	if ps[0].Field != "" {
		details = map[string]any{"code": codeValidation, "field": ps[0].Field}
	}
	c.failWith(http.StatusBadRequest, api.KindBadRequest, msg, details)
}

// notFound answers 404 "<resource> not found" with details {resource, id}.
func (c *call) notFound(resource, id string) {
	c.fail(http.StatusNotFound, api.KindNotFound, resource+" not found", map[string]any{"resource": resource, "id": id})
}

func (c *call) conflict(msg string) {
	c.fail(http.StatusConflict, api.KindConflict, msg, nil)
}

// subAccountError answers a sub-account error with its code in details.code; an unknown
// reference also names the resource (Sub-account) and the id, as the service's 404 does.
func (c *call) subAccountError(status int, code, ref string) {
	var kind, msg string
	switch code {
	case api.CodeSubAccountNotFound:
		kind, msg = api.KindNotFound, "Sub-account not found"
	case api.CodeSubAccountSuspended:
		kind, msg = api.KindForbidden, fmt.Sprintf("Sub-account '%s' is suspended", ref)
	default:
		kind, msg = api.KindForbidden, "This credential is not authorized to operate sub-accounts"
	}
	d := map[string]any{"code": code}
	switch {
	case code == api.CodeSubAccountNotFound:
		d["resource"], d["id"] = resSubAccount, ref
	case ref != "":
		d["reference"] = ref
	}
	c.fail(status, kind, msg, d)
}

// authBody writes the /auth error body: only error and message.
func (c *call) authError(status int, errText, msg string) {
	b, _ := json.Marshal(map[string]string{"error": errText, "message": msg})
	c.raw(status, b)
}

// timeLayout is the ISO 8601 UTC form used for timestamps.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// readBody reads a bounded body; false when the request was answered.
func (c *call) readBody() ([]byte, bool) {
	if c.r.Body == nil {
		return nil, true
	}
	b, err := io.ReadAll(io.LimitReader(c.r.Body, MaxBodyBytes+1))
	if err != nil {
		c.badRequest("Could not read the request body")
		return nil, false
	}
	if len(b) > MaxBodyBytes {
		c.fail(http.StatusRequestEntityTooLarge, kindPayloadTooLarge, fmt.Sprintf("Request body is larger than %d bytes", MaxBodyBytes), nil)
		return nil, false
	}
	return b, true
}

// decodeObject decodes a JSON object body into v; false when the request was answered with 400.
func (c *call) decodeObject(body []byte, v any) bool {
	if p := decodeObject(body, v); p != nil {
		c.validation([]api.FieldProblem{*p})
		return false
	}
	return true
}

// decodeObject returns nil or the problem with the body: a field of the wrong JSON type is named
// (Field set); a body that is not a JSON object has no field.
func decodeObject(body []byte, v any) *api.FieldProblem {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &api.FieldProblem{Msg: "Request body must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &api.FieldProblem{Field: te.Field, Msg: fmt.Sprintf("%s must be %s", te.Field, jsonTypeName(te.Type.String()))}
		}
		return &api.FieldProblem{Msg: "Request body is not valid JSON"}
	}
	if dec.More() {
		return &api.FieldProblem{Msg: "Request body is not valid JSON"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &api.FieldProblem{Msg: "Request body is not valid JSON"}
	}
	return nil
}

func jsonTypeName(goType string) string {
	switch {
	case goType == "string" || strings.HasSuffix(goType, "*string"):
		return "a string"
	case goType == "bool":
		return "a boolean"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map[") || strings.Contains(goType, "."):
		return "an object"
	}
	return "a number"
}

func truncateText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// --- ids ----------------------------------------------------------------------------------------

// idGen produces ids and random draws from one seeded source.
type idGen struct {
	mu  sync.Mutex
	pcg *rand.PCG
	r   *rand.Rand
}

func newIDGen(seed uint64) *idGen {
	// Seeded on purpose: tests and screenshots need the same ids run after run. Nothing here is a secret.
	pcg := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	return &idGen{pcg: pcg, r: rand.New(pcg)} //nolint:gosec // G404
}

// marshal returns the generator's state (the state file keeps it, so no id comes twice).
func (g *idGen) marshal() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.MarshalBinary()
}

// unmarshal continues from a state returned by marshal.
func (g *idGen) unmarshal(b []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pcg.UnmarshalBinary(b)
}

func (g *idGen) uuid() string {
	g.mu.Lock()
	hi, lo := g.r.Uint64(), g.r.Uint64()
	g.mu.Unlock()
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *idGen) pick(alphabet string, n int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]byte, n)
	for i := range out {
		out[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(out)
}

func (g *idGen) hex(n int) string { return g.pick("0123456789abcdef", n) }

func (g *idGen) alnum(n int) string {
	return g.pick("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", n)
}

func (g *idGen) digits(n int) string { return g.pick("0123456789", n) }

func (g *idGen) float() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Float64()
}

// secret returns an unpredictable token (crypto/rand), whatever the seed.
func secretToken(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b)
	return prefix + fmt.Sprintf("%x", b)
}
