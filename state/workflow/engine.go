package workflow

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// Engine is the long-lived service of one session: it polls the pending charges, reads
// payment events back from the service (a bounded queue, the watched charge first), follows
// the store's event feed, recovers interrupted submissions, refunds and withdrawals, reads MED
// blocks back and runs on_paid. It knows nothing of terminals: the dashboard turns its reports
// into messages, a command line prints them, a hub publishes them.
//
// NewEngine builds it idle; Start starts its goroutines; Reports delivers what changed (read
// it, or the engine waits); Close stops everything and waits for it.
type Engine struct {
	sess *Session
	opt  EngineOptions

	reports chan Report
	wake    chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	startOnce, closeOnce sync.Once

	mu      sync.Mutex
	watched string
	queue   []job
	polling map[string]bool
	closed  bool
	// resolving is set while a RecoverAfter pass is due or running.
	resolving bool
	// watchPolled is when the watched charge's last poll was queued by WatchEvery.
	watchPolled time.Time
	// feedAfter is where the event feed starts (StartAfter); -1: where the events end at start.
	feedAfter int64
	// retries are the read-backs waiting for their next try (retryLoop), one list per try:
	// a try's pause depends only on how many came before it, so each list is in time order.
	// retryWake tells retryLoop one sooner than it waits for was added.
	retries   [MaxConfirmAttempts][]retry
	retryWake chan struct{}
	// gaveUp: an event's last read-back failed for want of the service, so its verdict stays
	// unchecked; the service's next answer reads the unchecked ones back (recheck).
	gaveUp bool
	// fed is the position of the last event the feed has read (-1 before its first read).
	fed atomic.Int64
}

// EngineOptions tune an Engine; the zero value is what the dashboard uses.
type EngineOptions struct {
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// PollEvery is how often due charges are looked for (1 s when 0).
	PollEvery time.Duration
	// MaxPollsPerTick bounds the polls started at each look (4 when 0).
	MaxPollsPerTick int
	// Workers is how many reads of the service run at a time (4 when 0).
	Workers int
	// QueueSize bounds the reads waiting for a worker (512 when 0).
	QueueSize int
	// CallTimeout bounds one call to the service (15 s when 0).
	CallTimeout time.Duration
	// RetryBase is the first pause before a failed read-back of an event is tried again; it
	// doubles each time (1 s when 0).
	RetryBase time.Duration
	// FeedGap is how often at most the event feed reads while events keep coming (FeedGap
	// when 0).
	FeedGap time.Duration
	// WatchEvery, when set, polls the watched charge at least this often, whatever the store's
	// schedule says (charge wait --interval); 0 leaves it to the store's schedule.
	WatchEvery time.Duration
	// NoStartup skips what Start does for an earlier session: the recovery pass and the
	// read-back of the payment events it left unchecked (a short command following a charge,
	// while the dashboard or listen recover).
	NoStartup bool
}

// ErrQueueFull is the error of a read-back the engine could not queue (more reads waiting
// than EngineOptions.QueueSize): the event stays unchecked in the store, read back at the next
// start.
var ErrQueueFull = errors.New("too many reads of the service waiting: the event stays unchecked until the next start")

// Defaults of EngineOptions and limits of the engine.
const (
	// MaxConfirmAttempts bounds how often one payment event is read back after failures; the
	// charge's own polling goes on regardless.
	MaxConfirmAttempts = 5
	// MaxStartupConfirms bounds how many unchecked payment events are read back at start.
	MaxStartupConfirms = 20
	// MaxEventBatch bounds how many events one Events report carries.
	MaxEventBatch = 1024
	// MaxBlockWallets bounds how many wallets ReadBackAllBlocks reads the MED blocks of.
	MaxBlockWallets = 20
	// onPaidSlack is how long a run may take beyond its own timeout before it is given up.
	onPaidSlack = 15 * time.Second
	// pendingRecoverRetry is when interrupted charge creations still unconfirmed are looked
	// up again.
	pendingRecoverRetry = 10 * time.Second
)

// Report is one change the engine saw: ChargeChanged, Events, EventConfirmed, RecoveryDone or
// OnPaidDone.
type Report interface{ report() }

// ChargeChanged is the outcome of one poll of a tracked charge (Err set on failure; After
// is then the charge as it stays, NotFound after 404s in a row).
type ChargeChanged struct {
	ID, Wallet    string
	Tx            *api.Transaction
	Before, After state.Charge
	Err           error
}

// Events are webhook events new in the store (this window's receiver or another's), oldest
// first; Last is the Seq of the newest. Err is a failed read of the store.
type Events struct {
	Events []*api.Event
	Last   int64
	Err    error
}

// EventConfirmed is the service's answer to a payment event read back (state.ConfirmEvent).
// Attempt counts the tries before this one, reported or not (a try skipped while the service
// is known to be down counts but is not reported: tryAgain); a failure with Attempt+1 ==
// MaxConfirmAttempts is the last (the engine tries again otherwise).
type EventConfirmed struct {
	Event   *api.Event
	Conf    state.Confirmation
	Attempt int
	Err     error
}

// RecoveryDone is what one recovery pass found: the interrupted charge creations, and (at
// start and on its retries) the withdrawals and refunds an earlier session left open.
type RecoveryDone struct {
	Charges     Recovered
	Withdrawals *RecoveredWithdrawals
	Refunds     *RecoveredRefunds
	// RetryIn is when the engine looks again (0: nothing left open).
	RetryIn time.Duration
}

// OnPaidDone is how the profile's on_paid command ended for one charge.
type OnPaidDone struct{ Result OnPaidResult }

func (ChargeChanged) report()  {}
func (Events) report()         {}
func (EventConfirmed) report() {}
func (RecoveryDone) report()   {}
func (OnPaidDone) report()     {}

// jobKind is what a queued read does.
type jobKind int

const (
	jobPoll jobKind = iota
	jobConfirm
	jobBlocks
)

// job is one read of the service waiting for a worker.
type job struct {
	kind    jobKind
	id      string // the charge (poll) or the event's transaction (confirm)
	wallet  string
	ev      *api.Event
	attempt int
}

// NewEngine builds the engine of s, idle until Start. s stays the caller's: Close stops the
// engine, not the session.
func NewEngine(s *Session, o EngineOptions) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollEvery <= 0 {
		o.PollEvery = time.Second
	}
	if o.MaxPollsPerTick <= 0 {
		o.MaxPollsPerTick = 4
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 512
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 15 * time.Second
	}
	if o.RetryBase <= 0 {
		o.RetryBase = time.Second
	}
	if o.FeedGap <= 0 {
		o.FeedGap = FeedGap
	}
	if o.WatchEvery > 0 && o.WatchEvery < o.PollEvery {
		o.PollEvery = o.WatchEvery
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{sess: s, opt: o, reports: make(chan Report, 64), wake: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, polling: map[string]bool{}, feedAfter: -1, retryWake: make(chan struct{}, 1)}
	e.fed.Store(-1)
	return e
}

// Reports delivers the engine's reports, in the order they happen; it is never closed (Done
// tells when the engine stopped). Nobody reading holds the engine's work back.
func (e *Engine) Reports() <-chan Report { return e.reports }

// Done is closed when the engine stops (Close).
func (e *Engine) Done() <-chan struct{} { return e.ctx.Done() }

// Start starts the engine (once; later calls do nothing): the workers, the polling of due
// charges, the event feed (from where the recorded events end now), the recovery of what an
// earlier session left open and the read-back of the payment events it left unchecked.
func (e *Engine) Start() { e.start(-1) }

// StartAfter is Start with the event feed starting after position seq (state.EventEntry.Seq)
// instead of where the events end now: a command that read the position before its receiver
// started reports every event that receiver records. A negative seq is Start.
func (e *Engine) StartAfter(seq int64) { e.start(seq) }

func (e *Engine) start(seq int64) {
	e.startOnce.Do(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.closed {
			return
		}
		e.feedAfter = seq
		for range e.opt.Workers {
			e.goRun(e.worker)
		}
		e.goRun(e.pollLoop)
		e.goRun(e.retryLoop)
		e.goRun(e.feed)
		if !e.opt.NoStartup {
			e.goRun(func() { e.recoverPass(true) })
		}
	})
}

// Close stops the engine and waits for its goroutines (an on_paid run in progress finishes
// first, within its own timeout). It is safe to call more than once.
func (e *Engine) Close() {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		e.queue = nil
		e.retries = [MaxConfirmAttempts][]retry{}
		e.mu.Unlock()
		e.cancel()
	})
	e.wg.Wait()
}

// goRun runs f on a goroutine Close waits for.
func (e *Engine) goRun(f func()) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
}

// emit hands r to Reports, or drops it once the engine stops.
func (e *Engine) emit(r Report) {
	select {
	case e.reports <- r:
	case <-e.ctx.Done():
	}
}

// sleep waits d, or reports false when the engine stops first.
func (e *Engine) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-e.ctx.Done():
		return false
	}
}

// call derives a context for one call to the service: ctx bounded by the call timeout and
// by the engine's life.
func (e *Engine) call(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, e.opt.CallTimeout)
	stop := context.AfterFunc(e.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// Watch names the charge on the customer's screen ("" for none): it is polled first and most
// often, and its reads jump the queue.
func (e *Engine) Watch(id string) {
	e.mu.Lock()
	e.watched = id
	e.mu.Unlock()
}

// Watched is the charge Watch named last.
func (e *Engine) Watched() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.watched
}

// enqueue queues j for a worker; it reports false when the queue is full (a read of the
// watched charge then takes the place of the newest other one) or the engine stopped.
func (e *Engine) enqueue(j job) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	if len(e.queue) >= e.opt.QueueSize {
		if e.watched == "" || j.id != e.watched {
			return false // beyond the bound: an event stays unchecked in the store, a charge is polled later
		}
		evict := -1
		for k := len(e.queue) - 1; k >= 0; k-- {
			if e.queue[k].id != e.watched {
				evict = k
				break
			}
		}
		if evict < 0 {
			return false
		}
		e.dropLocked(e.queue[evict])
		e.queue = slices.Delete(e.queue, evict, evict+1)
	}
	e.queue = append(e.queue, j)
	e.signal()
	return true
}

// dropLocked forgets a job taken off the queue unrun.
func (e *Engine) dropLocked(j job) {
	if j.kind == jobPoll {
		delete(e.polling, j.id)
	}
}

// signal wakes a worker.
func (e *Engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// next takes the job to run next: the watched charge's first, else the oldest.
func (e *Engine) next() (job, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.queue) == 0 {
		return job{}, false
	}
	i := 0
	if e.watched != "" {
		if k := slices.IndexFunc(e.queue, func(j job) bool { return j.id == e.watched }); k >= 0 {
			i = k
		}
	}
	j := e.queue[i]
	e.queue = slices.Delete(e.queue, i, i+1)
	if len(e.queue) > 0 {
		e.signal() // the next worker takes the next one
	}
	return j, true
}

// Queued is how many reads wait for a worker.
func (e *Engine) Queued() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

func (e *Engine) worker() {
	for {
		j, ok := e.next()
		if !ok {
			select {
			case <-e.ctx.Done():
				return
			case <-e.wake:
			}
			continue
		}
		if e.ctx.Err() != nil {
			return
		}
		e.run(j)
	}
}

// run does one queued read and reports it.
func (e *Engine) run(j job) {
	switch j.kind {
	case jobPoll:
		r := e.poll(e.ctx, j.id, j.wallet)
		e.emit(r)
		if r.Err == nil {
			e.recheck()
		}
	case jobConfirm:
		if e.outage(j.attempt) {
			e.retryConfirm(j.ev, j.attempt+1)
			return
		}
		conf, err := e.Confirm(e.ctx, j.ev)
		if e.ctx.Err() != nil {
			return
		}
		e.emit(EventConfirmed{Event: j.ev, Conf: conf, Attempt: j.attempt, Err: err})
		switch {
		case err == nil:
			e.recheck()
		case j.attempt+1 < MaxConfirmAttempts:
			e.retryConfirm(j.ev, j.attempt+1)
		default:
			e.giveUp()
		}
	case jobBlocks:
		ctx, cancel := e.call(e.ctx)
		defer cancel()
		_, _ = ReadBackBlocks(ctx, e.sess.Client, e.sess.Store, j.wallet) // a failure leaves the charges as they were
	}
}

// retryConfirm tries the read-back of ev again after its pause (attempt n: the tries before),
// on the engine's one retry goroutine (retryLoop): a flood of events the service could not
// answer is a few lists of times, not a goroutine and four timers an event (issue 27).
func (e *Engine) retryConfirm(ev *api.Event, n int) {
	e.mu.Lock()
	if e.closed || n <= 0 || n >= MaxConfirmAttempts {
		e.mu.Unlock()
		return
	}
	at := time.Now().Add(e.opt.RetryBase << (n - 1)) // under the lock: each list stays in order
	soonest, ok := e.soonestRetryLocked()
	sooner := !ok || at.Before(soonest)
	e.retries[n] = append(e.retries[n], retry{at: at, ev: ev, attempt: n})
	e.mu.Unlock()
	if sooner {
		select {
		case e.retryWake <- struct{}{}:
		default:
		}
	}
}

// retryGather is how late retryLoop may run a retry so that the retries due close together
// run in one wake (a skipped try is not reported, and a pause of a second or more does not
// mind 50 ms more).
const retryGather = 50 * time.Millisecond

// retryLoop runs each retry when its pause is over (tryAgain), those due within retryGather
// of each other in one wake.
func (e *Engine) retryLoop() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		now := time.Now()
		var due []retry
		e.mu.Lock()
		for n, l := range e.retries {
			k := 0
			for k < len(l) && !l[k].at.After(now.Add(retryGather)) {
				k++
			}
			if k > 0 {
				due = append(due, l[:k]...)
				clear(l[:k])
				e.retries[n] = l[k:]
			}
		}
		wait := time.Hour
		if soonest, ok := e.soonestRetryLocked(); ok {
			wait = max(soonest.Sub(now), retryGather)
		}
		e.mu.Unlock()
		for _, r := range due {
			if e.ctx.Err() != nil {
				return
			}
			e.tryAgain(r)
		}
		t.Reset(wait)
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
		case <-e.retryWake:
		}
	}
}

// tryAgain runs retry r whose pause is over. While the service is known to be down (outage) a
// try is skipped: it counts as a failed try, without a report or a trip through the queue (the
// header's light already says the service cannot be reached, and under a flood those tries
// were most of the engine's work and of its reports). An event's last try is reported as its
// last failure; it asks the service unless another read-back found it unreachable less than
// RetryBase ago, whose error it then carries (issue 27: during an outage a flood of events
// dialled the service once an event, or five times before that).
func (e *Engine) tryAgain(r retry) {
	if e.outage(r.attempt) {
		e.retryConfirm(r.ev, r.attempt+1)
		return
	}
	if r.attempt+1 >= MaxConfirmAttempts {
		if err := e.unreachable(); err != nil {
			e.emit(EventConfirmed{Event: r.ev, Attempt: r.attempt, Err: err})
			e.giveUp()
			return
		}
	}
	e.queueConfirm(r.ev, r.attempt)
}

// outage reports, for a read-back that is not an event's last try, whether the service cannot
// be reached right now (unreachable). Such a try would only dial a service known to be down and
// fail the same way: it counts as a failed try (tryAgain).
func (e *Engine) outage(attempt int) bool {
	return attempt+1 < MaxConfirmAttempts && e.unreachable() != nil
}

// unreachable returns why the service cannot be reached right now, or nil when it may be: the
// client holds no valid token, no exchange is in flight, and its last exchange failed to reach
// the service (not a refusal) less than RetryBase ago. Time is the client's wall clock; a
// failure it dates in the future or long ago is not an outage.
func (e *Engine) unreachable() error {
	if e.sess.Client == nil {
		return nil
	}
	st := e.sess.Client.TokenState()
	now := time.Now()
	if st.LastError == nil || st.Rejected || st.Refreshing || st.Valid(now) {
		return nil
	}
	if ago := now.Sub(st.FailedAt); ago < 0 || ago >= e.opt.RetryBase {
		return nil
	}
	return st.LastError
}

// retry is a read-back waiting for its next try: at is when, attempt the tries before.
type retry struct {
	at      time.Time
	ev      *api.Event
	attempt int
}

// soonestRetryLocked is when the first of the waiting retries is due (ok false: none waits).
func (e *Engine) soonestRetryLocked() (at time.Time, ok bool) {
	for _, l := range e.retries {
		if len(l) > 0 && (!ok || l[0].at.Before(at)) {
			at, ok = l[0].at, true
		}
	}
	return at, ok
}

// pollLoop queues the polls of the charges that are due, once each PollEvery.
func (e *Engine) pollLoop() {
	t := time.NewTicker(e.opt.PollEvery)
	defer t.Stop()
	for {
		select {
		case <-e.ctx.Done():
			return
		case <-t.C:
			e.PollDue()
		}
	}
}

// PollDue queues the polls of the charges due now (the watched one first), within the
// per-tick cap; the engine's own loop calls it every PollEvery.
func (e *Engine) PollDue() {
	store := e.sess.Store
	now := e.opt.Now()
	due := store.DuePolls(now, e.Watched(), e.opt.MaxPollsPerTick)
	if every := e.opt.WatchEvery; every > 0 {
		e.mu.Lock()
		w := e.watched
		if w != "" && !slices.Contains(due, w) && now.Sub(e.watchPolled) >= every {
			due = append([]string{w}, due...)
		}
		e.mu.Unlock()
	}
	for _, id := range due {
		ch, ok := store.Peek(id)
		if !ok {
			continue
		}
		e.mu.Lock()
		busy := e.polling[id]
		if !busy {
			e.polling[id] = true
		}
		e.mu.Unlock()
		if busy {
			continue
		}
		store.MarkPolled(id, now)
		if id == e.Watched() {
			e.mu.Lock()
			e.watchPolled = now
			e.mu.Unlock()
		}
		if !e.enqueue(job{kind: jobPoll, id: id, wallet: ch.Wallet}) {
			e.mu.Lock()
			delete(e.polling, id)
			e.mu.Unlock()
		}
	}
}

// Poll reads charge id of wallet from the service now and applies the answer (PollCharge);
// a payment it confirms runs on_paid. The result is returned, not reported.
func (e *Engine) Poll(ctx context.Context, id, wallet string) ChargeChanged {
	return e.poll(ctx, id, wallet)
}

func (e *Engine) poll(ctx context.Context, id, wallet string) ChargeChanged {
	ctx, cancel := e.call(ctx)
	defer cancel()
	r := PollCharge(ctx, e.sess.Client, e.sess.Store, id, wallet)
	e.mu.Lock()
	delete(e.polling, id)
	e.mu.Unlock()
	if r.Err == nil {
		e.paid(r.Before, r.After)
	}
	return ChargeChanged{ID: id, Wallet: wallet, Tx: r.Tx, Before: r.Before, After: r.After, Err: r.Err}
}

// Confirm reads a payment event's transaction back from the service and records the verdict
// (ConfirmPayment): paid comes from that answer, never from the event. A payment it confirms
// runs on_paid. The result is returned, not reported.
func (e *Engine) Confirm(ctx context.Context, ev *api.Event) (state.Confirmation, error) {
	ctx, cancel := e.call(ctx)
	defer cancel()
	conf, err := ConfirmPayment(ctx, e.sess.Client, e.sess.Store, ev)
	if err == nil && conf.After.ID != "" {
		e.paid(conf.Before, conf.After)
	}
	return conf, err
}

// paid runs the profile's on_paid command when a charge became paid (a payment back to paid
// after a rejected MED block was received before: no second run). The run is bounded by its
// own timeout, not by the engine: closing it does not cut a receipt half printed.
func (e *Engine) paid(before, after state.Charge) {
	c := e.sess.OnPaid
	if c == nil || after.State() != state.StatePaid || before.State().Received() {
		return
	}
	limit := c.Timeout
	if limit <= 0 {
		limit = DefaultOnPaidTimeout
	}
	store := e.sess.Store
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.goRun(func() {
		ctx, cancel := context.WithTimeout(context.Background(), limit+onPaidSlack)
		defer cancel()
		res := RunOnPaid(ctx, store, c, after)
		if res.Ran {
			select {
			case e.reports <- OnPaidDone{Result: res}:
			case <-e.ctx.Done():
			}
		}
	})
}

// feed follows the store's events: every event is reported, then each payment event is read
// back (its EventConfirmed comes after its Events) and each MED block event reads the wallet's
// blocks. At start what is stored is history (or what StartAfter's position leaves), and the
// payment events before that position an earlier session left unchecked are read back.
func (e *Engine) feed() {
	e.mu.Lock()
	after := e.feedAfter
	e.mu.Unlock()
	for after < 0 {
		last, err := e.sess.Store.LastEventSeq(e.ctx)
		if err == nil {
			after = last
			break
		}
		if e.ctx.Err() != nil {
			return
		}
		e.emit(Events{Last: -1, Err: err})
		if !e.sleep(time.Second) {
			return
		}
	}
	e.fed.Store(after)
	if !e.opt.NoStartup {
		e.confirmUnchecked(after, nil)
	}
	for {
		b, ok := WaitEvents(e.ctx, e.sess.Store, after, MaxEventBatch)
		if !ok {
			return
		}
		read := time.Now()
		if b.Err != nil {
			e.emit(Events{Last: after, Err: b.Err})
			if !e.sleep(time.Second) {
				return
			}
			continue
		}
		after = b.Last
		e.fed.Store(after)
		e.emit(Events{Events: b.Events, Last: b.Last})
		for _, ev := range b.Events {
			if ev == nil {
				continue
			}
			if ev.Kind.ReadBack() {
				e.queueConfirm(ev, 0)
			}
			if ev.Kind.IsBalanceBlock() {
				e.enqueue(job{kind: jobBlocks, wallet: ev.Wallet()})
			}
		}
		// While events keep coming the feed reads them at most every FeedGap; an event after a
		// quiet spell is still read EventFeedCoalesce after it arrived (WaitEvents), and a full
		// batch is followed at once by the next (a flood faster than MaxEventBatch a FeedGap is
		// not left behind).
		if len(b.Events) >= MaxEventBatch {
			continue
		}
		if wait := e.opt.FeedGap - time.Since(read); wait > 0 && !e.sleep(wait) {
			return
		}
	}
}

// FeedGap is how often at most the engine's event feed reads the store while events keep
// coming (unless a read brought MaxEventBatch of them): a flood is read ten times a second, not
// once every EventFeedCoalesce (each read is a read transaction on the database, a tenth of the
// dashboard's CPU at 100 events/s: issue 27). A payment's read-back, and so its PAGO, starts
// at most that much later under a flood.
const FeedGap = 100 * time.Millisecond

// queueConfirm queues the read-back of payment event ev (attempt: the tries before); one the
// queue has no room for is reported as a last failure (ErrQueueFull), never dropped unsaid, and
// one the service is known to be down for is skipped (outage).
func (e *Engine) queueConfirm(ev *api.Event, attempt int) {
	if e.outage(attempt) {
		e.retryConfirm(ev, attempt+1) // skipped (tryAgain): no trip through the queue
		return
	}
	if e.enqueue(job{kind: jobConfirm, id: ev.TransactionID, ev: ev, attempt: attempt}) || e.ctx.Err() != nil {
		return
	}
	e.emit(EventConfirmed{Event: ev, Attempt: MaxConfirmAttempts - 1, Err: ErrQueueFull})
}

// confirmUnchecked queues the newest payment events a restart left unchecked, up to position
// upTo (the feed reads back those after it), except those in skip.
func (e *Engine) confirmUnchecked(upTo int64, skip map[string]bool) {
	es, err := e.sess.Store.UncheckedPayments(e.ctx, MaxStartupConfirms)
	if err != nil {
		if e.ctx.Err() == nil {
			e.emit(Events{Last: -1, Err: err})
		}
		return
	}
	for _, en := range es {
		if en.Event != nil && en.Seq <= upTo && !skip[en.Event.EventID] {
			e.queueConfirm(en.Event, 0)
		}
	}
}

// giveUp notes that an event's last read-back failed for want of the service (recheck).
func (e *Engine) giveUp() {
	e.mu.Lock()
	e.gaveUp = true
	e.mu.Unlock()
}

// recheck runs after the service answered: when an outage made events give up their
// read-backs, the newest unchecked payment events (as many as a start reads back) are read back
// again, except those already waiting in the queue or for their next try. Once per outage: a
// recheck that fails again gives up again, and the next answer rechecks.
func (e *Engine) recheck() {
	e.mu.Lock()
	if !e.gaveUp || e.closed {
		e.mu.Unlock()
		return
	}
	e.gaveUp = false
	waiting := map[string]bool{}
	for _, j := range e.queue {
		if j.kind == jobConfirm && j.ev != nil {
			waiting[j.ev.EventID] = true
		}
	}
	for _, l := range e.retries {
		for _, r := range l {
			waiting[r.ev.EventID] = true
		}
	}
	e.mu.Unlock()
	if fed := e.fed.Load(); fed >= 0 {
		e.confirmUnchecked(fed, waiting)
	}
}

// ReadBackAllBlocks queues the read of the MED blocks of every wallet the store holds
// charges of (at most MaxBlockWallets): a block resolved while the dashboard was closed shows
// on its charge. Call it once the credentials are known good.
func (e *Engine) ReadBackAllBlocks(ctx context.Context) error {
	wallets, err := e.sess.Store.KnownWallets(ctx)
	if err != nil {
		return err
	}
	for _, w := range wallets[:min(len(wallets), MaxBlockWallets)] {
		e.enqueue(job{kind: jobBlocks, wallet: w})
	}
	return nil
}

// Recover runs one recovery pass now and returns what it found: the interrupted charge
// creations, and with openOnes the withdrawals and refunds an earlier session left open
// (looked up by their key, never sent again). RetryIn says when another pass is due.
func (e *Engine) Recover(ctx context.Context, openOnes bool) RecoveryDone {
	ctx, cancel := context.WithTimeout(ctx, 2*e.opt.CallTimeout)
	defer cancel()
	stop := context.AfterFunc(e.ctx, cancel)
	defer stop()
	c, store, now := e.sess.Client, e.sess.Store, e.opt.Now
	r := RecoveryDone{Charges: RecoverSubmissions(ctx, c, store, now)}
	if r.Charges.Pending > 0 {
		r.RetryIn = pendingRecoverRetry
	}
	soonest := func(at time.Time) {
		d := max(at.Sub(now()), time.Second)
		if r.RetryIn == 0 || d < r.RetryIn {
			r.RetryIn = d
		}
	}
	if openOnes && store != nil {
		w := RecoverWithdrawals(ctx, c, store, now)
		r.Withdrawals = &w
		if len(w.Pending) > 0 {
			soonest(w.RetryAt)
		}
		rr := RecoverRefunds(ctx, c, store, now)
		r.Refunds = &rr
		if !rr.RetryAt.IsZero() {
			soonest(rr.RetryAt)
		}
	}
	return r
}

// recoverPass runs Recover, reports it and runs it again while something is left open.
func (e *Engine) recoverPass(openOnes bool) {
	for {
		r := e.Recover(e.ctx, openOnes)
		if e.ctx.Err() != nil {
			return
		}
		e.emit(r)
		if r.RetryIn <= 0 || !e.sleep(r.RetryIn) {
			return
		}
		openOnes = openOnes && (r.Withdrawals != nil && len(r.Withdrawals.Pending) > 0 || r.Refunds != nil && !r.Refunds.RetryAt.IsZero())
	}
}

// RecoverAfter runs a recovery pass of the interrupted charge creations after d (a creation
// whose outcome is unknown), reported as RecoveryDone, and again while some stay open. While
// such a pass is already due, it does nothing: that pass looks every submission up.
func (e *Engine) RecoverAfter(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.resolving {
		return
	}
	e.resolving = true
	e.goRun(func() {
		defer func() {
			e.mu.Lock()
			e.resolving = false
			e.mu.Unlock()
		}()
		if e.sleep(d) {
			e.recoverPass(false)
		}
	})
}

// Authenticate signs in (or renews the token) now: bad credentials surface at once.
func (e *Engine) Authenticate(ctx context.Context) error {
	ctx, cancel := e.call(ctx)
	defer cancel()
	return Authenticate(ctx, e.sess.Client)
}

// TokenState is the access token's state (cached, expiry, the last renewal's failure).
func (e *Engine) TokenState() api.TokenState { return e.sess.Client.TokenState() }

// LoadProjects lists wallet's projects for the new-charge form (LoadProjects).
func (e *Engine) LoadProjects(ctx context.Context, wallet string) ([]api.Project, error) {
	ctx, cancel := e.call(ctx)
	defer cancel()
	return LoadProjects(ctx, e.sess.Client, wallet)
}

// CreateCharge creates the charge of d with its Idempotency-Key (CreateCharge). ctx bounds
// it; the engine's end does not cut it (its submission stays pending and is recovered).
func (e *Engine) CreateCharge(ctx context.Context, d Draft) Created {
	return CreateCharge(ctx, e.sess.Client, e.sess.Store, d, e.opt.Now)
}
