package state

import (
	"context"
	"os"
	"testing"

	"pixdash/api"
)

// BenchmarkIntakeWALFrames is what one group commit of webhook events writes: b.N commits of
// intakeFramesBatch payment_completed events each (the size of the intake's group commits in
// BenchmarkIntakeDurable) through ApplyEvents on a copy of the 100k history, the log
// truncated before each, and the log's frames (4 KiB pages) counted after it. ids=uuid are
// random UUIDs, as the service mints them (the eventId index takes about one page per event);
// ids=sequential are TestScale's (the index takes one page per commit); baseline is the
// durable baseline's commit of as many payloads (durableSink: a bare table of seq and raw).
//
//	go test -run '^$' -bench IntakeWALFrames -benchtime 200x ./state/
func BenchmarkIntakeWALFrames(b *testing.B) {
	for _, ids := range []string{"uuid", "sequential", "baseline"} {
		b.Run("ids="+ids, func(b *testing.B) {
			if ids == "baseline" {
				frames := baselineFrames(b)
				b.ReportMetric(float64(frames)/float64(b.N), "wal-frames/commit")
				b.ReportMetric(float64(frames)/float64(b.N*intakeFramesBatch), "wal-frames/event")
				return
			}
			s := openCopyIn(b, b.TempDir(), benchCharges, benchEvents)
			defer s.Close()
			ctx := context.Background()
			var frames int64
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				var ds []benchDelivery
				if ids == "uuid" {
					ds = benchDeliveriesUUID(intakeFramesBatch, benchCharges)
				} else {
					ds = benchDeliveries(intakeFramesBatch, benchCharges)
				}
				es := make([]*api.Event, len(ds))
				for j, d := range ds {
					e, err := api.DecodeEvent(d.body)
					if err != nil {
						b.Fatal(err)
					}
					es[j] = e
				}
				if _, err := s.wdb.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := s.ApplyEvents(ctx, es); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				st, err := os.Stat(s.Path() + "-wal")
				if err != nil {
					b.Fatal(err)
				}
				frames += (st.Size() - 32) / walFrameBytes
				b.StartTimer()
			}
			b.ReportMetric(float64(frames)/float64(b.N), "wal-frames/commit")
			b.ReportMetric(float64(frames)/float64(b.N*intakeFramesBatch), "wal-frames/event")
		})
	}
}

// intakeFramesBatch is BenchmarkIntakeWALFrames' events per commit.
const intakeFramesBatch = 25

// baselineFrames commits b.N batches of intakeFramesBatch payloads to the durable baseline's
// table and returns the log frames they wrote, the log truncated before each.
func baselineFrames(b *testing.B) int64 {
	d := openDurableSink(b)
	var frames int64
	for b.Loop() {
		b.StopTimer()
		ds := benchDeliveriesUUID(intakeFramesBatch, benchCharges)
		if _, err := d.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tx, err := d.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for _, x := range ds {
			if _, err := tx.Exec(`INSERT INTO events(raw) VALUES (?)`, x.body); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var file string
		if err := d.db.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil {
			b.Fatal(err)
		}
		st, err := os.Stat(file + "-wal")
		if err != nil {
			b.Fatal(err)
		}
		frames += (st.Size() - 32) / walFrameBytes
		b.StartTimer()
	}
	return frames
}
