package state

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"pixdash/api"
)

// TestChargesBeforeEqualTimestamps reads a list whose charges were all created in the same
// millisecond in batches of every size: each batch boundary falls between charges with equal
// created_at, and the batches together must be the list exactly (ChargeWindow's order), with
// no charge skipped or repeated. A keyset on the creation time alone would lose or repeat
// the charges that share the boundary's time.
func TestChargesBeforeEqualTimestamps(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2025, 11, 23, 10, 0, 0, 0, time.UTC)
	s := OpenMemory(WithClock(func() time.Time { return at }), WithLocation(time.UTC))
	t.Cleanup(func() { _ = s.Close() })
	const n = 60
	for i := range n {
		created := at // 50 of them in one millisecond, the rest around them
		switch {
		case i < 5:
			created = at.Add(-time.Duration(i+1) * time.Minute)
		case i >= 55:
			created = at.Add(time.Duration(i) * time.Minute)
		}
		wallet := api.WalletPrincipal
		if i%3 == 0 {
			wallet = "loja-sul"
		}
		st := api.StatusPending
		if i%2 == 0 {
			st = api.StatusCompleted
		}
		c := Charge{ID: "tx" + strconv.Itoa(i), Wallet: wallet, Amount: api.Money(100 + i), Status: st, CreatedAt: created, Description: "pão " + strconv.Itoa(i)}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []ChargeQuery{
		{},
		{Wallet: "loja-sul"},
		{Status: FilterPaid},
		{Wallet: api.WalletPrincipal, Status: FilterPending},
		{Text: "pao"},
	} {
		want, err := s.ChargeWindow(ctx, q, 0, 10*n)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Charges) == 0 {
			t.Fatalf("%+v: nothing selected", q)
		}
		for size := 1; size <= 13; size++ {
			var got []string
			before := int64(math.MaxInt64)
			for range 10 * n {
				cs, last, err := s.ChargesBefore(ctx, q, before, size)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range cs {
					got = append(got, c.ID)
				}
				if len(cs) < size {
					break
				}
				if last >= before {
					t.Fatalf("%+v size %d: position did not move (%d after %d)", q, size, last, before)
				}
				before = last
			}
			if len(got) != len(want.Charges) {
				t.Errorf("%+v in batches of %d: %d charges, want %d", q, size, len(got), len(want.Charges))
				continue
			}
			for i, c := range want.Charges {
				if got[i] != c.ID {
					t.Errorf("%+v in batches of %d: #%d is %s, want %s", q, size, i, got[i], c.ID)
					break
				}
			}
		}
	}
}
