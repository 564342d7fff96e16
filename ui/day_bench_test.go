package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/sales"
)

// benchDayReport is a report shaped like a busy shop's: every bucket of the period has payments
// in each wallet. Its shape, not the database's size, is what drawing costs: the period query
// (state's BenchmarkDayReport) is what grows with the history.
func benchDayReport(days, wallets int) state.DayReport {
	loc := time.UTC
	p := state.Days(goldenNow, days, loc)
	r := state.DayReport{Query: state.DayQuery{Period: p, Now: goldenNow}, Step: time.Hour}
	if days > 1 {
		r.Step = 24 * time.Hour
	}
	for w := range wallets {
		name := []string{api.WalletPrincipal, "loja-sul", "loja-norte", "loja-praia"}[w%4]
		r.Series = append(r.Series, name)
		t := state.Totals{Wallet: name, Created: 900, Paid: 800, Gross: 4_000_000, Fees: 79_200, Pending: 30, Expired: 50, Failed: 20}
		r.Wallets = append(r.Wallets, t)
		r.Total.Created += t.Created
		r.Total.Paid += t.Paid
		r.Total.Gross += t.Gross
		r.Total.Fees += t.Fees
	}
	r.Previous = r.Total
	for at := p.From; at.Before(p.To); at = at.Add(r.Step) {
		b := state.Bucket{Start: at, End: at.Add(r.Step), Gross: make([]api.Money, wallets), Paid: make([]int, wallets)}
		for w := range wallets {
			b.Gross[w] = api.Money(10_000 + (at.Hour()+w*7)%13*2_500)
			b.Paid[w] = 5
		}
		r.Buckets = append(r.Buckets, b)
	}
	return r
}

// BenchmarkDayViewRender is the frame after the period's figures arrive: the reply is applied
// (the chart is drawn for the new report) and the whole dashboard is rendered. The issue's
// target is 16 ms.
func BenchmarkDayViewRender(b *testing.B) {
	for _, tc := range []struct {
		days, wallets int
		w, h          int
		color         bool
	}{
		{1, 1, 80, 24, false}, {1, 3, 120, 40, false}, {30, 3, 120, 40, false}, {30, 3, 120, 40, true}, {30, 4, 200, 60, true},
	} {
		b.Run(fmt.Sprintf("days=%d/wallets=%d/%dx%d/color=%v", tc.days, tc.wallets, tc.w, tc.h, tc.color), func(b *testing.B) {
			if tc.color {
				lipgloss.SetColorProfile(termenv.TrueColor)
				b.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
			}
			s := benchSession(b, func() time.Time { return goldenNow })
			m := New(Options{Session: s, Lang: common.LangEN, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: tc.w, Height: tc.h})
			m.view = viewDay
			v := m.panes[viewDay].(*sales.DayView)
			m.app.AllWallets = tc.wallets > 1
			v.Days = tc.days
			rep := benchDayReport(tc.days, tc.wallets)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				v.Loading = true
				v.Update(sales.DayMsg{Tag: m.app.Tag(), Seq: v.Seq, Report: rep, At: goldenNow})
				if out := m.View(); len(out) == 0 {
					b.Fatal("empty frame")
				}
			}
		})
	}
}
