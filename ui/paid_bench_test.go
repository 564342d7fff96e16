package ui

import (
	"context"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/ui/common"
)

// BenchmarkPaymentToPaid measures, on the in-process emulator, the time from the payer paying
// to the tracked charge being paid by the service's own answer: the emulator's signed webhook
// reaches the receiver, which commits it to the store, the dashboard's event feed reads it, and
// the read-back (GET /transactions/{id}) confirms it. This is what the QR screen waits for before
// PAGO (the target is under 1 s). The charge is created outside the timer.
func BenchmarkPaymentToPaid(b *testing.B) {
	s, _, err := DemoSession(context.Background(), DemoOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Bell: func() {}})
	ctl := sandbox.NewControl(s.Client)
	ctx := context.Background()
	// The feed starts after the events already stored, as at the start of a session.
	last, err := s.Store.LastEventSeq(ctx)
	if err != nil {
		b.Fatal(err)
	}
	m.app.EventSeq = last
	var worst time.Duration
	for b.Loop() {
		b.StopTimer()
		pix, err := s.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: 1234, Description: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Store.UpsertCharge(context.Background(), state.ChargeFromPix(pix, &api.CreatePixRequest{Amount: 1234}, api.WalletPrincipal, "")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := ctl.Pay(ctx, pix.ID, "", ""); err != nil {
			b.Fatal(err)
		}
		for paid := false; !paid; {
			batch, ok := m.waitEvent()().(eventsMsg)
			if !ok || batch.err != nil {
				b.Fatalf("no events: %v", batch.err)
			}
			m.app.EventSeq = batch.last
			for _, it := range batch.items {
				if !it.Ev.Kind.IsPayment() {
					continue
				}
				conf, err := engineOf(m).Confirm(ctx, it.Ev)
				if err != nil {
					b.Fatalf("confirm: %v", err)
				}
				if conf.After.ID == pix.ID && conf.After.State() == state.StatePaid {
					paid = true
				}
			}
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
