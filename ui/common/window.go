package common

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// ListWindow is the part of a long list (charges, events) a view holds: the rows around the
// cursor for one query, read from the store by a command, never the whole history. At most one
// read runs at a time; a change asked for meanwhile (a keystroke, new data) is read right after.
type ListWindow[Q comparable, T any] struct {
	Query  Q
	offset int // position of items[0]
	Items  []T
	total  int
	Capped bool // total is a lower bound
	Loaded bool // items belong to query
	Shown  bool // items were read (for an earlier query when !loaded): drawn until the new ones come
	Err    error

	Inflight bool
	again    bool               // read again once the read in flight returns
	req      uint64             // id of the newest read asked for
	cancel   context.CancelFunc // stops the read in flight
}

// WindowLoadedMsg is one read's answer, addressed by owner and request id.
type WindowLoadedMsg[Q comparable, T any] struct {
	owner  string
	gen    uint64
	req    uint64
	query  Q
	offset int
	items  []T
	total  int
	capped bool
	Err    error
}

// WindowRead reads a window of a query: items from offset, at most limit, and the total.
type WindowRead[Q comparable, T any] func(ctx context.Context, q Q, offset, limit int) (items []T, total int, capped bool, err error)

// windowReadTimeout bounds one read of the store.
const windowReadTimeout = 10 * time.Second

// At returns the row at position i when it is loaded for the current query.
func (w *ListWindow[Q, T]) At(i int) (T, bool) {
	var zero T
	if !w.Loaded || i < w.offset || i >= w.offset+len(w.Items) {
		return zero, false
	}
	return w.Items[i-w.offset], true
}

// ShownAt returns the row at position i as drawn, in place (nil when not held): while the rows
// of a new query are read, the previous query's stay on screen (for a few milliseconds)
// instead of a blank list.
func (w *ListWindow[Q, T]) ShownAt(i int) *T {
	if !w.Shown || i < w.offset || i >= w.offset+len(w.Items) {
		return nil
	}
	return &w.Items[i-w.offset]
}

// Held is the positions of the rows at answers for: the window's, when they belong to the query.
func (w *ListWindow[Q, T]) Held() (first, end int) {
	if !w.Loaded {
		return 0, 0
	}
	return w.offset, w.offset + len(w.Items)
}

// SetQuery switches to another query; its rows are read by the next need.
func (w *ListWindow[Q, T]) SetQuery(q Q) {
	if q == w.Query {
		return
	}
	w.Query, w.Loaded = q, false
	if w.Inflight {
		// A keystroke makes the read under way useless: stop it (a long scan of a rare text
		// must not delay the next one); its answer, if any, is dropped by its request id.
		w.cancel()
		w.Inflight, w.again = false, false
		w.req++
	}
}

// Invalidate marks the rows as out of date (the store changed): they are read again.
func (w *ListWindow[Q, T]) Invalidate() { w.again = true }

// Need returns the command that reads the rows from first to first+rows (with as many again
// above and below, so that scrolling seldom waits), or nil when they are loaded and current
// or a read is already under way (it is then repeated when it returns).
func (w *ListWindow[Q, T]) Need(owner string, gen uint64, first, rows int, read WindowRead[Q, T]) tea.Cmd {
	end := min(first+rows, w.total)
	if w.Capped {
		end = first + rows // there are more rows than counted: read on as the cursor nears them
	}
	covered := w.Loaded && first >= w.offset && end <= w.offset+len(w.Items)
	if covered && !w.again {
		return nil
	}
	if w.Inflight {
		w.again = true
		return nil
	}
	w.Inflight, w.again = true, false
	w.req++
	req, q := w.req, w.Query
	offset, limit := max(first-rows, 0), rows*3
	ctx, cancel := context.WithTimeout(context.Background(), windowReadTimeout)
	w.cancel = cancel
	return func() tea.Msg {
		defer cancel()
		items, total, capped, err := read(ctx, q, offset, limit)
		return WindowLoadedMsg[Q, T]{owner: owner, gen: gen, req: req, query: q, offset: offset, items: items, total: total, capped: capped, Err: err}
	}
}

// Apply takes a read's answer; call need afterwards, which reads again when something changed meanwhile.
func (w *ListWindow[Q, T]) Apply(msg WindowLoadedMsg[Q, T]) {
	if msg.req != w.req {
		return
	}
	w.Inflight = false
	w.Err = msg.Err
	if msg.Err != nil {
		return
	}
	if msg.query != w.Query {
		w.again = true
		return
	}
	w.offset, w.Items, w.total, w.Capped, w.Loaded, w.Shown = msg.offset, msg.items, msg.total, msg.capped, true, true
}

// Reply takes a read's answer addressed to owner for session gen (false: not this window's)
// and returns the command that reads on, with a status saying why when the read failed
// (failed words it). hold is called before the rows change and what it returns after, so
// that the list's cursor stays on its row (see list.hold).
func (w *ListWindow[Q, T]) Reply(msg WindowLoadedMsg[Q, T], owner string, gen uint64, failed func(error) string, hold func() func(), next func() tea.Cmd) (tea.Cmd, bool) {
	if msg.owner != owner || msg.gen != gen {
		return nil, false
	}
	if msg.req != w.req {
		return nil, true // superseded (and maybe cancelled): its error is no news
	}
	restore := hold()
	w.Apply(msg)
	if msg.Err != nil {
		text := failed(msg.Err)
		return func() tea.Msg { return StatusMsg{Text: text, Kind: StatusError} }, true
	}
	restore()
	return next(), true
}

// scrollTo keeps a cursor within n rows and on a screen of rows lines starting at offset;
// it returns the cursor and offset to use.
func scrollTo(cursor, offset, n, rows int) (int, int) {
	cursor = max(min(cursor, n-1), 0)
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+rows {
		offset = cursor - rows + 1
	}
	return cursor, max(min(offset, n-rows), 0)
}

// Len is the number of rows the query selects, as last read.
func (w *ListWindow[Q, T]) Len() int {
	if !w.Shown {
		return 0
	}
	return w.total
}
