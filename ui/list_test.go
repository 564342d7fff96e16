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
	"pixdash/ui/common"
	"pixdash/ui/events"
)

// shownColumns are the titles of the columns on the row, in screen order, and the one below.
func shownColumns(l common.Layout) (shown []string, below string) {
	for i, w := range l.Widths {
		if w > 0 {
			shown = append(shown, l.Cols[i].Title)
		}
	}
	if l.Below >= 0 {
		below = l.Cols[l.Below].Title
	}
	return shown, below
}

// usedWidth is the cells the columns on the row take, separators included.
func usedWidth(l common.Layout) int {
	n, first := 0, true
	for i, w := range l.Widths {
		if w == 0 {
			continue
		}
		if !first {
			n += 1 + l.Cols[i].Gap
		}
		first = false
		n += w
	}
	return n
}

func TestLayoutDropsLowestPriorityFirst(t *testing.T) {
	cols := []common.Column{
		{Title: "A", Width: 10},
		{Title: "B", Width: 10, Priority: 3},
		{Title: "C", Width: 10, Priority: 1},
		{Title: "D", Width: 10, Priority: 2},
		{Title: "E", Width: 5, Fill: 1},
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
		l := common.LayoutColumns(cols, c.w)
		got, _ := shownColumns(l)
		if !slices.Equal(got, c.want) {
			t.Errorf("width %d: columns %v, want %v", c.w, got, c.want)
			continue
		}
		if l.Widths[4] != c.e {
			t.Errorf("width %d: E is %d wide, want %d", c.w, l.Widths[4], c.e)
		}
		if l.Overflow != (c.w < 16) || !l.Overflow && usedWidth(l) != c.w {
			t.Errorf("width %d: the row takes %d cells", c.w, usedWidth(l))
		}
	}
	// Between equal priorities the rightmost goes first.
	eq := []common.Column{{Title: "A", Width: 4}, {Title: "B", Width: 4, Priority: 1}, {Title: "C", Width: 4, Priority: 1}}
	if got, _ := shownColumns(common.LayoutColumns(eq, 9)); !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("equal priorities: %v", got)
	}
}

func TestLayoutWidensAndGoesBelow(t *testing.T) {
	cols := []common.Column{
		{Title: "T", Width: 5},
		{Title: "W", Width: 5, Priority: 5, Wide: 9, WidePriority: 1},
		{Title: "S", Width: 20, Priority: 2, Fill: 1, Below: true},
	}
	// Room for all: the wallet widens and the summary fills.
	l := common.LayoutColumns(cols, 60)
	if l.Widths[1] != 9 || l.Widths[2] != 60-5-1-9-1 || l.Below != -1 || l.Lines() != 1 {
		t.Fatalf("wide: %+v", l)
	}
	// The widening goes first, then the summary goes under the row, and the widening comes back.
	l = common.LayoutColumns(cols, 32)
	if l.Widths[1] != 5 || l.Widths[2] != 20 || l.Below != -1 {
		t.Fatalf("one line, narrow wallet: %+v", l)
	}
	l = common.LayoutColumns(cols, 31)
	if l.Below != 2 || l.Lines() != 2 || l.Widths[1] != 9 || l.Indent != 6 || l.BelowWidth != 31-6-2 {
		t.Fatalf("two lines: %+v", l)
	}
	cells := []common.Cell{{Text: "12:00"}, {Text: "loja-sul"}, {Text: "a summary that is longer than the room under the row"}}
	out := l.Row(cells, common.NewStyles(), true)
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || lines[0] != "12:00 loja-sul" || !strings.HasPrefix(lines[1], "      ↳ a summary") || lipgloss.Width(lines[1]) > 31 {
		t.Fatalf("row:\n%s", out)
	}
	if h := l.Header(); h != "T     W" {
		t.Fatalf("header %q", h)
	}
}

func TestLayoutCellsAlignAndCut(t *testing.T) {
	cols := []common.Column{{Title: "NAME", Width: 6}, {Title: "AMOUNT", Width: 8, Right: true, Gap: 1}, {Title: "NOTE", Width: 4}}
	l := common.LayoutColumns(cols, 22)
	got := l.Line([]common.Cell{{Text: "Loja Centro"}, {Text: "R$ 1,00"}, {Text: "a long note"}}, true)
	if want := "Loja …   R$ 1,00 a l…"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
	// The last column is cut, not padded, and the line carries no trailing spaces.
	if got := l.Line([]common.Cell{{Text: "ab"}, {Text: "1"}, {Text: ""}}, true); got != "ab"+common.Spaces(13)+"1" {
		t.Fatalf("short line %q", got)
	}
}

// listOf is a list over a slice of strings, keyed by the string.
func listOf(rows *common.SliceRows[string], h int) *common.List[string, string, string] {
	l := common.NewList[string, string](rows, func(s *string) string { return *s })
	l.SetColumns([]common.Column{{Title: "ROW", Width: 10, Fill: 1}})
	l.Resize(40, h)
	return &l
}

func TestListCursorFollowsItsRow(t *testing.T) {
	rows := common.SliceRows[string]{"c", "d", "e", "f"}
	l := listOf(&rows, 3)
	k := common.NewKeyMap(common.Catalog{})
	l.Navigate(tea.KeyMsg{Type: tea.KeyDown}, k)
	l.Navigate(tea.KeyMsg{Type: tea.KeyDown}, k)
	if sel, _ := l.SelectedLine(); sel != "e" {
		t.Fatalf("selected %q", sel)
	}
	restore := l.Hold()
	rows = common.SliceRows[string]{"a", "b", "c", "d", "e", "f"}
	restore()
	if sel, _ := l.SelectedLine(); sel != "e" || l.Cursor != 4 {
		t.Fatalf("after two rows above: %q at %d", sel, l.Cursor)
	}
	if first, last := l.Window(); l.Cursor < first || l.Cursor >= last {
		t.Fatalf("the cursor %d is off screen [%d, %d)", l.Cursor, first, last)
	}
	// A row that is gone leaves the cursor where it was (kept in the list).
	restore = l.Hold()
	rows = common.SliceRows[string]{"a", "b"}
	restore()
	if l.Cursor != 1 {
		t.Fatalf("after its row went: cursor %d", l.Cursor)
	}
	// At the top of a list that sticks there, the cursor stays on the first row.
	l.StickTop = true
	l.Top()
	restore = l.Hold()
	rows = common.SliceRows[string]{"z", "a", "b"}
	restore()
	if sel, _ := l.SelectedLine(); sel != "z" {
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
	var w common.ListWindow[string, string]
	l := common.NewList[string, string](&w, func(s *string) string { return *s })
	l.SetColumns([]common.Column{{Title: "ROW", Width: 10}})
	l.Resize(40, 2)
	step := func() {
		t.Helper()
		for cmd := w.Need("o", 1, l.Offset, l.Visible(), read); cmd != nil; cmd = w.Need("o", 1, l.Offset, l.Visible(), read) {
			if _, ok := w.Reply(cmd().(common.WindowLoadedMsg[string, string]), "o", 1, func(error) string { return "" }, l.Hold, func() tea.Cmd { return nil }); !ok {
				t.Fatal("reply not taken")
			}
		}
	}
	step()
	l.Navigate(tea.KeyMsg{Type: tea.KeyDown}, common.NewKeyMap(common.Catalog{}))
	if sel, _ := l.SelectedLine(); sel != "d" {
		t.Fatalf("selected %q", sel)
	}
	data = []string{"a", "b", "c", "d", "e"}
	w.Invalidate()
	step()
	if sel, _ := l.SelectedLine(); sel != "d" || l.Cursor != 3 || l.Offset != 2 {
		t.Fatalf("after two rows above: %q at %d (offset %d)", sel, l.Cursor, l.Offset)
	}
}

// Rows are drawn from the cache until their stamp or the width changes; the cursor's row is
// drawn highlighted, never from the cache.
func TestListRowCache(t *testing.T) {
	rows := common.SliceRows[string]{"a", "b", "c"}
	l := listOf(&rows, 3)
	st := common.NewStyles()
	drawn := map[string]int{}
	stamp := "v1"
	p := common.RowPainter[string, string]{
		Cells: func(r *string, sel bool) []common.Cell { drawn[*r]++; return []common.Cell{{Text: *r}} },
		Stamp: func(*string) string { return stamp },
	}
	frame := func() string {
		var b strings.Builder
		l.Draw(&b, st, p)
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
	l.Resize(50, 3)
	frame()
	if drawn["b"] != 3 {
		t.Fatalf("a new width did not redraw: %v", drawn)
	}
	if c := l.Cache["b"]; c.Width != 50 || c.Stamp != "v2" {
		t.Fatalf("cache entry %+v", c)
	}
	// Drawing moves nothing.
	l.Cursor = 2
	before := l.Offset
	frame()
	if l.Offset != before || l.Cursor != 2 {
		t.Fatalf("draw changed the list: cursor %d offset %d", l.Cursor, l.Offset)
	}
}

func TestWrapLines(t *testing.T) {
	got := common.WrapLines("load wallets: \x1b[31mInsufficient permissions.  Required: SUBACCOUNT:READ", 20, 2)
	if len(got) != 2 || got[0] != "load wallets: [31m" && !strings.HasPrefix(got[0], "load wallets:") || !strings.HasSuffix(got[1], "…") {
		t.Fatalf("wrap = %q", got)
	}
	for _, l := range got {
		if lipgloss.Width(l) > 20 || strings.ContainsRune(l, '\x1b') {
			t.Fatalf("line %q", l)
		}
	}
	if got := common.WrapLines("short", 20, 2); !slices.Equal(got, []string{"short"}) {
		t.Fatalf("short = %q", got)
	}
	if got := common.WrapLines("", 20, 2); got != nil {
		t.Fatalf("empty = %q", got)
	}
}

// Each list's columns at the two sizes the dashboard is drawn at: at 80 the lowest priorities
// have dropped, at 120 they are back, and every row fits.
func TestListColumnsAt80And120(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	check := func(t *testing.T, name string, cols []common.Column, w int, want []string, below string) {
		t.Helper()
		l := common.LayoutColumns(cols, w)
		got, b := shownColumns(l)
		if !slices.Equal(got, want) || b != below {
			t.Errorf("%s at %d: columns %q (below %q), want %q (below %q)", name, w, got, b, want, below)
		}
		if l.Overflow || usedWidth(l) > w {
			t.Errorf("%s at %d: the row takes %d cells", name, w, usedWidth(l))
		}
	}
	s := goldenSession(t, api.Sandbox)
	m := New(Options{Session: s, Lang: common.LangEN})
	charges := m.charges.Cols
	check(t, "charges", charges, 80, []string{"STATUS", "AMOUNT", "DESCRIPTION", "WALLET", "EXPIRES/PAID"}, "")
	check(t, "charges", charges, 120, []string{"STATUS", "AMOUNT", "DESCRIPTION", "REFERENCE", "WALLET", "CREATED", "EXPIRES/PAID"}, "")
	evCols := events.EventColumns(tr)
	check(t, "events", evCols, 80, []string{"TIME", "KIND", "WALLET", "AMOUNT", "CHARGE", ""}, "SUMMARY")
	check(t, "events", evCols, 120, []string{"TIME", "KIND", "WALLET", "AMOUNT", "CHARGE", "", "SUMMARY"}, "")
	wallets := m.wallets().Cols
	check(t, "wallets", wallets, 80, []string{"", "REFERENCE", "NAME", "STATUS", "AVAILABLE", "HELD"}, "")
	check(t, "wallets", wallets, 120, []string{"", "REFERENCE", "NAME", "STATUS", "AVAILABLE", "HELD", "PROMOTIONAL", "TOTAL"}, "")
	blocks := blocksOf(m).Cols
	check(t, "blocks", blocks, 80, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "REASON"}, "")
	check(t, "blocks", blocks, 120, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "CREATED", "REASON"}, "")
	check(t, "blocks", blocks, 200, []string{"STATUS", "TYPE", "REFERENCE", "AMOUNT", "CREATED", "TRANSACTION", "REASON", "RESOLUTION"}, "")
	// What the widths give at 80 and 120: the description gives 3 cells to EXPIRES/PAID (16),
	// where what went back or is held is read whole.
	if l := common.LayoutColumns(charges, 80); l.Widths[2] != 21 {
		t.Errorf("charges at 80: description %d wide", l.Widths[2])
	}
	if l := common.LayoutColumns(charges, 120); l.Widths[2] != 31 {
		t.Errorf("charges at 120: description %d wide", l.Widths[2])
	}
	if l := common.LayoutColumns(wallets, 80); l.Widths[2] != 17 || l.Widths[3] != 12 {
		t.Errorf("wallets at 80: name %d, status %d", l.Widths[2], l.Widths[3])
	}
	if l := common.LayoutColumns(wallets, 120); l.Widths[2] != 22 || l.Widths[3] != 19 {
		t.Errorf("wallets at 120: name %d, status %d", l.Widths[2], l.Widths[3])
	}
	if l := common.LayoutColumns(evCols, 80); l.Widths[events.EvColWallet] != 16 || l.BelowWidth != 80-12-2 {
		t.Errorf("events at 80: wallet %d, summary %d", l.Widths[events.EvColWallet], l.BelowWidth)
	}
	if l := common.LayoutColumns(evCols, 120); l.Widths[events.EvColWallet] != 12 || l.Widths[events.EvColSummary] != 43 {
		t.Errorf("events at 120: wallet %d, summary %d", l.Widths[events.EvColWallet], l.Widths[events.EvColSummary])
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
	st := common.NewStyles()
	for _, v := range []any{api.BlockApproved, state.VerdictDisputed, state.StateFailed, api.SubAccountSuspended, api.AccountRejected} {
		if sty, _ := st.StatusLine(v); sty != &st.Err {
			t.Errorf("%v (%T) is not drawn as a loss", v, v)
		}
	}
	for _, v := range []any{api.BlockRejected, state.VerdictConfirmed, state.StatePaid, api.SubAccountActive, api.AccountApproved} {
		if sty, _ := st.StatusLine(v); sty != &st.OK {
			t.Errorf("%v (%T) is not drawn as good", v, v)
		}
	}
	if sty, sym := st.StatusLine(api.BlockStatus("under_review")); sty != &st.Muted || sym != "?" {
		t.Errorf("an unknown block status: %q", sym)
	}
	if sty, sym := st.StatusLine(api.SubAccountStatus("under_review")); sty != &st.Warn || sym != "?" {
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
			_, sym := st.StatusLine(v)
			if seen[sym] {
				t.Errorf("%v shares its symbol %q", v, sym)
			}
			seen[sym] = true
		}
	}
}
