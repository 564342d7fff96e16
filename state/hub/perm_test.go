package hub_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/hub"
)

// TestServerEnforcesPermissions runs the embedded server with the example configuration
// (testdata/hub-accounts.conf) and checks that the server, not the client, keeps each counter
// to its own profile's subjects: the counter of the main wallet gets that wallet's events
// through its consumer, and the server refuses it a consumer on another wallet, on the whole
// stream, on the production stream or under another name, and a plain subscription to the
// events; a user of another profile (account) finds no stream of this one; an anonymous client
// is refused.
func TestServerEnforcesPermissions(t *testing.T) {
	ctx := context.Background()
	srv, err := hub.StartServer(hub.ServerOptions{ConfigFile: "testdata/hub-accounts.conf", Listen: "127.0.0.1:0", StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	link := func(user, password string) hub.Link {
		return hub.Link{URL: srv.URL(), Name: user, User: user, Password: api.Secret(password), InboxPrefix: "_INBOX_" + user}
	}
	// The hub creates the stream and publishes events of two wallets.
	_, hjs, err := link("hub", "hub-change-me").JetStream(ctx, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.EnsureStream(ctx, hjs, api.Sandbox, hub.Limits{}); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 700*time.Millisecond)
	defer cancelShort()
	if err := hub.EnsureStream(short, hjs, api.Production, hub.Limits{}); err == nil {
		t.Error("the sandbox hub user created the production stream")
	}
	pub, err := hub.NewPublisher(hjs, api.Sandbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct{ id, wallet string }{{"evt-p1", "principal"}, {"evt-l1", "loja-2"}, {"evt-p2", "principal"}} {
		if err := pub.Accept(eventBody(e.id, e.wallet, api.Sandbox)); err != nil {
			t.Fatal(err)
		}
	}

	// The main wallet's counter, as the server lets it.
	errs := make(chan error, 16)
	cnc, cjs, err := link("caixa1", "caixa1-change-me").JetStream(ctx, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case errs <- err:
		default:
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer cnc.Close()
	store := state.OpenMemory()
	defer store.Close()
	intake, _ := store.OpenIntake()
	c, err := hub.NewCounter(cjs, hub.CounterOptions{Name: "caixa1", Env: api.Sandbox, Wallets: []string{"principal"}, Intake: intake, Charges: store})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(rctx) }()
	rig := &counterRig{name: "caixa1", store: store, counter: c, cancel: stop, done: done}
	defer rig.stop()
	waitEvents(t, store, 2, 20*time.Second)
	waitIdle(t, rig, 10*time.Second)
	storedOnce(t, "caixa1", store, map[string]bool{"evt-p1": true, "evt-p2": true})
	if err := c.PublishCharge(ctx, hub.ChargeNote{ID: "tx-1", Amount: 100, Wallet: "principal"}); err != nil {
		t.Errorf("announcing its own wallet's charge: %v", err)
	}
	short2, cancelShort2 := context.WithTimeout(ctx, 700*time.Millisecond)
	defer cancelShort2()
	if err := c.PublishCharge(short2, hub.ChargeNote{ID: "tx-2", Amount: 100, Wallet: "loja-2"}); err == nil {
		t.Error("the server let caixa1 announce a charge of another wallet")
	}

	// What the server refuses it.
	refused := []struct {
		what   string
		stream string
		cfg    jetstream.ConsumerConfig
	}{
		{"a consumer on another wallet", hub.StreamName(api.Sandbox), jetstream.ConsumerConfig{Durable: "counter-caixa1", FilterSubject: hub.WalletFilter(api.Sandbox, "loja-2"), AckPolicy: jetstream.AckExplicitPolicy}},
		{"a consumer on the whole stream", hub.StreamName(api.Sandbox), jetstream.ConsumerConfig{Durable: "counter-caixa1", FilterSubject: hub.EnvFilter(api.Sandbox), AckPolicy: jetstream.AckExplicitPolicy}},
		{"a consumer of two wallets", hub.StreamName(api.Sandbox), jetstream.ConsumerConfig{Durable: "counter-caixa1", FilterSubjects: []string{hub.WalletFilter(api.Sandbox, "principal"), hub.WalletFilter(api.Sandbox, "loja-2")}, AckPolicy: jetstream.AckExplicitPolicy}},
		{"another counter's consumer", hub.StreamName(api.Sandbox), jetstream.ConsumerConfig{Durable: "counter-dono", FilterSubject: hub.WalletFilter(api.Sandbox, "principal"), AckPolicy: jetstream.AckExplicitPolicy}},
		{"a consumer on the production stream", hub.StreamName(api.Production), jetstream.ConsumerConfig{Durable: "counter-caixa1", FilterSubject: hub.WalletFilter(api.Production, "principal"), AckPolicy: jetstream.AckExplicitPolicy}},
	}
	for _, r := range refused {
		cctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
		_, err := cjs.CreateOrUpdateConsumer(cctx, r.stream, r.cfg)
		cancel()
		if err == nil {
			t.Errorf("the server let caixa1 create %s", r.what)
		}
	}
	if _, err := cnc.SubscribeSync("pix.sandbox.>"); err != nil {
		t.Fatal(err)
	}
	if err := waitPermissionError(errs, "pix.sandbox.>"); err != nil {
		t.Errorf("a plain subscription to the events: %v", err)
	}

	// Another profile's user: its account holds no stream of this profile.
	onc, ojs, err := link("outra", "outra-change-me").JetStream(ctx, nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer onc.Close()
	if _, err := ojs.CreateOrUpdateConsumer(ctx, hub.StreamName(api.Sandbox), jetstream.ConsumerConfig{Durable: "spy", AckPolicy: jetstream.AckExplicitPolicy}); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("another profile's user reading this profile's stream: %v, want stream not found", err)
	}
	if _, err := (hub.Link{URL: srv.URL()}).Dial(ctx); err == nil {
		t.Error("the server took an anonymous client")
	}
}

// waitPermissionError waits for the server's permissions violation on subject.
func waitPermissionError(errs <-chan error, subject string) error {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case err := <-errs:
			if errors.Is(err, nats.ErrPermissionViolation) || strings.Contains(strings.ToLower(err.Error()), "permissions violation") && strings.Contains(err.Error(), subject) {
				return nil
			}
		case <-timeout:
			return errors.New("the server sent no permissions violation")
		}
	}
}
