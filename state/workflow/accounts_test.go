package workflow

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/apitest"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// countingSession is a session on the emulator whose GET /account calls are held a moment and
// counted: peak is the most in flight at once.
func countingSession(t *testing.T) (s *Session, peak func() int32) {
	t.Helper()
	srv := sandbox.New(sandbox.DefaultFixture())
	t.Cleanup(srv.Close)
	h, peak := apitest.InFlight(srv, "/account", 15*time.Millisecond)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := api.NewClient(ts.URL+sandbox.Prefix, sandbox.DemoClientID, sandbox.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(context.Background(), Params{Profile: "loja", Env: api.Sandbox, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, peak
}

// The session's balance reads, from any number of callers at once (the wallets view asks for
// every wallet and the close reads its wallets too), are at most MaxBalanceReads in flight;
// each answers for its own wallet.
func TestSessionBalanceReadsAreBounded(t *testing.T) {
	s, peak := countingSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wallets := []string{api.WalletPrincipal, "", "loja-centro", "loja-praia", "parceiro_entregas", "nao-existe"}
	for i := range 8 {
		wallets = append(wallets, fmt.Sprintf("loja-%02d", i))
	}
	type res struct {
		acc *api.Account
		err error
	}
	got := make([]res, len(wallets))
	var wg sync.WaitGroup
	for i, w := range wallets {
		wg.Go(func() {
			acc, err := s.Balance(ctx, w)
			got[i] = res{acc, err}
		})
	}
	// The close reads through the same slots.
	var rep state.CloseReport
	var repErr error
	wg.Go(func() {
		rep, repErr = s.CloseDay(ctx, state.CloseQuery{Day: state.Days(time.Now(), 1, time.Local), Wallets: []string{"principal"}}, true)
	})
	wg.Wait()
	if p := peak(); p < 1 || p > MaxBalanceReads {
		t.Fatalf("%d balance reads in flight at once, want 1 to %d", p, MaxBalanceReads)
	}
	for i, w := range wallets[:5] {
		if got[i].err != nil || got[i].acc == nil || got[i].acc.Balance.Available == nil {
			t.Fatalf("balance of %q: %+v, %v", w, got[i].acc, got[i].err)
		}
	}
	var ae *api.Error
	if !errors.As(got[5].err, &ae) || ae.HTTPStatus != 404 {
		t.Fatalf("unknown wallet: %v", got[5].err)
	}
	if repErr != nil {
		t.Fatal(repErr)
	}
	var ws []string
	for _, l := range rep.Wallets {
		ws = append(ws, l.Wallet)
		if l.Balance == nil {
			t.Errorf("close: no balance for %s (%s)", l.Wallet, l.BalanceErr)
		}
	}
	// Every usable sub-account the service lists is in the close; the suspended one is not.
	for _, w := range []string{"principal", "loja-centro", "loja-praia", "parceiro_entregas"} {
		if !slices.Contains(ws, w) {
			t.Errorf("close lacks %s: %v", w, ws)
		}
	}
	if slices.Contains(ws, "loja-antiga") {
		t.Errorf("close lists the suspended loja-antiga: %v", ws)
	}
}

// A read waiting for a slot gives up with its context, without calling the service.
func TestReadBalanceGivesUpWaiting(t *testing.T) {
	a := &accounts{avail: map[string]api.Money{"": 5000, "loja-centro": 700}}
	slots := make(chan struct{}, 1)
	slots <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := ReadBalance(ctx, a, slots, "loja-centro"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if len(a.seen) != 0 {
		t.Fatalf("the service was asked: %v", a.seen)
	}
	<-slots
	if _, err := ReadBalance(context.Background(), a, slots, "loja-centro"); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBalance(context.Background(), a, nil, api.WalletPrincipal); err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.seen, ",") != "loja-centro," || len(slots) != 0 {
		t.Fatalf("asked %q (principal goes without X-Sub-Account), %d slots held", a.seen, len(slots))
	}
}

// The one sub-account loader: the list on the emulator; a created sub-account (its name
// trimmed) is in the next list; an empty list is empty, not "not loaded"; a refusal is
// returned as it is.
func TestSubAccountsOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, _ := demoSession(t, sandbox.DemoOptions{})
	subs, err := s.ListSubAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	refs := func(subs []api.SubAccount) []string {
		var out []string
		for _, x := range subs {
			out = append(out, x.Reference)
		}
		return out
	}
	if got := refs(subs); !slices.Contains(got, "loja-centro") || !slices.Contains(got, "loja-antiga") {
		t.Fatalf("listed %v", got)
	}
	sub, err := s.CreateSubAccount(ctx, "loja-nova", "  Loja Nova  ")
	if err != nil || sub.Reference != "loja-nova" || sub.Name != "Loja Nova" {
		t.Fatalf("create: %+v, %v", sub, err)
	}
	again, err := s.ListSubAccounts(ctx)
	if err != nil || !slices.Contains(refs(again), "loja-nova") || len(again) != len(subs)+1 {
		t.Fatalf("after the create: %v, %v", refs(again), err)
	}
	if _, err := s.CreateSubAccount(ctx, "loja-nova", "De novo"); !errors.Is(err, api.ErrSubAccountReferenceTaken) {
		t.Fatalf("the same reference again: %v", err)
	}

	empty, err := LoadSubAccounts(ctx, fakeLister{})
	if err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("empty list: %#v, %v", empty, err)
	}
	boom := errors.New("offline")
	if got, err := LoadSubAccounts(ctx, fakeLister{subs: subs, err: boom}); got != nil || !errors.Is(err, boom) {
		t.Fatalf("refusal: %v, %v", got, err)
	}
}

// The blocks list of a wallet is recorded on the tracked charges it names.
func TestSessionBlocksRecordsWhatItLists(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{})
	cr := CreateCharge(ctx, s.Client, s.Store, Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 4000, Description: "bloqueada"}}, nil)
	if cr.Err != nil {
		t.Fatal(cr.Err)
	}
	id := cr.Charge.ID
	if err := s.Simulator.Pay(ctx, id, "Fulano de Tal", "52998224725"); err != nil {
		t.Fatal(err)
	}
	if p := PollCharge(ctx, s.Client, s.Store, id, api.WalletPrincipal); p.Err != nil {
		t.Fatal(p.Err)
	}
	b, err := d.Control.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: id, Reason: "golpe"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.Blocks(ctx, api.WalletPrincipal, api.BlockAwaitingResponse)
	if err != nil || !slices.ContainsFunc(list.Items, func(x api.BalanceBlock) bool { return x.ID == b.ID }) {
		t.Fatalf("list: %+v, %v", list, err)
	}
	ch, ok, err := s.Store.Charge(ctx, id)
	if err != nil || !ok || ch.Block == nil || ch.Block.ID != b.ID {
		t.Fatalf("charge after the list: %+v, %v, %v", ch.Block, ok, err)
	}
	if _, err := s.Blocks(ctx, "nao-existe", ""); err == nil {
		t.Fatal("an unknown wallet's blocks listed")
	}
}

// The session lists a wallet's projects, sorted by name; an unknown wallet is refused.
func TestSessionProjectsOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, _ := demoSession(t, sandbox.DemoOptions{})
	ps, err := s.Projects(ctx, api.WalletPrincipal)
	if err != nil || len(ps) == 0 {
		t.Fatalf("projects: %+v, %v", ps, err)
	}
	if !slices.IsSortedFunc(ps, func(a, b api.Project) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) }) {
		t.Fatalf("not sorted by name: %+v", ps)
	}
	if _, err := s.Projects(ctx, "nao-existe"); err == nil {
		t.Fatal("an unknown wallet's projects listed")
	}
}
