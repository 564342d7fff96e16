package ui

import (
	"fmt"
	"slices"
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
	if benchEventSession == nil || benchEventSession.Store.Events().Total() != n {
		s, clk := evSession(b, true, api.ReceiverStats{Accepted: uint64(n), Rejected: 3, Duplicates: uint64(n / 10)})
		kinds := api.EventKinds
		wallets := []string{"", "loja-sul", "loja-norte"}
		for i := range n {
			clk.t = goldenNow.Add(-time.Duration(n-i) * time.Second)
			ev := &api.Event{
				EventID: fmt.Sprintf("evt-%08d", i), Kind: kinds[i%len(kinds)], CreatedAt: clk.t, SubAccount: wallets[i%len(wallets)],
				TransactionID: fmt.Sprintf("3f6c1a2e-0000-4000-8000-%012d", i), Amount: api.Money(100 + i%100000),
				NetAmount: api.Money(100 + i%100000), FeeAmount: 50, CounterpartName: "Maria da Silva",
			}
			switch ev.Kind {
			case api.EventPaymentCompleted:
				ev.Split = []api.SplitItem{{SubAccount: "principal", Amount: 50}}
			case api.EventPaymentFailed:
				ev.BlockedDeposit = &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundPending}}
			case api.EventBalanceBlockCreated, api.EventBalanceBlockApproved, api.EventBalanceBlockRejected:
				ev.BalanceBlock = &api.BalanceBlock{BlockType: api.BlockTypeMED, Amount: ev.Amount, Status: api.BlockAwaitingResponse, ReferenceNumber: "MED-1"}
			}
			for range 1 + btoi(i%10 == 0) {
				if _, err := s.Store.ApplyEvent(ev); err != nil {
					b.Fatal(err)
				}
			}
		}
		benchEventSession = s
	}
	benchEventSession.Store.Events().SetFilter("", "")
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
			m.Update(top)
		}
		m.Update(down)
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
