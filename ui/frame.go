package ui

import (
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/ui/common"
)

// The frame cache (issue 27): a tick, or one of the root's own samplings (token life, hub,
// database refresh), usually changes nothing on screen, yet Bubble Tea asks for a frame after
// every message. After such a quiet message the root's Update compares the clock key (what the
// header, tabs and status line show, and the ClockKey of each component on screen) with that of
// the frame it kept: the same key returns the kept frame and builds none; another key builds
// the frame once, in Update, and keeps it. Any other message may change anything: it drops the
// kept frame, and View builds the frame as before.
type frameCache struct {
	text  string
	key   string
	valid bool
}

// frameCacheOff turns the cache off (the benchmarks' "before" side).
var frameCacheOff = false

// quietMsg reports whether msg is one whose handling can change only what the clock key covers.
func quietMsg(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case common.TickMsg, linkSampledMsg, hubSampledMsg, storeRefreshedMsg, common.AddressedCmd:
		return true
	case engineMsg:
		return quietReports(msg.rs)
	}
	return false
}

// afterUpdate keeps the frame up to date after msg was handled (see frameCache).
func (m *Model) afterUpdate(msg tea.Msg) {
	quiet := quietMsg(msg)
	if _, ok := msg.(engineMsg); ok {
		quiet = quiet && m.engineQuiet
	}
	if frameCacheOff || !quiet {
		m.shown.valid = false
		return
	}
	key := m.clockKey()
	if m.shown.valid && key == m.shown.key {
		return
	}
	m.shown = frameCache{text: m.render(), key: key, valid: true}
}

// clockKey summarises what of the screen may change with the clock or the root's samplings:
// the header and tabs as drawn now, the status line, and each on-screen component's ClockKey
// (a component without one makes every key new: it is drawn again on every tick). A
// full-screen overlay (the QR screen) hides all below it, as render draws it: then only it and
// the overlays above it count.
func (m *Model) clockKey() string {
	if m.c.Width == 0 || m.tooSmall() {
		return "small"
	}
	now := m.c.Now()
	for i := len(m.overlays) - 1; i >= 0; i-- {
		if m.overlays[i].Layer() == common.LayerScreen {
			var b strings.Builder
			b.WriteString("screen")
			for _, o := range m.overlays[i:] {
				b.WriteByte(0)
				b.WriteString(componentClockKey(o, now))
			}
			return b.String()
		}
	}
	w, _ := m.bodySize()
	var b strings.Builder
	b.WriteString(m.headerView(w))
	b.WriteByte(0)
	b.WriteString(m.tabsView(w))
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(int(m.status.Kind)))
	b.WriteString(m.status.Owner)
	b.WriteByte(0)
	b.WriteString(m.status.Text)
	comps := make([]common.Component, 0, len(m.overlays)+1)
	comps = append(comps, m.activePane())
	for _, o := range m.overlays {
		comps = append(comps, o)
	}
	for _, c := range comps {
		b.WriteByte(0)
		b.WriteString(componentClockKey(c, now))
	}
	return b.String()
}

// componentClockKey is c's ClockKey, or for a component without one a key never the same twice.
func componentClockKey(c common.Component, now time.Time) string {
	if k, ok := c.(common.Clocked); ok {
		return k.ClockKey(now)
	}
	return strconv.FormatInt(now.UnixNano(), 10)
}

// testHookRender, when set, runs at every frame built (tests count them).
var testHookRender func()
