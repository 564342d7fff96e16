package common

import (
	"cmp"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The one list of the dashboard: charges, events, wallets and balance blocks are each a list
// (cursor, scroll, row cache, columns) plus what the view says around it. A list is generic
// over its row type T, the key K that names a row (charge id, event id, wallet reference,
// block id) and the stamp S that changes whenever what a row shows changes.
//
// The cursor follows its row: when rows arrive above it (a new charge, a new event), it moves
// with the row it was on, so enter opens what was highlighted. The rows come from a rowSource:
// a window of the store (listWindow, for the long lists) or a slice the view holds.

// rowSource is where a list's rows come from.
type rowSource[T any] interface {
	// Len is the number of rows, as last read.
	Len() int
	// At is row i when it is held for the current query (what keys act on).
	At(i int) (T, bool)
	// ShownAt is row i as drawn (a previous query's rows stay until the new ones come), in
	// place (nil when not held): drawing copies no row.
	ShownAt(i int) *T
	// Held is the positions of the rows at answers for, first to end (exclusive).
	Held() (first, end int)
}

// SliceRows is a rowSource over rows held in memory (wallets, balance blocks).
type SliceRows[T any] []T

// Len is how many rows there are.
func (s *SliceRows[T]) Len() int { return len(*s) }

// At is row i.
func (s *SliceRows[T]) At(i int) (T, bool) {
	if i < 0 || i >= len(*s) {
		var zero T
		return zero, false
	}
	return (*s)[i], true
}

// ShownAt is where row i is drawn.
func (s *SliceRows[T]) ShownAt(i int) *T {
	if i < 0 || i >= len(*s) {
		return nil
	}
	return &(*s)[i]
}

// Held reports whether row i is held in memory.
func (s *SliceRows[T]) Held() (int, int) { return 0, len(*s) }

// List is the cursor, scroll window, column layout and row cache of one view's rows.
type List[K, S comparable, T any] struct {
	src   rowSource[T]
	keyOf func(*T) K
	// StickTop keeps a cursor on the first row there when rows arrive above it (a live feed
	// shows its newest row; a list off screen shows the newest when it comes back); otherwise
	// the cursor follows its row.
	StickTop bool

	Cursor, Offset int
	width          int
	height         int // lines for the rows
	Cols           []Column
	Layout         Layout
	Heading        string // the column titles, laid out

	// Cache holds each row's coloured text, keyed by the row, for the stamp and width it was
	// drawn with; it is emptied when it grows past listCacheMax.
	Cache map[K]cachedRow[S]
}

// cachedRow is a row's drawn text and what it was drawn from.
type cachedRow[S comparable] struct {
	Stamp S
	Width int
	text  string
}

// listCacheMax bounds a list's row cache.
const listCacheMax = 4096

// NewList makes a list over src whose rows are named by keyOf.
func NewList[K, S comparable, T any](src rowSource[T], keyOf func(*T) K) List[K, S, T] {
	return List[K, S, T]{src: src, keyOf: keyOf, Cache: map[K]cachedRow[S]{}}
}

// SetColumns sets the columns; call resize after it.
func (l *List[K, S, T]) SetColumns(cols []Column) {
	l.Cols = cols
	l.Layout = LayoutColumns(cols, l.width)
	l.Heading = l.Layout.Header()
}

// Resize gives the list w cells and h lines for its rows, and lays the columns out.
func (l *List[K, S, T]) Resize(w, h int) {
	if w != l.width {
		clear(l.Cache)
	}
	l.width, l.height = w, max(h, 0)
	l.Layout = LayoutColumns(l.Cols, w)
	l.Heading = l.Layout.Header()
	l.Scroll()
}

// Visible is how many rows fit on screen.
func (l *List[K, S, T]) Visible() int { return max(l.height/l.Layout.Lines(), 1) }

// Scroll keeps the cursor in the list and on screen.
func (l *List[K, S, T]) Scroll() {
	l.Cursor, l.Offset = scrollTo(l.Cursor, l.Offset, l.src.Len(), l.Visible())
}

// Top puts the cursor on the first row.
func (l *List[K, S, T]) Top() { l.Cursor, l.Offset = 0, 0 }

// Navigate applies a list key (up, down, page up and down, top, bottom); false when km is none.
func (l *List[K, S, T]) Navigate(km tea.KeyMsg, k KeyMap) bool {
	c, ok := k.Navigate(km, l.Cursor, l.src.Len(), l.Visible())
	if ok {
		l.Cursor = c
		l.Scroll()
	}
	return ok
}

// SelectedLine is the row under the cursor.
func (l *List[K, S, T]) SelectedLine() (T, bool) { return l.src.At(l.Cursor) }

// Hold notes the row under the cursor before the rows change; the function it returns puts
// the cursor back on that row once they did (where it is now), and keeps it on screen. A row
// that is gone leaves the cursor where it was.
func (l *List[K, S, T]) Hold() (restore func()) {
	cur, ok := l.src.At(l.Cursor)
	if !ok || l.StickTop && l.Cursor == 0 {
		return l.Scroll
	}
	k, was := l.keyOf(&cur), l.Cursor
	return func() {
		l.Cursor = l.Find(k, was)
		l.Scroll()
	}
}

// Find is the position of the row named k among the rows held, or near when it is not there.
func (l *List[K, S, T]) Find(k K, near int) int {
	first, end := l.src.Held()
	for i := first; i < end; i++ {
		if r, ok := l.src.At(i); ok && l.keyOf(&r) == k {
			return i
		}
	}
	return near
}

// Window is the rows on screen, first to last (exclusive), as the offset last set them.
func (l *List[K, S, T]) Window() (first, last int) {
	n := l.src.Len()
	first = max(min(l.Offset, n-1), 0)
	return first, min(first+l.Visible(), n)
}

// Header is the column titles at the list's width.
func (l *List[K, S, T]) Header(st *Styles) string {
	return st.ColHeader.Render(l.Heading)
}

// RowPainter draws a list's rows: cells gives a row's cells (sel: it is under the cursor),
// stamp what its drawing depends on besides the width.
type RowPainter[S comparable, T any] struct {
	Cells func(r *T, sel bool) []Cell
	Stamp func(r *T) S
	// NoCursor draws the cursor's row like the others (the keyboard is elsewhere).
	NoCursor bool
}

// Draw writes the rows on screen to b, one row per layout.lines() lines: the cursor's row
// highlighted, the others from the cache when their stamp and the width are unchanged. A row
// not read yet is a placeholder.
func (l *List[K, S, T]) Draw(b *strings.Builder, st *Styles, p RowPainter[S, T]) {
	first, last := l.Window()
	rowLines := l.Layout.Lines()
	for i := first; i < last; i++ {
		if i > first {
			b.WriteByte('\n')
		}
		r := l.src.ShownAt(i)
		switch {
		case r == nil:
			b.WriteString(st.Muted.Render("…"))
			b.WriteString(strings.Repeat("\n", rowLines-1))
		case i == l.Cursor && !p.NoCursor:
			for j, line := range strings.Split(l.Layout.Row(p.Cells(r, true), st, true), "\n") {
				if j > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(st.SelectedLine(PadRight(line, l.width)))
			}
		default:
			b.WriteString(l.cached(r, st, p))
		}
	}
}

// cached is a row's coloured text, drawn again only when its stamp or the width changed.
func (l *List[K, S, T]) cached(r *T, st *Styles, p RowPainter[S, T]) string {
	k, stamp := l.keyOf(r), p.Stamp(r)
	if c, ok := l.Cache[k]; ok && c.Stamp == stamp && c.Width == l.width {
		return c.text
	}
	text := l.Layout.Row(p.Cells(r, false), st, false)
	if len(l.Cache) >= listCacheMax {
		clear(l.Cache)
	}
	l.Cache[k] = cachedRow[S]{Stamp: stamp, Width: l.width, text: text}
	return text
}

// ---- columns ----

// Column is one column of a list. The layout keeps the columns of highest priority that fit
// the width, then gives what is left to the columns that fill.
type Column struct {
	Title string
	// Width is the column's width, or the least width of a column that fills or widens.
	Width int
	// Priority orders the columns when the row does not fit: the lowest drop first (the
	// rightmost of equals first); 0 never drops.
	Priority int
	// Fill is the column's share of the room left once the columns are placed (0: none).
	Fill int
	// Wide is a wider width the column takes when there is room, ranked as a column of
	// priority widePriority (0: it does not widen).
	Wide, WidePriority int
	// Right aligns the column's texts to its right edge (amounts).
	Right bool
	// Gap is extra spaces before the column (one space separates every column).
	Gap int
	// Below puts the column on a line of its own under the row, instead of dropping it.
	Below bool
}

// Layout is where the columns of a list sit at one width.
type Layout struct {
	Cols  []Column
	width int
	// Widths are the columns' widths; 0 for a dropped column (and the one below).
	Widths []int
	// Below is the column drawn under the row (-1: none), in belowWidth cells after indent.
	Below, BelowWidth, Indent int
	// last is the rightmost column on the row: it is cut, not padded (-1: none).
	last int
	// Overflow is set when even the columns that never drop are wider than the width: the
	// row is cut.
	Overflow bool
}

// never is the priority of a column that never drops.
const never = int(^uint(0) >> 1)

// LayoutColumns places cols in w cells. While the row is too wide, the claim of lowest priority
// goes (the rightmost of equals first): a widening, or a column with its widening (a column
// marked below goes under the row instead). Then the widenings that went come back, highest
// priority first, while they fit. The room left goes to the columns that fill, by their
// shares. The first column should never drop.
func LayoutColumns(cols []Column, w int) Layout {
	l := Layout{Cols: cols, width: w, Widths: make([]int, len(cols)), Below: -1, last: -1}
	type claim struct {
		col, prio, cells int
		widen            bool
	}
	claims := make([]claim, 0, len(cols)+2)
	total := 0
	for i, c := range cols {
		p := c.Priority
		if p == 0 {
			p = never
		}
		cells := c.Width
		if i > 0 {
			cells += 1 + c.Gap
		}
		claims = append(claims, claim{col: i, prio: p, cells: cells})
		total += cells
		if c.Wide > c.Width {
			claims = append(claims, claim{col: i, prio: c.WidePriority, cells: c.Wide - c.Width, widen: true})
			total += c.Wide - c.Width
		}
	}
	// Lowest priority first; between equals, the rightmost column first.
	slices.SortStableFunc(claims, func(a, b claim) int {
		if a.prio != b.prio {
			return cmp.Compare(a.prio, b.prio)
		}
		return cmp.Compare(b.col, a.col)
	})
	dropped := make([]bool, len(cols))
	narrow := make([]bool, len(cols)) // the widening dropped
	for _, c := range claims {
		if total <= w || c.prio == never {
			break
		}
		switch {
		case dropped[c.col]:
		case c.widen:
			narrow[c.col] = true
			total -= c.cells
		default:
			dropped[c.col] = true
			total -= c.cells
			if col := cols[c.col]; col.Wide > col.Width && !narrow[c.col] {
				narrow[c.col] = true
				total -= col.Wide - col.Width
			}
			if cols[c.col].Below && l.Below < 0 {
				l.Below = c.col
			}
		}
	}
	// Give the widenings back, highest priority first, while they fit (a column that went
	// below may leave room for them).
	for i := len(claims) - 1; i >= 0; i-- {
		c := claims[i]
		if !c.widen || !narrow[c.col] || dropped[c.col] {
			continue
		}
		if total+c.cells > w {
			break
		}
		narrow[c.col] = false
		total += c.cells
	}
	// Widths in screen order (the first column on screen has no separator), then the room
	// left to the columns that fill.
	used, share := 0, 0
	for i, c := range cols {
		if dropped[i] {
			continue
		}
		l.Widths[i] = c.Width
		if c.Wide > c.Width && !narrow[i] {
			l.Widths[i] = c.Wide
		}
		if l.last >= 0 {
			used += 1 + c.Gap
		}
		used += l.Widths[i]
		share += c.Fill
		l.last = i
	}
	l.Overflow = used > w
	if room := w - used; room > 0 && share > 0 {
		given, lastFill := 0, -1
		for i, c := range cols {
			if !dropped[i] && c.Fill > 0 {
				n := room * c.Fill / share
				l.Widths[i] += n
				given += n
				lastFill = i
			}
		}
		l.Widths[lastFill] += room - given
	}
	if l.Below >= 0 {
		for i := range cols {
			if !dropped[i] {
				l.Indent = l.Widths[i] + 1
				break
			}
		}
		l.BelowWidth = max(w-l.Indent-2, 1) // after "↳ "
	}
	return l
}

// Lines is how many screen lines a row takes.
func (l Layout) Lines() int {
	if l.Below >= 0 {
		return 2
	}
	return 1
}

// CellWidth is the room of column i: its width on the row, or the room under the row.
func (l Layout) CellWidth(i int) int {
	if i == l.Below {
		return l.BelowWidth
	}
	return l.Widths[i]
}

// Header is the titles of the columns on the row.
func (l Layout) Header() string {
	cells := make([]Cell, len(l.Cols))
	for i, c := range l.Cols {
		cells[i] = Cell{Text: c.Title}
	}
	return l.Line(cells, true)
}

// Cell is what a row shows in one column.
type Cell struct {
	// Text is the cell as shown without colour; texts from outside are sanitized by the view.
	Text string
	// Style colours the text when the row is not highlighted (nil: plain).
	Style *lipgloss.Style
	// Styled, when set, is the text already coloured (several colours in one cell).
	Styled string
}

// Line joins the cells of the columns on the row, each padded or cut to its column and
// coloured unless plain, and cuts the line to the width.
func (l Layout) Line(cells []Cell, plain bool) string {
	var b strings.Builder
	b.Grow(l.width + 32)
	placed := false
	for i, w := range l.Widths {
		if w == 0 || i >= len(cells) {
			continue
		}
		if placed {
			b.WriteString(Spaces(1 + l.Cols[i].Gap))
		}
		placed = true
		b.WriteString(paintCell(cells[i], w, plain, l.Cols[i].Right, i == l.last))
	}
	return TruncateWidth(strings.TrimRight(b.String(), " "), l.width)
}

// Row is a row's text: its line, and the column below on a second line.
func (l Layout) Row(cells []Cell, st *Styles, plain bool) string {
	line := l.Line(cells, plain)
	if l.Below < 0 || l.Below >= len(cells) {
		return line
	}
	arrow := "↳ "
	if !plain {
		arrow = st.Subtle.Render(arrow)
	}
	under := Spaces(l.Indent) + arrow + paintCell(cells[l.Below], l.BelowWidth, plain, false, true)
	return line + "\n" + TruncateWidth(under, l.width)
}

// paintCell pads or cuts c to w cells (cuts only, when last and aligned left) and colours it
// unless plain.
func paintCell(c Cell, w int, plain, right, last bool) string {
	fit := func(s string) string {
		switch {
		case right:
			return PadLeft(s, w)
		case last:
			return TruncateWidth(s, w)
		}
		return PadRight(s, w)
	}
	switch {
	case !plain && c.Styled != "":
		return fit(c.Styled)
	case !plain && c.Style != nil:
		return c.Style.Render(fit(c.Text))
	}
	return fit(c.Text)
}

// WrapLines is the dashboard's one word wrap: s sanitized and wrapped at spaces into at most n
// lines of at most w cells (a word longer than a line is broken); when more would follow, the
// last line ends in "…".
func WrapLines(s string, w, n int) []string {
	if w <= 0 || n <= 0 {
		return nil
	}
	s = strings.Join(strings.Fields(Sanitize(s)), " ")
	if s == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = TruncateWidth(strings.TrimRight(lines[n-1], " "), w-1) + "…"
	}
	for i, l := range lines {
		lines[i] = TruncateWidth(strings.TrimRight(l, " "), w) // Wrap may leave a space past the edge
	}
	return lines
}
