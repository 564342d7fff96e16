package qr

import (
	"strings"

	"pixdash/ui/common"

	"github.com/charmbracelet/lipgloss"
	"github.com/mdp/qrterminal/v3"
	"rsc.io/qr"
	"rsc.io/qr/coding"
)

// Half-block glyphs drawn in black (foreground) on white (background): one terminal cell holds
// two modules, one above the other, so modules are square on a usual 1:2 cell.
const (
	qrBoth   = "█" // both modules dark
	qrNone   = " " // both modules light
	qrTop    = "▀" // upper dark, lower light
	qrBottom = "▄" // upper light, lower dark
)

// qrAttempt is one rendering setting tried while stepping down to fit.
type qrAttempt struct {
	level coding.Level
	Quiet int // light modules around the code on every side
}

// QrAttempts go from the most robust to the most compact. A screen has no smudges to correct,
// so level L costs little; the quiet zone matters more to a phone's camera. One module of it
// is the smallest that still reads on a dark terminal (measured with gozxing and zbarimg in
// TestQRQuietZoneMeasured; none does not), so the steps stop there. The quiet zone is the
// least on every side; the sides get up to qrQuietSides where the width allows (see render).
var QrAttempts = []qrAttempt{{coding.M, 4}, {coding.M, 2}, {coding.L, 2}, {coding.L, 1}}

// QrQuietSides is the standard's quiet zone, which the code gets to its left and right whenever
// the width allows, even when the rows allow less above and below it.
const QrQuietSides = 4

// qrRender is a rendered code and what it needs on screen.
type qrRender struct {
	Lines   []string // plain glyph lines, unstyled
	Width   int      // columns
	Height  int      // rows
	Fits    bool
	NeedW   int // smallest size that would fit, when it does not
	NeedH   int
	Level   coding.Level
	Version coding.Version
	QuietOK bool // quiet zone of at least 2 modules
}

// qrCode is a text encoded once at each level renderQR may use: drawing it at a size is then
// only a matter of choosing the level and quiet zone that fit (no encoding while drawing).
// Each level has two encodings: qrterminal's (one mode for the whole text), drawn whenever it
// fits, and the compact one (segments in the mode that costs least), which is often a version
// smaller and is what lets a default 80x24 terminal show a code qrterminal's would not fit.
type qrCode struct {
	text    string
	Std     map[coding.Level]qrMat // qrterminal's
	Compact map[coding.Level]qrMat
	ok      bool // the text fits a QR code
}

// qrMat is one level's matrix.
type qrMat struct {
	M [][]bool
	V coding.Version
}

// NewQRCode encodes text at the levels of qrAttempts.
func NewQRCode(text string) qrCode {
	c := qrCode{text: text, Std: map[coding.Level]qrMat{}, Compact: map[coding.Level]qrMat{}, ok: true}
	for _, a := range QrAttempts {
		if _, done := c.Compact[a.level]; done {
			continue
		}
		m, v, ok := Matrix(text, a.level)
		if !ok {
			return qrCode{text: text}
		}
		c.Compact[a.level] = qrMat{M: m, V: v}
		c.Std[a.level] = c.Compact[a.level]
		if sm, ok := QrterminalMatrix(text, a.level); ok {
			c.Std[a.level] = qrMat{M: sm, V: coding.Version((len(sm) - 17) / 4)}
		}
	}
	return c
}

// RenderQR draws text as half blocks at the most robust setting that fits in maxW×maxH cells:
// see qrCode.render.
func RenderQR(text string, maxW, maxH int) qrRender { return NewQRCode(text).Render(maxW, maxH) }

// Render draws the code at the most robust setting that fits in maxW×maxH cells, stepping error
// correction and quiet zone down until it does. When none fits, the result is the most compact
// rendering with fits false and needW×needH its size.
func (c qrCode) Render(maxW, maxH int) qrRender {
	if !c.ok {
		return qrRender{}
	}
	for _, a := range QrAttempts {
		mat := c.Std[a.level]
		w, h := len(mat.M)+2*a.Quiet, (len(mat.M)+2*a.Quiet+1)/2
		if w <= maxW && h <= maxH {
			side := qrSides(len(mat.M), a.Quiet, maxW)
			return qrRender{Lines: qrHalfBlocksSides(mat.M, a.Quiet, side), Width: len(mat.M) + 2*side, Height: h, Fits: true,
				Level: a.level, Version: mat.V, QuietOK: a.Quiet >= 2}
		}
	}
	var last qrRender
	for _, a := range QrAttempts {
		mat := c.Compact[a.level]
		w, h := len(mat.M)+2*a.Quiet, (len(mat.M)+2*a.Quiet+1)/2
		last = qrRender{Width: w, Height: h, Level: a.level, Version: mat.V, QuietOK: a.Quiet >= 2}
		if w <= maxW && h <= maxH {
			side := qrSides(len(mat.M), a.Quiet, maxW)
			last.Lines = qrHalfBlocksSides(mat.M, a.Quiet, side)
			last.Width = len(mat.M) + 2*side
			last.Fits = true
			return last
		}
	}
	compact := QrAttempts[len(QrAttempts)-1]
	last.Lines = HalfBlocks(c.Compact[compact.level].M, compact.Quiet)
	last.NeedW, last.NeedH = last.Width, last.Height
	return last
}

// QrterminalMatrix encodes text with qrterminal at level l and reads its modules back from the
// one-character-per-module drawing (a light border of one module on every side).
func QrterminalMatrix(text string, l coding.Level) ([][]bool, bool) {
	if _, err := qr.Encode(text, qr.Level(l)); err != nil {
		return nil, false // too long for one mode (qrterminal would draw nothing)
	}
	var b strings.Builder
	qrterminal.GenerateWithConfig(text, qrterminal.Config{Level: qr.Level(l), Writer: &b, BlackChar: "#", WhiteChar: ".", QuietZone: 1})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) < 3 {
		return nil, false
	}
	size := len(lines[0]) - 2
	if size < 21 || len(lines) < size+1 {
		return nil, false
	}
	m := make([][]bool, size)
	for y := range m {
		row := lines[y+1]
		if len(row) < size+1 {
			return nil, false
		}
		m[y] = make([]bool, size)
		for x := range m[y] {
			m[y][x] = row[x+1] == '#'
		}
	}
	return m, true
}

// Matrix encodes text as the smallest QR code of level l: the text is cut into numeric,
// alphanumeric and byte segments where that saves bits (a BR Code is mostly digits and
// capitals, with a lowercase key or URL), in the smallest version that holds them, with the
// mask the standard's penalty rules prefer. m[y][x] is true for a dark module.
func Matrix(text string, l coding.Level) (m [][]bool, v coding.Version, ok bool) {
	var segs [3][]coding.Encoding // by the size class of the version (character count widths)
	for v = coding.MinVersion; v <= coding.MaxVersion; v++ {
		class := sizeClass(v)
		if segs[class] == nil {
			segs[class] = qrSegments(text, class)
		}
		bits := 0
		for _, s := range segs[class] {
			bits += s.Bits(v)
		}
		if bits <= v.DataBytes(l)*8 {
			break
		}
	}
	if v > coding.MaxVersion {
		return nil, 0, false
	}
	best := -1
	for mask := coding.Mask(0); mask < 8; mask++ {
		p, err := coding.NewPlan(v, l, mask)
		if err != nil {
			return nil, 0, false
		}
		c, err := p.Encode(segs[sizeClass(v)]...)
		if err != nil {
			return nil, 0, false
		}
		grid := make([][]bool, c.Size)
		for y := range grid {
			grid[y] = make([]bool, c.Size)
			for x := range grid[y] {
				grid[y][x] = c.Black(x, y)
			}
		}
		if score := qrPenalty(grid); best < 0 || score < best {
			best, m = score, grid
		}
	}
	return m, v, true
}

// sizeClass groups versions by the width of their character counts: 1–9, 10–26, 27–40.
func sizeClass(v coding.Version) int {
	switch {
	case v <= 9:
		return 0
	case v <= 26:
		return 1
	}
	return 2
}

// QR segment modes, and what each costs in sixths of a bit: per character, and per segment
// (the 4-bit mode plus the character count, whose width depends on the size class).
const (
	modeNum = iota
	modeAlpha
	modeByte
)

var (
	qrCharCost  = [3]int{20, 33, 48} // 10/3, 11/2 and 8 bits
	qrCountBits = [3][3]int{{10, 12, 14}, {9, 11, 13}, {8, 16, 16}}
)

const qrAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"

// qrSegments cuts text into the segments that take the fewest bits (a shortest path over the
// bytes, each in the mode it is encoded in).
func qrSegments(text string, class int) []coding.Encoding {
	const inf = 1 << 60
	n := len(text)
	can := func(mode int, b byte) bool {
		switch mode {
		case modeNum:
			return b >= '0' && b <= '9'
		case modeAlpha:
			return strings.IndexByte(qrAlphabet, b) >= 0
		}
		return true
	}
	// cost[i][m]: the fewest sixth-bits for text[:i] with text[i-1] in a segment of mode m.
	cost := make([][3]int, n+1)
	from := make([][3]int, n+1) // the mode of text[i-2]'s segment, -1 when text[i-1] starts the text
	cost[0] = [3]int{0, 0, 0}
	for i := 1; i <= n; i++ {
		b := text[i-1]
		for m := range 3 {
			cost[i][m], from[i][m] = inf, -1
			if !can(m, b) {
				continue
			}
			open := (4 + qrCountBits[m][class]) * 6
			if i == 1 {
				cost[i][m] = open + qrCharCost[m]
				continue
			}
			for p := range 3 {
				c := cost[i-1][p] + qrCharCost[m]
				if p != m {
					c += open
				}
				if c < cost[i][m] {
					cost[i][m], from[i][m] = c, p
				}
			}
		}
	}
	// Walk back from the cheapest last mode.
	mode := 0
	for m := range 3 {
		if cost[n][m] < cost[n][mode] {
			mode = m
		}
	}
	modes := make([]int, n)
	for i := n; i >= 1; i-- {
		modes[i-1] = mode
		mode = from[i][mode]
	}
	var segs []coding.Encoding
	for start := 0; start < n; {
		end := start
		for end < n && modes[end] == modes[start] {
			end++
		}
		switch s := text[start:end]; modes[start] {
		case modeNum:
			segs = append(segs, coding.Num(s))
		case modeAlpha:
			segs = append(segs, coding.Alpha(s))
		default:
			segs = append(segs, coding.String(s))
		}
		start = end
	}
	return segs
}

// qrPenalty scores a matrix by the standard's four rules (lower reads better): runs of one
// colour, 2×2 blocks, finder-like patterns and the balance of dark and light.
func qrPenalty(m [][]bool) int {
	n := len(m)
	at := func(x, y int, transpose bool) bool {
		if transpose {
			return m[x][y]
		}
		return m[y][x]
	}
	score := 0
	for _, tr := range []bool{false, true} {
		for y := range n {
			run := 1
			for x := 1; x < n; x++ {
				if at(x, y, tr) == at(x-1, y, tr) {
					run++
					continue
				}
				if run >= 5 {
					score += 3 + run - 5
				}
				run = 1
			}
			if run >= 5 {
				score += 3 + run - 5
			}
			// 1:1:3:1:1 with four light modules on one side.
			for x := 0; x+11 <= n; x++ {
				p := [11]bool{}
				for i := range p {
					p[i] = at(x+i, y, tr)
				}
				if p == [11]bool{true, false, true, true, true, false, true, false, false, false, false} ||
					p == [11]bool{false, false, false, false, true, false, true, true, true, false, true} {
					score += 40
				}
			}
		}
	}
	dark := 0
	for y := range n {
		for x := range n {
			if m[y][x] {
				dark++
			}
			if x+1 < n && y+1 < n && m[y][x] == m[y][x+1] && m[y][x] == m[y+1][x] && m[y][x] == m[y+1][x+1] {
				score += 3
			}
		}
	}
	pct := dark * 100 / (n * n)
	dev := pct - 50
	if dev < 0 {
		dev = -dev
	}
	return score + dev/5*10
}

// qrSides is the quiet zone left and right of an n-module code whose quiet zone is quiet:
// up to qrQuietSides where maxW columns allow it, never less than quiet.
func qrSides(n, quiet, maxW int) int {
	if quiet >= QrQuietSides {
		return quiet
	}
	return max(quiet, min(QrQuietSides, (maxW-n)/2))
}

// HalfBlocks draws the matrix with a light quiet zone of quiet modules on every side, two
// module rows per line; an odd last row is paired with a light one.
func HalfBlocks(m [][]bool, quiet int) []string { return qrHalfBlocksSides(m, quiet, quiet) }

// qrHalfBlocksSides is qrHalfBlocks with side modules of quiet zone to the left and right.
func qrHalfBlocksSides(m [][]bool, quiet, side int) []string {
	size := len(m) + 2*quiet
	inCode := func(x, y int) bool {
		x, y = x-side, y-quiet
		return y >= 0 && y < len(m) && x >= 0 && x < len(m)
	}
	lines := make([]string, 0, (size+1)/2)
	for y := 0; y < size; y += 2 {
		var b strings.Builder
		for x := range len(m) + 2*side {
			top := inCode(x, y) && m[y-quiet][x-side]
			bot := y+1 < size && inCode(x, y+1) && m[y+1-quiet][x-side]
			switch {
			case top && bot:
				b.WriteString(qrBoth)
			case top:
				b.WriteString(qrTop)
			case bot:
				b.WriteString(qrBottom)
			default:
				b.WriteString(qrNone)
			}
		}
		lines = append(lines, b.String())
	}
	return lines
}

// drawQR paints a rendered QR dark modules on light whatever the terminal: black on white with
// colours; without colours (NO_COLOR) in the terminal's own two colours, the ink (foreground)
// being the dark modules on a light terminal and the light modules and quiet zone on a dark one.
func drawQR(c *common.Common, r qrRender) string {
	if !common.NoColour() {
		return r.styled(c.St.QR)
	}
	lines := r.Lines
	if c.DarkBG {
		lines = Inverted(lines)
	}
	return strings.Join(lines, "\n")
}

// Inverted swaps ink and paper in half-block lines: each cell's inked halves become blank and
// its blank halves inked.
func Inverted(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = qrSwapInk.Replace(l)
	}
	return out
}

// qrSwapInk swaps the half-block glyphs for their negatives.
var qrSwapInk = strings.NewReplacer(qrBoth, qrNone, qrNone, qrBoth, qrTop, qrBottom, qrBottom, qrTop)

// styled paints the lines black on white.
func (r qrRender) styled(st lipgloss.Style) string {
	var b strings.Builder
	for i, l := range r.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(st.Render(l))
	}
	return b.String()
}

// Modules reads a rendered half-block grid back into dark/light modules (for tests and checks).
func Modules(lines []string) [][]bool {
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
