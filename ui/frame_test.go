package ui

import (
	"reflect"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/ui/common"
)

// countFrames counts the frames m builds from now on (the render hook).
func countFrames(t testing.TB) *int {
	t.Helper()
	n := new(int)
	testHookRender = func() { *n++ }
	t.Cleanup(func() { testHookRender = nil })
	return n
}

// A tick that changes nothing on screen builds no frame: View returns the frame kept from the
// last one, which is the frame a fresh render draws. A tick that moves a countdown on screen,
// a key, and a status message that expires each build one (issue 27: every message redrew the
// whole screen).
func TestQuietTickBuildsNoFrame(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	now := goldenNow.Add(-30 * time.Second) // the countdown shows 23h58m for 30 s more
	m := goldenModel(t, s, 120, 40)
	m.c.Now = func() time.Time { return now }
	frames := countFrames(t)
	tick := func() string {
		t.Helper()
		send(t, m, common.TickMsg(now))
		return m.View()
	}
	first := tick()
	if *frames != 1 {
		t.Fatalf("the first tick built %d frames, want 1", *frames)
	}
	for range 5 {
		now = now.Add(100 * time.Millisecond)
		if got := tick(); got != first {
			t.Fatalf("a quiet tick changed the frame:\n%s\nwant\n%s", got, first)
		}
	}
	if *frames != 1 {
		t.Fatalf("5 quiet ticks built %d more frames, want 0", *frames-1)
	}
	if fresh := m.render(); fresh != first {
		t.Fatalf("the kept frame is not what a render draws:\n%s\nwant\n%s", first, fresh)
	}

	// The pending charge's countdown (23h58m, minutes) moves a minute: one frame, new text.
	*frames = 0
	now = now.Add(time.Minute)
	if got := tick(); got == first || *frames != 1 {
		t.Fatalf("a tick moving a countdown: %d frames (want 1), changed %v", *frames, got != first)
	}

	// A key is not quiet: View builds its frame.
	*frames = 0
	send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	m.View()
	if *frames != 1 {
		t.Fatalf("a key: %d frames, want 1", *frames)
	}
}

// With the cache off (the code before issue 27), every tick builds a frame: the benchmark's
// "before" side measures the same thing.
func TestQuietTickFramesWithoutCache(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	frameCacheOff = true
	t.Cleanup(func() { frameCacheOff = false })
	frames := countFrames(t)
	for range 5 {
		send(t, m, common.TickMsg(goldenNow))
		m.View()
	}
	if *frames != 5 {
		t.Fatalf("%d frames without the cache, want 5", *frames)
	}
}

// Converting each colour once, when the styles are built, draws exactly what converting it on
// every Render drew, in every colour profile and on both backgrounds.
func TestColoursOnceDrawTheSame(t *testing.T) {
	oldP, oldDark, oldOnce := lipgloss.ColorProfile(), lipgloss.HasDarkBackground(), common.ColoursOnce
	t.Cleanup(func() {
		lipgloss.SetColorProfile(oldP)
		lipgloss.SetHasDarkBackground(oldDark)
		common.ColoursOnce = oldOnce
	})
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
		for _, dark := range []bool{false, true} {
			lipgloss.SetColorProfile(p)
			lipgloss.SetHasDarkBackground(dark)
			common.ColoursOnce = false
			each := common.NewStyles()
			common.ColoursOnce = true
			once := common.NewStyles()
			ve, vo := reflect.ValueOf(each).Elem(), reflect.ValueOf(once).Elem()
			drawn := 0
			for i := range ve.NumField() {
				se, ok := ve.Field(i).Interface().(lipgloss.Style)
				if !ok {
					continue
				}
				so := vo.Field(i).Interface().(lipgloss.Style)
				name := ve.Type().Field(i).Name
				if a, b := se.Render("R$ 12,34"), so.Render("R$ 12,34"); a != b {
					t.Errorf("profile %v, dark %v, %s: %q once, %q each", p, dark, name, b, a)
				}
				drawn++
			}
			if drawn < 30 {
				t.Fatalf("only %d styles compared", drawn)
			}
		}
	}
}
