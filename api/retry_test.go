package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Faults the fake service injects into POST /pix.
const (
	ctOK          = iota
	ctDrop        // commit the charge, then close the connection without a reply
	ctDropMidBody // commit, send the status line and half the body, then close
	ctFail500     // answer 500 without committing
	ctHang        // commit, then never answer (the client's attempt timeout fires)
)

// TestCreatePixSurvivesFaultyServer: 1,000 creates against a service that drops the connection
// after committing (30%), fails with 500 (10%) and hangs (5%) yield exactly 1,000 charges,
// each created once, and never a 422.
func TestCreatePixSurvivesFaultyServer(t *testing.T) {
	const n = 1000
	const faultyAttempts = 6 // attempts after these always succeed, so the test cannot flake
	rng := rand.New(rand.NewPCG(20250301, 42))
	schedule := make([][faultyAttempts]int, n)
	for i := range schedule {
		for a := range schedule[i] {
			switch r := rng.IntN(100); {
			case r < 20:
				schedule[i][a] = ctDrop
			case r < 30:
				schedule[i][a] = ctDropMidBody
			case r < 40:
				schedule[i][a] = ctFail500
			case r < 45:
				schedule[i][a] = ctHang
			}
		}
	}
	type charge struct {
		body, resp []byte
		ref        string
	}
	var (
		mu        sync.Mutex
		byKey     = map[string]*charge{}
		attempts  = map[string]int{}
		perRef    = map[string]int{}
		created   int
		conflicts int
		faults    [5]int
	)
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		key := r.Header.Get("Idempotency-Key")
		var body struct {
			Amount            Money  `json:"amount"`
			ExternalReference string `json:"externalReference"`
		}
		var idx int
		if err := json.Unmarshal(rec.Body, &body); err != nil || key == "" || r.URL.Path != "/v2/pix" {
			ctJSON(w, 400, map[string]any{"statusCode": 400, "error": "BadRequest", "message": "bad request"})
			return
		}
		fmt.Sscanf(body.ExternalReference, "ref-%d", &idx)
		mu.Lock()
		a := attempts[key]
		attempts[key]++
		fault := ctOK
		if a < faultyAttempts {
			fault = schedule[idx][a]
		}
		faults[fault]++
		if fault == ctFail500 {
			mu.Unlock()
			ctJSON(w, 500, map[string]any{"statusCode": 500, "error": "InternalError", "message": MessageUnexpected})
			return
		}
		ch, ok := byKey[key]
		if ok && !bytes.Equal(ch.body, rec.Body) {
			conflicts++
			mu.Unlock()
			ctJSON(w, 422, map[string]any{"statusCode": 422, "error": "UnprocessableEntity", "message": "Idempotency-Key reused with a different body"})
			return
		}
		if !ok {
			created++
			perRef[body.ExternalReference]++
			resp, _ := json.Marshal(map[string]any{
				"id": fmt.Sprintf("chg-%06d", created), "status": "pending", "amount": body.Amount, "currency": "BRL",
				"pixCopyPaste": "000201", "expiresAt": "2025-03-02T12:00:00Z", "createdAt": "2025-03-01T12:00:00Z",
				"externalReference": body.ExternalReference,
			})
			ch = &charge{body: rec.Body, resp: resp, ref: body.ExternalReference}
			byKey[key] = ch
		}
		mu.Unlock()
		switch fault {
		case ctDrop, ctDropMidBody:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if fault == ctDropMidBody {
				fmt.Fprintf(conn, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(ch.resp))
				_, _ = conn.Write(ch.resp[:len(ch.resp)/2])
			}
			conn.Close()
		case ctHang:
			<-r.Context().Done()
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(201)
			_, _ = w.Write(ch.resp)
		}
	})
	transport := &http.Transport{MaxIdleConnsPerHost: 32}
	defer transport.CloseIdleConnections()
	// Generous attempts: on a loaded machine a healthy attempt may also time out; that only
	// costs another (idempotent) attempt, never a failure.
	c := ctNewClient(t, s,
		WithHTTPClient(&http.Client{Transport: transport}),
		WithRetry(RetryPolicy{MaxAttempts: 30, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, AttemptTimeout: 150 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a safety net only
	defer cancel()

	results := make([]*PixCharge, n)
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i], errs[i] = c.CreatePix(ctx, &CreatePixRequest{
					Amount: Money(100 + i), Description: "load", ExternalReference: fmt.Sprintf("ref-%04d", i),
				})
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()

	ids := map[string]bool{}
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		ref := fmt.Sprintf("ref-%04d", i)
		if results[i].ExternalReference != ref || results[i].Amount != Money(100+i) {
			t.Errorf("create %d got the charge of %s (%v)", i, results[i].ExternalReference, results[i].Amount)
		}
		ids[results[i].ID] = true
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != n || created != n || len(byKey) != n || conflicts != 0 {
		t.Errorf("distinct ids %d, created %d, keys %d, 422s %d; want %d each and no 422", len(ids), created, len(byKey), conflicts, n)
	}
	for ref, k := range perRef {
		if k != 1 {
			t.Errorf("%s created %d times", ref, k)
		}
	}
	total := 0
	for _, k := range attempts {
		total += k
	}
	t.Logf("attempts %d; faults: drop %d, drop mid-body %d, 500 %d, hang %d", total, faults[ctDrop], faults[ctDropMidBody], faults[ctFail500], faults[ctHang])
	if faults[ctDrop] < 150 || faults[ctDropMidBody] < 50 || faults[ctFail500] < 50 || faults[ctHang] < 20 {
		t.Errorf("the schedule did not exercise every fault: %v", faults)
	}
}

// ctCounting answers with status and body, counting attempts per path.
type ctCounting struct {
	mu    sync.Mutex
	count int
	keys  []string
	body  [][]byte
}

func (c *ctCounting) route(status int, body string) func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
	return func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		c.mu.Lock()
		c.count++
		c.keys = append(c.keys, r.Header.Get("Idempotency-Key"))
		c.body = append(c.body, rec.Body)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func (c *ctCounting) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

func TestNoRetryOn4xx(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 422} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var cnt ctCounting
			body := fmt.Sprintf(`{"statusCode":%d,"error":"X","message":"refused","timestamp":"t"}`, status)
			s := newCtServer(t, cnt.route(status, body))
			c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 5}))
			_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 100, Description: "Venda"})
			if _, direct := err.(*Error); !direct {
				t.Errorf("CreatePix err = %T %v, want *Error as is", err, err)
			}
			_, err = c.GetTransaction(ctCtx(t), "x")
			if _, direct := err.(*Error); !direct {
				t.Errorf("GetTransaction err = %T %v, want *Error as is", err, err)
			}
			want := 2
			if status == 401 {
				want = 4 // each call replays once after re-authenticating
			}
			if cnt.n() != want {
				t.Errorf("attempts = %d, want %d", cnt.n(), want)
			}
		})
	}
}

func TestRetriesSameKeyAndBody(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504, 429} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var cnt ctCounting
			s := newCtServer(t, cnt.route(status, `{"statusCode":500,"error":"InternalError","message":"An unexpected error occurred"}`))
			c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 4}))
			_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 100, Description: "Venda", Metadata: map[string]any{"b": 1, "a": 2, "c": []int{3}}})
			var e *Error
			if !errors.As(err, &e) || e.HTTPStatus != status {
				t.Fatalf("err = %v", err)
			}
			key, ok := IdempotencyKeyOf(err)
			if status == 429 {
				// Rate limited every time: nothing was processed, the refusal is returned as is.
				if _, direct := err.(*Error); ok || !direct {
					t.Errorf("429 only: err = %T %v", err, err)
				}
				key = cnt.keys[0]
			} else if !ok || !strings.Contains(err.Error(), key) {
				t.Errorf("an unknown outcome must carry the key: %v", err)
			}
			if cnt.n() != 4 {
				t.Fatalf("attempts = %d, want 4", cnt.n())
			}
			for i := range cnt.keys {
				if cnt.keys[i] != key || !bytes.Equal(cnt.body[i], cnt.body[0]) {
					t.Errorf("attempt %d: key %q body %s; first: %q %s", i, cnt.keys[i], cnt.body[i], key, cnt.body[0])
				}
			}
			var gets ctCounting
			s.setRoute(gets.route(status, `{"statusCode":503,"error":"ServiceUnavailable","message":"busy"}`))
			if _, err := c.ListBalanceBlocks(ctCtx(t), ""); err == nil || gets.n() != 4 {
				t.Errorf("GET: attempts %d, err %v", gets.n(), err)
			}
		})
	}
}

func TestPostWithoutKeyIsNotRetried(t *testing.T) {
	var cnt ctCounting
	s := newCtServer(t, cnt.route(503, `{"statusCode":503,"error":"ServiceUnavailable","message":"busy"}`))
	c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 4}))
	ctx := ctCtx(t)
	if _, err := c.CreateSubAccount(ctx, &CreateSubAccountRequest{Reference: "loja-a", Name: "A"}); err == nil {
		t.Fatal("no error")
	}
	if err := c.Do(ctx, "POST", "/projects", map[string]string{"name": "x"}, nil); err == nil {
		t.Fatal("no error")
	}
	if cnt.n() != 2 {
		t.Errorf("attempts = %d, want 2 (one per call)", cnt.n())
	}
	if err := c.Do(ctx, "POST", "/withdrawals", map[string]string{"x": "y"}, nil, WithIdempotencyKey("withdraw-0001")); err == nil {
		t.Fatal("no error")
	}
	if cnt.n() != 6 {
		t.Errorf("a POST with a key should be retried: attempts = %d, want 6", cnt.n())
	}
}

func TestRetryOnTransportErrors(t *testing.T) {
	var hits atomic.Int32
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		switch hits.Add(1) {
		case 1: // dropped connection
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case 2: // timeout of the http.Client
			<-r.Context().Done()
		default:
			ctJSON(w, 200, json.RawMessage(ctTxJSON))
		}
	})
	c := ctNewClient(t, s, WithHTTPClient(&http.Client{Timeout: 300 * time.Millisecond}), WithRetry(RetryPolicy{MaxAttempts: 10}))
	// The token exchange shares the short timeout: get a token first so a loaded machine cannot
	// turn this test into one about authentication.
	for i := 0; c.Authenticate(ctCtx(t)) != nil; i++ {
		if i == 20 {
			t.Fatal("could not authenticate")
		}
	}
	if _, err := c.GetTransaction(ctCtx(t), "x"); err != nil {
		t.Fatal(err)
	}
	if hits.Load() < 3 {
		t.Errorf("attempts = %d, want at least 3", hits.Load())
	}
	// Every attempt failing gives a wrapped transport error that says how often it tried.
	s.setRoute(func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	_, err := c.GetTransaction(ctCtx(t), "x")
	if err == nil || !IsNetwork(err) || !strings.Contains(err.Error(), "GET /transactions/x: giving up after 10 attempts") {
		t.Errorf("err = %v", err)
	}
}

func TestContextStopsRetries(t *testing.T) {
	var cnt ctCounting
	s := newCtServer(t, cnt.route(500, `{"statusCode":500,"error":"InternalError","message":"An unexpected error occurred"}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sleeps atomic.Int32
	c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 10, BaseDelay: time.Hour, MaxDelay: time.Hour}),
		WithSleep(func(sctx context.Context, d time.Duration) error {
			if sleeps.Add(1) == 2 {
				cancel()
			}
			return sctx.Err()
		}))
	c.jitter = func(n int64) int64 { return n - 1 } // always the longest wait of the range
	_, err := c.CreatePix(ctx, &CreatePixRequest{Amount: 100, Description: "Venda"})
	if !errors.Is(err, context.Canceled) || cnt.n() != 2 {
		t.Fatalf("err = %v after %d attempts; want context.Canceled after 2", err, cnt.n())
	}
	if _, ok := IdempotencyKeyOf(err); !ok {
		t.Errorf("a cancelled create has an unknown outcome and must carry its key")
	}
	if IsNetwork(err) {
		t.Errorf("a cancellation is not a network error")
	}
	// Already cancelled: nothing is sent.
	before := cnt.n()
	if _, err := c.GetTransaction(ctx, "x"); !errors.Is(err, context.Canceled) || cnt.n() != before {
		t.Errorf("err = %v, attempts %d", err, cnt.n()-before)
	}
	// A deadline shorter than the next backoff returns the last reply instead of sleeping.
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	sleeps.Store(100)
	before = cnt.n()
	_, err = c.GetTransaction(dctx, "x")
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != 500 || cnt.n()-before != 1 || sleeps.Load() != 100 {
		t.Errorf("err = %v after %d attempts, %d sleeps", err, cnt.n()-before, sleeps.Load()-100)
	}
}

func TestRetryAfter(t *testing.T) {
	clock := newCtClock()
	cases := []struct {
		header string
		want   time.Duration
	}{
		{"2", 2 * time.Second},
		{"0", 0},
		{"3600", maxRetryAfter},
		{clock.Now().Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
		{clock.Now().Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tc := range cases {
		t.Run(tc.header, func(t *testing.T) {
			var hits atomic.Int32
			s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
				if hits.Add(1) == 1 {
					w.Header().Set("Retry-After", tc.header)
					ctJSON(w, 429, map[string]any{"statusCode": 429, "error": "TooManyRequests", "message": "slow down"})
					return
				}
				ctJSON(w, 200, json.RawMessage(ctTxJSON))
			})
			s.clock = clock
			var slept []time.Duration
			c := ctNewClient(t, s, WithSleep(func(ctx context.Context, d time.Duration) error {
				slept = append(slept, d)
				return nil
			}))
			// No short deadline: a Retry-After beyond the caller's deadline ends the call instead.
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			if _, err := c.GetTransaction(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			if len(slept) != 1 || slept[0] != tc.want {
				t.Errorf("slept %v, want [%v]", slept, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "-1", "soon", "1.5"} {
		if _, ok := parseRetryAfter(bad, clock.Now()); ok {
			t.Errorf("parseRetryAfter(%q) accepted", bad)
		}
	}
}

func TestBackoffFullJitter(t *testing.T) {
	c, err := NewClient("https://api.example.com/v2", "mp_test_x", "s",
		WithRetry(RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	var asked []int64
	c.jitter = func(n int64) int64 { asked = append(asked, n); return n - 1 } // the top of the range
	want := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
	for i, w := range want {
		if got := c.backoff(i+1, attemptResult{}); got != w*time.Millisecond {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	if got := c.backoff(200, attemptResult{}); got != time.Second {
		t.Errorf("a large attempt number overflowed: %v", got)
	}
	c.jitter = func(n int64) int64 { return 0 }
	if got := c.backoff(3, attemptResult{}); got != 0 {
		t.Errorf("full jitter reaches zero, got %v", got)
	}
	if got := c.backoff(1, attemptResult{retryAfter: 7 * time.Second, hasRetry: true}); got != 7*time.Second {
		t.Errorf("Retry-After not honoured: %v", got)
	}
	// The default jitter stays inside [0, ceiling].
	c.jitter = rand.Int64N
	for i := 0; i < 1000; i++ {
		if d := c.backoff(2, attemptResult{}); d < 0 || d > 200*time.Millisecond {
			t.Fatalf("backoff out of range: %v", d)
		}
	}
	if len(asked) == 0 || asked[0] != int64(100*time.Millisecond)+1 {
		t.Errorf("jitter asked for %v", asked)
	}
}

func TestRetryPolicyNormalized(t *testing.T) {
	cases := []struct{ in, want RetryPolicy }{
		{RetryPolicy{}, RetryPolicy{MaxAttempts: 1}},
		{RetryPolicy{MaxAttempts: -3, BaseDelay: -1, MaxDelay: -1, AttemptTimeout: -1}, RetryPolicy{MaxAttempts: 1}},
		{RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: time.Millisecond}, RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: time.Second}},
		{DefaultRetry, DefaultRetry},
	}
	for _, tc := range cases {
		if got := tc.in.normalized(); got != tc.want {
			t.Errorf("%+v.normalized() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if DefaultRetry != (RetryPolicy{MaxAttempts: 4, BaseDelay: 200 * time.Millisecond, MaxDelay: 3 * time.Second}) {
		t.Errorf("DefaultRetry = %+v", DefaultRetry)
	}
}

func TestRetryableClassification(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&Error{HTTPStatus: 500}, true},
		{&Error{HTTPStatus: 503}, true},
		{&Error{HTTPStatus: 429}, true},
		{&Error{HTTPStatus: 400}, false},
		{&Error{HTTPStatus: 422}, false},
		{&Error{HTTPStatus: 404}, false},
		{io.ErrUnexpectedEOF, true},
		{context.DeadlineExceeded, true},
		{&permanentError{err: errors.New("decode")}, false},
		{&permanentError{err: &Error{HTTPStatus: 500}, unsent: true}, false},
		{fmt.Errorf("wrapped: %w", &Error{HTTPStatus: 502}), true},
	}
	for _, tc := range cases {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestNewIdempotencyKey(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		k := NewIdempotencyKey()
		if err := validateKey(k); err != nil || len(k) != len("pixdash-")+32 || seen[k] {
			t.Fatalf("key %q: %v (duplicate %v)", k, err, seen[k])
		}
		seen[k] = true
	}
}

// TestCreatePixOutcome: the key is attached exactly when the charge may exist.
func TestCreatePixOutcome(t *testing.T) {
	cases := []struct {
		name    string
		replies []string // per attempt: "drop", "500", "400", "422", "bad-json"
		wantKey bool
	}{
		{"refused at once", []string{"400"}, false},
		{"idempotency conflict", []string{"422"}, false},
		{"dropped then refused", []string{"drop", "400"}, true},
		{"500 then refused", []string{"500", "400"}, true},
		{"created but undecodable", []string{"bad-json"}, true},
		{"dropped every time", []string{"drop", "drop", "drop"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
				i := int(hits.Add(1)) - 1
				reply := tc.replies[min(i, len(tc.replies)-1)]
				switch reply {
				case "drop":
					conn, _, _ := w.(http.Hijacker).Hijack()
					conn.Close()
				case "bad-json":
					w.WriteHeader(201)
					_, _ = io.WriteString(w, `{"id":`)
				default:
					var status int
					fmt.Sscan(reply, &status)
					ctJSON(w, status, map[string]any{"statusCode": status, "error": "X", "message": "refused"})
				}
			})
			c := ctNewClient(t, s, WithRetry(RetryPolicy{MaxAttempts: 3}))
			_, err := c.CreatePix(ctCtx(t), &CreatePixRequest{Amount: 100, Description: "Venda"}, WithIdempotencyKey("outcome-key-1"))
			if err == nil {
				t.Fatal("no error")
			}
			key, ok := IdempotencyKeyOf(err)
			if ok != tc.wantKey || (ok && key != "outcome-key-1") {
				t.Errorf("IdempotencyKeyOf = %q, %v; want key %v (err %v)", key, ok, tc.wantKey, err)
			}
			if !tc.wantKey {
				if _, direct := err.(*Error); !direct {
					t.Errorf("a refusal is returned as is, got %T", err)
				}
			}
		})
	}
	// Authentication failing means nothing was sent: no key.
	s := newCtServer(t, nil)
	s.authFn = func(w http.ResponseWriter, r *http.Request) bool {
		ctJSON(w, 401, map[string]any{"error": "Unauthorized", "message": "Invalid credentials"})
		return true
	}
	_, err := ctNewClient(t, s).CreatePix(ctCtx(t), &CreatePixRequest{Amount: 100, Description: "Venda"})
	if _, ok := IdempotencyKeyOf(err); ok || !errors.Is(err, ErrUnauthorized) {
		t.Errorf("auth failure: %v", err)
	}
}
