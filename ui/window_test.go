package ui

import (
	"context"
	"testing"

	"pixdash/ui/common"
)

// A list whose total is only "at least" (a short filter text) reads on as the cursor nears the
// end of what it holds, and stops once a read comes back short; a new query stops the read
// under way.
func TestListWindowReadsOnPastACappedTotal(t *testing.T) {
	const n = 1000 // rows that really match
	var reads []int
	read := func(_ context.Context, _ string, offset, limit int) ([]int, int, bool, error) {
		reads = append(reads, offset)
		var items []int
		for i := offset; i < min(offset+limit, n); i++ {
			items = append(items, i)
		}
		return items, offset + len(items), len(items) == limit, nil
	}
	var w common.ListWindow[string, int]
	w.SetQuery("e")
	step := func(first, rows int) {
		t.Helper()
		if cmd := w.Need("o", 1, first, rows, read); cmd != nil {
			w.Apply(cmd().(common.WindowLoadedMsg[string, int]))
		}
	}
	const rows = 10
	step(0, rows)
	if w.Len() != 30 || !w.Capped {
		t.Fatalf("first window: total %d capped %v", w.Len(), w.Capped)
	}
	for first := 0; first+rows <= n; first += rows {
		step(first, rows)
		for i := first; i < first+rows; i++ {
			if v, ok := w.At(i); !ok || v != i {
				t.Fatalf("row %d not held (%d, %v) after reads at %v", i, v, ok, reads)
			}
		}
	}
	if w.Capped || w.Len() != n {
		t.Fatalf("at the end: total %d capped %v", w.Len(), w.Capped)
	}
	before := len(reads)
	step(n-rows, rows)
	if len(reads) != before {
		t.Fatalf("read again at the end: %v", reads[before:])
	}
	// A new query stops the read under way.
	w.Invalidate()
	cmd := w.Need("o", 1, n-rows, rows, func(ctx context.Context, q string, offset, limit int) ([]int, int, bool, error) {
		return nil, 0, false, ctx.Err()
	})
	if cmd == nil {
		t.Fatal("no read after invalidate")
	}
	w.SetQuery("ex")
	if w.Inflight {
		t.Fatal("a new query left the old read in flight")
	}
	msg := cmd().(common.WindowLoadedMsg[string, int])
	if msg.Err == nil {
		t.Fatal("the old read was not cancelled")
	}
	w.Apply(msg) // its answer is dropped
	if w.Loaded || w.Err != nil {
		t.Fatalf("a cancelled read of the old query was applied: loaded %v err %v", w.Loaded, w.Err)
	}
}
