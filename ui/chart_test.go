package ui

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

var chartLoc = time.FixedZone("BRT", -3*3600)

var chartWallets = []string{"principal", "loja-centro", "loja-praia"}

// chartDayReport is a day of 24 hourly buckets: the tallest at 12h (R$ 600, all three wallets),
// half of it at 18h (R$ 300, principal only), a little at 9h.
func chartDayReport(series []string) state.DayReport {
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, chartLoc)
	r := state.DayReport{Step: time.Hour, Series: series}
	for h := range 24 {
		b := state.Bucket{Start: day.Add(time.Duration(h) * time.Hour), End: day.Add(time.Duration(h+1) * time.Hour),
			Gross: make([]api.Money, len(series)), Paid: make([]int, len(series))}
		fill := func(vals ...api.Money) {
			for i, v := range vals {
				if i < len(series) {
					b.Gross[i] = v
				}
			}
		}
		switch h {
		case 9:
			fill(5000, 2000, 3000)
		case 12:
			fill(30000, 20000, 10000)
		case 18:
			fill(30000)
		}
		r.Buckets = append(r.Buckets, b)
	}
	return r
}

// chartPeriodReport is n daily buckets ending on 24/11/2026, each with vals(i) per wallet.
func chartPeriodReport(n int, series []string, vals func(i int) []api.Money) state.DayReport {
	end := time.Date(2026, 11, 25, 0, 0, 0, 0, chartLoc)
	r := state.DayReport{Step: 24 * time.Hour, Series: series}
	for i := range n {
		start := time.Date(end.Year(), end.Month(), end.Day()-n+i, 0, 0, 0, 0, chartLoc)
		b := state.Bucket{Start: start, End: start.AddDate(0, 0, 1), Gross: make([]api.Money, len(series))}
		copy(b.Gross, vals(i))
		r.Buckets = append(r.Buckets, b)
	}
	return r
}

func chartOpts(w, h int) common.ChartOptions {
	return common.ChartOptions{Width: w, Height: h, Loc: chartLoc, Money: compactChartMoney}
}

// compactChartMoney is the test's axis formatter: whole reais.
func compactChartMoney(m api.Money) string {
	return strings.TrimSuffix(((m + 50) / 100 * 100).BRL(), ",00")
}

// chartPlot returns the bar rows of a chart drawn with an axis (height ≥ 4, no header), cut to
// the plot area (right of the y axis line).
func chartPlot(t *testing.T, out string, o common.ChartOptions) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	rows := o.Height - 3
	axis := lines[rows]
	corner := "└"
	if o.ASCII {
		corner = "+"
	}
	i := strings.Index(axis, corner)
	if i < 0 {
		t.Fatalf("no axis corner in %q\n%s", axis, out)
	}
	gutter := lipglossWidthPrefix(axis, i) + 1
	plot := make([]string, rows)
	for y := range rows {
		plot[y] = string([]rune(lines[y])[gutter:])
	}
	return plot
}

func lipglossWidthPrefix(s string, byteIdx int) int { return lipgloss.Width(s[:byteIdx]) }

// columnHeights is, per plot column, how many rows from the bottom hold a bar cell.
func columnHeights(plot []string) []int {
	if len(plot) == 0 {
		return nil
	}
	w := len([]rune(plot[0]))
	hs := make([]int, w)
	for x := range w {
		for y := len(plot) - 1; y >= 0; y-- {
			rs := []rune(plot[y])
			if x >= len(rs) || rs[x] == ' ' {
				break
			}
			hs[x]++
		}
	}
	return hs
}

func TestChartSizeBounds(t *testing.T) {
	day := chartDayReport(chartWallets)
	month := chartPeriodReport(31, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i * 1000), 50000, api.Money(i % 7 * 3000)} })
	long := chartPeriodReport(400, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i), 1, 2} })
	many := make([]string, 12)
	for i := range many {
		many[i] = "carteira-" + strings.Repeat("x", i)
	}
	reports := map[string]state.DayReport{
		"day":      day,
		"month":    month,
		"long":     long,
		"empty":    {},
		"noSeries": chartDayReport(nil),
		"zeros":    chartPeriodReport(7, chartWallets, func(int) []api.Money { return nil }),
		"many":     chartPeriodReport(10, many, func(i int) []api.Money { return []api.Money{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} }),
		"huge":     chartPeriodReport(3, chartWallets, func(int) []api.Money { return []api.Money{1 << 60, 1 << 60, 1 << 60} }),
		"negative": chartPeriodReport(3, chartWallets, func(int) []api.Money { return []api.Money{-500, 300} }),
		"ragged":   {Step: time.Hour, Series: chartWallets, Buckets: []state.Bucket{{Gross: []api.Money{100}}, {}}},
	}
	widths := []int{-3, 0, 1, 2, 3, 5, 12, 20, 30, 41, 76, 120, 200}
	heights := []int{-1, 0, 1, 2, 3, 4, 5, 6, 10, 30}
	variants := []common.ChartOptions{{}, {SideBySide: true}, {ASCII: true}, {Color: true}, {Color: true, SideBySide: true, ASCII: true}}
	for name, r := range reports {
		for _, w := range widths {
			for _, h := range heights {
				for _, v := range variants {
					o := v
					o.Width, o.Height, o.Loc = w, h, chartLoc
					if name != "day" {
						o.Money = compactChartMoney
					}
					out := common.RevenueChart(r, o)
					if w <= 0 || h <= 0 {
						if out != "" {
							t.Fatalf("%s %dx%d: want empty, got %q", name, w, h, out)
						}
						continue
					}
					lines := strings.Split(out, "\n")
					if len(lines) != h {
						t.Fatalf("%s %dx%d %+v: %d lines\n%s", name, w, h, v, len(lines), out)
					}
					for i, l := range lines {
						if got := lipgloss.Width(l); got != w {
							t.Fatalf("%s %dx%d %+v: line %d is %d cells wide: %q\n%s", name, w, h, v, i, got, l, out)
						}
					}
				}
			}
		}
	}
}

func TestChartTallestReachesTopAndProportional(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    common.ChartOptions
	}{
		{"76x10", chartOpts(76, 10)},
		{"76x10 ascii", func() common.ChartOptions { o := chartOpts(76, 10); o.ASCII = true; return o }()},
		{"76x10 color (eighths)", func() common.ChartOptions { o := chartOpts(76, 10); o.Color = true; return o }()},
		{"30x6", chartOpts(30, 6)},
		{"120x14", chartOpts(120, 14)},
		{"200x30", chartOpts(200, 30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := common.RevenueChart(chartDayReport(chartWallets), tc.o)
			plot := chartPlot(t, out, tc.o)
			rows := len(plot)
			hs := columnHeights(plot)
			var distinct []int
			for _, h := range hs {
				if h > 0 && !slices.Contains(distinct, h) {
					distinct = append(distinct, h)
				}
			}
			slices.Sort(distinct)
			if len(distinct) == 0 || distinct[len(distinct)-1] != rows {
				t.Fatalf("the tallest bar does not reach the top row (%d rows): heights %v\n%s", rows, distinct, out)
			}
			// 18h holds half the maximum, 9h a sixth: the bars in between are about half.
			half := float64(rows) / 2
			found := false
			for _, h := range distinct {
				if d := float64(h) - half; d >= -1 && d <= 1 {
					found = true
				}
			}
			if !found {
				t.Fatalf("no bar about half as tall (%g of %d rows): heights %v\n%s", half, rows, distinct, out)
			}
			if rows >= 6 && !slices.ContainsFunc(distinct, func(h int) bool { return h < rows/2 }) {
				t.Fatalf("the small bucket is not shorter than half: heights %v\n%s", distinct, out)
			}
		})
	}
}

// The total a merged bar draws is what its buckets hold: with more days than columns, the last
// day's payments still show (merged, not clipped), and the maximum is the merged sum.
func TestChartMergesWhenNarrow(t *testing.T) {
	r := chartPeriodReport(60, chartWallets, func(i int) []api.Money {
		if i == 59 {
			return []api.Money{100000}
		}
		return []api.Money{100}
	})
	for _, side := range []bool{false, true} {
		o := chartOpts(30, 8)
		o.SideBySide = side
		out := common.RevenueChart(r, o)
		plot := chartPlot(t, out, o)
		hs := columnHeights(plot)
		last := -1
		for x, h := range hs {
			if h == len(plot) {
				last = x
			}
		}
		if last < 0 {
			t.Fatalf("side=%v: the last day's bar is missing\n%s", side, out)
		}
		if !strings.Contains(out, "R$ 1.00") {
			t.Fatalf("side=%v: the axis maximum should be the merged sum (R$ 1.00x)\n%s", side, out)
		}
	}
}

func TestChartStackedVersusSideBySide(t *testing.T) {
	r := chartDayReport(chartWallets)
	stacked := chartOpts(76, 10)
	side := stacked
	side.SideBySide = true
	a, b := common.RevenueChart(r, stacked), common.RevenueChart(r, side)
	if a == b {
		t.Fatal("stacked and side by side draw the same")
	}
	glyphsPerColumn := func(out string, o common.ChartOptions) int {
		plot := chartPlot(t, out, o)
		most := 0
		for x := range len([]rune(plot[0])) {
			var seen []rune
			for _, l := range plot {
				if c := []rune(l)[x]; c != ' ' && !slices.Contains(seen, c) {
					seen = append(seen, c)
				}
			}
			most = max(most, len(seen))
		}
		return most
	}
	if n := glyphsPerColumn(a, stacked); n < 3 {
		t.Fatalf("stacked: a column should hold the three wallets' glyphs, the most is %d\n%s", n, a)
	}
	if n := glyphsPerColumn(b, side); n != 1 {
		t.Fatalf("side by side: a column should hold one wallet, the most is %d\n%s", n, b)
	}
	// Side by side, at 12h: R$ 300, R$ 200 and R$ 100 of a R$ 300 maximum, in 7 rows.
	hs := columnHeights(chartPlot(t, b, side))
	for _, want := range []float64{7, 7 * 2.0 / 3, 7.0 / 3} {
		if !slices.ContainsFunc(hs, func(h int) bool { return float64(h)-want >= -1 && float64(h)-want <= 1 }) {
			t.Fatalf("side by side: no bar about %g rows tall: %v\n%s", want, hs, b)
		}
	}
	// Side by side, the maximum is one wallet's (R$ 300), not the bucket's sum (R$ 600).
	if !strings.Contains(b, "R$ 300 ┤") || !strings.Contains(a, "R$ 600 ┤") {
		t.Fatalf("axis maximum:\n%s\n%s", a, b)
	}
}

// Colour is decided by the option, not by the terminal: Color=false writes no escape code even
// when lipgloss would colour.
func TestChartColorOption(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	r := chartDayReport([]string{"principal", "loja\x1b[31mred", "loja-praia"})
	for _, tc := range []struct {
		name string
		o    common.ChartOptions
	}{
		{"plain", chartOpts(76, 10)},
		{"ascii", func() common.ChartOptions { o := chartOpts(76, 10); o.ASCII = true; return o }()},
		{"side", func() common.ChartOptions { o := chartOpts(76, 10); o.SideBySide = true; return o }()},
	} {
		out := common.RevenueChart(r, tc.o)
		if strings.Contains(out, "\x1b") {
			t.Fatalf("%s: escape code with Color=false: %q", tc.name, out)
		}
		tc.o.Color = true
		colored := common.RevenueChart(r, tc.o)
		if !strings.Contains(colored, "\x1b[") {
			t.Fatalf("%s: Color=true under TrueColor draws no colour", tc.name)
		}
		if strings.Contains(colored, "\x1b[31mred") {
			t.Fatalf("%s: the wallet name's escape code went through: %q", tc.name, colored)
		}
		for i, l := range strings.Split(colored, "\n") {
			if w := lipgloss.Width(l); w != 76 {
				t.Fatalf("%s colour: line %d is %d wide", tc.name, i, w)
			}
		}
	}
}

// With colour, a segment ending inside a cell below the next wallet's is a partial block whose
// background is that wallet's colour, not a gap at the top of the bar.
func TestChartPartialCellBackground(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	// 7 rows of eighths: principal ends at 6.5 rows, the other two fill the top half cell.
	r := chartPeriodReport(1, chartWallets, func(int) []api.Money { return []api.Money{60000, 3000, 2000} })
	o := chartOpts(40, 10)
	o.Color = true
	top := strings.Split(common.RevenueChart(r, o), "\n")[0]
	if !strings.Contains(top, "▄") || !strings.Contains(top, ";48;2;") {
		t.Fatalf("the top cell should be a half block over the upper wallet's colour: %q", top)
	}
	o.SideBySide = true
	if top := strings.Split(common.RevenueChart(r, o), "\n")[0]; strings.Contains(top, "48;2;") {
		t.Fatalf("side by side, a bar's top has no background: %q", top)
	}
}

func TestChartASCIIOnly(t *testing.T) {
	for _, side := range []bool{false, true} {
		for _, size := range [][2]int{{76, 10}, {30, 6}, {120, 14}, {12, 3}} {
			o := chartOpts(size[0], size[1])
			o.ASCII, o.SideBySide = true, side
			for _, r := range []state.DayReport{
				chartDayReport(chartWallets),
				chartPeriodReport(31, []string{"principal", "a-very-long-wallet-name-that-will-not-fit", "x"}, func(i int) []api.Money { return []api.Money{api.Money(i * 100), 5, 7} }),
			} {
				out := common.RevenueChart(r, o)
				for i := 0; i < len(out); i++ {
					if out[i] >= 0x80 {
						t.Fatalf("side=%v %v: non-ASCII byte %#x in\n%s", side, size, out[i], out)
					}
				}
			}
		}
	}
	o := chartOpts(76, 10)
	o.ASCII = true
	out := common.RevenueChart(chartDayReport(chartWallets), o)
	for _, g := range []string{"#", "=", "+"} {
		if !strings.Contains(strings.Join(chartPlot(t, out, o), "\n"), g) {
			t.Fatalf("ASCII bars should use %q:\n%s", g, out)
		}
	}
}

var (
	hourLabel = regexp.MustCompile(`^([0-9]|1[0-9]|2[0-3])h$`)
	dayLabel  = regexp.MustCompile(`^(0[1-9]|[12][0-9]|3[01])/(0[1-9]|1[0-2])$`)
)

func TestChartXLabels(t *testing.T) {
	week := chartPeriodReport(7, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i * 1000), 300, 200} })
	month := chartPeriodReport(31, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i * 1000), 300, 200} })
	for _, tc := range []struct {
		name string
		r    state.DayReport
		w, h int
		side bool
		re   *regexp.Regexp
		want []string // labels that must appear, in this order
	}{
		{"day 76", chartDayReport(chartWallets), 76, 10, false, hourLabel, []string{"0h", "6h", "12h", "18h"}},
		{"day 76 side", chartDayReport(chartWallets), 76, 10, true, hourLabel, []string{"0h", "6h", "12h", "18h"}},
		{"day 120", chartDayReport(chartWallets), 120, 14, false, hourLabel, []string{"0h", "3h", "6h", "9h", "12h", "15h", "18h", "21h"}},
		{"day 30", chartDayReport(chartWallets), 30, 6, false, hourLabel, []string{"0h", "12h"}},
		{"day 30 side", chartDayReport(chartWallets), 30, 6, true, hourLabel, []string{"0h"}},
		{"week 76", week, 76, 10, false, dayLabel, []string{"18/11", "19/11", "20/11", "21/11", "22/11", "23/11", "24/11"}},
		{"week 30", week, 30, 6, false, dayLabel, []string{"18/11"}},
		{"week side 76", week, 76, 10, true, dayLabel, []string{"18/11", "24/11"}},
		{"month 120", month, 120, 14, false, dayLabel, []string{"25/10", "24/11"}},
		{"month 30", month, 30, 6, false, dayLabel, []string{"25/10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := chartOpts(tc.w, tc.h)
			o.SideBySide = tc.side
			out := common.RevenueChart(tc.r, o)
			lines := strings.Split(out, "\n")
			xl := lines[len(lines)-2]
			fields := strings.Fields(xl)
			if len(fields) == 0 {
				t.Fatalf("no x labels:\n%s", out)
			}
			for _, f := range fields {
				if !tc.re.MatchString(f) {
					t.Fatalf("label %q is not a label (overlapping?): %q\n%s", f, xl, out)
				}
			}
			i := 0
			for _, f := range fields {
				if i < len(tc.want) && f == tc.want[i] {
					i++
				}
			}
			if i < len(tc.want) {
				t.Fatalf("labels %v, want %v in order:\n%s", fields, tc.want, out)
			}
		})
	}
}

func TestChartLegend(t *testing.T) {
	r := chartDayReport(chartWallets)
	o := chartOpts(76, 10)
	out := common.RevenueChart(r, o)
	lines := strings.Split(out, "\n")
	legend := lines[len(lines)-1]
	want := "█ principal  ▓ loja-centro  ▒ loja-praia"
	if strings.TrimRight(legend, " ") != want {
		t.Fatalf("legend %q, want %q", legend, want)
	}
	o.ASCII = true
	lines = strings.Split(common.RevenueChart(r, o), "\n")
	if got := strings.TrimRight(lines[len(lines)-1], " "); got != "# principal  = loja-centro  + loja-praia" {
		t.Fatalf("ASCII legend %q", got)
	}
	// Too long: cut with an ellipsis, never wider than the chart.
	o = chartOpts(30, 6)
	lines = strings.Split(common.RevenueChart(r, o), "\n")
	legend = lines[len(lines)-1]
	if !strings.Contains(legend, "…") || !strings.HasPrefix(legend, "█ principal  ▓ loja") || lipgloss.Width(legend) != 30 {
		t.Fatalf("cut legend %q", legend)
	}
}

func TestChartHostileWalletName(t *testing.T) {
	r := chartDayReport([]string{"principal", "loja\x1b[31mred", "x\u202eevil\r\n"})
	for _, ascii := range []bool{false, true} {
		o := chartOpts(76, 10)
		o.ASCII = ascii
		out := common.RevenueChart(r, o)
		if strings.ContainsAny(out, "\x1b\r\u202e") {
			t.Fatalf("control characters drawn: %q", out)
		}
		if !strings.Contains(out, "loja [31mred") {
			t.Fatalf("the sanitized name is missing:\n%s", out)
		}
		if n := len(strings.Split(out, "\n")); n != 10 {
			t.Fatalf("a name broke the lines: %d", n)
		}
	}
}

func TestChartEmpty(t *testing.T) {
	for name, r := range map[string]state.DayReport{
		"no buckets": {Step: time.Hour, Series: chartWallets},
		"no series":  chartDayReport(nil),
		"zeros":      chartPeriodReport(7, chartWallets, func(int) []api.Money { return nil }),
	} {
		o := chartOpts(76, 10)
		out := common.RevenueChart(r, o)
		plot := chartPlot(t, out, o)
		for _, l := range plot {
			if strings.TrimSpace(l) != "" {
				t.Fatalf("%s: bars drawn with nothing received:\n%s", name, out)
			}
		}
	}
}

func TestChartDeterministic(t *testing.T) {
	r := chartPeriodReport(31, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i * 977), 300, api.Money(i % 5 * 800)} })
	o := chartOpts(120, 14)
	first := common.RevenueChart(r, o)
	for range 5 {
		if common.RevenueChart(r, o) != first {
			t.Fatal("not deterministic")
		}
	}
}

func BenchmarkRevenueChart(b *testing.B) {
	month := chartPeriodReport(30, chartWallets, func(i int) []api.Money { return []api.Money{api.Money(i * 977), 300, api.Money(i % 5 * 800)} })
	day := chartDayReport(chartWallets)
	for _, bc := range []struct {
		name string
		r    state.DayReport
		o    common.ChartOptions
	}{
		{"period30x3/120x14", month, chartOpts(120, 14)},
		{"period30x3/120x14/color", month, func() common.ChartOptions { o := chartOpts(120, 14); o.Color = true; return o }()},
		{"day24/76x10", day, chartOpts(76, 10)},
		{"day24/76x10/side", day, func() common.ChartOptions { o := chartOpts(76, 10); o.SideBySide = true; return o }()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = common.RevenueChart(bc.r, bc.o)
			}
		})
	}
}
