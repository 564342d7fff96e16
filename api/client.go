package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"path"
	"strings"
	"sync/atomic"
	"time"
)

// Version is pixdash's version, sent in the User-Agent header.
const Version = "0.1.0"

const (
	userAgent            = "pixdash/" + Version
	defaultHTTPTimeout   = 30 * time.Second
	defaultAuthTimeout   = 10 * time.Second
	maxSuccessBodyBytes  = 1 << 20
	pathAuth             = "/auth"
	pathSubAccounts      = "/sub-accounts"
	headerSubAccount     = "X-Sub-Account"
	headerIdempotencyKey = "Idempotency-Key"
	contentTypeJSON      = "application/json"
)

// Client calls the payment service for one credential. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	baseStr  string
	env      Environment
	clientID string
	secret   Secret

	hc          *http.Client // the caller's client; used as is for POST /auth
	authed      *http.Client // hc with authTransport in front of its transport
	now         func() time.Time
	retry       RetryPolicy
	sleep       func(ctx context.Context, d time.Duration) error
	jitter      func(n int64) int64 // uniform in [0, n); n > 0
	authTimeout time.Duration
	log         *slog.Logger
	tokens      *tokenSource
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: a client with a 30 s timeout); its Timeout bounds each attempt.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithClock sets the clock used for token expiry (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(c *Client) {
		if now != nil {
			c.now = now
		}
	}
}

// WithRetry sets the retry policy (default DefaultRetry).
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithSleep replaces the wait between attempts, for tests; it must return ctx.Err() when ctx ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) {
		if sleep != nil {
			c.sleep = sleep
		}
	}
}

// WithAuthTimeout bounds each POST /auth exchange (default 10 s).
func WithAuthTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.authTimeout = d
		}
	}
}

// WithLogger sets the logger for retries and token refreshes (default: discard). Secrets are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// NewClient builds a client for baseURL (must end in /v2), the credential and options.
func NewClient(baseURL, clientID string, secret Secret, opts ...Option) (*Client, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	env, err := EnvironmentOf(clientID)
	if err != nil {
		return nil, err
	}
	if secret == "" {
		return nil, errors.New("client_secret is empty")
	}
	c := &Client{
		base:        base,
		baseStr:     base.String(),
		env:         env,
		clientID:    clientID,
		secret:      secret,
		now:         time.Now,
		retry:       defaultRetryPolicy(),
		sleep:       sleepCtx,
		jitter:      rand.Int64N,
		authTimeout: defaultAuthTimeout,
		log:         slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: defaultHTTPTimeout}
	}
	// No call ever follows a redirect: a Location could send the credentials, the bearer token
	// or a withdrawal's personal data to another host. The 3xx reply is returned as an error.
	hc := *c.hc
	hc.CheckRedirect = refuseRedirect
	c.hc = &hc
	c.retry = c.retry.normalized()
	c.tokens = &tokenSource{fetch: c.fetchToken, now: c.now, after: afterFunc, timeout: c.authTimeout, log: c.log}
	baseRT := c.hc.Transport
	if baseRT == nil {
		baseRT = http.DefaultTransport
	}
	authed := *c.hc
	authed.Transport = &authTransport{base: baseRT, tokens: c.tokens, scheme: base.Scheme, host: base.Host, authPath: base.Path + pathAuth}
	c.authed = &authed
	return c, nil
}

// refuseRedirect makes an http.Client hand back a 3xx reply instead of following it.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// parseBaseURL checks that raw is an absolute http(s) URL whose last path segment is v2.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(raw), "/"))
	if err != nil {
		return nil, fmt.Errorf("base URL: %w", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("base URL %q: scheme must be https (or http for a local emulator)", truncate(raw, 80))
	case u.Host == "":
		return nil, fmt.Errorf("base URL %q has no host", truncate(raw, 80))
	case u.User != nil:
		return nil, errors.New("base URL must not carry user information")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("base URL %q must not have a query or fragment", truncate(u.Redacted(), 80))
	case path.Base(u.Path) != "v2":
		return nil, fmt.Errorf("base URL %q must end in /v2", truncate(raw, 80))
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return nil, fmt.Errorf("base URL %q: plain http is allowed only for localhost; use https", truncate(raw, 80))
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Environment returns the credential's environment (sandbox or production).
func (c *Client) Environment() Environment { return c.env }

// BaseURL returns the service's base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseStr }

// String describes the client without its credentials.
//
// String, GoString, Format and LogValue use value receivers so that printing a Client or a
// *Client with any verb never reaches the unexported fields that hold secrets.
func (c Client) String() string {
	return fmt.Sprintf("api.Client{baseURL: %q, environment: %q}", c.baseStr, string(c.env))
}

// GoString describes the client for %#v without its credentials.
func (c Client) GoString() string { return c.String() }

// Format prints the client the same way for every verb, without its credentials.
func (c Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue describes the client for log/slog without its credentials.
func (c Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("base_url", c.baseStr), slog.String("environment", string(c.env)))
}

// RequestOptions holds per-request settings.
type RequestOptions struct {
	// SubAccount is the X-Sub-Account value; "" (or "principal") means the main account.
	SubAccount string
	// IdempotencyKey is the Idempotency-Key value; "" means none (CreatePix then generates one).
	IdempotencyKey string
}

// RequestOption sets a per-request setting.
type RequestOption func(*RequestOptions)

// WithSubAccount runs the request in the sub-account ref ("" or "principal": the main account).
func WithSubAccount(ref string) RequestOption {
	return func(o *RequestOptions) { o.SubAccount = ref }
}

// WithIdempotencyKey sets the Idempotency-Key (8 to 255 visible ASCII characters).
func WithIdempotencyKey(key string) RequestOption {
	return func(o *RequestOptions) { o.IdempotencyKey = key }
}

// Header names used as FieldProblem fields for request options.
const (
	FieldSubAccountHeader     = "X-Sub-Account"
	FieldIdempotencyKeyHeader = "Idempotency-Key"
)

// ValidationError reports request values that break the spec's rules; nothing was sent.
type ValidationError struct {
	Problems []FieldProblem
}

// Error lists the problems in one line.
func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Msg
	}
	return "invalid request: " + strings.Join(msgs, "; ")
}

func invalid(field, format string, args ...any) *ValidationError {
	return &ValidationError{Problems: []FieldProblem{{Field: field, Msg: fmt.Sprintf(format, args...)}}}
}

// resolveOptions applies opts and validates the result.
func resolveOptions(opts []RequestOption) (RequestOptions, error) {
	var ro RequestOptions
	for _, o := range opts {
		if o != nil {
			o(&ro)
		}
	}
	var ps []FieldProblem
	if ro.SubAccount != "" {
		if err := ValidateWallet(ro.SubAccount); err != nil {
			ps = append(ps, FieldProblem{FieldSubAccountHeader, "X-Sub-Account: " + err.Error()})
		}
	}
	if ro.IdempotencyKey != "" {
		if err := validateKey(ro.IdempotencyKey); err != nil {
			ps = append(ps, FieldProblem{FieldIdempotencyKeyHeader, err.Error()})
		}
	}
	if ps != nil {
		return ro, &ValidationError{Problems: ps}
	}
	return ro, nil
}

// validateKey applies the spec's length rule and keeps the key a safe header value.
func validateKey(key string) error {
	if err := ValidateIdempotencyKey(key); err != nil {
		return err
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return errors.New("idempotency key must use visible ASCII characters only (no spaces)")
		}
	}
	return nil
}

// apiRequest is one logical call; it may take several attempts.
type apiRequest struct {
	method string
	path   string // escaped, relative to the base URL, without query
	query  url.Values
	body   any
	out    any
	opts   RequestOptions
	// uncertain is set when an attempt failed in a way that leaves open whether the service
	// acted on it (transport error, timeout, 5xx, undecodable 2xx).
	uncertain bool
}

// Do sends an authenticated JSON request to path (relative to base URL, e.g. "/_sandbox/fee"),
// retrying per policy when idempotent (GET, or a key is set), decoding 2xx into out (if non-nil)
// and non-2xx into *Error.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...RequestOption) error {
	ro, err := resolveOptions(opts)
	if err != nil {
		return err
	}
	p, rawQuery, _ := strings.Cut(path, "?")
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "# ") {
		return invalid("path", "path %q must start with / and be escaped", truncate(path, 80))
	}
	if !validMethod(method) {
		return invalid("method", "invalid HTTP method %q", truncate(method, 20))
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return invalid("path", "path %q has an invalid query: %v", truncate(path, 80), err)
	}
	if p == pathAuth {
		return invalid("path", "POST /auth is sent by the client itself; use Authenticate")
	}
	if isSubAccountsPath(p) && ro.SubAccount != "" && ro.SubAccount != WalletPrincipal {
		return invalid(FieldSubAccountHeader, "X-Sub-Account is not accepted on %s: it always acts on the main account", pathSubAccounts)
	}
	if method == http.MethodPost && p == "/pix" && ro.IdempotencyKey == "" {
		ro.IdempotencyKey = NewIdempotencyKey()
	}
	return c.call(ctx, &apiRequest{method: method, path: p, query: q, body: body, out: out, opts: ro})
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

func isSubAccountsPath(p string) bool {
	return p == pathSubAccounts || strings.HasPrefix(p, pathSubAccounts+"/")
}

// endpoint returns the absolute URL of an escaped path and query.
func (c *Client) endpoint(escapedPath string, q url.Values) (string, error) {
	s := c.baseStr + escapedPath
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// attemptState counts, for one attempt, the connections used and the replays after a 401.
type attemptState struct{ conns, replays atomic.Int32 }

type attemptStateKey struct{}

// attemptResult is what one HTTP exchange produced.
type attemptResult struct {
	err        error
	retryAfter time.Duration
	hasRetry   bool // the reply carried a usable Retry-After
	status     int  // the reply's HTTP status (0 when none arrived)
	traceID    string
}

// call runs r with the retry policy; see retry.go for what is retried.
func (c *Client) call(ctx context.Context, r *apiRequest) error {
	op := r.method + " " + r.path
	var payload []byte
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("%s: encoding request body: %w", op, err)
		}
		payload = b
	}
	target, err := c.endpoint(r.path, r.query)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	attempts := 1
	if r.method == http.MethodGet || r.method == http.MethodHead || r.opts.IdempotencyKey != "" {
		attempts = c.retry.MaxAttempts
	}
	for n := 1; ; n++ {
		start := time.Now()
		res := c.attempt(ctx, r, target, payload)
		c.logCall(ctx, r.method, r.path, r.opts.SubAccount, n, time.Since(start), res)
		if res.err == nil {
			return nil
		}
		if !refusedUnprocessed(res.err) {
			r.uncertain = true
		}
		if ctx.Err() != nil {
			return contextError(op, ctx, res.err)
		}
		if n >= attempts || !retryable(res.err) {
			return finalError(op, n, res.err)
		}
		delay := c.backoff(n, res)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= delay {
			return finalError(op, n, res.err)
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "api: retrying",
			slog.String("op", op), slog.Int("attempt", n), slog.Duration("delay", delay), slog.String("error", logError(res.err)))
		if err := c.sleep(ctx, delay); err != nil {
			return contextError(op, ctx, res.err)
		}
	}
}

// attempt performs one HTTP exchange and decodes its reply.
func (c *Client) attempt(ctx context.Context, r *apiRequest, target string, payload []byte) attemptResult {
	actx := ctx
	if c.retry.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.retry.AttemptTimeout)
		defer cancel()
	}
	// http.Transport silently resends a request that carries an Idempotency-Key when a reused
	// connection fails; a second connection for one attempt means the service may have seen it twice.
	// The replay after a 401 (counted by authTransport) is the other, harmless, second request.
	st := &attemptState{}
	actx = context.WithValue(actx, attemptStateKey{}, st)
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { st.conns.Add(1) }})
	defer func() {
		if st.conns.Load() > 1+st.replays.Load() {
			r.uncertain = true
		}
	}()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, r.method, target, body)
	if err != nil {
		return attemptResult{err: &permanentError{err: err}}
	}
	req.Header.Set("Accept", contentTypeJSON)
	req.Header.Set("User-Agent", userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", contentTypeJSON)
	}
	if ref := r.opts.SubAccount; ref != "" && ref != WalletPrincipal {
		req.Header.Set(headerSubAccount, ref)
	}
	if r.opts.IdempotencyKey != "" {
		req.Header.Set(headerIdempotencyKey, r.opts.IdempotencyKey)
	}
	resp, err := c.authed.Do(req)
	if err != nil {
		// An authentication failure inside the transport reads better without the URL wrapper.
		var ue *url.Error
		var pe *permanentError
		if errors.As(err, &ue) && errors.As(ue.Err, &pe) {
			return attemptResult{err: pe}
		}
		return attemptResult{err: err}
	}
	defer resp.Body.Close()
	res := c.reply(resp, r)
	res.status, res.traceID = resp.StatusCode, responseTraceID(resp.Header, res.err)
	return res
}

// reply reads and decodes one HTTP reply to r.
func (c *Client) reply(resp *http.Response, r *apiRequest) attemptResult {
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	limit := int64(maxErrorBodyBytes)
	if ok {
		limit = maxSuccessBodyBytes
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return attemptResult{err: fmt.Errorf("reading %d response body: %w", resp.StatusCode, err)}
	}
	if !ok {
		if int64(len(data)) > limit {
			data = data[:limit]
		}
		res := attemptResult{err: decodeError(resp.StatusCode, r.method, r.path, data)}
		res.retryAfter, res.hasRetry = parseRetryAfter(resp.Header.Get("Retry-After"), c.now())
		return res
	}
	if int64(len(data)) > limit {
		return attemptResult{err: &permanentError{err: fmt.Errorf("%d response body exceeds %d bytes", resp.StatusCode, limit)}}
	}
	if err := decodeSuccess(resp.StatusCode, data, r.out); err != nil {
		return attemptResult{err: &permanentError{err: err}}
	}
	return attemptResult{}
}

// decodeSuccess decodes a 2xx body into out.
func decodeSuccess(status int, data []byte, out any) error {
	if out == nil {
		return nil
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		if status == http.StatusNoContent {
			return nil
		}
		return fmt.Errorf("%d response has an empty body, expected JSON", status)
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		return fmt.Errorf("%d response is not JSON (%s)", status, describeBody(string(trimmed)))
	}
	if err := json.Unmarshal(trimmed, out); err != nil {
		return fmt.Errorf("decoding %d response: %w", status, err)
	}
	return nil
}

// contextError reports that ctx ended; last is the most recent attempt's failure.
func contextError(op string, ctx context.Context, last error) error {
	cerr := ctx.Err()
	if errors.Is(last, cerr) {
		return fmt.Errorf("%s: %w", op, last)
	}
	return fmt.Errorf("%s: %w (last attempt: %w)", op, cerr, last)
}

// finalError returns a reply from the service as is and wraps anything else with the operation.
func finalError(op string, attempts int, err error) error {
	if e, ok := err.(*Error); ok { //nolint:errorlint // only an unwrapped reply is returned as is
		return e
	}
	if attempts > 1 {
		return fmt.Errorf("%s: giving up after %d attempts: %w", op, attempts, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// refusedUnprocessed reports whether err proves the service did not act on the request: a 4xx
// reply (429 included), or a failure to authenticate before anything was sent.
func refusedUnprocessed(err error) bool {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e.HTTPStatus >= 400 && e.HTTPStatus < 500
	}
	var pe *permanentError
	return errors.As(err, &pe) && pe.unsent
}

// permanentError marks a failure that repeating the request cannot fix.
type permanentError struct {
	err    error
	unsent bool // the request never left the client (authentication failed)
}

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
