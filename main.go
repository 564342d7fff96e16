// Command pixdash is a terminal dashboard for merchants of a PIX payment API.
//
//	pixdash [--config FILE] [--profile NAME] [--demo]   the dashboard
//	pixdash sandbox [--addr ADDR] [--fixture FILE] [--print-fixture]
//	pixdash config init | check [--config FILE]
//	pixdash version
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/config"
	"pixdash/state"
	"pixdash/ui"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches the subcommand and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "sandbox":
			return runSandbox(args[1:], stdout, stderr)
		case "config":
			return runConfig(args[1:], stdout, stderr)
		case "events":
			return runEvents(args[1:], stdout, stderr)
		case "version", "--version":
			fmt.Fprintf(stdout, "pixdash %s\n", api.Version)
			return 0
		case "help", "-h", "--help":
			usage(stdout)
			return 0
		}
	}
	return runDashboard(args, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `pixdash: a terminal dashboard for PIX charges.

Usage:
  pixdash [--config FILE] [--profile NAME] [--demo]   open the dashboard
  pixdash sandbox [--addr 127.0.0.1:8080] [--fixture FILE] [--print-fixture]
  pixdash config init [--config FILE]                 write a commented example config (mode 0600)
  pixdash config check [--config FILE]                validate every profile and try to sign in
  pixdash events prune --before YYYY-MM-DD [--profile NAME] [--config FILE]
                                                      remove the profile's webhook events received before that day
  pixdash version

With no config file, the dashboard starts in demo mode against the built-in sandbox emulator.
Secrets are never read from flags: use client_secret_env or client_secret_cmd in the config.
`)
}

func runDashboard(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("pixdash", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFlag := fs.String("config", "", "config file (default $XDG_CONFIG_HOME/pixdash/config.toml, or $PIXDASH_CONFIG)")
	profile := fs.String("profile", "", "profile to open (default $PIXDASH_PROFILE, then default_profile)")
	demo := fs.Bool("demo", false, "force demo mode: the built-in sandbox emulator, nothing kept")
	debug := fs.Bool("debug", false, "write a structured debug log (secrets redacted) to $XDG_STATE_HOME/pixdash/debug.log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pixdash: unknown command %q (try pixdash help)\n", fs.Arg(0))
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()

	logger := slog.New(slog.DiscardHandler)
	if *debug {
		l, closeLog, path, err := openDebugLog(config.StateDir(os.Getenv))
		if err != nil {
			fmt.Fprintf(stderr, "pixdash: --debug: %v\n", err)
			return 1
		}
		defer closeLog()
		// Text from the service, webhooks and the config reaches the log: sanitized like the screen.
		logger = slog.New(ui.SafeLogHandler(l.Handler()))
		fmt.Fprintf(stderr, "pixdash: debug log at %s\n", path)
	}
	opts := ui.Options{Lang: ui.LangEN, CustomerLang: ui.LangPT, Logger: logger}
	var sess *ui.Session
	path, explicit := config.Locate(*cfgFlag, os.Getenv)
	cfg, err := config.Load(path)
	switch {
	case *demo:
		cfg = nil
	case err != nil && errors.Is(err, os.ErrNotExist) && !explicit:
		cfg = nil
	case err != nil:
		fmt.Fprintf(stderr, "pixdash: %v\n", err)
		return 1
	}
	if cfg == nil {
		s, _, err := ui.DemoSession(ctx, ui.DemoOptions{
			ClientOptions: []api.Option{api.WithLogger(logger)},
			ServerOptions: []sandbox.Option{sandbox.WithLogger(logger)},
		})
		if err != nil {
			fmt.Fprintf(stderr, "pixdash: %v\n", err)
			return 1
		}
		sess = s
	} else {
		opts.Lang, opts.CustomerLang = ui.ParseLang(cfg.Language), ui.ParseLang(cfg.CustomerLanguage)
		p, err := chosenProfile(cfg, *profile)
		if err != nil {
			fmt.Fprintf(stderr, "pixdash: %v\n", err)
			return 1
		}
		s, err := openProfile(ctx, p, config.StateDir(os.Getenv), logger)
		if err != nil {
			fmt.Fprintf(stderr, "pixdash: profile %s: %v\n", p.Name, err)
			return 1
		}
		sess = s
		for _, q := range cfg.Profiles {
			opts.Profiles = append(opts.Profiles, ui.ProfileInfo{Name: q.Name, Env: q.Environment})
		}
		opts.OpenProfile = func(ctx context.Context, name string) (*ui.Session, error) {
			q, err := cfg.Profile(name)
			if err != nil {
				return nil, err
			}
			return openProfile(ctx, q, config.StateDir(os.Getenv), logger)
		}
	}
	opts.Session = sess
	m := ui.New(opts)
	_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	m.Close()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		fmt.Fprintf(stderr, "pixdash: %v\n", err)
		return 1
	}
	return 0
}

// openProfile resolves the profile's secrets and builds its session: client, state, receiver.
func openProfile(ctx context.Context, p *config.Profile, stateDir string, logger *slog.Logger) (*ui.Session, error) {
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	secret, err := p.ClientSecret(rctx)
	if err != nil {
		return nil, err
	}
	client, err := api.NewClient(p.BaseURL, p.ClientID, secret, api.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	logger.Info("profile opened", "profile", p.Name, "environment", p.Environment, "client", client)
	s := &ui.Session{
		Profile: p.Name, Env: p.Environment, ReadOnly: p.ReadOnly, Client: client,
		Wallet: p.SubAccount, PixFee: p.PixFee, HasPixFee: p.HasPixFee,
		DefaultDescription: p.DefaultDescription, EventRetentionDays: p.EventRetentionDays,
	}
	store, err := state.Open(ctx, stateDir, p.Name, state.WithLocation(time.Local))
	if err != nil {
		return nil, err
	}
	s.Imported = store.Imported()
	s.Store = store
	s.Close = func() { _ = store.Close() }
	if isLoopbackURL(p.BaseURL) && p.Environment == api.Sandbox {
		// A local sandbox server is the emulator (pixdash sandbox): `$` can simulate payments.
		s.Sandbox = sandbox.NewControl(client)
	}
	if p.Webhook.Enabled() {
		wsecret, err := p.Webhook.Secret(rctx)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.WebhookTolerance = p.Webhook.Tolerance
		if p.Webhook.PlainBeyondLoopback() {
			s.WebhookExposed = p.Webhook.Listen
		}
		pr := newProfileReceiver(store, p, wsecret, logger)
		// The receiver stops (port and inbox released) before the store closes.
		s.Close = func() { pr.close(); _ = store.Close() }
		r, err := pr.start(rctx)
		switch {
		case errors.Is(err, state.ErrReceiverBusy):
			// Its events reach this window through the shared database; when it quits, this
			// window takes the receiver over (the dashboard calls TakeOver every few seconds).
			s.Notice = strings.TrimSpace(s.Notice + " Another pixdash receives this profile's webhooks; this window shows the events it saves, and takes over when that one quits.")
			s.ReceiverElsewhere = true
			s.TakeOver = pr.start
		case err != nil:
			s.Close()
			return nil, err
		default:
			s.Intake, s.ReceiverStats, s.WebhookURL = r.Intake, r.Stats, r.URL
			if r.Notice != "" {
				s.Notice = strings.TrimSpace(s.Notice + " " + r.Notice)
			}
		}
	}
	return s, nil
}

// listenRetryFor is how long the receiver retries its listen address while it is in use: the
// window that held the profile's inbox may not have released the port yet.
const listenRetryFor = 5 * time.Second

// profileReceiver runs one profile's webhook receiver for one session: it holds the profile's
// inbox lock while it listens, and close releases both. start may be called again (the session
// takes the receiver over when another window lets go), never after close.
type profileReceiver struct {
	store   *state.Store
	profile string
	webhook *config.Webhook
	secret  api.Secret
	logger  *slog.Logger

	life context.Context // the receiver's lifetime; cancelled by close
	stop context.CancelFunc

	mu     sync.Mutex
	closed bool
	intake *state.Intake
	served chan struct{} // closed when Serve returned
}

func newProfileReceiver(store *state.Store, p *config.Profile, secret api.Secret, logger *slog.Logger) *profileReceiver {
	life, stop := context.WithCancel(context.Background())
	return &profileReceiver{store: store, profile: p.Name, webhook: p.Webhook, secret: secret, logger: logger, life: life, stop: stop}
}

// start takes the profile's receiver lock and serves the receiver on the profile's listen
// address (HTTPS with tls_cert and tls_key), retrying the listen for listenRetryFor while the
// address is in use. It returns an error matching state.ErrReceiverBusy while another pixdash
// receives; on any other failure it releases the lock again. A delivery is answered 200 once
// its row is committed to the profile's database; a copy of a known eventId is only counted.
func (r *profileReceiver) start(ctx context.Context) (*ui.Receiving, error) {
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
	if r.webhook.TLS() {
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
	ln, err := listenRetrying(ctx, r.webhook.Listen, listenRetryFor)
	if err != nil {
		_ = intake.Close()
		return nil, fmt.Errorf("webhook receiver: %w", err)
	}
	recv := api.NewReceiver(r.secret, receiverOptions(r.webhook, api.WithSink(intake), api.WithServerLog(r.logger))...)
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
	return &ui.Receiving{Intake: intake, Stats: recv.Stats, URL: scheme + "://" + ln.Addr().String() + api.WebhookPath}, nil
}

// close stops the receiver: the listener closes at once, deliveries in flight get up to 5 s
// (each is committed or refused), then the receiver lock is released so another window can
// take over.
func (r *profileReceiver) close() {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
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

// receiverOptions are the receiver settings of a profile's webhook table: the extra signature
// header it names, if any, and its timestamp tolerance (the receiver's default when unset).
func receiverOptions(w *config.Webhook, extra ...api.ReceiverOption) []api.ReceiverOption {
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
	return opts
}

// openDebugLog opens (appending, mode 0600) the debug log under the state directory. Secrets are
// api.Secret values, whose LogValue redacts them, so no handler option is needed for that.
func openDebugLog(stateDir string) (*slog.Logger, func(), string, error) {
	if stateDir == "" {
		return nil, nil, "", errors.New("no state directory: set XDG_STATE_HOME or HOME")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, nil, "", err
	}
	path := filepath.Join(stateDir, "debug.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, "", err
	}
	l := slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l.Info("pixdash started", "version", api.Version)
	return l, func() { _ = f.Close() }, path, nil
}

func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func runSandbox(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pixdash sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	fixture := fs.String("fixture", "", "fixture file (TOML); default: the built-in demo fixture")
	printFx := fs.Bool("print-fixture", false, "print the built-in default fixture and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *printFx {
		_, _ = stdout.Write(sandbox.DefaultFixtureTOML())
		return 0
	}
	fx := sandbox.DefaultFixture()
	if *fixture != "" {
		data, err := os.ReadFile(*fixture)
		if err != nil {
			fmt.Fprintf(stderr, "pixdash sandbox: %v\n", err)
			return 1
		}
		if fx, err = sandbox.ParseFixture(data); err != nil {
			fmt.Fprintf(stderr, "pixdash sandbox: %s: %v\n", *fixture, err)
			return 1
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	srv := sandbox.New(fx)
	defer srv.Close()
	err := sandbox.ListenAndServe(ctx, *addr, srv, func(base string) {
		fmt.Fprintf(stdout, "pixdash sandbox emulator serving %s (Ctrl+C stops)\n\nDemo credentials:\n", base)
		for _, a := range fx.Accounts {
			for _, c := range a.Credentials {
				// Fixture secrets are demo values meant to be shown.
				fmt.Fprintf(stdout, "  %-22s %-22s %s\n", c.ClientID, c.ClientSecret.Reveal(), credentialNote(a.Environment, c))
			}
		}
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "pixdash sandbox: %v\n", err)
		return 1
	}
	return 0
}

func credentialNote(env string, c sandbox.CredentialFixture) string {
	note := env
	switch {
	case c.Revoked:
		note += ", revoked"
	default:
		note += ", " + fmt.Sprint(c.Permissions)
		if c.SubAccountAccess {
			note += ", sub-account access on"
		} else {
			note += ", sub-account access off"
		}
	}
	return note
}

func runConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "pixdash config: say init or check")
		return 2
	}
	fs := flag.NewFlagSet("pixdash config "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFlag := fs.String("config", "", "config file (default $XDG_CONFIG_HOME/pixdash/config.toml, or $PIXDASH_CONFIG)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	path, _ := config.Locate(*cfgFlag, os.Getenv)
	switch args[0] {
	case "init":
		if err := config.WriteExample(path); err != nil {
			fmt.Fprintf(stderr, "pixdash config init: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s (mode 0600); edit it, then run: pixdash config check\n", path)
		return 0
	case "check":
		return checkConfig(path, stdout, stderr)
	}
	fmt.Fprintf(stderr, "pixdash config: unknown subcommand %q (init or check)\n", args[0])
	return 2
}

// checkConfig validates the file, resolves every profile's secrets (never printing them) and tries POST /auth.
func checkConfig(path string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d profile(s)\n", path, len(cfg.Profiles))
	failed := 0
	for _, p := range cfg.Profiles {
		res := checkProfile(p)
		if res != nil {
			failed++
			fmt.Fprintf(stdout, "  ✖ %-16s %-10s %v\n", p.Name, p.Environment, res)
			continue
		}
		fmt.Fprintf(stdout, "  ✔ %-16s %-10s signed in to %s\n", p.Name, p.Environment, p.BaseURL)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stdout, "warning: %v\n", w)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func checkProfile(p *config.Profile) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	secret, err := p.ClientSecret(ctx)
	if err != nil {
		return err
	}
	if p.Webhook.Enabled() {
		if _, err := p.Webhook.Secret(ctx); err != nil {
			return err
		}
	}
	c, err := api.NewClient(p.BaseURL, p.ClientID, secret)
	if err != nil {
		return err
	}
	if err := c.Authenticate(ctx); err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	return nil
}

// runEvents runs "pixdash events prune": it removes a profile's webhook events received before
// a day (local time) from its database; charges are kept.
func runEvents(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "prune" {
		fmt.Fprintln(stderr, "usage: pixdash events prune --before YYYY-MM-DD [--profile NAME] [--config FILE]")
		return 2
	}
	fs := flag.NewFlagSet("pixdash events prune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFlag := fs.String("config", "", "config file (default $XDG_CONFIG_HOME/pixdash/config.toml, or $PIXDASH_CONFIG)")
	profile := fs.String("profile", "", "profile whose events to remove (default $PIXDASH_PROFILE, then default_profile)")
	beforeFlag := fs.String("before", "", "remove the events received before this day, YYYY-MM-DD (local time)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pixdash events prune: unexpected %q\n", fs.Arg(0))
		return 2
	}
	before, err := time.ParseInLocation("2006-01-02", *beforeFlag, time.Local)
	if err != nil {
		fmt.Fprintln(stderr, "pixdash events prune: --before must be a day like 2025-01-31")
		return 2
	}
	path, _ := config.Locate(*cfgFlag, os.Getenv)
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "pixdash: %v\n", err)
		return 1
	}
	p, err := chosenProfile(cfg, *profile)
	if err != nil {
		fmt.Fprintf(stderr, "pixdash: %v\n", err)
		return 1
	}
	ctx := context.Background()
	store, err := state.Open(ctx, config.StateDir(os.Getenv), p.Name)
	if err != nil {
		fmt.Fprintf(stderr, "pixdash: profile %s: %v\n", p.Name, err)
		return 1
	}
	defer store.Close()
	n, err := store.PruneEvents(ctx, before)
	if err != nil {
		fmt.Fprintf(stderr, "pixdash: profile %s: %v\n", p.Name, err)
		return 1
	}
	fmt.Fprintf(stdout, "Removed %d events received before %s from profile %s; charges are kept.\n", n, before.Format("2006-01-02"), p.Name)
	return 0
}

// chosenProfile is the profile --profile names, else $PIXDASH_PROFILE, else the config's default.
func chosenProfile(cfg *config.Config, flagValue string) (*config.Profile, error) {
	name := flagValue
	if name == "" {
		name = os.Getenv("PIXDASH_PROFILE")
	}
	return cfg.Profile(name)
}
