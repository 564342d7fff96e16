package charges

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/ui/common"
)

// todayStrip is the one-line summary of today on the charges view: received, paid, net and the
// comparison with yesterday until the same time, for the list's scope (the active wallet or all).
type todayStrip struct {
	c       *common.Common
	seq     uint64
	loading bool
	again   bool
	loaded  bool
	report  state.DayReport
	errText string
	// midnight is the day's end a timer is set for (zero: none); at midnight the strip reads again.
	midnight time.Time
}

// StripMidnightMsg is the strip's timer at the end of the day it shows.
type StripMidnightMsg struct{ gen uint64 }

// StripMsg is a read of today's figures for the strip.
type StripMsg struct {
	tag    common.Tag
	seq    uint64
	report state.DayReport
	err    error
}

// load reads today's totals; a read in flight is followed by one more.
func (s *todayStrip) load() tea.Cmd {
	if s.c.App.Sess == nil || s.c.App.Sess.Store == nil {
		return nil
	}
	if s.loading {
		s.again = true
		return nil
	}
	s.seq++
	s.loading, s.again = true, false
	fee, hasFee := common.FeeEstimate(s.c)
	now := s.c.Now()
	q := state.DayQuery{Period: state.Days(now, 1, s.c.Loc), Wallet: common.ScopeWallet(s.c), Now: now, Fee: fee, HasFee: hasFee, NoBuckets: true}
	t, seq, store := s.c.App.Tag(), s.seq, s.c.App.Sess.Store
	return s.c.App.WithTimeout(common.DayReadTimeout, func(ctx context.Context) tea.Msg {
		r, err := store.DayReport(ctx, q)
		return StripMsg{tag: t, seq: seq, report: r, err: err}
	})
}

// reset drops the figures (another wallet or scope) and reads.
func (s *todayStrip) reset() tea.Cmd {
	s.loaded, s.errText = false, ""
	s.seq++
	s.loading = false
	return s.load()
}

func (s *todayStrip) onMsg(msg StripMsg) tea.Cmd {
	if s.c.App.Stale(msg.tag) || msg.seq != s.seq {
		return nil
	}
	s.loading = false
	var cmd tea.Cmd
	if s.again {
		cmd = s.load()
	}
	if msg.err != nil {
		s.errText = s.c.Tr.F("strip.today_s_figures_could_not_be", msg.err)
		return cmd
	}
	s.loaded, s.report, s.errText = true, msg.report, ""
	if end := msg.report.Query.Period.To; !end.Equal(s.midnight) {
		s.midnight = end
		gen := s.c.App.Gen
		cmd = tea.Batch(cmd, tea.Tick(max(end.Sub(s.c.Now()), time.Second), func(time.Time) tea.Msg { return StripMidnightMsg{gen: gen} }))
	}
	return cmd
}

// onMidnight reads the new day's figures.
func (s *todayStrip) onMidnight(msg StripMidnightMsg) tea.Cmd {
	if msg.gen != s.c.App.Gen {
		return nil
	}
	s.midnight = time.Time{}
	return s.load()
}

// stale reports whether the figures were read for another day than today.
func (s *todayStrip) stale(now time.Time) bool {
	return s.loaded && !now.Before(s.report.Query.Period.To)
}

// View is the strip at width w.
func (s *todayStrip) View(w int) string {
	st, tr := s.c.St, s.c.Tr
	switch {
	case s.errText != "":
		return st.Err.Render(common.TruncateWidth(s.errText, w))
	case !s.loaded, s.stale(s.c.Now()):
		return st.Muted.Render(common.TruncateWidth(tr.T("strip.today_reading"), w))
	}
	t := s.report.Total
	sep := st.Muted.Render(" · ")
	if t.Paid == 0 {
		line := st.Label.Render(tr.T("strip.today_no_payments_yet"))
		if y := s.report.Previous; y.Paid > 0 {
			line += sep + st.Label.Render(tr.F("strip.yesterday_by", s.c.Now().In(s.c.Loc).Format("15:04"))) + st.Value.Render(y.Gross.BRL())
		}
		return common.TruncateWidth(line+sep+st.Muted.Render(tr.T("strip.6_for_more")), w)
	}
	// What happened to the money comes first: on a narrow terminal the hint, the comparison
	// and the count of payments go, whole, rather than an amount being cut.
	gross := st.Label.Render(tr.T("strip.today")) + st.Bold.Render(t.Gross.BRL()) + sep
	payments := st.Label.Render(tr.T("strip.payments")) + st.OK.Render(fmt.Sprint(t.Paid)) + sep
	money := common.DayNetText(st, tr, t) + sep + stripRefunds(st, tr, t)
	vs := st.Label.Render(tr.F("strip.vs_yesterday_until", s.c.Now().In(s.c.Loc).Format("15:04"))+" ") +
		st.Bold.Render(common.Change(tr, t.Gross, s.report.Previous.Gross)) + sep
	more := st.Muted.Render(tr.T("strip.6_for_more"))
	for _, line := range []string{gross + payments + money + vs + more, gross + payments + money + vs, gross + payments + money, gross + money} {
		if line = strings.TrimSuffix(line, sep); lipgloss.Width(line) <= w {
			return line
		}
	}
	return common.TruncateWidth(strings.TrimSuffix(gross+money, sep), w)
}

// stripRefunds is the refunds of the day the net already subtracts, then what MED blocks
// returned or hold, each with its separator; "" when there was none.
func stripRefunds(st *common.Styles, tr common.Catalog, t state.Totals) string {
	var out string
	if t.Refunded > 0 {
		out += st.Label.Render(tr.T("strip.refunded")) + st.Warn.Render(t.RefundedAmount.BRL()) + st.Muted.Render(" · ")
	}
	// Money a MED block returned to the payer or holds: received, but not the merchant's now.
	if t.Returned > 0 {
		out += st.Label.Render(tr.T("strip.returned_by_med")) + st.Warn.Render(t.ReturnedAmount.BRL()) + st.Muted.Render(" · ")
	}
	if t.Blocked > 0 {
		out += st.Label.Render(tr.T("strip.held_by_med")) + st.Warn.Render(t.BlockedAmount.BRL()) + st.Muted.Render(" · ")
	}
	return out
}
