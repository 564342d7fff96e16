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
)

// Poll pacing: the charge on screen every 2 s, others backing off, at most this many calls a second.
const maxPollsPerTick = 4

type authMsg struct {
	gen uint64
	err error
}

type projectsMsg struct {
	tag   tag
	items []api.Project
	err   error
}

type chargeCreatedMsg struct {
	tag    tag
	draft  chargeDraft
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

// eventMsg is one webhook event of an eventsMsg, handed to the views.
type eventMsg struct {
	gen uint64
	ev  *api.Event
}

type persistMsg struct{ err error }

type simulatedMsg struct {
	id, wallet string
	err        error
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
}

// authCmd fetches the first token so the header can show it and bad credentials surface at once.
func (m *Model) authCmd() tea.Cmd {
	gen, c := m.app.gen, m.app.sess.Client
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		return authMsg{gen: gen, err: workflow.Authenticate(ctx, c)}
	})
}

func (m *Model) onAuth(msg authMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	m.noteResult(msg.err)
	if msg.err != nil {
		m.setStatus(m.describeError(m.c.tr.T("cmds.connect"), msg.err), statusError)
		return nil
	}
	return m.readBackAllBlocks()
}

// maxBlockWallets bounds how many wallets the start of a session reads the MED blocks of.
const maxBlockWallets = 20

// readBackAllBlocks reads the MED blocks of every wallet the store holds charges of, once at
// the start of a session: a block resolved while the dashboard was closed shows on its charge.
func (m *Model) readBackAllBlocks() tea.Cmd {
	c, store := m.app.sess.Client, m.app.sess.Store
	if c == nil || store == nil {
		return nil
	}
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		wallets, err := store.KnownWallets(ctx)
		if err != nil {
			return nil
		}
		for _, w := range wallets[:min(len(wallets), maxBlockWallets)] {
			_, _ = workflow.ReadBackBlocks(ctx, c, store, w) // a failure leaves the charges as they were
		}
		return nil
	})
}

// noteResult updates the header's light from a call's outcome.
func (m *Model) noteResult(err error) { m.link.note(err, m.c.now()) }

// loadProjects lists the active wallet's projects for the new-charge form.
func (m *Model) loadProjects() tea.Cmd {
	t, c := m.tagNow(), m.app.sess.Client
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		items, err := workflow.LoadProjects(ctx, c, t.wallet)
		return projectsMsg{tag: t, items: items, err: err}
	})
}

// walletHeader maps a wallet to its X-Sub-Account value ("" for the main account).
func walletHeader(w string) string { return workflow.SubAccountHeader(w) }

// onSubmit checks read-only and production, then sends.
func (m *Model) onSubmit(d chargeDraft) tea.Cmd {
	tr := m.c.tr
	if m.app.sess.ReadOnly {
		m.setStatus(tr.T("cmds.this_profile_is_read_only_nothing"), statusError)
		return nil
	}
	if m.app.sess.Env == api.Production {
		then := func() tea.Msg { return sendChargeMsg{draft: d} }
		return m.push(newConfirm(m.c, tr.F("cmds.create_in_production_y_n", d.Req.Amount.BRL()), then))
	}
	return m.sendCharge(d)
}

// sendChargeMsg sends a draft the merchant confirmed.
type sendChargeMsg struct{ draft chargeDraft }

// sendCharge records the submission, then creates the charge with its key; retries reuse the key.
func (m *Model) sendCharge(d chargeDraft) tea.Cmd {
	if f, ok := m.chargeForm(); ok && f.key == d.Key {
		f.sending, f.mayLand = true, true
	}
	m.setStatus(m.c.tr.F("cmds.creating", d.Req.Amount.BRL()), statusInfo)
	t, c, store, now := m.tagNow(), m.app.sess.Client, m.app.sess.Store, m.c.now
	// The end of the session cancels it, leaving the submission pending: it is looked up by its
	// key when the profile opens again.
	return m.app.withTimeout(createTimeout, func(ctx context.Context) tea.Msg {
		r := workflow.CreateCharge(ctx, c, store, workflow.Draft(d), now)
		return chargeCreatedMsg{tag: t, draft: d, charge: r.Charge, err: r.Err, unconfirmed: r.Unconfirmed}
	})
}

func (m *Model) onCreated(msg chargeCreatedMsg) tea.Cmd {
	tr := m.c.tr
	form, formOpen := m.chargeForm()
	if formOpen && form.key != msg.draft.Key {
		formOpen = false // another form: this one was discarded
	}
	if formOpen {
		form.sending = false
		// Only a refusal says nothing was created; a lost reply may still land.
		form.mayLand = msg.charge == nil && msg.unconfirmed
	}
	if msg.tag.gen != m.app.gen {
		return nil
	}
	m.noteResult(msg.err)
	switch {
	case msg.charge != nil && !formOpen && msg.charge.Mismatch == "" && msg.err == nil:
		// Its form was discarded while the request was out: the charge is tracked (recovered,
		// as the discard said), not put on screen over what the merchant does now.
		m.setStatus(tr.F("cmds.the_charge_of_whose_form_was", msg.charge.Amount.BRL()), statusWarn)
		return nil
	case msg.charge != nil:
		var cmds []tea.Cmd
		if formOpen {
			cmds = append(cmds, m.closeOverlay(form))
		}
		cmds = append(cmds, m.openQR(*msg.charge))
		switch {
		case msg.charge.Mismatch != "":
			m.setStatus(tr.F("cmds.the_service_s_reply_differs_from", msg.charge.Mismatch), statusError)
		case msg.err != nil:
			m.setStatus(tr.F("cmds.charge_created_but_saving_it_locally", msg.err), statusWarn)
		default:
			m.setStatus(tr.F("cmds.charge_created", msg.charge.Amount.BRL()), statusOK)
		}
		return tea.Batch(cmds...)
	case msg.unconfirmed:
		m.setStatus(m.describeError(tr.T("cmds.create_charge"), msg.err)+" · "+tr.T("cmds.not_confirmed_pixdash_will_look_it"), statusWarn)
		return m.resolveLater(msg.draft.Key)
	default:
		var cmd tea.Cmd
		if formOpen {
			cmd = form.serverError(msg.err)
		}
		m.setStatus(m.describeError(tr.T("cmds.create_charge"), msg.err), statusError)
		return cmd
	}
}

// resolveLater looks an unconfirmed submission up by its key after a pause.
func (m *Model) resolveLater(key string) tea.Cmd {
	return tea.Tick(3*time.Second, func(time.Time) tea.Msg { return resolveMsg{key: key} })
}

type resolveMsg struct{ key string }

// recoverSubmissions resolves submissions left unconfirmed by a crash or restart: GET by idempotency key.
// At the session's start it also resolves the withdrawals an earlier session left requested
// or unknown (workflow.RecoverWithdrawals: looked up by their key, never sent again).
func (m *Model) recoverSubmissions() tea.Cmd { return m.recoverCmd(true) }

// recoverCmd looks the interrupted charge creations up, and the open withdrawals when
// withdrawals is set, in one command whose reply is one recoveredMsg.
func (m *Model) recoverCmd(withdrawals bool) tea.Cmd {
	gen, c, store, now := m.app.gen, m.app.sess.Client, m.app.sess.Store, m.c.now
	return m.app.withTimeout(callTimeout*2, func(ctx context.Context) tea.Msg {
		r := workflow.RecoverSubmissions(ctx, c, store, now)
		msg := recoveredMsg{gen: gen, resolved: r.Resolved, pending: r.Pending, abandoned: r.Abandoned, err: r.Err}
		if withdrawals && store != nil {
			w := workflow.RecoverWithdrawals(ctx, c, store, now)
			msg.withdrawals = &w
			// Refunds a killed or crashed window left "refunding" or "refund unknown".
			rr := workflow.RecoverRefunds(ctx, c, store, now)
			msg.refunds = &rr
		}
		return msg
	})
}

// recoveredWithdrawalParts words what RecoverWithdrawals found, each withdrawal by its amount
// and its destination masked as the form masks it; level is raised to what they call for,
// and retry is how long until the open ones are looked up again (0: none left open).
func (m *Model) recoveredWithdrawalParts(w *workflow.RecoveredWithdrawals, level *statusKind) (parts []string, retry time.Duration) {
	tr := m.c.tr
	raise := func(k statusKind) {
		if k > *level {
			*level = k
		}
	}
	// The status line is one line: one withdrawal is named, several are counted.
	one := len(w.Taken)+len(w.NotSent) == 1
	for _, r := range w.Taken {
		if one {
			parts = append(parts, tr.F("cmds.withdrawal_of_to_from_an_earlier",
				r.Amount.BRL(), maskPixKey(r.PixKeyType, r.PixKey), tr.T(string(r.State))))
		}
		if r.State == state.WithdrawalFailed || r.State == state.WithdrawalReversed {
			raise(statusWarn)
		}
	}
	for _, r := range w.NotSent {
		if one {
			parts = append(parts, tr.F("cmds.withdrawal_of_to_from_an_earlier_2",
				r.Amount.BRL(), maskPixKey(r.PixKeyType, r.PixKey)))
		}
		raise(statusWarn) // the merchant has to ask again: the line stays until replaced
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
		raise(statusWarn)
		retry = max(w.RetryAt.Sub(m.c.now()), time.Second)
	}
	return parts, retry
}

func (m *Model) onRecovered(msg recoveredMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	tr := m.c.tr
	// One line says all of it; the most pressing part decides its tone.
	var parts []string
	level := statusOK
	if n := len(msg.resolved); n > 0 {
		parts = append(parts, tr.F("cmds.recovered_charge_s_whose_creation_was", n))
	}
	if msg.abandoned > 0 {
		parts = append(parts, tr.F("cmds.interrupted_charge_s_never_reached_the", msg.abandoned))
		level = statusInfo
	}
	var retry time.Duration
	if msg.pending > 0 {
		parts = append(parts, tr.F("cmds.interrupted_charge_s_not_confirmed_yet", msg.pending))
		level = statusWarn
		retry = 10 * time.Second
	}
	withdrawalsOpen := false
	if msg.withdrawals != nil {
		wparts, wretry := m.recoveredWithdrawalParts(msg.withdrawals, &level)
		parts = append(parts, wparts...)
		if wretry > 0 {
			withdrawalsOpen = true
			if retry == 0 || wretry < retry {
				retry = wretry
			}
		}
	}
	if msg.refunds != nil {
		rparts, rretry := m.recoveredRefundParts(msg.refunds, &level)
		parts = append(parts, rparts...)
		if rretry > 0 {
			withdrawalsOpen = true // the start's set is looked at again, refunds with it
			if retry == 0 || rretry < retry {
				retry = rretry
			}
		}
	}
	var cmd tea.Cmd
	if retry > 0 {
		gen := msg.gen
		cmd = tea.Tick(retry, func(time.Time) tea.Msg { return retryRecoverMsg{gen: gen, withdrawals: withdrawalsOpen} })
	}
	if len(parts) > 0 {
		m.setOwnedStatus(ownerRecover, strings.Join(parts, " "), level)
	} else {
		m.clearStatus(ownerRecover) // an earlier "not confirmed yet" is over
	}
	return cmd
}

// recoveredRefundParts words what RecoverRefunds settled; level is raised to what it calls for,
// and retry is how long until a refund another window holds is looked at again (0: none).
func (m *Model) recoveredRefundParts(r *workflow.RecoveredRefunds, level *statusKind) (parts []string, retry time.Duration) {
	tr := m.c.tr
	if n := len(r.Completed); n > 0 {
		parts = append(parts, tr.F("cmds.refund_s_from_an_earlier_session", n))
	}
	if n := len(r.Taken); n > 0 {
		parts = append(parts, tr.F("cmds.refund_s_from_an_earlier_session_2", n))
	}
	if r.Err != nil {
		parts = append(parts, m.describeError(tr.T("cmds.settle_a_refund"), r.Err))
		if *level < statusWarn {
			*level = statusWarn
		}
	}
	if !r.RetryAt.IsZero() {
		retry = max(r.RetryAt.Sub(m.c.now()), time.Second)
	}
	return parts, retry
}

// retryRecoverMsg looks the interrupted charges up again, and the withdrawals left open by
// an earlier session when withdrawals is set.
type retryRecoverMsg struct {
	gen         uint64
	withdrawals bool
}

// schedulePolls asks for the charges that are due, within the per-second cap.
func (m *Model) schedulePolls(now time.Time) tea.Cmd {
	focused := ""
	if qr, ok := m.qrScreen(); ok {
		focused = qr.id
	}
	store := m.app.sess.Store
	due := store.DuePolls(now, focused, maxPollsPerTick)
	var cmds []tea.Cmd
	for _, id := range due {
		if m.polling[id] {
			continue
		}
		ch, ok := store.Peek(id)
		if !ok {
			continue
		}
		store.MarkPolled(id, now)
		cmds = append(cmds, m.pollNow(id, ch.Wallet))
	}
	return tea.Batch(cmds...)
}

// pollNow reads one transaction.
func (m *Model) pollNow(id, wallet string) tea.Cmd {
	m.polling[id] = true
	gen, c, store := m.app.gen, m.app.sess.Client, m.app.sess.Store
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		r := workflow.PollCharge(ctx, c, store, id, wallet)
		return txMsg{gen: gen, id: id, wallet: wallet, tx: r.Tx, before: r.Before, after: r.After, err: r.Err}
	})
}

func (m *Model) onTx(msg txMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	delete(m.polling, msg.id)
	m.noteResult(msg.err)
	if msg.err != nil {
		if qr, ok := m.qrScreen(); ok && qr.id == msg.id {
			qr.pollErr = m.describeError(m.c.tr.T("cmds.refresh"), msg.err)
		}
		if msg.after.NotFound {
			// 404s in a row over minutes: the charge is no longer polled (state.MarkMissing).
			return m.onChargeChanged(msg.before, msg.after)
		}
		return nil
	}
	if qr, ok := m.qrScreen(); ok && qr.id == msg.id {
		qr.pollErr = ""
	}
	return m.onChargeChanged(msg.before, msg.after)
}

// onChargeChanged reacts to a status change of a tracked charge (the QR screen rings on payment).
func (m *Model) onChargeChanged(before, after state.Charge) tea.Cmd {
	qr, onScreen := m.qrScreen()
	onScreen = onScreen && qr.id == after.ID
	if onScreen {
		qr.ch = after
	}
	if before.State() == after.State() {
		return nil
	}
	if after.Final() {
		m.clearStatus(chargeOwner(after.ID)) // e.g. "payment simulated; waiting…"
	}
	// A payment back to paid (a MED block rejected) was received before: no second bell or run.
	if after.State() == state.StatePaid && !before.State().Received() {
		run := m.runOnPaid(after) // the profile's on_paid command, once per payment
		if onScreen {
			return tea.Batch(m.bell(), run)
		}
		return run
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

// maxEventBatch bounds how many webhook events one eventsMsg carries.
const maxEventBatch = 1024

// eventsMsg is a batch of webhook events that reached the store (from this window's receiver
// or another's) since the last one; the root handles each item as an eventMsg.
type eventsMsg struct {
	gen   uint64
	items []eventMsg
	// last is the Seq of the newest event seen; the next wait reads after it.
	last int64
	err  error
}

// waitEvent waits until events newer than the last one seen are in the store and returns up to
// maxEventBatch of them; it is re-armed after each batch. At the start of a session it first
// reads where the events end: older ones are history, shown by the events view.
func (m *Model) waitEvent() tea.Cmd {
	gen, store, life, after := m.app.gen, m.app.sess.Store, m.app.ctx, m.app.eventSeq
	return func() tea.Msg {
		b, ok := workflow.WaitEvents(life, store, after, maxEventBatch)
		if !ok {
			return nil // the session ended
		}
		msg := eventsMsg{gen: gen, last: b.Last, err: b.Err, items: make([]eventMsg, len(b.Events))}
		for i, ev := range b.Events {
			msg.items[i] = eventMsg{gen: gen, ev: ev}
		}
		return msg
	}
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

// eventConfirmedMsg is the service's answer to a payment event read back (state.ConfirmEvent).
type eventConfirmedMsg struct {
	gen     uint64
	ev      *api.Event
	conf    state.Confirmation
	attempt int
	err     error
}

// retryConfirmMsg reads a payment event back again after a failure.
type retryConfirmMsg struct {
	gen     uint64
	ev      *api.Event
	attempt int
}

// maxConfirmAttempts bounds how often one payment event is read back after failures; the
// charge's own polling goes on regardless.
const maxConfirmAttempts = 5

// maxStartupConfirms bounds how many unchecked payment events are read back at start.
const maxStartupConfirms = 20

// Read-backs of payment events: at most maxConfirming at a time, the others wait in a queue
// of at most maxConfirmQueue (a flood of webhooks does not become a flood of requests; events
// beyond it stay unchecked in the store, and their charges are still polled).
const (
	maxConfirming   = 4
	maxConfirmQueue = 512
)

// pendingConfirm is a read-back waiting for a slot.
type pendingConfirm struct {
	ev      *api.Event
	attempt int
}

// queueConfirm reads a payment event back now if a slot is free, else queues it.
func (m *Model) queueConfirm(ev *api.Event, attempt int) tea.Cmd {
	if m.confirming < maxConfirming {
		m.confirming++
		return m.confirmEvent(ev, attempt)
	}
	if len(m.confirmQ) < maxConfirmQueue {
		m.confirmQ = append(m.confirmQ, pendingConfirm{ev: ev, attempt: attempt})
	}
	return nil
}

// confirmDone frees a slot and starts the next queued read-back.
func (m *Model) confirmDone() tea.Cmd {
	m.confirming = max(m.confirming-1, 0)
	if len(m.confirmQ) == 0 {
		return nil
	}
	p := m.confirmQ[0]
	m.confirmQ = m.confirmQ[1:]
	return m.queueConfirm(p.ev, p.attempt)
}

// confirmEvent reads a payment event's transaction back from the service: PAGO, "paid" and the
// bell come from that answer, never from the event.
func (m *Model) confirmEvent(ev *api.Event, attempt int) tea.Cmd {
	gen, c, store := m.app.gen, m.app.sess.Client, m.app.sess.Store
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		conf, err := workflow.ConfirmPayment(ctx, c, store, ev)
		return eventConfirmedMsg{gen: gen, ev: ev, conf: conf, attempt: attempt, err: err}
	})
}

// confirmUnchecked reads back the newest payment events left unchecked (e.g. by a restart).
func (m *Model) confirmUnchecked() tea.Cmd {
	gen, store := m.app.gen, m.app.sess.Store
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		events, err := workflow.UncheckedPayments(ctx, store, maxStartupConfirms)
		return uncheckedMsg{gen: gen, events: events, err: err}
	})
}

// uncheckedMsg lists payment events to read back.
type uncheckedMsg struct {
	gen    uint64
	events []*api.Event
	err    error
}

func (m *Model) onUnchecked(msg uncheckedMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	if msg.err != nil {
		m.setStatus(m.c.tr.F("cmds.could_not_read_the_saved_events", msg.err), statusError)
		return nil
	}
	cmds := make([]tea.Cmd, 0, len(msg.events))
	for _, ev := range msg.events {
		cmds = append(cmds, m.queueConfirm(ev, 0))
	}
	return tea.Batch(cmds...)
}

func (m *Model) onConfirmed(msg eventConfirmedMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	next := m.confirmDone()
	return tea.Batch(next, m.afterConfirm(msg))
}

func (m *Model) afterConfirm(msg eventConfirmedMsg) tea.Cmd {
	tr := m.c.tr
	m.noteResult(msg.err)
	if msg.err != nil {
		if msg.attempt+1 >= maxConfirmAttempts {
			m.setStatus(m.describeError(tr.T("cmds.check_a_payment_with_the_service"), msg.err), statusWarn)
			return nil
		}
		gen, ev, n := msg.gen, msg.ev, msg.attempt+1
		return tea.Tick(time.Second<<msg.attempt, func(time.Time) tea.Msg { return retryConfirmMsg{gen: gen, ev: ev, attempt: n} })
	}
	if msg.conf.Verdict == state.VerdictDisputed {
		m.setStatus(tr.F("cmds.a_webhook_disagrees_with_the_service", verdictReason(tr, msg.conf.Reason)), statusWarn)
	}
	if msg.conf.After.ID == "" {
		return nil
	}
	return m.onChargeChanged(msg.conf.Before, msg.conf.After)
}

// onEvents reads back each new payment event, lets the views see every event (the events
// feed, blocks on balance_block_*) and waits for the next ones.
func (m *Model) onEvents(msg eventsMsg) tea.Cmd {
	if msg.gen != m.app.gen {
		return nil
	}
	m.app.eventSeq = msg.last
	if msg.err != nil {
		m.setStatus(m.c.tr.F("cmds.could_not_read_the_saved_events", msg.err), statusError)
		return tea.Tick(time.Second, func(time.Time) tea.Msg { return rewaitEventsMsg{gen: msg.gen} })
	}
	var cmds []tea.Cmd
	for _, it := range msg.items {
		if it.ev != nil && it.ev.Kind.ReadBack() {
			cmds = append(cmds, m.queueConfirm(it.ev, 0))
		}
		if it.ev != nil && it.ev.Kind.IsBalanceBlock() {
			cmds = append(cmds, m.readBackBlocks(it.ev.Wallet()))
		}
		cmds = append(cmds, m.notify(it))
	}
	cmds = append(cmds, m.waitEvent())
	return tea.Batch(cmds...)
}

// readBackBlocks lists wallet's MED blocks and records them on the tracked charges (a
// balance_block_* event is a hint; the service's list is what the charges show).
func (m *Model) readBackBlocks(wallet string) tea.Cmd {
	c, store := m.app.sess.Client, m.app.sess.Store
	if c == nil || store == nil {
		return nil
	}
	return m.app.withTimeout(callTimeout, func(ctx context.Context) tea.Msg {
		_, _ = workflow.ReadBackBlocks(ctx, c, store, wallet) // a failure leaves the charges as they were
		return nil
	})
}

// rewaitEventsMsg re-arms the event feed after a failed read.
type rewaitEventsMsg struct{ gen uint64 }

// updateWorkflow handles the replies of the workflow commands (charges, polls, events,
// profiles); ok is false for any other message.
func (m *Model) updateWorkflow(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case authMsg:
		return m.onAuth(msg), true
	case chargeSubmitMsg:
		return m.onSubmit(msg.draft), true
	case sendChargeMsg:
		return m.sendCharge(msg.draft), true
	case chargeCreatedMsg:
		return m.onCreated(msg), true
	case txMsg:
		return m.onTx(msg), true
	case onPaidMsg:
		return m.onOnPaid(msg), true
	case uncheckedMsg:
		return m.onUnchecked(msg), true
	case prunedMsg:
		m.onPruned(msg)
		return nil, true
	case rewaitEventsMsg:
		if msg.gen != m.app.gen {
			return nil, true
		}
		return m.waitEvent(), true
	case storeChangedMsg:
		if msg.gen != m.app.gen {
			return nil, true
		}
		m.app.seenCharges, m.app.seenEvents = msg.chargesVer, msg.eventsVer
		// Only the view on screen reads again; the others read when shown (activate).
		return tea.Batch(m.activePane().update(msg), m.waitChange()), true
	case eventsMsg:
		return m.onEvents(msg), true
	case eventConfirmedMsg:
		return m.onConfirmed(msg), true
	case retryConfirmMsg:
		if msg.gen != m.app.gen {
			return nil, true
		}
		return m.queueConfirm(msg.ev, msg.attempt), true
	case persistMsg:
		if msg.err != nil {
			m.setStatus(m.c.tr.F("cmds.could_not_save_local_state", msg.err), statusError)
		}
		return nil, true
	case simulatedMsg:
		if msg.err != nil {
			m.setStatus(m.describeError(m.c.tr.T("cmds.simulate_payment"), msg.err), statusError)
			return nil, true
		}
		m.setOwnedStatus(chargeOwner(msg.id), m.c.tr.T("cmds.payment_simulated_waiting_for_the_service"), statusInfo)
		return m.pollNow(msg.id, msg.wallet), true
	case recoveredMsg:
		return m.onRecovered(msg), true
	case refreshChargeMsg:
		m.setStatus(m.c.tr.T("cmds.refreshing"), statusInfo)
		return m.pollNow(msg.id, msg.wallet), true
	case resolveMsg:
		return m.recoverCmd(false), true
	case retryRecoverMsg:
		return m.recoverCmd(msg.withdrawals), true
	case storeRefreshedMsg:
		if msg.gen == m.app.gen {
			if msg.err != nil {
				m.setStatus(m.c.tr.F("cmds.local_state", msg.err), statusWarn)
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
