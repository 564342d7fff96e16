package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// refreshEarly is how long before expiry a token is replaced.
const refreshEarly = 30 * time.Second

// Authenticate fetches a new access token now, replacing the cached one.
func (c *Client) Authenticate(ctx context.Context) error {
	_, err := c.tokens.refresh(ctx)
	var pe *permanentError
	if errors.As(err, &pe) {
		return pe.err
	}
	return err
}

// TokenExpiry returns the current token's expiry and whether a token is cached.
func (c *Client) TokenExpiry() (time.Time, bool) { return c.tokens.expiryTime() }

// TokenState returns the access token's state: expiry, an exchange in flight, the last failure.
func (c *Client) TokenState() TokenState { return c.tokens.state() }

// Close stops the background renewal of the access token. The client still works afterwards,
// exchanging a token when a call needs one. Call it when the client is no longer used.
func (c *Client) Close() { c.tokens.close() }

// fetchToken exchanges the credential for an access token (POST /auth) and returns it with its lifetime.
func (c *Client) fetchToken(ctx context.Context) (_ Secret, _ time.Duration, err error) {
	start, status, traceID := time.Now(), 0, ""
	defer func() {
		if traceID == "" {
			traceID = responseTraceID(nil, err)
		}
		c.logCall(ctx, http.MethodPost, pathAuth, "", 1, time.Since(start), attemptResult{err: err, status: status, traceID: traceID})
	}()
	body, err := json.Marshal(struct { //nolint:gosec // G117: POST /auth must send the secret; marshalled once, never logged
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}{c.clientID, c.secret.Reveal()})
	if err != nil {
		return "", 0, fmt.Errorf("POST %s: encoding credentials failed", pathAuth)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseStr+pathAuth, bytes.NewReader(body))
	if err != nil {
		return "", 0, fmt.Errorf("POST %s: %w", pathAuth, err)
	}
	req.Header.Set("Content-Type", contentTypeJSON)
	req.Header.Set("Accept", contentTypeJSON)
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", 0, fmt.Errorf("POST %s: no reply within %s: %w", pathAuth, c.authTimeout, context.DeadlineExceeded)
		}
		return "", 0, err
	}
	defer resp.Body.Close()
	status, traceID = resp.StatusCode, responseTraceID(resp.Header, nil)
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes+1))
	if err != nil {
		return "", 0, fmt.Errorf("POST %s: reading %d response body: %w", pathAuth, resp.StatusCode, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if len(data) > maxErrorBodyBytes {
			data = data[:maxErrorBodyBytes]
		}
		return "", 0, decodeError(resp.StatusCode, http.MethodPost, pathAuth, data)
	}
	// The body holds the token: errors below never quote it.
	var tr TokenResponse
	if len(data) > maxErrorBodyBytes || json.Unmarshal(data, &tr) != nil {
		return "", 0, fmt.Errorf("POST %s: %d response is not a token response (%s)", pathAuth, resp.StatusCode, shapeOf(data))
	}
	switch {
	case tr.AccessToken == "":
		return "", 0, fmt.Errorf("POST %s: response has no access_token", pathAuth)
	case tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "Bearer"):
		return "", 0, fmt.Errorf("POST %s: unsupported token_type %q", pathAuth, truncate(tr.TokenType, 20))
	case !validHeaderToken(tr.AccessToken.Reveal()):
		return "", 0, fmt.Errorf("POST %s: access_token has characters not allowed in a header", pathAuth)
	}
	life := time.Duration(tr.ExpiresIn) * time.Second
	if tr.ExpiresIn <= 0 || tr.ExpiresIn > int(24*time.Hour/time.Second) {
		life = TokenLifetime
	}
	return tr.AccessToken, life, nil
}

// shapeOf says what kind of body it is without quoting it.
func shapeOf(data []byte) string {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) == 0:
		return "empty body"
	case t[0] == '{' || t[0] == '[':
		return "invalid JSON"
	case t[0] == '<':
		return "HTML or XML"
	}
	return fmt.Sprintf("%d bytes of non-JSON", len(data))
}

func validHeaderToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Background retries of a failed token exchange wait retryFirst, doubling up to retryMax.
const (
	retryFirst = time.Second
	retryMax   = time.Minute
)

// tokenSource caches an access token and renews it in the background refreshEarly before it
// expires, so a call never waits for an exchange while the service can be reached. Concurrent
// callers share one exchange. A failed exchange is retried in the background; while the service
// refuses the credential, each call tries again and returns the refusal.
type tokenSource struct {
	fetch   func(ctx context.Context) (Secret, time.Duration, error)
	now     func() time.Time
	after   func(d time.Duration, f func()) (stop func() bool)
	timeout time.Duration
	log     *slog.Logger

	mu        sync.Mutex
	tok       Secret
	expiry    time.Time
	refreshAt time.Time
	pending   *tokenCall
	// lastErr is the last exchange's error (nil after a success), failedAt when it happened,
	// failures how many exchanges in a row failed.
	lastErr  error
	failedAt time.Time
	failures int
	// stop cancels the scheduled background exchange; timerGen tells a stale timer from the current one.
	stop     func() bool
	nextTry  time.Time
	timerGen uint64
	closed   bool
}

// tokenCall is a refresh in flight; done is closed when tok and err are set.
type tokenCall struct {
	done chan struct{}
	tok  Secret
	err  error
}

// TokenState is what the client knows of its access token, for display.
type TokenState struct {
	// Expiry is when the cached token expires (zero when none is cached).
	Expiry time.Time
	// Cached reports whether a token is cached; it may have expired (see Valid).
	Cached bool
	// Refreshing reports an exchange (POST /auth) in flight.
	Refreshing bool
	// LastError is the last exchange's error, nil once one succeeds.
	LastError error
	// FailedAt is when LastError happened.
	FailedAt time.Time
	// Rejected reports that LastError is the service refusing the credential (400, 401, 403),
	// not a failure to reach it.
	Rejected bool
	// NextTry is when the background exchange runs next (zero when none is scheduled).
	NextTry time.Time
}

// Valid reports whether a token is cached and has not expired at now.
func (s TokenState) Valid(now time.Time) bool { return s.Cached && now.Before(s.Expiry) }

// String keeps the token out of any printing.
func (s *tokenSource) String() string { return "api.tokenSource{" + redacted + "}" }

// rejected reports whether err is the service refusing the credential, which trying again
// later will not fix.
func rejected(err error) bool {
	var ae *Error
	return errors.As(err, &ae) && (ae.HTTPStatus == http.StatusBadRequest || ae.HTTPStatus == http.StatusUnauthorized ||
		ae.HTTPStatus == http.StatusForbidden)
}

// token returns a valid token: the cached one while it has not expired (a renewal due meanwhile
// runs in the background), else the result of an exchange, joined if one is in flight.
func (s *tokenSource) token(ctx context.Context) (Secret, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	now := s.now()
	if s.tok != "" && now.Before(s.expiry) && !rejected(s.lastErr) {
		if !now.Before(s.refreshAt) && s.lastErr == nil {
			s.startLocked() // the timer is late (a suspended machine): renew now, without waiting
		}
		t := s.tok
		s.mu.Unlock()
		return t, nil
	}
	call := s.startLocked()
	s.mu.Unlock()
	return s.wait(ctx, call)
}

// refresh fetches a new token even if the cached one is still good.
func (s *tokenSource) refresh(ctx context.Context) (Secret, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	call := s.startLocked()
	s.mu.Unlock()
	return s.wait(ctx, call)
}

// invalidate drops tok if it is still the cached token (a 401 proved it dead).
func (s *tokenSource) invalidate(tok Secret) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok == tok && tok != "" {
		s.tok = ""
		s.expiry, s.refreshAt = time.Time{}, time.Time{}
		s.log.Info("api: access token rejected by the service; re-authenticating")
	}
}

func (s *tokenSource) expiryTime() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expiry, s.tok != ""
}

// state reports the token's state.
func (s *tokenSource) state() TokenState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := TokenState{Expiry: s.expiry, Cached: s.tok != "", Refreshing: s.pending != nil,
		LastError: s.lastErr, FailedAt: s.failedAt, Rejected: rejected(s.lastErr)}
	if s.stop != nil && s.pending == nil {
		st.NextTry = s.nextTry
	}
	return st
}

// close stops the background renewal; later calls still get tokens, exchanged when needed.
func (s *tokenSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cancelTimerLocked()
}

// startLocked returns the refresh in flight or starts one. The refresh is shared, so it runs
// detached from every caller's context (neither one caller's cancellation nor its values, such
// as an httptrace hook, reach it) under its own timeout.
func (s *tokenSource) startLocked() *tokenCall {
	if s.pending != nil {
		return s.pending
	}
	s.cancelTimerLocked()
	call := &tokenCall{done: make(chan struct{})}
	s.pending = call
	go s.run(call)
	return call
}

// scheduleLocked runs an exchange in the background after d (at once when d <= 0).
func (s *tokenSource) scheduleLocked(d time.Duration) {
	s.cancelTimerLocked()
	if s.closed {
		return
	}
	d = max(d, 0)
	s.timerGen++
	gen := s.timerGen
	s.nextTry = s.now().Add(d)
	after := s.after
	if after == nil {
		after = afterFunc
	}
	s.stop = after(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if gen != s.timerGen || s.closed {
			return
		}
		s.stop = nil
		s.startLocked()
	})
}

func (s *tokenSource) cancelTimerLocked() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	s.timerGen++
}

// afterFunc runs f in its own goroutine after d; stop cancels it (see time.AfterFunc).
func afterFunc(d time.Duration, f func()) (stop func() bool) { return time.AfterFunc(d, f).Stop }

// retryDelay is the wait before background retry n (1, 2, ...).
func retryDelay(n int) time.Duration {
	d := retryFirst
	for i := 1; i < n && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

func (s *tokenSource) run(call *tokenCall) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	issued := s.now() // the lifetime counts from before the request, to stay on the safe side
	tok, life, err := s.fetch(ctx)
	s.mu.Lock()
	if err == nil {
		s.tok = tok
		s.expiry = issued.Add(life)
		early := refreshEarly
		if life <= refreshEarly {
			early = life / 2
		}
		s.refreshAt = s.expiry.Add(-early)
		s.lastErr, s.failedAt, s.failures = nil, time.Time{}, 0
		s.scheduleLocked(s.refreshAt.Sub(s.now()))
		s.log.Debug("api: access token obtained", slog.String("expires_in", life.String()),
			slog.String("renewal_in", s.refreshAt.Sub(s.now()).String()))
	} else {
		err = fmt.Errorf("authenticating: %w", err)
		s.lastErr, s.failedAt = err, s.now()
		s.failures++
		if rejected(err) {
			// The credential was refused: the next call asks again (and reports it); repeating
			// the exchange in the background would not change the answer.
			s.cancelTimerLocked()
			s.log.Warn("api: authentication refused", slog.String("error", err.Error()))
		} else {
			d := retryDelay(s.failures)
			s.scheduleLocked(d)
			s.log.Warn("api: authentication failed; retrying in the background", slog.String("error", err.Error()),
				slog.String("retry_in", d.String()))
		}
		// Marked permanent: the retry loop does not repeat a failed exchange.
		err = &permanentError{err: err, unsent: true}
	}
	s.pending = nil
	call.tok, call.err = tok, err
	s.mu.Unlock()
	close(call.done)
}

func (s *tokenSource) wait(ctx context.Context, call *tokenCall) (Secret, error) {
	select {
	case <-call.done:
		return call.tok, call.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// authTransport adds the bearer token to requests for the service and, on a 401, re-authenticates
// once and replays the request once.
type authTransport struct {
	base     http.RoundTripper
	tokens   *tokenSource
	scheme   string
	host     string
	authPath string
}

// authorizes reports whether req goes to the service (same scheme and host) and is not POST /auth.
func (t *authTransport) authorizes(req *http.Request) bool {
	return req.URL != nil && req.URL.Scheme == t.scheme && strings.EqualFold(req.URL.Host, t.host) &&
		req.URL.Path != t.authPath
}

// RoundTrip implements http.RoundTripper.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.authorizes(req) {
		if req.Header.Get("Authorization") != "" {
			req = req.Clone(req.Context())
			req.Header.Del("Authorization")
		}
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	tok, err := t.tokens.token(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	getBody := req.GetBody
	body := req.Body
	if body != nil && body != http.NoBody && getBody == nil {
		// Buffer the body so the request can be replayed after a 401.
		b, err := io.ReadAll(body)
		_ = body.Close()
		if err != nil {
			return nil, err
		}
		getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		body, _ = getBody()
	}
	resp, err := t.base.RoundTrip(withBearer(req, tok, body, getBody))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	var replayBody io.ReadCloser
	if getBody != nil {
		if replayBody, err = getBody(); err != nil {
			return resp, nil // cannot replay: the 401 stands
		}
	}
	t.tokens.invalidate(tok)
	drain(resp.Body)
	if st, ok := ctx.Value(attemptStateKey{}).(*attemptState); ok {
		st.replays.Add(1)
	}
	tok2, err := t.tokens.token(ctx)
	if err != nil {
		if replayBody != nil {
			_ = replayBody.Close()
		}
		return nil, err
	}
	return t.base.RoundTrip(withBearer(req, tok2, replayBody, getBody))
}

// withBearer copies req with the token, body and a way to rewind the body (for the transport's own resends).
func withBearer(req *http.Request, tok Secret, body io.ReadCloser, getBody func() (io.ReadCloser, error)) *http.Request {
	r := req.Clone(req.Context())
	r.Body, r.GetBody = body, getBody
	r.Header.Set("Authorization", "Bearer "+tok.Reveal())
	return r
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// drain reads a little of body so the connection can be reused, then closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
}
