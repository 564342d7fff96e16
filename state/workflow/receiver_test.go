package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// TestReceiverOptionsDefaults: a webhook without signature_header or tolerance gets the
// receiver's defaults; each setting adds its option, after the caller's.
func TestReceiverOptionsDefaults(t *testing.T) {
	if n := len((*Webhook)(nil).receiverOptions()); n != 0 {
		t.Fatalf("%d options without a webhook", n)
	}
	if n := len((&Webhook{Listen: "127.0.0.1:0"}).receiverOptions()); n != 0 {
		t.Fatalf("%d options for an empty webhook", n)
	}
	w := &Webhook{SignatureHeader: "X-A", Tolerance: time.Minute, Options: []api.ReceiverOption{api.WithMaxConns(4)}}
	if n := len(w.receiverOptions(api.WithSink(nil))); n != 4 {
		t.Fatalf("%d options, want 4", n)
	}
}

// deliver posts a signed payment event to url and returns the status code.
func deliver(t *testing.T, url, eventID string, secret api.Secret) int {
	t.Helper()
	body := []byte(`{"event":"payment_completed","eventId":"` + eventID + `","timestamp":"` + time.Now().UTC().Format(time.RFC3339) + `","data":{"id":"tx-1","status":"completed","amount":12.34}}`)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(api.PagueSignatureHeader, api.Sign(body, secret))
	req.Header.Set(api.TimestampHeader, fmt.Sprint(time.Now().UnixMilli()))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("delivery to %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// offline is a client for a service nobody runs: the receiver tests never call it.
func offline(t *testing.T) *api.Client {
	t.Helper()
	c, err := api.NewClient("http://127.0.0.1:9/v2", "mp_test_receiver", "unused")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Two sessions on one profile's database: the second does not receive while the first does,
// and takes the receiver over, on the same address, once the first closed.
func TestReceiverTakeOver(t *testing.T) {
	const secret = api.Secret("whsec-takeover-test")
	dir, listen := t.TempDir(), freeAddr(t)
	params := Params{Profile: "loja", Client: offline(t), StateDir: dir, Webhook: &Webhook{Listen: listen, Secret: secret}}
	first, err := Open(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Open(context.Background(), params)
	if err != nil {
		first.Close()
		t.Fatal(err)
	}
	defer second.Close()
	if first.WebhookURL != "http://"+listen+api.WebhookPath || first.TakeOver != nil || first.ReceiverElsewhere {
		t.Fatalf("first: %+v", first)
	}
	if !second.ReceiverElsewhere || second.TakeOver == nil || second.Intake != nil || second.Notice == "" {
		t.Fatalf("second: %+v", second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := second.TakeOver(ctx); !errors.Is(err, state.ErrReceiverBusy) || r != nil {
		t.Fatalf("take-over while the first receives: %v, %v", r, err)
	}
	first.Close()
	r, err := second.TakeOver(ctx)
	if err != nil || r.URL != first.WebhookURL {
		t.Fatalf("take-over after the first closed: %+v, %v", r, err)
	}
	if code := deliver(t, r.URL, "evt-taken", secret); code != http.StatusOK {
		t.Fatalf("delivery: %d", code)
	}
	if _, ok, err := second.Store.Event(ctx, "evt-taken"); !ok || err != nil {
		t.Fatalf("answered 200 but not stored: %v, %v", ok, err)
	}
}

// TestReceiverTakeOverWaitsForThePort: a receiver whose address is still held retries the
// listen instead of failing, and releases the receiver lock when it gives up.
func TestReceiverTakeOverWaitsForThePort(t *testing.T) {
	const secret = api.Secret("whsec-takeover-test")
	dir, listen := t.TempDir(), freeAddr(t)
	held, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(700*time.Millisecond, func() { held.Close() })
	s, err := Open(context.Background(), Params{Profile: "loja", Client: offline(t), StateDir: dir, Webhook: &Webhook{Listen: listen, Secret: secret}})
	if err != nil {
		t.Fatalf("open while the port is held for 700 ms: %v", err)
	}
	if code := deliver(t, s.WebhookURL, "evt-after-wait", secret); code != http.StatusOK {
		t.Fatalf("delivery: %d", code)
	}
	s.Close()

	// Held for good: the start gives up (ctx) and the receiver lock is released again.
	held2, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	defer held2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	store, err := state.Open(context.Background(), dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	r := newReceiver(store, "loja", &Webhook{Listen: listen, Secret: secret}, slogDiscard())
	defer r.close()
	if _, err := r.start(ctx); err == nil || errors.Is(err, state.ErrReceiverBusy) {
		t.Fatalf("start on a held port: %v", err)
	}
	// The lock is per open file: a second intake (even in this process) gets it only if the
	// failed start released it.
	in, err := store.OpenIntake()
	if err != nil {
		t.Fatalf("the receiver lock stayed held after a failed start: %v", err)
	}
	in.Close()
}

func slogDiscard() *slog.Logger { return slog.New(slog.DiscardHandler) }
