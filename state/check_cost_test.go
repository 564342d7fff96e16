package state

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCheckCost measures the checks on a generated history (PIXDASH_CHECK_COST=charges, e.g.
// 100000 or 1000000; events are a tenth): the quick check every open runs, PRAGMA quick_check
// (pixdash db check), the table counts close and export add, and PRAGMA integrity_check for
// comparison. PIXDASH_CHECK_ONLY=<part of a name> runs only the matching measures.
func TestCheckCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PIXDASH_CHECK_COST"))
	if n <= 0 {
		t.Skip("set PIXDASH_CHECK_COST=<charges> to measure")
	}
	path := genDB(t, benchDir(), n, n/10)
	fi, _ := os.Stat(path)
	s, err := Open(context.Background(), filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".db"), WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	only := os.Getenv("PIXDASH_CHECK_ONLY") // a part of the measures' names, to run only those
	measure := func(name string, f func() error) {
		if only != "" && !strings.Contains(name, only) {
			return
		}
		best := time.Duration(1 << 62)
		rounds := 3
		if n >= 1_000_000 {
			rounds = 1
		}
		for range rounds {
			t0 := time.Now()
			if err := f(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			best = min(best, time.Since(t0))
		}
		t.Logf("%d charges (%d MiB): %-28s %v", n, fi.Size()>>20, name, best.Round(time.Millisecond))
	}
	var opened []*Store
	measure("open (its check in the background)", func() error {
		s2, err := Open(ctx, filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".db"), WithLocation(time.UTC))
		if err == nil {
			opened = append(opened, s2)
		}
		return err
	})
	for _, s2 := range opened {
		<-s2.Checked()
		if err := s2.Damage(); err != nil {
			t.Errorf("a sound database found damaged: %v", err)
		}
		_ = s2.Close()
	}
	measure("quick check (indexes)", func() error { return s.Check(ctx, CheckIndexes) })
	measure("close/export check (+tables)", func() error { return s.Check(ctx, CheckTables) })
	measure("db check (+quick_check)", func() error { return s.Check(ctx, CheckPages) })
	measure("count(*) charges NOT INDEXED", func() error {
		var n int
		return s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM charges NOT INDEXED").Scan(&n)
	})
	measure("PRAGMA integrity_check", func() error {
		var r string
		return s.rdb.QueryRowContext(ctx, "PRAGMA integrity_check(1)").Scan(&r)
	})
}
