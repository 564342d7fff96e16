package ui

import (
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/ui/common"
)

// countingWriter counts the bytes Bubble Tea writes to the terminal.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n.Add(int64(len(p))); return len(p), nil }

// idleRig runs the dashboard in a real Bubble Tea program with only its clock (no engine, no
// service): what an idle dashboard does each second.
type idleRig struct{ m *Model }

func (r idleRig) Init() tea.Cmd { return common.Tick() }
func (r idleRig) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.m.Update(msg)
	return r, cmd
}
func (r idleRig) View() string { return r.m.View() }

// bareTicker is a bare Bubble Tea program with the same clock: the baseline of idle CPU.
type bareTicker struct{ now time.Time }

func (b bareTicker) Init() tea.Cmd { return common.Tick() }
func (b bareTicker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if t, ok := msg.(common.TickMsg); ok {
		b.now = time.Time(t)
		return b, common.Tick()
	}
	return b, nil
}
func (b bareTicker) View() string { return "pixdash bare\n" + b.now.Format("15:04") }

// TestIdleOutputPerMinute (PIXDASH_IDLE=1; PIXDASH_IDLE_SECONDS per side, 30 by default) runs
// an idle dashboard (charges view, 120x40, 256 colours, the real clock) in a Bubble Tea program
// for the same time with the frame cache off ("before") and on ("after"), one after the
// other, beside a bare Bubble Tea program with the same one-second tick ("bare"), and logs per minute the bytes written to the terminal, the frames built and the CPU
// time used. It asserts nothing about time: the figures go in README › Performance.
func TestIdleOutputPerMinute(t *testing.T) {
	if os.Getenv("PIXDASH_IDLE") == "" {
		t.Skip("set PIXDASH_IDLE=1 to measure an idle dashboard's output")
	}
	secs := 30
	if s, err := strconv.Atoi(os.Getenv("PIXDASH_IDLE_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
	for _, side := range []string{"bare", "before", "after"} {
		frameCacheOff = side == "before"
		var model tea.Model = bareTicker{}
		if side != "bare" {
			s := goldenSession(t, api.Sandbox)
			goldenCharges(t, s)
			m := goldenModel(t, s, 120, 40)
			m.c.Now = time.Now
			model = idleRig{m}
		}
		var frames atomic.Int64
		testHookRender = func() { frames.Add(1) }
		out := &countingWriter{}
		p := tea.NewProgram(model, tea.WithOutput(out), tea.WithInput(nil), tea.WithoutSignalHandler())
		done := make(chan error, 1)
		go func() { _, err := p.Run(); done <- err }()
		p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
		time.Sleep(2 * time.Second) // the first frames
		b0, f0, c0 := out.n.Load(), frames.Load(), cpuTime()
		time.Sleep(time.Duration(secs) * time.Second)
		b1, f1, c1 := out.n.Load(), frames.Load(), cpuTime()
		p.Quit()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		testHookRender = nil
		perMin := 60 / float64(secs)
		t.Logf("%s: %.0f B/min written, %.0f frames/min built, CPU %.1f ms/min (%d s measured)",
			side, float64(b1-b0)*perMin, float64(f1-f0)*perMin, float64(c1-c0)/1e6*perMin, secs)
	}
	frameCacheOff = false
}

// cpuTime is the process's user and system CPU time so far, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
