package ui

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
	// len is the number of rows, as last read.
	len() int
	// at is row i when it is held for the current query (what keys act on).
	at(i int) (T, bool)
	// shownAt is row i as drawn (a previous query's rows stay until the new ones come), in
	// place (nil when not held): drawing copies no row.
	shownAt(i int) *T
	// held is the positions of the rows at answers for, first to end (exclusive).
	held() (first, end int)
}

// sliceRows is a rowSource over rows held in memory (wallets, balance blocks).
type sliceRows[T any] []T

func (s *sliceRows[T]) len() int { return len(*s) }

func (s *sliceRows[T]) at(i int) (T, bool) {
	if i < 0 || i >= len(*s) {
		var zero T
		return zero, false
	}
	return (*s)[i], true
}

func (s *sliceRows[T]) shownAt(i int) *T {
	if i < 0 || i >= len(*s) {
		return nil
	}
	return &(*s)[i]
}

func (s *sliceRows[T]) held() (int, int) { return 0, len(*s) }

// list is the cursor, scroll window, column layout and row cache of one view's rows.
type list[K, S comparable, T any] struct {
	src   rowSource[T]
	keyOf func(*T) K
	// stickTop keeps a cursor on the first row there when rows arrive above it (a live feed
	// shows its newest row; a list off screen shows the newest when it comes back); otherwise
	// the cursor follows its row.
	stickTop bool

	cursor, offset int
	width          int
	height         int // lines for the rows
	cols           []column
	layout         layout
	heading        string // the column titles, laid out

	// cache holds each row's coloured text, keyed by the row, for the stamp and width it was
	// drawn with; it is emptied when it grows past listCacheMax.
	cache map[K]cachedRow[S]
}

// cachedRow is a row's drawn text and what it was drawn from.
type cachedRow[S comparable] struct {
	stamp S
	width int
	text  string
}

// listCacheMax bounds a list's row cache.
const listCacheMax = 4096

// newList makes a list over src whose rows are named by keyOf.
func newList[K, S comparable, T any](src rowSource[T], keyOf func(*T) K) list[K, S, T] {
	return list[K, S, T]{src: src, keyOf: keyOf, cache: map[K]cachedRow[S]{}}
}

// setColumns sets the columns; call resize after it.
func (l *list[K, S, T]) setColumns(cols []column) {
	l.cols = cols
	l.layout = layoutColumns(cols, l.width)
	l.heading = l.layout.header()
}

// resize gives the list w cells and h lines for its rows, and lays the columns out.
func (l *list[K, S, T]) resize(w, h int) {
	if w != l.width {
		clear(l.cache)
	}
	l.width, l.height = w, max(h, 0)
	l.layout = layoutColumns(l.cols, w)
	l.heading = l.layout.header()
	l.scroll()
}

// visible is how many rows fit on screen.
func (l *list[K, S, T]) visible() int { return max(l.height/l.layout.lines(), 1) }

// scroll keeps the cursor in the list and on screen.
func (l *list[K, S, T]) scroll() {
	l.cursor, l.offset = scrollTo(l.cursor, l.offset, l.src.len(), l.visible())
}

// top puts the cursor on the first row.
func (l *list[K, S, T]) top() { l.cursor, l.offset = 0, 0 }

// navigate applies a list key (up, down, page up and down, top, bottom); false when km is none.
func (l *list[K, S, T]) navigate(km tea.KeyMsg, k keyMap) bool {
	c, ok := k.navigate(km, l.cursor, l.src.len(), l.visible())
	if ok {
		l.cursor = c
		l.scroll()
	}
	return ok
}

// selected is the row under the cursor.
func (l *list[K, S, T]) selected() (T, bool) { return l.src.at(l.cursor) }

// hold notes the row under the cursor before the rows change; the function it returns puts
// the cursor back on that row once they did (where it is now), and keeps it on screen. A row
// that is gone leaves the cursor where it was.
func (l *list[K, S, T]) hold() (restore func()) {
	cur, ok := l.src.at(l.cursor)
	if !ok || l.stickTop && l.cursor == 0 {
		return l.scroll
	}
	k, was := l.keyOf(&cur), l.cursor
	return func() {
		l.cursor = l.find(k, was)
		l.scroll()
	}
}

// find is the position of the row named k among the rows held, or near when it is not there.
func (l *list[K, S, T]) find(k K, near int) int {
	first, end := l.src.held()
	for i := first; i < end; i++ {
		if r, ok := l.src.at(i); ok && l.keyOf(&r) == k {
			return i
		}
	}
	return near
}

// window is the rows on screen, first to last (exclusive), as the offset last set them.
func (l *list[K, S, T]) window() (first, last int) {
	n := l.src.len()
	first = max(min(l.offset, n-1), 0)
	return first, min(first+l.visible(), n)
}

// header is the column titles at the list's width.
func (l *list[K, S, T]) header(st *styles) string {
	return st.ColHeader.Render(l.heading)
}

// rowPainter draws a list's rows: cells gives a row's cells (sel: it is under the cursor),
// stamp what its drawing depends on besides the width.
type rowPainter[S comparable, T any] struct {
	cells func(r *T, sel bool) []cell
	stamp func(r *T) S
	// noCursor draws the cursor's row like the others (the keyboard is elsewhere).
	noCursor bool
}

// draw writes the rows on screen to b, one row per layout.lines() lines: the cursor's row
// highlighted, the others from the cache when their stamp and the width are unchanged. A row
// not read yet is a placeholder.
func (l *list[K, S, T]) draw(b *strings.Builder, st *styles, p rowPainter[S, T]) {
	first, last := l.window()
	rowLines := l.layout.lines()
	for i := first; i < last; i++ {
		if i > first {
			b.WriteByte('\n')
		}
		r := l.src.shownAt(i)
		switch {
		case r == nil:
			b.WriteString(st.Muted.Render("…"))
			b.WriteString(strings.Repeat("\n", rowLines-1))
		case i == l.cursor && !p.noCursor:
			for j, line := range strings.Split(l.layout.row(p.cells(r, true), st, true), "\n") {
				if j > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(st.selected(padRight(line, l.width)))
			}
		default:
			b.WriteString(l.cached(r, st, p))
		}
	}
}

// cached is a row's coloured text, drawn again only when its stamp or the width changed.
func (l *list[K, S, T]) cached(r *T, st *styles, p rowPainter[S, T]) string {
	k, stamp := l.keyOf(r), p.stamp(r)
	if c, ok := l.cache[k]; ok && c.stamp == stamp && c.width == l.width {
		return c.text
	}
	text := l.layout.row(p.cells(r, false), st, false)
	if len(l.cache) >= listCacheMax {
		clear(l.cache)
	}
	l.cache[k] = cachedRow[S]{stamp: stamp, width: l.width, text: text}
	return text
}

// ---- columns ----

// column is one column of a list. The layout keeps the columns of highest priority that fit
// the width, then gives what is left to the columns that fill.
type column struct {
	title string
	// width is the column's width, or the least width of a column that fills or widens.
	width int
	// priority orders the columns when the row does not fit: the lowest drop first (the
	// rightmost of equals first); 0 never drops.
	priority int
	// fill is the column's share of the room left once the columns are placed (0: none).
	fill int
	// wide is a wider width the column takes when there is room, ranked as a column of
	// priority widePriority (0: it does not widen).
	wide, widePriority int
	// right aligns the column's texts to its right edge (amounts).
	right bool
	// gap is extra spaces before the column (one space separates every column).
	gap int
	// below puts the column on a line of its own under the row, instead of dropping it.
	below bool
}

// layout is where the columns of a list sit at one width.
type layout struct {
	cols  []column
	width int
	// widths are the columns' widths; 0 for a dropped column (and the one below).
	widths []int
	// below is the column drawn under the row (-1: none), in belowWidth cells after indent.
	below, belowWidth, indent int
	// last is the rightmost column on the row: it is cut, not padded (-1: none).
	last int
	// overflow is set when even the columns that never drop are wider than the width: the
	// row is cut.
	overflow bool
}

// never is the priority of a column that never drops.
const never = int(^uint(0) >> 1)

// layoutColumns places cols in w cells. While the row is too wide, the claim of lowest priority
// goes (the rightmost of equals first): a widening, or a column with its widening (a column
// marked below goes under the row instead). Then the widenings that went come back, highest
// priority first, while they fit. The room left goes to the columns that fill, by their
// shares. The first column should never drop.
func layoutColumns(cols []column, w int) layout {
	l := layout{cols: cols, width: w, widths: make([]int, len(cols)), below: -1, last: -1}
	type claim struct {
		col, prio, cells int
		widen            bool
	}
	claims := make([]claim, 0, len(cols)+2)
	total := 0
	for i, c := range cols {
		p := c.priority
		if p == 0 {
			p = never
		}
		cells := c.width
		if i > 0 {
			cells += 1 + c.gap
		}
		claims = append(claims, claim{col: i, prio: p, cells: cells})
		total += cells
		if c.wide > c.width {
			claims = append(claims, claim{col: i, prio: c.widePriority, cells: c.wide - c.width, widen: true})
			total += c.wide - c.width
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
			if col := cols[c.col]; col.wide > col.width && !narrow[c.col] {
				narrow[c.col] = true
				total -= col.wide - col.width
			}
			if cols[c.col].below && l.below < 0 {
				l.below = c.col
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
		l.widths[i] = c.width
		if c.wide > c.width && !narrow[i] {
			l.widths[i] = c.wide
		}
		if l.last >= 0 {
			used += 1 + c.gap
		}
		used += l.widths[i]
		share += c.fill
		l.last = i
	}
	l.overflow = used > w
	if room := w - used; room > 0 && share > 0 {
		given, lastFill := 0, -1
		for i, c := range cols {
			if !dropped[i] && c.fill > 0 {
				n := room * c.fill / share
				l.widths[i] += n
				given += n
				lastFill = i
			}
		}
		l.widths[lastFill] += room - given
	}
	if l.below >= 0 {
		for i := range cols {
			if !dropped[i] {
				l.indent = l.widths[i] + 1
				break
			}
		}
		l.belowWidth = max(w-l.indent-2, 1) // after "↳ "
	}
	return l
}

// lines is how many screen lines a row takes.
func (l layout) lines() int {
	if l.below >= 0 {
		return 2
	}
	return 1
}

// cellWidth is the room of column i: its width on the row, or the room under the row.
func (l layout) cellWidth(i int) int {
	if i == l.below {
		return l.belowWidth
	}
	return l.widths[i]
}

// header is the titles of the columns on the row.
func (l layout) header() string {
	cells := make([]cell, len(l.cols))
	for i, c := range l.cols {
		cells[i] = cell{text: c.title}
	}
	return l.line(cells, true)
}

// cell is what a row shows in one column.
type cell struct {
	// text is the cell as shown without colour; texts from outside are sanitized by the view.
	text string
	// style colours the text when the row is not highlighted (nil: plain).
	style *lipgloss.Style
	// styled, when set, is the text already coloured (several colours in one cell).
	styled string
}

// line joins the cells of the columns on the row, each padded or cut to its column and
// coloured unless plain, and cuts the line to the width.
func (l layout) line(cells []cell, plain bool) string {
	var b strings.Builder
	b.Grow(l.width + 32)
	placed := false
	for i, w := range l.widths {
		if w == 0 || i >= len(cells) {
			continue
		}
		if placed {
			b.WriteString(spaces(1 + l.cols[i].gap))
		}
		placed = true
		b.WriteString(paintCell(cells[i], w, plain, l.cols[i].right, i == l.last))
	}
	return truncateWidth(strings.TrimRight(b.String(), " "), l.width)
}

// row is a row's text: its line, and the column below on a second line.
func (l layout) row(cells []cell, st *styles, plain bool) string {
	line := l.line(cells, plain)
	if l.below < 0 || l.below >= len(cells) {
		return line
	}
	arrow := "↳ "
	if !plain {
		arrow = st.Subtle.Render(arrow)
	}
	under := spaces(l.indent) + arrow + paintCell(cells[l.below], l.belowWidth, plain, false, true)
	return line + "\n" + truncateWidth(under, l.width)
}

// paintCell pads or cuts c to w cells (cuts only, when last and aligned left) and colours it
// unless plain.
func paintCell(c cell, w int, plain, right, last bool) string {
	fit := func(s string) string {
		switch {
		case right:
			return padLeft(s, w)
		case last:
			return truncateWidth(s, w)
		}
		return padRight(s, w)
	}
	switch {
	case !plain && c.styled != "":
		return fit(c.styled)
	case !plain && c.style != nil:
		return c.style.Render(fit(c.text))
	}
	return fit(c.text)
}

// wrapLines is the dashboard's one word wrap: s sanitized and wrapped at spaces into at most n
// lines of at most w cells (a word longer than a line is broken); when more would follow, the
// last line ends in "…".
func wrapLines(s string, w, n int) []string {
	if w <= 0 || n <= 0 {
		return nil
	}
	s = strings.Join(strings.Fields(sanitize(s)), " ")
	if s == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = truncateWidth(strings.TrimRight(lines[n-1], " "), w-1) + "…"
	}
	for i, l := range lines {
		lines[i] = truncateWidth(strings.TrimRight(l, " "), w) // Wrap may leave a space past the edge
	}
	return lines
}
