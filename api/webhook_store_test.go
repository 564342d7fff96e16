package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// envelopeAt is a signed-able envelope dated at (its own "timestamp").
func envelopeAt(id string, at time.Time) []byte {
	return fmt.Appendf(nil, `{"event":"payment_completed","eventId":%q,"timestamp":%q,"data":{"id":"tx-%s","status":"completed","amount":10.50}}`,
		id, at.UTC().Format(time.RFC3339Nano), id)
}

// TestReceiverChecksBodyTimestampWithoutHeader: without X-Pague-Timestamp, the body's own
// timestamp is held to the window; a delivery dated 2020 is refused (issue 22 item 5).
func TestReceiverChecksBodyTimestampWithoutHeader(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 31, 7, 0, time.UTC)
	cases := []struct {
		name  string
		body  []byte
		want  int
		stale bool
	}{
		{"dated 2020", envelopeAt("e1", time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)), 400, true},
		{"six minutes old", envelopeAt("e2", now.Add(-6*time.Minute)), 400, true},
		{"ten minutes ahead", envelopeAt("e3", now.Add(10*time.Minute)), 400, true},
		{"fresh", envelopeAt("e4", now.Add(-time.Minute)), 200, false},
		{"unreadable", []byte(`{"event":"payment_completed","eventId":"e5","timestamp":"yesterday","data":{"id":"tx"}}`), 400, true},
		{"no timestamp at all", webhookBody("e6"), 200, false},
		{"null timestamp", []byte(`{"event":"payment_completed","eventId":"e7","timestamp":null,"data":{"id":"tx"}}`), 200, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReceiver(testWebhookSecret, WithReceiverClock(func() time.Time { return now }))
			code, text := deliverWebhook(r, tc.body, Sign(tc.body, testWebhookSecret))
			if code != tc.want {
				t.Fatalf("status %d (%s), want %d", code, strings.TrimSpace(text), tc.want)
			}
			st := r.Stats()
			if (st.Stale == 1) != tc.stale || (st.Accepted == 1) != (tc.want == 200) {
				t.Errorf("stats %+v", st)
			}
			if tc.stale && (st.LastRejection.Reason != RejectTimestamp || !strings.Contains(text, "timestamp")) {
				t.Errorf("rejection %+v, text %q", st.LastRejection, text)
			}
		})
	}
}

// TestCheckTimestampFarAway: a timestamp centuries away prints its date, never an overflowed
// duration such as "-2562047h47m16s ahead".
func TestCheckTimestampFarAway(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 31, 7, 0, time.UTC)
	for _, v := range []string{"9223372036854775807", "99999999999999", "100000000000"} {
		err := CheckTimestamp(v, now, 5*time.Minute)
		if !errors.Is(err, ErrTimestampOutside) {
			t.Fatalf("%s: %v", v, err)
		}
		if msg := err.Error(); strings.Contains(msg, "-") && strings.Contains(msg, "h") && strings.Contains(msg, "2562047") {
			t.Errorf("%s: overflowed duration: %s", v, msg)
		}
		t.Log(err)
	}
	if err := CheckTimestamp("9223372036854775807", now, 5*time.Minute); !strings.Contains(err.Error(), "ahead") || strings.Contains(err.Error(), "2562047h") {
		t.Errorf("far future: %v", err)
	}
	if err := CheckTimestamp("1", now, 5*time.Minute); !strings.Contains(err.Error(), "1970-01-01") && !strings.Contains(err.Error(), "ago") {
		t.Errorf("far past: %v", err)
	}
}

// TestReceiverKeepsRejectionReasons: each refused delivery is kept with its time, reason and
// sender (never the body), newest first, and logged (issue 21 item 18).
func TestReceiverKeepsRejectionReasons(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 2, 0, 0, time.UTC)
	var logBuf bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logBuf, &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := NewReceiver(testWebhookSecret, WithReceiverClock(func() time.Time { return now }), WithMaxBody(512), WithServerLog(logger))

	body := webhookBody("r1")
	deliver := func(body []byte, sig string, hdr map[string]string) int {
		req := httptest.NewRequest(http.MethodPost, WebhookPath, bytes.NewReader(body))
		req.RemoteAddr = "203.0.113.9:4242"
		req.Header.Set(PagueSignatureHeader, sig)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		return rec.Code
	}
	if c := deliver(body, Sign(body, "whsec_wrong"), nil); c != 401 {
		t.Fatalf("forged: %d", c)
	}
	if c := deliver(body, Sign(body, testWebhookSecret), map[string]string{TimestampHeader: fmt.Sprint(now.Add(-time.Hour).UnixMilli())}); c != 400 {
		t.Fatalf("stale: %d", c)
	}
	big := bytes.Repeat([]byte("x"), 600)
	if c := deliver(big, Sign(big, testWebhookSecret), nil); c != 413 {
		t.Fatalf("large: %d", c)
	}
	notEvent := []byte(`{"hello":1}`)
	if c := deliver(notEvent, Sign(notEvent, testWebhookSecret), nil); c != 400 {
		t.Fatalf("not an event: %d", c)
	}
	got := r.Rejections()
	want := []RejectReason{RejectMalformed, RejectTooLarge, RejectTimestamp, RejectSignature}
	if len(got) != len(want) {
		t.Fatalf("rejections %+v", got)
	}
	for i, x := range got {
		if x.Reason != want[i] || !x.At.Equal(now) || x.Remote != "203.0.113.9:4242" || x.Detail == "" {
			t.Errorf("rejection %d: %+v, want reason %v", i, x, want[i])
		}
		if strings.Contains(x.Detail, string(testWebhookSecret)) || strings.Contains(x.Detail, "payment_completed") {
			t.Errorf("rejection %d holds a secret or the body: %q", i, x.Detail)
		}
	}
	if st := r.Stats(); st.LastRejection != got[0] || st.Rejected != 1 {
		t.Errorf("stats %+v", st)
	}
	logMu.Lock()
	logged := logBuf.String()
	logMu.Unlock()
	for _, s := range []string{"reason=\"bad signature\"", "reason=\"timestamp outside the window\"", "reason=\"too large\"", "reason=\"not an event\"", "203.0.113.9"} {
		if !strings.Contains(logged, s) {
			t.Errorf("log lacks %s:\n%s", s, logged)
		}
	}
	if strings.Contains(logged, string(testWebhookSecret)) || strings.Contains(logged, "tx-r1") {
		t.Errorf("log holds a secret or the body:\n%s", logged)
	}
	// The ring is bounded.
	for range 2 * rejectionLog {
		deliver(body, "sha256=00", nil)
	}
	if n := len(r.Rejections()); n != rejectionLog {
		t.Errorf("%d rejections kept", n)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// slowClient opens a connection from local, sends a delivery's headers announcing a body and
// then one body byte every gap until stop or the connection fails.
func slowClient(addr string, local net.IP, gap time.Duration, stop <-chan struct{}) {
	d := net.Dialer{Timeout: time.Second, LocalAddr: &net.TCPAddr{IP: local}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n", WebhookPath); err != nil {
		return
	}
	t := time.NewTicker(gap)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if _, err := c.Write([]byte("{")); err != nil {
				return
			}
		}
	}
}

// TestReceiverSurvivesSlowBodyFlood: waves of connections that send their body one byte at a
// time (from the sender's own address and from another) cannot keep signed deliveries out:
// the body deadline, the per-address cap and evicting stalled readers keep sockets for them
// (issue 22 item 13). Before, every socket was held by a trickling peer for the whole read
// timeout and the deliveries were refused.
func TestReceiverSurvivesSlowBodyFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("slow-body flood")
	}
	const limit, perIP = 32, 16
	r := NewReceiver(testWebhookSecret, WithMaxConns(limit), WithMaxConnsPerIP(perIP), WithBodyTimeout(2*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, err := r.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), WebhookPath)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var attackers atomic.Int64
	wg.Add(1)
	go func() { // waves of 60 trickling connections every 400 ms, half from 127.0.0.2
		defer wg.Done()
		tick := time.NewTicker(400 * time.Millisecond)
		defer tick.Stop()
		for {
			for i := range 60 {
				ip := net.IPv4(127, 0, 0, 1)
				if i%2 == 1 {
					ip = net.IPv4(127, 0, 0, 2)
				}
				wg.Add(1)
				attackers.Add(1)
				go func() { defer wg.Done(); slowClient(addr, ip, 200*time.Millisecond, stop) }()
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	time.Sleep(time.Second) // the flood is in full swing

	// Real deliveries, each retried twice after a refusal as the service does.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	const deliveries = 20
	landed := 0
	for i := range deliveries {
		body := webhookBody(fmt.Sprintf("real-%d", i))
		for attempt := range 3 {
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set(PagueSignatureHeader, Sign(body, testWebhookSecret))
			resp, err := client.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					landed++
					break
				}
			}
			t.Logf("delivery %d attempt %d: %v", i, attempt, err)
			time.Sleep(300 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	st := r.Stats()
	t.Logf("%d slow connections; stats %+v", attackers.Load(), st)
	if landed != deliveries {
		t.Fatalf("%d of %d signed deliveries landed during the slow-body flood", landed, deliveries)
	}
	if st.Evicted == 0 {
		t.Errorf("no stalled connection was evicted: %+v", st)
	}
}

// TestConnGuardPerAddressCap: one address holds at most its cap; at it, its own quiet or
// stalled connection makes room, never another address's, and a connection past its body is
// never evicted.
func TestConnGuardPerAddressCap(t *testing.T) {
	r := NewReceiver(testWebhookSecret)
	g := newConnGuard(nil, 10, 2, &r.connEvicted, &r.connRefused)
	a1, a2, a3 := addrConn("10.0.0.1"), addrConn("10.0.0.1"), addrConn("10.0.0.1")
	b1 := addrConn("10.0.0.2")
	for _, c := range []net.Conn{a1, a2, b1} {
		if !g.admit(c) {
			t.Fatal("room")
		}
	}
	g.connState(a1, http.StateActive)
	g.connState(a2, http.StateActive)
	g.connState(b1, http.StateActive)
	if g.admit(a3) {
		t.Fatal("a third connection from one address while its two are fresh")
	}
	// a2 is past its body (being served): never evicted; a1 stalls.
	bodyRead(g.connContext(context.Background(), a2))
	time.Sleep(stalledAfter + 50*time.Millisecond)
	if !g.admit(a3) {
		t.Fatal("the stalled reader was not evicted")
	}
	if !a1.(*fakeConn).closed.Load() || a2.(*fakeConn).closed.Load() || b1.(*fakeConn).closed.Load() {
		t.Errorf("wrong victim: a1 %v a2 %v b1 %v", a1.(*fakeConn).closed.Load(), a2.(*fakeConn).closed.Load(), b1.(*fakeConn).closed.Load())
	}
	if g.openFrom("10.0.0.1") != 2 || g.openFrom("10.0.0.2") != 1 || g.open() != 3 {
		t.Errorf("open %d: %d + %d", g.open(), g.openFrom("10.0.0.1"), g.openFrom("10.0.0.2"))
	}
}

// fakeConn is a connection with a chosen remote address that records its Close.
type fakeConn struct {
	net.Conn
	remote net.Addr
	closed atomic.Bool
}

func addrConn(ip string) net.Conn {
	c, _ := net.Pipe()
	return &fakeConn{Conn: c, remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1000}}
}
func (f *fakeConn) RemoteAddr() net.Addr { return f.remote }
func (f *fakeConn) Close() error         { f.closed.Store(true); return f.Conn.Close() }

// counters is st without its last rejection, for comparing counts.
func counters(st ReceiverStats) ReceiverStats {
	st.LastRejection = Rejection{}
	return st
}
