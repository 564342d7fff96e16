package common

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/barchart"
	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
)

// ChartOptions says how the revenue chart is drawn.
type ChartOptions struct {
	Width, Height int  // the whole chart block, axis labels included
	SideBySide    bool // wallets side by side instead of stacked
	// Color false (NO_COLOR, the Ascii profile): no escape codes at all; wallets told apart by glyph.
	Color bool
	// ASCII draws with '#', '=', '+', '.'… for terminals without block glyphs.
	ASCII bool
	Loc   *time.Location // hours and days are read in this zone (nil: the buckets' own)
	// Money formats the axis maximum ("R$ 1.234"); nil: api.Money.BRL.
	Money func(api.Money) string
}

// The wallets' colours and glyphs, by series index (cycled past the end). The glyphs tell the
// wallets apart without colour; with colour every segment is a full block and the colour does.
var (
	chartPalette = [...]lipgloss.AdaptiveColor{
		{Light: "#0B6E4F", Dark: "#32D29B"}, // green
		{Light: "#1D4ED8", Dark: "#60A5FA"}, // blue
		{Light: "#9A5B00", Dark: "#FBBF24"}, // amber
		{Light: "#7E22CE", Dark: "#C084FC"}, // purple
		{Light: "#BE185D", Dark: "#F472B6"}, // pink
		{Light: "#0E7490", Dark: "#22D3EE"}, // cyan
	}
	chartGlyphs      = [...]rune{'█', '▓', '▒', '░', '▚', '▞'}
	chartGlyphsASCII = [...]rune{'#', '=', '+', '.', 'x', '~'}
)

// chartGroup is one bar (stacked) or one group of bars (side by side): one bucket, or several
// adjacent ones summed when the width cannot give each its own bar.
type chartGroup struct {
	start time.Time
	gross []api.Money // per series, never negative
	total api.Money
}

// chartLayout is where the groups go on the plot.
type chartLayout struct {
	k        int  // buckets summed into one group
	barW     int  // cells per bar
	gap      int  // empty cells between bars (stacked)
	sep      bool // an empty bar between groups (side by side)
	perGroup int  // bars per group
}

// RevenueChart draws what was received per hour (a day) or per day (a period), per wallet, and a
// legend line: exactly o.Height lines of exactly o.Width cells ("" for a size of zero or less).
//
// The bars are ntcharts' barchart. With colour and block glyphs, heights are in eighths of a
// row (the barchart's partial blocks); otherwise in whole rows, each wallet's cells redrawn
// with its glyph. When there are more buckets than the width allows, adjacent buckets are
// merged (summed) so every bar stays at least one cell wide: for a day, by a divisor of 24
// hours, so the groups stay aligned on the clock; the last group of a period may be partial.
// The axis maximum is the tallest bar (after merging); a bucket with any payment shows at least
// the smallest step, and an empty report draws no bars.
func RevenueChart(r state.DayReport, o ChartOptions) string {
	W, H := o.Width, o.Height
	if W <= 0 || H <= 0 {
		return ""
	}
	money := o.Money
	if money == nil {
		money = api.Money.BRL
	}
	ns := len(r.Series)
	hourly := chartHourly(r)

	// The layout depends on the plot width, which depends on the axis label, which depends on
	// the merged maximum: iterate until the merge factor settles (a few rounds at most).
	var (
		lay     chartLayout
		groups  []chartGroup
		maxV    api.Money
		label   string
		gutterW int
		compact bool
		plotW   int
	)
	k := 1
	for i := 0; ; i++ {
		groups = chartMerge(r.Buckets, ns, k)
		maxV = chartMax(groups, o.SideBySide)
		label = Sanitize(money(maxV))
		gutterW, compact = chartGutter(W, label)
		plotW = W - gutterW
		lay = chartFit(len(r.Buckets), ns, plotW, hourly, o.SideBySide)
		if lay.k == k || i == 8 {
			break
		}
		k = lay.k
	}
	if lay.k != k { // did not settle: the last fit wins (the label is cut to the gutter)
		groups = chartMerge(r.Buckets, ns, lay.k)
		maxV = chartMax(groups, o.SideBySide)
		label = Sanitize(money(maxV))
	}

	// The rows: bars, the axis line, the x labels, the legend; a header for the maximum when the
	// gutter is too narrow for it. Tiny heights drop the labels, then the axis, then the legend.
	showLegend, showAxis, showX := H >= 2, H >= 3, H >= 4
	rows := H - b2i(showLegend) - b2i(showAxis) - b2i(showX)
	header := false
	if compact && rows >= 3 {
		header = true
		rows--
	}

	fine := o.Color && !o.ASCII
	unit := 1
	if fine {
		unit = 8
	}
	bars, stacks := chartBars(groups, ns, rows*unit, unit, maxV, lay, o.SideBySide)

	// The barchart draws the bars only: the axes and labels are drawn around it.
	bc := barchart.New(plotW, rows,
		barchart.WithNoAxis(),
		barchart.WithNoAutoBarWidth(),
		barchart.WithNoAutoMaxValue(),
		barchart.WithMaxValue(float64(rows)),
		barchart.WithBarWidth(lay.barW),
		barchart.WithBarGap(lay.gap),
	)
	bc.PushAll(bars)
	bc.Draw()

	cv := &chartView{o: o, fine: fine, styles: map[[2]int]lipgloss.Style{}, stacks: stacks, lay: lay, rows: rows}
	if o.Color {
		cv.axis = lipgloss.NewStyle().Foreground(colSubtle)
	}
	glyphs := chartGlyphs[:]
	axisH, axisV, axisTop, axisCorner := '─', '│', '┤', '└'
	ellipsis := "…"
	if o.ASCII {
		glyphs = chartGlyphsASCII[:]
		axisH, axisV, axisTop, axisCorner = '-', '|', '+', '+'
		ellipsis = "..."
	}
	cv.glyphs = glyphs

	out := make([]string, 0, H)
	if header {
		out = append(out, cv.muted(PadRight(ansi.Truncate(label, W, ellipsis), W)))
	}
	lw := gutterW - 2
	for y := range rows {
		var g string
		if gutterW > 0 {
			switch {
			case y == 0 && !compact:
				g = PadLeft(ansi.Truncate(label, lw, ellipsis), lw) + " " + string(axisTop)
			case y == rows-1 && !showAxis:
				g = PadLeft("0", lw) + " " + string(axisV)
			default:
				g = Spaces(lw+1) + string(axisV)
			}
		}
		out = append(out, cv.muted(g)+cv.barRow(&bc, y, plotW))
	}
	if showAxis {
		var g string
		if gutterW > 0 {
			g = PadLeft("0", lw) + " " + string(axisCorner)
		}
		out = append(out, cv.muted(g+strings.Repeat(string(axisH), plotW)))
	}
	if showX {
		xs := chartXLabels(groups, lay, plotW, hourly, o.Loc)
		out = append(out, Spaces(gutterW)+cv.muted(xs))
	}
	if showLegend {
		out = append(out, cv.legend(r.Series, W, ellipsis))
	}
	return strings.Join(out, "\n")
}

// chartHourly reports whether the buckets are hours (a day) rather than days.
func chartHourly(r state.DayReport) bool {
	if r.Step > 0 {
		return r.Step < 24*time.Hour
	}
	if len(r.Buckets) > 0 {
		b := r.Buckets[0]
		return b.End.Sub(b.Start) < 20*time.Hour
	}
	return true
}

// chartMerge sums every k adjacent buckets into one group (negative amounts count as zero).
func chartMerge(bs []state.Bucket, ns, k int) []chartGroup {
	k = max(k, 1)
	out := make([]chartGroup, 0, (len(bs)+k-1)/k)
	for i := 0; i < len(bs); i += k {
		g := chartGroup{start: bs[i].Start, gross: make([]api.Money, ns)}
		for _, b := range bs[i:min(i+k, len(bs))] {
			for j := 0; j < ns && j < len(b.Gross); j++ {
				if v := b.Gross[j]; v > 0 {
					g.gross[j] += v
					g.total += v
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// chartMax is the tallest bar: a group's total (stacked) or one wallet's amount (side by side).
func chartMax(groups []chartGroup, side bool) api.Money {
	var m api.Money
	for _, g := range groups {
		if !side {
			m = max(m, g.total)
			continue
		}
		for _, v := range g.gross {
			m = max(m, v)
		}
	}
	return m
}

// chartGutter is the width of the y axis at the left: the maximum's label, a space and the axis
// line. When that would leave the bars less than half the width, the gutter is only "0" and the
// line (compact), and the maximum goes on a line of its own above.
func chartGutter(W int, label string) (int, bool) {
	lw := max(ansi.StringWidth(label), 1)
	if g := lw + 2; W-g >= max(W/2, 1) {
		return g, false
	}
	if W >= 6 {
		return 3, true
	}
	return 0, true
}

// chartFit picks the smallest merge factor that gives every bar a cell, and the bars' width.
func chartFit(n, ns, plotW int, hourly, side bool) chartLayout {
	per := 1
	if side {
		per = max(ns, 1)
	}
	lay := chartLayout{k: 1, barW: 1, perGroup: per}
	if n == 0 || plotW <= 0 {
		return lay
	}
	for _, k := range chartMergeFactors(n, hourly) {
		g := (n + k - 1) / k
		lay.k = k
		if side {
			if units := g*per + g - 1; units <= plotW {
				lay.sep, lay.gap, lay.barW = g > 1, 0, plotW/units
				return lay
			}
			if units := g * per; units <= plotW {
				lay.sep, lay.gap, lay.barW = false, 0, plotW/units
				return lay
			}
			continue
		}
		if 2*g-1 <= plotW {
			lay.gap = 1
			lay.barW = (plotW - (g - 1)) / g
			return lay
		}
		if g <= plotW {
			lay.gap, lay.barW = 0, plotW/g
			return lay
		}
	}
	// Even one group does not fit (more wallets than cells side by side): the barchart draws
	// what fits.
	lay.k, lay.barW, lay.gap, lay.sep = max(n, 1), 1, 0, false
	return lay
}

// chartMergeFactors are the merge factors tried, smallest first: divisors of 24 then whole
// days for hours, any count for days.
func chartMergeFactors(n int, hourly bool) []int {
	var ks []int
	if hourly {
		for _, k := range []int{1, 2, 3, 4, 6, 8, 12, 24} {
			ks = append(ks, k)
			if k >= n {
				return ks
			}
		}
		for k := 48; ; k += 24 {
			ks = append(ks, k)
			if k >= n {
				return ks
			}
		}
	}
	for k := 1; k <= n; k++ {
		ks = append(ks, k)
	}
	return ks
}

// chartSeg is one wallet's segment of a bar: its series and where its top is, in units from
// the bottom (cumulative).
type chartSeg struct {
	series, top int
}

// chartBars turns the groups into the barchart's bars, already scaled: a value of 1 is one
// row, and every value is a whole number of units (1 or 1/8 of a row) so the segments add up
// exactly and the tallest bar reaches the top row. The segment's Name is its series index and
// its style's foreground a marker colour of that index, read back when the canvas is drawn.
// The stacks, one per bar (separators included), say the same in units.
func chartBars(groups []chartGroup, ns, full, unit int, maxV api.Money, lay chartLayout, side bool) ([]barchart.BarData, [][]chartSeg) {
	scale := func(v api.Money) int {
		if maxV <= 0 || v <= 0 {
			return 0
		}
		u := int(math.Round(float64(v) / float64(maxV) * float64(full)))
		return min(max(u, 1), full) // something was received: at least one unit
	}
	var stacks [][]chartSeg
	for gi, g := range groups {
		if side {
			if lay.sep && gi > 0 {
				stacks = append(stacks, nil)
			}
			if ns == 0 {
				stacks = append(stacks, nil)
			}
			for j := range ns {
				var st []chartSeg
				if u := scale(g.gross[j]); u > 0 {
					st = []chartSeg{{j, u}}
				}
				stacks = append(stacks, st)
			}
			continue
		}
		// Stacked: each segment's top is its cumulative sum scaled, so rounding never adds up.
		var st []chartSeg
		var cum api.Money
		prev := 0
		for j := range ns {
			cum += g.gross[j]
			top := 0
			if maxV > 0 {
				top = min(int(math.Round(float64(cum)/float64(maxV)*float64(full))), full)
			}
			if top > prev && g.gross[j] > 0 {
				st = append(st, chartSeg{j, top})
				prev = top
			}
		}
		if prev == 0 && g.total > 0 { // too small for a unit: one unit for its largest wallet
			big := 0
			for j := range ns {
				if g.gross[j] > g.gross[big] {
					big = j
				}
			}
			st = []chartSeg{{big, 1}}
		}
		stacks = append(stacks, st)
	}
	markers := make([]lipgloss.Style, ns)
	for j := range markers {
		markers[j] = lipgloss.NewStyle().Foreground(lipgloss.Color(strconv.Itoa(j)))
	}
	bars := make([]barchart.BarData, len(stacks))
	for i, st := range stacks {
		prev := 0
		for _, sg := range st {
			bars[i].Values = append(bars[i].Values, barchart.BarValue{
				Name: strconv.Itoa(sg.series), Value: float64(sg.top-prev) / float64(unit), Style: markers[sg.series],
			})
			prev = sg.top
		}
	}
	return bars, stacks
}

// chartView draws the canvas' cells, with the wallets' glyphs and colours.
type chartView struct {
	o      ChartOptions
	fine   bool
	glyphs []rune
	axis   lipgloss.Style
	styles map[[2]int]lipgloss.Style
	stacks [][]chartSeg // the bars, for the background of partial cells
	lay    chartLayout
	rows   int
}

// topSeries is the wallet that covers the top of the cell at plot column x, row y when the bar
// goes on above it (-1: the bar ends in that cell, or there is no bar). The barchart draws a
// partial block where a segment ends inside a cell and the next one goes on; its background
// would be that next wallet's colour, but barchart v0.4.0 drops it (lipgloss styles are
// values and its Background result is discarded), so it is put back here.
func (cv *chartView) topSeries(x, y int) int {
	step := cv.lay.barW + cv.lay.gap
	if step <= 0 || x%step >= cv.lay.barW {
		return -1
	}
	b := x / step
	if b >= len(cv.stacks) || len(cv.stacks[b]) == 0 {
		return -1
	}
	cellTop := (cv.rows - y) * 8 // fine mode: eighths
	for _, sg := range cv.stacks[b] {
		if sg.top >= cellTop {
			return sg.series
		}
	}
	return -1
}

// muted draws axis text in the axis colour (plain without colour).
func (cv *chartView) muted(s string) string {
	if !cv.o.Color || s == "" {
		return s
	}
	return cv.axis.Render(s)
}

// style is the colour of a cell whose foreground is wallet fg over wallet bg (-1: none).
func (cv *chartView) style(fg, bg int) lipgloss.Style {
	key := [2]int{fg, bg}
	if s, ok := cv.styles[key]; ok {
		return s
	}
	s := lipgloss.NewStyle()
	if fg >= 0 {
		s = s.Foreground(chartPalette[fg%len(chartPalette)])
	}
	if bg >= 0 {
		s = s.Background(chartPalette[bg%len(chartPalette)])
	}
	cv.styles[key] = s
	return s
}

// markerIndex reads back the series index chartBars put in a style's colour (-1: none).
func markerIndex(c lipgloss.TerminalColor) int {
	m, ok := c.(lipgloss.Color)
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(string(m))
	if err != nil {
		return -1
	}
	return i
}

// barRow draws row y of the barchart's canvas, plotW cells.
func (cv *chartView) barRow(bc *barchart.Model, y, plotW int) string {
	var b, run strings.Builder
	runKey := [2]int{-2, -2}
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if cv.o.Color && runKey[0] >= 0 {
			b.WriteString(cv.style(runKey[0], runKey[1]).Render(run.String()))
		} else {
			b.WriteString(run.String())
		}
		run.Reset()
	}
	for x := range plotW {
		c := bc.Canvas.Cell(canvas.Point{X: x, Y: y})
		key := [2]int{-1, -1}
		r := ' '
		if c.Rune != 0 && c.Rune != ' ' {
			key = [2]int{markerIndex(c.Style.GetForeground()), markerIndex(c.Style.GetBackground())}
			r = c.Rune
			switch {
			case r == '█':
				key[1] = -1 // a full block hides its background
			case cv.fine:
				key[1] = cv.topSeries(x, y)
			}
			if !cv.fine {
				key[1] = -1
				if key[0] >= 0 {
					r = cv.glyphs[key[0]%len(cv.glyphs)]
				}
			}
		}
		if key != runKey {
			flush()
			runKey = key
		}
		run.WriteRune(r)
	}
	flush()
	return b.String()
}

// legend lists every wallet with its glyph and colour, cut with an ellipsis to w cells.
func (cv *chartView) legend(series []string, w int, ellipsis string) string {
	var b strings.Builder
	used := 0
	for j, name := range series {
		glyph := '█'
		if !cv.fine {
			glyph = cv.glyphs[j%len(cv.glyphs)]
		}
		text := " " + Sanitize(name)
		sepW := 0
		if j > 0 {
			sepW = 2
		}
		need := sepW + 1 + ansi.StringWidth(text)
		if used+need > w {
			// Cut here: as much of this entry as fits, then the ellipsis.
			room := w - used - sepW
			ew := ansi.StringWidth(ellipsis)
			if room < ew+1 { // not even the glyph: an ellipsis where there is room
				if j > 0 && w-used >= ew {
					b.WriteString(Spaces(min(sepW, w-used-ew)))
					b.WriteString(ellipsis)
					used += min(sepW, w-used-ew) + ew
				}
				break
			}
			if j > 0 {
				b.WriteString("  ")
			}
			cv.writeGlyph(&b, j, glyph)
			b.WriteString(ansi.Truncate(text, room-1, ellipsis))
			used += sepW + 1 + ansi.StringWidth(ansi.Truncate(text, room-1, ellipsis))
			break
		}
		if j > 0 {
			b.WriteString("  ")
		}
		cv.writeGlyph(&b, j, glyph)
		b.WriteString(text)
		used += need
	}
	return b.String() + Spaces(w-used)
}

func (cv *chartView) writeGlyph(b *strings.Builder, j int, glyph rune) {
	if cv.o.Color {
		b.WriteString(cv.style(j, -1).Render(string(glyph)))
		return
	}
	b.WriteRune(glyph)
}

// chartXLabels is the line under the axis: hours ("0h  6h  12h  18h", every 3 h when wide) for
// a day, day and month ("24/11") for a period, as many as fit without touching.
func chartXLabels(groups []chartGroup, lay chartLayout, plotW int, hourly bool, loc *time.Location) string {
	if plotW <= 0 || len(groups) == 0 {
		return Spaces(plotW)
	}
	at := func(t time.Time) time.Time {
		if loc != nil {
			return t.In(loc)
		}
		return t
	}
	text := func(g chartGroup) string {
		t := at(g.start)
		if hourly {
			return strconv.Itoa(t.Hour()) + "h"
		}
		return twoDigits(t.Day()) + "/" + twoDigits(int(t.Month()))
	}
	// Where group i's bars start, and how wide they are together.
	groupX := func(i int) (int, int) {
		if lay.perGroup > 1 || lay.sep {
			per := lay.perGroup
			if lay.sep {
				per++
			}
			return i * per * lay.barW, lay.perGroup * lay.barW
		}
		return i * (lay.barW + lay.gap), lay.barW
	}
	line := []byte(Spaces(plotW))
	place := func(idx []int) bool {
		type lab struct {
			x int
			s string
		}
		var labs []lab
		end := -1 // first free cell after the previous label and its space
		for n, i := range idx {
			s := text(groups[i])
			w := len(s)
			x, gw := groupX(i)
			if gw > w {
				x += (gw - w) / 2
			}
			if x+w > plotW {
				x = plotW - w
			}
			if x < 0 {
				return false
			}
			if x < end {
				if n == len(idx)-1 && n > 0 { // a last label pushed back by the edge: drop it
					break
				}
				return false
			}
			labs = append(labs, lab{x, s})
			end = x + w + 1
		}
		for _, l := range labs {
			copy(line[l.x:], l.s)
		}
		return len(labs) > 0
	}
	var sets [][]int
	if hourly {
		for _, every := range []int{3, 6, 8, 12, 24} {
			if every%lay.k != 0 {
				continue
			}
			var idx []int
			for i, g := range groups {
				if at(g.start).Hour()%every == 0 {
					idx = append(idx, i)
				}
			}
			if len(idx) > 0 {
				sets = append(sets, idx)
			}
		}
	}
	if !hourly {
		for _, every := range []int{1, 2, 3, 4, 5, 7, 10, 14, 15, 20, 30} {
			sets = append(sets, everyNth(len(groups), every))
		}
		for every := 60; every < len(groups); every *= 2 {
			sets = append(sets, everyNth(len(groups), every))
		}
	}
	sets = append(sets, []int{0})
	for _, idx := range sets {
		if place(idx) {
			break
		}
	}
	return string(line)
}

func everyNth(n, every int) []int {
	var out []int
	for i := 0; i < n; i += every {
		out = append(out, i)
	}
	return out
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
