package training

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
)

//go:embed fixture.toml
var fixtureTOML []byte

// Fixture is the training shop: one sandbox account without history that refuses CNPJ payers.
func Fixture() (*sandbox.Fixture, error) { return sandbox.ParseFixture(fixtureTOML) }

// Run is a training session's emulator side: the in-process emulator (its client goes through
// the simulated network), the network and the engine playing the scenario.
type Run struct {
	Demo    *sandbox.Demo
	Network *Network
	Engine  *Engine
	control *api.Client
}

// Start starts the emulator with the training shop, the simulated network in front of the
// dashboard's client and webhook receiver, and an engine for sc (not yet running: call
// Engine.Run). extra are more client options for the dashboard's client (a logger).
func Start(ctx context.Context, sc *Scenario, o Options, serverOpts []sandbox.Option, extra ...api.Option) (*Run, error) {
	fx, err := Fixture()
	if err != nil {
		return nil, err
	}
	network := &Network{}
	hc := &http.Client{Transport: network.Transport(nil), Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{Fixture: fx, ServerOptions: serverOpts,
		ClientOptions: append([]api.Option{api.WithHTTPClient(hc)}, extra...)})
	if err != nil {
		return nil, err
	}
	d.WebhookListener = network.Listener(d.WebhookListener)
	// The customers act through their own client: the shop's network drop does not cut them.
	c, err := api.NewClient(d.Client.BaseURL(), sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("training: %w", err)
	}
	e := New(sc, d.Server, sandbox.DemoClientID, sandbox.NewControl(c), network, o)
	return &Run{Demo: d, Network: network, Engine: e, control: c}, nil
}

// Close stops the emulator and the customers' client.
func (r *Run) Close() {
	r.control.Close()
	r.Demo.Close()
}
