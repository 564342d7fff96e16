package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
	"pixdash/state"
)

// ChargeTracker keeps the charges other counters announce (*state.Store implements it).
type ChargeTracker interface {
	TrackRemoteCharge(ctx context.Context, rc state.RemoteCharge) (state.Charge, bool, error)
}

// CounterOptions configure a Counter.
type CounterOptions struct {
	// Name is the counter's name, unique in the shop: its durable consumer is DurableName(Name),
	// and the charges it announces carry it.
	Name string
	// Env is the profile's environment; the counter reads that environment's stream only.
	Env api.Environment
	// Wallets are the wallets the counter shows; empty for every wallet (the owner's screen).
	Wallets []string
	// Intake commits an event to the counter's store (the profile's *state.Intake: the same
	// intake a webhook receiver uses, so the same read-back runs before anything counts). An
	// intake with AcceptBatch, as *state.Intake has, is handed each batch's events in one call,
	// committed in one transaction.
	Intake api.EventSink
	// Charges keeps the charges other counters announce; nil ignores them.
	Charges ChargeTracker
	// Logger receives the counter's log (discarded when nil).
	Logger *slog.Logger
	// Batch is the most messages committed together (DefaultBatch when 0).
	Batch int
	// AckWait is how long the server waits for an acknowledgement before it delivers a message
	// again (DefaultAckWait when 0): a counter killed mid-batch gets it back after that.
	AckWait time.Duration
	// OnCommitted, when set, runs after each message was committed and acknowledged (tests and
	// benchmarks measure with it).
	OnCommitted func(subject string, data []byte)
}

// Defaults of CounterOptions.
const (
	DefaultBatch   = 256
	DefaultAckWait = 30 * time.Second
	maxAckPending  = 4096
)

// DurableName is the durable consumer of counter name: "counter-" and the name as a token.
func DurableName(name string) string { return "counter-" + Token(name) }

// Counter is a durable JetStream consumer that commits a profile's events to a counter's
// store: each message is acknowledged only after its commit, so after a sleep, a network drop
// or a restart the counter resumes from its last acknowledgement; a message delivered again
// is recorded once (the store keeps an eventId once).
type Counter struct {
	js   jetstream.JetStream
	o    CounterOptions
	log  *slog.Logger
	pubr *Publisher

	state     atomic.Value // string: see Status
	lastErr   atomic.Value // string
	committed atomic.Uint64
	ignored   atomic.Uint64
	retried   atomic.Uint64
	cons      atomic.Pointer[jetstream.Consumer]
}

// NewCounter makes a counter on js; Run consumes.
func NewCounter(js jetstream.JetStream, o CounterOptions) (*Counter, error) {
	if err := checkEnv(o.Env); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.Name) == "" {
		return nil, errors.New("hub: a counter needs a name")
	}
	if o.Intake == nil {
		return nil, errors.New("hub: a counter needs its store's intake")
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	o.Wallets = slices.Clone(o.Wallets)
	pubr, err := NewPublisher(js, o.Env, nil)
	if err != nil {
		return nil, err
	}
	c := &Counter{js: js, o: o, log: o.Logger, pubr: pubr}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.state.Store(StateConnecting)
	c.lastErr.Store("")
	return c, nil
}

// ConsumerConfig is the durable consumer of the counter: explicit acknowledgements, every
// message of its wallets from the start of the stream the first time, from its last
// acknowledgement after.
func (c *Counter) ConsumerConfig() jetstream.ConsumerConfig {
	cfg := jetstream.ConsumerConfig{
		Durable:       DurableName(c.o.Name),
		Description:   "pixdash counter " + c.o.Name,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.o.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: maxAckPending,
	}
	var filters []string
	for _, w := range c.o.Wallets {
		filters = append(filters, WalletFilter(c.o.Env, w))
	}
	slices.Sort(filters)
	filters = slices.Compact(filters)
	switch len(filters) {
	case 0:
		cfg.FilterSubject = EnvFilter(c.o.Env)
	case 1:
		cfg.FilterSubject = filters[0] // the API subject then names it: servers can permit it
	default:
		cfg.FilterSubjects = filters
	}
	return cfg
}

// States of a counter's link (Status.State).
const (
	StateConnecting   = "connecting"
	StateConnected    = "connected"
	StateReconnecting = "reconnecting"
	StateStopped      = "stopped"
)

// Status is a counter's link as the header shows it.
type Status struct {
	State string
	// Lag is how many messages wait for this counter (not delivered yet, or delivered and not
	// acknowledged); -1 when unknown.
	Lag int64
	// Committed counts the messages this counter committed and acknowledged since it started.
	Committed uint64
	// Retried counts the messages handed back after a failed commit (they come again).
	Retried uint64
	// Err is the last error met, until a batch commits whole again ("" when none).
	Err string
}

// Status reports the link's state; it asks the server for the lag, bounded by ctx.
func (c *Counter) Status(ctx context.Context) Status {
	st := Status{State: c.state.Load().(string), Lag: -1, Committed: c.committed.Load(), Retried: c.retried.Load(), Err: c.lastErr.Load().(string)}
	if st.State == StateConnected && c.js.Conn().Status() != nats.CONNECTED {
		st.State = StateReconnecting
	}
	if p := c.cons.Load(); p != nil && st.State == StateConnected {
		if info, err := (*p).Info(ctx); err == nil {
			st.Lag = int64(info.NumPending) + int64(info.NumAckPending)
		}
	}
	return st
}

// Run consumes until ctx ends: it creates (or updates) the durable consumer, retrying while
// the hub cannot be reached, and commits what arrives. Messages received and not committed when
// ctx ends are handed back to the server at once.
func (c *Counter) Run(ctx context.Context) error {
	defer c.state.Store(StateStopped)
	backoff := 250 * time.Millisecond
	for ctx.Err() == nil {
		err := c.consume(ctx)
		if ctx.Err() != nil {
			break
		}
		c.state.Store(StateReconnecting)
		c.lastErr.Store(err.Error())
		c.log.Warn("hub counter: consuming stopped, retrying", "counter", c.o.Name, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return nil
}

// consume runs one consumer until ctx ends or the subscription fails.
func (c *Counter) consume(ctx context.Context) error {
	cons, err := c.js.CreateOrUpdateConsumer(ctx, StreamName(c.o.Env), c.ConsumerConfig())
	if err != nil {
		return fmt.Errorf("hub: consumer %s: %w", DurableName(c.o.Name), err)
	}
	c.cons.Store(&cons)
	msgs := make(chan jetstream.Msg, maxAckPending+c.o.Batch)
	failed := make(chan error, 1)
	cc, err := cons.Consume(func(m jetstream.Msg) { msgs <- m },
		jetstream.PullMaxMessages(c.o.Batch),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound) {
				select {
				case failed <- err:
				default:
				}
			}
		}))
	if err != nil {
		return fmt.Errorf("hub: consuming %s: %w", DurableName(c.o.Name), err)
	}
	c.state.Store(StateConnected)
	c.lastErr.Store("")
	defer func() {
		cc.Stop()
		<-cc.Closed()
		for { // hand back what was received and not committed: the next run gets it at once
			select {
			case m := <-msgs:
				_ = m.Nak()
			default:
				return
			}
		}
	}()
	// Up to batchesInFlight batches commit at once: what arrives while a batch commits is
	// handed to the store at once and shares its next transaction (the store's writer commits
	// together the writes that wait for it), instead of waiting for the whole batch to be
	// committed, acknowledged and counted. Each message is still acknowledged only after its
	// own commit.
	slots := make(chan struct{}, batchesInFlight)
	var inFlight sync.WaitGroup
	defer inFlight.Wait() // before the deferred hand-back above: nothing committing is handed back
	for {
		var batch []jetstream.Msg
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-failed:
			return err
		case m := <-msgs:
			batch = append(make([]jetstream.Msg, 0, min(c.o.Batch, 1+len(msgs))), m)
		}
	fill:
		for len(batch) < c.o.Batch {
			select {
			case m := <-msgs:
				batch = append(batch, m)
			default:
				break fill
			}
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			for _, m := range batch {
				_ = m.Nak()
			}
			return ctx.Err()
		}
		inFlight.Add(1)
		go func() {
			defer inFlight.Done()
			defer func() { <-slots }()
			c.apply(ctx, batch)
		}()
	}
}

// batchesInFlight is how many batches a counter commits at once.
const batchesInFlight = 4

// apply commits a batch: the events through the intake (together in one call when it takes
// batches, else concurrently, so its writer commits them in one transaction), the
// announcements to the charge tracker; each message is acknowledged after its commit, handed
// back (to come again a second later) when it failed, and terminated when it can never be
// kept.
func (c *Counter) apply(ctx context.Context, batch []jetstream.Msg) {
	var failed atomic.Bool
	defer func() {
		if !failed.Load() {
			c.lastErr.Store("")
		}
	}()
	settle := func(m jetstream.Msg, err error) {
		switch {
		case err == nil:
			if aerr := m.Ack(); aerr != nil {
				c.log.Debug("hub counter: ack lost; the message comes again and is kept once", "subject", m.Subject(), "err", aerr)
			}
			c.committed.Add(1)
			if c.o.OnCommitted != nil {
				c.o.OnCommitted(m.Subject(), m.Data())
			}
		case errors.Is(err, errIgnore):
			c.ignored.Add(1)
			_ = m.Term()
			c.log.Warn("hub counter: message refused", "counter", c.o.Name, "subject", m.Subject(), "err", err)
		default:
			failed.Store(true)
			c.retried.Add(1)
			c.lastErr.Store(err.Error())
			_ = m.NakWithDelay(time.Second)
			c.log.Warn("hub counter: commit failed; the message comes again", "counter", c.o.Name, "subject", m.Subject(), "err", err)
		}
	}
	bs, batched := c.o.Intake.(batchSink)
	var (
		wg     sync.WaitGroup
		events []jetstream.Msg
		raws   [][]byte
		evs    []*api.Event
	)
	for _, m := range batch {
		ev, note, err := c.decode(m)
		switch {
		case err != nil:
			settle(m, err)
		case ev == nil && note == nil:
			settle(m, nil)
		case note != nil:
			wg.Go(func() { settle(m, c.track(ctx, note)) })
		case batched:
			events, raws, evs = append(events, m), append(raws, m.Data()), append(evs, ev)
		default:
			wg.Go(func() { settle(m, intakeErr(c.o.Intake.Accept(m.Data()))) })
		}
	}
	if len(events) > 0 {
		errs := bs.AcceptBatch(raws, evs)
		for i, m := range events {
			settle(m, intakeErr(errs[i]))
		}
	}
	wg.Wait()
}

// batchSink is an intake that commits decoded events together and tells each one's fate
// (*state.Intake implements it): a counter hands it a batch in one call, and each event is
// decoded once.
type batchSink interface {
	AcceptBatch(raws [][]byte, evs []*api.Event) []error
}

// errIgnore marks a message that can never be kept (malformed, another environment's).
var errIgnore = errors.New("hub: message refused")

// decode reads one message: an event of the counter's environment, or another counter's
// announcement; neither when there is nothing to keep (its own announcement, or it keeps
// none); an error wrapping errIgnore when it can never be kept.
func (c *Counter) decode(m jetstream.Msg) (*api.Event, *ChargeNote, error) {
	subj := m.Subject()
	if !strings.HasPrefix(subj, "pix."+Token(string(c.o.Env))+".") {
		return nil, nil, fmt.Errorf("%w: subject %q is not of the %s stream", errIgnore, subj, c.o.Env)
	}
	if strings.HasSuffix(subj, "."+KindChargeCreated) {
		var n ChargeNote
		if err := json.Unmarshal(m.Data(), &n); err != nil {
			return nil, nil, fmt.Errorf("%w: %w", errIgnore, err)
		}
		if n.Counter == c.o.Name || c.o.Charges == nil {
			return nil, nil, nil // its own, or no store for them: nothing to keep
		}
		return nil, &n, nil
	}
	ev, err := api.DecodeEvent(m.Data())
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errIgnore, err)
	}
	if ev.Environment != "" && ev.Environment != c.o.Env {
		return nil, nil, fmt.Errorf("%w: a %s event on the %s stream", errIgnore, ev.Environment, c.o.Env)
	}
	return ev, nil, nil
}

// track keeps another counter's announcement.
func (c *Counter) track(ctx context.Context, n *ChargeNote) error {
	if _, _, err := c.o.Charges.TrackRemoteCharge(ctx, n.remote()); err != nil {
		if n.ID == "" || n.Amount <= 0 {
			return fmt.Errorf("%w: %w", errIgnore, err)
		}
		return err
	}
	return nil
}

// intakeErr marks an event the intake can never keep.
func intakeErr(err error) error {
	if err != nil && errors.Is(err, api.ErrEventInvalid) {
		return fmt.Errorf("%w: %w", errIgnore, err)
	}
	return err
}

// ChargeNote announces a charge a counter created: what another counter needs to list it as
// pending and read it back from the service, never a secret or a customer's document.
type ChargeNote struct {
	ID          string    `json:"id"`
	Wallet      string    `json:"wallet"`
	Amount      api.Money `json:"amount"`
	Description string    `json:"description,omitempty"`
	Reference   string    `json:"reference,omitempty"`
	Counter     string    `json:"counter"`
	Time        time.Time `json:"time"`
}

func (n ChargeNote) remote() state.RemoteCharge {
	return state.RemoteCharge{ID: n.ID, Wallet: n.Wallet, Amount: n.Amount, Description: n.Description,
		ExternalReference: n.Reference, Counter: n.Counter, CreatedAt: n.Time}
}

// NoteOf is the announcement of charge ch created at counter.
func NoteOf(ch state.Charge, counter string) ChargeNote {
	t := ch.CreatedAt
	if t.IsZero() {
		t = time.Now()
	}
	return ChargeNote{ID: ch.ID, Wallet: state.NormalizeWallet(ch.Wallet), Amount: ch.Amount, Description: ch.Description,
		Reference: ch.ExternalReference, Counter: counter, Time: t.UTC()}
}

// PublishCharge announces a charge this counter created to every other counter (subject
// pix.<env>.<wallet>.charge_created, message id charge_created/<id>: announcing it again is
// harmless).
func (c *Counter) PublishCharge(ctx context.Context, n ChargeNote) error {
	if n.ID == "" || n.Amount <= 0 {
		return fmt.Errorf("hub: announcing a charge: no id or amount")
	}
	n.Counter = c.o.Name
	n.Wallet = state.NormalizeWallet(n.Wallet)
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return c.pubr.Publish(ctx, n.Wallet, KindChargeCreated, KindChargeCreated+"/"+n.ID, data)
}
