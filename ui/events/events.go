// Package events is the dashboard's events view: every webhook received, with the service's
// verdict on it.
package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// Columns of the events list.
const (
	EvTimeW   = 11 // "15:04:05" today, "02/01 15:04" before
	EvKindW   = 22 // the longest kind of the spec: balance_block_approved
	EvAmountW = 13
	EvChargeW = common.ShortIDCells
	EvCountW  = 4 // "×2" … "×999"
	// EvVerdictW is the verdict mark at the start of the summary: a symbol and a space.
	EvVerdictW = 2
	// EvMinSummary is the narrowest summary kept on the row; narrower screens put the summary
	// on a second line under the row.
	EvMinSummary = 30
)

// The events list's columns, by position.
const (
	evColTime = iota
	evColKind
	EvColWallet
	evColAmount
	evColCharge
	evColCount
	EvColSummary
)

// View is the live feed of verified webhook events, newest first, read from the store's
// event log (deduplicated by eventId: a re-sent event is one row with its count). Only the
// visible rows are built, and each is cached until its count, the width, its charge, its
// verdict or its day changes. At the top, the cursor stays on the newest event as events
// arrive; elsewhere it stays on its event. `enter` opens the payload as received, pretty-printed.
type View struct {
	common.Ident
	common.List[string, eventStamp, state.EventEntry]
	started       bool // start ran: the list reads what a resize uncovers
	C             *common.Common
	width, height int // the view's; the list has the lines under the three header lines

	// Filter is the kind and wallet shown; win holds the rows around the cursor.
	Filter state.EventQuery
	Win    common.ListWindow[state.EventQuery, state.EventEntry]
	// facets are the kinds and wallets present, the total and the last arrival, as last read.
	facets    state.EventFacets
	facetsErr error

	Detail *eventDetail
}

// eventsOwner addresses the events list's reads.
const eventsOwner = "events"

// EventPage is a read of the events list.
type EventPage = common.WindowLoadedMsg[state.EventQuery, state.EventEntry]

// FacetsMsg is a read of the events' kinds, wallets, total and last arrival.
type FacetsMsg struct {
	gen    uint64
	facets state.EventFacets
	err    error
}

// EventColumns are the events list's columns. The summary takes the room first; narrower than
// evMinSummary, it goes under the row, and the wallet widens into the room it leaves.
func EventColumns(tr common.Catalog) []common.Column {
	return []common.Column{
		evColTime:    {Title: tr.T("events.time_caps"), Width: EvTimeW},
		evColKind:    {Title: tr.T("events.kind_caps"), Width: EvKindW},
		EvColWallet:  {Title: tr.T("events.wallet_caps"), Width: 12, Priority: 6, Wide: 16, WidePriority: 1},
		evColAmount:  {Title: tr.T("events.amount_caps"), Width: EvAmountW, Right: true},
		evColCharge:  {Title: tr.T("events.charge_caps"), Width: EvChargeW, Priority: 5},
		evColCount:   {Title: "", Width: EvCountW, Priority: 4},
		EvColSummary: {Title: tr.T("events.summary_caps"), Width: EvMinSummary, Wide: EvMinSummary + 10, WidePriority: 2, Fill: 1, Priority: 3, Below: true},
	}
}

// eventLayout is how an events row is laid out at one width.
type eventLayout struct {
	// TwoLines puts the summary on a second line under the row.
	TwoLines bool
	// Verdict starts the summary with the verdict's mark. Beside the row, the mark is the first
	// thing dropped when the summary gets narrower than evMinSummary with it; under the row it
	// stays, unless even the columns that never drop do not fit (below the dashboard's minimum).
	Verdict bool
}

// EventLayoutFor is the events row's layout at width w.
func EventLayoutFor(w int) eventLayout {
	return eventLayoutOf(common.LayoutColumns(EventColumns(common.Catalog{}), w))
}

// eventLayoutOf is the events row's layout for a placement of its columns.
func eventLayoutOf(l common.Layout) eventLayout {
	if l.Below == EvColSummary {
		return eventLayout{TwoLines: true, Verdict: !l.Overflow}
	}
	return eventLayout{Verdict: l.Widths[EvColSummary] >= EvMinSummary+EvVerdictW}
}

// eventStamp is what an event's row shows besides the width: it is drawn again when it changes.
type eventStamp struct {
	count     int
	chargeVer int64
	today     bool
	verdict   state.Verdict
	reason    string
}

// eventDetail is the payload pane of one event.
type eventDetail struct {
	ID string
	// entry is the event as the window last read it (its verdict arrives after it).
	entry state.EventEntry
	// lines are built (by update, never by view) for width, the charge version ver (a refund
	// confirmed since shows), the verdict and whether documents are revealed.
	width   int
	ver     int64
	verdict state.Verdict
	reason  string
	Lines   []string
	scroll  int
	// reveal shows CPF/CNPJ in full (v); masked reports that the payload holds one to mask.
	reveal, masked bool
}

// NewEventsView makes the events view.
func NewEventsView(c *common.Common) *View {
	v := &View{C: c}
	v.List = common.NewList[string, eventStamp](&v.Win, func(e *state.EventEntry) string { return e.Event.EventID })
	v.StickTop = true
	v.SetColumns(EventColumns(c.Tr))
	return v
}

// Title is the tab title.
func (v *View) Title() string { return v.C.Tr.T("events.events") }

// CapturesText reports whether printable keys belong to its text fields.
func (v *View) CapturesText() bool { return false }

// receiving reports whether the session has a webhook receiver.
func (v *View) receiving() bool { return v.C.App.Sess.Intake != nil }

// readEvents reads a window of the events list from the store.
func readEvents(store *state.Store) common.WindowRead[state.EventQuery, state.EventEntry] {
	return func(ctx context.Context, q state.EventQuery, offset, limit int) ([]state.EventEntry, int, bool, error) {
		p, err := store.EventWindow(ctx, q, offset, limit)
		return p.Entries, p.Total, false, err
	}
}

// Load asks for the rows on screen when they are not loaded and current.
func (v *View) Load() tea.Cmd {
	return v.Win.Need(eventsOwner, v.C.App.Gen, v.Offset, v.Visible(), readEvents(v.C.App.Sess.Store))
}

// loadFacets reads the kinds, wallets, total and last arrival.
func (v *View) loadFacets() tea.Cmd {
	gen, store := v.C.App.Gen, v.C.App.Sess.Store
	return v.C.App.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		f, err := store.Facets(ctx)
		return FacetsMsg{gen: gen, facets: f, err: err}
	})
}

// SetFilter shows another kind and wallet, from the top.
func (v *View) SetFilter(q state.EventQuery) tea.Cmd {
	v.Filter = q
	v.Win.SetQuery(q)
	v.Top()
	return v.Load()
}

// chargeOf is the tracked charge an event names, as the window read it with the event (the
// window is read again whenever the store's charges change).
func (v *View) chargeOf(e *state.EventEntry) (state.Charge, bool) {
	if e.Event.TransactionID == "" || e.Charge == nil {
		return state.Charge{}, false
	}
	return *e.Charge, true
}

// current is the entry with the detail's id as the window holds it now (its verdict arrives after the event).
func (v *View) current(d *eventDetail) state.EventEntry {
	for i := range v.Win.Items {
		if v.Win.Items[i].Event.EventID == d.ID {
			return v.Win.Items[i]
		}
	}
	return d.entry
}

// SetSize gives it its room in cells.
func (v *View) SetSize(w, h int) tea.Cmd {
	v.width, v.height = w, h
	v.Resize(w, h-3)
	v.syncDetail()
	if !v.started {
		return nil // the first read is start's
	}
	return v.Load() // the rows a taller list uncovers
}

// Start reads the rows on screen and the facets.
func (v *View) Start() tea.Cmd {
	v.started = true
	v.Win.Invalidate()
	return tea.Batch(v.Load(), v.loadFacets())
}

// Focus gives the view the keyboard back; it reads nothing.
func (v *View) Focus() tea.Cmd { return nil }

// Blur keeps the view as it is: it shows the same rows when it comes back.
func (v *View) Blur() {}

// ShortHelp lists the keys the footer shows.
func (v *View) ShortHelp() []key.Binding {
	k := v.C.Keys
	if v.Detail != nil {
		return []key.Binding{k.Up, k.Down, k.PageDown, k.Reveal, k.Back}
	}
	return []key.Binding{k.Enter, k.KindFilter, k.WalletFilter}
}

// FullHelp lists the view's keys for the help screen.
func (v *View) FullHelp() [][]key.Binding {
	k := v.C.Keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.KindFilter, k.WalletFilter, k.Inspect, k.Reveal, k.Back}}
}

// Update handles a key or a reply meant for it.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	cmd := v.handle(msg)
	v.syncDetail()
	return cmd
}

func (v *View) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.Detail != nil {
			return v.detailKey(msg)
		}
		return v.listKey(msg)
	case common.StoreChangedMsg:
		v.Win.Invalidate() // rows show their charge's state too
		if !msg.Events {
			return v.Load()
		}
		return tea.Batch(v.Load(), v.loadFacets())
	case EventPage:
		// The cursor stays on its event as new ones arrive above it (see list.hold).
		cmd, _ := v.Win.Reply(msg, eventsOwner, v.C.App.Gen, func(err error) string {
			return v.C.Tr.F("events.could_not_read_the_events", err)
		}, v.Hold, v.Load)
		return cmd
	case FacetsMsg:
		if msg.gen == v.C.App.Gen {
			v.facetsErr = msg.err
			if msg.err == nil {
				v.facets = msg.facets
			}
		}
	}
	return nil
}

func (v *View) listKey(km tea.KeyMsg) tea.Cmd {
	k := v.C.Keys
	switch {
	case v.Navigate(km, k):
	case key.Matches(km, k.Enter):
		if e, ok := v.SelectedLine(); ok {
			v.Detail = &eventDetail{ID: e.Event.EventID, entry: e}
		}
	case key.Matches(km, k.KindFilter):
		return v.SetFilter(state.EventQuery{Kind: nextOf(v.presentKinds(), v.Filter.Kind), Wallet: v.Filter.Wallet})
	case key.Matches(km, k.WalletFilter):
		return v.SetFilter(state.EventQuery{Kind: v.Filter.Kind, Wallet: nextOf(v.facets.Wallets, v.Filter.Wallet)})
	case key.Matches(km, k.Back):
		if v.Filter != (state.EventQuery{}) {
			return v.SetFilter(state.EventQuery{})
		}
	case key.Matches(km, k.Inspect):
		if e, ok := v.SelectedLine(); ok {
			return inspectEvent(e.Event)
		}
	}
	return v.Load()
}

// inspectEvent opens the event's transaction in the inspector.
func inspectEvent(ev *api.Event) tea.Cmd {
	if ev.TransactionID == "" {
		return nil
	}
	q, w := ev.TransactionID, ev.Wallet()
	return func() tea.Msg { return common.InspectMsg{Query: q, Wallet: w} }
}

// nextOf returns the value after cur in "" (all), then list, then "" again.
func nextOf[T ~string](list []T, cur T) T {
	if cur == "" {
		if len(list) == 0 {
			return ""
		}
		return list[0]
	}
	i := slices.Index(list, cur)
	if i < 0 || i+1 >= len(list) {
		return ""
	}
	return list[i+1]
}

// presentKinds returns the kinds events arrived with: the spec's in its order, then unknown ones sorted.
func (v *View) presentKinds() []api.EventKind {
	have := make(map[api.EventKind]bool, len(v.facets.Kinds))
	for _, k := range v.facets.Kinds {
		have[k] = true
	}
	var out, unknown []api.EventKind
	for _, k := range api.EventKinds {
		if have[k] {
			out = append(out, k)
		}
	}
	for _, k := range v.facets.Kinds {
		if !k.Known() {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return append(out, unknown...)
}

func (v *View) detailKey(km tea.KeyMsg) tea.Cmd {
	k := v.C.Keys
	d := v.Detail
	switch c, nav := k.Navigate(km, d.scroll, len(d.Lines)+1, v.detailBody()); {
	case key.Matches(km, k.Back):
		v.Detail = nil
	case nav:
		d.scroll = c
	case key.Matches(km, k.Inspect):
		return inspectEvent(d.entry.Event)
	case key.Matches(km, k.Reveal):
		d.reveal = !d.reveal
		d.Lines = nil // rebuilt, and the scroll kept in range, by syncDetail
	}
	return nil
}

// detailBody is how many payload lines fit under the detail's title, above its position line.
func (v *View) detailBody() int { return max(v.height-2, 1) }

// syncDetail builds the open detail's lines again when what they show changed (the width, the
// event's verdict or charge, the reveal), and keeps its scroll in range. update and setSize
// call it, so view only draws.
func (v *View) syncDetail() {
	d := v.Detail
	if d == nil {
		return
	}
	d.entry = v.current(d)
	e := d.entry
	if ver := v.chargeVersion(&e); d.width != v.width || d.ver != ver || d.verdict != e.Verdict || d.reason != e.VerdictReason || d.Lines == nil {
		d.width, d.ver, d.verdict, d.reason = v.width, ver, e.Verdict, e.VerdictReason
		d.Lines, d.masked = v.DetailLines(e, v.width, d.reveal)
	}
	d.scroll = max(min(d.scroll, len(d.Lines)-v.detailBody()), 0)
}

// View renders it at the size it was given; it changes nothing.
func (v *View) View() string {
	w, h := v.width, v.height
	if v.Detail != nil {
		return v.detailView(w, h)
	}
	if sess := v.C.App.Sess; !v.receiving() && sess.Hub == nil && !sess.ReceiverElsewhere && sess.ReceiverDown == "" && v.facets.Total == 0 {
		return v.setupView(w, h)
	}
	st := v.C.St
	n := v.Win.Len()

	var b strings.Builder
	b.Grow((h + 1) * (w + 16))
	b.WriteString(v.topLine(w, n))
	b.WriteByte('\n')
	b.WriteString(v.receiverLine(w))
	b.WriteByte('\n')
	b.WriteString(v.Header(st))
	b.WriteByte('\n')
	if !v.Win.Shown {
		if v.Win.Err != nil {
			b.WriteString(st.Err.Render(common.TruncateWidth(v.C.Tr.F("events.could_not_read_the_events", v.Win.Err), w)))
		}
		return b.String()
	}
	if n == 0 {
		b.WriteString(v.emptyText(w))
		return b.String()
	}
	now := v.C.Now().In(v.C.Loc)
	v.Draw(&b, st, common.RowPainter[eventStamp, state.EventEntry]{
		Cells: func(e *state.EventEntry, _ bool) []common.Cell { return v.cells(e, now) },
		Stamp: func(e *state.EventEntry) eventStamp {
			return eventStamp{count: e.Count, chargeVer: v.chargeVersion(e), today: sameDay(e.ReceivedAt.In(v.C.Loc), now),
				verdict: e.Verdict, reason: e.VerdictReason}
		},
	})
	return b.String()
}

// topLine is the count and filter on the left and the receiver's counters on the right.
func (v *View) topLine(w, shown int) string {
	st, tr := v.C.St, v.C.Tr
	total := v.facets.Total
	left := st.Bold.Render(tr.N("events.events_n", total))
	kind, wallet := v.Filter.Kind, v.Filter.Wallet
	if kind != "" || wallet != "" {
		left = st.Bold.Render(tr.N("events.of_events_n", total, shown, total))
	}
	if kind != "" {
		left += st.Muted.Render(" · "+tr.T("events.kind")+": ") + v.kindStyle(kind).Render(tr.Enum(kind))
	}
	if wallet != "" {
		left += st.Muted.Render(" · "+tr.T("events.wallet")+": ") + st.Bold.Render(common.Sanitize(wallet))
	}
	return common.Spread(left, v.StatsText(), w)
}

// StatsText is the receiver's counters: rejected deliveries always, the others when not zero.
func (v *View) StatsText() string {
	stats := v.C.App.Sess.ReceiverStats
	if stats == nil {
		return ""
	}
	st, tr := v.C.St, v.C.Tr
	s := stats()
	rej := st.Muted
	if s.Rejected > 0 {
		rej = st.Err
	}
	parts := []string{rej.Render(tr.F("events.rejected", s.Rejected))}
	if s.Stale > 0 {
		// Signed, but dated outside the receiver's window: refused (400) and not applied.
		parts = append(parts, st.Err.Render(tr.F("events.refused_timestamp_outside", s.Stale, ShortDuration(v.C.App.Sess.Tolerance()))))
	}
	for _, c := range []struct {
		n   uint64
		fmt string
	}{
		{s.Duplicates, tr.T("events.duplicates")},
		{s.Malformed, tr.T("events.malformed")},
		{s.TooLarge, tr.T("events.too_large")},
		{s.Overflow, tr.T("events.overflow")},
		{s.Failed, tr.T("events.not_saved")},
		{s.Slow, tr.T("events.too_slow")},
		{s.WrongEnvironment, tr.T("events.wrong_environment")},
		{s.Refused, tr.T("events.connections_refused")},
	} {
		if c.n > 0 {
			parts = append(parts, st.Warn.Render(fmt.Sprintf(c.fmt, c.n)))
		}
	}
	if last := s.LastRejection; last.Reason != api.RejectNone {
		at := last.At.In(v.C.Loc)
		when := at.Format("15:04")
		if !sameDay(at, v.C.Now().In(v.C.Loc)) {
			when = at.Format("02/01 15:04")
		}
		parts = append(parts, st.Muted.Render(tr.F("events.last", rejectReason(tr, last.Reason), when)))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// rejectReason names why the receiver refused a delivery.
func rejectReason(tr common.Catalog, r api.RejectReason) string {
	switch r {
	case api.RejectSignature:
		return tr.T("events.bad_signature")
	case api.RejectTimestamp:
		return tr.T("events.timestamp_outside_the_window")
	case api.RejectTooLarge:
		return tr.T("events.too_large_2")
	case api.RejectMalformed:
		return tr.T("events.not_an_event")
	case api.RejectSlowBody:
		return tr.T("events.body_too_slow")
	case api.RejectEnvironment:
		return tr.T("events.wrong_environment_2")
	}
	return common.Sanitize(r.String())
}

// ShortDuration prints a tolerance in its largest whole unit: 5m, 90s, 1h, 1h30m.
func ShortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0 && d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dh%dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d < 2*time.Minute || d%time.Second != 0:
		return fmt.Sprintf("%gs", d.Seconds())
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// receiverLine says where events come from and when the last one arrived.
func (v *View) receiverLine(w int) string {
	st, tr := v.C.St, v.C.Tr
	sess := v.C.App.Sess
	if !v.receiving() && sess.Hub != nil {
		// A counter: the shop's hub receives the service's webhooks and hands them on.
		return st.Muted.Render(common.TruncateWidth(tr.F("events.through_the_hub", common.Sanitize(sess.Hub.Counter())), w))
	}
	if !v.receiving() && sess.ReceiverElsewhere {
		return st.Muted.Render(common.TruncateWidth(tr.T("events.another_pixdash_receives_this_profile_s"), w))
	}
	if !v.receiving() && sess.ReceiverDown != "" {
		return st.Warn.Render(common.TruncateWidth(tr.F("events.no_webhook_receiver_is_in_use", sess.ReceiverDown), w))
	}
	if !v.receiving() {
		return st.Warn.Render(common.TruncateWidth(tr.F("events.no_webhook_receiver_these_are_saved", sess.Profile), w))
	}
	s := tr.T("events.receiver_on")
	if sess.WebhookURL != "" {
		s = tr.F("events.receiving_at", sess.WebhookURL)
	}
	if v.Filter != (state.EventQuery{}) {
		return st.Muted.Render(common.TruncateWidth(s, w))
	}
	if at := v.facets.LastAt; !at.IsZero() {
		s += " · " + tr.F("events.last_event_ago", common.HumanAge(v.C.Now().Sub(at)))
	}
	return st.Muted.Render(common.TruncateWidth(s, w))
}

func (v *View) emptyText(w int) string {
	st, tr := v.C.St, v.C.Tr
	if v.Filter != (state.EventQuery{}) {
		return st.Muted.Render(common.TruncateWidth(tr.T("events.no_event_matches_the_filter_t"), w))
	}
	lines := []string{tr.T("events.no_events_yet_they_appear_here")}
	if v.C.App.Sess.Demo {
		lines = append(lines, tr.T("events.demo_create_a_charge_n_and"))
	}
	var out []string
	for _, l := range lines {
		out = append(out, st.Muted.Render(ansi.Wrap(l, w, "")))
	}
	return strings.Join(out, "\n")
}

// cells are an event's columns: when it arrived, its kind, wallet, amount, charge, how many
// copies came, and its summary (the verdict's mark, a decoding warning and what a disputed or
// unknown event claims come first).
func (v *View) cells(e *state.EventEntry, now time.Time) []common.Cell {
	st, ev, l := v.C.St, e.Event, v.Layout
	amount := "—"
	if ev.Amount != 0 {
		amount = ev.Amount.BRL()
	}
	charge := common.ShortID(ev.TransactionID)
	if charge == "" {
		charge = "—"
	}
	count := ""
	if e.Count > 1 {
		count = fmt.Sprintf("×%d", e.Count)
	}
	kind := v.kindStyle(ev.Kind)
	// The summary: verdict mark, warning, claim, then the gist in the room left.
	below := l.Below == EvColSummary
	room := l.CellWidth(EvColSummary)
	vstyle, sym := st.StatusLine(e.Verdict)
	verdict := ""
	switch {
	case !eventLayoutOf(l).Verdict:
	case e.Verdict != state.VerdictUnchecked || ev.Kind.ReadBack():
		verdict = sym + " "
	case !below:
		verdict = common.Spaces(EvVerdictW) // the summaries of the rows start in one column
	}
	room -= lipgloss.Width(verdict)
	warn := ""
	if ev.DecodeErr != "" {
		warn = "⚠ "
		room -= 2
	}
	claim := ""
	if c := v.verdictClaim(e); c != "" {
		claim = common.TruncateWidth(c, max(room, 1))
		room -= lipgloss.Width(claim)
		if room > 3 {
			claim += " · "
			room -= 3
		}
	}
	gist := ""
	if room > 0 {
		gist = common.TruncateWidth(common.Sanitize(common.MaskDocumentsIn(v.Summary(e))), room)
	}
	styled := vstyle.Render(verdict)
	if warn != "" {
		styled += st.Warn.Render(warn)
	}
	styled += vstyle.Render(claim) + gist
	return []common.Cell{
		evColTime:    {Text: eventTime(e.ReceivedAt.In(v.C.Loc), now)},
		evColKind:    {Text: v.C.Tr.Enum(ev.Kind), Style: &kind},
		EvColWallet:  {Text: common.Sanitize(ev.Wallet())},
		evColAmount:  {Text: amount},
		evColCharge:  {Text: common.Sanitize(charge)},
		evColCount:   {Text: count, Style: &st.Accent},
		EvColSummary: {Text: verdict + warn + claim + gist, Styled: styled},
	}
}

// eventTime shows a time of day for today's events and the date before.
func eventTime(t, now time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if sameDay(t, now) {
		return t.Format("15:04:05")
	}
	return t.Format("02/01 15:04")
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// shortID cuts a transaction id to its first 8 characters and "…".

// chargeVersion changes when the tracked charge a payment row reads (requested split, refund
// progress) changes: its update time, and the number of requested legs (set at creation).
func (v *View) chargeVersion(e *state.EventEntry) int64 {
	if ev := e.Event; !ev.Kind.IsPayment() || ev.TransactionID == "" {
		return 0
	}
	ch, ok := v.chargeOf(e)
	if !ok {
		return -1
	}
	return ch.UpdatedAt.UnixNano()*16 + int64(len(ch.SplitRequested))
}

// kindStyle colours a kind by family: payments green (completed) or red (failed), refunds,
// withdrawals and balance blocks each their own; the rest muted.
func (v *View) kindStyle(k api.EventKind) lipgloss.Style {
	st := v.C.St
	switch {
	case k == api.EventPaymentCompleted:
		return st.OK
	case k == api.EventPaymentFailed:
		return st.Err
	case k == api.EventRefundCompleted:
		return st.EvRefund
	case k == api.EventWithdrawalCompleted, k == api.EventWithdrawalFailed, k == api.EventWithdrawalReversed:
		return st.EvWithdrawal
	case k.IsBalanceBlock():
		return st.EvBlock
	}
	return st.Muted
}

// Summary is the one-line gist of an event, in the merchant's language.
func (v *View) Summary(e *state.EventEntry) string {
	ev := e.Event
	tr := v.C.Tr
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch ev.Kind {
	case api.EventPaymentCompleted:
		ch, _ := v.chargeOf(e)
		add(splitGist(tr, ch.SplitRequested, ev.Split))
		if ev.CounterpartName != "" {
			add(tr.F("events.payer", ev.CounterpartName))
		}
		if ev.FeeAmount != 0 {
			add(tr.F("events.fee_reported", ev.FeeAmount.BRL())) // the event's, unconfirmed
		}
	case api.EventPaymentFailed:
		if bd := ev.BlockedDeposit; bd != nil {
			if bd.Reason == api.ReasonCNPJPayerNotAllowed {
				add(tr.T("events.cnpj_payer_blocked"))
			} else {
				add(tr.F("events.blocked", bd.Reason))
			}
			add(refundGist(tr, bd.Refund))
			if now := v.currentRefund(e); now != "" {
				add(tr.F("events.now", tr.T(now)))
			}
		} else {
			add(orText(ev.FailureReason, tr.T("events.payment_failed")))
		}
	case api.EventPaymentExpired:
		add(tr.T("events.expired_without_payment"))
		if ev.ExternalReference != "" {
			add(tr.F("events.ref", ev.ExternalReference))
		}
	case api.EventRefundCompleted:
		// The event's own figures: the service's answer does not carry a refund's fee.
		add(tr.F("events.net_fee_reported_cost_to_you", ev.NetAmount.BRL(), ev.FeeAmount.BRL(), (ev.Amount + ev.FeeAmount).BRL()))
	case api.EventBalanceBlockCreated, api.EventBalanceBlockApproved, api.EventBalanceBlockRejected:
		add(blockGist(tr, ev))
	case api.EventWithdrawalCompleted:
		if ev.CounterpartName != "" {
			add(tr.F("events.to", ev.CounterpartName))
		}
		add(ev.E2EID)
	case api.EventWithdrawalFailed, api.EventWithdrawalReversed:
		add(orText(ev.FailureReason, tr.Enum(api.WithdrawalStatus(ev.Status))))
	default:
		add(compactJSON(ev))
	}
	return strings.Join(parts, " · ")
}

// currentRefund is the tracked charge's refund status when it moved on since the event was sent.
func (v *View) currentRefund(e *state.EventEntry) string {
	ev := e.Event
	ch, ok := v.chargeOf(e)
	if !ok || ch.BlockedDeposit == nil || ch.BlockedDeposit.Refund == nil {
		return ""
	}
	now := ch.BlockedDeposit.Refund.Status
	if bd := ev.BlockedDeposit; bd != nil && bd.Refund != nil && bd.Refund.Status == now {
		return ""
	}
	return common.Sanitize(string(now))
}

// cleanRefund is r with its texts cleaned for display.
func cleanRefund(r *api.Refund) *api.Refund {
	if r == nil {
		return nil
	}
	c := *r
	c.Status = api.RefundStatus(common.Sanitize(string(r.Status)))
	if r.E2EID != nil {
		e := common.Sanitize(*r.E2EID)
		c.E2EID = &e
	}
	return &c
}

func orText(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// splitGist compares what payment_completed distributed with what the charge requested
// (api.ReconcileSplit).
func splitGist(tr common.Catalog, requested, distributed []api.SplitItem) string {
	rec := api.ReconcileSplit(requested, distributed, true)
	switch {
	case rec.None():
		return tr.T("events.no_split")
	case len(requested) == 0:
		return tr.N("events.split_distributed_legs_n", len(distributed), len(distributed), rec.Distributed.BRL())
	}
	reduced, dropped := rec.Reduced, rec.NotPaid
	got, asked := rec.Distributed.BRL(), rec.Requested.BRL()
	switch {
	case reduced == 0 && dropped == 0:
		return tr.N("events.split_as_requested_legs_n", len(requested), len(requested), asked)
	case dropped == 0:
		return tr.N("events.split_of_requested_legs_reduced_n", reduced, got, asked, reduced)
	case reduced == 0:
		return tr.N("events.split_of_requested_legs_dropped_n", dropped, got, asked, dropped)
	}
	return tr.F("events.split_of_requested_reduced_dropped", got, asked, reduced, dropped)
}

// refundGist is the refund progress a payment_failed event reported.
func refundGist(tr common.Catalog, r *api.Refund) string {
	if r == nil {
		return tr.T("events.refund_not_started")
	}
	return tr.F("events.refund", tr.Enum(r.Status))
}

// blockGist is a balance block's type, amount, status and reference.
func blockGist(tr common.Catalog, ev *api.Event) string {
	bb := ev.BalanceBlock
	if bb == nil {
		return tr.F("events.block", orText(tr.Enum(api.BlockStatus(ev.Status)), "—"))
	}
	amount := bb.Amount
	if amount == 0 {
		amount = ev.Amount
	}
	s := tr.F("events.block_2", orText(tr.Enum(common.BlockType(bb.BlockType)), "?"), amount.BRL(), tr.Enum(bb.Status))
	if bb.ReferenceNumber != "" {
		s += " · " + bb.ReferenceNumber
	}
	return s
}

// compactJSON is the payload on one line, as it came, with CPF/CNPJ masked.
func compactJSON(ev *api.Event) string {
	var buf bytes.Buffer
	if len(ev.Raw) > 0 && json.Compact(&buf, ev.Raw) == nil {
		return string(common.MaskDocumentsJSON(buf.Bytes()))
	}
	b, _ := json.Marshal(ev)
	return string(common.MaskDocumentsJSON(b))
}

// setupView explains how to give the profile a webhook receiver.
func (v *View) setupView(w, h int) string {
	st, tr := v.C.St, v.C.Tr
	profile := common.Sanitize(v.C.App.Sess.Profile)
	wrap := func(s string) string { return ansi.Wrap(s, w, "") }
	code := func(s string) string { return st.Accent.Render(common.TruncateWidth(s, w)) }
	comment := func(s string) string { return st.Muted.Render(common.TruncateWidth("  # "+s, w)) }
	lines := []string{
		st.Bold.Render(common.TruncateWidth(tr.F("events.no_webhook_receiver_for_profile", profile), w)),
		"",
		wrap(tr.T("events.the_service_pushes_events_payments_refunds")),
		"",
		code("  [profiles." + profile + ".webhook]"),
		comment(tr.T("events.address_and_port_to_listen_on")),
		code(`  listen     = "127.0.0.1:8787"`),
		comment(tr.T("events.environment_variable_holding_the_signing_secret")),
		comment(tr.T("events.or_secret_cmd_a_command_that")),
		code(`  secret_env = "PIXDASH_WEBHOOK_SECRET"`),
		"",
		wrap(tr.F("events.then_restart_pixdash_and_register_the", api.WebhookPath)),
		wrap(tr.T("events.check_the_file_with_pixdash_config")),
	}
	return common.FitBlock(strings.Join(lines, "\n"), w, h)
}

// detailView is the selected event's facts and its payload, scrollable.
func (v *View) detailView(w, h int) string {
	st, tr := v.C.St, v.C.Tr
	d := v.Detail // its lines and scroll are kept current by syncDetail
	e := d.entry
	body := max(h-2, 1)
	first := max(min(d.scroll, len(d.Lines)), 0)
	ev := e.Event
	title := v.kindStyle(ev.Kind).Render(tr.Enum(ev.Kind)) + "  " + st.Bold.Render(common.Sanitize(ev.EventID))
	if n := e.Count; n > 1 {
		title += "  " + st.Accent.Render(fmt.Sprintf("×%d", n))
	}
	var b strings.Builder
	b.WriteString(common.Spread(title, st.Muted.Render(tr.T("events.esc_back")), w))
	end := min(first+body, len(d.Lines))
	for _, l := range d.Lines[first:end] {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	for i := end - first; i < body; i++ {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	pos := tr.F("events.lines_of", min(first+1, len(d.Lines)), end, len(d.Lines)) + " · ↑/↓ pgup/pgdn"
	switch {
	case d.reveal:
		pos += " · " + tr.T("events.v_hides_documents")
	case d.masked:
		pos += " · " + tr.T("events.v_reveals_documents")
	}
	b.WriteString(st.Muted.Render(common.TruncateWidth(pos, w)))
	return b.String()
}

// DetailLines are the facts of an event, its verdict and its payload pretty-printed, wrapped to
// w, with CPF/CNPJ masked unless reveal; masked reports whether a document was masked.
func (v *View) DetailLines(e state.EventEntry, w int, reveal bool) (lines []string, masked bool) {
	st, tr, loc := v.C.St, v.C.Tr, v.C.Loc
	ev := e.Event
	var out []string
	add := func(s string) {
		for _, l := range strings.Split(ansi.Wrap(s, w, ""), "\n") {
			out = append(out, common.TruncateWidth(l, w)) // Wrap may leave a space past the edge
		}
	}
	field := func(label, value string) {
		if value != "" {
			add(st.Label.Render(label+": ") + common.Sanitize(value))
		}
	}
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(loc).Format("02/01/2006 15:04:05")
	}
	if vl := v.verdictLine(&e); vl != "" {
		add(st.Label.Render(tr.T("events.service_check")+": ") + vl)
	}
	field(tr.T("events.received"), stamp(e.ReceivedAt))
	field(tr.T("events.created"), stamp(ev.CreatedAt))
	field(tr.T("events.wallet"), ev.Wallet())
	field(tr.T("events.charge"), ev.TransactionID)
	field(tr.T("events.reference"), ev.ExternalReference)
	if ev.Amount != 0 {
		field(tr.T("events.amount"), ev.Amount.BRL())
	}
	if ev.Kind.Known() {
		sum := v.Summary(&e)
		if !reveal {
			sum = common.MaskDocumentsIn(sum)
		}
		field(tr.T("events.summary"), sum)
	}
	switch ev.Kind {
	case api.EventPaymentCompleted:
		ch, _ := v.chargeOf(&e)
		for _, l := range splitLegLines(tr, ch.SplitRequested, ev.Split) {
			add("  " + l)
		}
	case api.EventPaymentFailed:
		if ev.FailureReason != "" {
			reason := ev.FailureReason
			if !reveal {
				reason = common.MaskDocumentsIn(reason)
			}
			add(st.Err.Render(common.Sanitize(reason)))
		}
		if bd := ev.BlockedDeposit; bd != nil {
			add(st.Label.Render(tr.T("events.blocked_deposit")) + common.Sanitize(common.BlockReason(tr, bd.Reason)))
			for _, l := range common.RefundLines(tr, st, cleanRefund(bd.Refund), loc) {
				add("  " + l)
			}
			if now := v.currentRefund(&e); now != "" {
				add("  " + tr.F("events.now_read_from_the_transaction", tr.T(now)))
			}
		}
	case api.EventRefundCompleted:
		field(tr.T("events.customer_receives"), ev.NetAmount.BRL())
		field(tr.T("events.refund_fee"), tr.F("events.reported_by_the_event_unconfirmed", ev.FeeAmount.BRL()))
		field(tr.T("events.total_cost_to_you"), tr.F("events.reported_by_the_event_unconfirmed", (ev.Amount+ev.FeeAmount).BRL()))
	}
	if ev.DecodeErr != "" {
		add(st.Warn.Render("⚠ " + tr.F("events.some_fields_could_not_be_read", common.Sanitize(ev.DecodeErr))))
	}
	out = append(out, "", st.Bold.Render(tr.T("events.payload_as_received")))
	payload, masked := prettyPayload(ev, !reveal)
	for _, l := range payload {
		add(common.Sanitize(l))
	}
	return out, masked
}

// splitLegLines lists each leg: distributed against requested (api.ReconcileSplit).
func splitLegLines(tr common.Catalog, requested, distributed []api.SplitItem) []string {
	var out []string
	for _, l := range api.ReconcileSplit(requested, distributed, true).Legs {
		line := "→ " + common.PadRight(common.Sanitize(l.SubAccount), 16) + " " + common.PadLeft(l.Distributed.BRL(), EvAmountW)
		switch {
		case l.Outcome == api.SplitNotRequested:
			line += "  " + tr.T("events.not_requested")
		case l.Distributed == l.Requested:
			line += "  " + tr.T("events.as_requested")
		default:
			line += "  " + tr.F("events.requested", l.Requested.BRL())
		}
		out = append(out, line)
	}
	return out
}

// prettyPayload is the payload as received, indented (an event built in code is encoded), with
// CPF/CNPJ masked when mask is set; masked reports whether one was.
func prettyPayload(ev *api.Event, mask bool) (lines []string, masked bool) {
	raw := ev.Raw
	if len(raw) == 0 {
		raw, _ = json.Marshal(ev)
	}
	if mask {
		m := common.MaskDocumentsJSON(raw)
		masked = !bytes.Equal(m, raw)
		raw = m
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return strings.Split(string(raw), "\n"), masked
	}
	return strings.Split(buf.String(), "\n"), masked
}

// ClockKey is what of the view changes with the clock (see common.Clocked): the minute (a row
// of another day shows its date) and how long ago the last event came.
func (v *View) ClockKey(now time.Time) string {
	key := common.MinuteKey(now, v.C.Loc)
	if at := v.facets.LastAt; !at.IsZero() {
		key += " " + common.HumanAge(now.Sub(at))
	}
	return key
}
