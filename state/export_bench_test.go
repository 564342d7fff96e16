package state_test

import (
	"context"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"pixdash/state"
	"pixdash/state/export"
)

// BenchmarkExport writes the whole generated history as the BR spreadsheet (refunds looked up
// as `pixdash export` does) and reports ns/row, beside its yardstick in the same run: scan, one
// plain `SELECT doc FROM charges ORDER BY seq DESC` through the same driver. x-scan is the
// export's ns/row over the scan's (target: at most 2); ns/row that stays flat from 10k to 100k
// rows is time linear in the rows. The export reads the store in keyset batches
// (state.Store.ChargesBefore). offset is the previous way, a window at a growing offset
// (state.Store.ChargeWindow), whose time grows as the square of the rows: it runs at 10k, and
// at 100k only with PIXDASH_BENCH_OFFSET=1 (about ten seconds an export).
func BenchmarkExport(b *testing.B) {
	for _, size := range []struct{ charges, events int }{{10_000, 1_000}, {100_000, 10_000}} {
		var scanNs float64
		name := strconv.Itoa(size.charges/1000) + "k"
		b.Run(name+"/scan", func(b *testing.B) {
			s := state.OpenGenForBench(b, size.charges, size.events)
			b.ResetTimer()
			var rows int
			for range b.N {
				n, bytes, err := state.ScanDocsForBench(context.Background(), s)
				if err != nil {
					b.Fatal(err)
				}
				rows = n
				b.SetBytes(bytes)
			}
			scanNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(rows)
			b.ReportMetric(scanNs, "ns/row")
		})
		run := func(b *testing.B, src func(*state.Store) export.Source) {
			s := state.OpenGenForBench(b, size.charges, size.events)
			o := export.Options{Format: export.BR, Location: time.UTC}
			b.ResetTimer()
			var rows int
			for range b.N {
				n, err := export.Write(context.Background(), io.Discard, src(s), o)
				if err != nil {
					b.Fatal(err)
				}
				if n != size.charges {
					b.Fatalf("exported %d charges, want %d", n, size.charges)
				}
				rows = n
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(rows)
			b.ReportMetric(ns, "ns/row")
			if scanNs > 0 {
				b.ReportMetric(ns/scanNs, "x-scan")
			}
		}
		b.Run(name+"/export", func(b *testing.B) {
			run(b, func(s *state.Store) export.Source { return s })
		})
		b.Run(name+"/offset", func(b *testing.B) {
			if size.charges > 10_000 && os.Getenv("PIXDASH_BENCH_OFFSET") == "" {
				b.Skip("set PIXDASH_BENCH_OFFSET=1 to measure the offset export at this size")
			}
			run(b, func(s *state.Store) export.Source { return offsetSource{s} })
		})
	}
}

// offsetSource is the store as the export saw it before keyset batches: windows at an offset
// (ChargeWindow) and the refunds asked from the dashboard.
type offsetSource struct{ s *state.Store }

func (o offsetSource) ChargeWindow(ctx context.Context, q state.ChargeQuery, offset, limit int) (state.ChargePage, error) {
	return o.s.ChargeWindow(ctx, q, offset, limit)
}

func (o offsetSource) RefundOf(ctx context.Context, chargeID string) (state.Refund, bool, error) {
	return o.s.RefundOf(ctx, chargeID)
}
