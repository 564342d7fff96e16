package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// pickerItem is one choice of a picker.
type pickerItem struct {
	label, note string
	value       string
	disabled    string // why it cannot be chosen; "" when it can
	current     bool
}

// picker is a small modal list: the quick wallet switcher (w) and the profile switcher (P).
// Picker kinds.
const (
	pickerWallets = iota + 1
	pickerProfiles
)

type picker struct {
	closer
	c       *common
	kind    int
	title   string
	items   []pickerItem
	cursor  int
	loading bool
	err     string
	choose  func(value string) tea.Msg
	// closeOnChoose closes the picker when enter chooses (the root closes the wallet and profile pickers itself).
	closeOnChoose bool
	width         int
	height        int
}

func newPicker(c *common, title string, items []pickerItem, choose func(string) tea.Msg) *picker {
	p := &picker{c: c, title: title, items: items, choose: choose}
	for i, it := range items {
		if it.current {
			p.cursor = i
		}
	}
	return p
}

func (p *picker) setItems(items []pickerItem) {
	p.items, p.loading = items, false
	if p.cursor >= len(items) {
		p.cursor = max(len(items)-1, 0)
	}
}

func (p *picker) layer() layer { return layerFloat }
func (p *picker) setSize(w, h int) tea.Cmd {
	p.width, p.height = w, h
	return nil
}
func (p *picker) focus() tea.Cmd            { return nil }
func (p *picker) start() tea.Cmd            { return nil }
func (p *picker) blur()                     {}
func (p *picker) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// update moves the cursor and chooses; esc or q closes without choosing.
func (p *picker) update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	k := p.c.keys
	switch {
	case key.Matches(km, k.Back), key.Matches(km, k.Quit):
		p.close()
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
			if it.disabled != "" {
				return answerStatus(it.disabled, statusWarn)
			}
			choose, v := p.choose, it.value
			if p.closeOnChoose {
				p.close()
			}
			return p.forAsker(func() tea.Msg { return choose(v) })
		}
	}
	return nil
}

func (p *picker) ShortHelp() []key.Binding {
	k := p.c.keys
	return []key.Binding{k.Up, k.Down, k.Enter, k.Back}
}

func (p *picker) view() string {
	w, h := p.width, p.height
	st, tr := p.c.st, p.c.tr
	var b strings.Builder
	b.WriteString(st.Brand.Render(sanitize(p.title)) + "\n\n")
	switch {
	case p.loading && len(p.items) == 0:
		b.WriteString(st.Muted.Render(tr.T("picker.loading")) + "\n")
	case p.err != "":
		b.WriteString(st.Err.Render(truncateWidth(sanitize(p.err), w-8)) + "\n")
	}
	rows := max(h-8, 1)
	start := 0
	if p.cursor >= rows {
		start = p.cursor - rows + 1
	}
	for i := start; i < len(p.items) && i < start+rows; i++ {
		it := p.items[i]
		mark := "  "
		if it.current {
			mark = "● "
		}
		// Labels and notes are wallet references, names and profile names: text from outside.
		line := mark + padRight(sanitize(it.label), 24) + " " + sanitize(it.note)
		if it.disabled != "" {
			line = st.Muted.Render(line)
		}
		line = truncateWidth(line, max(w-10, 10))
		if i == p.cursor {
			line = st.selected(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + st.Muted.Render(tr.T("picker.enter_chooses_esc_closes")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, st.Overlay.Render(b.String()))
}
