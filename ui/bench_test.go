package ui

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
)

var benchSizes = []int{1_000, 10_000, 100_000}

// benchCharges makes n charges, newest first, with a mix of states.
func benchCharges(n int) []state.Charge {
	out := make([]state.Charge, n)
	descs := []string{"Café e pão de queijo", "Bolo de fubá", "Encomenda de festa", "Pingado", "Coxinha"}
	statuses := []api.TxStatus{api.StatusPending, api.StatusCompleted, api.StatusFailed, api.StatusCancelled}
	for i := range out {
		created := goldenNow.Add(-time.Duration(i) * time.Minute)
		out[i] = state.Charge{
			ID:                fmt.Sprintf("3f6c1a2e-0000-4000-8000-%012d", i),
			Amount:            api.Money(100 + i%100000),
			Description:       descs[i%len(descs)],
			ExternalReference: fmt.Sprintf("PED-%06d", i),
			Status:            statuses[i%len(statuses)],
			Wallet:            []string{api.WalletPrincipal, "loja-sul", "loja-norte"}[i%3],
			CreatedAt:         created,
			ExpiresAt:         created.Add(24 * time.Hour),
			UpdatedAt:         created,
		}
	}
	return out
}

// benchSessions caches loaded stores: the benchmark runner calls each sub-benchmark several
// times. They stay open until the process ends.
var benchSessions = map[int]*Session{}

// benchSession is a golden session whose store outlives the benchmark that made it.
func benchSession(b testing.TB, now func() time.Time) *Session {
	b.Helper()
	store := state.OpenMemory(state.WithClock(now), state.WithLocation(time.UTC))
	return &Session{Profile: "loja-centro", Env: api.Sandbox, Client: deadClient(b, "mp_test_golden"), Store: store}
}

// benchWriters is how many goroutines fill a benchmark store: each writes one charge at a time,
// and concurrent writes share a commit.
const benchWriters = 64

// benchModel is a dashboard at 120x40 tracking n charges.
func benchModel(b testing.TB, n int) *Model {
	b.Helper()
	s, ok := benchSessions[n]
	if !ok {
		s = benchSession(b, func() time.Time { return goldenNow })
		charges := benchCharges(n)
		var wg sync.WaitGroup
		errs := make(chan error, benchWriters)
		for w := range benchWriters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(charges); i += benchWriters {
					if _, err := s.Store.UpsertCharge(context.Background(), charges[i]); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		benchSessions[n] = s
	}
	m := goldenModel(b, s, 120, 40)
	if m.charges.Win.Len() == 0 {
		b.Fatal("the charges list is empty")
	}
	return m
}

// BenchmarkChargesView moves the cursor one row and renders the whole screen, as a merchant scrolling does.
func BenchmarkChargesView(b *testing.B) {
	down := tea.KeyMsg{Type: tea.KeyDown}
	top := runeKey("g")
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("pixdash/%dk", n/1000), func(b *testing.B) {
			m := benchModel(b, n)
			m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%500 == 0 {
					send(b, m, top)
				}
				send(b, m, down)
				_ = m.View()
			}
		})
		b.Run(fmt.Sprintf("bubbles-table/%dk", n/1000), func(b *testing.B) {
			t := benchTable(n)
			t.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%500 == 0 {
					t.GotoTop()
				}
				t, _ = t.Update(down)
				_ = t.View()
			}
		})
	}
}

// benchTable is bubbles/table holding the same rows and columns as the charges view.
func benchTable(n int) table.Model {
	cols := []table.Column{
		{Title: "STATUS", Width: 12}, {Title: "AMOUNT", Width: 14}, {Title: "DESCRIPTION", Width: 30},
		{Title: "REFERENCE", Width: 16}, {Title: "WALLET", Width: 12}, {Title: "CREATED", Width: 12}, {Title: "EXPIRES/PAID", Width: 13},
	}
	rows := make([]table.Row, 0, n)
	for _, ch := range benchCharges(n) {
		rows = append(rows, table.Row{string(ch.State()), ch.Amount.BRL(), ch.Description, ch.ExternalReference, ch.Wallet,
			ch.CreatedAt.Format("02/01 15:04"), ch.ExpiresAt.Sub(goldenNow).String()})
	}
	return table.New(table.WithColumns(cols), table.WithRows(rows), table.WithHeight(33), table.WithFocused(true))
}

// BenchmarkFilterKeystroke100k types one character into the filter and renders, alternating with backspace.
func BenchmarkFilterKeystroke100k(b *testing.B) {
	m := benchModel(b, 100_000)
	send(b, m, runeKey("/"))
	for _, r := range "caf" {
		send(b, m, runeKey(string(r)))
	}
	m.View()
	keys := []tea.KeyMsg{runeKey("é"), {Type: tea.KeyBackspace}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		send(b, m, keys[i%2])
		_ = m.View()
	}
}
