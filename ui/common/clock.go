package common

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
)

// HumanAge prints how long ago something happened in whole minutes: <1m, 4m, 2h05m, 3d04h.
// An "x ago" text changes once a minute, not every second, so an idle screen showing one is
// redrawn (and written to the terminal) once a minute (issue 27); countdowns, which the
// customer watches, keep HumanDuration's seconds.
func HumanAge(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// NewInput is a text field whose cursor does not blink: a blinking cursor redraws its line
// twice a second, so an idle form would write to the terminal all the time (issue 27).
func NewInput() textinput.Model {
	ti := textinput.New()
	ti.Cursor.SetMode(cursor.CursorStatic)
	return ti
}

// MinuteKey is the minute now is in, in loc: the part of a ClockKey for texts that show the
// time of day or depend on the day (see Clocked).
func MinuteKey(now time.Time, loc *time.Location) string {
	return now.In(loc).Format("2006-01-02 15:04")
}
