package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/state"
)

// shownColumns are the titles of the columns on the row, in screen order, and the one below.
func shownColumns(l layout) (shown []string, below string) {
	for i, w := range l.widths {
		if w > 0 {
			shown = append(shown, l.cols[i].title)
		}
	}
	if l.below >= 0 {
		below = l.cols[l.below].title
	}
	return shown, below
}

// usedWidth is the cells the columns on the row take, separators included.
func usedWidth(l layout) int {
	n, first := 0, true
	for i, w := range l.widths {
		if w == 0 {
			continue
		}
		if !first {
			n += 1 + l.cols[i].gap
		}
		first = false
		n += w
	}
	return n
}

func TestLayoutDropsLowestPriorityFirst(t *testing.T) {
	cols := []column{
		{title: "A", width: 10},
		{title: "B", width: 10, priority: 3},
		{title: "C", width: 10, priority: 1},
		{title: "D", width: 10, priority: 2},
		{title: "E", width: 5, fill: 1},
	}
	for _, c := range []struct {
		w    int
		want []string
		e    int // E's width
	}{
		{200, []string{"A", "B", "C", "D", "E"}, 200 - 49 + 5},
		{49, []string{"A", "B", "C", "D", "E"}, 5},
		{48, []string{"A", "B", "D", "E"}, 15}, // C (1) goes; E fills the 10 cells left
		{37, []string{"A", "B", "E"}, 15},
		{26, []string{"A", "E"}, 15},
		{16, []string{"A", "E"}, 5},
		{10, []string{"A", "E"}, 5}, // the columns that never drop do not fit: the row is cut
	} {
		l := layoutColumns(cols, c.w)
		got, _ := shownColumns(l)
		if !slices.Equal(got, c.want) {
			t.Errorf("width %d: columns %v, want %v", c.w, got, c.want)
			continue
		}
		if l.widths[4] != c.e {
			t.Errorf("width %d: E is %d wide, want %d", c.w, l.widths[4], c.e)
		}
		if l.overflow != (c.w < 16) || !l.overflow && usedWidth(l) != c.w {
			t.Errorf("width %d: the row takes %d cells", c.w, usedWidth(l))
		}
	}
	// Between equal priorities the rightmost goes first.
	eq := []column{{title: "A", width: 4}, {title: "B", width: 4, priority: 1}, {title: "C", width: 4, priority: 1}}
	if got, _ := shownColumns(layoutColumns(eq, 9)); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("equal priorities: %v", got)
	}
}

func TestLayoutWidensAndGoesBelow(t *testing.T) {
	cols := []column{
		{title: "T", width: 5},
		{title: "W", width: 5, priority: 5, wide: 9, widePriority: 1},
		{title: "S", width: 20, priority: 2, fill: 1, below: true},
	}
	// Room for all: the wallet widens and the summary fills.
	l := layoutColumns(cols, 60)
	if l.widths[1] != 9 || l.widths[2] != 60-5-1-9-1 || l.below != -1 || l.lines() != 1 {
		t.Fatalf("wide: %+v", l)
	}
	// The widening goes first, then the summary goes under the row, and the widening comes back.
	l = layoutColumns(cols, 32)
	if l.widths[1] != 5 || l.widths[2] != 20 || l.below != -1 {
		t.Fatalf("one line, narrow wallet: %+v", l)
	}
	l = layoutColumns(cols, 31)
	if l.below != 2 || l.lines() != 2 || l.widths[1] != 9 || l.indent != 6 || l.belowWidth != 31-6-2 {
		t.Fatalf("two lines: %+v", l)
	}
	cells := []cell{{text: "12:00"}, {text: "loja-sul"}, {text: "a summary that is longer than the room under the row"}}
	out := l.row(cells, newStyles(), true)
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || lines[0] != "12:00 loja-sul" || !strings.HasPrefix(lines[1], "      ↳ a summary") || lipgloss.Width(lines[1]) > 31 {
		t.Fatalf("row:\n%s", out)
	}
	if h := l.header(); h != "T     W" {
		t.Fatalf("header %q", h)
	}
}

func TestLayoutCellsAlignAndCut(t *testing.T) {
	cols := []column{{title: "NAME", width: 6}, {title: "AMOUNT", width: 8, right: true, gap: 1}, {title: "NOTE", width: 4}}
	l := layoutColumns(cols, 22)
	got := l.line([]cell{{text: "Loja Centro"}, {text: "R$ 1,00"}, {text: "a long note"}}, true)
	if want := "Loja …   R$ 1,00 a l…"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
	// The last column is cut, not padded, and the line carries no trailing spaces.
	if got := l.line([]cell{{text: "ab"}, {text: "1"}, {text: ""}}, true); got != "ab"+spaces(13)+"1" {
		t.Fatalf("short line %q", got)
	}
}

// listOf is a list over a slice of strings, keyed by the string.
func listOf(rows *sliceRows[string], h int) *list[string, string, string] {
	l := newList[string, string](rows, func(s *string) string { return *s })
	l.setColumns([]column{{title: "ROW", width: 10, fill: 1}})
	l.resize(40, h)
	return &l
}

func TestListCursorFollowsItsRow(t *testing.T) {
	rows := sliceRows[string]{"c", "d", "e", "f"}
	l := listOf(&rows, 3)
	k := newKeyMap(catalog{})
	l.navigate(tea.KeyMsg{Type: tea.KeyDown}, k)
	l.navigate(tea.KeyMsg{Type: tea.KeyDown}, k)
	if sel, _ := l.selected(); sel != "e" {
		t.Fatalf("selected %q", sel)
	}
	restore := l.hold()
	rows = sliceRows[string]{"a", "b", "c", "d", "e", "f"}
	restore()
	if sel, _ := l.selected(); sel != "e" || l.cursor != 4 {
		t.Fatalf("after two rows above: %q at %d", sel, l.cursor)
	}
	if first, last := l.window(); l.cursor < first || l.cursor >= last {
		t.Fatalf("the cursor %d is off screen [%d, %d)", l.cursor, first, last)
	}
	// A row that is gone leaves the cursor where it was (kept in the list).
	restore = l.hold()
	rows = sliceRows[string]{"a", "b"}
	restore()
	if l.cursor != 1 {
		t.Fatalf("after its row went: cursor %d", l.cursor)
	}
	// At the top of a list that sticks there, the cursor stays on the first row.
	l.stickTop = true
	l.top()
	restore = l.hold()
	rows = sliceRows[string]{"z", "a", "b"}
	restore()
	if sel, _ := l.selected(); sel != "z" {
		t.Fatalf("a sticky top moved to %q", sel)
	}
}

// The window of a store-backed list: the cursor follows its row through a read of the store.
func TestListFollowsThroughAWindowRead(t *testing.T) {
	data := []string{"c", "d", "e"}
	read := func(_ context.Context, _ string, offset, limit int) ([]string, int, bool, error) {
		end := min(offset+limit, len(data))
		return slices.Clone(data[min(offset, end):end]), len(data), false, nil
	}
	var w listWindow[string, string]
	l := newList[string, string](&w, func(s *string) string { return *s })
	l.setColumns([]column{{title: "ROW", width: 10}})
	l.resize(40, 2)
	step := func() {
		t.Helper()
		for cmd := w.need("o", 1, l.offset, l.visible(), read); cmd != nil; cmd = w.need("o", 1, l.offset, l.visible(), read) {
			if _, ok := w.reply(cmd().(windowLoadedMsg[string, string]), "o", 1, func(error) string { return "" }, l.hold, func() tea.Cmd { return nil }); !ok {
				t.Fatal("reply not taken")
			}
		}
	}
	step()
	l.navigate(tea.KeyMsg{Type: tea.KeyDown}, newKeyMap(catalog{}))
	if sel, _ := l.selected(); sel != "d" {
		t.Fatalf("selected %q", sel)
	}
	data = []string{"a", "b", "c", "d", "e"}
	w.invalidate()
	step()
	if sel, _ := l.selected(); sel != "d" || l.cursor != 3 || l.offset != 2 {
		t.Fatalf("after two rows above: %q at %d (offset %d)", sel, l.cursor, l.offset)
	}
}

// Rows are drawn from the cache until their stamp or the width changes; the cursor's row is
// drawn highlighted, never from the cache.
func TestListRowCache(t *testing.T) {
	rows := sliceRows[string]{"a", "b", "c"}
	l := listOf(&rows, 3)
	st := newStyles()
	drawn := map[string]int{}
	stamp := "v1"
	p := rowPainter[string, string]{
		cells: func(r *string, sel bool) []cell { drawn[*r]++; return []cell{{text: *r}} },
		stamp: func(*string) string { return stamp },
	}
	frame := func() string {
		var b strings.Builder
		l.draw(&b, st, p)
		return b.String()
	}
	frame()
	frame()
	if drawn["a"] != 2 || drawn["b"] != 1 || drawn["c"] != 1 {
		t.Fatalf("cells built %v", drawn)
	}
	stamp = "v2"
	frame()
	if drawn["b"] != 2 {
		t.Fatalf("a new stamp did not redraw: %v", drawn)
	}
	l.resize(50, 3)
	frame()
	if drawn["b"] != 3 {
		t.Fatalf("a new width did not redraw: %v", drawn)
	}
	if c := l.cache["b"]; c.width != 50 || c.stamp != "v2" {
		t.Fatalf("cache entry %+v", c)
	}
	// Drawing moves nothing.
	l.cursor = 2
	before := l.offset
	frame()
	if l.offset != before || l.cursor != 2 {
		t.Fatalf("draw changed the list: cursor %d offset %d", l.cursor, l.offset)
	}
}

func TestWrapLines(t *testing.T) {
	got := wrapLines("load wallets: \x1b[31mInsufficient permissions.  Required: SUBACCOUNT:READ", 20, 2)
	if len(got) != 2 || got[0] != "load wallets: [31m" && !strings.HasPrefix(got[0], "load wallets:") || !strings.HasSuffix(got[1], "…") {
		t.Fatalf("wrap = %q", got)
	}
	for _, l := range got {
		if lipgloss.Width(l) > 20 || strings.ContainsRune(l, '\x1b') {
			t.Fatalf("line %q", l)
		}
	}
	if got := wrapLines("short", 20, 2); !slices.Equal(got, []string{"short"}) {
		t.Fatalf("short = %q", got)
	}
	if got := wrapLines("", 20, 2); got != nil {
		t.Fatalf("empty = %q", got)
	}
}

// Each list's columns at the two sizes the dashboard is drawn at: at 80 the lowest priorities
// have dropped, at 120 they are back, and every row fits.
func TestListColumnsAt80And120(t *testing.T) {
	tr := catalog{lang: LangEN}
	check := func(t *testing.T, name string, cols []column, w int, want []string, below string) {
		t.Helper()
		l := layoutColumns(cols, w)
		got, b := shownColumns(l)
		if !slices.Equal(got, want) || b != below {
			t.Errorf("%s at %d: columns %q (below %q), want %q (below %q)", name, w, got, b, want, below)
		}
		if l.overflow || usedWidth(l) > w {
			t.Errorf("%s at %d: the row takes %d cells", name, w, usedWidth(l))
		}
	}
	s := goldenSession(t, api.Sandbox)
	m := New(Options{Session: s, Lang: LangEN})
	charges := m.charges.cols
	check(t, "charges", charges, 80, []string{"STATUS", "AMOUNT", "DESCRIPTION", "WALLET", "EXPIRES/PAID"}, "")
	check(t, "charges", charges, 120, []string{"STATUS", "AMOUNT", "DESCRIPTION", "REFERENCE", "WALLET", "CREATED", "EXPIRES/PAID"}, "")
	events := eventColumns(tr)
	check(t, "events", events, 80, []string{"TIME", "KIND", "WALLET", "AMOUNT", "CHARGE", ""}, "SUMMARY")
	check(t, "events", events, 120, []string{"TIME", "KIND", "WALLET", "AMOUNT", "CHARGE", "", "SUMMARY"}, "")
	wallets := m.wallets().cols
	check(t, "wallets", wallets, 80, []string{"", "REFERENCE", "NAME", "STATUS", "AVAILABLE", "HELD"}, "")
	check(t, "wallets", wallets, 120, []string{"", "REFERENCE", "NAME", "STATUS", "AVAILABLE", "HELD", "PROMOTIONAL", "TOTAL"}, "")
	blocks := blocksOf(m).cols
	check(t, "blocks", blocks, 80, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "REASON"}, "")
	check(t, "blocks", blocks, 120, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "CREATED", "REASON"}, "")
	check(t, "blocks", blocks, 200, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "CREATED", "TRANSACTION", "REASON", "RESOLUTION"}, "")
	// What the widths give at 80 and 120: the description gives 3 cells to EXPIRES/PAID (16),
	// where what went back or is held is read whole.
	if l := layoutColumns(charges, 80); l.widths[2] != 21 {
		t.Errorf("charges at 80: description %d wide", l.widths[2])
	}
	if l := layoutColumns(charges, 120); l.widths[2] != 31 {
		t.Errorf("charges at 120: description %d wide", l.widths[2])
	}
	if l := layoutColumns(wallets, 80); l.widths[2] != 17 || l.widths[3] != 12 {
		t.Errorf("wallets at 80: name %d, status %d", l.widths[2], l.widths[3])
	}
	if l := layoutColumns(wallets, 120); l.widths[2] != 22 || l.widths[3] != 19 {
		t.Errorf("wallets at 120: name %d, status %d", l.widths[2], l.widths[3])
	}
	if l := layoutColumns(events, 80); l.widths[evColWallet] != 16 || l.belowWidth != 80-12-2 {
		t.Errorf("events at 80: wallet %d, summary %d", l.widths[evColWallet], l.belowWidth)
	}
	if l := layoutColumns(events, 120); l.widths[evColWallet] != 12 || l.widths[evColSummary] != 43 {
		t.Errorf("events at 120: wallet %d, summary %d", l.widths[evColWallet], l.widths[evColSummary])
	}
}

// Each list drawn at 80 and 120 columns: every line fits, the column headers are the layout's.
func TestListsFitAt80And120(t *testing.T) {
	for _, size := range goldenSizes {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			s, clk := evSession(t, true, api.ReceiverStats{})
			applyFixture(t, s, clk)
			s.Wallet = "loja-norte" // walletsGoldenData answers for it
			manyCharges(t, s, "loja-norte", 50)
			m := goldenModel(t, s, w, h)
			frames := map[string]string{"charges": m.View()}
			send(t, m, runeKey("3"))
			walletsGoldenData(t, m, m.wallets())
			frames["wallets"] = m.View()
			send(t, m, runeKey("4"))
			answerBlocks(m, goldenBlocks(), nil)
			frames["blocks"] = m.View()
			send(t, m, runeKey("5"))
			frames["events"] = m.View()
			for name, out := range frames {
				lines := strings.Split(out, "\n")
				if len(lines) != h {
					t.Errorf("%s: %d lines", name, len(lines))
				}
				for i, l := range lines {
					if lw := lipgloss.Width(l); lw > w {
						t.Errorf("%s: line %d is %d wide: %q", name, i, lw, l)
					}
				}
			}
			for name, want := range map[string]string{"charges": "Pedido 0000", "wallets": "loja-centro", "blocks": "MED-20261121-000101", "events": "block approved"} {
				if !strings.Contains(frames[name], want) {
					t.Errorf("%s does not show %q:\n%s", name, want, frames[name])
				}
			}
		})
	}
}

// The one status table: every list draws a status with the table's symbol, and the colours are
// the merchant's: a block approved (money back to the payer) is not green, one rejected (money
// back to the merchant) is not red.
func TestStatusTable(t *testing.T) {
	st := newStyles()
	for _, v := range []any{api.BlockApproved, state.VerdictDisputed, state.StateFailed, api.SubAccountSuspended, api.AccountRejected} {
		if sty, _ := st.status(v); sty != &st.Err {
			t.Errorf("%v (%T) is not drawn as a loss", v, v)
		}
	}
	for _, v := range []any{api.BlockRejected, state.VerdictConfirmed, state.StatePaid, api.SubAccountActive, api.AccountApproved} {
		if sty, _ := st.status(v); sty != &st.OK {
			t.Errorf("%v (%T) is not drawn as good", v, v)
		}
	}
	if sty, sym := st.status(api.BlockStatus("under_review")); sty != &st.Muted || sym != "?" {
		t.Errorf("an unknown block status: %q", sym)
	}
	if sty, sym := st.status(api.SubAccountStatus("under_review")); sty != &st.Warn || sym != "?" {
		t.Errorf("an unknown sub-account status: %q", sym)
	}
	// Every symbol is in the table once per family, so colour is never the only signal.
	for _, fam := range [][]any{
		{state.StatePaid, state.StatePending, state.StateFailed, state.StateExpired, state.StateCancelled},
		{api.BlockAwaitingResponse, api.BlockDefended, api.BlockApproved, api.BlockRejected},
		{state.VerdictUnchecked, state.VerdictConfirmed, state.VerdictDisputed, state.VerdictUnknown},
	} {
		seen := map[string]bool{}
		for _, v := range fam {
			_, sym := st.status(v)
			if seen[sym] {
				t.Errorf("%v shares its symbol %q", v, sym)
			}
			seen[sym] = true
		}
	}
}
