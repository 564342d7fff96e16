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
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ctEventually waits (briefly polling) until cond holds; it synchronises, it does not time anything.
func ctEventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAuthRequestShape(t *testing.T) {
	s := newCtServer(t, ctRaw(200, "application/json", ctTxJSON))
	c := ctNewClient(t, s)
	if _, err := c.GetTransaction(ctCtx(t), "x", WithSubAccount("loja-a")); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	rec := s.authReqs[0]
	s.mu.Unlock()
	if rec.Method != "POST" || rec.Path != "/v2/auth" || rec.Header.Get("Content-Type") != "application/json" {
		t.Errorf("auth request %s %s %v", rec.Method, rec.Path, rec.Header)
	}
	for _, h := range []string{"Authorization", "X-Sub-Account", "Idempotency-Key"} {
		if _, ok := rec.Header[h]; ok {
			t.Errorf("%s sent to /auth", h)
		}
	}
	var body map[string]string
	if err := json.Unmarshal(rec.Body, &body); err != nil || len(body) != 2 || body["client_id"] != ctClientID || body["client_secret"] != ctSecret.Reveal() {
		t.Errorf("auth body has %d fields, client_id %q", len(body), body["client_id"])
	}
	if got := s.lastReq().Header.Get("Authorization"); got != "Bearer "+ctTokenMark+"1-eyJhbGciOiJIUzI1NiJ9" {
		t.Errorf("Authorization = %q", got)
	}
}

// ftClock is the fake service's clock with timers: Advance moves both and runs the timers that
// came due, each in its own goroutine as time.AfterFunc does.
type ftClock struct {
	*ctClock
	mu     sync.Mutex
	timers []*ftTimer
}

type ftTimer struct {
	at   time.Time
	f    func()
	done bool // fired or stopped
}

func (c *ftClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &ftTimer{at: c.Now().Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

func (c *ftClock) Advance(d time.Duration) {
	c.ctClock.Advance(d)
	now := c.Now()
	c.mu.Lock()
	var due []*ftTimer
	live := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(now):
			t.done = true
			due = append(due, t)
		default:
			live = append(live, t)
		}
	}
	c.timers = live
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
}

// armed returns when the earliest live timer fires (false when none is set).
func (c *ftClock) armed() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	for _, t := range c.timers {
		if !t.done && (at.IsZero() || t.at.Before(at)) {
			at = t.at
		}
	}
	return at, !at.IsZero()
}

// neverFires is a timer that does not fire: the renewal then depends on calls alone.
func neverFires(time.Duration, func()) func() bool { return func() bool { return true } }

// ctRenewingClient is a client of s whose background renewal runs on the fake clock.
func ctRenewingClient(t *testing.T, s *ctServer, opts ...Option) (*Client, *ftClock) {
	t.Helper()
	ft := &ftClock{ctClock: s.clock}
	c := ctNewClient(t, s, opts...)
	c.tokens.after = ft.AfterFunc
	t.Cleanup(c.Close)
	return c, ft
}

func ctAuthCalls(s *ctServer) int { a, _, _ := s.counts(); return a }

// TestTokenOneAuthPerLifetime: 200 concurrent calls in each of three token lifetimes make exactly
// one POST /auth per lifetime, and no call meets a 401.
func TestTokenOneAuthPerLifetime(t *testing.T) {
	s := newCtServer(t, ctRaw(200, "application/json", ctTxJSON))
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		time.Sleep(2 * time.Millisecond) // widen the window in which callers pile up on the refresh
		return false
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 256}
	defer transport.CloseIdleConnections()
	c, ft := ctRenewingClient(t, s, WithHTTPClient(&http.Client{Transport: transport}))
	ctx := ctCtx(t)
	start := s.clock.Now()
	for wave := 0; wave < 3; wave++ {
		if wave > 0 {
			// Past the renewal point (30 s before expiry) but before the old token expires:
			// the renewal runs in the background while the calls go on with the old token.
			ft.Advance(280 * time.Second)
		}
		var wg sync.WaitGroup
		var failed atomic.Int32
		gate := make(chan struct{})
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				if _, err := c.GetTransaction(ctx, fmt.Sprintf("tx-%d", i)); err != nil {
					failed.Add(1)
					t.Errorf("wave %d call %d: %v", wave, i, err)
				}
			}()
		}
		close(gate)
		wg.Wait()
		want := start.Add(time.Duration(wave)*280*time.Second + 300*time.Second)
		ctEventually(t, "the renewal", func() bool { exp, ok := c.TokenExpiry(); return ok && exp.Equal(want) })
		auth, reqs, unauth := s.counts()
		if auth != wave+1 || failed.Load() != 0 || unauth != 0 || reqs != 200*(wave+1) {
			t.Fatalf("after wave %d: auth calls %d (want %d), failed %d, 401s %d, requests %d", wave, auth, wave+1, failed.Load(), unauth, reqs)
		}
	}
}

// TestTokenRenewedBeforeExpiry is defect 5: with no call at all, the token is replaced 30 s
// before it expires (half its life when shorter), so an idle dashboard never holds an expired one.
func TestTokenRenewedBeforeExpiry(t *testing.T) {
	cases := []struct {
		name     string
		lifetime int
		renewAt  time.Duration
	}{
		{"300s renews 30s early", 300, 270 * time.Second},
		{"60s renews 30s early", 60, 30 * time.Second},
		{"20s renews at half-life", 20, 10 * time.Second},
		{"1s renews at half-life", 1, 500 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, nil)
			s.lifetime = tc.lifetime
			c, ft := ctRenewingClient(t, s)
			ctx := ctCtx(t)
			if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
				t.Fatal(err)
			}
			life := time.Duration(tc.lifetime) * time.Second
			for n := 1; n <= 3; n++ {
				t0 := s.clock.Now()
				if at, ok := ft.armed(); !ok || !at.Equal(t0.Add(tc.renewAt)) {
					t.Fatalf("renewal %d armed for %v (%v), want %v", n, at, ok, t0.Add(tc.renewAt))
				}
				ft.Advance(tc.renewAt - time.Millisecond)
				if got := ctAuthCalls(s); got != n {
					t.Fatalf("renewed too early: %d auth calls, want %d", got, n)
				}
				ft.Advance(time.Millisecond)
				ctEventually(t, "the background renewal", func() bool { return ctAuthCalls(s) == n+1 })
				ctEventually(t, "the new expiry", func() bool {
					exp, _ := c.TokenExpiry()
					return exp.Equal(s.clock.Now().Add(life))
				})
				if st := c.TokenState(); !st.Valid(s.clock.Now()) || st.LastError != nil {
					t.Fatalf("state after renewal %d: %+v", n, st)
				}
			}
			if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
				t.Fatal(err)
			}
			if got := s.lastReq().Header.Get("Authorization"); !strings.Contains(got, ctTokenMark+"4-") {
				t.Errorf("call uses %q, want the fourth token", got)
			}
			if _, _, unauth := s.counts(); unauth != 0 {
				t.Errorf("%d calls met a 401", unauth)
			}
		})
	}
}

// TestNoCallWaitsForTheRenewal: while the renewal is in flight (the service slow to answer
// POST /auth), calls go on at once with the token that is still valid.
func TestNoCallWaitsForTheRenewal(t *testing.T) {
	release := make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	s := newCtServer(t, nil)
	c, ft := ctRenewingClient(t, s)
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		<-release
		return false
	}
	s.mu.Unlock()
	ft.Advance(280 * time.Second)
	ctEventually(t, "the renewal to start", func() bool { return ctAuthCalls(s) == 2 })
	if !c.TokenState().Refreshing {
		t.Errorf("state does not show the renewal in flight")
	}
	for i := 0; i < 20; i++ {
		callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := c.Do(callCtx, "GET", "/ping", nil, nil)
		cancel()
		if err != nil {
			t.Fatalf("call %d during the renewal: %v", i, err)
		}
	}
	if got := s.lastReq().Header.Get("Authorization"); !strings.Contains(got, ctTokenMark+"1-") {
		t.Errorf("during the renewal the call used %q, want the old token", got)
	}
	releaseOnce.Do(func() { close(release) })
	ctEventually(t, "the renewal to finish", func() bool { return !c.TokenState().Refreshing })
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.lastReq().Header.Get("Authorization"); !strings.Contains(got, ctTokenMark+"2-") {
		t.Errorf("after the renewal the call used %q, want the new token", got)
	}
	if a := ctAuthCalls(s); a != 2 {
		t.Errorf("auth calls = %d, want 2", a)
	}
}

// TestLateTimerRenewsOnTheNextCall: when the timer did not fire (a suspended machine), the first
// call past the renewal point starts it and does not wait for it.
func TestLateTimerRenewsOnTheNextCall(t *testing.T) {
	release := make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	s := newCtServer(t, nil)
	c := ctNewClient(t, s)
	c.tokens.after = neverFires
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		<-release
		return false
	}
	s.mu.Unlock()
	s.clock.Advance(269 * time.Second)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil || ctAuthCalls(s) != 1 {
		t.Fatalf("before the renewal point: %v, %d auth calls", err, ctAuthCalls(s))
	}
	s.clock.Advance(time.Second)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatalf("the call past the renewal point waited or failed: %v", err)
	}
	ctEventually(t, "the renewal the call started", func() bool { return ctAuthCalls(s) == 2 })
	releaseOnce.Do(func() { close(release) })
	ctEventually(t, "the new token", func() bool {
		exp, _ := c.TokenExpiry()
		return exp.Equal(s.clock.Now().Add(300 * time.Second))
	})
}

// TestExpiredTokenSharedExchange: past expiry (no renewal ran) 100 concurrent callers wait on
// one exchange.
func TestExpiredTokenSharedExchange(t *testing.T) {
	s := newCtServer(t, nil)
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		time.Sleep(5 * time.Millisecond)
		return false
	}
	c, ft := ctRenewingClient(t, s)
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Close() // no background renewal from here on
	ft.Advance(301 * time.Second)
	if _, ok := ft.armed(); ok {
		t.Fatal("a timer is still armed after Close")
	}
	if a := ctAuthCalls(s); a != 1 {
		t.Fatalf("renewed after Close: %d auth calls", a)
	}
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if auth, _, unauth := s.counts(); auth != 2 || unauth != 0 {
		t.Errorf("auth calls %d, 401s %d; want 2 and 0", auth, unauth)
	}
}

// TestFailedRenewalRetried: a renewal the service cannot answer (503) is retried in the
// background, 1 s then 2 s later, while calls go on with the valid token; the state says so.
func TestFailedRenewalRetried(t *testing.T) {
	s := newCtServer(t, nil)
	c, ft := ctRenewingClient(t, s)
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	var down atomic.Int32
	down.Store(2)
	s.mu.Lock()
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		if down.Add(-1) >= 0 {
			ctJSON(w, 503, map[string]any{"statusCode": 503, "error": "ServiceUnavailable", "message": "try later"})
			return true
		}
		return false
	}
	s.mu.Unlock()
	ft.Advance(270 * time.Second)
	ctEventually(t, "the failed renewal", func() bool { return c.TokenState().LastError != nil && !c.TokenState().Refreshing })
	st := c.TokenState()
	if st.Rejected || !st.Valid(s.clock.Now()) || !st.NextTry.Equal(s.clock.Now().Add(time.Second)) || !strings.Contains(st.LastError.Error(), "503") {
		t.Fatalf("state after a failed renewal: %+v", st)
	}
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatalf("a call with the still-valid token failed: %v", err)
	}
	if a := ctAuthCalls(s); a != 2 {
		t.Fatalf("the call started an exchange of its own: %d auth calls", a)
	}
	ft.Advance(time.Second)
	ctEventually(t, "the first retry", func() bool { return ctAuthCalls(s) == 3 && !c.TokenState().Refreshing })
	if st := c.TokenState(); !st.NextTry.Equal(s.clock.Now().Add(2 * time.Second)) {
		t.Fatalf("second retry at %v, want 2 s later", st.NextTry)
	}
	ft.Advance(2 * time.Second)
	ctEventually(t, "the second retry", func() bool { return ctAuthCalls(s) == 4 && c.TokenState().LastError == nil })
	if exp, _ := c.TokenExpiry(); !exp.Equal(s.clock.Now().Add(300 * time.Second)) {
		t.Errorf("expiry after the retry = %v", exp)
	}
}

// TestFailedRenewalReportedAtExpiry: when the service stays unreachable until the token expires,
// the next call makes the exchange itself and returns its error, the normal way.
func TestFailedRenewalReportedAtExpiry(t *testing.T) {
	s := newCtServer(t, nil)
	c, ft := ctRenewingClient(t, s)
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		ctJSON(w, 502, map[string]any{"statusCode": 502, "error": "BadGateway", "message": "upstream down"})
		return true
	}
	s.mu.Unlock()
	ft.Advance(270 * time.Second)
	ctEventually(t, "the failed renewal", func() bool { return c.TokenState().LastError != nil && !c.TokenState().Refreshing })
	s.clock.Advance(31 * time.Second) // past expiry, before the background retries catch up
	before := ctAuthCalls(s)
	err := c.Do(ctx, "GET", "/ping", nil, nil)
	var ae *Error
	if !errors.As(err, &ae) || ae.HTTPStatus != 502 || ae.Path != "/auth" || !strings.Contains(err.Error(), "authenticating") {
		t.Fatalf("err = %v, want the exchange's 502", err)
	}
	if a := ctAuthCalls(s); a != before+1 {
		t.Errorf("auth calls %d, want %d: the call tries once", a, before+1)
	}
	if _, reqs, _ := s.counts(); reqs != 1 {
		t.Errorf("the call was sent with an expired token: %d requests", reqs)
	}
}

// TestRefusedRenewalReportedByTheNextCall: when the service refuses the credential at renewal
// (revoked), it is not retried in the background; the next call asks again and returns the
// refusal although the old token has not expired, and the state says the credential is refused.
func TestRefusedRenewalReportedByTheNextCall(t *testing.T) {
	s := newCtServer(t, nil)
	c, ft := ctRenewingClient(t, s)
	ctx := ctCtx(t)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	var refuse atomic.Bool
	refuse.Store(true)
	s.mu.Lock()
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		if refuse.Load() {
			ctJSON(w, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"})
			return true
		}
		return false
	}
	s.mu.Unlock()
	ft.Advance(270 * time.Second)
	ctEventually(t, "the refused renewal", func() bool { return c.TokenState().Rejected && !c.TokenState().Refreshing })
	if _, ok := ft.armed(); ok {
		t.Errorf("a refused credential is retried in the background")
	}
	if st := c.TokenState(); !st.Valid(s.clock.Now()) || !st.NextTry.IsZero() {
		t.Errorf("state = %+v", st)
	}
	err := c.Do(ctx, "GET", "/ping", nil, nil)
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "authenticating") {
		t.Fatalf("err = %v, want the refusal", err)
	}
	if auth, reqs, _ := s.counts(); auth != 3 || reqs != 1 {
		t.Errorf("auth calls %d, requests %d; want 3 (the renewal, the call's) and 1", auth, reqs)
	}
	refuse.Store(false)
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatalf("after the credential is accepted again: %v", err)
	}
	if st := c.TokenState(); st.LastError != nil || st.Rejected {
		t.Errorf("state after recovery = %+v", st)
	}
	if _, ok := ft.armed(); !ok {
		t.Errorf("no renewal armed after recovery")
	}
}

func TestTokenRefreshSchedule(t *testing.T) {
	// expires_in missing or absurd: the spec's 300 s is assumed.
	s := newCtServer(t, nil)
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		ctJSON(w, 200, map[string]any{"access_token": ctTokenMark + "x", "token_type": "bearer"})
		return true
	}
	c := ctNewClient(t, s)
	if err := c.Authenticate(ctCtx(t)); err != nil {
		t.Fatal(err)
	}
	if exp, ok := c.TokenExpiry(); !ok || !exp.Equal(s.clock.Now().Add(300*time.Second)) {
		t.Errorf("expiry = %v %v", exp, ok)
	}
}

func TestAuthenticateForcesRefresh(t *testing.T) {
	s := newCtServer(t, nil)
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	if _, ok := c.TokenExpiry(); ok {
		t.Fatal("token before any call")
	}
	for i := 1; i <= 2; i++ {
		if err := c.Authenticate(ctx); err != nil {
			t.Fatal(err)
		}
		if auth, _, _ := s.counts(); auth != i {
			t.Errorf("auth calls = %d, want %d", auth, i)
		}
	}
	if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.lastReq().Header.Get("Authorization"); !strings.Contains(got, ctTokenMark+"2-") {
		t.Errorf("uses %q, want the newest token", got)
	}
}

// TestRevokedTokenReplayedOnce: a token revoked mid-flight costs one re-authentication and one
// replay per call, and concurrent callers share the re-authentication.
func TestRevokedTokenReplayedOnce(t *testing.T) {
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		ctJSON(w, 201, json.RawMessage(ctChargeJSON))
	})
	c := ctNewClient(t, s)
	ctx := ctCtx(t)
	if _, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 1000, Description: "Venda"}); err != nil {
		t.Fatal(err)
	}
	s.revokeAll()
	if _, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 1234, Description: "replayed"}, WithIdempotencyKey("replay-key-1")); err != nil {
		t.Fatalf("revoked token not replayed: %v", err)
	}
	auth, reqs, unauth := s.counts()
	if auth != 2 || reqs != 3 || unauth != 1 {
		t.Fatalf("auth %d, requests %d, 401s %d; want 2, 3, 1", auth, reqs, unauth)
	}
	s.mu.Lock()
	first, replay := s.reqs[1], s.reqs[2]
	s.mu.Unlock()
	if !bytes.Equal(first.Body, replay.Body) || len(replay.Body) == 0 || replay.Header.Get("Idempotency-Key") != "replay-key-1" ||
		first.Header.Get("Authorization") == replay.Header.Get("Authorization") {
		t.Errorf("replay differs: %q vs %q, key %q", first.Body, replay.Body, replay.Header.Get("Idempotency-Key"))
	}

	// 50 calls in flight when the token is revoked: one new token between them.
	s.revokeAll()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Do(ctx, "GET", "/ping", nil, nil); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if auth, _, _ := s.counts(); auth != 3 {
		t.Errorf("auth calls = %d, want 3", auth)
	}
}

func TestSecond401IsReturned(t *testing.T) {
	var hits atomic.Int32
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		hits.Add(1)
		ctJSON(w, 401, map[string]any{"statusCode": 401, "error": "Unauthorized", "message": "Token revoked", "timestamp": "t"})
	})
	c := ctNewClient(t, s)
	_, err := c.GetTransaction(ctCtx(t), "x")
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != 401 || e.Message != "Token revoked" || !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	if auth, _, _ := s.counts(); auth != 2 || hits.Load() != 2 {
		t.Errorf("auth calls %d, requests %d; want 2 and 2 (one replay, no loop, no retry)", auth, hits.Load())
	}
	ctNoLeak(t, "401 error", err.Error())
}

func TestHungAuthIsBounded(t *testing.T) {
	s := newCtServer(t, nil)
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done() // hangs until the client gives up
		return true
	}
	c := ctNewClient(t, s, WithAuthTimeout(40*time.Millisecond), WithRetry(RetryPolicy{MaxAttempts: 4}))
	_, err := c.GetTransaction(ctCtx(t), "x")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "POST /auth") {
		t.Fatalf("err = %v", err)
	}
	if auth, reqs, _ := s.counts(); auth != 1 || reqs != 0 {
		t.Errorf("auth calls %d, requests %d: a hung exchange is not retried", auth, reqs)
	}
	if err := c.Authenticate(ctCtx(t)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Authenticate: %v", err)
	}
}

// TestCancelledWaiterDoesNotFailOthers: the refresh is shared and detached from the caller that
// started it; a caller that gives up returns at once, the others get the token.
func TestCancelledWaiterDoesNotFailOthers(t *testing.T) {
	release := make(chan struct{})
	s := newCtServer(t, nil)
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		<-release
		return false
	}
	c := ctNewClient(t, s)
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	errA := make(chan error, 1)
	go func() { errA <- c.Do(ctxA, "GET", "/ping", nil, nil) }()
	ctEventually(t, "the first POST /auth", func() bool { a, _, _ := s.counts(); return a == 1 })
	errB := make(chan error, 1)
	go func() { errB <- c.Do(ctCtx(t), "GET", "/ping", nil, nil) }()
	cancelA()
	select {
	case err := <-errA:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled caller: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled waiter did not return while the refresh was pending")
	}
	close(release)
	if err := <-errB; err != nil {
		t.Errorf("the other caller failed: %v", err)
	}
	if auth, _, _ := s.counts(); auth != 1 {
		t.Errorf("auth calls = %d, want 1", auth)
	}
}

func TestTokenSourceSingleFlight(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	clock := newCtClock()
	ts := &tokenSource{
		fetch: func(ctx context.Context) (Secret, time.Duration, error) {
			calls.Add(1)
			<-release
			return ctTokenMark + "sf", 300 * time.Second, nil
		},
		now: clock.Now, after: neverFires, timeout: time.Second, log: slog.New(slog.DiscardHandler),
	}
	var wg sync.WaitGroup
	var entered sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		entered.Add(1)
		go func() {
			defer wg.Done()
			entered.Done()
			if tok, err := ts.token(context.Background()); err != nil || tok != ctTokenMark+"sf" {
				t.Errorf("token: %v", err)
			}
		}()
	}
	entered.Wait()
	ctEventually(t, "the fetch to start", func() bool { return calls.Load() == 1 })
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("fetches = %d, want 1", calls.Load())
	}
	// invalidate only drops the token that failed.
	ts.invalidate("some-older-token")
	if _, ok := ts.expiryTime(); !ok {
		t.Errorf("an older token's 401 dropped the current one")
	}
	ts.invalidate(ctTokenMark + "sf")
	if _, ok := ts.expiryTime(); ok {
		t.Errorf("the current token's 401 did not drop it")
	}
	// A failed fetch is not cached: the next caller tries again.
	ts.fetch = func(ctx context.Context) (Secret, time.Duration, error) {
		calls.Add(1)
		return "", 0, errors.New("boom")
	}
	for i := 0; i < 2; i++ {
		if _, err := ts.token(context.Background()); err == nil || !strings.Contains(err.Error(), "authenticating: boom") {
			t.Errorf("err = %v", err)
		}
	}
	if calls.Load() != 3 {
		t.Errorf("fetches = %d, want 3", calls.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ts.token(ctx); !errors.Is(err, context.Canceled) || calls.Load() != 3 {
		t.Errorf("a cancelled caller started a fetch or did not return its error: %v", err)
	}
}

func TestBadTokenResponses(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"broken JSON quoting the token", `{"access_token":"` + ctTokenMark + `leak", "expires_in": `, "not a token response (invalid JSON)"},
		{"no token", `{"token_type":"Bearer","expires_in":300}`, "no access_token"},
		{"other type", `{"access_token":"` + ctTokenMark + `x","token_type":"MAC","expires_in":300}`, `unsupported token_type "MAC"`},
		{"header injection", `{"access_token":"` + ctTokenMark + `x\r\nX-Evil: 1","token_type":"Bearer","expires_in":300}`, "not allowed in a header"},
		{"html", `<html><title>Welcome to nginx</title></html>`, "HTML or XML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCtServer(t, nil)
			s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
				w.WriteHeader(200)
				_, _ = io.WriteString(w, tc.body)
				return true
			}
			c := ctNewClient(t, s)
			_, err := c.GetTransaction(ctCtx(t), "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			ctNoLeak(t, "token response error", err.Error())
		})
	}
}

// TestNoTokenToOtherHosts: a redirect is never followed, so the bearer token never reaches another host.
func TestNoTokenToOtherHosts(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("X-Sub-Account"))
		ctJSON(w, 200, json.RawMessage(ctTxJSON))
	}))
	defer other.Close()
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	})
	c := ctNewClient(t, s)
	_, err := c.GetTransaction(ctCtx(t), "x")
	var ae *Error
	if !errors.As(err, &ae) || ae.HTTPStatus != http.StatusFound || !strings.Contains(err.Error(), "never follows redirects") {
		t.Fatalf("err = %v, want the 302 refused", err)
	}
	if got, _ := leaked.Load().(string); got != "" {
		t.Errorf("the redirect was followed, sending %q", got)
	}
}

// TestAuthNeverFollowsRedirect: a 307 from POST /auth would resend the client secret to the
// Location's host; the client stops at the 307 instead, for every redirect status.
func TestAuthNeverFollowsRedirect(t *testing.T) {
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			var got atomic.Value
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got.Store(string(b) + r.Header.Get("Authorization"))
				ctJSON(w, 200, map[string]any{"access_token": "stolen", "token_type": "Bearer", "expires_in": 300})
			}))
			defer other.Close()
			s := newCtServer(t, nil)
			s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
				http.Redirect(w, r, other.URL+"/v2/auth", code)
				return true
			}
			c := ctNewClient(t, s)
			err := c.Authenticate(ctCtx(t))
			if err == nil || !strings.Contains(err.Error(), "never follows redirects") {
				t.Fatalf("err = %v, want the redirect refused", err)
			}
			if v, _ := got.Load().(string); v != "" {
				t.Fatalf("the credentials went to another host: %d bytes", len(v))
			}
			ctNoLeak(t, "redirect error", err.Error())
		})
	}
}

// TestSecretsNeverAppear drives the client through failures and checks errors, logs and printing.
func TestSecretsNeverAppear(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var mode atomic.Int32
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		switch mode.Load() {
		case 0:
			ctJSON(w, 500, map[string]any{"statusCode": 500, "error": "InternalError", "message": MessageUnexpected})
		case 1:
			ctJSON(w, 401, map[string]any{"statusCode": 401, "error": "Unauthorized", "message": "Token is required"})
		default:
			w.WriteHeader(200)
			_, _ = io.WriteString(w, "{not json")
		}
	})
	c := ctNewClient(t, s, WithLogger(logger))
	var texts []string
	for m := int32(0); m < 3; m++ {
		mode.Store(m)
		_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 500, Description: "Venda"})
		if err == nil {
			t.Fatalf("mode %d: no error", m)
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%v %+v %#v", err, err, err))
	}
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		ctJSON(w, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"})
		return true
	}
	err := c.Authenticate(ctCtx(t))
	texts = append(texts, err.Error(), fmt.Sprintf("%#v", err))
	texts = append(texts, fmt.Sprintf("%v %+v %#v %s", c, c, *c, c.tokens), logs.String())
	for i, s := range texts {
		ctNoLeak(t, fmt.Sprintf("text %d", i), s)
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("retries should be logged: %s", logs.String())
	}
}

// TestReplayBuffersBodyWithoutGetBody: a request built without GetBody is still replayed after a
// 401 with the same body.
func TestReplayBuffersBodyWithoutGetBody(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		mu.Lock()
		bodies = append(bodies, string(rec.Body))
		mu.Unlock()
		ctJSON(w, 200, map[string]any{})
	})
	c := ctNewClient(t, s)
	if err := c.Authenticate(ctCtx(t)); err != nil {
		t.Fatal(err)
	}
	s.revokeAll()
	req, err := http.NewRequestWithContext(ctCtx(t), "POST", s.URL()+"/echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Body = io.NopCloser(strings.NewReader(`{"payload":1}`)) // no GetBody
	req.ContentLength = int64(len(`{"payload":1}`))
	resp, err := c.authed.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, reqs, unauth := s.counts()
	if resp.StatusCode != 200 || reqs != 2 || unauth != 1 || len(bodies) != 1 || bodies[0] != `{"payload":1}` {
		t.Errorf("status %d, requests %d, 401s %d, bodies %q", resp.StatusCode, reqs, unauth, bodies)
	}
	s.mu.Lock()
	first := string(s.reqs[0].Body)
	s.mu.Unlock()
	if first != `{"payload":1}` {
		t.Errorf("first attempt body %q", first)
	}
}
