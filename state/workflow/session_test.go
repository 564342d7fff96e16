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
)

// demoSession opens a session on the in-process emulator as demo mode does, closed at the end.
func demoSession(t *testing.T, o sandbox.DemoOptions) (*Session, *sandbox.Demo) {
	t.Helper()
	ctx := context.Background()
	d, err := sandbox.StartDemo(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	track := make([]TrackRef, len(d.Seeded))
	for i, ref := range d.Seeded {
		track[i] = TrackRef(ref)
	}
	s, err := Open(ctx, Params{
		Profile: "demo", Env: d.Env, Demo: true, Client: d.Client, Simulator: d.Control,
		Webhook: &Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret, Tolerance: api.DefaultWebhookTolerance},
		Track:   track, Release: d.Close,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, d
}

// End to end on the emulator: create a charge with its key, pay it as a payer, see the webhook
// arrive through the session's receiver and the event feed, read it back, and find the charge
// paid because the service says so.
func TestSessionOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{})
	if s.WebhookURL == "" || s.Intake == nil || s.Simulator == nil || s.Tolerance() != api.DefaultWebhookTolerance {
		t.Fatalf("session: url %q, intake %v, simulator %v, tolerance %s", s.WebhookURL, s.Intake, s.Simulator, s.Tolerance())
	}
	// The fixture's history is tracked.
	page, err := s.Store.ChargeWindow(ctx, state.ChargeQuery{}, 0, 1000)
	if err != nil || page.Total == 0 || page.Total > len(d.Seeded) {
		t.Fatalf("tracked %d of %d seeded charges (%v)", page.Total, len(d.Seeded), err)
	}
	feedStart, err := s.Store.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}

	draft := Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, Req: api.CreatePixRequest{Amount: 1234, Description: "Café"}}
	r := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if r.Err != nil || r.Charge == nil || r.Charge.Mismatch != "" {
		t.Fatalf("create: %+v", r)
	}
	// Sending the same draft again (a retry) is the same charge: the key is reused.
	again := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if again.Err != nil || again.Charge.ID != r.Charge.ID {
		t.Fatalf("retry with the same key: %+v, first %s", again, r.Charge.ID)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}

	// The webhook reaches the store through the receiver; the feed reports it.
	var ev *api.Event
	for after := feedStart; ev == nil; {
		b, ok := WaitEvents(ctx, s.Store, after, 100)
		if !ok || b.Err != nil {
			t.Fatalf("feed: %+v, %v", b, ok)
		}
		after = b.Last
		for _, e := range b.Events {
			if e.Kind == api.EventPaymentCompleted && e.TransactionID == r.Charge.ID {
				ev = e
			}
		}
	}
	conf, err := ConfirmPayment(ctx, s.Client, s.Store, ev)
	if err != nil || conf.Verdict != state.VerdictConfirmed || conf.After.State() != state.StatePaid || conf.After.PayerName != "Maria da Silva" {
		t.Fatalf("read back: %+v, %v", conf, err)
	}
	p := PollCharge(ctx, s.Client, s.Store, r.Charge.ID, api.WalletPrincipal)
	if p.Err != nil || p.After.State() != state.StatePaid {
		t.Fatalf("poll: %+v", p)
	}
	if unchecked, err := UncheckedPayments(ctx, s.Store, 10); err != nil || len(unchecked) != 0 {
		t.Fatalf("unchecked after the read-back: %v, %v", unchecked, err)
	}
}

// A create whose reply was lost is found by its key; one that never left is abandoned once no
// attempt can land.
func TestRecoverOnTheEmulator(t *testing.T) {
	ctx := context.Background()
	s, d := demoSession(t, sandbox.DemoOptions{})
	key := api.NewIdempotencyKey()
	req := api.CreatePixRequest{Amount: 3300, Description: "interrompida"}
	if err := s.Store.BeginSubmission(ctx, state.Submission{Key: key, Wallet: api.WalletPrincipal, Request: req}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.CreatePix(ctx, &req, api.WithIdempotencyKey(key)); err != nil {
		t.Fatal(err)
	}
	lost := api.NewIdempotencyKey()
	if err := s.Store.BeginSubmission(ctx, state.Submission{Key: lost, Request: api.CreatePixRequest{Amount: 100}}); err != nil {
		t.Fatal(err)
	}
	before := d.Server.ChargeCount()
	r := RecoverSubmissions(ctx, s.Client, s.Store, nil)
	if r.Err != nil || len(r.Resolved) != 1 || r.Resolved[0].IdempotencyKey != key || r.Abandoned != 1 || r.Pending != 0 {
		t.Fatalf("recovered %+v", r)
	}
	if d.Server.ChargeCount() != before {
		t.Fatal("recovery created a charge")
	}
	if subs, err := s.Store.PendingSubmissions(ctx); err != nil || len(subs) != 0 {
		t.Fatalf("left pending: %v, %v", subs, err)
	}
}

// Close releases the receiver's port and the emulator, and runs once.
func TestSessionCloseReleases(t *testing.T) {
	d, err := sandbox.StartDemo(context.Background(), sandbox.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	released := 0
	s, err := Open(context.Background(), Params{Client: d.Client, Webhook: &Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret},
		Release: func() { released++; d.Close() }})
	if err != nil {
		t.Fatal(err)
	}
	addr := d.WebhookListener.Addr().String()
	s.Close()
	s.Close()
	if released != 1 {
		t.Fatalf("released %d times", released)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the receiver's port is still held: %v", err)
	}
	ln.Close()
	if _, err := s.Store.ChargeWindow(context.Background(), state.ChargeQuery{}, 0, 1); err == nil {
		t.Fatal("the store still answers after Close")
	}
}

// A failed open releases what it started, the caller's emulator included.
func TestOpenFailureReleases(t *testing.T) {
	released := 0
	release := func() { released++ }
	if _, err := Open(context.Background(), Params{Release: release}); err == nil || released != 1 {
		t.Fatalf("no client: %v, released %d", err, released)
	}
	d, err := sandbox.StartDemo(context.Background(), sandbox.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	released = 0
	// A charge that cannot be read stops the open.
	_, err = Open(context.Background(), Params{Client: d.Client, Track: []TrackRef{{ID: "no-such-charge"}}, Release: release})
	if !errors.Is(err, api.ErrNotFound) || released != 1 {
		t.Fatalf("bad track: %v, released %d", err, released)
	}
}

// A profile's database on disk: the session opens it and reports what it holds.
func TestOpenOnDisk(t *testing.T) {
	d, err := sandbox.StartDemo(context.Background(), sandbox.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := Open(context.Background(), Params{Profile: "loja", Client: d.Client, StateDir: dir, Release: d.Close, DefaultDescription: " "})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Store.Persistent() || filepath.Dir(s.Store.Path()) != dir {
		t.Fatalf("store at %q", s.Store.Path())
	}
	if s.Description() != DefaultDescription || s.Intake != nil || s.WebhookURL != "" {
		t.Fatalf("session %+v", s)
	}
}

// A profile whose webhook port another program holds opens without a receiver and says why
// (as a second window does), instead of failing with "bind: address already in use"; once the
// port is free, TakeOver starts the receiver (issue 21 item 16).
func TestOpenWithWebhookPortTaken(t *testing.T) {
	old := listenRetryFor
	listenRetryFor = 300 * time.Millisecond
	t.Cleanup(func() { listenRetryFor = old })
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	addr := squatter.Addr().String()
	d, err := sandbox.StartDemo(context.Background(), sandbox.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Params{Profile: "loja", Client: d.Client, StateDir: t.TempDir(), Release: d.Close,
		Webhook: &Webhook{Listen: addr, Secret: d.WebhookSecret}})
	if err != nil {
		t.Fatalf("the session did not open with its port taken: %v", err)
	}
	defer s.Close()
	if s.ReceiverDown != addr || s.Intake != nil || s.WebhookURL != "" || s.ReceiverElsewhere || s.TakeOver == nil {
		t.Fatalf("session: down %q, intake %v, url %q, elsewhere %v", s.ReceiverDown, s.Intake, s.WebhookURL, s.ReceiverElsewhere)
	}
	if _, err := s.TakeOver(context.Background()); !errors.Is(err, ErrWebhookAddrInUse) {
		t.Fatalf("take over while the port is held: %v", err)
	}
	squatter.Close()
	r, err := s.TakeOver(context.Background())
	if err != nil || r.URL != "http://"+addr+api.WebhookPath {
		t.Fatalf("take over once the port is free: %+v, %v", r, err)
	}
}
