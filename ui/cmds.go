package ui

import (
	"context"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/charges"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

type authMsg struct {
	gen uint64
	err error
}

type chargeCreatedMsg struct {
	tag    common.Tag
	draft  newcharge.ChargeDraft
	charge *state.Charge
	err    error
	// unconfirmed: the outcome is unknown (network); the submission stays pending and is resolved later.
	unconfirmed bool
}

type txMsg struct {
	gen           uint64
	id            string
	wallet        string
	tx            *api.Transaction
	before, after state.Charge
	err           error
}

type recoveredMsg struct {
	gen      uint64
	resolved []state.Charge
	// pending counts submissions still unconfirmed (a failed lookup, or an attempt that may
	// still land); abandoned those that provably never reached the service.
	pending, abandoned int
	err                error
	// withdrawals is what the lookup of the withdrawals left open by an earlier session
	// found (nil when this run did not look at them).
	withdrawals *workflow.RecoveredWithdrawals
	// refunds is what settling the refunds left open by an earlier session found (nil when
	// this run did not look at them).
	refunds *workflow.RecoveredRefunds
	// retry is when the engine looks again (0: nothing left open).
	retry time.Duration
}

// recoveredFrom words the engine's recovery report as the root's message.
func recoveredFrom(gen uint64, r workflow.RecoveryDone) recoveredMsg {
	return recoveredMsg{gen: gen, resolved: r.Charges.Resolved, pending: r.Charges.Pending, abandoned: r.Charges.Abandoned,
		err: r.Charges.Err, withdrawals: r.Withdrawals, refunds: r.Refunds, retry: r.RetryIn}
}

// authCmd fetches the first token so the header can show it and bad credentials surface at once.
func (m *Model) authCmd() tea.Cmd {
	gen, eng := m.app.Gen, m.eng
	return m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		return authMsg{gen: gen, err: eng.Authenticate(ctx)}
	})
}

func (m *Model) onAuth(msg authMsg) tea.Cmd {
	if msg.gen != m.app.Gen {
		return nil
	}
	m.noteResult(msg.err)
	if msg.err != nil {
		m.setStatus(m.describeError(m.c.Tr.T("cmds.connect"), msg.err), common.StatusError)
		return nil
	}
	return m.readBackAllBlocks()
}

// readBackAllBlocks has the engine read the MED blocks of every wallet the store holds
// charges of, once at the start of a session: a block resolved while the dashboard was closed
// shows on its charge.
func (m *Model) readBackAllBlocks() tea.Cmd {
	eng := m.eng
	return m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		_ = eng.ReadBackAllBlocks(ctx) // a failure leaves the charges as they were
		return nil
	})
}

// noteResult updates the header's light from a call's outcome.
func (m *Model) noteResult(err error) { m.link.note(err, m.c.Now()) }

// loadProjects lists the active wallet's projects for the new-charge form.
func (m *Model) loadProjects() tea.Cmd {
	t, eng := m.tagNow(), m.eng
	return m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		items, err := eng.LoadProjects(ctx, t.Wallet)
		return common.ProjectsMsg{Tag: t, Items: items, Err: err}
	})
}

// onSubmit checks read-only and production, then sends.
func (m *Model) onSubmit(d newcharge.ChargeDraft) tea.Cmd {
	tr := m.c.Tr
	if m.app.Sess.ReadOnly {
		m.setStatus(tr.T("cmds.this_profile_is_read_only_nothing"), common.StatusError)
		return nil
	}
	if m.app.Sess.Env == api.Production {
		then := func() tea.Msg { return sendChargeMsg{draft: d} }
		return m.push(common.NewConfirm(m.c, tr.F("cmds.create_in_production_y_n", d.Req.Amount.BRL()), then))
	}
	return m.sendCharge(d)
}

// sendChargeMsg sends a draft the merchant confirmed.
type sendChargeMsg struct{ draft newcharge.ChargeDraft }

// sendCharge records the submission, then creates the charge with its key; retries reuse the key.
func (m *Model) sendCharge(d newcharge.ChargeDraft) tea.Cmd {
	if f, ok := m.chargeForm(); ok && f.Key == d.Key {
		f.Sending, f.MayLand = true, true
	}
	m.setStatus(m.c.Tr.F("cmds.creating", d.Req.Amount.BRL()), common.StatusInfo)
	t, eng := m.tagNow(), m.eng
	// The end of the session cancels it, leaving the submission pending: it is looked up by its
	// key when the profile opens again.
	return m.app.WithTimeout(common.CreateTimeout, func(ctx context.Context) tea.Msg {
		r := eng.CreateCharge(ctx, workflow.Draft(d))
		return chargeCreatedMsg{tag: t, draft: d, charge: r.Charge, err: r.Err, unconfirmed: r.Unconfirmed}
	})
}

func (m *Model) onCreated(msg chargeCreatedMsg) tea.Cmd {
	tr := m.c.Tr
	form, formOpen := m.chargeForm()
	if formOpen && form.Key != msg.draft.Key {
		formOpen = false // another form: this one was discarded
	}
	if formOpen {
		form.Sending = false
		// Only a refusal says nothing was created; a lost reply may still land.
		form.MayLand = msg.charge == nil && msg.unconfirmed
	}
	if msg.tag.Gen != m.app.Gen {
		return nil
	}
	m.noteResult(msg.err)
	switch {
	case msg.charge != nil && !formOpen && msg.charge.Mismatch == "" && msg.err == nil:
		// Its form was discarded while the request was out: the charge is tracked (recovered,
		// as the discard said), not put on screen over what the merchant does now.
		m.setStatus(tr.F("cmds.the_charge_of_whose_form_was", msg.charge.Amount.BRL()), common.StatusWarn)
		return nil
	case msg.charge != nil:
		var cmds []tea.Cmd
		if formOpen {
			cmds = append(cmds, m.closeOverlay(form))
		}
		cmds = append(cmds, m.openQR(*msg.charge))
		switch {
		case msg.charge.Mismatch != "":
			m.setStatus(tr.F("cmds.the_service_s_reply_differs_from", msg.charge.Mismatch), common.StatusError)
		case msg.err != nil:
			m.setStatus(tr.F("cmds.charge_created_but_saving_it_locally", msg.err), common.StatusWarn)
		default:
			m.setStatus(tr.F("cmds.charge_created", msg.charge.Amount.BRL()), common.StatusOK)
		}
		return tea.Batch(cmds...)
	case msg.unconfirmed:
		m.setStatus(m.describeError(tr.T("cmds.create_charge"), msg.err)+" · "+tr.T("cmds.not_confirmed_pixdash_will_look_it"), common.StatusWarn)
		return m.resolveLater(msg.draft.Key)
	default:
		var cmd tea.Cmd
		if formOpen {
			cmd = form.ServerError(msg.err)
		}
		m.setStatus(m.describeError(tr.T("cmds.create_charge"), msg.err), common.StatusError)
		return cmd
	}
}

// resolveLater has the engine look an unconfirmed submission up by its key after a pause
// (and again while it stays unconfirmed); what it finds comes back as a recoveredMsg.
func (m *Model) resolveLater(string) tea.Cmd {
	eng := m.eng
	return func() tea.Msg { eng.RecoverAfter(3 * time.Second); return nil }
}

// recoveredWithdrawalParts words what RecoverWithdrawals found, each withdrawal by its amount
// and its destination masked as the form masks it; level is raised to what they call for.
func (m *Model) recoveredWithdrawalParts(w *workflow.RecoveredWithdrawals, level *common.StatusKind) (parts []string) {
	tr := m.c.Tr
	raise := func(k common.StatusKind) {
		if k > *level {
			*level = k
		}
	}
	// The status line is one line: one withdrawal is named, several are counted.
	one := len(w.Taken)+len(w.NotSent) == 1
	for _, r := range w.Taken {
		if one {
			parts = append(parts, tr.F("cmds.withdrawal_of_to_from_an_earlier",
				r.Amount.BRL(), common.MaskPixKey(r.PixKeyType, r.PixKey), tr.T(string(r.State))))
		}
		if r.State == state.WithdrawalFailed || r.State == state.WithdrawalReversed {
			raise(common.StatusWarn)
		}
	}
	for _, r := range w.NotSent {
		if one {
			parts = append(parts, tr.F("cmds.withdrawal_of_to_from_an_earlier_2",
				r.Amount.BRL(), common.MaskPixKey(r.PixKeyType, r.PixKey)))
		}
		raise(common.StatusWarn) // the merchant has to ask again: the line stays until replaced
	}
	if !one {
		if n := len(w.Taken); n > 0 {
			parts = append(parts, tr.F("cmds.withdrawal_s_from_an_earlier_session", n))
		}
		if n := len(w.NotSent); n > 0 {
			parts = append(parts, tr.F("cmds.withdrawal_s_from_an_earlier_session_2", n))
		}
	}
	if n := len(w.Pending); n > 0 {
		parts = append(parts, tr.F("cmds.withdrawal_s_from_an_earlier_session_3", n))
		if w.Err != nil {
			parts = append(parts, m.describeError(tr.T("cmds.look_up_a_withdrawal"), w.Err))
		}
		raise(common.StatusWarn)
	}
	return parts
}

func (m *Model) onRecovered(msg recoveredMsg) tea.Cmd {
	if msg.gen != m.app.Gen {
		return nil
	}
	tr := m.c.Tr
	// One line says all of it; the most pressing part decides its tone.
	var parts []string
	level := common.StatusOK
	if n := len(msg.resolved); n > 0 {
		parts = append(parts, tr.F("cmds.recovered_charge_s_whose_creation_was", n))
	}
	if msg.abandoned > 0 {
		parts = append(parts, tr.F("cmds.interrupted_charge_s_never_reached_the", msg.abandoned))
		level = common.StatusInfo
	}
	// The engine looks again by itself while something stays open.
	if msg.pending > 0 {
		parts = append(parts, tr.F("cmds.interrupted_charge_s_not_confirmed_yet", msg.pending))
		level = common.StatusWarn
	}
	if msg.withdrawals != nil {
		parts = append(parts, m.recoveredWithdrawalParts(msg.withdrawals, &level)...)
	}
	if msg.refunds != nil {
		parts = append(parts, m.recoveredRefundParts(msg.refunds, &level)...)
	}
	if len(parts) > 0 {
		m.setOwnedStatus(common.OwnerRecover, strings.Join(parts, " "), level)
	} else {
		m.clearStatus(common.OwnerRecover) // an earlier "not confirmed yet" is over
	}
	return nil
}

// recoveredRefundParts words what RecoverRefunds settled; level is raised to what it calls for.
func (m *Model) recoveredRefundParts(r *workflow.RecoveredRefunds, level *common.StatusKind) (parts []string) {
	tr := m.c.Tr
	if n := len(r.Completed); n > 0 {
		parts = append(parts, tr.F("cmds.refund_s_from_an_earlier_session", n))
	}
	if n := len(r.Taken); n > 0 {
		parts = append(parts, tr.F("cmds.refund_s_from_an_earlier_session_2", n))
	}
	if r.Err != nil {
		parts = append(parts, m.describeError(tr.T("cmds.settle_a_refund"), r.Err))
		if *level < common.StatusWarn {
			*level = common.StatusWarn
		}
	}
	return parts
}

// watchCmd tells the engine which charge is on the customer's screen (polled first, read
// first) when that changes; the engine polls the charges that are due by itself.
func (m *Model) watchCmd() tea.Cmd {
	id := ""
	if qr, ok := m.qrScreen(); ok {
		id = qr.ID
	}
	if id == m.watched {
		return nil
	}
	m.watched = id
	eng := m.eng
	return func() tea.Msg { eng.Watch(id); return nil }
}

// pollNow reads one transaction now (a refresh, a simulated payment); the engine runs on_paid
// if the answer is a payment.
func (m *Model) pollNow(id, wallet string) tea.Cmd {
	gen, eng := m.app.Gen, m.eng
	return m.app.WithTimeout(common.CallTimeout, func(ctx context.Context) tea.Msg {
		return txFrom(gen, eng.Poll(ctx, id, wallet))
	})
}

// txFrom is the root's message for a poll's outcome.
func txFrom(gen uint64, r workflow.ChargeChanged) txMsg {
	return txMsg{gen: gen, id: r.ID, wallet: r.Wallet, tx: r.Tx, before: r.Before, after: r.After, err: r.Err}
}

func (m *Model) onTx(msg txMsg) tea.Cmd {
	if msg.gen != m.app.Gen {
		return nil
	}
	m.noteResult(msg.err)
	if msg.err != nil {
		if qr, ok := m.qrScreen(); ok && qr.ID == msg.id {
			qr.PollErr = m.describeError(m.c.Tr.T("cmds.refresh"), msg.err)
		}
		if msg.after.NotFound {
			// 404s in a row over minutes: the charge is no longer polled (state.MarkMissing).
			return m.onChargeChanged(msg.before, msg.after)
		}
		return nil
	}
	if qr, ok := m.qrScreen(); ok && qr.ID == msg.id {
		qr.PollErr = ""
	}
	return m.onChargeChanged(msg.before, msg.after)
}

// onChargeChanged reacts to a status change of a tracked charge (the QR screen rings on payment).
func (m *Model) onChargeChanged(before, after state.Charge) tea.Cmd {
	qr, onScreen := m.qrScreen()
	onScreen = onScreen && qr.ID == after.ID
	if onScreen {
		qr.Ch = after
	}
	if before.State() == after.State() {
		return nil
	}
	if after.Final() {
		m.clearStatus(chargeOwner(after.ID)) // e.g. "payment simulated; waiting…"
	}
	// A payment back to paid (a MED block rejected) was received before: no second bell. The
	// engine runs the profile's on_paid (onPaidMsg).
	if after.State() == state.StatePaid && !before.State().Received() && onScreen {
		return m.bell()
	}
	return nil
}

func (m *Model) bell() tea.Cmd {
	ring := m.opts.Bell
	if ring == nil {
		ring = func() { _, _ = os.Stdout.Write([]byte("\a")) }
	}
	return func() tea.Msg { ring(); return nil }
}

// eventsMsg is a batch of webhook events that reached the store (from this window's receiver
// or another's) since the last one, as the engine reported them; the root hands each item to
// the views as an eventMsg.
type eventsMsg struct {
	gen   uint64
	items []common.EventMsg
	// last is the Seq of the newest event seen.
	last int64
	err  error
}

// eventsFrom is the root's message for the engine's Events report.
func eventsFrom(gen uint64, r workflow.Events) eventsMsg {
	msg := eventsMsg{gen: gen, last: r.Last, err: r.Err, items: make([]common.EventMsg, len(r.Events))}
	for i, ev := range r.Events {
		msg.items[i] = common.EventMsg{Gen: gen, Ev: ev}
	}
	return msg
}

// waitFor waits until ch delivers, or reports false when done closes first.
func waitFor[T any](done <-chan struct{}, ch <-chan T) bool {
	select {
	case <-done:
		return false
	case <-ch:
		return true
	}
}

// eventConfirmedMsg is the service's answer to a payment event the engine read back
// (state.ConfirmEvent); attempt counts the tries before it.
type eventConfirmedMsg struct {
	gen     uint64
	ev      *api.Event
	conf    state.Confirmation
	attempt int
	err     error
}

func (m *Model) onConfirmed(msg eventConfirmedMsg) tea.Cmd {
	if msg.gen != m.app.Gen {
		return nil
	}
	tr := m.c.Tr
	m.noteResult(msg.err)
	if msg.err != nil {
		// The engine tries again, a few times; the charge's own polling goes on regardless.
		if msg.attempt+1 >= workflow.MaxConfirmAttempts {
			m.setStatus(m.describeError(tr.T("cmds.check_a_payment_with_the_service"), msg.err), common.StatusWarn)
		}
		return nil
	}
	if msg.conf.Verdict == state.VerdictDisputed {
		m.setStatus(tr.F("cmds.a_webhook_disagrees_with_the_service", common.VerdictReason(tr, msg.conf.Reason)), common.StatusWarn)
	}
	if msg.conf.After.ID == "" {
		return nil
	}
	return m.onChargeChanged(msg.conf.Before, msg.conf.After)
}

// onEvents lets the views see every new event (the events feed, blocks on balance_block_*);
// the engine reads the payment events back and the MED blocks of their wallets.
func (m *Model) onEvents(msg eventsMsg) tea.Cmd {
	cmd, _ := m.handleEvents(msg)
	return cmd
}

// handleEvents is onEvents; quiet reports that nothing on screen changed: no view or overlay
// took an event as its own (one that does starts a read, a command, and shows it loading) and
// no wallet picker is open. Under a flood of webhooks with the charges list on screen, that is
// every event: its frame is the one kept (issue 27: each burst of events built a frame).
func (m *Model) handleEvents(msg eventsMsg) (cmd tea.Cmd, quiet bool) {
	if msg.gen != m.app.Gen {
		return nil, true
	}
	if msg.err != nil {
		m.setStatus(m.c.Tr.F("cmds.could_not_read_the_saved_events", msg.err), common.StatusError)
		return nil, false
	}
	m.app.EventSeq = msg.last
	cmds := make([]tea.Cmd, 0, len(msg.items))
	for _, it := range msg.items {
		if c := m.notify(it); c != nil {
			cmds = append(cmds, c)
		}
	}
	_, picker := m.openPicker()
	return tea.Batch(cmds...), len(cmds) == 0 && !picker
}

// engineMsg is a burst of the session's engine's reports, in the order they happened (gen:
// the session they belong to): the root handles them as one message, so a burst is drawn as
// one frame, not one per report (issue 27).
type engineMsg struct {
	gen uint64
	rs  []workflow.Report
}

// Gathering the engine's reports (waitEngine): after the first report of a burst, the ones
// that follow within engineGather join it, and while they keep coming (each within
// engineGather of the one before) the burst goes on gathering up to engineGatherMost after its
// first report, up to maxEngineBatch. The terminal shows at most 60 frames a second, so a
// gather of about one frame delays nothing the merchant could see. Reports that can change
// only the header's light and the status line, or new events (quietReports), gather up to
// engineGatherMost whatever the gaps between them: the event feed brings a steady flood (100
// webhooks a second) as a batch every 25–35 ms, more than engineGather apart, which made a
// message, a frame key and a frame each (issue 27); it is now handled ten times a second, and
// a read-back's answer joining the burst ends it within engineGather.
const (
	engineGather     = 16 * time.Millisecond
	engineGatherMost = 100 * time.Millisecond
	maxEngineBatch   = 256
)

// waitEngine starts the session's engine (once) and waits for its next reports (a burst:
// gatherReports); it is re-armed after each. It returns nil when the engine stops (the session
// was replaced).
func (m *Model) waitEngine() tea.Cmd {
	gen, eng := m.app.Gen, m.eng
	return func() tea.Msg {
		eng.Start()
		select {
		case r := <-eng.Reports():
			return engineMsg{gen: gen, rs: gatherReports(eng, r, engineGather, engineGatherMost, maxEngineBatch)}
		case <-eng.Done():
			return nil
		}
	}
}

// gatherReports returns first and the reports eng delivers after it, each within d of the one
// before (any gap while they are all quiet) and all within most of first (see engineGather),
// at most n in all; it returns early when the engine stops (what was gathered is still
// handled).
func gatherReports(eng sessionEngine, first workflow.Report, d, most time.Duration, n int) []workflow.Report {
	rs := []workflow.Report{first}
	start := time.Now()
	quiet := quietReports(rs)
	// window is how long to wait for the next report: up to most while all are quiet.
	window := func() time.Duration {
		left := most - time.Since(start)
		if quiet {
			return left
		}
		return min(d, left)
	}
	t := time.NewTimer(window())
	defer t.Stop()
	for len(rs) < n {
		select {
		case r := <-eng.Reports():
			rs = append(rs, r)
			quiet = quiet && quietReports(rs[len(rs)-1:])
			wait := window()
			if wait <= 0 {
				return rs
			}
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
			t.Reset(wait)
		case <-t.C:
			return rs
		case <-eng.Done():
			return rs
		}
	}
	return rs
}

// quietReports reports whether handling rs can change only what the frame's clock key covers
// (quietMsg): they are all failed read-backs of events, which move the header's service light
// and, on a last attempt, the status line, or new events, when handling them changed nothing
// on screen (the root's engineQuiet says so once it handled them). Under a flood against a
// service that cannot be reached, they are all of the engine's reports (issue 27).
func quietReports(rs []workflow.Report) bool {
	for _, r := range rs {
		switch r := r.(type) {
		case workflow.EventConfirmed:
			if r.Err == nil {
				return false
			}
		case workflow.Events:
			// Quiet when handling them changed nothing on screen (handleEvents): the root
			// knows once it handled them (Model.engineQuiet).
		default:
			return false
		}
	}
	return true
}

// onEngine turns each of the engine's reports into the root's message for it and handles
// them in order, then waits for the next reports.
func (m *Model) onEngine(msg engineMsg) tea.Cmd {
	m.engineQuiet = true
	if msg.gen != m.app.Gen {
		return nil // a replaced session's engine: it is closing
	}
	// Each report goes straight to its handler (no tea.Msg in between: a read-back's report
	// carries two charges, and a flood brings thousands a second).
	cmds := make([]tea.Cmd, 0, len(msg.rs)+1)
	for _, r := range msg.rs {
		var cmd tea.Cmd
		switch r := r.(type) {
		case workflow.ChargeChanged:
			cmd = m.onTx(txFrom(msg.gen, r))
		case workflow.Events:
			var quiet bool
			cmd, quiet = m.handleEvents(eventsFrom(msg.gen, r))
			m.engineQuiet = m.engineQuiet && quiet
		case workflow.EventConfirmed:
			cmd = m.onConfirmed(eventConfirmedMsg{gen: msg.gen, ev: r.Event, conf: r.Conf, attempt: r.Attempt, err: r.Err})
		case workflow.RecoveryDone:
			cmd = m.onRecovered(recoveredFrom(msg.gen, r))
		case workflow.OnPaidDone:
			cmd = m.onOnPaid(onPaidMsg{gen: msg.gen, res: r.Result})
		}
		if cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(append(cmds, m.waitEngine())...)
}

// updateWorkflow handles the replies of the workflow commands (charges, polls, events,
// profiles); ok is false for any other message.
func (m *Model) updateWorkflow(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case authMsg:
		return m.onAuth(msg), true
	case newcharge.ChargeSubmitMsg:
		return m.onSubmit(msg.Draft), true
	case sendChargeMsg:
		return m.sendCharge(msg.draft), true
	case chargeCreatedMsg:
		return m.onCreated(msg), true
	case txMsg:
		return m.onTx(msg), true
	case onPaidMsg:
		return m.onOnPaid(msg), true
	case engineMsg:
		return m.onEngine(msg), true
	case prunedMsg:
		m.onPruned(msg)
		return nil, true
	case common.StoreChangedMsg:
		if msg.Gen != m.app.Gen {
			return nil, true
		}
		m.app.SeenCharges, m.app.SeenEvents, m.app.SeenSettled = msg.ChargesVer, msg.EventsVer, msg.SettledVer
		m.changeAt = time.Now()
		// Only the view on screen reads again; the others read when shown (activate).
		return tea.Batch(m.tell(m.activePane(), msg), m.waitChange()), true
	case eventsMsg:
		return m.onEvents(msg), true
	case eventConfirmedMsg:
		return m.onConfirmed(msg), true
	case common.PersistMsg:
		if msg.Err != nil {
			m.setStatus(m.c.Tr.F("cmds.could_not_save_local_state", msg.Err), common.StatusError)
		}
		return nil, true
	case common.SimulatedMsg:
		if msg.Err != nil {
			m.setStatus(m.describeError(m.c.Tr.T("cmds.simulate_payment"), msg.Err), common.StatusError)
			return nil, true
		}
		m.setOwnedStatus(chargeOwner(msg.ID), m.c.Tr.T("cmds.payment_simulated_waiting_for_the_service"), common.StatusInfo)
		return m.pollNow(msg.ID, msg.Wallet), true
	case recoveredMsg:
		return m.onRecovered(msg), true
	case charges.RefreshChargeMsg:
		m.setStatus(m.c.Tr.T("cmds.refreshing"), common.StatusInfo)
		return m.pollNow(msg.ID, msg.Wallet), true
	case storeRefreshedMsg:
		if msg.gen == m.app.Gen {
			if msg.err != nil {
				m.setStatus(m.c.Tr.F("cmds.local_state", msg.err), common.StatusWarn)
			}

		}
		return nil, true
	case profileOpenedMsg:
		return m.onProfileOpened(msg), true
	case takeOverMsg:
		return m.onTakeOver(msg), true
	case openProfileMsg:
		return m.openProfileCmd(msg.name), true
	case switchProfileMsg:
		return m.switchProfile(msg.name), true
	default:
		return nil, false
	}
}
