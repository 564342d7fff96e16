package ui

import (
	"context"
	"errors"
	"fmt"
	"net"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// Demo credential of the built-in fixture used by demo mode.
const (
	DemoClientID = "mp_test_demo_full"
	demoSecret   = api.Secret("demo-full-secret")
)

// DemoOptions tunes the in-process emulator behind demo mode (tests pass a fake clock).
type DemoOptions struct {
	// ClientID and Secret pick another fixture credential (default: the demo full-access one).
	ClientID      string
	Secret        api.Secret
	Fixture       *sandbox.Fixture
	ServerOptions []sandbox.Option
	ClientOptions []api.Option
	StoreOptions  []state.Option
	// ReceiverOptions are added after the receiver's defaults (those of a profile with no
	// signature_header or tolerance: api.DefaultWebhookTolerance), e.g. a test clock.
	ReceiverOptions []api.ReceiverOption
}

// DemoSession starts the sandbox emulator in-process on a random loopback port, registers a
// webhook receiver with it and returns a session with the demo credential and a memory store.
func DemoSession(ctx context.Context, o DemoOptions) (*Session, *sandbox.Server, error) {
	fx := o.Fixture
	if fx == nil {
		fx = sandbox.DefaultFixture()
	}
	srv := sandbox.New(fx, o.ServerOptions...)
	// ctx bounds the setup; the emulator and receiver live until Close, not until ctx ends.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	fail := func(err error) (*Session, *sandbox.Server, error) {
		cancel()
		srv.Close()
		return nil, nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return fail(fmt.Errorf("demo: start the sandbox emulator: %w", err))
	}
	go func() { _ = srv.Serve(life, ln) }()
	id, secret := DemoClientID, demoSecret
	if o.ClientID != "" {
		id, secret = o.ClientID, o.Secret
	}
	env, err := api.EnvironmentOf(id)
	if err != nil {
		return fail(err)
	}
	client, err := api.NewClient(sandbox.BaseURL(ln), id, secret, o.ClientOptions...)
	if err != nil {
		return fail(err)
	}
	ctl := sandbox.NewControl(client)
	wl, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return fail(fmt.Errorf("demo: start the webhook receiver: %w", err))
	}
	_, whSecret, err := ctl.RegisterWebhook(ctx, "http://"+wl.Addr().String()+api.WebhookPath, "")
	if err != nil {
		_ = wl.Close()
		return fail(fmt.Errorf("demo: register the webhook receiver: %w", err))
	}
	store := state.OpenMemory(o.StoreOptions...)
	intake, err := store.OpenIntake()
	if err != nil {
		_ = wl.Close()
		_ = store.Close()
		return fail(err)
	}
	// The same receiver settings as a profile that leaves signature_header and tolerance unset.
	ropts := append([]api.ReceiverOption{api.WithSink(intake), api.WithTolerance(api.DefaultWebhookTolerance)}, o.ReceiverOptions...)
	recv := api.NewReceiver(whSecret, ropts...)
	go func() { _ = recv.Serve(life, wl) }()
	// Track the fixture's seeded charges so a fresh dashboard has history to show.
	for _, ref := range srv.Charges(id) {
		tx, err := client.GetTransaction(ctx, ref.ID, api.WithSubAccount(walletHeader(ref.Wallet)))
		if errors.Is(err, api.ErrSubAccountForbidden) {
			continue // this credential may not read that wallet
		}
		if err != nil {
			return fail(fmt.Errorf("demo: read seeded charge %s: %w", ref.ID, err))
		}
		if _, err := store.TrackTransaction(ctx, tx, ref.Wallet); err != nil {
			return fail(err)
		}
	}
	s := &Session{
		Profile:       "demo",
		Env:           env,
		Demo:          true,
		Client:        client,
		Store:         store,
		Sandbox:       ctl,
		Intake:        intake,
		ReceiverStats: recv.Stats,
		WebhookURL:    "http://" + wl.Addr().String() + api.WebhookPath,
		PixFee:        99,
		HasPixFee:     true,
		// What a profile without default_description starts charges with.
		DefaultDescription: DefaultDescription,
		WebhookTolerance:   api.DefaultWebhookTolerance,
		Close: func() {
			cancel()
			srv.Close()
			_ = intake.Close()
			_ = store.Close()
		},
	}
	return s, srv, nil
}
