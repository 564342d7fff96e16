package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReceiverSurvivesIdleFlood: thousands of connections that never send a request, and
// keep-alives left idle, cannot keep a signed delivery out; the receiver holds at most its cap.
func TestReceiverSurvivesIdleFlood(t *testing.T) {
	const limit, flood = 32, 2000
	r := NewReceiver(testWebhookSecret, WithMaxConns(limit), WithServerLog(slog.New(slog.DiscardHandler)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, err := r.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), WebhookPath)

	// Idle keep-alives: a request each, then silence.
	idle := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100, DisableCompression: true}}
	for i := range 40 {
		body := webhookBody("idle-" + string(rune('a'+i%26)) + string(rune('a'+i/26)))
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set(PagueSignatureHeader, Sign(body, testWebhookSecret))
		resp, err := idle.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	// Connections that never send anything.
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}

	body := webhookBody("legit-after-flood")
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set(PagueSignatureHeader, strings.TrimPrefix(Sign(body, testWebhookSecret), "sha256="))
	start := time.Now()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("the signed delivery did not land during the flood: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	st := r.Stats()
	if st.Accepted != 41 || st.Evicted < flood-limit {
		t.Errorf("stats %+v after %s", st, time.Since(start))
	}
	// The idle keep-alives were evicted too: the client reconnects on its next request.
	// One deadline for all: an evicted connection reads EOF as soon as its FIN arrived (later on
	// a loaded machine), a held one waits until the deadline.
	evicted, deadline := 0, time.Now().Add(500*time.Millisecond)
	for _, c := range conns {
		_ = c.SetReadDeadline(deadline)
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			evicted++
		}
	}
	if held := flood - evicted; held > limit {
		t.Errorf("%d flood connections still held, cap %d", held, limit)
	}
}

// TestConnGuardNeverEvictsBusy: when every held connection is serving a request, a new
// connection is closed instead of cutting a delivery in progress.
func TestConnGuardNeverEvictsBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := NewReceiver(testWebhookSecret)
	g := newConnGuard(ln, 2, 2, &r.connEvicted, &r.connRefused)
	a, b, c := pipeConn(), pipeConn(), pipeConn()
	if !g.admit(a) || !g.admit(b) {
		t.Fatal("room for two")
	}
	g.connState(a, http.StateActive)
	g.connState(b, http.StateActive)
	if g.admit(c) {
		t.Fatal("admitted a third while both are busy")
	}
	g.connState(b, http.StateIdle)
	if !g.admit(c) || g.open() != 2 || r.connEvicted.Load() != 1 {
		t.Fatalf("open %d, evicted %d", g.open(), r.connEvicted.Load())
	}
	g.connState(a, http.StateClosed)
	if g.open() != 1 {
		t.Fatalf("open %d after close", g.open())
	}
}

func pipeConn() net.Conn { c, _ := net.Pipe(); return c }
