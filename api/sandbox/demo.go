package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"

	"pixdash/api"
)

// The demo credential of the built-in fixture: full access to the sandbox account.
const (
	DemoClientID = "mp_test_demo_full"
	DemoSecret   = api.Secret("demo-full-secret")
)

// DemoOptions tunes StartDemo (tests pass a fake clock and another credential).
type DemoOptions struct {
	// ClientID and Secret pick the credential the demo signs in with (default DemoClientID).
	ClientID string
	Secret   api.Secret
	// Fixture is what the emulator starts with (default DefaultFixture).
	Fixture       *Fixture
	ServerOptions []Option
	ClientOptions []api.Option
}

// Demo is an emulator serving on a loopback port, a client signed in as one of its
// credentials, and a webhook endpoint registered for a receiver on another loopback port that
// the caller serves (WebhookListener, with WebhookSecret). It lives until Close.
type Demo struct {
	// Server is the emulator; tests inspect and drive it.
	Server *Server
	// Client speaks to the emulator with the demo credential.
	Client *api.Client
	// Control drives the emulator's control endpoints with Client (simulated payers, expiry…).
	Control *Control
	// Env is the credential's environment (from its client_id prefix).
	Env api.Environment
	// PixFee is the credential's account fee per PIX charge, as a profile's pix_fee would say
	// it; HasPixFee is false when the fixture sets none.
	PixFee    api.Money
	HasPixFee bool
	// WebhookListener listens on the loopback address registered as the account's webhook
	// endpoint; the caller serves its receiver on it. WebhookSecret signs the deliveries.
	WebhookListener net.Listener
	WebhookSecret   api.Secret
	// Seeded are the fixture's charges of the credential's account, oldest first (the history
	// a fresh demo has to show).
	Seeded []ChargeRef

	stop context.CancelFunc
}

// StartDemo starts the emulator in-process on a random loopback port, signs in with the demo
// credential (or o's), opens a loopback listener for the caller's webhook receiver and registers
// it with the emulator. ctx bounds the setup only: the emulator serves until Close.
func StartDemo(ctx context.Context, o DemoOptions) (*Demo, error) {
	fx := o.Fixture
	if fx == nil {
		fx = DefaultFixture()
	}
	id, secret := DemoClientID, DemoSecret
	if o.ClientID != "" {
		id, secret = o.ClientID, o.Secret
	}
	env, err := api.EnvironmentOf(id)
	if err != nil {
		return nil, err
	}
	fee, hasFee, err := fixtureFee(fx, id)
	if err != nil {
		return nil, err
	}
	srv := New(fx, o.ServerOptions...)
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	d := &Demo{Server: srv, Env: env, PixFee: fee, HasPixFee: hasFee, stop: stop}
	fail := func(err error) (*Demo, error) {
		d.Close()
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return fail(fmt.Errorf("demo: start the sandbox emulator: %w", err))
	}
	go func() { _ = srv.Serve(life, ln) }()
	if d.Client, err = api.NewClient(BaseURL(ln), id, secret, o.ClientOptions...); err != nil {
		return fail(err)
	}
	d.Control = NewControl(d.Client)
	if d.WebhookListener, err = lc.Listen(ctx, "tcp", "127.0.0.1:0"); err != nil {
		return fail(fmt.Errorf("demo: start the webhook receiver: %w", err))
	}
	url := "http://" + d.WebhookListener.Addr().String() + api.WebhookPath
	if _, d.WebhookSecret, err = d.Control.RegisterWebhook(ctx, url, ""); err != nil {
		return fail(fmt.Errorf("demo: register the webhook receiver: %w", err))
	}
	d.Seeded = srv.Charges(id)
	return d, nil
}

// Close stops the emulator (its server, timers and deliveries) and closes the webhook listener
// if the caller's receiver has not already. It is safe to call more than once.
func (d *Demo) Close() {
	d.stop()
	d.Server.Close()
	if d.WebhookListener != nil {
		_ = d.WebhookListener.Close()
	}
}

// fixtureFee is the pix_fee of the account holding credential id.
func fixtureFee(fx *Fixture, id string) (api.Money, bool, error) {
	for _, a := range fx.Accounts {
		for _, c := range a.Credentials {
			if c.ClientID != id {
				continue
			}
			if a.PixFee == "" {
				return 0, false, nil
			}
			fee, err := api.ParseDecimal(a.PixFee)
			if err != nil {
				return 0, false, fmt.Errorf("demo: account %s: pix_fee: %w", a.Name, err)
			}
			return fee, true, nil
		}
	}
	return 0, false, errors.New("demo: the fixture has no credential " + id)
}
