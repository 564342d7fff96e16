package state

import (
	"context"
	"sync"
	"testing"
)

func TestClaimOnPaidOncePerChargeAcrossStoresAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Open(ctx, dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, dir, "shop") // a second window on the same profile
	if err != nil {
		t.Fatal(err)
	}
	// Both windows see the payment at once: exactly one claim wins.
	var wg sync.WaitGroup
	wins := make(chan bool, 20)
	for i := range 20 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.ClaimOnPaid(ctx, "tx_1", "lp")
			if err != nil {
				t.Error(err)
			}
			wins <- ok
		}()
	}
	wg.Wait()
	close(wins)
	n := 0
	for ok := range wins {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d claims won for one charge, want 1", n)
	}
	if ok, err := b.ClaimOnPaid(ctx, "tx_2", "lp"); err != nil || !ok {
		t.Fatalf("another charge: %v, %v", ok, err)
	}
	if err := a.FinishOnPaid(ctx, "tx_1", "exit status 3"); err != nil {
		t.Fatal(err)
	}
	_ = a.Close()
	_ = b.Close()

	// A restart finds the record and its outcome.
	c, err := Open(ctx, dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, id := range []string{"tx_1", "tx_2"} {
		if ok, err := c.ClaimOnPaid(ctx, id, "lp"); err != nil || ok {
			t.Errorf("%s after reopen: claimed %v, %v; want already run", id, ok, err)
		}
	}
	r, ok, err := c.OnPaidRunOf(ctx, "tx_1")
	if err != nil || !ok || r.Command != "lp" || r.Outcome != "exit status 3" || r.FinishedAt.IsZero() || r.ClaimedAt.IsZero() {
		t.Errorf("record: %+v %v %v", r, ok, err)
	}
	if _, ok, _ := c.OnPaidRunOf(ctx, "tx_3"); ok {
		t.Error("a record for a charge never claimed")
	}
	if _, err := c.ClaimOnPaid(ctx, "", "lp"); err == nil {
		t.Error("an empty charge id was claimed")
	}
}
