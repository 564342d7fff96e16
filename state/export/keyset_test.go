package export

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// growingKeyset is the store read in keyset batches while a newer charge arrives above the list
// before each batch after the first, as new charges do while an export runs; cancel, when set,
// is called before the batch numbered cancelAt.
type growingKeyset struct {
	*state.Store
	calls    int
	cancel   context.CancelFunc
	cancelAt int
}

func (g *growingKeyset) ChargesBefore(ctx context.Context, q state.ChargeQuery, before int64, limit int) ([]state.Charge, int64, error) {
	if err := g.grow(ctx); err != nil {
		return nil, 0, err
	}
	return g.Store.ChargesBefore(ctx, q, before, limit)
}

func (g *growingKeyset) ChargesRefundsBefore(ctx context.Context, q state.ChargeQuery, before int64, limit int) ([]state.Charge, map[string]state.Refund, int64, error) {
	if err := g.grow(ctx); err != nil {
		return nil, nil, 0, err
	}
	return g.Store.ChargesRefundsBefore(ctx, q, before, limit)
}

// grow adds a newer charge before each batch after the first, and cancels before cancelAt.
func (g *growingKeyset) grow(ctx context.Context) error {
	if g.calls > 0 {
		c := state.Charge{ID: "new" + strconv.Itoa(g.calls), Wallet: "principal", Amount: 1, Status: api.StatusPending, CreatedAt: day.Add(time.Duration(g.calls) * time.Hour * 24)}
		if _, err := g.UpsertCharge(ctx, c); err != nil {
			return err
		}
	}
	if g.cancel != nil && g.calls == g.cancelAt {
		g.cancel()
	}
	g.calls++
	return nil
}

// TestKeysetWhileGrowing exports in batches of 2 while charges arrive: every charge of the list
// when the export began is written once, none twice, and the batches are read by keyset
// (ChargesBefore), not by offset.
func TestKeysetWhileGrowing(t *testing.T) {
	g := &growingKeyset{Store: seededStore(t, seedCharges())}
	var b bytes.Buffer
	n, err := Write(context.Background(), &b, g, Options{Format: CSV, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	all := len(seedCharges())
	recs := read(t, b.Bytes(), CSV)
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		if seen[r[0]] {
			t.Errorf("%s written twice", r[0])
		}
		seen[r[0]] = true
	}
	if n != all || len(seen) != all {
		t.Errorf("wrote %d (%d distinct), want the %d charges there when it began", n, len(seen), all)
	}
	if g.calls < all/2 {
		t.Errorf("%d keyset reads for %d charges in batches of 2", g.calls, all)
	}
}

// TestKeysetCancelled stops an export whose context ends midway: Write returns the context's
// error and what it wrote so far, and its reader has stopped.
func TestKeysetCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &growingKeyset{Store: seededStore(t, seedCharges()), cancel: cancel, cancelAt: 1}
	var b bytes.Buffer
	n, err := Write(ctx, &b, g, Options{Format: CSV, PageSize: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n >= len(seedCharges()) {
		t.Errorf("wrote %d charges after the cancel", n)
	}
}
