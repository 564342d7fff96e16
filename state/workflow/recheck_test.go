package workflow

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// switchable is a transport that fails as an unreachable service would while down is set.
type switchable struct {
	base http.RoundTripper
	down atomic.Bool
}

func (s *switchable) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.down.Load() {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return s.base.RoundTrip(r)
}

// A payment event whose read-backs all failed during an outage is read back once the service
// answers again (here: the next payment's read-back), not left unchecked until the next start;
// its verdict and the charge's paid come from that answer.
func TestOutageUncheckedEventReadBackWhenServiceAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sw := &switchable{base: &http.Transport{}}
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{ClientOptions: []api.Option{
		api.WithHTTPClient(&http.Client{Transport: sw, Timeout: 5 * time.Second}),
		api.WithRetry(api.RetryPolicy{MaxAttempts: 1}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Params{Profile: "demo", Env: d.Env, Demo: true, Client: d.Client, Simulator: d.Control, Release: d.Close,
		Webhook: &Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret, Tolerance: api.DefaultWebhookTolerance}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	// The payer reaches the emulator whatever the dashboard's connection does.
	payer, err := api.NewClient(d.Client.BaseURL(), sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(payer.Close)
	pay := sandbox.NewControl(payer)
	first := createCharge(t, s, 4200)
	e := startEngine(t, s, EngineOptions{NoStartup: true, PollEvery: time.Hour, RetryBase: 20 * time.Millisecond})
	time.Sleep(200 * time.Millisecond) // the feed starts where the events end

	sw.down.Store(true)
	if err := pay.Pay(ctx, first.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	awaitReport(t, e, 20*time.Second, "the first payment's last read-back failed", func(r Report) bool {
		c, ok := r.(EventConfirmed)
		return ok && c.Event.TransactionID == first.ID && c.Attempt == MaxConfirmAttempts-1 && c.Err != nil
	})
	if unchecked, err := s.Store.UncheckedPayments(ctx, 10); err != nil || len(unchecked) != 1 {
		t.Fatalf("unchecked after the outage: %d, %v; want the first payment's event", len(unchecked), err)
	}

	sw.down.Store(false)
	second := createCharge(t, s, 1300)
	if err := pay.Pay(ctx, second.ID, "João Souza", "11144477735"); err != nil {
		t.Fatal(err)
	}
	c := awaitReport(t, e, 20*time.Second, "the first payment read back once the service answered", func(r Report) bool {
		c, ok := r.(EventConfirmed)
		return ok && c.Event.TransactionID == first.ID && c.Err == nil
	}).(EventConfirmed)
	if c.Conf.Verdict != state.VerdictConfirmed || c.Conf.After.State() != state.StatePaid {
		t.Fatalf("first payment read back: %+v", c.Conf)
	}
	if got, _, _ := s.Store.Charge(ctx, first.ID); got.State() != state.StatePaid {
		t.Fatalf("first charge stored as %s", got.State())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		unchecked, err := s.Store.UncheckedPayments(ctx, 10)
		if err == nil && len(unchecked) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still unchecked: %d (%v)", len(unchecked), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
