package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"pixdash/state"
	"pixdash/state/hub"
)

// HubLink is how a session joins the shop's hub as a counter.
type HubLink struct {
	// Link is the hub's NATS and this counter's credentials.
	Link hub.Link
	// Counter is this counter's name, unique in the shop.
	Counter string
	// Wallets are the wallets whose events the counter receives; nil for every wallet.
	Wallets []string
	// AckWait is how long the server waits for an acknowledgement before it delivers again
	// (hub.DefaultAckWait when 0).
	AckWait time.Duration
}

// HubCounter is a session's running link to the hub: a durable consumer committing the
// profile's events to the session's store through the webhook intake (so the same read-back
// runs before anything counts), and the announcer of the charges this pixdash creates.
type HubCounter struct {
	counter *hub.Counter
	nc      *nats.Conn
	store   *state.Store
	name    string
	log     *slog.Logger
	intake  *state.Intake // opened by the link; nil when it uses the session's
	stop    context.CancelFunc
	wg      sync.WaitGroup

	mu        sync.Mutex
	queue     map[string]state.Charge // created here, not announced yet
	announced map[string]bool
	wake      chan struct{}
}

// ErrHubElsewhere reports a profile whose hub events another pixdash window already receives
// (it holds the profile's receiver lock): this window shows them through the shared database.
var ErrHubElsewhere = errors.New("another pixdash receives this profile's hub events")

// AttachHub links session s to the hub as a counter: it connects, starts the durable consumer
// and announces every charge s creates from now on (and each pending one it creates while the
// hub is away, once it is back). The session's Close stops the link before the store closes.
// With another window holding the profile's receiver lock it returns ErrHubElsewhere.
func AttachHub(ctx context.Context, s *Session, l HubLink, logger *slog.Logger) (*HubCounter, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if l.Counter == "" {
		l.Counter = s.Profile
	}
	if l.Link.Name == "" {
		l.Link.Name = "pixdash " + l.Counter
	}
	h := &HubCounter{store: s.Store, name: l.Counter, log: logger, queue: map[string]state.Charge{},
		announced: map[string]bool{}, wake: make(chan struct{}, 1)}
	intake := s.Intake
	if intake == nil {
		var err error
		if intake, err = s.Store.OpenIntake(); err != nil {
			if errors.Is(err, state.ErrReceiverBusy) {
				return nil, ErrHubElsewhere
			}
			return nil, err
		}
		h.intake = intake
	}
	fail := func(err error) (*HubCounter, error) {
		if h.intake != nil {
			_ = h.intake.Close()
		}
		if h.nc != nil {
			h.nc.Close()
		}
		return nil, err
	}
	nc, js, err := l.Link.JetStream(ctx, nats.RetryOnFailedConnect(true)) // a hub away now is waited for
	if err != nil {
		return fail(err)
	}
	h.nc = nc
	c, err := hub.NewCounter(js, hub.CounterOptions{Name: l.Counter, Env: s.Env, Wallets: l.Wallets,
		Intake: intake, Charges: s.Store, Logger: logger, AckWait: l.AckWait})
	if err != nil {
		return fail(err)
	}
	h.counter = c
	life, stop := context.WithCancel(context.Background())
	h.stop = stop
	s.Store.OnChargeCreated(h.created)
	h.wg.Add(2)
	go func() { defer h.wg.Done(); _ = c.Run(life) }()
	go func() { defer h.wg.Done(); h.announce(life) }()
	prev := s.Close
	var once sync.Once
	s.Close = func() {
		once.Do(h.Close)
		if prev != nil {
			prev()
		}
	}
	s.Hub = h
	logger.Info("hub link started", "profile", s.Profile, "counter", l.Counter, "link", l.Link.String())
	return h, nil
}

// Status is the hub link's state for the header: connected, reconnecting (with the last
// error), and the lag (messages not yet committed here).
func (h *HubCounter) Status(ctx context.Context) hub.Status { return h.counter.Status(ctx) }

// Counter is this counter's name.
func (h *HubCounter) Counter() string { return h.name }

// Close stops the link: the consumer hands back what it holds uncommitted, the connection
// closes, and the intake the link opened is released.
func (h *HubCounter) Close() {
	h.store.OnChargeCreated(nil)
	h.stop()
	h.wg.Wait()
	h.nc.Close()
	if h.intake != nil {
		_ = h.intake.Close()
	}
}

// created queues a charge created here for announcement (called on the store's writer path:
// no blocking).
func (h *HubCounter) created(c state.Charge) {
	h.mu.Lock()
	if !h.announced[c.ID] {
		h.queue[c.ID] = c
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// announce publishes the queued charges until ctx ends, retrying every second while the hub
// cannot be reached.
func (h *HubCounter) announce(ctx context.Context) {
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-retry.C:
		}
		h.mu.Lock()
		batch := make([]state.Charge, 0, len(h.queue))
		for _, c := range h.queue {
			batch = append(batch, c)
		}
		h.mu.Unlock()
		failed := false
		for _, c := range batch {
			if err := h.counter.PublishCharge(ctx, hub.NoteOf(c, h.name)); err != nil {
				if ctx.Err() != nil {
					return
				}
				failed = true
				h.log.Warn("hub: announcing a charge failed; retrying", "charge", c.ID, "err", err)
				continue
			}
			h.mu.Lock()
			delete(h.queue, c.ID)
			h.announced[c.ID] = true
			h.mu.Unlock()
		}
		if failed {
			retry.Reset(time.Second)
		}
	}
}

// String names the link without its credentials.
func (h *HubCounter) String() string { return fmt.Sprintf("hub counter %s", h.name) }
