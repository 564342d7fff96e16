// Package ui is pixdash's Bubble Tea dashboard: a root model routing keys to one view per file.
package ui

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// Minimum terminal size; below it the dashboard asks for a larger window.
const (
	minWidth  = 80
	minHeight = 24
)

// Session is everything the dashboard needs for one profile.
type Session struct {
	Profile  string
	Env      api.Environment
	Demo     bool
	ReadOnly bool
	Client   *api.Client
	Store    *state.Store
	// Sandbox is set when the server is the sandbox emulator: it lets `$` simulate a payment.
	Sandbox *sandbox.Control
	// Intake is where this window's webhook receiver records events (into Store); nil when the
	// profile has no receiver or another window receives its webhooks.
	Intake *state.Intake
	// ReceiverElsewhere reports that the profile's webhooks are received by another pixdash
	// (its events reach this session through the shared database).
	ReceiverElsewhere bool
	// ReceiverStats reports the receiver's counters; nil without a receiver.
	ReceiverStats func() api.ReceiverStats
	// TakeOver, set while ReceiverElsewhere, tries to become the profile's webhook receiver (the
	// other window quit): it starts the receiver and returns what it receives with, or an error
	// matching state.ErrReceiverBusy while the other window still receives. It may block (file
	// lock, listen); the dashboard calls it from a command every few seconds.
	TakeOver func(ctx context.Context) (*Receiving, error)
	// WebhookExposed is the receiver's listen address when it listens beyond loopback over plain
	// HTTP ("" otherwise); the header warns about it.
	WebhookExposed string
	// Wallet is the profile's default wallet ("" or "principal" for the main account).
	Wallet    string
	PixFee    api.Money
	HasPixFee bool
	// Notice is shown once at start (e.g. a corrupt state file moved aside).
	Notice string
	// WebhookURL is where the receiver listens ("" without one).
	WebhookURL string
	// WebhookTolerance is how far a delivery's timestamp may be from the clock before the
	// receiver refuses it as stale (0: api.DefaultWebhookTolerance).
	WebhookTolerance time.Duration
	// DefaultDescription is the description a new charge starts with (the profile's
	// default_description; DefaultDescription when blank).
	DefaultDescription string
	// Imported is what opening the store imported from an older pixdash's journal; nil when nothing.
	Imported *state.ImportReport
	// EventRetentionDays removes events older than this many days when the session opens (0 keeps all).
	EventRetentionDays int
	// Close releases the session's resources (receiver, emulator); may be nil.
	Close func()
}

// DefaultDescription is the description a new charge starts with when the session names none;
// the service refuses a charge without one.
const DefaultDescription = "Venda"

// description is the description new charges start with.
func (s *Session) description() string {
	if s == nil || strings.TrimSpace(s.DefaultDescription) == "" {
		return DefaultDescription
	}
	return s.DefaultDescription
}

// tolerance is the receiver's timestamp window.
func (s *Session) tolerance() time.Duration {
	if s == nil || s.WebhookTolerance <= 0 {
		return api.DefaultWebhookTolerance
	}
	return s.WebhookTolerance
}

// ProfileInfo names a configured profile for the profile switcher.
type ProfileInfo struct {
	Name string
	Env  api.Environment
}

// Options configures the dashboard.
type Options struct {
	Session  *Session
	Profiles []ProfileInfo
	// OpenProfile connects to another profile (nil disables switching).
	OpenProfile  func(ctx context.Context, name string) (*Session, error)
	Lang         Lang
	CustomerLang Lang
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Location is the time zone times are shown in (time.Local when nil).
	Location *time.Location
	// Bell rings the terminal bell (writes BEL to stdout when nil).
	Bell func()
	// Clipboard copies text (OSC 52 to stdout when nil).
	Clipboard func(string)
	// Logger receives what the status line says (errors and warnings); discarded when nil.
	Logger *slog.Logger
	// NewKey mints Idempotency-Keys (api.NewIdempotencyKey when nil; fixed in screenshots).
	NewKey func() string
}

// viewID names the five main views.
type viewID int

const (
	viewCharges viewID = iota + 1
	viewInspector
	viewWallets
	viewBlocks
	viewEvents
)

// Model is the root Bubble Tea model.
type Model struct {
	c    *common
	opts Options
	app  *appState
	view viewID

	panes   map[viewID]pane
	charges *chargesView
	form    *chargeForm
	qr      *qrView
	help    bool
	confirm *confirmDialog
	picker  *picker

	status   statusMsg
	statusAt time.Time

	conn        connState
	polling     map[string]bool
	lastTick    time.Time
	lastRefresh time.Time
	takeOver    takeOverState

	// Read-backs of payment events in flight, and those waiting (see queueConfirm).
	confirming int
	confirmQ   []pendingConfirm
}

// storeRefreshEvery is how often the dashboard checks whether another window on the same
// profile wrote to the database (a cheap check when nothing changed).
const storeRefreshEvery = time.Second

// storeRefreshedMsg reports a check of the profile's database for other windows' writes.
type storeRefreshedMsg struct {
	gen     uint64
	changed bool
	err     error
}

// storeChangedMsg says the store changed (a write of this window or, seen by Refresh, of
// another): the active list reads its window again when what it shows changed.
type storeChangedMsg struct {
	gen                   uint64
	chargesVer, eventsVer uint64
	charges, events       bool // which changed
}

// storeChangeCoalesce is how long the dashboard lets store changes gather before the lists
// read again: under a flood of webhooks they read a few times a second, not once per commit.
const storeChangeCoalesce = 100 * time.Millisecond

// waitChange waits for the next change of the session's store; it is re-armed after each.
func (m *Model) waitChange() tea.Cmd {
	gen, store, done := m.app.gen, m.app.sess.Store, m.app.done
	c0, e0 := m.app.seenCharges, m.app.seenEvents
	return func() tea.Msg {
		changed := store.Changed()
		if c, e := store.Versions(); c == c0 && e == e0 && !waitFor(done, changed) {
			return nil
		}
		if !waitFor(done, time.After(storeChangeCoalesce)) {
			return nil
		}
		c1, e1 := store.Versions()
		return storeChangedMsg{gen: gen, chargesVer: c1, eventsVer: e1, charges: c1 != c0, events: e1 != e0}
	}
}

// connState is what the header says about the link to the service.
type connState struct {
	ok      bool
	known   bool
	lastOK  time.Time
	lastErr string
}

// New builds the root model for a session.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Lang == "" {
		o.Lang = LangEN
	}
	if o.CustomerLang == "" {
		o.CustomerLang = LangPT
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.NewKey == nil {
		o.NewKey = api.NewIdempotencyKey
	}
	tr := catalog{lang: o.Lang}
	app := &appState{}
	c := &common{st: newStyles(), keys: newKeyMap(tr), tr: tr, cust: catalog{lang: o.CustomerLang}, now: o.Now, loc: o.Location, app: app, newKey: o.NewKey}
	m := &Model{c: c, opts: o, app: app, view: viewCharges, polling: map[string]bool{}}
	m.setSession(o.Session)
	return m
}

// setSession makes s the active session: new generation, its default wallet, fresh views.
func (m *Model) setSession(s *Session) {
	m.app.sess = s
	m.app.gen++
	m.app.done = make(chan struct{})
	m.app.subAccounts = nil
	m.app.wallet = api.WalletPrincipal
	if s.Wallet != "" {
		m.app.wallet = s.Wallet
	}
	m.charges = newChargesView(m.c, s.Store)
	m.panes = m.newPanes()
	m.form, m.qr, m.confirm, m.picker = nil, nil, nil, nil
	m.polling = map[string]bool{}
	m.confirming, m.confirmQ = 0, nil
	m.app.eventSeq = -1
	m.app.seenCharges, m.app.seenEvents = s.Store.Versions()
	m.conn = connState{}
	m.view = viewCharges
	switch notice := strings.TrimSpace(importNotice(m.c.tr, s.Imported) + " " + s.Notice); {
	case notice == "":
	case s.Notice == "" && s.Imported != nil && s.Imported.Damaged == 0:
		m.setStatus(notice, statusInfo)
	default:
		m.setStatus(notice, statusWarn)
	}
	m.resize()
}

// newPanes builds the five main views for the current session.
func (m *Model) newPanes() map[viewID]pane {
	return map[viewID]pane{
		viewCharges:   m.charges,
		viewInspector: newInspectorView(m.c),
		viewWallets:   newWalletsView(m.c),
		viewBlocks:    newBlocksView(m.c),
		viewEvents:    newEventsView(m.c),
	}
}

// activePane is the view on screen.
func (m *Model) activePane() pane { return m.panes[m.view] }

// Close releases the active session.
func (m *Model) Close() {
	m.closeSession()
	if m.app.sess != nil && m.app.sess.Close != nil {
		m.app.sess.Close()
	}
}

// Init starts the clock, authentication, pending-submission recovery and the event feed.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tick(), m.authCmd(), m.recoverSubmissions(), m.waitEvent(), m.confirmUnchecked(), m.waitChange(), m.activePane().activate(), m.pruneEvents())
}

func (m *Model) tagNow() tag { return m.app.tag() }

// stale reports whether a reply belongs to another session or wallet.
func (m *Model) stale(t tag) bool { return m.app.stale(t) }

func (m *Model) setStatus(text string, kind statusKind) {
	m.status = statusMsg{text: text, kind: kind}
	m.statusAt = m.c.now()
	switch kind {
	case statusError:
		m.opts.Logger.Error("status", "text", text, "profile", m.app.sess.Profile, "wallet", m.app.wallet)
	case statusWarn:
		m.opts.Logger.Warn("status", "text", text, "profile", m.app.sess.Profile, "wallet", m.app.wallet)
	}
}

// Update routes messages: modal children that capture input first, then global keys, then the view.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = msg.Width, msg.Height
		m.resize()
		// A taller list shows rows its window may not hold (the first read can even land
		// before the first size is known): read them.
		switch p := m.activePane().(type) {
		case *chargesView:
			return m, p.load()
		case *eventsView:
			return m, p.load()
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tickMsg:
		return m, m.onTick(time.Time(msg))
	case statusMsg:
		m.setStatus(msg.text, msg.kind)
		return m, nil
	case ErrorMsg:
		m.setStatus(m.describeError(msg.What, msg.Err), statusError)
		return m, nil
	case confirmedMsg:
		m.confirm = nil
		if msg.yes {
			return m, msg.then
		}
		m.setStatus(m.c.tr.T("Cancelled; nothing was sent."), statusInfo)
		return m, nil
	case formCancelMsg:
		m.form = nil
		return m, m.activePane().activate()
	case projectsMsg:
		if m.form != nil && !m.stale(msg.tag) {
			m.form.setProjects(msg.items, msg.err)
		}
		return m, nil
	case openChargeMsg:
		if msg.charge.ID == "" {
			return m, nil
		}
		m.openQR(msg.charge)
		if ch, ok := m.qr.charge(); ok && !ch.Final() {
			return m, m.pollNow(ch.ID, ch.Wallet)
		}
		return m, nil
	case copiedMsg:
		m.setStatus(m.c.tr.T("PIX code copied to the clipboard (OSC 52)."), statusOK)
		return m, nil
	case inspectMsg:
		m.qr, m.form = nil, nil
		m.view = viewInspector
		return m, m.activePane().update(msg)
	case switchWalletMsg:
		return m, m.setWallet(msg.wallet)
	case closePickerMsg:
		m.picker = nil
		return m, m.activePane().activate()
	}
	if cmd, ok := m.updateWorkflow(msg); ok {
		return m, cmd
	}
	cmd := m.broadcast(msg)
	m.refreshPicker()
	return m, cmd
}

// setWallet makes a wallet active: later calls carry it, and the views reload for it.
func (m *Model) setWallet(w string) tea.Cmd {
	m.picker = nil
	if w == "" {
		w = api.WalletPrincipal
	}
	if w == m.app.wallet {
		return nil
	}
	m.app.wallet = w
	m.setStatus(m.c.tr.F("Active wallet: %s", w), statusOK)
	return tea.Batch(m.broadcast(walletChangedMsg{wallet: w}), m.activePane().activate())
}

func (m *Model) resize() {
	w, h := m.bodySize()
	for _, p := range m.panes {
		p.setSize(w, h)
	}
	if m.form != nil {
		m.form.setSize(w, h)
	}
}

// bodySize is the room left for the active view after header, tabs, footer and frame.
func (m *Model) bodySize() (int, int) {
	w, h := m.c.width, m.c.height-4
	if m.app.sess.Env == api.Production {
		w, h = w-2, h-2
	}
	if w < 0 {
		w = 0
	}
	if h < 0 {
		h = 0
	}
	return w, h
}

func (m *Model) handleKey(km tea.KeyMsg) tea.Cmd {
	k := m.c.keys
	if key.Matches(km, k.ForceQuit) {
		return tea.Quit
	}
	if m.confirm != nil {
		return m.confirm.update(km)
	}
	if m.help {
		if key.Matches(km, k.Help, k.Back, k.Quit) {
			m.help = false
			return m.activePane().activate()
		}
		return nil
	}
	if m.tooSmall() {
		if key.Matches(km, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.picker != nil {
		return m.picker.update(km)
	}
	if m.form != nil {
		return m.form.update(km)
	}
	if m.qr != nil {
		switch {
		case key.Matches(km, k.Back):
			m.qr = nil
			return m.activePane().activate()
		case key.Matches(km, k.Quit):
			return tea.Quit
		}
		return m.qr.update(km)
	}
	p := m.activePane()
	if p.capturesText() {
		return p.update(km)
	}
	switch {
	case key.Matches(km, k.Quit):
		return tea.Quit
	case key.Matches(km, k.Help):
		m.help = true
		return nil
	case key.Matches(km, k.View1):
		return m.showView(viewCharges)
	case key.Matches(km, k.View2):
		return m.showView(viewInspector)
	case key.Matches(km, k.View3):
		return m.showView(viewWallets)
	case key.Matches(km, k.View4):
		return m.showView(viewBlocks)
	case key.Matches(km, k.View5):
		return m.showView(viewEvents)
	case key.Matches(km, k.New):
		return m.openForm()
	case key.Matches(km, k.Wallets):
		return m.openWalletPicker()
	case key.Matches(km, k.Profiles):
		return m.openProfilePicker()
	}
	return p.update(km)
}

// showView switches to a main view and lets it load.
func (m *Model) showView(v viewID) tea.Cmd {
	if m.view == v {
		return nil
	}
	m.view = v
	return m.activePane().activate()
}

// broadcast hands a message to every view; each ignores what is not its own.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	if m.form != nil {
		cmds = append(cmds, m.form.update(msg))
	}
	for _, id := range []viewID{viewCharges, viewInspector, viewWallets, viewBlocks, viewEvents} {
		if p, ok := m.panes[id]; ok {
			cmds = append(cmds, p.update(msg))
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) tooSmall() bool { return m.c.width < minWidth || m.c.height < minHeight }

// openForm starts a new charge with a fresh Idempotency-Key and loads the project picker.
func (m *Model) openForm() tea.Cmd {
	if m.app.sess.ReadOnly {
		m.setStatus(m.c.tr.T("This profile is read-only: creating charges is disabled (read_only = true)."), statusError)
		return nil
	}
	m.form = newChargeForm(m.c, m.app.wallet, m.c.newKey())
	w, h := m.bodySize()
	m.form.setSize(w, h)
	return m.loadProjects()
}

func (m *Model) onTick(now time.Time) tea.Cmd {
	m.lastTick = now
	cmds := []tea.Cmd{tick(), m.schedulePolls(now), m.takeOverTick(now)}
	if st := m.app.sess.Store; st.Persistent() && now.Sub(m.lastRefresh) >= storeRefreshEvery {
		m.lastRefresh = now
		gen := m.app.gen
		cmds = append(cmds, withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
			changed, err := st.Refresh(ctx)
			return storeRefreshedMsg{gen: gen, changed: changed, err: err}
		}))
	}
	if m.qr != nil {
		m.qr.onTick(now)
	}
	return tea.Batch(cmds...)
}

// View renders the whole screen.
func (m *Model) View() string {
	if m.c.width == 0 {
		return ""
	}
	if m.tooSmall() {
		return m.tooSmallView()
	}
	if m.qr != nil {
		return m.frame(m.qr.view(m.c.width, m.c.height), true)
	}
	w, h := m.bodySize()
	var body string
	switch {
	case m.form != nil:
		body = m.form.view(w, h)
	default:
		body = m.activePane().view(w, h)
	}
	if m.picker != nil {
		body = m.picker.overlay(w, h)
	}
	if m.help {
		body = m.helpView(w, h)
	}
	if m.confirm != nil {
		body = m.confirm.overlay(body, w, h)
	}
	body = fitBlock(body, w, h)
	screen := m.headerView(w) + "\n" + m.tabsView(w) + "\n" + body + "\n" + m.footerView(w)
	return m.frame(screen, false)
}

// frame draws the red production border around the screen.
func (m *Model) frame(s string, full bool) string {
	if m.app.sess.Env != api.Production {
		return s
	}
	if full {
		// Customer-facing screens keep their size; draw only a red top rule.
		return s
	}
	return m.c.st.ProdFrame.Render(s)
}

func (m *Model) tooSmallView() string {
	tr := m.c.tr
	msg := tr.F("Enlarge the terminal to at least %dx%d (now %dx%d).", minWidth, minHeight, m.c.width, m.c.height)
	return lipgloss.Place(m.c.width, m.c.height, lipgloss.Center, lipgloss.Center,
		lipgloss.JoinVertical(lipgloss.Center, truncateWidth(msg, max(m.c.width-2, 1)), tr.T("q quits")))
}

// envBadge is the environment label: DEMO, SANDBOX (yellow) or PRODUCTION (red).
func (m *Model) envBadge() string {
	st, tr := m.c.st, m.c.tr
	switch {
	case m.app.sess.Demo:
		return st.BadgeDemo.Render(tr.T("DEMO · nothing is kept"))
	case m.app.sess.Env == api.Production:
		return st.BadgeProd.Render(tr.T("PRODUCTION"))
	}
	return st.BadgeSand.Render(tr.T("SANDBOX"))
}

// headerView is who and where: brand, environment, profile and the active wallet.
func (m *Model) headerView(w int) string {
	st, tr := m.c.st, m.c.tr
	parts := []string{
		st.Brand.Render("pixdash") + " " + m.envBadge(),
		st.Label.Render(tr.T("profile ")) + st.Value.Render(sanitize(m.app.sess.Profile)),
		st.Label.Render(tr.T("wallet ")) + st.Bold.Render(sanitize(m.app.wallet)),
	}
	return spread(m.withWebhookWarning(strings.Join(parts, st.Muted.Render(" │ ")), m.tokenView(m.c.now()), w))
}

// spread puts left and right on one line of width w, cutting left when they do not fit.
func spread(left, right string, w int) string {
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		left = truncateWidth(left, max(w-lipgloss.Width(right)-1, 0))
		gap = w - lipgloss.Width(left) - lipgloss.Width(right)
	}
	if gap < 0 {
		return truncateWidth(left+right, w)
	}
	return left + spaces(gap) + right
}

func (m *Model) tokenView(now time.Time) string {
	st, tr := m.c.st, m.c.tr
	exp, ok := m.app.sess.Client.TokenExpiry()
	if !ok {
		return st.Muted.Render(tr.T("token —"))
	}
	left := exp.Sub(now)
	if left <= 0 {
		return st.Warn.Render(tr.T("token expired"))
	}
	return st.Label.Render(tr.T("token ")) + st.Value.Render(fmt.Sprintf("%ds", int(left.Seconds())))
}

func (m *Model) connView(now time.Time) string {
	st, tr := m.c.st, m.c.tr
	switch {
	case !m.conn.known:
		return st.Muted.Render("○ " + tr.T("connecting…"))
	case !m.conn.ok:
		return st.Err.Render("● " + tr.T("offline"))
	}
	age := now.Sub(m.conn.lastOK)
	s := st.OK.Render("● "+tr.T("online")) + st.Muted.Render(" · "+tr.F("%s ago", humanDuration(age)))
	if age > 30*time.Second {
		s = st.Warn.Render("● "+tr.T("stale")) + st.Muted.Render(" · "+tr.F("%s ago", humanDuration(age)))
	}
	return s
}

// tabsView is the view switcher on the left and the link state (token, connection, data age) on the right.
func (m *Model) tabsView(w int) string {
	st, tr := m.c.st, m.c.tr
	now := m.c.now()
	right := m.connView(now)
	var b strings.Builder
	for i, id := range []viewID{viewCharges, viewInspector, viewWallets, viewBlocks, viewEvents} {
		n := m.panes[id].title()
		label := fmt.Sprintf("%d %s", i+1, n)
		if viewID(i+1) == m.view && m.form == nil {
			b.WriteString(st.TabActive.Render(label))
		} else {
			b.WriteString(st.TabIdle.Render(label))
		}
		b.WriteString("  ")
	}
	if m.form != nil {
		b.WriteString(st.TabActive.Render(tr.T("New charge")))
	}
	return spread(b.String(), right, w)
}

func (m *Model) footerView(w int) string {
	st := m.c.st
	var status string
	if m.status.text != "" {
		style := st.Status
		switch m.status.kind {
		case statusError:
			style = st.StatusErr
		case statusOK:
			style = st.StatusOK
		case statusWarn:
			style = st.StatusWarn
		}
		// Status lines quote the service's messages: text from outside, flattened before drawing.
		status = style.Render(truncateWidth(sanitize(m.status.text), w))
	}
	return status + "\n" + st.Help.Render(truncateWidth(m.shortHelp(), w))
}

// shortHelp lists the keys that work right now.
func (m *Model) shortHelp() string {
	k := m.c.keys
	var bs []key.Binding
	switch {
	case m.form != nil:
		bs = m.form.shortHelp()
	case m.picker != nil:
		bs = m.picker.shortHelp()
	case m.activePane().capturesText():
		bs = m.activePane().shortHelp()
	default:
		bs = append(m.activePane().shortHelp(), k.New, k.Help, k.Quit)
	}
	var parts []string
	for _, b := range bs {
		h := b.Help()
		parts = append(parts, m.c.st.Key.Render(h.Key)+" "+h.Desc)
	}
	return strings.Join(parts, " · ")
}

func (m *Model) helpView(w, h int) string {
	st, tr := m.c.st, m.c.tr
	k := m.c.keys
	p := m.activePane()
	groups := []struct {
		title string
		keys  []key.Binding
	}{
		{tr.T("Everywhere"), []key.Binding{k.View1, k.View2, k.View3, k.View4, k.View5, k.New, k.Wallets, k.Profiles, k.Help, k.Back, k.Quit, k.ForceQuit}},
		{p.title(), p.fullHelp()},
		{tr.T("QR screen"), []key.Binding{k.Copy, k.SimulatePay, k.SimulateCNPJ, k.Expire, k.Back}},
		{tr.T("New charge"), []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}},
	}
	if m.form != nil {
		groups[3].keys = m.form.fullHelp()
	}
	var cols []string
	for _, g := range groups {
		var b strings.Builder
		b.WriteString(st.Bold.Render(g.title) + "\n")
		for _, kb := range g.keys {
			hb := kb.Help()
			b.WriteString(st.Key.Render(padRight(hb.Key, 10)) + " " + hb.Desc + "\n")
		}
		cols = append(cols, b.String())
	}
	grid := lipgloss.JoinHorizontal(lipgloss.Top, cols[0], "   ", cols[1])
	grid2 := lipgloss.JoinHorizontal(lipgloss.Top, cols[2], "   ", cols[3])
	box := st.Overlay.Render(st.Brand.Render(tr.T("Keys")) + "\n\n" + grid + "\n" + grid2 + "\n" + st.Muted.Render(tr.T("? or esc closes this help")))
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// fitBlock pads or cuts s to exactly h lines of at most w cells, so the footer never moves.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = truncateWidth(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// describeError turns an error into a status line: the service's message, trace id and a hint.
func (m *Model) describeError(what string, err error) string { return describeErr(m.c.tr, what, err) }
