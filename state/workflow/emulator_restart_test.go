package workflow

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// runEmulator serves sandbox.Open(default fixture, file) on addr until stop is called.
func runEmulator(t *testing.T, file, addr string) (stop func()) {
	t.Helper()
	srv, _, err := sandbox.Open(nil, file, sandbox.WithWebhookScale(0.01))
	if err != nil {
		t.Fatal(err)
	}
	var ln net.Listener
	for deadline := time.Now().Add(5 * time.Second); ; {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the previous run's port is being released
	}
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ctx, ln)
	}()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-done
		srv.Close()
	}
	t.Cleanup(stop)
	return stop
}

// payAndWait creates a charge, pays it on the emulator and waits until the dashboard's receiver
// has stored its payment_completed.
func payAndWait(t *testing.T, s *Session, after int64) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := CreateCharge(ctx, s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 990, Description: "Reinício"}}, nil)
	if r.Err != nil {
		t.Fatalf("create: %v", r.Err)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatalf("pay: %v", err)
	}
	for {
		b, ok := WaitEvents(ctx, s.Store, after, 100)
		if !ok || b.Err != nil {
			t.Fatalf("no payment_completed for %s reached the dashboard: %+v", r.Charge.ID, b)
		}
		after = b.Last
		for _, e := range b.Events {
			if e.Kind == api.EventPaymentCompleted && e.TransactionID == r.Charge.ID {
				return after
			}
		}
	}
}

// A dashboard configured once keeps receiving after the emulator restarts: `pixdash sandbox
// --state FILE` keeps the webhook endpoint and the secret the profile was configured with (and
// the dashboard's token stays valid), so the next payment after the restart is delivered, signed
// with that secret, and accepted by the receiver.
func TestDashboardKeepsReceivingAfterEmulatorRestart(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sandbox.db")
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	stop := runEmulator(t, file, addr)

	base := "http://" + addr + sandbox.Prefix
	client, err := api.NewClient(base, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	const secret = api.Secret("profile-webhook-secret-0001") // the profile's webhook.secret_env
	s, err := Open(context.Background(), Params{Profile: "loja", Env: api.Sandbox, Client: client, StateDir: dir,
		Simulator: sandbox.NewControl(client), Webhook: &Webhook{Listen: "127.0.0.1:0", Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.WebhookURL == "" {
		t.Fatal("no receiver")
	}
	// Configured once: the endpoint is registered with the profile's secret.
	if _, err := sandbox.NewControl(client).RegisterWebhookSecret(context.Background(), s.WebhookURL, "", secret); err != nil {
		t.Fatal(err)
	}
	after, err := s.Store.LastEventSeq(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after = payAndWait(t, s, after)

	stop()
	runEmulator(t, file, addr)
	payAndWait(t, s, after)
}

// Against the emulator: a redelivery storm is deduplicated by the dashboard's receiver (the event
// is stored once, the copies counted as duplicates), and an endpoint registered with another
// secret is refused with 401, which the emulator records with the receiver's answer (why the
// delivery was rejected, not a bare count).
func TestReceiverAgainstEmulatorFaults(t *testing.T) {
	dir := t.TempDir()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	runEmulator(t, filepath.Join(dir, "sandbox.db"), addr)
	client, err := api.NewClient("http://"+addr+sandbox.Prefix, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	ctl := sandbox.NewControl(client)
	const secret = api.Secret("profile-webhook-secret-0002")
	s, err := Open(context.Background(), Params{Profile: "loja", Env: api.Sandbox, Client: client, StateDir: dir,
		Simulator: ctl, Webhook: &Webhook{Listen: "127.0.0.1:0", Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := ctl.RegisterWebhookSecret(ctx, s.WebhookURL, "", secret); err != nil {
		t.Fatal(err)
	}
	if err := ctl.SetFaults(ctx, sandbox.Faults{RedeliveryStorm: 3}); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Store.LastEventSeq(ctx)
	payAndWait(t, s, after)
	deadline := time.Now().Add(15 * time.Second)
	for s.ReceiverStats().Duplicates < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := s.ReceiverStats(); st.Accepted != 1 || st.Duplicates != 3 {
		t.Fatalf("receiver: %+v, want the event accepted once and 3 duplicates", st)
	}
	last, _ := s.Store.LastEventSeq(ctx)
	if last != after+1 {
		t.Fatalf("%d events stored for one payment under a redelivery storm", last-after)
	}

	// Another secret: refused with 401, and the emulator says why.
	if err := ctl.SetFaults(ctx, sandbox.Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.RegisterWebhookSecret(ctx, s.WebhookURL, "", "a-stale-secret-from-before"); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Expire(ctx, mustCharge(t, s)); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(15 * time.Second)
	for {
		ds, err := ctl.Deliveries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var refused *sandbox.Delivery
		for i := range ds {
			if ds[i].LastStatusCode == 401 {
				refused = &ds[i]
			}
		}
		if refused != nil {
			if refused.LastAnswer == "" || s.ReceiverStats().LastRejection.Reason != api.RejectSignature {
				t.Fatalf("refused delivery %+v, receiver %+v", refused, s.ReceiverStats())
			}
			t.Logf("the emulator records: %d %q", refused.LastStatusCode, refused.LastAnswer)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no refused delivery: %+v", ds)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mustCharge creates a pending charge and returns its id.
func mustCharge(t *testing.T, s *Session) string {
	t.Helper()
	r := CreateCharge(context.Background(), s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 500, Description: "Expira"}}, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.Charge.ID
}
