package common

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// PickerItem is one choice of a picker.
type PickerItem struct {
	Label, Note string
	Value       string
	Disabled    string // why it cannot be chosen; "" when it can
	Current     bool
}

// picker is a small modal list: the quick wallet switcher (w) and the profile switcher (P).
// Picker kinds.
const (
	PickerWallets = iota + 1
	PickerProfiles
)

// Picker is a list to choose one item from (a wallet, a profile, a period).
type Picker struct {
	Closer
	c       *Common
	Kind    int
	title   string
	items   []PickerItem
	cursor  int
	Loading bool
	Err     string
	choose  func(value string) tea.Msg
	// CloseOnChoose closes the picker when enter chooses (the root closes the wallet and profile pickers itself).
	CloseOnChoose bool
	Width         int
	Height        int
}

// NewPicker makes the picker.
func NewPicker(c *Common, title string, items []PickerItem, choose func(string) tea.Msg) *Picker {
	p := &Picker{c: c, title: title, items: items, choose: choose}
	for i, it := range items {
		if it.Current {
			p.cursor = i
		}
	}
	return p
}

// SetItems replaces the items, keeping the cursor on the same item where it can.
func (p *Picker) SetItems(items []PickerItem) {
	p.items, p.Loading = items, false
	if p.cursor >= len(items) {
		p.cursor = max(len(items)-1, 0)
	}
}

// Layer says how the overlay is drawn.
func (p *Picker) Layer() Layer { return LayerFloat }

// SetSize gives it its room in cells.
func (p *Picker) SetSize(w, h int) tea.Cmd {
	p.Width, p.Height = w, h
	return nil
}

// Focus gives it the keyboard back.
func (p *Picker) Focus() tea.Cmd { return nil }

// Start begins its loading, once.
func (p *Picker) Start() tea.Cmd { return nil }

// Blur runs when it leaves the screen or the keyboard.
func (p *Picker) Blur() {}

// FullHelp lists all its keys.
func (p *Picker) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Update moves the cursor and chooses; esc or q closes without choosing.
func (p *Picker) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := p.c.Keys
	switch {
	case key.Matches(km, k.Back), key.Matches(km, k.Quit):
		p.Close()
		return nil
	case key.Matches(km, k.Up):
		if p.cursor > 0 {
			p.cursor--
		}
	case key.Matches(km, k.Down):
		if p.cursor < len(p.items)-1 {
			p.cursor++
		}
	case key.Matches(km, k.Enter):
		if p.cursor < len(p.items) {
			it := p.items[p.cursor]
			if it.Disabled != "" {
				return AnswerStatus(it.Disabled, StatusWarn)
			}
			choose, v := p.choose, it.Value
			if p.CloseOnChoose {
				p.Close()
			}
			return p.ForAsker(func() tea.Msg { return choose(v) })
		}
	}
	return nil
}

// ShortHelp lists its main keys.
func (p *Picker) ShortHelp() []key.Binding {
	k := p.c.Keys
	return []key.Binding{k.Up, k.Down, k.Enter, k.Back}
}

// View renders it at the size it was given; it changes nothing.
func (p *Picker) View() string {
	w, h := p.Width, p.Height
	st, tr := p.c.St, p.c.Tr
	var b strings.Builder
	b.WriteString(st.Brand.Render(Sanitize(p.title)) + "\n\n")
	switch {
	case p.Loading && len(p.items) == 0:
		b.WriteString(st.Muted.Render(tr.T("picker.loading")) + "\n")
	case p.Err != "":
		b.WriteString(st.Err.Render(TruncateWidth(Sanitize(p.Err), w-8)) + "\n")
	}
	rows := max(h-8, 1)
	start := 0
	if p.cursor >= rows {
		start = p.cursor - rows + 1
	}
	for i := start; i < len(p.items) && i < start+rows; i++ {
		it := p.items[i]
		mark := "  "
		if it.Current {
			mark = "● "
		}
		// Labels and notes are wallet references, names and profile names: text from outside.
		line := mark + PadRight(Sanitize(it.Label), 24) + " " + Sanitize(it.Note)
		if it.Disabled != "" {
			line = st.Muted.Render(line)
		}
		line = TruncateWidth(line, max(w-10, 10))
		if i == p.cursor {
			line = st.SelectedLine(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + st.Muted.Render(tr.T("picker.enter_chooses_esc_closes")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, st.Overlay.Render(b.String()))
}

// ClockKey says nothing on the picker changes with the clock (see Clocked).
func (p *Picker) ClockKey(time.Time) string { return "" }
