// Package ui is pixdash's Bubble Tea dashboard: a root model routing keys to one view per file.
package ui

import (
	"context"
	"errors"
	"fmt"
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
	// Events delivers verified webhook events; nil when the profile has no receiver.
	Events <-chan *api.Event
	// ReceiverStats reports the receiver's counters; nil without a receiver.
	ReceiverStats func() api.ReceiverStats
	// Wallet is the profile's default wallet ("" or "principal" for the main account).
	Wallet    string
	PixFee    api.Money
	HasPixFee bool
	// Notice is shown once at start (e.g. a corrupt state file moved aside).
	Notice string
	// WebhookURL is where the receiver listens ("" without one).
	WebhookURL string
	// Close releases the session's resources (receiver, emulator); may be nil.
	Close func()
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
	sess *Session
	gen  uint64
	// wallet is the active wallet ("principal" or a sub-account reference).
	wallet string
	view   viewID

	charges *chargesView
	form    *chargeForm
	qr      *qrView
	help    bool
	confirm *confirmDialog

	status   statusMsg
	statusAt time.Time

	conn     connState
	polling  map[string]bool
	lastTick time.Time
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
	tr := catalog{lang: o.Lang}
	c := &common{st: newStyles(), keys: newKeyMap(tr), tr: tr, cust: catalog{lang: o.CustomerLang}, now: o.Now, loc: o.Location}
	m := &Model{c: c, opts: o, view: viewCharges, polling: map[string]bool{}}
	m.setSession(o.Session)
	return m
}

func (m *Model) setSession(s *Session) {
	m.sess = s
	m.gen++
	m.wallet = api.WalletPrincipal
	if s.Wallet != "" {
		m.wallet = s.Wallet
	}
	m.charges = newChargesView(m.c, s.Store)
	m.form, m.qr, m.confirm = nil, nil, nil
	m.polling = map[string]bool{}
	m.conn = connState{}
	if s.Notice != "" {
		m.setStatus(s.Notice, statusWarn)
	}
}

// Close releases the active session.
func (m *Model) Close() {
	if m.sess != nil && m.sess.Close != nil {
		m.sess.Close()
	}
}

// Init starts the clock, authentication, pending-submission recovery and the event feed.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tick(), m.authCmd(), m.recoverSubmissions(), m.waitEvent())
}

func (m *Model) tagNow() tag { return tag{gen: m.gen, wallet: m.wallet} }

// stale reports whether a reply belongs to another session or wallet.
func (m *Model) stale(t tag) bool { return t.gen != m.gen || t.wallet != m.wallet }

func (m *Model) setStatus(text string, kind statusKind) {
	m.status = statusMsg{text: text, kind: kind}
	m.statusAt = m.c.now()
}

// Update routes messages: modal children that capture input first, then global keys, then the view.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = msg.Width, msg.Height
		m.resize()
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
	case authMsg:
		return m, m.onAuth(msg)
	case chargeSubmitMsg:
		return m, m.onSubmit(msg.draft)
	case confirmedMsg:
		m.confirm = nil
		if msg.yes {
			return m, msg.then
		}
		m.setStatus(m.c.tr.T("Cancelled; nothing was sent."), statusInfo)
		return m, nil
	case sendChargeMsg:
		return m, m.sendCharge(msg.draft)
	case chargeCreatedMsg:
		return m, m.onCreated(msg)
	case formCancelMsg:
		m.form = nil
		return m, nil
	case openSplitMsg:
		m.setStatus(m.c.tr.T("The split builder opens from the form with ctrl+p."), statusInfo)
		return m, nil
	case projectsMsg:
		if m.form != nil && !m.stale(msg.tag) {
			m.form.setProjects(msg.items, msg.err)
		}
		return m, nil
	case txMsg:
		return m, m.onTx(msg)
	case eventMsg:
		return m, m.onEvent(msg)
	case persistMsg:
		if msg.err != nil {
			m.setStatus(m.c.tr.F("Could not save local state: %v", msg.err), statusError)
		}
		return m, nil
	case simulatedMsg:
		if msg.err != nil {
			m.setStatus(m.describeError(m.c.tr.T("simulate payment"), msg.err), statusError)
			return m, nil
		}
		m.setStatus(m.c.tr.T("Payment simulated; waiting for the service to confirm…"), statusInfo)
		return m, m.pollNow(msg.id, msg.wallet)
	case recoveredMsg:
		return m, m.onRecovered(msg)
	case openChargeMsg:
		m.openQR(msg.id)
		if ch, ok := m.sess.Store.Charge(msg.id); ok && !ch.Final() {
			return m, m.pollNow(ch.ID, ch.Wallet)
		}
		return m, nil
	case refreshChargeMsg:
		m.setStatus(m.c.tr.T("Refreshing…"), statusInfo)
		return m, m.pollNow(msg.id, msg.wallet)
	case resolveMsg, retryRecoverMsg:
		return m, m.recoverSubmissions()
	case copiedMsg:
		m.setStatus(m.c.tr.T("PIX code copied to the clipboard (OSC 52)."), statusOK)
		return m, nil
	}
	return m, nil
}

func (m *Model) resize() {
	w, h := m.bodySize()
	m.charges.setSize(w, h)
	if m.form != nil {
		m.form.setSize(w, h)
	}
}

// bodySize is the room left for the active view after header, tabs, footer and frame.
func (m *Model) bodySize() (int, int) {
	w, h := m.c.width, m.c.height-4
	if m.sess.Env == api.Production {
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
		}
		return nil
	}
	if m.tooSmall() {
		if key.Matches(km, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.form != nil {
		return m.form.update(km)
	}
	if m.qr != nil {
		if key.Matches(km, k.Back) {
			m.qr = nil
			return nil
		}
		if key.Matches(km, k.Quit) {
			return tea.Quit
		}
		return m.qr.update(km)
	}
	if m.charges.capturesText() {
		return m.charges.update(km)
	}
	switch {
	case key.Matches(km, k.Quit):
		return tea.Quit
	case key.Matches(km, k.Help):
		m.help = true
		return nil
	case key.Matches(km, k.View1):
		m.view = viewCharges
		return nil
	case key.Matches(km, k.New):
		return m.openForm()
	}
	switch m.view {
	case viewCharges:
		return m.charges.update(km)
	}
	return nil
}

func (m *Model) tooSmall() bool { return m.c.width < minWidth || m.c.height < minHeight }

// openForm starts a new charge with a fresh Idempotency-Key and loads the project picker.
func (m *Model) openForm() tea.Cmd {
	if m.sess.ReadOnly {
		m.setStatus(m.c.tr.T("This profile is read-only: creating charges is disabled (read_only = true)."), statusError)
		return nil
	}
	m.form = newChargeForm(m.c, m.wallet, api.NewIdempotencyKey())
	w, h := m.bodySize()
	m.form.setSize(w, h)
	return m.loadProjects()
}

func (m *Model) onTick(now time.Time) tea.Cmd {
	m.lastTick = now
	cmds := []tea.Cmd{tick(), m.schedulePolls(now)}
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
		body = m.charges.view(w, h)
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
	if m.sess.Env != api.Production {
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
		lipgloss.NewStyle().Width(max(m.c.width-2, 1)).Align(lipgloss.Center).Render(msg+"\n"+tr.T("q quits")))
}

// envBadge is the environment label: DEMO, SANDBOX (yellow) or PRODUCTION (red).
func (m *Model) envBadge() string {
	st, tr := m.c.st, m.c.tr
	switch {
	case m.sess.Demo:
		return st.BadgeDemo.Render(tr.T("DEMO · nothing is kept"))
	case m.sess.Env == api.Production:
		return st.BadgeProd.Render(tr.T("PRODUCTION"))
	}
	return st.BadgeSand.Render(tr.T("SANDBOX"))
}

// headerView is who and where: brand, environment, profile and the active wallet.
func (m *Model) headerView(w int) string {
	st, tr := m.c.st, m.c.tr
	parts := []string{
		st.Brand.Render("pixdash") + " " + m.envBadge(),
		st.Label.Render(tr.T("profile ")) + st.Value.Render(m.sess.Profile),
		st.Label.Render(tr.T("wallet ")) + st.Bold.Render(m.wallet),
	}
	return truncateWidth(strings.Join(parts, st.Muted.Render(" │ ")), w)
}

func (m *Model) tokenView(now time.Time) string {
	st, tr := m.c.st, m.c.tr
	exp, ok := m.sess.Client.TokenExpiry()
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
	s := st.OK.Render("● "+tr.T("online")) + st.Muted.Render(" · "+tr.F("data %s old", humanDuration(age)))
	if age > 30*time.Second {
		s = st.Warn.Render("● "+tr.T("stale")) + st.Muted.Render(" · "+tr.F("data %s old", humanDuration(age)))
	}
	return s
}

// tabsView is the view switcher on the left and the link state (token, connection, data age) on the right.
func (m *Model) tabsView(w int) string {
	st, tr := m.c.st, m.c.tr
	now := m.c.now()
	right := m.tokenView(now) + st.Muted.Render(" · ") + m.connView(now)
	names := []string{tr.T("Charges")}
	var b strings.Builder
	for i, n := range names {
		label := fmt.Sprintf("%d %s", i+1, n)
		if viewID(i+1) == m.view && m.form == nil {
			b.WriteString(st.TabActive.Render(label))
		} else {
			b.WriteString(st.TabIdle.Render(label))
		}
		b.WriteString("   ")
	}
	if m.form != nil {
		b.WriteString(st.TabActive.Render(tr.T("New charge")))
	}
	left := b.String()
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return truncateWidth(left+" "+right, w)
	}
	return left + spaces(gap) + right
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
		status = style.Render(truncateWidth(m.status.text, w))
	}
	return status + "\n" + st.Help.Render(truncateWidth(m.shortHelp(), w))
}

// shortHelp lists the keys that work right now.
func (m *Model) shortHelp() string {
	k := m.c.keys
	var bs []key.Binding
	switch {
	case m.form != nil:
		bs = []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}
	default:
		bs = append(m.charges.shortHelp(), k.New, k.Help, k.Quit)
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
	groups := []struct {
		title string
		keys  []key.Binding
	}{
		{tr.T("Everywhere"), []key.Binding{k.View1, k.New, k.Help, k.Back, k.Quit, k.ForceQuit}},
		{tr.T("Charges"), []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Filter, k.StatusFilter, k.Refresh}},
		{tr.T("QR screen"), []key.Binding{k.Copy, k.SimulatePay, k.SimulateCNPJ, k.Expire, k.Back}},
		{tr.T("New charge"), []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}},
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
func (m *Model) describeError(what string, err error) string {
	tr := m.c.tr
	var ae *api.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = fmt.Sprint(ae.HTTPStatus)
		}
		s := fmt.Sprintf("%s: %s", what, msg)
		if ae.TraceID != "" {
			s += " [trace " + ae.TraceID + "]"
		}
		if h := errorHint(tr, ae); h != "" {
			s += " · " + h
		}
		return s
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s: %s", what, tr.T("the service did not answer in time; check your connection and press r to retry"))
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("%s: %s", what, tr.T("cancelled"))
	}
	return fmt.Sprintf("%s: %v · %s", what, err, tr.T("check your connection; the dashboard keeps retrying"))
}

// errorHint says what to do about a refusal.
func errorHint(tr catalog, e *api.Error) string {
	switch e.SubAccountCode() {
	case api.CodeSubAccountForbidden:
		return tr.T("this credential's access to sub-accounts is off: switch it on in the dashboard under Settings › Integration › API Credentials › 'Access to sub-accounts'")
	case api.CodeSubAccountSuspended:
		return tr.T("this sub-account is suspended; switch to another wallet (w) or contact support")
	case api.CodeSubAccountNotFound:
		return tr.T("no sub-account with that reference in this account/environment; pick one from the wallet list (w)")
	case api.CodeSubAccountReferenceTaken:
		return tr.T("choose another reference")
	case api.CodeSubAccountQuotaExceeded:
		return tr.T("the account reached its sub-account limit; contact support to raise it")
	case api.CodeSubAccountInvalidReference:
		return tr.T("'principal' is reserved for the main account")
	}
	if p := e.RequiredPermission(); p != "" {
		return tr.F("create a credential with %s (or FULL_ACCESS)", p)
	}
	if r := e.InstitutionReason(); r != "" {
		return tr.T("the pinned institution cannot issue this charge; remove pspCredentialId to use configured routing")
	}
	switch {
	case e.HTTPStatus == 401:
		return tr.T("check client_id and the secret (pixdash config check)")
	case e.HTTPStatus == 403:
		return tr.T("the credential or this machine's IP is not allowed; check the credential's permissions and IP allow-list")
	case e.HTTPStatus == 404:
		return tr.T("nothing matched; check the id")
	case e.HTTPStatus == 422:
		return tr.T("this idempotency key was used with a different charge; open a new form")
	case e.HTTPStatus == 429:
		return tr.T("too many requests; the dashboard slows down and retries")
	case e.HTTPStatus >= 500:
		return tr.T("the service failed; try again in a moment (same charge, no duplicate)")
	}
	return ""
}
