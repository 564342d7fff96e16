// Package blocks is the dashboard's MED blocks view: the wallet's balance blocks by status, with
// their sums.
package blocks

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/ui/common"
)

// blocksRefreshEvery is how often the blocks view reloads while it is on screen.
const blocksRefreshEvery = 30 * time.Second

// BlockFilters is the cycle of the status filter: all, then the spec's statuses.
var BlockFilters = append([]api.BlockStatus{""}, api.BlockStatuses...)

// View lists the active wallet's balance blocks (GET /balance-blocks) with a status filter,
// what the open and the resolved blocks add up to, and the selected block's details.
type View struct {
	common.Ident
	common.List[string, api.BalanceBlock, api.BalanceBlock]
	c             *common.Common
	width, height int // the view's; the list has the lines between the totals and the details

	filter int // index in blockFilters
	// Seq numbers loads; a reply for an older one (other filter, superseded) is dropped.
	Seq     uint64
	Loading bool
	LoadTag common.Tag

	Loaded   bool
	loadedAt time.Time
	shown    api.BlockStatus // the filter the items were loaded with
	Items    common.SliceRows[api.BalanceBlock]
	total    int
	sums     []BlockSum
	errText  string

	// Periodic refresh while the view has the screen: one timer in flight at most (tickSeq
	// names it). focused is set by focus and cleared by blur; a tick that finds it cleared
	// stops the cycle, and the next focus starts it again.
	Ticking bool
	TickSeq uint64
	// missed: a block event for the wallet came while the view was off screen; it reads the
	// list when it gets the keyboard back.
	missed  bool
	focused bool
}

// BlockSum is the count and exact sum of the listed blocks in one status.
type BlockSum struct {
	Status api.BlockStatus
	Count  int
	Sum    api.Money
}

// Msg is the reply of GET /balance-blocks.
type Msg struct {
	Tag    common.Tag
	Seq    uint64
	Status api.BlockStatus
	List   *api.BalanceBlockList
	Err    error
}

// TickMsg is the periodic refresh of the blocks view; gen and seq let old ticks die.
type TickMsg struct {
	Gen uint64
	Seq uint64
}

// NewBlocksView makes the blocks view.
func NewBlocksView(c *common.Common) *View {
	v := &View{c: c}
	v.List = common.NewList[string, api.BalanceBlock](&v.Items, func(b *api.BalanceBlock) string { return b.ID })
	tr := c.Tr
	v.SetColumns([]common.Column{
		{Title: tr.T("blocks.status_caps"), Width: 20, Wide: 22, WidePriority: 6}, // "○ aguardando resposta"
		{Title: tr.T("blocks.type_caps"), Width: 14, Priority: 8},
		{Title: tr.T("blocks.reference_caps"), Width: 19, Priority: 9},
		{Title: tr.T("blocks.amount_caps"), Width: 13, Right: true},
		{Title: tr.T("blocks.created_caps"), Width: 11, Priority: 6},
		{Title: tr.T("blocks.transaction_caps"), Width: 36, Priority: 3},
		{Title: "E2EID", Width: 32, Priority: 2},
		{Title: tr.T("blocks.reason_caps"), Width: 9, Priority: 7, Wide: 28, WidePriority: 5, Fill: 3},
		{Title: tr.T("blocks.resolution_caps"), Width: 20, Priority: 4, Fill: 2},
	})
	return v
}

// Title names the view in the tab strip.
func (v *View) Title() string { return v.c.Tr.T("blocks.blocks") }

// SetSize gives it its room in cells.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.place()
	return nil
}

// CapturesText reports whether printable keys belong to its text fields.
func (v *View) CapturesText() bool { return false }

// Focus gives the view the keyboard back and resumes the periodic refresh; it reads nothing now.
func (v *View) Focus() tea.Cmd {
	v.focused = true
	var cmds []tea.Cmd
	if v.missed {
		v.missed = false
		cmds = append(cmds, v.load(true))
	}
	if !v.Ticking {
		cmds = append(cmds, v.scheduleTick())
	}
	return tea.Batch(cmds...)
}

// Start loads the list and starts the periodic refresh.
func (v *View) Start() tea.Cmd {
	v.focused, v.missed = true, false
	cmds := []tea.Cmd{v.load(false)}
	if !v.Ticking {
		cmds = append(cmds, v.scheduleTick())
	}
	return tea.Batch(cmds...)
}

// Blur lets the refresh cycle stop at its next tick; the rows stay for when the view comes back.
func (v *View) Blur() { v.focused = false }

// FilterStatus is the block status the list shows ("" for all).
func (v *View) FilterStatus() api.BlockStatus { return BlockFilters[v.filter] }

// blockLister lists a wallet's MED blocks and records them (*workflow.Session does).
type blockLister interface {
	Blocks(ctx context.Context, wallet string, status api.BlockStatus) (*api.BalanceBlockList, error)
}

// load asks for the blocks of the active wallet; unless force, a load already in flight for the
// same session, wallet and filter is reused.
func (v *View) load(force bool) tea.Cmd {
	t := v.c.App.Tag()
	if !force && v.Loading && v.LoadTag == t {
		return nil
	}
	v.Seq++
	v.Loading, v.LoadTag = true, t
	var bl blockLister = v.c.App.Sess
	seq, status, wallet := v.Seq, v.FilterStatus(), v.c.App.Wallet
	return v.c.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		// The charges show what the service listed: the session records the blocks.
		list, err := bl.Blocks(ctx, wallet, status)
		return Msg{Tag: t, Seq: seq, Status: status, List: list, Err: err}
	})
}

func (v *View) scheduleTick() tea.Cmd {
	v.TickSeq++
	v.Ticking = true
	gen, seq := v.c.App.Gen, v.TickSeq
	return tea.Tick(blocksRefreshEvery, func(time.Time) tea.Msg { return TickMsg{Gen: gen, Seq: seq} })
}

// ShortHelp lists the keys the footer shows.
func (v *View) ShortHelp() []key.Binding {
	k := v.c.Keys
	return []key.Binding{k.OpenTx, k.StatusFilter, k.Refresh}
}

// FullHelp lists the view's keys for the help screen.
func (v *View) FullHelp() [][]key.Binding {
	k := v.c.Keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.OpenTx, k.StatusFilter, k.Refresh}}
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	cmd := v.handle(msg)
	v.place()
	return cmd
}

func (v *View) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.key(msg)
	case Msg:
		v.onBlocks(msg)
	case TickMsg:
		if msg.Gen != v.c.App.Gen || msg.Seq != v.TickSeq || !v.Ticking {
			return nil
		}
		if !v.focused {
			// The view left the screen: the cycle stops; focus starts it again.
			v.Ticking = false
			return nil
		}
		return tea.Batch(v.load(false), v.scheduleTick())
	case common.EventMsg:
		if msg.Gen == v.c.App.Gen && msg.Ev != nil && msg.Ev.Kind.IsBalanceBlock() &&
			msg.Ev.Wallet() == v.c.App.Wallet && (v.Loaded || v.Loading) {
			if !v.focused {
				// Off screen the view reads nothing (issue 27): it reads when it comes back.
				v.missed = true
				return nil
			}
			return v.load(true)
		}
	case common.WalletChangedMsg:
		// The old wallet's blocks go; a view that was ever opened reloads for the new one.
		used := v.Loaded || v.Loading || v.Ticking
		v.Items, v.sums, v.total = nil, nil, 0
		v.Loaded, v.errText = false, ""
		v.Top()
		v.Loading = false
		if used {
			return v.load(true)
		}
	}
	return nil
}

func (v *View) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.Keys
	switch {
	case v.Navigate(km, k):
	case key.Matches(km, k.StatusFilter):
		v.filter = (v.filter + 1) % len(BlockFilters)
		v.Top()
		return v.load(true)
	case key.Matches(km, k.Refresh):
		return v.load(true)
	case key.Matches(km, k.OpenTx):
		if b, ok := v.SelectedLine(); ok && b.TransactionID != "" {
			q := common.InspectMsg{Query: b.TransactionID, Wallet: v.c.App.Wallet}
			return func() tea.Msg { return q }
		}
	}
	return nil
}

// onBlocks takes a list: the cursor stays on its block when the filter is the same.
func (v *View) onBlocks(msg Msg) {
	if v.c.App.Stale(msg.Tag) || msg.Seq != v.Seq {
		return
	}
	v.Loading = false
	if msg.Err != nil {
		v.errText = common.DescribeErr(v.c.Tr, v.c.Tr.T("blocks.load_balance_blocks"), msg.Err)
		return
	}
	restore := v.Hold()
	if v.shown != msg.Status {
		restore = v.Top
	}
	v.errText = ""
	v.Loaded, v.loadedAt, v.shown = true, v.c.Now(), msg.Status
	v.Items, v.total = nil, 0
	if msg.List != nil {
		v.Items, v.total = msg.List.Items, msg.List.Total
	}
	v.sums = SumBlocks(v.Items)
	v.place()
	restore()
}

// SumBlocks counts and adds the blocks per status: the spec's statuses in order, then any other as it came.
func SumBlocks(items []api.BalanceBlock) []BlockSum {
	idx := map[api.BlockStatus]int{}
	var out []BlockSum
	for _, s := range api.BlockStatuses {
		idx[s] = len(out)
		out = append(out, BlockSum{Status: s})
	}
	var extra []api.BlockStatus
	for _, b := range items {
		i, ok := idx[b.Status]
		if !ok {
			i = len(out)
			idx[b.Status] = i
			out = append(out, BlockSum{Status: b.Status})
			extra = append(extra, b.Status)
		}
		out[i].Count++
		out[i].Sum += b.Amount
	}
	if len(extra) > 1 {
		tail := out[len(api.BlockStatuses):]
		sort.Slice(tail, func(a, b int) bool { return tail[a].Status < tail[b].Status })
	}
	return out
}

// open reports whether a block still holds the merchant's money: awaiting a response or defended.
func open(s api.BlockStatus) bool { return s == api.BlockAwaitingResponse || s == api.BlockDefended }

// resolved reports whether a block was decided: approved (the money went back to the payer) or
// rejected (it came back to the merchant).
func resolved(s api.BlockStatus) bool { return s == api.BlockApproved || s == api.BlockRejected }

// blocksDetailHeight is the panel with the selected block's details under the list.
const blocksDetailHeight = 6

// blocksFrame is how the body is shared: the totals, the error, whether the detail panel fits,
// and the lines left for the rows. update and view use the same one.
type blocksFrame struct {
	sums, errs []string
	rows       int
	detail     bool
}

// frame shares the view's lines between totals, error, column header, rows and details.
func (v *View) frame() blocksFrame {
	w, h := v.width, v.height
	f := blocksFrame{sums: v.SumLines(w)}
	if v.errText != "" {
		f.errs = v.errLines(w, 2)
	}
	above := 2 + len(f.sums) + len(f.errs) // the count line and the column header
	f.rows = h - above - blocksDetailHeight
	f.detail = f.rows >= 3
	if !f.detail {
		f.rows = h - above
	}
	f.rows = max(f.rows, 1)
	return f
}

// place gives the list the lines the frame leaves it (after every change of size or data).
func (v *View) place() { v.Resize(v.width, v.frame().rows) }

// SumLines are the totals: what the open blocks hold (only they are blocked), what the resolved
// ones added up to, and the count and sum of each status, wrapped to w.
func (v *View) SumLines(w int) []string {
	st, tr := v.c.St, v.c.Tr
	if !v.Loaded {
		return nil
	}
	var openSum, doneSum api.Money
	var openN, doneN int
	var openSegs, doneSegs, otherSegs []string
	for _, s := range v.sums {
		switch {
		case open(s.Status):
			openSum, openN = openSum+s.Sum, openN+s.Count
		case resolved(s.Status):
			doneSum, doneN = doneSum+s.Sum, doneN+s.Count
		}
		if v.shown != "" && s.Status != v.shown && s.Count == 0 {
			continue
		}
		sty, sym := st.StatusLine(s.Status)
		seg := sty.Render(sym+" "+tr.Enum(s.Status)) + " " + st.Value.Render(fmt.Sprintf("%d · %s", s.Count, s.Sum.BRL()))
		switch {
		case open(s.Status):
			openSegs = append(openSegs, seg)
		case resolved(s.Status):
			doneSegs = append(doneSegs, seg)
		default:
			otherSegs = append(otherSegs, seg)
		}
	}
	// The open blocks on their line(s), the resolved ones (and statuses the spec does not name)
	// on theirs.
	var openLine, doneLine []string
	if len(openSegs) > 0 {
		openLine = append([]string{st.Label.Render(tr.T("blocks.open_blocked")) + st.Bold.Render(openSum.BRL()) + st.Muted.Render(fmt.Sprintf(" (%d)", openN))}, openSegs...)
	}
	if len(doneSegs) > 0 {
		doneLine = append([]string{st.Label.Render(tr.T("blocks.resolved")) + st.Value.Render(doneSum.BRL()) + st.Muted.Render(fmt.Sprintf(" (%d)", doneN))}, doneSegs...)
	}
	doneLine = append(doneLine, otherSegs...)
	sep := st.Muted.Render(" │ ")
	return append(common.PackSegments(openLine, sep, w, len(openLine)), common.PackSegments(doneLine, sep, w, len(doneLine))...)
}

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w, h := v.width, v.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st, tr := v.c.St, v.c.Tr
	lines := make([]string, 0, h)
	// Line 1: count, wallet, filter, and how fresh the data is.
	var count string
	switch {
	case !v.Loaded || v.shown != v.FilterStatus():
		count = tr.T("blocks.balance_blocks")
	case v.total != len(v.Items):
		count = tr.N("blocks.of_blocks_n", v.total, len(v.Items), v.total)
	case len(v.Items) == 1:
		count = tr.T("blocks.1_block")
	default:
		count = tr.F("blocks.blocks_2", len(v.Items))
	}
	filter := tr.T("blocks.all")
	if f := v.FilterStatus(); f != "" {
		filter = tr.Enum(f)
	}
	left := st.Bold.Render(count) + st.Muted.Render(" · "+tr.F("blocks.wallet", v.c.App.Wallet)+" · "+tr.T("blocks.status")+": ") + st.Value.Render(filter)
	var right string
	switch {
	case v.Loading && v.Loaded:
		right = st.Muted.Render(tr.T("blocks.refreshing"))
	case v.Loading:
		right = st.Muted.Render(tr.T("blocks.loading"))
	case v.Loaded:
		age := v.c.Now().Sub(v.loadedAt)
		style := st.Muted
		if v.errText != "" || age > 2*blocksRefreshEvery {
			style = st.Warn
		}
		right = style.Render(tr.F("blocks.updated_ago", common.HumanAge(age)))
	}
	lines = append(lines, common.Spread(left, right, w))
	// Until a reply for the current filter arrives, the rows of another filter are not shown.
	if !v.Loaded || v.shown != v.FilterStatus() {
		switch {
		case v.errText != "":
			lines = append(lines, v.errLines(w, h)...)
			lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.T("blocks.r_retries"), w)))
		default:
			lines = append(lines, st.Muted.Render(common.TruncateWidth(tr.F("blocks.loading_the_balance_blocks_of_wallet", v.c.App.Wallet), w)))
		}
		return common.FitLines(lines, h)
	}
	f := v.frame()
	lines = append(lines, f.sums...)
	lines = append(lines, f.errs...)
	if len(v.Items) == 0 {
		msg := tr.F("blocks.no_balance_blocks_in_wallet", v.c.App.Wallet)
		if v.shown != "" {
			msg = tr.F("blocks.no_blocks_with_status_in_wallet", tr.Enum(v.shown), v.c.App.Wallet)
		}
		lines = append(lines, "", st.Muted.Render(common.TruncateWidth(msg, w)))
		return common.FitLines(lines, h)
	}
	lines = append(lines, v.Header(st))
	var b strings.Builder
	v.Draw(&b, st, common.RowPainter[api.BalanceBlock, api.BalanceBlock]{
		Cells: func(b *api.BalanceBlock, _ bool) []common.Cell { return v.cells(b) },
		Stamp: func(b *api.BalanceBlock) api.BalanceBlock { return *b },
	})
	lines = append(lines, strings.Split(b.String(), "\n")...)
	if f.detail {
		for len(lines) < h-blocksDetailHeight {
			lines = append(lines, "")
		}
		if b, ok := v.SelectedLine(); ok {
			lines = append(lines, v.detail(&b, w)...)
		}
	}
	return common.FitLines(lines, h)
}

// errLines is the last error wrapped to w, in at most n lines.
func (v *View) errLines(w, n int) []string {
	out := common.WrapLines(v.errText, w, n)
	for i := range out {
		out[i] = v.c.St.Err.Render(out[i])
	}
	return out
}

// cells are a block's columns: status, type, reference, amount, creation, transaction, e2eId,
// reason and resolution.
func (v *View) cells(b *api.BalanceBlock) []common.Cell {
	tr := v.c.Tr
	sty, sym := v.c.St.StatusLine(b.Status)
	return []common.Cell{
		{Text: sym + " " + common.OrDash(tr.Enum(b.Status)), Style: sty},
		{Text: common.OrDash(tr.Enum(common.BlockType(b.BlockType)))},
		{Text: common.OrDash(common.Sanitize(b.ReferenceNumber))},
		{Text: b.Amount.BRL()},
		{Text: b.CreatedAt.In(v.c.Loc).Format("02/01 15:04")},
		{Text: common.OrDash(common.Sanitize(b.TransactionID))},
		{Text: common.OrDash(common.Sanitize(b.E2EID))},
		{Text: common.OrDash(common.Sanitize(b.Reason))},
		{Text: v.resolution(b)},
	}
}

// resolution is the resolution reason and when it was resolved, or a dash.
func (v *View) resolution(b *api.BalanceBlock) string {
	s := common.Sanitize(b.ResolutionReason)
	if b.ResolvedAt != nil {
		at := b.ResolvedAt.In(v.c.Loc).Format("02/01 15:04")
		if s == "" {
			return at
		}
		return s + " · " + at
	}
	return common.OrDash(s)
}

// detail is the selected block's panel: every field, full width.
func (v *View) detail(b *api.BalanceBlock, w int) []string {
	st, tr := v.c.St, v.c.Tr
	const lw = 14
	sty, sym := st.StatusLine(b.Status)
	title := " " + common.OrDash(common.Sanitize(b.ReferenceNumber)) + " · " + common.OrDash(tr.Enum(common.BlockType(b.BlockType))) + " · " + b.Amount.BRL() + " "
	rule := st.Rule.Render("──") + st.Bold.Render(common.TruncateWidth(title, max(w-4, 1)))
	if fill := w - lipgloss.Width(rule); fill > 0 {
		rule += st.Rule.Render(strings.Repeat("─", fill))
	}
	field := func(label, value string) string {
		return common.TruncateWidth(st.Label.Render(common.PadRight(label, lw))+value, w)
	}
	txLine := st.Value.Render(common.OrDash(common.Sanitize(b.TransactionID)))
	if b.ExternalReference != "" {
		txLine += st.Muted.Render(" · " + tr.F("blocks.external_reference", common.Sanitize(b.ExternalReference)))
	}
	if b.TransactionID != "" {
		txLine += st.Muted.Render(" · " + tr.T("blocks.enter_inspects_it"))
	}
	dates := tr.F("blocks.created", b.CreatedAt.In(v.c.Loc).Format("02/01/2006 15:04:05 MST"))
	if b.ResolvedAt != nil {
		dates += " · " + tr.F("blocks.resolved_2", b.ResolvedAt.In(v.c.Loc).Format("02/01/2006 15:04:05 MST"))
	}
	res := sty.Render(sym+" "+common.OrDash(tr.Enum(b.Status))) + st.Muted.Render(" · "+common.BlockMeaning(tr, b.Status))
	if b.ResolutionReason != "" {
		res = st.Value.Render(common.Sanitize(b.ResolutionReason)) + st.Muted.Render(" · ") + res
	}
	return []string{
		common.TruncateWidth(rule, w),
		field(tr.T("blocks.reason"), st.Value.Render(common.OrDash(common.Sanitize(b.Reason)))),
		field(tr.T("blocks.transaction"), txLine),
		field("e2eId", st.Value.Render(common.OrDash(common.Sanitize(b.E2EID)))),
		field(tr.T("blocks.dates"), st.Value.Render(dates)),
		field(tr.T("blocks.resolution"), res),
	}
}

// ServiceErr is the outcome of the call to the service, for the header's light.
func (m Msg) ServiceErr() error { return m.Err }

// ClockKey is what of the view changes with the clock (see common.Clocked): how long ago the
// list was read (and whether that is stale), and the minute.
func (v *View) ClockKey(now time.Time) string {
	age := now.Sub(v.loadedAt)
	return fmt.Sprint(common.MinuteKey(now, v.c.Loc), common.HumanAge(age), age > 2*blocksRefreshEvery)
}
