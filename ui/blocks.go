package ui

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
)

// blocksRefreshEvery is how often the blocks view reloads while it is on screen.
const blocksRefreshEvery = 30 * time.Second

// blockFilters is the cycle of the status filter: all, then the spec's statuses.
var blockFilters = append([]api.BlockStatus{""}, api.BlockStatuses...)

// blocksView lists the active wallet's balance blocks (GET /balance-blocks) with a status filter,
// what the open and the resolved blocks add up to, and the selected block's details.
type blocksView struct {
	list[string, api.BalanceBlock, api.BalanceBlock]
	c             *common
	width, height int // the view's; the list has the lines between the totals and the details

	filter int // index in blockFilters
	// seq numbers loads; a reply for an older one (other filter, superseded) is dropped.
	seq     uint64
	loading bool
	loadTag tag

	loaded   bool
	loadedAt time.Time
	shown    api.BlockStatus // the filter the items were loaded with
	items    sliceRows[api.BalanceBlock]
	total    int
	sums     []blockSum
	errText  string

	// Periodic refresh while the view has the screen: one timer in flight at most (tickSeq
	// names it). focused is set by focus and cleared by blur; a tick that finds it cleared
	// stops the cycle, and the next focus starts it again.
	ticking bool
	tickSeq uint64
	focused bool
}

// blockSum is the count and exact sum of the listed blocks in one status.
type blockSum struct {
	status api.BlockStatus
	count  int
	sum    api.Money
}

// blocksMsg is the reply of GET /balance-blocks.
type blocksMsg struct {
	tag    tag
	seq    uint64
	status api.BlockStatus
	list   *api.BalanceBlockList
	err    error
}

// blocksTickMsg is the periodic refresh of the blocks view; gen and seq let old ticks die.
type blocksTickMsg struct {
	gen uint64
	seq uint64
}

func newBlocksView(c *common) *blocksView {
	v := &blocksView{c: c}
	v.list = newList[string, api.BalanceBlock](&v.items, func(b *api.BalanceBlock) string { return b.ID })
	tr := c.tr
	v.setColumns([]column{
		{title: tr.T("STATUS"), width: 20, wide: 22, widePriority: 6}, // "○ aguardando resposta"
		{title: tr.T("TYPE"), width: 14, priority: 8},
		{title: tr.T("REFERENCE"), width: 19, priority: 9},
		{title: tr.T("AMOUNT"), width: 13, right: true},
		{title: tr.T("CREATED"), width: 11, priority: 6},
		{title: tr.T("TRANSACTION"), width: 36, priority: 3},
		{title: "E2EID", width: 32, priority: 2},
		{title: tr.T("REASON"), width: 9, priority: 7, wide: 28, widePriority: 5, fill: 3},
		{title: tr.T("RESOLUTION"), width: 20, priority: 4, fill: 2},
	})
	return v
}

// title names the view in the tab strip.
func (v *blocksView) title() string { return v.c.tr.T("Blocks") }

func (v *blocksView) setSize(w, h int) {
	v.width, v.height = w, h
	v.place()
}

func (v *blocksView) capturesText() bool { return false }

// focus loads the list and starts the periodic refresh.
func (v *blocksView) focus() tea.Cmd {
	v.focused = true
	cmds := []tea.Cmd{v.load(false)}
	if !v.ticking {
		cmds = append(cmds, v.scheduleTick())
	}
	return tea.Batch(cmds...)
}

// blur lets the refresh cycle stop at its next tick; the rows stay for when the view comes back.
func (v *blocksView) blur() { v.focused = false }

func (v *blocksView) filterStatus() api.BlockStatus { return blockFilters[v.filter] }

// blockLister lists a wallet's MED blocks and records them (*workflow.Session does).
type blockLister interface {
	Blocks(ctx context.Context, wallet string, status api.BlockStatus) (*api.BalanceBlockList, error)
}

// load asks for the blocks of the active wallet; unless force, a load already in flight for the
// same session, wallet and filter is reused.
func (v *blocksView) load(force bool) tea.Cmd {
	t := v.c.app.tag()
	if !force && v.loading && v.loadTag == t {
		return nil
	}
	v.seq++
	v.loading, v.loadTag = true, t
	var bl blockLister = v.c.app.sess
	seq, status, wallet := v.seq, v.filterStatus(), v.c.app.wallet
	return v.c.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		// The charges show what the service listed: the session records the blocks.
		list, err := bl.Blocks(ctx, wallet, status)
		return blocksMsg{tag: t, seq: seq, status: status, list: list, err: err}
	})
}

func (v *blocksView) scheduleTick() tea.Cmd {
	v.tickSeq++
	v.ticking = true
	gen, seq := v.c.app.gen, v.tickSeq
	return tea.Tick(blocksRefreshEvery, func(time.Time) tea.Msg { return blocksTickMsg{gen: gen, seq: seq} })
}

// ShortHelp lists the keys the footer shows.
func (v *blocksView) ShortHelp() []key.Binding {
	k := v.c.keys
	return []key.Binding{k.OpenTx, k.StatusFilter, k.Refresh}
}

// FullHelp lists the view's keys for the help screen.
func (v *blocksView) FullHelp() [][]key.Binding {
	k := v.c.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.OpenTx, k.StatusFilter, k.Refresh}}
}

func (v *blocksView) update(msg tea.Msg) tea.Cmd {
	cmd := v.handle(msg)
	v.place()
	return cmd
}

func (v *blocksView) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.key(msg)
	case blocksMsg:
		v.onBlocks(msg)
	case blocksTickMsg:
		if msg.gen != v.c.app.gen || msg.seq != v.tickSeq || !v.ticking {
			return nil
		}
		if !v.focused {
			// The view left the screen: the cycle stops; focus starts it again.
			v.ticking = false
			return nil
		}
		return tea.Batch(v.load(false), v.scheduleTick())
	case eventMsg:
		if msg.gen == v.c.app.gen && msg.ev != nil && msg.ev.Kind.IsBalanceBlock() &&
			msg.ev.Wallet() == v.c.app.wallet && (v.loaded || v.loading) {
			return v.load(true)
		}
	case walletChangedMsg:
		// The old wallet's blocks go; a view that was ever opened reloads for the new one.
		used := v.loaded || v.loading || v.ticking
		v.items, v.sums, v.total = nil, nil, 0
		v.loaded, v.errText = false, ""
		v.top()
		v.loading = false
		if used {
			return v.load(true)
		}
	}
	return nil
}

func (v *blocksView) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.keys
	switch {
	case v.navigate(km, k):
	case key.Matches(km, k.StatusFilter):
		v.filter = (v.filter + 1) % len(blockFilters)
		v.top()
		return v.load(true)
	case key.Matches(km, k.Refresh):
		return v.load(true)
	case key.Matches(km, k.OpenTx):
		if b, ok := v.selected(); ok && b.TransactionID != "" {
			q := inspectMsg{query: b.TransactionID, wallet: v.c.app.wallet}
			return func() tea.Msg { return q }
		}
	}
	return nil
}

// onBlocks takes a list: the cursor stays on its block when the filter is the same.
func (v *blocksView) onBlocks(msg blocksMsg) {
	if v.c.app.stale(msg.tag) || msg.seq != v.seq {
		return
	}
	v.loading = false
	if msg.err != nil {
		v.errText = describeErr(v.c.tr, v.c.tr.T("load balance blocks"), msg.err)
		return
	}
	restore := v.hold()
	if v.shown != msg.status {
		restore = v.top
	}
	v.errText = ""
	v.loaded, v.loadedAt, v.shown = true, v.c.now(), msg.status
	v.items, v.total = nil, 0
	if msg.list != nil {
		v.items, v.total = msg.list.Items, msg.list.Total
	}
	v.sums = sumBlocks(v.items)
	v.place()
	restore()
}

// sumBlocks counts and adds the blocks per status: the spec's statuses in order, then any other as it came.
func sumBlocks(items []api.BalanceBlock) []blockSum {
	idx := map[api.BlockStatus]int{}
	var out []blockSum
	for _, s := range api.BlockStatuses {
		idx[s] = len(out)
		out = append(out, blockSum{status: s})
	}
	var extra []api.BlockStatus
	for _, b := range items {
		i, ok := idx[b.Status]
		if !ok {
			i = len(out)
			idx[b.Status] = i
			out = append(out, blockSum{status: b.Status})
			extra = append(extra, b.Status)
		}
		out[i].count++
		out[i].sum += b.Amount
	}
	if len(extra) > 1 {
		tail := out[len(api.BlockStatuses):]
		sort.Slice(tail, func(a, b int) bool { return tail[a].status < tail[b].status })
	}
	return out
}

// blockMeaning says what a block status means for the merchant's money.
func blockMeaning(tr catalog, s api.BlockStatus) string {
	switch s {
	case api.BlockAwaitingResponse:
		return tr.T("awaiting your response; the amount stays blocked")
	case api.BlockDefended:
		return tr.T("defence sent; awaiting the decision")
	case api.BlockApproved:
		return tr.T("approved: the amount was returned to the payer")
	case api.BlockRejected:
		return tr.T("rejected: the amount is back in your available balance")
	}
	return tr.T("status not in the spec")
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
func (v *blocksView) frame() blocksFrame {
	w, h := v.width, v.height
	f := blocksFrame{sums: v.sumLines(w)}
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
func (v *blocksView) place() { v.resize(v.width, v.frame().rows) }

// sumLines are the totals: what the open blocks hold (only they are blocked), what the resolved
// ones added up to, and the count and sum of each status, wrapped to w.
func (v *blocksView) sumLines(w int) []string {
	st, tr := v.c.st, v.c.tr
	if !v.loaded {
		return nil
	}
	var openSum, doneSum api.Money
	var openN, doneN int
	var openSegs, doneSegs, otherSegs []string
	for _, s := range v.sums {
		switch {
		case open(s.status):
			openSum, openN = openSum+s.sum, openN+s.count
		case resolved(s.status):
			doneSum, doneN = doneSum+s.sum, doneN+s.count
		}
		if v.shown != "" && s.status != v.shown && s.count == 0 {
			continue
		}
		sty, sym := st.status(s.status)
		seg := sty.Render(sym+" "+tr.Enum(s.status)) + " " + st.Value.Render(fmt.Sprintf("%d · %s", s.count, s.sum.BRL()))
		switch {
		case open(s.status):
			openSegs = append(openSegs, seg)
		case resolved(s.status):
			doneSegs = append(doneSegs, seg)
		default:
			otherSegs = append(otherSegs, seg)
		}
	}
	// The open blocks on their line(s), the resolved ones (and statuses the spec does not name)
	// on theirs.
	var openLine, doneLine []string
	if len(openSegs) > 0 {
		openLine = append([]string{st.Label.Render(tr.T("open, blocked: ")) + st.Bold.Render(openSum.BRL()) + st.Muted.Render(fmt.Sprintf(" (%d)", openN))}, openSegs...)
	}
	if len(doneSegs) > 0 {
		doneLine = append([]string{st.Label.Render(tr.T("resolved: ")) + st.Value.Render(doneSum.BRL()) + st.Muted.Render(fmt.Sprintf(" (%d)", doneN))}, doneSegs...)
	}
	doneLine = append(doneLine, otherSegs...)
	sep := st.Muted.Render(" │ ")
	return append(packSegments(openLine, sep, w, len(openLine)), packSegments(doneLine, sep, w, len(doneLine))...)
}

func (v *blocksView) view() string {
	w, h := v.width, v.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st, tr := v.c.st, v.c.tr
	lines := make([]string, 0, h)
	// Line 1: count, wallet, filter, and how fresh the data is.
	var count string
	switch {
	case !v.loaded || v.shown != v.filterStatus():
		count = tr.T("Balance blocks")
	case v.total != len(v.items):
		count = tr.N(v.total, "%d of %d block", "%d of %d blocks", len(v.items), v.total)
	case len(v.items) == 1:
		count = tr.T("1 block")
	default:
		count = tr.F("%d blocks", len(v.items))
	}
	filter := tr.T("all")
	if f := v.filterStatus(); f != "" {
		filter = tr.Enum(f)
	}
	left := st.Bold.Render(count) + st.Muted.Render(" · "+tr.F("wallet %s", v.c.app.wallet)+" · "+tr.T("status")+": ") + st.Value.Render(filter)
	var right string
	switch {
	case v.loading && v.loaded:
		right = st.Muted.Render(tr.T("refreshing…"))
	case v.loading:
		right = st.Muted.Render(tr.T("loading…"))
	case v.loaded:
		age := v.c.now().Sub(v.loadedAt)
		style := st.Muted
		if v.errText != "" || age > 2*blocksRefreshEvery {
			style = st.Warn
		}
		right = style.Render(tr.F("updated %s ago", humanDuration(age)))
	}
	lines = append(lines, spread(left, right, w))
	// Until a reply for the current filter arrives, the rows of another filter are not shown.
	if !v.loaded || v.shown != v.filterStatus() {
		switch {
		case v.errText != "":
			lines = append(lines, v.errLines(w, h)...)
			lines = append(lines, st.Muted.Render(truncateWidth(tr.T("r retries"), w)))
		default:
			lines = append(lines, st.Muted.Render(truncateWidth(tr.F("Loading the balance blocks of wallet %s…", v.c.app.wallet), w)))
		}
		return fitLines(lines, h)
	}
	f := v.frame()
	lines = append(lines, f.sums...)
	lines = append(lines, f.errs...)
	if len(v.items) == 0 {
		msg := tr.F("No balance blocks in wallet %s.", v.c.app.wallet)
		if v.shown != "" {
			msg = tr.F("No blocks with status %s in wallet %s. f changes the filter.", tr.Enum(v.shown), v.c.app.wallet)
		}
		lines = append(lines, "", st.Muted.Render(truncateWidth(msg, w)))
		return fitLines(lines, h)
	}
	lines = append(lines, v.header(st))
	var b strings.Builder
	v.draw(&b, st, rowPainter[api.BalanceBlock, api.BalanceBlock]{
		cells: func(b *api.BalanceBlock, _ bool) []cell { return v.cells(b) },
		stamp: func(b *api.BalanceBlock) api.BalanceBlock { return *b },
	})
	lines = append(lines, strings.Split(b.String(), "\n")...)
	if f.detail {
		for len(lines) < h-blocksDetailHeight {
			lines = append(lines, "")
		}
		if b, ok := v.selected(); ok {
			lines = append(lines, v.detail(&b, w)...)
		}
	}
	return fitLines(lines, h)
}

// errLines is the last error wrapped to w, in at most n lines.
func (v *blocksView) errLines(w, n int) []string {
	out := wrapLines(v.errText, w, n)
	for i := range out {
		out[i] = v.c.st.Err.Render(out[i])
	}
	return out
}

// fitLines joins at most h lines.
func fitLines(lines []string, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// cells are a block's columns: status, type, reference, amount, creation, transaction, e2eId,
// reason and resolution.
func (v *blocksView) cells(b *api.BalanceBlock) []cell {
	tr := v.c.tr
	sty, sym := v.c.st.status(b.Status)
	return []cell{
		{text: sym + " " + orDash(tr.Enum(b.Status)), style: sty},
		{text: orDash(tr.Enum(blockType(b.BlockType)))},
		{text: orDash(sanitize(b.ReferenceNumber))},
		{text: b.Amount.BRL()},
		{text: b.CreatedAt.In(v.c.loc).Format("02/01 15:04")},
		{text: orDash(sanitize(b.TransactionID))},
		{text: orDash(sanitize(b.E2EID))},
		{text: orDash(sanitize(b.Reason))},
		{text: v.resolution(b)},
	}
}

// resolution is the resolution reason and when it was resolved, or a dash.
func (v *blocksView) resolution(b *api.BalanceBlock) string {
	s := sanitize(b.ResolutionReason)
	if b.ResolvedAt != nil {
		at := b.ResolvedAt.In(v.c.loc).Format("02/01 15:04")
		if s == "" {
			return at
		}
		return s + " · " + at
	}
	return orDash(s)
}

// detail is the selected block's panel: every field, full width.
func (v *blocksView) detail(b *api.BalanceBlock, w int) []string {
	st, tr := v.c.st, v.c.tr
	const lw = 14
	sty, sym := st.status(b.Status)
	title := " " + orDash(sanitize(b.ReferenceNumber)) + " · " + orDash(tr.Enum(blockType(b.BlockType))) + " · " + b.Amount.BRL() + " "
	rule := st.Rule.Render("──") + st.Bold.Render(truncateWidth(title, max(w-4, 1)))
	if fill := w - lipgloss.Width(rule); fill > 0 {
		rule += st.Rule.Render(strings.Repeat("─", fill))
	}
	field := func(label, value string) string {
		return truncateWidth(st.Label.Render(padRight(label, lw))+value, w)
	}
	txLine := st.Value.Render(orDash(sanitize(b.TransactionID)))
	if b.ExternalReference != "" {
		txLine += st.Muted.Render(" · " + tr.F("external reference %s", sanitize(b.ExternalReference)))
	}
	if b.TransactionID != "" {
		txLine += st.Muted.Render(" · " + tr.T("enter inspects it"))
	}
	dates := tr.F("created %s", b.CreatedAt.In(v.c.loc).Format("02/01/2006 15:04:05 MST"))
	if b.ResolvedAt != nil {
		dates += " · " + tr.F("resolved %s", b.ResolvedAt.In(v.c.loc).Format("02/01/2006 15:04:05 MST"))
	}
	res := sty.Render(sym+" "+orDash(tr.Enum(b.Status))) + st.Muted.Render(" · "+blockMeaning(tr, b.Status))
	if b.ResolutionReason != "" {
		res = st.Value.Render(sanitize(b.ResolutionReason)) + st.Muted.Render(" · ") + res
	}
	return []string{
		truncateWidth(rule, w),
		field(tr.T("Reason"), st.Value.Render(orDash(sanitize(b.Reason)))),
		field(tr.T("Transaction"), txLine),
		field("e2eId", st.Value.Render(orDash(sanitize(b.E2EID)))),
		field(tr.T("Dates"), st.Value.Render(dates)),
		field(tr.T("Resolution"), res),
	}
}

// orDash shows an empty value as a dash.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
