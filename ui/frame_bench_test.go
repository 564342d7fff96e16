package ui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/ui/common"
)

// benchProfiles are the colour profiles the view benchmarks draw in (issue 27: without colour
// they understate the cost).
var benchProfiles = []struct {
	name string
	p    termenv.Profile
}{{"ascii", termenv.Ascii}, {"256", termenv.ANSI256}, {"truecolor", termenv.TrueColor}}

// withProfile sets lipgloss's colour profile (and whether NewStyles converts colours once)
// for one benchmark, and restores both after it.
func withProfile(b *testing.B, p termenv.Profile, once bool) {
	old, oldOnce := lipgloss.ColorProfile(), common.ColoursOnce
	lipgloss.SetColorProfile(p)
	common.ColoursOnce = once
	b.Cleanup(func() { lipgloss.SetColorProfile(old); common.ColoursOnce = oldOnce })
}

// BenchmarkMainViewRender builds the whole 120x40 frame of each main view (1k charges in the
// store) in each colour profile, with each colour converted on every Render ("each", before
// issue 27) and once when the styles are built ("once").
func BenchmarkMainViewRender(b *testing.B) {
	views := []struct {
		name string
		id   viewID
	}{{"charges", viewCharges}, {"inspector", viewInspector}, {"wallets", viewWallets}, {"blocks", viewBlocks}, {"events", viewEvents}, {"sales", viewDay}}
	for _, v := range views {
		for _, pr := range benchProfiles {
			for _, once := range []bool{false, true} {
				conv := map[bool]string{false: "each", true: "once"}[once]
				b.Run(fmt.Sprintf("%s/%s/colours-%s", v.name, pr.name, conv), func(b *testing.B) {
					withProfile(b, pr.p, once)
					benchModel(b, 1_000) // the store, filled once
					m := goldenModel(b, benchSessions[1_000], 120, 40)
					settle(b, m, m.showView(v.id))
					m.render()
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						_ = m.render()
					}
				})
			}
		}
	}
}

// BenchmarkIdleTick is one second of an idle dashboard (charges view, 1k charges, 120x40,
// 256 colours): the tick handled and the frame asked for, as Bubble Tea does. "before" builds
// the frame on every tick; "after" keeps it while nothing on screen changed.
func BenchmarkIdleTick(b *testing.B) {
	for _, side := range []string{"before", "after"} {
		b.Run(side, func(b *testing.B) {
			withProfile(b, termenv.ANSI256, side == "after")
			frameCacheOff = side == "before"
			b.Cleanup(func() { frameCacheOff = false })
			benchModel(b, 1_000)
			m := goldenModel(b, benchSessions[1_000], 120, 40)
			frames := 0
			testHookRender = func() { frames++ }
			b.Cleanup(func() { testHookRender = nil })
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(common.TickMsg(goldenNow))
				_ = m.View()
			}
			b.ReportMetric(float64(frames)/float64(b.N), "frames/tick")
		})
	}
}
