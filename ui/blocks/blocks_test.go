package blocks

import (
	"fmt"
	"testing"

	"pixdash/api"
)

func TestBlocksSumsPerStatusExact(t *testing.T) {
	items := []api.BalanceBlock{
		{Status: api.BlockDefended, Amount: 1}, {Status: api.BlockDefended, Amount: 2},
		{Status: "zeta", Amount: 999_999_999_99}, {Status: "alpha", Amount: 5},
		{Status: api.BlockAwaitingResponse, Amount: 10}, {Status: "zeta", Amount: 1},
	}
	got := SumBlocks(items)
	want := []BlockSum{
		{api.BlockAwaitingResponse, 1, 10}, {api.BlockDefended, 2, 3}, {api.BlockApproved, 0, 0}, {api.BlockRejected, 0, 0},
		{"alpha", 1, 5}, {"zeta", 2, 1_000_000_000_00},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sums = %v, want %v", got, want)
	}
}
