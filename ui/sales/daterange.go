package sales

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/state"
	"pixdash/ui/common"
)

// maxRangeDays is the longest custom period the day view draws.
const maxRangeDays = 366

// RangeForm asks for a custom period of the day view: first and last day, both included.
type RangeForm struct {
	common.Closer
	c             *common.Common
	From, To      textinput.Model
	field         int // 0 from, 1 to
	errs          [2]string
	width, height int
}

func newRangeForm(c *common.Common, p state.Period) *RangeForm {
	mk := func(t time.Time) textinput.Model {
		ti := common.NewInput()
		ti.Prompt = ""
		ti.Placeholder = "dd/mm/aaaa"
		ti.CharLimit = 10
		ti.Width = 11
		ti.SetValue(t.In(c.Loc).Format("02/01/2006"))
		return ti
	}
	f := &RangeForm{c: c, From: mk(p.From), To: mk(p.To.Add(-time.Millisecond))}
	f.From.Focus()
	return f
}

// Layer says how the overlay is drawn.
func (f *RangeForm) Layer() common.Layer { return common.LayerFloat }

// SetSize gives it its room in cells.
func (f *RangeForm) SetSize(w, h int) tea.Cmd {
	f.width, f.height = w, h
	return nil
}

// Focus gives it the keyboard back.
func (f *RangeForm) Focus() tea.Cmd { return textinput.Blink }

// Start begins its loading, once.
func (f *RangeForm) Start() tea.Cmd { return nil }

// Blur runs when it leaves the screen or the keyboard.
func (f *RangeForm) Blur() {}

// CapturesText reports whether printable keys belong to its text fields.
func (f *RangeForm) CapturesText() bool { return true }

// ShortHelp lists the form's keys.
func (f *RangeForm) ShortHelp() []key.Binding {
	k := f.c.Keys
	return []key.Binding{k.NextField, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", f.c.Tr.T("daterange.apply"))), k.Back}
}

// FullHelp lists the form's keys for the help screen.
func (f *RangeForm) FullHelp() [][]key.Binding { return [][]key.Binding{f.ShortHelp()} }

// Update handles a key or a reply meant for it.
func (f *RangeForm) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch km.String() {
	case "esc":
		f.Close()
		return nil
	case "tab", "shift+tab", "up", "down":
		f.field = 1 - f.field
		if f.field == 0 {
			f.To.Blur()
			return f.From.Focus()
		}
		f.From.Blur()
		return f.To.Focus()
	case "enter":
		p, ok := f.parse()
		if !ok {
			return nil
		}
		f.Close()
		return f.ForAsker(func() tea.Msg { return DayPeriodMsg{days: p.DayCount(f.c.Loc), custom: &p} })
	}
	var cmd tea.Cmd
	if f.field == 0 {
		f.From, cmd = f.From.Update(km)
	} else {
		f.To, cmd = f.To.Update(km)
	}
	f.errs = [2]string{}
	return cmd
}

// parse checks both days; each wrong field gets its message and nothing is applied.
func (f *RangeForm) parse() (state.Period, bool) {
	tr, loc := f.c.Tr, f.c.Loc
	day := func(s string) (time.Time, string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return time.Time{}, tr.T("daterange.a_day_is_needed_as_dd")
		}
		t, err := time.ParseInLocation("02/01/2006", s, loc)
		if err != nil {
			return time.Time{}, tr.T("daterange.not_a_day_write_it_as")
		}
		return t, ""
	}
	from, e0 := day(f.From.Value())
	to, e1 := day(f.To.Value())
	f.errs = [2]string{e0, e1}
	if e0 != "" || e1 != "" {
		return state.Period{}, false
	}
	if to.Before(from) {
		f.errs[1] = tr.T("daterange.the_last_day_comes_before_the")
		return state.Period{}, false
	}
	p := state.Period{From: from, To: time.Date(to.Year(), to.Month(), to.Day()+1, 0, 0, 0, 0, loc)}
	if p.DayCount(loc) > maxRangeDays {
		f.errs[1] = tr.F("daterange.at_most_days", maxRangeDays)
		return state.Period{}, false
	}
	return p, true
}

// View renders it at the size it was given; it changes nothing.
func (f *RangeForm) View() string {
	st, tr := f.c.St, f.c.Tr
	var b strings.Builder
	b.WriteString(st.Brand.Render(tr.T("daterange.custom_period")) + "\n\n")
	row := func(label string, in textinput.Model, err string) {
		b.WriteString(st.FieldLabel.Render(common.PadRight(label, 12)) + in.View() + "\n")
		if err != "" {
			b.WriteString(common.Spaces(12) + st.FieldErr.Render(err) + "\n")
		}
	}
	row(tr.T("daterange.first_day"), f.From, f.errs[0])
	row(tr.T("daterange.last_day"), f.To, f.errs[1])
	b.WriteString("\n" + st.Muted.Render(tr.T("daterange.both_days_included_enter_applies_esc")))
	return lipgloss.Place(f.width, f.height, lipgloss.Center, lipgloss.Center, st.Overlay.Render(b.String()))
}

// ClockKey says nothing on the form changes with the clock (see common.Clocked).
func (f *RangeForm) ClockKey(time.Time) string { return "" }
