package state

import (
	"context"
	"testing"
)

// OpenGenForBench opens the generated history of the given size (openGen: built once under
// $TMPDIR/pixdash-bench) for the benchmarks of package state_test (export_bench_test.go).
func OpenGenForBench(tb testing.TB, charges, events int) *Store { return openGen(tb, charges, events) }

// ScanDocsForBench reads every charge's document, newest first, with one plain query through
// the store's read pool and driver, and returns how many rows and bytes it read: the yardstick
// of BenchmarkExport (what a dump of the same rows costs).
func ScanDocsForBench(ctx context.Context, s *Store) (rows int, size int64, err error) {
	rs, err := s.rdb.QueryContext(ctx, `SELECT doc FROM charges ORDER BY seq DESC`)
	if err != nil {
		return 0, 0, err
	}
	defer rs.Close()
	for rs.Next() {
		var doc []byte
		if err := rs.Scan(&doc); err != nil {
			return rows, size, err
		}
		rows++
		size += int64(len(doc))
	}
	return rows, size, rs.Err()
}
