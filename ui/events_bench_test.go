package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
)

// benchEventSession caches the 100k-event session: the runner calls the benchmark several times.
var benchEventSession *Session

// benchEvents is a dashboard at 120x40 on the events view, its store holding n events of every
// family (a tenth of them re-sent, so rows carry counts), received a second apart.
func benchEvents(b *testing.B, n int) *Model {
	b.Helper()
	if benchEventSession == nil || eventsTotal(b, benchEventSession.Store) != n {
		// Received a second apart: the store's clock reads the time of the batch being written.
		var clock atomic.Int64
		s := benchSession(b, func() time.Time { return time.Unix(0, clock.Load()).UTC() })
		in, err := s.Store.OpenIntake()
		if err != nil {
			b.Fatal(err)
		}
		stats := api.ReceiverStats{Accepted: uint64(n), Rejected: 3, Duplicates: uint64(n / 10)}
		s.Intake, s.ReceiverStats, s.WebhookURL = in, func() api.ReceiverStats { return stats }, "http://127.0.0.1:8787/webhook"
		kinds := api.EventKinds
		wallets := []string{"", "loja-sul", "loja-norte"}
		const batch = 1000
		var evs []*api.Event
		for i := range n {
			at := goldenNow.Add(-time.Duration(n-i) * time.Second)
			ev := map[string]any{
				"eventId": fmt.Sprintf("evt-%08d", i), "event": kinds[i%len(kinds)], "createdAt": at.Format(time.RFC3339),
				"transactionId": fmt.Sprintf("3f6c1a2e-0000-4000-8000-%012d", i), "amount": float64(100+i%100000) / 100,
				"netAmount": float64(100+i%100000) / 100, "feeAmount": 0.5, "counterpartName": "Maria da Silva",
			}
			if w := wallets[i%len(wallets)]; w != "" {
				ev["subAccount"] = w
			}
			switch kinds[i%len(kinds)] {
			case api.EventPaymentCompleted:
				ev["split"] = []any{map[string]any{"subAccount": "principal", "amount": 0.5}}
			case api.EventPaymentFailed:
				ev["blockedDeposit"] = map[string]any{"reason": api.ReasonCNPJPayerNotAllowed, "refund": map[string]any{"status": api.RefundPending}}
			case api.EventBalanceBlockCreated, api.EventBalanceBlockApproved, api.EventBalanceBlockRejected:
				ev["balanceBlock"] = map[string]any{"blockType": api.BlockTypeMED, "amount": ev["amount"], "status": api.BlockAwaitingResponse, "referenceNumber": "MED-1"}
			}
			raw, err := json.Marshal(ev)
			if err != nil {
				b.Fatal(err)
			}
			dec, err := api.DecodeEvent(raw)
			if err != nil {
				b.Fatal(err)
			}
			for range 1 + btoi(i%10 == 0) {
				evs = append(evs, dec)
			}
			if len(evs) >= batch || i == n-1 {
				clock.Store(at.UnixNano())
				if _, err := s.Store.ApplyEvents(context.Background(), evs); err != nil {
					b.Fatal(err)
				}
				evs = evs[:0]
			}
		}
		benchEventSession = s
	}
	m, _ := eventsModel(b, benchEventSession, 120, 40)
	return m
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkEventsView100k moves the cursor one row and renders the whole screen with 100k events
// in the store, as a merchant scrolling the feed does. p50-ns/op is the median frame.
func BenchmarkEventsView100k(b *testing.B) {
	m := benchEvents(b, 100_000)
	m.View()
	down, top := tea.KeyMsg{Type: tea.KeyDown}, runeKey("g")
	frames := make([]time.Duration, 0, min(b.N, 1<<20))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if i%500 == 0 {
			send(b, m, top)
		}
		send(b, m, down)
		_ = m.View()
		if len(frames) < cap(frames) {
			frames = append(frames, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(frames)
	if len(frames) > 0 {
		b.ReportMetric(float64(frames[len(frames)/2].Nanoseconds()), "p50-ns/op")
	}
}
