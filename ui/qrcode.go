package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/mdp/qrterminal/v3"
	"rsc.io/qr"
)

// Half-block glyphs drawn in black (foreground) on white (background).
const (
	qrBoth   = "█" // both modules dark
	qrNone   = " " // both modules light
	qrTop    = "▀" // upper dark, lower light
	qrBottom = "▄" // upper light, lower dark
)

// qrAttempt is one rendering setting tried while stepping down to fit.
type qrAttempt struct {
	level qr.Level
	quiet int
}

// qrAttempts go from the most robust to the most compact.
var qrAttempts = []qrAttempt{{qr.M, 4}, {qr.M, 2}, {qr.L, 2}, {qr.L, 1}}

// qrRender is a rendered code and what it needs on screen.
type qrRender struct {
	lines   []string // plain glyph lines, unstyled
	width   int      // columns
	height  int      // rows
	fits    bool
	needW   int // smallest size that would fit, when it does not
	needH   int
	level   qr.Level
	quietOK bool // quiet zone of at least 2 modules
}

// renderQR draws text as half blocks, stepping error correction and quiet zone down until it fits.
func renderQR(text string, maxW, maxH int) qrRender {
	var smallest qrRender
	for i, a := range qrAttempts {
		lines := qrLines(text, a)
		if lines == nil {
			return qrRender{}
		}
		r := qrRender{lines: lines, height: len(lines), width: lipgloss.Width(lines[0]), level: a.level, quietOK: a.quiet >= 2}
		if r.width <= maxW && r.height <= maxH {
			r.fits = true
			return r
		}
		if i == len(qrAttempts)-1 {
			smallest = r
		}
	}
	smallest.fits = false
	smallest.needW, smallest.needH = smallest.width, smallest.height
	return smallest
}

// qrLines renders with qrterminal; border-only half rows are turned light so no dark bar frames the code.
func qrLines(text string, a qrAttempt) []string {
	var b strings.Builder
	qrterminal.GenerateWithConfig(text, qrterminal.Config{
		Level:          a.level,
		Writer:         &b,
		HalfBlocks:     true,
		BlackChar:      qrBoth,
		WhiteChar:      qrNone,
		BlackWhiteChar: qrTop,
		WhiteBlackChar: qrBottom,
		QuietZone:      a.quiet,
	})
	out := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(out) == 0 || out[0] == "" {
		return nil
	}
	for i, l := range out {
		if l != "" && (strings.Trim(l, qrTop) == "" || strings.Trim(l, qrBottom) == "") {
			out[i] = strings.Repeat(qrNone, lipgloss.Width(l))
		}
	}
	return out
}

// styled paints the lines black on white.
func (r qrRender) styled(st lipgloss.Style) string {
	var b strings.Builder
	for i, l := range r.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(st.Render(l))
	}
	return b.String()
}

// qrModules reads a rendered half-block grid back into dark/light modules (for tests and checks).
func qrModules(lines []string) [][]bool {
	var grid [][]bool
	for _, l := range lines {
		top := make([]bool, 0, len(l))
		bot := make([]bool, 0, len(l))
		for _, r := range l {
			switch string(r) {
			case qrBoth:
				top, bot = append(top, true), append(bot, true)
			case qrTop:
				top, bot = append(top, true), append(bot, false)
			case qrBottom:
				top, bot = append(top, false), append(bot, true)
			default:
				top, bot = append(top, false), append(bot, false)
			}
		}
		grid = append(grid, top, bot)
	}
	return grid
}
