package workflow

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// Webhook is how a session receives the service's webhooks.
type Webhook struct {
	// Listen is the receiver's address (host:port). Listener, when set, is used instead: an
	// address already listening (demo mode registers it with the emulator before it serves).
	Listen   string
	Listener net.Listener
	// Secret verifies the deliveries' signatures.
	Secret api.Secret
	// TLSCert and TLSKey, both or neither, make the receiver serve HTTPS.
	TLSCert, TLSKey string
	// SignatureHeader is a header the receiver reads the signature from before the service's
	// own ("" for those only).
	SignatureHeader string
	// Tolerance is how far a delivery's timestamp may be from the clock (0: the receiver's
	// default, api.DefaultWebhookTolerance).
	Tolerance time.Duration
	// Exposed reports that the receiver listens beyond loopback over plain HTTP: the session
	// says so (Session.WebhookExposed).
	Exposed bool
	// Options are added after the receiver's settings above (e.g. a test clock).
	Options []api.ReceiverOption
	// Forward, when set, wraps the session's intake: the receiver hands each verified delivery
	// to the sink it returns (the hub publishes to JetStream after the intake's commit), and
	// answers 200 once that sink returned nil.
	Forward func(intake api.EventSink) api.EventSink
}

// receiverOptions are the receiver settings of w, after extra.
func (w *Webhook) receiverOptions(extra ...api.ReceiverOption) []api.ReceiverOption {
	opts := append([]api.ReceiverOption(nil), extra...)
	if w == nil {
		return opts
	}
	if w.SignatureHeader != "" {
		opts = append(opts, api.WithSignatureHeader(w.SignatureHeader))
	}
	if w.Tolerance > 0 {
		opts = append(opts, api.WithTolerance(w.Tolerance))
	}
	return append(opts, w.Options...)
}

// Receiving is what a session receives webhooks with once its receiver runs.
type Receiving struct {
	// Intake records the verified events in the session's store (the session holds the
	// profile's receiver lock).
	Intake *state.Intake
	// Stats reports the receiver's counters.
	Stats func() api.ReceiverStats
	// URL is where the receiver listens, e.g. "http://127.0.0.1:8787/webhook".
	URL string
	// Notice is a warning to show; "" when none.
	Notice string
}

// listenRetryFor is how long the receiver retries its listen address while it is in use: the
// window that held the profile's inbox may not have released the port yet. (A variable for tests.)
var listenRetryFor = 5 * time.Second

// ErrWebhookAddrInUse reports a receiver that could not listen because another program (or
// another profile's pixdash) holds its address: the session opens without a receiver.
var ErrWebhookAddrInUse = errors.New("the webhook address is in use by another program")

// receiver runs one session's webhook receiver: it holds the profile's inbox lock while it
// listens, and close releases both. start may be called again (the session takes the receiver
// over when another window lets go), never after close.
type receiver struct {
	store   *state.Store
	profile string
	webhook *Webhook
	logger  *slog.Logger

	life context.Context // the receiver's lifetime; cancelled by close
	stop context.CancelFunc

	mu       sync.Mutex
	closed   bool
	listener net.Listener // Webhook.Listener until a start takes it
	intake   *state.Intake
	served   chan struct{}   // closed when Serve returned
	env      api.Environment // the profile's: events from the other environment are refused
}

func newReceiver(store *state.Store, profile string, w *Webhook, logger *slog.Logger) *receiver {
	life, stop := context.WithCancel(context.Background())
	return &receiver{store: store, profile: profile, webhook: w, logger: logger, life: life, stop: stop, listener: w.Listener}
}

// start takes the profile's receiver lock and serves the receiver on the webhook's address
// (HTTPS with TLSCert and TLSKey), retrying the listen for listenRetryFor while the address is
// in use. It returns an error matching state.ErrReceiverBusy while another process receives;
// on any other failure it releases the lock again. A delivery is answered 200 once its row is
// committed to the store; a copy of a known eventId is only counted.
func (r *receiver) start(ctx context.Context) (*Receiving, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.life, cancel)() // close interrupts a start under way
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, errors.New("webhook receiver: the session is closed")
	case r.intake != nil:
		return nil, errors.New("webhook receiver: already receiving")
	}
	var tlsConf *tls.Config
	if r.webhook.TLSCert != "" && r.webhook.TLSKey != "" {
		c, err := api.WebhookTLSConfig(r.webhook.TLSCert, r.webhook.TLSKey)
		if err != nil {
			return nil, err
		}
		tlsConf = c
	}
	intake, err := r.store.OpenIntake()
	if err != nil {
		return nil, err
	}
	ln := r.listener
	r.listener = nil
	if ln == nil {
		if ln, err = listenRetrying(ctx, r.webhook.Listen, listenRetryFor); err != nil {
			_ = intake.Close()
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, fmt.Errorf("webhook receiver: %w: %s (%w)", ErrWebhookAddrInUse, r.webhook.Listen, err)
			}
			return nil, fmt.Errorf("webhook receiver: %w", err)
		}
	}
	var sink api.EventSink = intake
	if r.webhook.Forward != nil {
		sink = r.webhook.Forward(intake)
	}
	recv := api.NewReceiver(r.webhook.Secret, r.webhook.receiverOptions(api.WithSink(sink), api.WithServerLog(r.logger), api.WithEnvironment(r.env))...)
	served := make(chan struct{})
	go func() {
		defer close(served)
		var err error
		if tlsConf != nil {
			err = recv.ServeTLS(r.life, ln, tlsConf)
		} else {
			err = recv.Serve(r.life, ln)
		}
		if err != nil {
			r.logger.Error("webhook receiver stopped", "profile", r.profile, "err", err)
		}
	}()
	r.intake, r.served = intake, served
	scheme := "http"
	if tlsConf != nil {
		scheme = "https"
	}
	r.logger.Info("webhook receiver started", "profile", r.profile, "addr", ln.Addr().String(), "tls", tlsConf != nil)
	return &Receiving{Intake: intake, Stats: recv.Stats, URL: scheme + "://" + ln.Addr().String() + api.WebhookPath}, nil
}

// close stops the receiver: the listener closes at once, deliveries in flight get up to 5 s
// (each is committed or refused), then the receiver lock is released so another window can
// take over.
func (r *receiver) close() {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.listener != nil {
		_ = r.listener.Close()
		r.listener = nil
	}
	if r.served != nil {
		<-r.served
	}
	if r.intake != nil {
		_ = r.intake.Close()
	}
}

// listenRetrying listens on addr, trying again while the address is in use, until patience runs
// out or ctx is done.
func listenRetrying(ctx context.Context, addr string, patience time.Duration) (net.Listener, error) {
	var lc net.ListenConfig
	deadline := time.Now().Add(patience)
	for {
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return ln, err
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}
