package ui

import (
	"strings"
	"time"

	"pixdash/ui/common"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// helpGroup is one section of the help overlay.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpOverlay lists every key in a box; it scrolls when the terminal is too short for it.
type helpOverlay struct {
	common.Closer
	c      *common.Common
	groups []helpGroup
	vp     viewport.Model
	width  int
	height int
}

func newHelpOverlay(c *common.Common, groups []helpGroup) *helpOverlay {
	return &helpOverlay{c: c, groups: groups, vp: viewport.New(0, 0)}
}

func (o *helpOverlay) Layer() common.Layer { return common.LayerFloat }
func (o *helpOverlay) Focus() tea.Cmd      { return nil }
func (o *helpOverlay) Start() tea.Cmd      { return nil }
func (o *helpOverlay) Blur()               {}

// SetSize lays the sections out for the room: two columns when they fit, else one, in a
// viewport as tall as the body allows.
func (o *helpOverlay) SetSize(w, h int) tea.Cmd {
	o.width, o.height = w, h
	st := o.c.St
	cols := make([]string, len(o.groups))
	for i, g := range o.groups {
		var b strings.Builder
		b.WriteString(st.Bold.Render(g.title))
		for _, kb := range g.keys {
			hb := kb.Help()
			b.WriteString("\n" + st.Key.Render(common.PadRight(hb.Key, 10)) + " " + hb.Desc)
		}
		cols[i] = b.String()
	}
	var content string
	pair := func(a, b string) string { return lipgloss.JoinHorizontal(lipgloss.Top, a, "   ", b) }
	if len(cols) == 4 && lipgloss.Width(pair(cols[0], cols[1])) <= w-6 && lipgloss.Width(pair(cols[2], cols[3])) <= w-6 {
		content = pair(cols[0], cols[1]) + "\n\n" + pair(cols[2], cols[3])
	} else {
		content = strings.Join(cols, "\n\n")
	}
	// The box's border, padding, title and closing line take 5 rows and 6 columns.
	o.vp.Width = min(lipgloss.Width(content), max(w-6, 1))
	o.vp.Height = max(min(lipgloss.Height(content), h-5), 1)
	o.vp.SetContent(content)
	return nil
}

// Update scrolls; ?, esc and q close.
func (o *helpOverlay) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := o.c.Keys
	switch {
	case key.Matches(km, k.Help, k.Back, k.Quit):
		o.Close()
	case key.Matches(km, k.Up):
		o.vp.ScrollUp(1)
	case key.Matches(km, k.Down):
		o.vp.ScrollDown(1)
	case key.Matches(km, k.PageUp):
		o.vp.HalfPageUp()
	case key.Matches(km, k.PageDown):
		o.vp.HalfPageDown()
	case key.Matches(km, k.Top):
		o.vp.GotoTop()
	case key.Matches(km, k.Bottom):
		o.vp.GotoBottom()
	}
	return nil
}

// ShortHelp lists the overlay's keys.
func (o *helpOverlay) ShortHelp() []key.Binding {
	k := o.c.Keys
	if o.vp.TotalLineCount() > o.vp.Height {
		return []key.Binding{k.Up, k.Down, k.PageDown, k.Help, k.Back}
	}
	return []key.Binding{k.Help, k.Back}
}

// FullHelp lists the overlay's keys.
func (o *helpOverlay) FullHelp() [][]key.Binding { return [][]key.Binding{o.ShortHelp()} }

func (o *helpOverlay) View() string {
	st, tr := o.c.St, o.c.Tr
	closing := tr.T("helpscreen.or_esc_closes_this_help")
	if o.vp.TotalLineCount() > o.vp.Height {
		closing = tr.F("helpscreen.scroll", int(o.vp.ScrollPercent()*100)) + closing
	}
	box := st.Overlay.Render(st.Brand.Render(tr.T("helpscreen.keys")) + "\n\n" + o.vp.View() + "\n" + st.Muted.Render(common.TruncateWidth(closing, o.vp.Width)))
	return lipgloss.Place(o.width, o.height, lipgloss.Center, lipgloss.Center, box)
}

// flatten joins a FullHelp's columns into one list.
func flatten(cols [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, c := range cols {
		out = append(out, c...)
	}
	return out
}

// newHelpLine is the footer's key list in the dashboard's styles.
func newHelpLine(st *common.Styles) help.Model {
	h := help.New()
	h.ShortSeparator = " · "
	h.Ellipsis = "…"
	h.Styles.ShortKey = st.Key
	h.Styles.ShortDesc = st.Help
	h.Styles.ShortSeparator = st.Help
	h.Styles.Ellipsis = st.Help
	return h
}

// ClockKey says nothing on the help changes with the clock (see common.Clocked).
func (o *helpOverlay) ClockKey(time.Time) string { return "" }
