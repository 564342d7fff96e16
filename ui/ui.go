// Package ui is pixdash's Bubble Tea dashboard: a root model routing keys to one view per file.
package ui

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/blocks"
	"pixdash/ui/charges"
	"pixdash/ui/common"
	"pixdash/ui/events"
	"pixdash/ui/inspector"
	"pixdash/ui/newcharge"
	"pixdash/ui/qr"
	"pixdash/ui/refund"
	"pixdash/ui/sales"
	"pixdash/ui/search"
	"pixdash/ui/wallets"
	"pixdash/ui/withdrawal"
)

// ProfileInfo names a configured profile for the profile switcher.
type ProfileInfo struct {
	Name string
	Env  api.Environment
}

// Options configures the dashboard.
type Options struct {
	Session  *workflow.Session
	Profiles []ProfileInfo
	// OpenProfile connects to another profile (nil disables switching).
	OpenProfile  func(ctx context.Context, name string) (*workflow.Session, error)
	Lang         common.Lang
	CustomerLang common.Lang
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
	// Export says where the charges view's export key writes and in which dialect.
	Export common.ExportSettings
	// ASCII draws the revenue chart with ASCII glyphs, for terminals without block characters.
	ASCII bool
	// DarkBackground says the terminal's background is dark (lipgloss.HasDarkBackground). It
	// matters only without colours (NO_COLOR): the QR is then drawn in the terminal's own two
	// colours, its light modules in the terminal's ink on a dark background.
	DarkBackground bool
}

// viewID names the main views.
type viewID int

const (
	viewCharges viewID = iota + 1
	viewInspector
	viewWallets
	viewBlocks
	viewEvents
	viewDay
)

// mainViews are the main views in tab order (their number is their key).
var mainViews = []viewID{viewCharges, viewInspector, viewWallets, viewBlocks, viewEvents, viewDay}

// Model is the root Bubble Tea model.
type Model struct {
	c    *common.Common
	opts Options
	app  *common.AppState
	view viewID

	panes   map[viewID]common.Pane
	charges *charges.View
	// overlays are stacked over the views (form, QR screen, pickers, help, confirmations);
	// the top one has the keyboard.
	overlays common.OverlayStack
	// helpLine draws the footer's key list.
	helpLine help.Model

	status   common.StatusMsg
	statusAt time.Time

	link        linkState
	lastTick    time.Time
	lastRefresh time.Time
	takeOver    takeOverState
	damageShown uint64 // app.gen+1 once the session's damaged database was reported

	// eng is the session's engine (polling, read-backs, event feed, recovery, on_paid);
	// watched is the charge it was last told is on the customer's screen.
	eng     sessionEngine
	watched string

	// training: the header says TREINAMENTO; reserveW/H are the cells training mode's
	// checklist takes from the terminal (the dashboard's minimum size counts them).
	training           bool
	reserveW, reserveH int

	// changeAt is when the last StoreChangedMsg was handled (wall clock: waitChange's gap).
	changeAt time.Time

	// shown is the last frame built in Update, returned by View until a message may have
	// changed the screen (see frameCache).
	shown frameCache
	// engineQuiet says the last engineMsg's events changed nothing on screen (handleEvents).
	engineQuiet bool
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

// storeChangeCoalesce is how long the dashboard lets store changes gather before the lists
// read again: under a flood of webhooks they read a few times a second, not once per commit.
const storeChangeCoalesce = 100 * time.Millisecond

// storeChangeGap is the least time between two reads of the lists when the store keeps
// changing (a flood of webhooks): the charges list, the day's strip and the events view read
// twice a second then, not ten times, and a change after a quiet spell still shows within
// storeChangeCoalesce (issue 27).
const storeChangeGap = 500 * time.Millisecond

// waitChange waits for the next change of the session's store; it is re-armed after each.
func (m *Model) waitChange() tea.Cmd {
	gen, store, done := m.app.Gen, m.app.Sess.Store, m.app.Done
	c0, e0, s0 := m.app.SeenCharges, m.app.SeenEvents, m.app.SeenSettled
	last := m.changeAt
	return func() tea.Msg {
		changed := store.Changed()
		if c, e := store.Versions(); c == c0 && e == e0 && store.SettledVersion() == s0 && !waitFor(done, changed) {
			return nil
		}
		wait := max(storeChangeCoalesce, storeChangeGap-time.Since(last))
		if !waitFor(done, time.After(wait)) {
			return nil
		}
		c1, e1 := store.Versions()
		s1 := store.SettledVersion()
		return common.StoreChangedMsg{Gen: gen, ChargesVer: c1, EventsVer: e1, SettledVer: s1, Charges: c1 != c0, Events: e1 != e0, Settled: s1 != s0}
	}
}

// New builds the root model for a session.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Lang == "" {
		o.Lang = common.LangEN
	}
	if o.CustomerLang == "" {
		o.CustomerLang = common.LangPT
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
	tr := common.Catalog{Lang: o.Lang}
	app := &common.AppState{}
	c := &common.Common{St: common.NewStyles(), Keys: common.NewKeyMap(tr), Tr: tr, Cust: common.Catalog{Lang: o.CustomerLang}, Now: o.Now, Loc: o.Location, App: app, NewKey: o.NewKey, Export: o.Export, ASCII: o.ASCII, DarkBG: o.DarkBackground,
		Open: common.Openers{Refund: refund.AskRefund, RefundTx: refund.FromInspector, Withdrawal: withdrawal.AskWithdrawal}}
	m := &Model{c: c, opts: o, app: app, view: viewCharges, helpLine: newHelpLine(c.St)}
	m.setSession(o.Session)
	return m
}

// setSession makes s the active session: new generation, its default wallet, fresh views.
func (m *Model) setSession(s *workflow.Session) {
	if m.app.Cancel != nil {
		m.app.Cancel() // what the replaced session had in flight stops
	}
	m.app.Sess = s
	m.app.Gen++
	m.app.Ctx, m.app.Cancel = context.WithCancel(context.Background())
	m.app.Done = m.app.Ctx.Done()
	m.app.SubAccounts = nil
	m.app.Wallet = api.WalletPrincipal
	if s.Wallet != "" {
		m.app.Wallet = s.Wallet
	}
	m.charges = charges.NewChargesView(m.c, s.Store)
	m.panes = m.newPanes()
	m.overlays = nil
	m.eng, m.watched = m.newEngine(s), ""
	m.app.EventSeq = -1
	m.app.SeenCharges, m.app.SeenEvents = s.Store.Versions()
	m.app.SeenSettled = s.Store.SettledVersion()
	m.link = linkState{}
	m.view = viewCharges
	// The session's notice is the workflow's English sentence: it is translated here.
	switch notice := strings.TrimSpace(importNotice(m.c.Tr, s.Imported) + " " + m.c.Tr.T(s.Notice) + " " + receiverDownNotice(m.c.Tr, s)); {
	case notice == "":
	case s.Notice == "" && s.ReceiverDown == "" && s.Imported != nil && s.Imported.Damaged == 0:
		m.setStatus(notice, common.StatusInfo)
	default:
		m.setStatus(notice, common.StatusWarn)
	}
	m.resize()
}

// newPanes builds the five main views for the current session.
func (m *Model) newPanes() map[viewID]common.Pane {
	return map[viewID]common.Pane{
		viewCharges:   m.charges,
		viewInspector: inspector.NewInspectorView(m.c),
		viewWallets:   wallets.NewWalletsView(m.c),
		viewBlocks:    blocks.NewBlocksView(m.c),
		viewEvents:    events.NewEventsView(m.c),
		viewDay:       sales.NewDayView(m.c),
	}
}

// activePane is the view on screen.
func (m *Model) activePane() common.Pane { return m.panes[m.view] }

// focusActive starts the view on screen (a session's start) and gives it the keyboard; its
// replies come back to it.
func (m *Model) focusActive() tea.Cmd {
	p := m.activePane()
	return m.addressTo(p, tea.Batch(p.Start(), p.Focus()))
}

// Close releases the active session (its engine first).
func (m *Model) Close() {
	m.closeSession()
	if m.eng != nil {
		m.eng.Close()
	}
	if m.app.Sess != nil && m.app.Sess.Close != nil {
		m.app.Sess.Close()
	}
}

// Init starts the clock, authentication and the session's engine (recovery, polling, the
// event feed).
func (m *Model) Init() tea.Cmd {
	return tea.Batch(common.Tick(), m.authCmd(), m.waitEngine(), m.waitChange(), m.focusActive(), m.pruneEvents())
}

func (m *Model) tagNow() common.Tag { return m.app.Tag() }

// stale reports whether a reply belongs to another session or wallet.
func (m *Model) stale(t common.Tag) bool { return m.app.Stale(t) }

// setStatus puts a message without an owner on the status line: the next message replaces
// it, and an OK or informational one goes away by itself after statusLifetime.
func (m *Model) setStatus(text string, kind common.StatusKind) { m.setOwnedStatus("", text, kind) }

func chargeOwner(id string) string { return "charge:" + id }

// until replaced or until their cause is gone.

// setOwnedStatus puts a message on the status line on behalf of owner.
func (m *Model) setOwnedStatus(owner, text string, kind common.StatusKind) {
	m.status = common.StatusMsg{Text: text, Kind: kind, Owner: owner}
	m.statusAt = m.c.Now()
	switch kind {
	case common.StatusError:
		m.opts.Logger.Error("status", "text", text, "profile", m.app.Sess.Profile, "wallet", m.app.Wallet)
	case common.StatusWarn:
		m.opts.Logger.Warn("status", "text", text, "profile", m.app.Sess.Profile, "wallet", m.app.Wallet)
	}
}

// clearStatus removes the status line's message if owner owns it ("" owns none).
func (m *Model) clearStatus(owner string) {
	if owner != "" && m.status.Owner == owner {
		m.status = common.StatusMsg{}
	}
}

// expireStatus removes an OK or informational message, or a key's answer, older than statusLifetime.
func (m *Model) expireStatus(now time.Time) {
	brief := m.status.Kind == common.StatusOK || m.status.Kind == common.StatusInfo || m.status.Owner == common.OwnerAnswer
	if brief && m.status.Text != "" && now.Sub(m.statusAt) >= common.StatusLifetime {
		m.status = common.StatusMsg{}
	}
}

// Update routes messages. Keys go to the top overlay, else to a view that captures text, else
// to the global keys, else to the active view. A component's reply comes in an envelope and
// goes to the component that asked, wherever it is (deliver). Facts that are nobody's reply
// (window size, tick, store changed, wallet changed, a webhook event) take the root's own
// paths: resize, onTick, notify and the active view (tell).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.afterUpdate(msg)
	return m, cmd
}

// update is Update's routing (see Update).
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.AddressedCmd:
		return msg.Run
	case common.EnvelopeMsg:
		return m.deliver(msg)
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		// A taller list shows rows its window may not hold (the first read can even land
		// before the first size is known): the views' setSize reads them.
		return m.resize()
	case tea.KeyMsg:
		return m.handleKeys(msg)
	}
	cmd, _ := m.updateRootMsg(msg)
	return cmd
}

// updateRootMsg handles a message for the root itself (its own commands' replies, and what a
// component asks of the root: a status line, opening a charge, switching wallet); ok is false
// for any other message, which is then nobody's and dropped.
func (m *Model) updateRootMsg(msg tea.Msg) (tea.Cmd, bool) {
	if cmd, ok := m.updateRoot(msg); ok {
		return cmd, true
	}
	if cmd, ok := m.updateLink(msg); ok {
		return cmd, true
	}
	return m.updateWorkflow(msg)
}

// updateRoot handles the messages addressed to the root itself; ok is false for others.
func (m *Model) updateRoot(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case common.TickMsg:
		return m.onTick(time.Time(msg)), true
	case common.StatusMsg:
		if msg.Text == "" {
			m.clearStatus(msg.Owner)
			return nil, true
		}
		m.setOwnedStatus(msg.Owner, msg.Text, msg.Kind)
		return nil, true
	case common.OpenChargeMsg:
		if msg.Charge.ID == "" {
			return nil, true
		}
		return m.openQR(msg.Charge), true
	case qr.PollChargeMsg:
		return m.pollNow(msg.ID, msg.Wallet), true
	case common.InspectMsg:
		cmd := m.closeAll()
		if m.view != viewInspector {
			// The view left behind goes off screen (it stops its work); the inspector comes on.
			m.activePane().Blur()
			m.view = viewInspector
			p := m.activePane()
			cmd = tea.Batch(cmd, m.addressTo(p, p.Focus()))
		}
		return tea.Batch(cmd, m.tell(m.activePane(), msg)), true
	case common.SwitchWalletMsg:
		return m.setWallet(msg.Wallet), true
	case common.ScopeChangedMsg:
		if m.app.AllWallets {
			m.setStatus(m.c.Tr.F("ui.showing_every_wallet_new_charges_still", m.app.Wallet), common.StatusInfo)
		} else {
			m.setStatus(m.c.Tr.F("ui.showing_wallet_only", m.app.Wallet), common.StatusInfo)
		}
		return m.notify(msg), true
	case common.RefundedMsg, common.WithdrawnMsg:
		// A charge's refund or a wallet's balance changed: facts for whichever view shows them.
		return m.notify(msg), true
	}
	return nil, false
}

// deliver opens an envelope. What a component asks of the root (a status line, a charge to
// open) is done whoever sent it; a reply goes to the component it is addressed to, wherever it
// is: a main view, any overlay of the stack, even one under a question. A reply for a
// component that is gone (a closed form, a replaced session) or made for another session (or,
// for work bound to a wallet, another wallet) is dropped.
func (m *Model) deliver(e common.EnvelopeMsg) tea.Cmd {
	if cmd, ok := m.updateRootMsg(e.Msg); ok {
		return cmd
	}
	if s, ok := e.Msg.(serviceReply); ok {
		m.noteResult(s.ServiceErr())
	}
	if e.Tag.Gen != m.app.Gen || (e.Tag.Wallet != "" && e.Tag.Wallet != m.app.Wallet) {
		return nil
	}
	for _, o := range m.overlays {
		if o.Cid() == e.To {
			return m.afterOverlay(o, m.addressTo(o, o.Update(e.Msg)))
		}
	}
	for _, id := range mainViews {
		if p, ok := m.panes[id]; ok && p.Cid() == e.To {
			cmd := m.afterPane(p, m.addressTo(p, p.Update(e.Msg)))
			if id == viewWallets {
				m.refreshPicker()
			}
			return cmd
		}
	}
	return nil
}

// addressTo makes the replies of cmd, which component c returned, envelopes to c for the
// current session.
func (m *Model) addressTo(c common.Component, cmd tea.Cmd) tea.Cmd {
	return common.Address(c.Cid(), common.Tag{Gen: m.app.Gen}, cmd)
}

// tell hands a message of the root (store changed, a lookup to show) to one component; its
// replies come back addressed to it.
func (m *Model) tell(c common.Component, msg tea.Msg) tea.Cmd {
	cmd := m.addressTo(c, c.Update(msg))
	if o, ok := c.(common.Overlay); ok {
		return m.afterOverlay(o, cmd)
	}
	if p, ok := c.(common.Pane); ok {
		return m.afterPane(p, cmd)
	}
	return cmd
}

// notify broadcasts a fact of the root (wallet changed, a webhook event, a refund taken) to
// every view and overlay; each ignores what is not its own, and its replies come back
// addressed to it.
func (m *Model) notify(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, o := range m.overlays {
		cmds = append(cmds, m.addressTo(o, o.Update(msg)))
	}
	for _, id := range mainViews {
		if p, ok := m.panes[id]; ok {
			cmds = append(cmds, m.addressTo(p, p.Update(msg)))
		}
	}
	m.refreshPicker()
	return tea.Batch(cmds...)
}

// push puts an overlay on top of the stack and gives it the keyboard.
func (m *Model) push(o common.Overlay) tea.Cmd {
	if top := m.overlays.Top(); top != nil {
		top.Blur()
	} else {
		m.activePane().Blur()
	}
	m.overlays = append(m.overlays, o)
	size := m.sizeOverlay(o)
	m.clearStatus(common.OwnerAnswer) // the merchant moved on: an earlier answer is about something else
	return m.addressTo(o, tea.Batch(size, o.Start(), o.Focus()))
}

// pushQuestion puts q, asked by component by, on the stack: what q decides is by's reply.
func (m *Model) pushQuestion(by common.Component, q common.Overlay) tea.Cmd {
	if a, ok := q.(interface {
		AnswerFor(common.CompID, common.Tag)
	}); ok {
		a.AnswerFor(by.Cid(), common.Tag{Gen: m.app.Gen})
	}
	return m.push(q)
}

// popDone takes the finished overlays off the stack; what is then on top (or the view) gets
// the keyboard back, and starts no new loading.
func (m *Model) popDone() tea.Cmd {
	n := len(m.overlays)
	kept := m.overlays[:0:0]
	for _, o := range m.overlays {
		if !o.Done() {
			kept = append(kept, o)
			continue
		}
		o.Blur()
		if so, ok := o.(common.StatusOwner); ok {
			m.clearStatus(so.StatusOwner()) // the form's complaints go with it
		}
	}
	m.overlays = kept
	if len(kept) == n {
		return nil
	}
	m.clearStatus(common.OwnerAnswer)
	if top := m.overlays.Top(); top != nil {
		return m.addressTo(top, top.Focus())
	}
	p := m.activePane()
	return m.addressTo(p, p.Focus())
}

// afterOverlay applies what an overlay's update asked of the stack: finished overlays go, a
// question goes on top.
func (m *Model) afterOverlay(o common.Overlay, cmd tea.Cmd) tea.Cmd {
	cmds := []tea.Cmd{cmd, m.popDone()}
	if a, ok := o.(interface{ Asked() common.Overlay }); ok {
		if q := a.Asked(); q != nil && !o.Done() {
			cmds = append(cmds, m.pushQuestion(o, q))
		}
	}
	return tea.Batch(cmds...)
}

// afterPane puts on the stack what the view asked for in its update (a form it opened).
func (m *Model) afterPane(p common.Pane, cmd tea.Cmd) tea.Cmd {
	if a, ok := p.(interface{ Asked() common.Overlay }); ok {
		if o := a.Asked(); o != nil {
			return tea.Batch(cmd, m.pushQuestion(p, o))
		}
	}
	return cmd
}

// closeOverlay finishes o and takes it off the stack.
func (m *Model) closeOverlay(o common.Overlay) tea.Cmd {
	if !m.overlays.Has(o) {
		return nil
	}
	if c, ok := o.(interface{ Close() }); ok {
		c.Close()
	}
	return m.popDone()
}

// closeAll empties the overlay stack.
func (m *Model) closeAll() tea.Cmd {
	for _, o := range m.overlays {
		o.Blur()
	}
	m.overlays = nil
	return nil
}

// chargeForm is the new-charge form when it is open.
func (m *Model) chargeForm() (*newcharge.ChargeForm, bool) {
	return common.Find[*newcharge.ChargeForm](m.overlays)
}

// qrScreen is the QR or result screen when it is open.
func (m *Model) qrScreen() (*qr.View, bool) { return common.Find[*qr.View](m.overlays) }

// openPicker is the wallet or profile picker when it is open.
func (m *Model) openPicker() (*common.Picker, bool) { return common.Find[*common.Picker](m.overlays) }

// setWallet makes a wallet active: later calls carry it, and the views reload for it.
func (m *Model) setWallet(w string) tea.Cmd {
	var cmds []tea.Cmd
	if p, ok := m.openPicker(); ok {
		cmds = append(cmds, m.closeOverlay(p))
	}
	if w == "" {
		w = api.WalletPrincipal
	}
	if w == m.app.Wallet {
		return tea.Batch(cmds...)
	}
	m.app.Wallet = w
	m.setStatus(m.c.Tr.F("ui.active_wallet", w), common.StatusOK)
	p := m.activePane()
	return tea.Batch(append(cmds, m.notify(common.WalletChangedMsg{Wallet: w}), m.addressTo(p, p.Start()))...)
}

// resize gives every view and overlay its room; what they read for it comes back to them.
func (m *Model) resize() tea.Cmd {
	w, h := m.bodySize()
	var cmds []tea.Cmd
	for _, id := range mainViews {
		if p, ok := m.panes[id]; ok {
			cmds = append(cmds, m.addressTo(p, p.SetSize(w, h)))
		}
	}
	for _, o := range m.overlays {
		cmds = append(cmds, m.addressTo(o, m.sizeOverlay(o)))
	}
	return tea.Batch(cmds...)
}

// sizeOverlay gives an overlay its room: the whole terminal or the body.
func (m *Model) sizeOverlay(o common.Overlay) tea.Cmd {
	if o.Layer() == common.LayerScreen {
		return o.SetSize(m.c.Width, m.c.Height)
	}
	return o.SetSize(m.bodySize())
}

// bodySize is the room left for the active view after header, tabs, footer and frame.
func (m *Model) bodySize() (int, int) {
	w, h := m.c.Width, m.c.Height-4
	if m.app.Sess.Env == api.Production {
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

// capturingText reports whether printable keys now belong to a text field.
func (m *Model) capturingText() bool {
	if top := m.overlays.Top(); top != nil {
		t, ok := top.(interface{ CapturesText() bool })
		return ok && t.CapturesText()
	}
	return m.activePane().CapturesText()
}

// handleKeys handles a key message. Outside a text field, several runes read at once (fast
// typing, a slow link, a paste) are the same keys one by one.
func (m *Model) handleKeys(km tea.KeyMsg) tea.Cmd {
	if km.Type != tea.KeyRunes || len(km.Runes) < 2 || m.capturingText() {
		return m.handleKey(km)
	}
	var cmds []tea.Cmd
	for i, r := range km.Runes {
		one := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: km.Alt}
		if m.capturingText() {
			// A key opened a text field: the rest is typed into it.
			one.Runes, one.Paste = km.Runes[i:], km.Paste
			cmds = append(cmds, m.handleKey(one))
			break
		}
		cmds = append(cmds, m.handleKey(one))
	}
	return tea.Batch(cmds...)
}

// quitGuard is an overlay that asks before the dashboard quits (a filled form, a pending QR).
type quitGuard interface {
	// quitQuestion is the confirmation to ask, or "" when quitting loses nothing.
	QuitQuestion() string
}

// quit leaves the dashboard, asking first when an overlay has something to lose.
func (m *Model) quit() tea.Cmd {
	for i := len(m.overlays) - 1; i >= 0; i-- {
		if _, asking := m.overlays[i].(*common.ConfirmDialog); asking {
			return tea.Quit // ctrl+c twice
		}
		if g, ok := m.overlays[i].(quitGuard); ok {
			if q := g.QuitQuestion(); q != "" {
				return m.push(common.NewQuietConfirm(m.c, q, tea.Quit))
			}
		}
	}
	return tea.Quit
}

func (m *Model) handleKey(km tea.KeyMsg) tea.Cmd {
	k := m.c.Keys
	if key.Matches(km, k.ForceQuit) {
		return m.quit()
	}
	if top := m.overlays.Top(); top != nil {
		// ? opens the help over any overlay that takes no text (the QR screen, a picker).
		if _, isHelp := top.(*helpOverlay); !isHelp && key.Matches(km, k.Help) && !m.capturingText() {
			return m.push(newHelpOverlay(m.c, m.helpGroups()))
		}
		return m.afterOverlay(top, m.addressTo(top, top.Update(km)))
	}
	if m.tooSmall() {
		if key.Matches(km, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	p := m.activePane()
	if p.CapturesText() {
		return m.afterPane(p, m.addressTo(p, p.Update(km)))
	}
	switch {
	case key.Matches(km, k.Quit):
		return tea.Quit
	case key.Matches(km, k.Help):
		return m.push(newHelpOverlay(m.c, m.helpGroups()))
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
	case key.Matches(km, k.View6):
		return m.showView(viewDay)
	case key.Matches(km, k.New):
		return m.openForm()
	case key.Matches(km, k.Wallets):
		return m.openWalletPicker()
	case key.Matches(km, k.Profiles):
		return m.openProfilePicker()
	case key.Matches(km, k.Search):
		return m.push(search.NewSearchOverlay(m.c))
	}
	return m.afterPane(p, m.addressTo(p, p.Update(km)))
}

// showView switches to a main view and lets it load.
func (m *Model) showView(v viewID) tea.Cmd {
	if m.view == v {
		return nil
	}
	m.activePane().Blur()
	m.view = v
	m.clearStatus(common.OwnerAnswer) // an answer about the view left behind goes with it
	p := m.activePane()
	return m.addressTo(p, tea.Batch(p.Start(), p.Focus()))
}

func (m *Model) tooSmall() bool {
	return m.c.Width+m.reserveW < common.MinWidth || m.c.Height+m.reserveH < common.MinHeight
}

// openForm starts a new charge with a fresh Idempotency-Key and loads the project picker.
func (m *Model) openForm() tea.Cmd {
	if m.app.Sess.ReadOnly {
		m.setOwnedStatus(common.OwnerAnswer, m.c.Tr.T("ui.this_profile_is_read_only_creating"), common.StatusError)
		return nil
	}
	f := newcharge.NewForm(m.c, m.app.Wallet, m.c.NewKey())
	// The root reads the projects for the form: the list is the form's reply.
	return tea.Batch(m.push(f), m.addressTo(f, m.loadProjects()))
}

func (m *Model) onTick(now time.Time) tea.Cmd {
	m.lastTick = now
	m.expireStatus(now)
	m.noteDamage()
	cmds := []tea.Cmd{common.Tick(), m.watchCmd(), m.takeOverTick(now), m.onLinkTick(now)}
	if st := m.app.Sess.Store; st.Persistent() && now.Sub(m.lastRefresh) >= storeRefreshEvery {
		m.lastRefresh = now
		gen := m.app.Gen
		cmds = append(cmds, m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
			changed, err := st.Refresh(ctx)
			return storeRefreshedMsg{gen: gen, changed: changed, err: err}
		}))
	}
	return tea.Batch(cmds...)
}

// View is the whole screen: the frame kept by Update when nothing on screen changed since it
// was built (see frameCache), else a new one.
func (m *Model) View() string {
	if m.shown.valid {
		return m.shown.text
	}
	return m.render()
}

// render draws the whole screen: the active view, then the overlays bottom to top (a body
// overlay replaces the view's body, a screen overlay the whole terminal, a floating one is
// drawn over what is below it).
func (m *Model) render() string {
	if testHookRender != nil {
		testHookRender()
	}
	if m.c.Width == 0 {
		return ""
	}
	if m.tooSmall() {
		return m.tooSmallView()
	}
	// The topmost full-screen overlay hides everything below it.
	base := 0
	for i, o := range m.overlays {
		if o.Layer() == common.LayerScreen {
			base = i
		}
	}
	if base < len(m.overlays) && m.overlays[base].Layer() == common.LayerScreen {
		screen := m.overlays[base].View()
		for _, o := range m.overlays[base+1:] {
			screen = m.layOver(screen, o, m.c.Width, m.c.Height)
		}
		return m.frame(screen, true)
	}
	w, h := m.bodySize()
	body := m.activePane().View()
	for _, o := range m.overlays {
		body = m.layOver(body, o, w, h)
	}
	body = common.FitBlock(body, w, h)
	screen := m.headerView(w) + "\n" + m.tabsView(w) + "\n" + body + "\n" + m.footerView(w)
	return m.frame(screen, false)
}

// layOver draws an overlay over what is below it, in w×h cells.
func (m *Model) layOver(below string, o common.Overlay, w, h int) string {
	if o.Layer() != common.LayerFloat {
		return o.View()
	}
	return placeOver(common.FitBlock(below, w, h), o.View(), w, h)
}

// placeOver draws a floating box over below: the rows the box covers are the box's, the others
// stay visible around it.
func placeOver(below, box string, w, h int) string {
	bl := strings.Split(below, "\n")
	ol := strings.Split(common.FitBlock(box, w, h), "\n")
	for i := range bl {
		if i < len(ol) && strings.TrimSpace(ansi.Strip(ol[i])) != "" {
			bl[i] = ol[i]
		}
	}
	return strings.Join(bl, "\n")
}

// frame draws the red production border around the screen.
func (m *Model) frame(s string, full bool) string {
	if m.app.Sess.Env != api.Production {
		return s
	}
	if full {
		// Customer-facing screens keep their size; draw only a red top rule.
		return s
	}
	return m.c.St.ProdFrame.Render(s)
}

func (m *Model) tooSmallView() string {
	tr := m.c.Tr
	msg := tr.F("ui.enlarge_the_terminal_to_at_least", common.MinWidth, common.MinHeight, m.c.Width, m.c.Height)
	return lipgloss.Place(m.c.Width, m.c.Height, lipgloss.Center, lipgloss.Center,
		lipgloss.JoinVertical(lipgloss.Center, common.TruncateWidth(msg, max(m.c.Width-2, 1)), tr.T("ui.q_quits")))
}

// envBadge is the environment label: DEMO, SANDBOX (yellow) or PRODUCTION (red).
func (m *Model) envBadge() string {
	st, tr := m.c.St, m.c.Tr
	switch {
	case m.training:
		return trainBadgeStyle.Render(tr.T("ui.training_caps"))
	case m.app.Sess.Demo:
		// The emulator's data goes at quit; files the merchant writes (w, E) stay.
		return st.BadgeDemo.Render(tr.T("ui.demo_temporary"))
	case m.app.Sess.Env == api.Production:
		return st.BadgeProd.Render(tr.T("ui.production_caps"))
	}
	return st.BadgeSand.Render(tr.T("ui.sandbox_caps"))
}

// readOnlyBadge marks a read_only profile in the header ("" otherwise).
func (m *Model) readOnlyBadge() string {
	if !m.app.Sess.ReadOnly {
		return ""
	}
	return " " + m.c.St.Warn.Render(m.c.Tr.T("ui.read_only_caps"))
}

// headerView is who and where: brand, environment, profile and the active wallet.
func (m *Model) headerView(w int) string {
	st, tr := m.c.St, m.c.Tr
	parts := []string{
		st.Brand.Render("pixdash") + " " + m.envBadge() + m.readOnlyBadge(),
		st.Label.Render(tr.T("ui.profile")) + st.Value.Render(common.Sanitize(m.app.Sess.Profile)),
		st.Label.Render(tr.T("ui.wallet")) + st.Bold.Render(common.Sanitize(m.app.Wallet)),
	}
	return common.Spread(m.withWebhookWarning(m.withDamageWarning(strings.Join(parts, st.Muted.Render(" │ "))), m.tokenView(m.c.Now()), w))
}

// tabsView is the view switcher on the left and the link state (token, connection, data age) on the right.
func (m *Model) tabsView(w int) string {
	st, tr := m.c.St, m.c.Tr
	now := m.c.Now()
	right := m.connView(now)
	if h := m.hubView(); h != "" {
		right = h + "  " + right
	}
	_, formOpen := m.chargeForm()
	tabs := func(gap string) string {
		var b strings.Builder
		for i, id := range mainViews {
			label := fmt.Sprintf("%d %s", i+1, m.panes[id].Title())
			if viewID(i+1) == m.view && !formOpen {
				b.WriteString(st.ActiveTab(label))
			} else {
				b.WriteString(st.TabIdle.Render(label))
			}
			b.WriteString(gap)
		}
		if formOpen {
			b.WriteString(st.ActiveTab(tr.T("ui.new_charge")))
		}
		return b.String()
	}
	left := tabs("  ")
	if lipgloss.Width(left)+lipgloss.Width(right) >= w {
		left = tabs(" ") // narrow terminals (pt-BR at 80 columns): one space keeps every tab
	}
	return common.Spread(left, right, w)
}

func (m *Model) footerView(w int) string {
	st := m.c.St
	var status string
	if m.status.Text != "" {
		style := st.Status
		switch m.status.Kind {
		case common.StatusError:
			style = st.StatusErr
		case common.StatusOK:
			style = st.StatusOK
		case common.StatusWarn:
			style = st.StatusWarn
		}
		// Status lines quote the service's messages: text from outside, flattened before drawing.
		status = style.Render(common.TruncateWidth(common.Sanitize(m.status.Text), w))
	}
	m.helpLine.Width = w
	// bubbles/help v1.0.0 adds an item that does not fit when its "…" would not fit either:
	// the line is cut to the width here.
	return status + "\n" + common.TruncateWidth(m.helpLine.ShortHelpView(m.footerKeys()), w)
}

// footerKeys lists the keys that work right now: the top overlay's, else the view's (and the
// global ones when no text field has the keyboard).
func (m *Model) footerKeys() []key.Binding {
	k := m.c.Keys
	if top := m.overlays.Top(); top != nil {
		return top.ShortHelp()
	}
	p := m.activePane()
	if p.CapturesText() {
		return p.ShortHelp()
	}
	return append(p.ShortHelp(), k.New, k.Help, k.Quit)
}

// qrHelp is the QR screen's keys: the open screen's, else those of one with no charge.
func (m *Model) qrHelp() []key.Binding {
	if qr, ok := m.qrScreen(); ok {
		return flatten(qr.FullHelp())
	}
	return flatten((&qr.View{C: m.c}).FullHelp())
}

// helpGroups are the help overlay's sections: everywhere, the active view, the QR screen and
// the new-charge form.
func (m *Model) helpGroups() []helpGroup {
	tr, k := m.c.Tr, m.c.Keys
	p := m.activePane()
	groups := []helpGroup{
		{tr.T("ui.everywhere"), []key.Binding{k.View1, k.View2, k.View3, k.View4, k.View5, k.View6, k.New, k.Search, k.Wallets, k.Profiles, k.Help, k.Back, k.Quit, k.ForceQuit}},
		{p.Title(), flatten(p.FullHelp())},
		{tr.T("ui.qr_screen"), m.qrHelp()},
		{tr.T("ui.new_charge"), []key.Binding{k.NextField, k.PrevField, k.Submit, k.Split, k.Back}},
	}
	if f, ok := m.chargeForm(); ok {
		groups[3].keys = flatten(f.FullHelp())
	}
	return groups
}

// describeError turns an error into a status line: the service's message, trace id and a hint.
func (m *Model) describeError(what string, err error) string {
	return common.DescribeErr(m.c.Tr, what, err)
}

// openQR opens the QR (or result) screen of a charge as the caller knows it.
func (m *Model) openQR(ch state.Charge) tea.Cmd {
	var cmds []tea.Cmd
	if old, ok := m.qrScreen(); ok {
		cmds = append(cmds, m.closeOverlay(old))
	}
	return tea.Batch(append(cmds, m.push(&qr.View{C: m.c, Store: m.app.Sess.Store, Ctl: m.app.Sess.Simulator, Env: m.app.Sess.Env, ID: ch.ID, Ch: ch, CopyFn: m.opts.Clipboard}))...)
}
