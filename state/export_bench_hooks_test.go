package state

import (
	"context"
	"database/sql"
	"testing"
)

// OpenGenForBench opens the generated history of the given size (openGen: built once under
// $TMPDIR/pixdash-bench) for the benchmarks of package state_test (export_bench_test.go).
func OpenGenForBench(tb testing.TB, charges, events int) *Store { return openGen(tb, charges, events) }

// ScanRowsForBench reads every column of every charge, newest first, with one plain query
// through the store's read pool and driver, each cell read as the driver's bytes and dropped,
// and returns how many rows and bytes it read: a baseline of BenchmarkExport (what reading the
// same rows costs before any decoding or writing).
func ScanRowsForBench(ctx context.Context, s *Store) (rows int, size int64, err error) {
	rs, err := s.rdb.QueryContext(ctx, `SELECT * FROM charges ORDER BY seq DESC`)
	if err != nil {
		return 0, 0, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return 0, 0, err
	}
	cells := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range cells {
		dest[i] = &cells[i]
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return rows, size, err
		}
		rows++
		for _, c := range cells {
			size += int64(len(c))
		}
	}
	return rows, size, rs.Err()
}
