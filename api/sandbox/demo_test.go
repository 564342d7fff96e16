package sandbox

import (
	"context"
	"net"
	"testing"
	"time"

	"pixdash/api"
)

// StartDemo serves the emulator, signs in with the demo credential, and registers its webhook
// listener: a payment's delivery reaches a receiver served there, verified with WebhookSecret.
func TestStartDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := StartDemo(ctx, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Env != api.Sandbox || !d.HasPixFee || d.PixFee != 99 || len(d.Seeded) == 0 {
		t.Fatalf("demo: env %s, fee %d (%v), %d seeded", d.Env, d.PixFee, d.HasPixFee, len(d.Seeded))
	}
	// The seeded history is the credential's: every charge reads back.
	if _, err := d.Client.GetTransaction(ctx, d.Seeded[0].ID, api.WithSubAccount(subAccountOf(d.Seeded[0].Wallet))); err != nil {
		t.Fatal(err)
	}
	q := api.NewEventQueue(16)
	recv := api.NewReceiver(d.WebhookSecret, api.WithSink(q))
	go func() { _ = recv.Serve(ctx, d.WebhookListener) }()

	pix, err := d.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: 1234, Description: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Control.Pay(ctx, pix.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case ev := <-q.Events():
			if ev.TransactionID == pix.ID && ev.Kind == api.EventPaymentCompleted {
				if st := recv.Stats(); st.Rejected != 0 {
					t.Fatalf("receiver stats %+v", st)
				}
				return
			}
		case <-ctx.Done():
			t.Fatalf("no verified payment_completed delivery (receiver stats %+v)", recv.Stats())
		}
	}
}

// Close stops the emulator and releases both ports; another credential and a bad one.
func TestStartDemoCredentialsAndClose(t *testing.T) {
	d, err := StartDemo(context.Background(), DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Env != api.Production {
		t.Errorf("env %s", d.Env)
	}
	addr := d.WebhookListener.Addr().String()
	d.Close()
	d.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the webhook port is still held: %v", err)
	}
	ln.Close()

	if _, err := StartDemo(context.Background(), DemoOptions{ClientID: "mp_test_nobody", Secret: "x"}); err == nil {
		t.Fatal("a credential the fixture does not hold started a demo")
	}
	if _, err := StartDemo(context.Background(), DemoOptions{ClientID: "mp_test_demo_full", Secret: "wrong"}); err == nil {
		t.Fatal("a wrong secret started a demo")
	}
}

func subAccountOf(wallet string) string {
	if wallet == api.WalletPrincipal {
		return ""
	}
	return wallet
}
