package hub_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/hub"
)

var floodWallets = []string{api.WalletPrincipal, "loja-1", "loja-2"}

// flood delivers n events (wallets in turn) to the hub through svc with workers senders; every
// fifth event is delivered a second time later (the service's redelivery). It returns the ids
// per wallet.
func flood(ctx context.Context, svc *service, url func() string, prefix string, n, workers int, env api.Environment) map[string]map[string]bool {
	byWallet := map[string]map[string]bool{}
	type job struct {
		id, wallet string
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				body := eventBody(j.id, j.wallet, env)
				svc.send(ctx, url, j.id, body)
			}
		}()
	}
	var redeliver []job
	for i := range n {
		j := job{fmt.Sprintf("%s-%05d", prefix, i), floodWallets[i%len(floodWallets)]}
		if byWallet[j.wallet] == nil {
			byWallet[j.wallet] = map[string]bool{}
		}
		byWallet[j.wallet][j.id] = true
		jobs <- j
		if i%5 == 0 {
			redeliver = append(redeliver, j)
		}
		if len(redeliver) == 20 { // redeliveries interleave with first deliveries
			for _, r := range redeliver {
				jobs <- r
			}
			redeliver = redeliver[:0]
		}
	}
	for _, r := range redeliver {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	return byWallet
}

// union is the ids of the given wallets (every wallet when none).
func union(byWallet map[string]map[string]bool, wallets ...string) map[string]bool {
	out := map[string]bool{}
	for w, ids := range byWallet {
		if len(wallets) > 0 && !contains(wallets, w) {
			continue
		}
		for id := range ids {
			out[id] = true
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestHubFloodThreeCounters: a hub and three counters (two stores' counters filtered to their
// wallets, the owner's on every wallet); the service delivers a flood with 20% redeliveries, and
// JetStream and the stores see further copies (the same message id again, and a copy published
// after the duplicate window). Every counter stores each of its wallets' events exactly once,
// and nothing of another wallet.
func TestHubFloodThreeCounters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := startServer(t, t.TempDir())
	h := startHub(t, srv.URL(), api.Sandbox)
	counters := []*counterRig{
		startCounter(t, srv.URL(), "caixa-1", api.Sandbox, []string{api.WalletPrincipal}, nil),
		startCounter(t, srv.URL(), "caixa-2", api.Sandbox, []string{"loja-1", "loja-2"}, nil),
		startCounter(t, srv.URL(), "dono", api.Sandbox, nil, nil),
	}
	svc := newService()
	n := *hubEvents
	byWallet := flood(ctx, svc, func() string { return h.url }, "evt", n, 8, api.Sandbox)
	if len(svc.acked) != n {
		t.Fatalf("%d events acknowledged, want %d", len(svc.acked), n)
	}
	// Copies past the receiver: the same message id (dropped by JetStream), and a copy with
	// another message id, as after the duplicate window (dropped by each counter's store).
	for i := 0; i < n; i += 10 {
		id := fmt.Sprintf("evt-%05d", i)
		w := floodWallets[i%len(floodWallets)]
		body := eventBody(id, w, api.Sandbox)
		if err := h.pub.Publish(ctx, w, "payment_completed", id, body); err != nil {
			t.Fatal(err)
		}
		if err := h.pub.Publish(ctx, w, "payment_completed", id+"/late", body); err != nil {
			t.Fatal(err)
		}
	}
	st := h.pub.Stats()
	if st.Duplicates == 0 || st.Failed != 0 {
		t.Errorf("publisher %+v: the same message id again must be acknowledged as a duplicate", st)
	}
	if rs := h.recv.Stats(); rs.Accepted != uint64(n) || rs.Duplicates == 0 {
		t.Errorf("hub receiver %+v: want %d accepted and the redeliveries counted", rs, n)
	}
	wants := []map[string]bool{
		union(byWallet, api.WalletPrincipal),
		union(byWallet, "loja-1", "loja-2"),
		union(byWallet),
	}
	for i, c := range counters {
		waitEvents(t, c.store, len(wants[i]), 2*time.Minute)
	}
	// The late copies were delivered and committed: wait until every counter acknowledged
	// everything, then check nothing is doubled.
	for _, c := range counters {
		waitIdle(t, c, time.Minute)
	}
	for i, c := range counters {
		storedOnce(t, c.name, c.store, wants[i])
	}
	storedOnce(t, "hub", h.store, union(byWallet))
}

// waitIdle waits until the counter has nothing left to commit.
func waitIdle(t testing.TB, c *counterRig, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := c.counter.Status(context.Background())
		if st.Lag == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %+v after %s", c.name, st, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCounterCatchesUpAfterStop: a counter stopped mid-flood (its process gone: store closed)
// and started again on the same database resumes from its last acknowledgement: it ends with
// every event once, none lost, none doubled.
func TestCounterCatchesUpAfterStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := startServer(t, t.TempDir())
	h := startHub(t, srv.URL(), api.Sandbox)
	dir := t.TempDir()
	open := func() *state.Store {
		s, err := state.Open(ctx, dir, "caixa")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	store := open()
	c := startCounter(t, srv.URL(), "caixa", api.Sandbox, nil, store)
	other := startCounter(t, srv.URL(), "dono", api.Sandbox, nil, nil)
	svc := newService()
	n := *hubEvents
	half := flood(ctx, svc, func() string { return h.url }, "a", n/2, 4, api.Sandbox)
	waitEvents(t, c.store, 1, time.Minute) // it was consuming
	c.stop()
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	rest := flood(ctx, svc, func() string { return h.url }, "b", n-n/2, 4, api.Sandbox)
	time.Sleep(200 * time.Millisecond) // a while away

	store = open()
	defer store.Close()
	c = startCounter(t, srv.URL(), "caixa", api.Sandbox, nil, store)
	want := union(half)
	for id := range union(rest) {
		want[id] = true
	}
	waitEvents(t, store, n, 2*time.Minute)
	waitIdle(t, c, time.Minute)
	storedOnce(t, "caixa after its restart", store, want)
	waitEvents(t, other.store, n, time.Minute)
	storedOnce(t, "dono", other.store, want)
}

// TestEnvironmentsNeverShare: a production counter on the same server never gets a sandbox
// event: the streams and subject spaces are apart, and a production hub refuses a sandbox event.
// A service event of kind charge_created is refused too: that subject kind is the counters'.
func TestEnvironmentsNeverShare(t *testing.T) {
	srv := startServer(t, t.TempDir())
	sb := startHub(t, srv.URL(), api.Sandbox)
	pr := startHub(t, srv.URL(), api.Production)
	if hub.StreamName(api.Sandbox) == hub.StreamName(api.Production) {
		t.Fatal("one stream for both environments")
	}
	cs := startCounter(t, srv.URL(), "caixa", api.Sandbox, nil, nil)
	cp := startCounter(t, srv.URL(), "caixa", api.Production, nil, nil) // the same name: another stream's consumer
	if code := deliver(sb.url, eventBody("evt-sb", "principal", api.Sandbox)); code != 200 {
		t.Fatalf("sandbox hub: %d", code)
	}
	if code := deliver(pr.url, eventBody("evt-pr", "principal", api.Production)); code != 200 {
		t.Fatalf("production hub: %d", code)
	}
	if code := deliver(pr.url, eventBody("evt-sb-2", "principal", api.Sandbox)); code == 200 {
		t.Fatal("a production hub accepted a sandbox event")
	}
	// A service event may not pose as a counter's announcement.
	posing := []byte(strings.Replace(string(eventBody("evt-pose", "principal", api.Sandbox)), `"payment_completed"`, `"charge_created"`, 1))
	if code := deliver(sb.url, posing); code == 200 {
		t.Error("the hub published a service event under the announcements' kind")
	}
	waitEvents(t, cs.store, 1, 30*time.Second)
	waitEvents(t, cp.store, 1, 30*time.Second)
	waitIdle(t, cs, 10*time.Second)
	waitIdle(t, cp, 10*time.Second)
	storedOnce(t, "sandbox counter", cs.store, map[string]bool{"evt-sb": true})
	storedOnce(t, "production counter", cp.store, map[string]bool{"evt-pr": true})
}

// TestChargeAnnouncedToOtherCounters: a charge announced by one counter is listed as pending at
// the others (source hub, the counter named), not at its own; an announcement that arrives
// after the charge was read back as paid leaves it paid.
func TestChargeAnnouncedToOtherCounters(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, t.TempDir())
	startHub(t, srv.URL(), api.Sandbox)
	a := startCounter(t, srv.URL(), "caixa-a", api.Sandbox, []string{"principal"}, nil)
	b := startCounter(t, srv.URL(), "caixa-b", api.Sandbox, []string{"principal"}, nil)
	other := startCounter(t, srv.URL(), "caixa-c", api.Sandbox, []string{"loja-9"}, nil)
	note := hub.ChargeNote{ID: "tx-remote-1", Amount: 1990, Description: "Pão de queijo", Reference: "ref-1", Time: time.Now()}
	if err := a.counter.PublishCharge(ctx, note); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var ch state.Charge
	for {
		var ok bool
		var err error
		if ch, ok, err = b.store.Charge(ctx, "tx-remote-1"); err != nil {
			t.Fatal(err)
		} else if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the charge never reached counter b")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ch.Status != api.StatusPending || ch.Source != state.SourceHub || ch.Counter != "caixa-a" || ch.Amount != 1990 || ch.Description != "Pão de queijo" || ch.ExternalReference != "ref-1" {
		t.Errorf("at counter b: %+v", ch)
	}
	waitIdle(t, a, 10*time.Second)
	if _, ok, _ := a.store.Charge(ctx, "tx-remote-1"); ok {
		t.Error("counter a stored its own announcement as a charge from elsewhere")
	}
	waitIdle(t, other, 10*time.Second)
	if _, ok, _ := other.store.Charge(ctx, "tx-remote-1"); ok {
		t.Error("a counter of another wallet got the charge")
	}
	// Paid at b (read back), then announced again: it stays paid.
	paid := time.Now()
	if _, err := b.store.TrackTransaction(ctx, &api.Transaction{ID: "tx-remote-1", Status: api.StatusCompleted, Amount: 1990, PaidAt: &paid}, "principal"); err != nil {
		t.Fatal(err)
	}
	if _, added, err := b.store.TrackRemoteCharge(ctx, state.RemoteCharge{ID: "tx-remote-1", Amount: 1990, Counter: "caixa-a"}); err != nil || added {
		t.Fatalf("announced again: added %v, %v", added, err)
	}
	if ch, _, _ := b.store.Charge(ctx, "tx-remote-1"); ch.Status != api.StatusCompleted {
		t.Errorf("a late announcement turned a paid charge into %s", ch.Status)
	}
}
