package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"pixdash/api/safetext"
	"pixdash/config"
	"pixdash/state"
	"pixdash/state/hub"
	"pixdash/state/workflow"
)

// hubFlags are the options of pixdash hub.
type hubFlags struct {
	config, profile              string
	nats, natsListen, natsConfig string
	maxAge, dupWindow            time.Duration
	maxBytes                     int64
	replicas                     int
	debug, syncAlways            bool
}

func newHubCmd(stdout, stderr io.Writer) *cobra.Command {
	var f hubFlags
	cmd := &cobra.Command{
		Use:   "hub",
		Short: "Receive a profile's webhooks and hand them to every counter through NATS JetStream",
		Long: `pixdash hub: the one public webhook endpoint of a profile for a shop with several counters.

It is the profile's webhook receiver (its [webhook] section: the same signature check,
timestamp window and dedupe as the dashboard's) and publishes each verified event, once
committed, to NATS JetStream under pix.<environment>.<wallet>.<kind>, with the eventId as the
message id. The service is answered 200 only after JetStream stored the event. Counters are
profiles with hub = "nats://…": each commits every event of its wallets before acknowledging
it, reads it back from the service as usual, and announces the charges it creates.

By default the hub embeds the NATS server (JetStream files under the state directory), on
127.0.0.1:4222; --nats-config gives it a nats-server configuration (accounts, permissions,
TLS). --nats URL uses an existing NATS deployment instead. Beyond loopback, TLS and
authentication are required: the hub refuses to start without them.`,
		Example: `  # a small shop: the embedded NATS server on 127.0.0.1:4222, counters on this machine
  pixdash hub --profile loja

  # counters on other machines: TLS, accounts and permissions from a nats-server config
  pixdash hub --profile loja --nats-config /etc/pixdash/hub-nats.conf --nats-listen 0.0.0.0:4222

  # an existing JetStream cluster (credentials from the profile's hub_* keys)
  pixdash hub --profile loja --nats tls://nats1.example:4222,tls://nats2.example:4222 --replicas 3`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHub(cmd.Context(), f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", configFlagHelp)
	fl.StringVar(&f.profile, "profile", "", "profile whose webhooks the hub receives (default $PIXDASH_PROFILE, then default_profile)")
	fl.StringVar(&f.nats, "nats", "", "URL of an existing NATS deployment (nats:// or tls://) instead of the embedded server; credentials from the profile's hub_* keys")
	fl.StringVar(&f.natsListen, "nats-listen", "", "address of the embedded NATS server (default 127.0.0.1:4222, or the --nats-config file's)")
	fl.StringVar(&f.natsConfig, "nats-config", "", "nats-server configuration file for the embedded server (accounts, permissions, TLS)")
	fl.DurationVar(&f.maxAge, "max-age", hub.DefaultMaxAge, "how long the stream keeps an event")
	fl.Int64Var(&f.maxBytes, "max-bytes", hub.DefaultMaxBytes, "the most the stream keeps on disk, in bytes (the oldest go first)")
	fl.DurationVar(&f.dupWindow, "duplicate-window", hub.DefaultDuplicateWindow, "how long JetStream drops a redelivered eventId (at most --max-age)")
	fl.IntVar(&f.replicas, "replicas", 1, "how many servers of a JetStream cluster keep the stream (with --nats; 3 survives losing one)")
	fl.BoolVar(&f.syncAlways, "sync-always", false, "the embedded server flushes every event to disk before acknowledging it (survives a power cut; slower)")
	fl.BoolVar(&f.debug, "debug", false, "write a structured debug log (secrets redacted) to $XDG_STATE_HOME/pixdash/debug.log")
	return cmd
}

// runHub runs the hub until SIGINT or SIGTERM.
func runHub(ctx context.Context, f hubFlags, stdout, stderr io.Writer) error {
	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	path, _ := config.Locate(f.config, os.Getenv)
	cfg, err := config.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return usageError("pixdash hub needs a config file with the profile it receives for (none at %s; pixdash config init writes one)", path)
	}
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	p, err := chosenProfile(cfg, f.profile)
	if err != nil {
		return usageError("--profile: %v", err)
	}
	if !p.Webhook.Enabled() {
		return usageError("profile %s has no webhook receiver: the hub is the profile's webhook endpoint; set listen and secret_env in [profiles.%s.webhook]", p.Name, p.Name)
	}
	stateDir := config.StateDir(os.Getenv)
	if stateDir == "" {
		return &exitError{code: exitFailure, err: errors.New("no state directory: set XDG_STATE_HOME or HOME")}
	}
	logger := slog.New(slog.DiscardHandler)
	if f.debug {
		l, closeLog, path, err := openDebugLog(stateDir)
		if err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("--debug: %w", err)}
		}
		defer closeLog()
		logger = l
		fmt.Fprintf(stderr, "pixdash: debug log at %s\n", path)
	}
	link, err := profileHubLink(ctx, p)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	link.Name = "pixdash hub " + p.Name
	natsWhere := "existing deployment"
	if f.nats != "" {
		link.URL = f.nats
		if err := link.Check(); err != nil {
			return usageError("--nats: %v", err)
		}
	} else {
		dir := filepath.Join(stateDir, "hub-"+state.ProfileFileName(p.Name), "jetstream")
		srv, err := hub.StartServer(hub.ServerOptions{Listen: f.natsListen, ConfigFile: f.natsConfig, StoreDir: dir, Logger: logger, SyncAlways: f.syncAlways})
		if errors.Is(err, hub.ErrUnprotected) {
			return usageError("%v", err)
		}
		if err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		defer srv.Shutdown()
		link.URL = srv.URL()
		natsWhere = "embedded, JetStream files in " + dir
	}
	nc, js, err := link.JetStream(ctx, nats.RetryOnFailedConnect(false))
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	defer nc.Close()
	limits := hub.Limits{MaxAge: f.maxAge, MaxBytes: f.maxBytes, DuplicateWindow: f.dupWindow, Replicas: f.replicas}
	if err := hub.EnsureStream(ctx, js, p.Environment, limits); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	pub, err := hub.NewPublisher(js, p.Environment, nil)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	s, err := openProfile(ctx, p, stateDir, logger, func(pp *workflow.Params) { pp.Webhook.Forward = pub.Wrap })
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	defer s.Close()
	switch {
	case s.ReceiverElsewhere:
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: another pixdash (a dashboard or listen) receives its webhooks; close it: the hub must be the profile's receiver", p.Name)}
	case s.ReceiverDown != "":
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %s is in use by another program", p.Name, s.ReceiverDown)}
	}
	fmt.Fprintf(stdout, "pixdash hub: profile %s (%s)\n  webhooks: %s\n  NATS:     %s (%s)\n  stream:   %s, subjects pix.%s.<wallet>.<kind>, kept %s or %d bytes, duplicates dropped for %s\n",
		safetext.Clean(p.Name), p.Environment, s.WebhookURL, link.String(), natsWhere, hub.StreamName(p.Environment), p.Environment,
		f.maxAge, f.maxBytes, min(f.dupWindow, f.maxAge))
	if s.Notice != "" {
		fmt.Fprintf(stdout, "  note:     %s\n", safetext.Clean(s.Notice))
	}
	<-ctx.Done()
	st, rs := pub.Stats(), s.ReceiverStats()
	fmt.Fprintf(stdout, "pixdash hub: stopped; %d events received, %d redeliveries dropped, %d published, %d failed publishes (answered 503)\n",
		rs.Accepted, rs.Duplicates, st.Published, st.Failed)
	return nil
}

// profileHubLink is the profile's hub link (hub and the hub_* keys; the password resolved);
// an empty URL when the profile has none.
func profileHubLink(ctx context.Context, p *config.Profile) (hub.Link, error) {
	h := p.Hub
	if h == nil {
		return hub.Link{}, nil
	}
	pw, err := h.Password(ctx)
	if err != nil {
		return hub.Link{}, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	return hub.Link{URL: h.URL, Name: "pixdash " + p.HubCounter(), User: h.User, Password: pw,
		CredsFile: h.CredsFile, NKeyFile: h.NKeyFile, CAFile: h.CAFile, CertFile: h.CertFile, KeyFile: h.KeyFile,
		InboxPrefix: h.Inbox}, nil
}

// attachProfileHub links a counter's session to its hub (hub = "nats://…"); the link keeps
// trying while the hub is away. Another window already linked is not an error: this one shows
// what that one commits.
func attachProfileHub(ctx context.Context, s *workflow.Session, p *config.Profile, logger *slog.Logger) error {
	link, err := profileHubLink(ctx, p)
	if err != nil {
		return err
	}
	_, err = workflow.AttachHub(ctx, s, workflow.HubLink{Link: link, Counter: p.HubCounter(), Wallets: p.HubWallets()}, logger)
	if errors.Is(err, workflow.ErrHubElsewhere) {
		return nil
	}
	return err
}
