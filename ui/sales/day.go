package sales

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// dayRefreshEvery is how often the day view reads again while on screen with nothing changing:
// "now" moves (the comparison's cut, the day's end).
const dayRefreshEvery = time.Minute

// DayView is the merchant's day: what was received in a period (gross, fees, net), the counts
// by state, the average ticket, the comparison with the span before, a revenue chart and, for
// all wallets, a totals table per wallet. The figures are the local database's: the charges
// this profile knows (created here or reported by the service).
type DayView struct {
	common.Asker // the period picker, the custom range and the close report
	c            *common.Common

	Width, height int

	// The period: days (1, 7 or 30) ending back periods before today, or custom when set.
	Days   int
	back   int
	Custom *state.Period
	// sideBySide draws the wallets' bars next to each other instead of stacked.
	sideBySide bool

	Seq     uint64 // numbers reads; a reply for an older one is dropped
	Loading bool
	again   bool // the store changed during a read: read once more after it
	Loaded  bool
	Report  state.DayReport
	shownAt time.Time // when the shown figures were read
	errText string

	chart   string // the chart drawn for the report and size (see redraw)
	ticking bool
	tickSeq uint64
	focused bool
}

// DayMsg is a read of the day's figures.
type DayMsg struct {
	Tag    common.Tag
	Seq    uint64
	all    bool
	Report state.DayReport
	err    error
	At     time.Time
}

// DayTickMsg re-reads the figures once a minute while the view is on screen.
type DayTickMsg struct{ gen, seq uint64 }

// DayPeriodMsg is the period chosen in the picker or the custom range form.
type DayPeriodMsg struct {
	days   int
	back   int
	custom *state.Period
	ask    bool // open the custom range form
}

// NewDayView makes the day view.
func NewDayView(c *common.Common) *DayView {
	return &DayView{c: c, Days: 1}
}

// Title names the view in the tab strip.
func (v *DayView) Title() string { return v.c.Tr.T("day.sales") }

// CapturesText reports whether printable keys belong to its text fields.
func (v *DayView) CapturesText() bool { return false }

// SetSize gives it its room in cells.
func (v *DayView) SetSize(w, h int) tea.Cmd {
	v.Width, v.height = w, h
	v.redraw()
	return nil
}

// Focus gives the view the keyboard back and resumes the periodic refresh; it reads nothing now.
func (v *DayView) Focus() tea.Cmd {
	v.focused = true
	if !v.ticking {
		return v.scheduleTick()
	}
	return nil
}

// Start reads the period's figures and starts the periodic refresh.
func (v *DayView) Start() tea.Cmd {
	v.focused = true
	cmds := []tea.Cmd{v.load()}
	if !v.ticking {
		cmds = append(cmds, v.scheduleTick())
	}
	return tea.Batch(cmds...)
}

// Blur runs when it leaves the screen or the keyboard.
func (v *DayView) Blur() { v.focused = false }

// period is the span the view shows.
func (v *DayView) period() state.Period {
	if v.Custom != nil {
		return *v.Custom
	}
	anchor := v.c.Now().In(v.c.Loc).AddDate(0, 0, -v.back*v.Days)
	return state.Days(anchor, v.Days, v.c.Loc)
}

// load reads the figures of the period; a read in flight is followed by one more.
func (v *DayView) load() tea.Cmd {
	if v.c.App.Sess == nil || v.c.App.Sess.Store == nil {
		return nil
	}
	if v.Loading {
		v.again = true
		return nil
	}
	v.Seq++
	v.Loading, v.again = true, false
	fee, hasFee := common.FeeEstimate(v.c)
	q := state.DayQuery{Period: v.period(), Wallet: common.ScopeWallet(v.c), Now: v.c.Now(), Fee: fee, HasFee: hasFee}
	t, seq, all, store, now := v.c.App.Tag(), v.Seq, v.c.App.AllWallets, v.c.App.Sess.Store, v.c.Now
	return v.c.App.WithTimeout(common.DayReadTimeout, func(ctx context.Context) tea.Msg {
		r, err := store.DayReport(ctx, q)
		return DayMsg{Tag: t, Seq: seq, all: all, Report: r, err: err, At: now()}
	})
}

func (v *DayView) scheduleTick() tea.Cmd {
	v.tickSeq++
	v.ticking = true
	gen, seq := v.c.App.Gen, v.tickSeq
	return tea.Tick(dayRefreshEvery, func(time.Time) tea.Msg { return DayTickMsg{gen: gen, seq: seq} })
}

// ShortHelp lists the keys the footer shows.
func (v *DayView) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.Period, k.PrevPeriod, k.Scope, k.CloseDay}
}

// FullHelp lists the view's keys for the help screen.
func (v *DayView) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{{k.Period, k.PrevPeriod, k.NextPeriod, k.Scope, k.Bars, k.CloseDay, k.Refresh}}
}

// Update handles a key or a reply meant for it.
func (v *DayView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.key(msg)
	case DayMsg:
		return v.onReport(msg)
	case DayTickMsg:
		if msg.gen != v.c.App.Gen || msg.seq != v.tickSeq || !v.ticking {
			return nil
		}
		if !v.focused {
			v.ticking = false
			return nil
		}
		return tea.Batch(v.load(), v.scheduleTick())
	case DayPeriodMsg:
		if msg.ask {
			v.Ask(newRangeForm(v.c, v.period()))
			return nil
		}
		v.Days, v.back, v.Custom = max(msg.days, 1), msg.back, msg.custom
		return v.reload()
	case common.StoreChangedMsg:
		return v.load()
	case common.WalletChangedMsg, common.ScopeChangedMsg:
		return v.reload()
	}
	return nil
}

// reload drops the figures shown (another period, scope or wallet) and reads.
func (v *DayView) reload() tea.Cmd {
	v.Loaded, v.errText = false, ""
	v.Seq++ // a read in flight is for what was shown before
	v.Loading = false
	return v.load()
}

func (v *DayView) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case key.Matches(km, k.Period):
		v.Ask(newPeriodPicker(v.c, v.Days, v.back, v.Custom != nil))
	case key.Matches(km, k.PrevPeriod):
		v.shift(1)
		return v.reload()
	case key.Matches(km, k.NextPeriod):
		if v.Custom == nil && v.back == 0 {
			return nil
		}
		v.shift(-1)
		return v.reload()
	case key.Matches(km, k.Scope):
		return common.ToggleScope(v.c)
	case key.Matches(km, k.Bars):
		v.sideBySide = !v.sideBySide
		v.redraw()
	case key.Matches(km, k.Refresh):
		return v.load()
	case key.Matches(km, k.CloseDay):
		v.Ask(newCloseOverlay(v.c, v.closeDay()))
		return nil
	}
	return nil
}

// closeDay is the day the close report is for: the period's day when it is one day, else today.
func (v *DayView) closeDay() state.Period {
	p := v.period()
	if p.DayCount(v.c.Loc) == 1 {
		return p
	}
	return state.Days(v.c.Now(), 1, v.c.Loc)
}

// shift moves the period n spans back (negative: forward); a custom range moves by its length.
func (v *DayView) shift(n int) {
	if v.Custom != nil {
		days := v.Custom.DayCount(v.c.Loc)
		p := state.Period{From: v.Custom.From.AddDate(0, 0, -n*days), To: v.Custom.To.AddDate(0, 0, -n*days)}
		v.Custom = &p
		return
	}
	v.back = max(v.back+n, 0)
}

func (v *DayView) onReport(msg DayMsg) tea.Cmd {
	if v.c.App.Stale(msg.Tag) || msg.Seq != v.Seq {
		return nil
	}
	v.Loading = false
	var cmd tea.Cmd
	if v.again {
		cmd = v.load()
	}
	if msg.err != nil {
		v.errText = v.c.Tr.F("day.could_not_read_the_figures", msg.err)
		return cmd
	}
	v.errText = ""
	v.Loaded, v.Report, v.shownAt = true, msg.Report, msg.At
	v.redraw()
	return cmd
}

// dayFrame is how the body is shared between the summary, the chart and the wallets table.
type dayFrame struct {
	summary []string
	table   []string
	chartH  int
}

// frame lays the view out at its size; the chart gets what the text leaves.
func (v *DayView) frame() dayFrame {
	f := dayFrame{summary: v.summaryLines(v.Width)}
	if v.c.App.AllWallets && len(v.Report.Wallets) > 0 {
		f.table = v.TableLines(v.Width)
	}
	left := v.height - 1 - len(f.summary) - len(f.table)
	if len(f.table) > 0 {
		left-- // a blank line before the table
	}
	if left < 5 && len(f.table) > 0 {
		// Too short for both: the table goes first, the chart keeps its room.
		left += len(f.table) + 1
		f.table = nil
	}
	f.chartH = min(left, 16)
	if f.chartH < 4 {
		f.chartH = 0
	}
	return f
}

// redraw draws the chart for the report and size (in update, so view only joins strings).
func (v *DayView) redraw() {
	v.chart = ""
	if !v.Loaded || v.Width <= 0 {
		return
	}
	f := v.frame()
	if f.chartH == 0 {
		return
	}
	v.chart = common.RevenueChart(v.Report, common.ChartOptions{
		Width: v.Width, Height: f.chartH, SideBySide: v.sideBySide,
		Color: lipgloss.ColorProfile() != termenv.Ascii, ASCII: v.c.ASCII,
		Loc: v.c.Loc, Money: compactMoney,
	})
}

// compactMoney is an axis label: whole reais with thousands grouped ("R$ 1.235").
func compactMoney(m api.Money) string {
	r := (m + 50) / 100 * 100
	s := r.BRL()
	return strings.TrimSuffix(s, ",00")
}

// periodLabel names the period: "Today · 24/11/2026", "Last 7 days · 18/11–24/11/2026"…
func (v *DayView) periodLabel() string {
	tr, loc := v.c.Tr, v.c.Loc
	p := v.period()
	from, to := p.From.In(loc), p.To.Add(-time.Millisecond).In(loc)
	span := from.Format("02/01") + "–" + to.Format("02/01/2006")
	switch {
	case v.Custom != nil:
		return tr.T("day.custom") + " · " + span
	case v.Days == 1 && v.back == 0:
		return tr.T("day.today") + " · " + from.Format("02/01/2006")
	case v.Days == 1 && v.back == 1:
		return tr.T("day.yesterday") + " · " + from.Format("02/01/2006")
	case v.Days == 1:
		return from.Format("02/01/2006")
	case v.back == 0:
		return tr.F("day.last_days", v.Days) + " · " + span
	}
	return tr.F("day.days", v.Days) + " · " + span
}

// comparisonLabel says what the figures are compared with.
func (v *DayView) comparisonLabel() string {
	tr := v.c.Tr
	p := v.period()
	now := v.c.Now()
	running := now.After(p.From) && now.Before(p.To)
	days := p.DayCount(v.c.Loc)
	switch {
	case days == 1 && running:
		return tr.F("day.vs_yesterday_until", now.In(v.c.Loc).Format("15:04"))
	case days == 1:
		return tr.T("day.vs_the_day_before")
	case running:
		return tr.F("day.vs_the_days_before_until_the", days)
	}
	return tr.F("day.vs_the_days_before", days)
}

// summaryLines are the figures above the chart, wrapped to w.
func (v *DayView) summaryLines(w int) []string {
	st, tr := v.c.St, v.c.Tr
	if !v.Loaded {
		return nil
	}
	t := v.Report.Total
	sep := st.Muted.Render(" · ")
	fees := st.Label.Render(tr.T("day.fees")) + st.Value.Render(t.Fees.BRL())
	if t.FeesEstimated > 0 {
		note := tr.N("day.estimated_n", t.FeesEstimated)
		if !v.Report.Query.HasFee { // no fee to estimate with when the figures were read
			note = tr.N("day.fees_unknown_n", t.FeesEstimated)
		}
		fees += st.Warn.Render(" (" + note + ")")
	}
	received := []string{
		st.Label.Render(tr.T("day.received")) + st.Bold.Render(t.Gross.BRL()),
		fees,
		common.DayNetText(st, tr, t),
	}
	counts := []string{
		st.Label.Render(tr.T("day.payments")) + st.OK.Render(fmt.Sprint(t.Paid)),
		st.Label.Render(tr.T("day.avg_ticket")) + st.Value.Render(t.AverageTicket().BRL()),
		st.Label.Render(v.comparisonLabel()+": ") + st.Value.Render(v.Report.Previous.Gross.BRL()) + " " + st.Bold.Render(common.Change(tr, t.Gross, v.Report.Previous.Gross)),
	}
	count := func(label string, n int, s state.ChargeState) string {
		return st.Label.Render(label) + st.StateStyle(s).Render(fmt.Sprint(n))
	}
	states := []string{
		st.Label.Render(tr.T("day.created")) + st.Value.Render(fmt.Sprint(t.Created)),
		count(tr.T("day.pending"), t.Pending, state.StatePending),
		count(tr.T("day.expired"), t.Expired, state.StateExpired),
		count(tr.T("day.failed"), t.Failed, state.StateFailed),
	}
	if t.Cancelled > 0 {
		states = append(states, count(tr.T("day.cancelled"), t.Cancelled, state.StateCancelled))
	}
	states = append(states, st.Label.Render(tr.T("day.refunded"))+st.Warn.Render(fmt.Sprint(t.Refunded))+st.Muted.Render(" ("+t.RefundedAmount.BRL()+")"))
	if t.Returned > 0 {
		states = append(states, st.Label.Render(tr.T("day.returned_by_med"))+st.Warn.Render(fmt.Sprint(t.Returned))+st.Muted.Render(" ("+t.ReturnedAmount.BRL()+")"))
	}
	if t.Blocked > 0 {
		states = append(states, st.Label.Render(tr.T("day.held_by_med"))+st.Warn.Render(fmt.Sprint(t.Blocked))+st.Muted.Render(" ("+t.BlockedAmount.BRL()+")"))
	}
	var out []string
	out = append(out, common.PackSegments(received, sep, w, len(received))...)
	out = append(out, common.PackSegments(counts, sep, w, len(counts))...)
	out = append(out, common.PackSegments(states, sep, w, len(states))...)
	return out
}

// TableLines are the per-wallet totals: a header and one line per wallet, then the total.
func (v *DayView) TableLines(w int) []string {
	st, tr := v.c.St, v.c.Tr
	type col struct {
		title string
		width int
		prio  int // dropped first when the line is too narrow: higher
	}
	// NET is after fees and refunds: GROSS − FEES − REFUNDED = NET reads left to right, and
	// FEES and REFUNDED stay after PENDING and AVG are dropped (80 columns keep them).
	cols := []col{
		{tr.T("day.wallet_caps"), 14, 0}, {tr.T("day.paid_caps"), 5, 0}, {tr.T("day.gross_caps"), 14, 0}, {tr.T("day.fees_caps"), 11, 3},
		{tr.T("day.refunded_caps"), 13, 2}, {tr.T("day.net_caps"), 14, 1}, {tr.T("day.pending_caps"), 8, 5}, {tr.T("day.avg_caps"), 11, 4},
	}
	keep := make([]bool, len(cols))
	for i := range keep {
		keep[i] = true
	}
	widthOf := func() int {
		n := 0
		for i, c := range cols {
			if keep[i] {
				n += c.width + 1
			}
		}
		return n
	}
	for p := 5; p > 0 && widthOf() > w; p-- {
		for i, c := range cols {
			if c.prio == p {
				keep[i] = false
			}
		}
	}
	row := func(cells []string, style lipgloss.Style) string {
		var b strings.Builder
		for i, c := range cols {
			if !keep[i] {
				continue
			}
			if i == 0 {
				b.WriteString(common.PadRight(cells[i], c.width))
			} else {
				b.WriteString(" " + common.PadLeft(cells[i], c.width))
			}
		}
		return style.Render(common.TruncateWidth(b.String(), w))
	}
	cells := func(t state.Totals, name string) []string {
		net := tr.T("day.unknown") // a fee is unknown (state.Totals.DayNet)
		if n, ok := t.DayNet(); ok {
			net = n.BRL()
		}
		return []string{name, fmt.Sprint(t.Paid), t.Gross.BRL(), t.Fees.BRL(), t.RefundedAmount.BRL(), net, fmt.Sprint(t.Pending), t.AverageTicket().BRL()}
	}
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out := []string{row(titles, st.Label)}
	for _, t := range v.Report.Wallets {
		name := common.Sanitize(t.Wallet)
		style := st.Value
		if t.Wallet == v.c.App.Wallet {
			name = "▸" + name
			style = st.Bold
		}
		out = append(out, row(cells(t, name), style))
	}
	if len(v.Report.Wallets) > 1 {
		out = append(out, row(cells(v.Report.Total, tr.T("day.total")), st.Bold))
	}
	return out
}

// View renders it at the size it was given; it changes nothing.
func (v *DayView) View() string {
	w, h := v.Width, v.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st, tr := v.c.St, v.c.Tr
	scope := tr.F("day.wallet", common.Sanitize(v.c.App.Wallet))
	if v.c.App.AllWallets {
		scope = tr.T("day.all_wallets")
	}
	left := st.Bold.Render(v.periodLabel()) + st.Muted.Render(" · "+scope)
	var right string
	switch {
	case v.Loading && !v.Loaded:
		right = st.Muted.Render(tr.T("day.reading"))
	case v.errText != "":
		right = st.Err.Render(tr.T("day.not_updated"))
	case v.Loaded:
		right = st.Muted.Render(tr.T("day.charges_known_to_this_profile"))
	}
	lines := []string{common.Spread(left, right, w)}
	if v.errText != "" {
		lines = append(lines, common.WrapLines(v.errText, w, 2)...)
	}
	if !v.Loaded {
		if v.errText == "" {
			lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.T("day.reading_the_figures"), w)))
		}
		return common.FitLines(lines, h)
	}
	f := v.frame()
	lines = append(lines, f.summary...)
	if v.Report.Total.Paid == 0 && v.Report.Total.Created == 0 && v.Report.Total.Refunded == 0 {
		lines = append(lines, "", st.Muted.Render(common.TruncateWidth(tr.T("day.no_sales_in_this_period_p"), w)))
	}
	if v.chart != "" {
		lines = append(lines, strings.Split(v.chart, "\n")...)
	}
	if len(f.table) > 0 {
		lines = append(lines, "")
		lines = append(lines, f.table...)
	}
	return common.FitLines(lines, h)
}

// newPeriodPicker offers the periods: today, yesterday, 7 and 30 days, a custom range.
func newPeriodPicker(c *common.Common, days, back int, custom bool) *common.Picker {
	tr := c.Tr
	items := []common.PickerItem{
		{Label: tr.T("day.today"), Value: "1/0", Current: !custom && days == 1 && back == 0},
		{Label: tr.T("day.yesterday"), Value: "1/1", Current: !custom && days == 1 && back == 1},
		{Label: tr.T("day.last_7_days"), Value: "7/0", Current: !custom && days == 7 && back == 0},
		{Label: tr.T("day.last_30_days"), Value: "30/0", Current: !custom && days == 30 && back == 0},
		{Label: tr.T("day.custom_range"), Value: "custom", Current: custom},
	}
	p := common.NewPicker(c, tr.T("day.period"), items, func(val string) tea.Msg {
		if val == "custom" {
			return DayPeriodMsg{ask: true}
		}
		var d, b int
		_, _ = fmt.Sscanf(val, "%d/%d", &d, &b)
		return DayPeriodMsg{days: d, back: b}
	})
	p.CloseOnChoose = true
	return p
}

// ClockKey is what of the view changes with the clock (see common.Clocked): the minute ("vs
// yesterday until 15:04") and the day (today's period).
func (v *DayView) ClockKey(now time.Time) string { return common.MinuteKey(now, v.c.Loc) }
