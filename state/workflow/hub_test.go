package workflow

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/hub"
)

// TestHubAgainstEmulator is the walk-through as a test: one hub (the profile's webhook
// receiver, publishing to an embedded NATS server) and two counters (sessions without a
// receiver of their own, linked with AttachHub) against the emulator. A charge created at
// counter A is pending at counter B within a second; the emulator pays it, its webhook reaches
// the hub, and both counters record the event and read it back from the service: paid in both.
func TestHubAgainstEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	runEmulator(t, filepath.Join(dir, "sandbox.db"), addr)
	newClient := func() *api.Client {
		c, err := api.NewClient("http://"+addr+sandbox.Prefix, sandbox.DemoClientID, sandbox.DemoSecret)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	srv, err := hub.StartServer(hub.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()

	// The hub: the profile's receiver, publishing what it committed.
	nc, js, err := hub.Link{URL: srv.URL()}.JetStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := hub.EnsureStream(ctx, js, api.Sandbox, hub.Limits{}); err != nil {
		t.Fatal(err)
	}
	pub, err := hub.NewPublisher(js, api.Sandbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	const secret = api.Secret("hub-webhook-secret-0001")
	hs, err := Open(ctx, Params{Profile: "loja", Env: api.Sandbox, Client: newClient(), StateDir: filepath.Join(dir, "hub"),
		Webhook: &Webhook{Listen: "127.0.0.1:0", Secret: secret, Forward: pub.Wrap}})
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	ctl := sandbox.NewControl(hs.Client)
	if _, err := ctl.RegisterWebhookSecret(ctx, hs.WebhookURL, "", secret); err != nil {
		t.Fatal(err)
	}

	// Two counters: no receiver, the hub link instead.
	counter := func(name string) *Session {
		s, err := Open(ctx, Params{Profile: "loja", Env: api.Sandbox, Client: newClient(), StateDir: filepath.Join(dir, name)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		if _, err := AttachHub(ctx, s, HubLink{Link: hub.Link{URL: srv.URL()}, Counter: name, Wallets: []string{api.WalletPrincipal}}, nil); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := counter("caixa-a"), counter("caixa-b")

	r := CreateCharge(ctx, a.Client, a.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 1250, Description: "Café e pão"}}, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	id := r.Charge.ID
	created := time.Now()
	var atB state.Charge
	for {
		c, ok, err := b.Store.Charge(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			atB = c
			break
		}
		if time.Since(created) > time.Second {
			t.Fatalf("charge %s created at counter A is not at counter B after a second", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if atB.Status != api.StatusPending || atB.Amount != 1250 || atB.Counter != "caixa-a" || atB.Source != state.SourceHub {
		t.Errorf("at counter B: %+v", atB)
	}
	t.Logf("pending at counter B %s after its creation at A", time.Since(created).Round(time.Millisecond))

	if err := ctl.Pay(ctx, id, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Session{a, b} {
		readBackPayment(ctx, t, s, id)
		c, _, err := s.Store.Charge(ctx, id)
		if err != nil || c.Status != api.StatusCompleted {
			t.Errorf("counter %s: charge %s is %q (%v), want paid", s.Hub.Counter(), id, c.Status, err)
		}
		if st := s.Hub.Status(ctx); st.State != hub.StateConnected || st.Committed == 0 {
			t.Errorf("counter %s link: %+v", s.Hub.Counter(), st)
		}
	}
	if pub.Stats().Published == 0 {
		t.Errorf("the hub published nothing: %+v", pub.Stats())
	}
}

// readBackPayment waits until s's store holds the payment_completed of charge id and reads it
// back from the service, as the engine does with every recorded payment event.
func readBackPayment(ctx context.Context, t *testing.T, s *Session, id string) {
	t.Helper()
	after := int64(0)
	for {
		b, ok := WaitEvents(ctx, s.Store, after, 100)
		if !ok || b.Err != nil {
			t.Fatalf("counter %s: no payment_completed for %s: %+v", s.Hub.Counter(), id, b)
		}
		after = b.Last
		for _, e := range b.Events {
			if e.Kind == api.EventPaymentCompleted && e.TransactionID == id {
				conf, err := ConfirmPayment(ctx, s.Client, s.Store, e)
				if err != nil || conf.Verdict != state.VerdictConfirmed {
					t.Fatalf("counter %s: read-back %+v, %v", s.Hub.Counter(), conf, err)
				}
				return
			}
		}
	}
}

// TestAttachHubOncePerProfile: a second window of a counter's profile does not consume too (the
// first holds the profile's receiver lock); it is told so and shows what the first commits.
func TestAttachHubOncePerProfile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv, err := hub.StartServer(hub.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	open := func() *Session {
		s, err := Open(ctx, Params{Profile: "caixa", Env: api.Sandbox, Client: offline(t), StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	first, second := open(), open()
	link := HubLink{Link: hub.Link{URL: srv.URL()}, Counter: "caixa"}
	if _, err := AttachHub(ctx, first, link, nil); err != nil {
		t.Fatal(err)
	}
	if h, err := AttachHub(ctx, second, link, nil); !errors.Is(err, ErrHubElsewhere) || h != nil || second.Hub != nil {
		t.Fatalf("second window: %v, %v", h, err)
	}
	first.Close() // releases the lock: the second window may link now
	if _, err := AttachHub(ctx, second, link, nil); err != nil {
		t.Fatalf("after the first window closed: %v", err)
	}
}
