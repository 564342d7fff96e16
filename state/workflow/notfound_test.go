package workflow

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// A tracked charge the service answers 404 for is polled a bounded number of times: after
// state.NotFoundMisses 404s in a row over state.NotFoundAfter it is not-found and leaves the
// poll schedule, instead of reading "pending" until its expiry. A sub-account 404 (the wallet,
// not the charge) counts nothing.
func TestPollChargeGivesUpOnA404(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := state.OpenMemory(state.WithClock(clock), state.WithLocation(time.UTC))
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	for _, id := range []string{"ghost", "walletless"} {
		if _, err := s.UpsertCharge(ctx, state.Charge{ID: id, Amount: 1000, Status: api.StatusPending, CreatedAt: now,
			ExpiresAt: now.Add(24 * time.Hour), UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	<-s.Ready()
	svc := &fakeAPI{errs: map[string]error{"walletless": &api.Error{HTTPStatus: 404, Code: "SUB_ACCOUNT_NOT_FOUND", Message: "Sub-account not found"}}}
	var last Polled
	polls := 0
	for ; polls < 50; polls++ {
		advance(time.Minute)
		last = PollCharge(ctx, svc, s, "ghost", api.WalletPrincipal)
		if !errors.Is(last.Err, api.ErrNotFound) {
			t.Fatalf("poll %d: err %v", polls, last.Err)
		}
		if last.After.NotFound {
			break
		}
		if last.After.State() != state.StatePending {
			t.Fatalf("poll %d: %s", polls, last.After.State())
		}
	}
	if !last.After.NotFound || last.After.State() != state.StateNotFound || last.Before.State() != state.StatePending {
		t.Fatalf("after %d polls: before %s after %s", polls+1, last.Before.State(), last.After.State())
	}
	if polls+1 < state.NotFoundMisses || time.Duration(polls)*time.Minute < state.NotFoundAfter {
		t.Fatalf("given up after %d polls", polls+1)
	}
	// The sub-account's 404 says nothing about the charge.
	for range state.NotFoundMisses + 10 {
		advance(time.Minute)
		PollCharge(ctx, svc, s, "walletless", "loja-x")
	}
	if c, _, _ := s.Charge(ctx, "walletless"); c.Missing != 0 || c.NotFound {
		t.Fatalf("a sub-account 404 counted: %+v", c)
	}
	advance(time.Hour)
	for _, id := range s.DuePolls(clock(), "", 10) {
		if id == "ghost" {
			t.Fatal("a charge not found at the service is still polled")
		}
	}
}
