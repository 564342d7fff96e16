package state_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"pixdash/state"
	"pixdash/state/export"
)

// BenchmarkExport writes the whole generated history as the BR spreadsheet (refunds looked up
// as `pixdash export` does) and reports ns/row, beside its baselines in the same run:
//   - scan: one plain `SELECT * FROM charges ORDER BY seq DESC` through the same driver, every
//     cell read and dropped (state.ScanRowsForBench);
//   - sqlite3: the sqlite3 command-line shell's `.dump charges` of the same database file, to
//     /dev/null (skipped when sqlite3 is not on PATH), the yardstick.
//
// x-scan and x-sqlite3 are the export's time over each (target: x-sqlite3 at most 2), and
// cpu-x-sqlite3 its CPU time over the shell's (cpu-ns/row: user and system time, which a busy
// shared machine disturbs less than the elapsed time); ns/row
// that stays flat from 10k to 100k rows is time linear in the rows. The export reads the store
// in keyset batches (state.Store.ChargesBefore). offset is the previous way, a window at a
// growing offset (state.Store.ChargeWindow), whose time grows as the square of the rows: it
// runs at 10k, and at 100k only with PIXDASH_BENCH_OFFSET=1 (about ten seconds an export).
// Run it with -count 3 or more: each count runs every sub-benchmark once, in turn.
func BenchmarkExport(b *testing.B) {
	for _, size := range []struct{ charges, events int }{{10_000, 1_000}, {100_000, 10_000}} {
		var scanNs, dumpNs, scanCPU, dumpCPU float64
		name := strconv.Itoa(size.charges/1000) + "k"
		perRow := func(b *testing.B, rows int) float64 {
			return float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(rows)
		}
		// cpuPerRow is the CPU time (user and system) spent since from, a row.
		cpuPerRow := func(b *testing.B, who int, from time.Duration, rows int) float64 {
			return float64(cpuTime(b, who)-from) / float64(b.N) / float64(rows)
		}
		b.Run(name+"/scan", func(b *testing.B) {
			s := state.OpenGenForBench(b, size.charges, size.events)
			b.ResetTimer()
			cpu0 := cpuTime(b, cpuSelf)
			var rows int
			for range b.N {
				n, bytes, err := state.ScanRowsForBench(context.Background(), s)
				if err != nil {
					b.Fatal(err)
				}
				rows = n
				b.SetBytes(bytes)
			}
			scanNs, scanCPU = perRow(b, rows), cpuPerRow(b, cpuSelf, cpu0, rows)
			b.ReportMetric(scanNs, "ns/row")
			b.ReportMetric(scanCPU, "cpu-ns/row")
		})
		b.Run(name+"/sqlite3", func(b *testing.B) {
			dumpNs, dumpCPU = 0, 0
			sqlite3, err := exec.LookPath("sqlite3")
			if err != nil {
				b.Skip("sqlite3 is not on PATH")
			}
			s := state.OpenGenForBench(b, size.charges, size.events)
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer null.Close()
			b.ResetTimer()
			cpu0 := cpuTime(b, cpuChildren)
			for range b.N {
				cmd := exec.Command(sqlite3, "-readonly", s.Path(), ".dump charges")
				cmd.Stdout, cmd.Stderr = null, os.Stderr
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			dumpNs, dumpCPU = perRow(b, size.charges), cpuPerRow(b, cpuChildren, cpu0, size.charges)
			b.ReportMetric(dumpNs, "ns/row")
			b.ReportMetric(dumpCPU, "cpu-ns/row")
		})
		run := func(b *testing.B, src func(*state.Store) export.Source) {
			s := state.OpenGenForBench(b, size.charges, size.events)
			o := export.Options{Format: export.BR, Location: time.UTC}
			b.ResetTimer()
			cpu0 := cpuTime(b, cpuSelf)
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
			ns, cpu := perRow(b, rows), cpuPerRow(b, cpuSelf, cpu0, rows)
			b.ReportMetric(ns, "ns/row")
			b.ReportMetric(cpu, "cpu-ns/row")
			if scanNs > 0 {
				b.ReportMetric(ns/scanNs, "x-scan")
			}
			if dumpNs > 0 {
				b.ReportMetric(ns/dumpNs, "x-sqlite3")
				b.ReportMetric(cpu/dumpCPU, "cpu-x-sqlite3")
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
