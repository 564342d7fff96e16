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
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
)

// blocksRefreshEvery is how often the blocks view reloads while it is on screen.
const blocksRefreshEvery = 30 * time.Second

// blockFilters is the cycle of the status filter: all, then the spec's statuses.
var blockFilters = append([]api.BlockStatus{""}, api.BlockStatuses...)

// blocksView lists the active wallet's balance blocks (GET /balance-blocks) with a status filter,
// the sum of amounts per status and the selected block's details.
type blocksView struct {
	c      *common
	width  int
	height int

	filter int // index in blockFilters
	// seq numbers loads; a reply for an older one (other filter, superseded) is dropped.
	seq     uint64
	loading bool
	loadTag tag

	loaded   bool
	loadedAt time.Time
	shown    api.BlockStatus // the filter the items were loaded with
	items    []api.BalanceBlock
	total    int
	sums     []blockSum
	errText  string

	cursor, offset int

	// Periodic refresh: one tick in flight at most (tickSeq names it); seen is set when the view
	// is drawn, and a tick that finds it unset stops the cycle (the view is no longer on screen).
	ticking bool
	tickSeq uint64
	seen    bool
	// needTick is set when the view is drawn with the cycle stopped (shown again without activate,
	// e.g. after the QR screen closed over it); the next message it gets re-arms the cycle.
	needTick bool
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

func newBlocksView(c *common) *blocksView { return &blocksView{c: c} }

// title names the view in the tab strip.
func (v *blocksView) title() string { return v.c.tr.T("Blocks") }

func (v *blocksView) setSize(w, h int) { v.width, v.height = w, h }

func (v *blocksView) capturesText() bool { return false }

// activate loads the list and starts the periodic refresh.
func (v *blocksView) activate() tea.Cmd {
	v.seen = true
	cmds := []tea.Cmd{v.load(false)}
	if !v.ticking {
		cmds = append(cmds, v.scheduleTick())
	}
	return tea.Batch(cmds...)
}

func (v *blocksView) filterStatus() api.BlockStatus { return blockFilters[v.filter] }

// load asks for the blocks of the active wallet; unless force, a load already in flight for the
// same session, wallet and filter is reused.
func (v *blocksView) load(force bool) tea.Cmd {
	t := v.c.app.tag()
	if !force && v.loading && v.loadTag == t {
		return nil
	}
	v.seq++
	v.loading, v.loadTag = true, t
	seq, status, client, opt := v.seq, v.filterStatus(), v.c.app.sess.Client, v.c.app.walletOpt()
	return withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		list, err := client.ListBalanceBlocks(ctx, status, opt)
		return blocksMsg{tag: t, seq: seq, status: status, list: list, err: err}
	})
}

func (v *blocksView) scheduleTick() tea.Cmd {
	v.tickSeq++
	v.ticking = true
	gen, seq := v.c.app.gen, v.tickSeq
	return tea.Tick(blocksRefreshEvery, func(time.Time) tea.Msg { return blocksTickMsg{gen: gen, seq: seq} })
}

func (v *blocksView) shortHelp() []key.Binding {
	k := v.c.keys
	return []key.Binding{k.OpenTx, k.StatusFilter, k.Refresh}
}

func (v *blocksView) fullHelp() []key.Binding {
	k := v.c.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.OpenTx, k.StatusFilter, k.Refresh}
}

func (v *blocksView) update(msg tea.Msg) tea.Cmd {
	cmd := v.handle(msg)
	if v.needTick {
		v.needTick = false
		if !v.ticking {
			cmds := []tea.Cmd{cmd, v.scheduleTick()}
			if v.loaded && v.c.now().Sub(v.loadedAt) >= blocksRefreshEvery {
				cmds = append(cmds, v.load(false))
			}
			cmd = tea.Batch(cmds...)
		}
	}
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
		if !v.seen {
			// Not drawn since the last tick: the view is hidden; activate restarts the cycle.
			v.ticking = false
			return nil
		}
		v.seen = false
		return tea.Batch(v.load(false), v.scheduleTick())
	case eventMsg:
		if msg.gen == v.c.app.gen && msg.first && msg.ev != nil && msg.ev.Kind.IsBalanceBlock() &&
			msg.ev.Wallet() == v.c.app.wallet && (v.loaded || v.loading) {
			return v.load(true)
		}
	case walletChangedMsg:
		// The old wallet's blocks go; a view that was ever opened reloads for the new one.
		used := v.loaded || v.loading || v.ticking
		v.items, v.sums, v.total = nil, nil, 0
		v.loaded, v.errText = false, ""
		v.cursor, v.offset = 0, 0
		v.loading = false
		if used {
			return v.load(true)
		}
	}
	return nil
}

func (v *blocksView) key(km tea.KeyMsg) tea.Cmd {
	k := v.c.keys
	n := len(v.items)
	switch c, nav := k.navigate(km, v.cursor, n, max(v.rows(v.height)-1, 1)); {
	case nav:
		v.cursor = c
	case key.Matches(km, k.StatusFilter):
		v.filter = (v.filter + 1) % len(blockFilters)
		v.cursor, v.offset = 0, 0
		return v.load(true)
	case key.Matches(km, k.Refresh):
		return v.load(true)
	case key.Matches(km, k.OpenTx):
		if b, ok := v.selected(); ok && b.TransactionID != "" {
			q := inspectMsg{query: b.TransactionID, wallet: v.c.app.wallet}
			return func() tea.Msg { return q }
		}
	}
	v.clampCursor()
	return nil
}

func (v *blocksView) clampCursor() {
	if v.cursor >= len(v.items) {
		v.cursor = len(v.items) - 1
	}
	if v.cursor < 0 {
		v.cursor = 0
	}
}

func (v *blocksView) selected() (api.BalanceBlock, bool) {
	if v.cursor < 0 || v.cursor >= len(v.items) {
		return api.BalanceBlock{}, false
	}
	return v.items[v.cursor], true
}

func (v *blocksView) onBlocks(msg blocksMsg) {
	if v.c.app.stale(msg.tag) || msg.seq != v.seq {
		return
	}
	v.loading = false
	if msg.err != nil {
		v.errText = describeErr(v.c.tr, v.c.tr.T("load balance blocks"), msg.err)
		return
	}
	var keep string
	if b, ok := v.selected(); ok && v.shown == msg.status {
		keep = b.ID
	}
	v.errText = ""
	v.loaded, v.loadedAt, v.shown = true, v.c.now(), msg.status
	v.items, v.total = nil, 0
	if msg.list != nil {
		v.items, v.total = msg.list.Items, msg.list.Total
	}
	v.sums = sumBlocks(v.items)
	v.cursor = 0
	for i, b := range v.items {
		if keep != "" && b.ID == keep {
			v.cursor = i
			break
		}
	}
	v.clampCursor()
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

// blockStyle colours a block status with a symbol, so colour is never the only signal.
func blockStyle(st *styles, s api.BlockStatus) (lipgloss.Style, string) {
	switch s {
	case api.BlockAwaitingResponse:
		return st.Warn, "○"
	case api.BlockDefended:
		return st.Accent, "◎"
	case api.BlockApproved:
		// Approved: the blocked money went back to the payer.
		return st.Err, "↩"
	case api.BlockRejected:
		// Rejected: the money is released to the merchant.
		return st.OK, "✓"
	}
	return st.Muted, "?"
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

// blockLayout holds the column widths of the list for one width (0: column hidden).
type blockLayout struct {
	status, typ, ref, amount, created, tx, e2e, reason, resolution int
}

func blocksLayout(w int) blockLayout {
	l := blockLayout{status: 20, typ: 14, ref: 19, amount: 13}
	rest := w - (l.status + 1 + l.typ + 1 + l.ref + 1 + l.amount)
	if rest >= 12+16 {
		l.created = 11
		rest -= 12
	}
	if rest >= 1+36+1+32+2*17 {
		l.tx, l.e2e = 36, 32
		rest -= 1 + 36 + 1 + 32
	}
	switch {
	case rest >= 40:
		l.reason = (rest - 2) * 3 / 5
		l.resolution = rest - 2 - l.reason
	case rest >= 9:
		l.reason = rest - 1
	}
	return l
}

// detailHeight is the panel with the selected block's details under the list.
const blocksDetailHeight = 6

// rows is how many list rows fit in a body of height h.
func (v *blocksView) rows(h int) int {
	r := h - 3 - len(v.sumLines(v.width))
	if r-blocksDetailHeight >= 3 {
		r -= blocksDetailHeight
	}
	if v.errText != "" {
		r--
	}
	return max(r, 1)
}

// sumLines is the total and the per-status counts and sums, wrapped to w.
func (v *blocksView) sumLines(w int) []string {
	st, tr := v.c.st, v.c.tr
	if !v.loaded {
		return nil
	}
	var all api.Money
	var segs []string
	for _, s := range v.sums {
		all += s.sum
		if v.shown != "" && s.status != v.shown && s.count == 0 {
			continue
		}
		sty, sym := blockStyle(st, s.status)
		segs = append(segs, sty.Render(sym+" "+sanitize(string(s.status)))+" "+st.Value.Render(fmt.Sprintf("%d · %s", s.count, s.sum.BRL())))
	}
	segs = append([]string{st.Label.Render(tr.T("total ")) + st.Bold.Render(all.BRL())}, segs...)
	var out []string
	line := ""
	for _, s := range segs {
		switch {
		case line == "":
			line = s
		case lipgloss.Width(line)+3+lipgloss.Width(s) <= w:
			line += st.Muted.Render(" │ ") + s
		default:
			out = append(out, truncateWidth(line, w))
			line = s
		}
	}
	if line != "" {
		out = append(out, truncateWidth(line, w))
	}
	return out
}

func (v *blocksView) view(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	v.seen = true
	if !v.ticking {
		v.needTick = true
	}
	st, tr := v.c.st, v.c.tr
	lines := make([]string, 0, h)
	// Line 1: count, wallet, filter, and how fresh the data is.
	var count string
	switch {
	case !v.loaded || v.shown != v.filterStatus():
		count = tr.T("Balance blocks")
	case v.total != len(v.items):
		count = tr.F("%d of %d blocks", len(v.items), v.total)
	case len(v.items) == 1:
		count = tr.T("1 block")
	default:
		count = tr.F("%d blocks", len(v.items))
	}
	filter := tr.T("all")
	if f := v.filterStatus(); f != "" {
		filter = string(f)
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
	lines = append(lines, v.sumLines(w)...)
	if v.errText != "" {
		lines = append(lines, v.errLines(w, 2)...)
	}
	if len(v.items) == 0 {
		msg := tr.F("No balance blocks in wallet %s.", v.c.app.wallet)
		if v.shown != "" {
			msg = tr.F("No blocks with status %s in wallet %s. f changes the filter.", string(v.shown), v.c.app.wallet)
		}
		lines = append(lines, "", st.Muted.Render(truncateWidth(msg, w)))
		return fitLines(lines, h)
	}
	l := blocksLayout(w)
	lines = append(lines, st.ColHeader.Render(truncateWidth(v.headerRow(l), w)))
	rows := max(h-len(lines)-blocksDetailHeight, 1)
	showDetail := rows >= 3
	if !showDetail {
		rows = max(h-len(lines), 1)
	}
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+rows {
		v.offset = v.cursor - rows + 1
	}
	if v.offset > len(v.items)-rows {
		v.offset = max(len(v.items)-rows, 0)
	}
	for i := v.offset; i < len(v.items) && i < v.offset+rows; i++ {
		b := &v.items[i]
		if i == v.cursor {
			lines = append(lines, st.Selected.Render(padRight(v.plainRow(b, l), w)))
		} else {
			lines = append(lines, truncateWidth(v.row(b, l), w))
		}
	}
	if showDetail {
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
	var out []string
	for _, l := range strings.Split(ansi.Wrap(v.errText, w, ""), "\n") {
		if len(out) == n {
			out[n-1] = truncateWidth(out[n-1]+"…", w)
			break
		}
		out = append(out, l)
	}
	for i := range out {
		out[i] = v.c.st.Err.Render(truncateWidth(out[i], w))
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

func (v *blocksView) headerRow(l blockLayout) string {
	tr := v.c.tr
	s := padRight(tr.T("STATUS"), l.status) + " " + padRight(tr.T("TYPE"), l.typ) + " " + padRight(tr.T("REFERENCE"), l.ref) + " " + padLeft(tr.T("AMOUNT"), l.amount)
	if l.created > 0 {
		s += " " + padRight(tr.T("CREATED"), l.created)
	}
	if l.tx > 0 {
		s += " " + padRight(tr.T("TRANSACTION"), l.tx) + " " + padRight("E2EID", l.e2e)
	}
	if l.reason > 0 {
		s += " " + padRight(tr.T("REASON"), l.reason)
	}
	if l.resolution > 0 {
		s += " " + padRight(tr.T("RESOLUTION"), l.resolution)
	}
	return s
}

// cells renders a row as its status cell and the rest, so the status can be coloured.
func (v *blocksView) cells(b *api.BalanceBlock, l blockLayout) (string, string) {
	_, sym := blockStyle(v.c.st, b.Status)
	status := padRight(sym+" "+orDash(sanitize(string(b.Status))), l.status)
	var s strings.Builder
	s.WriteString(" " + padRight(orDash(sanitize(b.BlockType)), l.typ))
	s.WriteString(" " + padRight(orDash(sanitize(b.ReferenceNumber)), l.ref))
	s.WriteString(" " + padLeft(b.Amount.BRL(), l.amount))
	if l.created > 0 {
		s.WriteString(" " + padRight(b.CreatedAt.In(v.c.loc).Format("02/01 15:04"), l.created))
	}
	if l.tx > 0 {
		s.WriteString(" " + padRight(orDash(sanitize(b.TransactionID)), l.tx) + " " + padRight(orDash(sanitize(b.E2EID)), l.e2e))
	}
	if l.reason > 0 {
		s.WriteString(" " + padRight(orDash(sanitize(b.Reason)), l.reason))
	}
	if l.resolution > 0 {
		s.WriteString(" " + padRight(v.resolution(b), l.resolution))
	}
	return status, s.String()
}

func (v *blocksView) row(b *api.BalanceBlock, l blockLayout) string {
	sty, _ := blockStyle(v.c.st, b.Status)
	status, rest := v.cells(b, l)
	return sty.Render(status) + rest
}

func (v *blocksView) plainRow(b *api.BalanceBlock, l blockLayout) string {
	status, rest := v.cells(b, l)
	return status + rest
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
	sty, sym := blockStyle(st, b.Status)
	title := " " + orDash(sanitize(b.ReferenceNumber)) + " · " + orDash(sanitize(b.BlockType)) + " · " + b.Amount.BRL() + " "
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
	res := sty.Render(sym+" "+orDash(sanitize(string(b.Status)))) + st.Muted.Render(" · "+blockMeaning(tr, b.Status))
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
