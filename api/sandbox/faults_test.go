package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"pixdash/api"
)

// The fault bursts show the client's retry paths against the real server: a reply dropped after
// the charge was created is retried with the same Idempotency-Key and gives ONE charge; a 429
// burst is waited out as Retry-After says; a 5xx burst on a read is retried.
func TestFaultBurstsAndTheClientsRetries(t *testing.T) {
	e := newEnv(t)
	k := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	var waits []time.Duration
	var mu sync.Mutex
	c := e.client("mp_test_full", api.WithSleep(func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}))

	t.Run("dropped reply after commit: one charge", func(t *testing.T) {
		n := e.charges()
		if err := k.SetFaults(ctx, Faults{DropReplyAfterCommit: 1}); err != nil {
			t.Fatal(err)
		}
		pc, err := c.CreatePix(ctx, &api.CreatePixRequest{Description: "Uma só", Amount: 4321})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if got := e.charges() - n; got != 1 {
			t.Fatalf("%d charges for one create whose first reply was lost", got)
		}
		if tx := e.getTx(pc.ID, nil); tx.Amount != 4321 {
			t.Fatalf("charge %+v", tx)
		}
		if f, _ := k.Faults(ctx); f.DropReplyAfterCommit != 0 {
			t.Fatalf("burst left: %+v", f)
		}
	})
	t.Run("429 burst: Retry-After honoured", func(t *testing.T) {
		mu.Lock()
		waits = nil
		mu.Unlock()
		if err := k.SetFaults(ctx, Faults{Status429Burst: 2, RetryAfterSeconds: 7}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreatePix(ctx, &api.CreatePixRequest{Description: "Depois", Amount: 100}); err != nil {
			t.Fatalf("create after a 429 burst: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(waits) != 2 || waits[0] < 7*time.Second || waits[1] < 7*time.Second {
			t.Fatalf("waits %v, want two of at least the 7 s Retry-After", waits)
		}
	})
	t.Run("5xx burst on a read: retried", func(t *testing.T) {
		pc := e.createPix(map[string]any{"amount": 10, "description": "Lida"}, nil)
		if err := k.SetFaults(ctx, Faults{Status5xxBurst: 2}); err != nil {
			t.Fatal(err)
		}
		if tx, err := c.GetTransaction(ctx, pc.ID); err != nil || tx.ID != pc.ID {
			t.Fatalf("read after a 5xx burst: %v", err)
		}
	})
	t.Run("429 reply shape", func(t *testing.T) {
		if err := k.SetFaults(ctx, Faults{Status429Burst: 1}); err != nil {
			t.Fatal(err)
		}
		r := e.full(http.MethodGet, "/account", nil, nil)
		m := expectError(t, r, http.StatusTooManyRequests, kindTooManyRequests, "Too many requests, try again later")
		if r.header.Get("Retry-After") != "1" || m["traceId"] == "" {
			t.Fatalf("429: %v %v", r.header, m)
		}
	})
	t.Run("bad values refused", func(t *testing.T) {
		for _, body := range []map[string]any{{"status429Burst": -1}, {"redeliveryStorm": maxFaultCount + 1}, {"retryAfterSeconds": 3601}} {
			expectError(t, e.full(http.MethodPut, "/_sandbox/faults", body, nil), http.StatusBadRequest, api.KindBadRequest, "")
		}
	})
}

// A redelivery storm sends each delivered event again, with the same eventId and body; out of
// order sends an endpoint's waiting events newest first.
func TestFaultRedeliveryStormAndOutOfOrder(t *testing.T) {
	e := newEnv(t)
	k := NewControl(e.client("mp_test_full"))
	ctx := context.Background()
	h := newHook(t)
	e.register("mp_test_full", h, "")
	if err := k.SetFaults(ctx, Faults{RedeliveryStorm: 3}); err != nil {
		t.Fatal(err)
	}
	pc := e.createPix(map[string]any{"amount": 10, "description": "Tempestade"}, nil)
	e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
	first, _ := h.nextEvent(t)
	for range 3 {
		ev, _ := h.nextEvent(t)
		if ev.EventID != first.EventID || ev.Kind != first.Kind {
			t.Fatalf("storm copy %+v, first %+v", ev, first)
		}
	}
	ds, _ := k.Deliveries(ctx)
	if len(ds) != 4 || !ds[3].Redelivery {
		t.Fatalf("deliveries %+v", ds)
	}

	// Out of order: hold the endpoint on a first event while three more wait, then release.
	gate := make(chan struct{})
	var mu sync.Mutex
	var order []string
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := api.DecodeEvent(readAll(r))
		if err == nil {
			mu.Lock()
			order = append(order, ev.ID)
			first := len(order) == 1
			mu.Unlock()
			if first {
				<-gate
			}
		}
	}))
	defer slow.Close()
	e2 := newEnv(t)
	k2 := NewControl(e2.client("mp_test_full"))
	if r := e2.full(http.MethodPost, "/_sandbox/webhook-endpoints", map[string]any{"url": slow.URL + "/hook"}, nil); r.status != http.StatusCreated {
		t.Fatal(r.status)
	}
	if err := k2.SetFaults(ctx, Faults{OutOfOrder: true}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 4 {
		pc := e2.createPix(map[string]any{"amount": 10 + i, "description": "Ordem"}, nil)
		ids = append(ids, pc.ID)
		e2.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", map[string]any{}, nil)
		if i == 0 {
			eventually(t, "the first event in flight", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 1 })
		}
	}
	close(gate)
	eventually(t, "all four events", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 4 })
	mu.Lock()
	defer mu.Unlock()
	want := []string{ids[0], ids[3], ids[2], ids[1]}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}

func readAll(r *http.Request) []byte {
	b := make([]byte, 0, 1024)
	buf := make([]byte, 512)
	for {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			return b
		}
	}
}

// Fixture keys set the faults from the start.
func TestFixtureFaults(t *testing.T) {
	fx, err := ParseFixture([]byte(testFixtureTOML + "\n[faults]\nstatus_429_burst = 2\nretry_after_seconds = 3\nout_of_order = true\nlatency_ms = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvFixture(t, fx)
	f, err := NewControl(e.client("mp_test_full")).Faults(context.Background())
	if err != nil || f.Status429Burst != 2 || f.RetryAfterSeconds != 3 || !f.OutOfOrder || f.LatencyMs != 1 {
		t.Fatalf("faults %+v, %v", f, err)
	}
	if _, err := ParseFixture([]byte(testFixtureTOML + "\n[faults]\nerror_500 = 2\n")); err == nil {
		t.Fatal("a probability of 2 was accepted")
	}
}
