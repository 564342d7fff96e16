package workflow

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/hub"
)

// shopRig is a shop on the emulator: the hub (the profile's webhook receiver publishing to an
// embedded NATS server) and counters linked to it with AttachHub.
type shopRig struct {
	t         *testing.T
	ctx       context.Context
	dir, addr string
	srv       *hub.Server
	hub       *Session
	ctl       *sandbox.Control
}

func newShopRig(ctx context.Context, t *testing.T) *shopRig {
	t.Helper()
	r := &shopRig{t: t, ctx: ctx, dir: t.TempDir()}
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = probe.Addr().String()
	probe.Close()
	runEmulator(t, filepath.Join(r.dir, "sandbox.db"), r.addr)
	r.srv, err = hub.StartServer(hub.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(r.dir, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.srv.Shutdown)
	nc, js, err := hub.Link{URL: r.srv.URL()}.JetStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := hub.EnsureStream(ctx, js, api.Sandbox, hub.Limits{}); err != nil {
		t.Fatal(err)
	}
	pub, err := hub.NewPublisher(js, api.Sandbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	const secret = api.Secret("hub-webhook-secret-0002")
	r.hub, err = Open(ctx, Params{Profile: "loja", Env: api.Sandbox, Client: r.client(), StateDir: filepath.Join(r.dir, "hub"),
		Webhook: &Webhook{Listen: "127.0.0.1:0", Secret: secret, Forward: pub.Wrap}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.hub.Close)
	r.ctl = sandbox.NewControl(r.hub.Client)
	// One endpoint for the account: the sub-accounts without their own fall back to it.
	if _, err := r.ctl.RegisterWebhookSecret(ctx, r.hub.WebhookURL, "", secret); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *shopRig) client() *api.Client {
	c, err := api.NewClient("http://"+r.addr+sandbox.Prefix, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// counter opens a counter named name receiving wallets (nil: every wallet, the owner's screen).
func (r *shopRig) counter(name, wallet string, wallets []string) *Session {
	r.t.Helper()
	s, err := Open(r.ctx, Params{Profile: "loja", Env: api.Sandbox, Wallet: wallet, Client: r.client(), StateDir: filepath.Join(r.dir, name)})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(s.Close)
	if _, err := AttachHub(r.ctx, s, HubLink{Link: hub.Link{URL: r.srv.URL()}, Counter: name, Wallets: wallets}, nil); err != nil {
		r.t.Fatal(err)
	}
	return s
}

// charge creates a charge at counter s in its wallet.
func (r *shopRig) charge(s *Session, wallet string, amount api.Money, desc, ref string) state.Charge {
	r.t.Helper()
	c := CreateCharge(r.ctx, s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: wallet,
		Req: api.CreatePixRequest{Amount: amount, Description: desc, ExternalReference: ref}}, nil)
	if c.Err != nil {
		r.t.Fatal(c.Err)
	}
	return *c.Charge
}

// waitCharge waits (at most 20 s) until s's store holds charge id and ok says it is as wanted.
func waitCharge(ctx context.Context, t *testing.T, s *Session, id string, ok func(state.Charge) bool) state.Charge {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		c, found, err := s.Store.Charge(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if found && ok(c) {
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("counter %s: charge %s: %+v (found %v)", s.Hub.Counter(), id, c, found)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestHubOwnerSeesEveryStore is the owner's screen across counters: counter A sells for the
// wallet loja-centro, counter B for loja-praia, and the owner's pixdash receives every wallet
// (hub_wallets = ["*"]). Each counter makes two charges and one of each is paid. On the owner's
// store alone: the day's figures for all wallets count both stores' payments and the pending
// charges made elsewhere, the day's close has a line per store with its payment and its
// pending charge, and the "customer says they paid" search finds the charge made at B by its
// amount, its payer and its end-to-end id, read back from the service as paid.
func TestHubOwnerSeesEveryStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r := newShopRig(ctx, t)
	const centro, praia = "loja-centro", "loja-praia"
	a := r.counter("caixa-centro", centro, []string{centro})
	b := r.counter("caixa-praia", praia, []string{praia})
	owner := r.counter("dono", "", nil) // hub_wallets = ["*"]

	paidA := r.charge(a, centro, 1250, "Café e pão", "centro-0001")
	openA := r.charge(a, centro, 800, "Suco", "centro-0002")
	paidB := r.charge(b, praia, 3370, "Açaí 500 ml", "praia-0077")
	openB := r.charge(b, praia, 990, "Água de coco", "praia-0078")
	if err := r.ctl.Pay(ctx, paidA.ID, "João Pereira", "52998224725"); err != nil {
		t.Fatal(err)
	}
	if err := r.ctl.Pay(ctx, paidB.ID, "Maria da Silva", "11144477735"); err != nil {
		t.Fatal(err)
	}

	// The owner's engine reads every recorded payment back, as the dashboard does.
	readBackPayment(ctx, t, owner, paidA.ID)
	readBackPayment(ctx, t, owner, paidB.ID)
	for _, c := range []state.Charge{openA, openB} {
		got := waitCharge(ctx, t, owner, c.ID, func(state.Charge) bool { return true })
		if got.Status != api.StatusPending || got.Source != state.SourceHub || got.Wallet != c.Wallet || got.ExternalReference != c.ExternalReference {
			t.Errorf("pending charge %s made at another counter, at the owner's: %+v", c.ID, got)
		}
	}
	for _, c := range []state.Charge{paidA, paidB} {
		got := waitCharge(ctx, t, owner, c.ID, func(c state.Charge) bool { return c.Status == api.StatusCompleted })
		if got.Wallet != c.Wallet || got.Amount != c.Amount || got.PaidAt == nil {
			t.Errorf("paid charge %s at the owner's: %+v", c.ID, got)
		}
	}

	// The Sales view's figures for all wallets (the owner's scope) and per store.
	loc := time.Local
	today := state.Days(time.Now(), 1, loc)
	day, err := owner.Store.DayReport(ctx, state.DayQuery{Period: today})
	if err != nil {
		t.Fatal(err)
	}
	if got := day.Total; got.Paid != 2 || got.Gross != 1250+3370 || got.Created != 4 || got.Pending != 2 {
		t.Errorf("owner's day, all wallets: paid %d gross %s created %d pending %d; want 2, R$ 46,20, 4, 2",
			got.Paid, got.Gross.BRL(), got.Created, got.Pending)
	}
	for _, w := range []struct {
		wallet string
		gross  api.Money
	}{{centro, 1250}, {praia, 3370}} {
		if got := day.Wallet(w.wallet); got.Paid != 1 || got.Gross != w.gross || got.Created != 2 || got.Pending != 1 {
			t.Errorf("owner's day, wallet %s: %+v", w.wallet, got)
		}
	}
	if len(day.Series) != 2 || day.Buckets == nil {
		t.Errorf("owner's chart series %v (buckets %d), want both stores", day.Series, len(day.Buckets))
	}
	var charted api.Money
	for _, bk := range day.Buckets {
		charted += bk.Total()
	}
	if charted != 1250+3370 {
		t.Errorf("owner's chart sums %s, want R$ 46,20", charted.BRL())
	}
	// A counter sees its own store only.
	readBackPayment(ctx, t, a, paidA.ID)
	dayA, err := a.Store.DayReport(ctx, state.DayQuery{Period: today})
	if err != nil {
		t.Fatal(err)
	}
	if got := dayA.Total; got.Paid != 1 || got.Gross != 1250 || dayA.Wallet(praia).Created != 0 {
		t.Errorf("counter A's day: %+v (wallets %+v)", got, dayA.Wallets)
	}

	// The day's close, with each store's balance read from the service.
	cl, err := CloseDay(ctx, owner.Store, owner.Client, state.CloseQuery{Day: today})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Total.Paid != 2 || cl.Total.Gross != 1250+3370 || cl.Total.Pending != 2 || cl.Total.Created != 4 {
		t.Errorf("owner's close, total: %+v", cl.Total.Totals)
	}
	lines := map[string]state.CloseLine{}
	for _, l := range cl.Wallets {
		lines[l.Wallet] = l
	}
	for _, w := range []string{centro, praia} {
		l, ok := lines[w]
		if !ok || l.Paid != 1 || l.Pending != 1 || l.Balance == nil || l.BalanceErr != "" {
			t.Errorf("owner's close, line %s: %+v (present %v)", w, l, ok)
		}
	}

	// "The customer says they paid": the charge made at B, found at the owner's.
	for _, text := range []string{"33,70", "R$ 33,70", "maria da silva", "Maria"} {
		q, err := ParseSearch(text, time.Now(), loc)
		if err != nil {
			t.Fatal(err)
		}
		ms, _, err := FindCharges(ctx, owner.Store, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 || ms[0].Charge.ID != paidB.ID {
			t.Errorf("owner's search %q: %d matches %+v, want the charge made at B", text, len(ms), ms)
			continue
		}
		ms = ReadBackMatches(ctx, owner.Client, owner.Store, ms, SearchReadBackWorkers)
		if m := ms[0]; !m.Paid() || m.Err != nil || m.Charge.Wallet != praia {
			t.Errorf("owner's search %q, read back: paid %v, %+v", text, m.Paid(), m)
		}
	}
	atOwner, _, _ := owner.Store.Charge(ctx, paidB.ID)
	if atOwner.E2EID == "" {
		t.Fatalf("the charge paid at B has no end-to-end id at the owner's: %+v", atOwner)
	}
	q, err := ParseSearch(atOwner.E2EID, time.Now(), loc)
	if err != nil {
		t.Fatal(err)
	}
	if ms, _, err := FindCharges(ctx, owner.Store, q); err != nil || len(ms) != 1 || ms[0].Charge.ID != paidB.ID {
		t.Errorf("owner's search by end-to-end id: %+v, %v", ms, err)
	}
	// The pending charge made at A is found by its amount too (not paid: the read-back says so).
	q, _ = ParseSearch("8,00", time.Now(), loc)
	ms, _, err := FindCharges(ctx, owner.Store, q)
	if err != nil || len(ms) != 1 || ms[0].Charge.ID != openA.ID {
		t.Fatalf("owner's search 8,00: %+v, %v", ms, err)
	}
	if ms = ReadBackMatches(ctx, owner.Client, owner.Store, ms, 1); ms[0].Paid() || ms[0].Err != nil || ms[0].Service != state.StatePending {
		t.Errorf("owner's search 8,00, read back: %+v", ms[0])
	}
	// A time window covers every counter's charges.
	q, _ = ParseSearch(time.Now().Add(-time.Minute).In(loc).Format("15:04")+"-"+time.Now().Add(2*time.Minute).In(loc).Format("15:04"), time.Now(), loc)
	if q.Kind == state.SearchWindow && q.From.Day() == q.To.Day() { // not across midnight
		ms, _, err := FindCharges(ctx, owner.Store, q)
		if err != nil || len(ms) != 4 {
			t.Errorf("owner's search by time window: %d matches, %v; want the 4 charges of both stores", len(ms), err)
		}
	}

	// An owner's pixdash opened later catches up from the stream: the same day.
	lateStart := time.Now()
	late := r.counter("escritorio", "", nil)
	defer func() { t.Logf("later owner caught up in %s", time.Since(lateStart)) }()
	readBackPayment(ctx, t, late, paidA.ID)
	readBackPayment(ctx, t, late, paidB.ID)
	waitCharge(ctx, t, late, openB.ID, func(state.Charge) bool { return true })
	waitCharge(ctx, t, late, openA.ID, func(state.Charge) bool { return true })
	day2, err := late.Store.DayReport(ctx, state.DayQuery{Period: today})
	if err != nil {
		t.Fatal(err)
	}
	if got := day2.Total; got.Paid != 2 || got.Gross != 1250+3370 || got.Created != 4 || got.Pending != 2 {
		t.Errorf("a later owner's day: %+v", got)
	}
}
