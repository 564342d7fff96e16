// Command pixdash is a terminal dashboard for merchants of a PIX payment API.
//
//	pixdash [--config FILE] [--profile NAME] [--demo] [--lang LANG] [--debug]   the dashboard
//	pixdash sandbox [--addr ADDR] [--fixture FILE] [--state FILE] [--log FILE|-] [--print-fixture]
//	pixdash config init [--lang LANG] | check [--config FILE]
//	pixdash events prune --before YYYY-MM-DD [--yes|--dry-run] [--profile NAME] [--config FILE]
//	pixdash export --from YYYY-MM-DD --to YYYY-MM-DD [--wallet W|--all-wallets] [--format br|csv] [--output FILE|-] [--profile NAME] [--config FILE]
//	pixdash close [--date YYYY-MM-DD] [--width 80|48] [--lang LANG] [--csv FILE [--format csv|br]] [--print] [--offline] [--profile NAME] [--config FILE] [--debug]
//	pixdash db check | repair [--profile NAME] [--config FILE]
//	pixdash version
//
// The command line for scripts (main_*.go; README › Command line): charge create|get|list|wait,
// refund, withdraw, wallets, subaccount, projects, blocks, whoami, login, events
// list|show|resend|deliveries, listen, trigger, completion, man.
//
// The merchant's language (screens and reports) is --lang, else the config's language, else
// the locale: the first non-empty of LC_ALL, LC_MESSAGES and LANG (pt_BR.* is pt-BR, anything
// else English).
//
// Exit codes: 0 success (help included), 1 a failure at run time, 2 a mistake on the command
// line, 3 to 8 and charge wait's 10 to 12 as main_cli.go says.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/api/i18n"
	"pixdash/api/safetext"
	"pixdash/api/sandbox"
	"pixdash/config"
	"pixdash/state"
	"pixdash/state/export"
	"pixdash/state/report"
	"pixdash/state/workflow"
	"pixdash/ui"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // something failed while running
	exitUsage   = 2 // the command line is wrong
)

// exitError ends a command with code; err, when not nil, is printed first.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake on the command line (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// run parses args, runs the command they name and returns the exit code. Everything a command
// writes to stdout and stderr passes through api/safetext on its way (line breaks kept), so a
// name or a message from outside can never drive the terminal; an error's message is cleaned
// onto one line.
func run(args []string, rawStdout, rawStderr io.Writer) int {
	stdout, stderr := safetext.NewWriter(rawStdout), safetext.NewWriter(rawStderr)
	defer func() { _ = stdout.Flush(); _ = stderr.Flush() }()
	var out io.Writer = stdout
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		// The shells' completion protocol separates a word from its description with a TAB,
		// which the sanitizer would turn into a space; the words are pixdash's own.
		out = rawStdout
	}
	root := newRootCmd(out, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	code, msg := exitFailure, err
	var ee *exitError
	if errors.As(err, &ee) {
		code, msg = ee.code, ee.err
	}
	if msg != nil {
		fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), safetext.Clean(msg.Error()))
	}
	if code == exitUsage {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// noArgs refuses positional words: every command takes flags only.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		return usageError("unknown command %q", args[0])
	}
	return usageError("unexpected argument %q", args[0])
}

// configFlagHelp describes --config wherever it appears.
const configFlagHelp = "config file (default $XDG_CONFIG_HOME/pixdash/config.toml, or $PIXDASH_CONFIG)"

// newRootCmd builds the command tree; the dashboard is the root command.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var o dashboardFlags
	root := &cobra.Command{
		Use:   "pixdash",
		Short: "A terminal dashboard for PIX charges",
		Long: `pixdash: a terminal dashboard for PIX charges.

With no config file, the dashboard starts in demo mode against the built-in sandbox emulator.
Secrets are never read from flags: use client_secret_env or client_secret_cmd in the config.`,
		Version:       api.Version,
		Args:          noArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDashboard(cmd.Context(), o, stderr)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("pixdash {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%v", err) })
	f := root.Flags()
	f.StringVar(&o.config, "config", "", configFlagHelp)
	f.StringVar(&o.profile, "profile", "", "profile to open (default $PIXDASH_PROFILE, then default_profile); needs a config file")
	f.BoolVar(&o.demo, "demo", false, "force demo mode: the built-in sandbox emulator, which ends with pixdash")
	f.StringVar(&o.lang, "lang", "", `language of the merchant's screens: "en" or "pt-BR" (default: the config's language, else LC_ALL/LC_MESSAGES/LANG)`)
	f.BoolVar(&o.debug, "debug", false, "write a structured debug log (secrets redacted) to $XDG_STATE_HOME/pixdash/debug.log")
	root.AddCommand(newSandboxCmd(stdout, stderr), newConfigCmd(stdout, stderr), withEventsCommands(newEventsCmd(stdout), stdout, stderr), newExportCmd(stdout, stderr), newCloseCmd(stdout, stderr), newVersionCmd(stdout), newDBCmd(stdout), newTrainingCmd(stdout, stderr), newHubCmd(stdout, stderr))
	addCLICommands(root, stdout, stderr)
	return root
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print pixdash's version",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(stdout, versionLine()) // with the build's VCS revision when it recorded one
			return nil
		},
	}
}

// dashboardFlags are the root command's flags.
type dashboardFlags struct {
	config, profile, lang string
	demo, debug           bool
}

func runDashboard(ctx context.Context, o dashboardFlags, stderr io.Writer) error {
	if o.demo && o.profile != "" {
		return usageError("--demo and --profile exclude each other: demo mode uses no profile")
	}
	if _, err := flagLang(o.lang); err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer cancel()

	path, explicit := config.Locate(o.config, os.Getenv)
	var cfg *config.Config
	if !o.demo {
		c, err := config.Load(path)
		switch {
		case err == nil:
			cfg = c
		case errors.Is(err, os.ErrNotExist) && o.profile != "":
			return usageError("--profile %s: there is no config file at %s to define it (pixdash config init writes one; without --profile the dashboard starts in demo mode)", o.profile, path)
		case errors.Is(err, os.ErrNotExist) && !explicit:
			// No config: demo mode.
		default:
			return &exitError{code: exitFailure, err: err}
		}
	}
	var p *config.Profile
	if cfg != nil {
		var err error
		if p, err = chosenProfile(cfg, o.profile); err != nil {
			if o.profile != "" {
				return usageError("--profile: %v", err)
			}
			return &exitError{code: exitFailure, err: err}
		}
	}

	logger := slog.New(slog.DiscardHandler)
	if o.debug {
		l, closeLog, path, err := openDebugLog(config.StateDir(os.Getenv))
		if err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("--debug: %w", err)}
		}
		defer closeLog()
		// Text from the service, webhooks and the config reaches the log: sanitized like the screen.
		logger = slog.New(ui.SafeLogHandler(l.Handler()))
		fmt.Fprintf(stderr, "pixdash: debug log at %s\n", path)
	}
	opts, err := dashboardOptions(ctx, o, cfg, p, logger, os.Getenv)
	if err != nil {
		return err
	}
	// The terminal's background (asked once, before the program runs): without colours the QR
	// is drawn in the terminal's own colours and needs to know which is the light one.
	opts.DarkBackground = lipgloss.HasDarkBackground()
	stopProfiling, err := startProfiling(os.Getenv) // a developer's switch (main_profile.go)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	m := ui.New(opts)
	_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	m.Close()
	if perr := stopProfiling(); perr != nil {
		fmt.Fprintf(stderr, "pixdash: profiling: %v\n", perr)
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return &exitError{code: exitFailure, err: err}
	}
	return nil
}

// dashboardOptions opens the dashboard's session (demo mode when cfg is nil, else profile p)
// and says how the merchant's screens look: their language (merchantLang), the customer's,
// ASCII drawing for a non-UTF-8 locale, the other profiles and the export settings. o.lang
// has been checked. The terminal's background is left to the caller.
func dashboardOptions(ctx context.Context, o dashboardFlags, cfg *config.Config, p *config.Profile, logger *slog.Logger, getenv func(string) string) (ui.Options, error) {
	lang, err := merchantLang(o.lang, cfg, getenv)
	if err != nil {
		return ui.Options{}, err
	}
	opts := ui.Options{Lang: lang, CustomerLang: ui.LangPT, Logger: logger, ASCII: !utf8Locale(getenv)}
	if cfg == nil {
		s, err := openDemo(ctx, logger)
		if err != nil {
			return ui.Options{}, &exitError{code: exitFailure, err: err}
		}
		opts.Session = s
	} else {
		opts.CustomerLang = ui.ParseLang(cfg.CustomerLanguage)
		s, err := openProfile(ctx, p, config.StateDir(getenv), logger)
		if err != nil {
			return ui.Options{}, &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
		}
		opts.Session = s
		for _, q := range cfg.Profiles {
			opts.Profiles = append(opts.Profiles, ui.ProfileInfo{Name: q.Name, Env: q.Environment})
		}
		opts.OpenProfile = func(ctx context.Context, name string) (*workflow.Session, error) {
			q, err := cfg.Profile(name)
			if err != nil {
				return nil, err
			}
			return openProfile(ctx, q, config.StateDir(getenv), logger)
		}
	}
	opts.Export = exportSettings(cfg)
	return opts, nil
}

// flagLang reads --lang: "" when it is not given, a usage error when it names no language.
func flagLang(flag string) (ui.Lang, error) {
	if flag == "" {
		return "", nil
	}
	l, ok := parseLang(flag)
	if !ok {
		return "", usageError(`--lang %q: say "en" or "pt-BR"`, flag)
	}
	return l, nil
}

// merchantLang is the language of the merchant's screens and reports: --lang, then the
// config's language, then the environment's locale (LC_ALL, LC_MESSAGES, LANG); cfg is nil
// in demo mode. The customer's screens keep their own setting, customer_language.
func merchantLang(flag string, cfg *config.Config, getenv func(string) string) (ui.Lang, error) {
	if flag != "" {
		return flagLang(flag)
	}
	l, _ := parseLang(cfg.DashboardLanguage(getenv)) // always "en" or "pt-BR"
	return l, nil
}

// parseLang reads --lang with the catalog's one parser (i18n.Parse), the one the config's
// language = goes through, so both accept the same spellings.
func parseLang(s string) (ui.Lang, bool) {
	return i18n.Parse(s)
}

// openDemo starts the emulator in-process and opens demo mode's session on it: the demo
// credential, a memory store, a registered webhook receiver and the fixture's charges.
func openDemo(ctx context.Context, logger *slog.Logger) (*workflow.Session, error) {
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{
		ServerOptions: []sandbox.Option{sandbox.WithLogger(logger)},
		ClientOptions: []api.Option{api.WithLogger(logger)},
	})
	if err != nil {
		return nil, err
	}
	return workflow.Open(ctx, demoParams(d, logger))
}

// demoParams is the session of demo mode on an emulator d: what a sandbox profile without
// default_description, signature_header or tolerance would say. Closing it stops d.
func demoParams(d *sandbox.Demo, logger *slog.Logger) workflow.Params {
	track := make([]workflow.TrackRef, len(d.Seeded))
	for i, ref := range d.Seeded {
		track[i] = workflow.TrackRef(ref)
	}
	return workflow.Params{
		Profile: "demo", Env: d.Env, Demo: true,
		Client: d.Client, Simulator: d.Control,
		PixFee: d.PixFee, HasPixFee: d.HasPixFee,
		DefaultDescription: workflow.DefaultDescription,
		Webhook: &workflow.Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret,
			Tolerance: api.DefaultWebhookTolerance},
		Track: track, Logger: logger, Release: d.Close,
	}
}

// openProfile resolves the profile's secrets and opens its session: client, state, receiver,
// and the link to the shop's hub when the profile has one (hub = "nats://…"). tweak adjusts
// the session's parameters before it opens (pixdash hub puts its publisher behind the receiver).
func openProfile(ctx context.Context, p *config.Profile, stateDir string, logger *slog.Logger, tweak ...func(*workflow.Params)) (*workflow.Session, error) {
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
	params := workflow.Params{
		Profile: p.Name, Env: p.Environment, ReadOnly: p.ReadOnly,
		Wallet: p.SubAccount, PixFee: p.PixFee, HasPixFee: p.HasPixFee,
		DefaultDescription: p.DefaultDescription, EventRetentionDays: p.EventRetentionDays,
		Client: client, StateDir: stateDir, StoreOptions: []state.Option{state.WithLocation(time.Local)},
		Logger: logger, PrintCommand: p.PrintCommand,
	}
	if len(p.OnPaid) > 0 {
		params.OnPaid = &workflow.OnPaidCommand{Argv: p.OnPaid, Timeout: p.OnPaidTimeout, Hide: p.SecretEnvNames()}
	}
	if isLoopbackURL(p.BaseURL) && p.Environment == api.Sandbox {
		// A local sandbox server is the emulator (pixdash sandbox): `$` can simulate payments.
		params.Simulator = sandbox.NewControl(client)
	}
	if w := p.Webhook; w.Enabled() {
		wsecret, err := w.Secret(rctx)
		if err != nil {
			return nil, err
		}
		params.Webhook = &workflow.Webhook{
			Listen: w.Listen, Secret: wsecret, TLSCert: w.TLSCert, TLSKey: w.TLSKey,
			SignatureHeader: w.SignatureHeader, Tolerance: w.Tolerance, Exposed: w.PlainBeyondLoopback(),
		}
	}
	for _, f := range tweak {
		f(&params)
	}
	s, err := workflow.Open(ctx, params)
	if err == nil && p.Hub != nil && (params.Webhook == nil || params.Webhook.Forward == nil) { // not the hub itself
		if herr := attachProfileHub(ctx, s, p, logger); herr != nil {
			s.Close()
			return nil, fmt.Errorf("hub link: %w", herr)
		}
	}
	if err == nil && params.Simulator != nil && params.Webhook != nil && s.WebhookURL != "" {
		// A profile on a local pixdash sandbox registers its receiver there with its own secret
		// (the same call again is a no-op), so no curl is needed and a restart keeps receiving.
		if _, rerr := sandbox.NewControl(client).RegisterWebhookSecret(rctx, s.WebhookURL, "", params.Webhook.Secret); rerr != nil {
			logger.Warn("webhook not registered with the local sandbox", "url", s.WebhookURL, "err", rerr)
			s.Notice = strings.TrimSpace(s.Notice + " " + sandboxRegisterFailed)
		} else {
			logger.Info("webhook registered with the local sandbox", "url", s.WebhookURL)
		}
	}
	return s, withRepairHint(p.Name, err)
}

// sandboxRegisterFailed is the notice of a loopback sandbox profile whose receiver could not be
// registered with the emulator (the dashboard translates it).
const sandboxRegisterFailed = "The local sandbox did not take this profile's webhook endpoint (a secret of 16 to 255 printable characters is needed): payments show up by polling only."

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

func newSandboxCmd(stdout, stderr io.Writer) *cobra.Command {
	var o sandboxOpts
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Serve the sandbox emulator of the payment API",
		Long: `Serve the stateful emulator of the payment API on a local address, with the demo
credentials of its fixture (printed at start). Ctrl+C stops it.

--state FILE keeps everything (charges, sub-accounts, projects, blocks, withdrawals, webhook
endpoints and their secrets, idempotency keys) in a SQLite file, saved before each reply; a
restart on the same file goes on where it stopped (the fixture is applied only to a new file).
--log FILE writes one JSON line per request and per webhook delivery attempt (with the
receiver's answer); --log - writes them to standard output. Secrets are never logged.

Control endpoints (under /v2/_sandbox, with a token of the account):
  POST /webhook-endpoints {"url","subAccount"?,"secret"?}  a given secret stays valid across restarts
  PUT  /faults {"latencyMs","status5xxBurst","status429Burst","retryAfterSeconds",
                "dropReplyAfterCommit","redeliveryStorm","outOfOrder",
                "error500","dropResponseAfterCommit"}      GET /faults shows what is left
The fixture takes the same as [[accounts.webhook_endpoints]] (url, sub_account, secret) and
[faults] (latency_ms, status_5xx_burst, status_429_burst, retry_after_seconds,
drop_reply_after_commit, redelivery_storm, out_of_order, error_500, drop_response_after_commit).`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			return runSandbox(o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	f.StringVar(&o.fixture, "fixture", "", "fixture file (TOML); default: the built-in demo fixture")
	f.BoolVar(&o.printFx, "print-fixture", false, "print the built-in default fixture and exit")
	f.StringVar(&o.state, "state", "", "SQLite `FILE` that keeps the emulator's state across restarts (default: memory only)")
	f.StringVar(&o.log, "log", "", "write one JSON line per request and delivery attempt to `FILE` (- for standard output)")
	return cmd
}

// sandboxOpts are the flags of pixdash sandbox.
type sandboxOpts struct {
	addr, fixture, state, log string
	printFx                   bool
}

func runSandbox(o sandboxOpts, stdout, stderr io.Writer) error {
	if o.printFx {
		_, _ = stdout.Write(sandbox.DefaultFixtureTOML())
		return nil
	}
	fx := sandbox.DefaultFixture()
	if o.fixture != "" {
		data, err := os.ReadFile(o.fixture)
		if err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		if fx, err = sandbox.ParseFixture(data); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("%s: %w", o.fixture, err)}
		}
	}
	banner := stdout
	var opts []sandbox.Option
	switch o.log {
	case "":
	case "-":
		opts = append(opts, sandbox.WithEventLog(stdout))
		banner = stderr // standard output holds only the JSON lines
	default:
		lf, err := os.OpenFile(o.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		defer lf.Close()
		opts = append(opts, sandbox.WithEventLog(lf))
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var srv *sandbox.Server
	stateNote := ""
	if o.state != "" {
		var restored bool
		var err error
		if srv, restored, err = sandbox.Open(fx, o.state, opts...); err != nil {
			return &exitError{code: exitFailure, err: err}
		}
		stateNote = fmt.Sprintf("State kept in %s (new file, fixture loaded)\n", o.state)
		if restored {
			stateNote = fmt.Sprintf("State restored from %s (the fixture's accounts are not loaded again)\n", o.state)
		}
	} else {
		srv = sandbox.New(fx, opts...)
	}
	defer srv.Close()
	err := sandbox.ListenAndServe(ctx, o.addr, srv, func(base string) {
		fmt.Fprintf(banner, "pixdash sandbox emulator serving %s (Ctrl+C stops)\n%s\nDemo credentials:\n", base, stateNote)
		for _, a := range fx.Accounts {
			for _, c := range a.Credentials {
				// Fixture secrets are demo values meant to be shown.
				fmt.Fprintf(banner, "  %-22s %-22s %s\n", c.ClientID, c.ClientSecret.Reveal(), credentialNote(a.Environment, c))
			}
		}
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return &exitError{code: exitFailure, err: err}
	}
	return nil
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

func newConfigCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Write or check the config file",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			return usageError("say init or check")
		},
	}
	var initPath, initLang, checkPath string
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented example config (mode 0600)",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if _, err := flagLang(initLang); err != nil {
				return err
			}
			path, _ := config.Locate(initPath, os.Getenv)
			if err := config.WriteExample(path, initLang); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintf(stdout, "wrote %s (mode 0600); edit it, then run: pixdash config check\n", path)
			return nil
		},
	}
	initCmd.Flags().StringVar(&initPath, "config", "", configFlagHelp)
	initCmd.Flags().StringVar(&initLang, "lang", "", `write language = LANG ("en" or "pt-BR") into the file (default: no language line; LC_ALL/LC_MESSAGES/LANG decide)`)
	checkCmd := &cobra.Command{
		Use:   "check",
		Short: "Validate every profile, sign in and check the credential may create charges",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			path, _ := config.Locate(checkPath, os.Getenv)
			if code := checkConfig(path, stdout, stderr); code != exitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
	checkCmd.Flags().StringVar(&checkPath, "config", "", configFlagHelp)
	cmd.AddCommand(initCmd, checkCmd)
	return cmd
}

// checkConfig validates the file, resolves every profile's secrets (never printing them) and tries POST /auth.
func checkConfig(path string, stdout, stderr io.Writer) int {
	if path == "" {
		fmt.Fprintf(stderr, "pixdash: no config file to check: neither XDG_CONFIG_HOME nor HOME is set; give --config FILE (pixdash config init --config FILE writes one)\n")
		return exitFailure
	}
	cfg, err := config.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		suggest := "pixdash config init"
		if def, _ := config.Locate("", os.Getenv); def != path {
			suggest += " --config " + path
		}
		fmt.Fprintf(stderr, "pixdash: no config file at %s\ncreate one with: %s (then edit it and run pixdash config check again)\n", safetext.Clean(path), safetext.Clean(suggest))
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s\n", safetext.Clean(err.Error()))
		return exitFailure
	}
	fmt.Fprintf(stdout, "%s: %d profile(s)\n", path, len(cfg.Profiles))
	failed := 0
	for _, p := range cfg.Profiles {
		res := checkProfile(p)
		if res != nil {
			failed++
			// The service's message is outside text: one clean line.
			fmt.Fprintf(stdout, "  ✖ %-16s %-10s %s\n", p.Name, p.Environment, safetext.Clean(res.Error()))
			continue
		}
		fmt.Fprintf(stdout, "  ✔ %-16s %-10s signed in to %s; may create charges\n", p.Name, p.Environment, p.BaseURL)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stdout, "warning: %s\n", safetext.Clean(fmt.Sprint(w)))
	}
	if failed > 0 {
		return exitFailure
	}
	return exitOK
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
	// Signing in is not enough: the credential must be allowed to create charges (in the
	// profile's wallet). Asked without creating one (see api.Client.CanCreateCharges).
	if err := c.CanCreateCharges(ctx, p.SubAccount); errors.Is(err, api.ErrNoChargePermission) {
		return err
	} else if err != nil {
		return fmt.Errorf("creating charges: %w", err)
	}
	return nil
}

func newEventsCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Manage the profile's stored webhook events",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			return usageError("say prune")
		},
	}
	var o pruneFlags
	prune := &cobra.Command{
		Use:   "prune --before YYYY-MM-DD",
		Short: "Remove the profile's webhook events received before a day; charges are kept",
		Long: `Remove the profile's webhook events received before a day (local time); charges are kept.
It says how many events that is and asks before removing them; without a terminal to ask on,
--yes confirms. When that is every event of the profile (a day in the future, say), it asks
for the number of events even with --yes; without a terminal, --all confirms. --dry-run only
counts them.`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			return runPrune(o, stdout)
		},
	}
	f := prune.Flags()
	f.StringVar(&o.before, "before", "", "remove the events received before this day, YYYY-MM-DD (local time)")
	f.BoolVar(&o.yes, "yes", false, "remove without asking (needed when standard input is not a terminal)")
	f.BoolVar(&o.dryRun, "dry-run", false, "only say how many events would be removed")
	f.BoolVar(&o.all, "all", false, "confirm that every event of the profile goes (asked otherwise, even with --yes)")
	f.StringVar(&o.profile, "profile", "", "profile whose events to remove (default $PIXDASH_PROFILE, then default_profile)")
	f.StringVar(&o.config, "config", "", configFlagHelp)
	cmd.AddCommand(prune)
	return cmd
}

// pruneFlags are the options of pixdash events prune.
type pruneFlags struct {
	config, profile, before string
	yes, dryRun, all        bool
}

// promptIn is where a confirmation is read, and stdinTerminal whether it is a terminal that
// can be asked (tests replace both).
var (
	promptIn      io.Reader = os.Stdin
	stdinTerminal           = func() bool {
		fi, err := os.Stdin.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
)

// runPrune removes a profile's webhook events received before a day (local time) from its
// database, once confirmed (a question on a terminal, else --yes); charges are kept.
func runPrune(o pruneFlags, stdout io.Writer) error {
	before, err := time.ParseInLocation("2006-01-02", o.before, time.Local)
	if err != nil {
		return usageError("--before must be a day like 2025-01-31")
	}
	if o.yes && o.dryRun {
		return usageError("say --yes or --dry-run, not both")
	}
	_, p, err := loadProfile(o.config, o.profile)
	if err != nil {
		return err
	}
	ctx := context.Background()
	store, err := state.Open(ctx, config.StateDir(os.Getenv), p.Name)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	defer store.Close()
	n, err := store.CountEventsBefore(ctx, before)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	day := before.Format("2006-01-02")
	what := fmt.Sprintf("%d events received before %s in profile %s", n, day, p.Name)
	if before.After(time.Now()) {
		what += " (--before is in the future: that is every event)"
	}
	everything, err := pruneTakesEverything(ctx, store, n)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	switch {
	case n == 0:
		fmt.Fprintf(stdout, "No events received before %s in profile %s; nothing to remove.\n", day, p.Name)
		return nil
	case o.dryRun:
		if everything {
			what += ": every event of the profile"
		}
		fmt.Fprintf(stdout, "Would remove %s; charges are kept. Nothing removed (--dry-run).\n", what)
		return nil
	case !o.yes && !stdinTerminal():
		return usageError("this would remove %s: add --yes to confirm (standard input is not a terminal to ask on), or --dry-run to only count them", what)
	case everything && !o.all:
		// Every event: asked for the count even with --yes (--all without a terminal).
		if ok, err := confirmEverything(what, n, stdout); !ok || err != nil {
			return err
		}
	case !o.yes:
		fmt.Fprintf(stdout, "Remove %s? Charges are kept. [y/N] ", what)
		answer, _ := bufio.NewReader(promptIn).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes", "s", "sim":
		default:
			fmt.Fprintln(stdout, "Nothing removed.")
			return nil
		}
	}
	removed, err := store.PruneEvents(ctx, before)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	fmt.Fprintf(stdout, "Removed %d events received before %s from profile %s; charges are kept.\n", removed, day, p.Name)
	return nil
}

// exportFlags are the options of pixdash export.
type exportFlags struct {
	config, profile, from, to, wallet, format, output string
	allWallets                                        bool
}

func newExportCmd(stdout, stderr io.Writer) *cobra.Command {
	var o exportFlags
	cmd := &cobra.Command{
		Use:   "export --from YYYY-MM-DD --to YYYY-MM-DD",
		Short: "Write a profile's charges of a period as a spreadsheet (CSV or the Brazilian dialect)",
		Long: `Write the charges a profile created from one day to another (both included, local time)
in the profile's export_format, or as --format says: "br", the Brazilian spreadsheet dialect
(";" and a decimal comma, UTF-8 with a BOM; the default), or "csv" (RFC 4180: "," and a
decimal point). --wallet must name a wallet of the profile. A file is written atomically with mode
0600; --output - writes to standard output. Payer documents are masked, and a cell that a
spreadsheet would read as a formula starts with an apostrophe.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExport(cmd.Context(), o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "first day, YYYY-MM-DD (local time)")
	f.StringVar(&o.to, "to", "", "last day, YYYY-MM-DD (included)")
	f.StringVar(&o.wallet, "wallet", "", `wallet to export ("principal" or a sub-account reference; default the profile's sub_account)`)
	f.BoolVar(&o.allWallets, "all-wallets", false, "export every wallet of the profile")
	f.StringVar(&o.format, "format", "", `"csv" (RFC 4180) or "br" (semicolons, decimal comma, BOM); default the profile's export_format (br unless set)`)
	f.StringVar(&o.output, "output", "-", "file to write, or - for standard output")
	f.StringVar(&o.profile, "profile", "", "profile whose charges to export (default $PIXDASH_PROFILE, then default_profile)")
	f.StringVar(&o.config, "config", "", configFlagHelp)
	return cmd
}

// runExport writes a profile's charges created between two days to a file or stdout.
func runExport(ctx context.Context, o exportFlags, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	from, err := time.ParseInLocation("2006-01-02", o.from, time.Local)
	if err != nil {
		return usageError("--from must be a day like 2025-01-31")
	}
	to, err := time.ParseInLocation("2006-01-02", o.to, time.Local)
	if err != nil {
		return usageError("--to must be a day like 2025-01-31")
	}
	if to.Before(from) {
		return usageError("--to (%s) is before --from (%s)", o.to, o.from)
	}
	if o.allWallets && o.wallet != "" {
		return usageError("say --wallet or --all-wallets, not both")
	}
	if o.wallet != "" {
		if err := api.ValidateWallet(o.wallet); err != nil {
			return usageError("--wallet: %v", err)
		}
	}
	if o.format != "" {
		if _, err := export.ParseFormat(o.format); err != nil || strings.TrimSpace(o.format) == "" {
			return usageError(`--format must be "csv" or "br"`)
		}
	}
	if o.output == "" {
		return usageError("--output needs a file name, or - for standard output")
	}
	_, p, err := loadProfile(o.config, o.profile)
	if err != nil {
		return err
	}
	// Without --format, the profile's export_format (br unless set), as the dashboard's export.
	format, _ := export.ParseFormat(p.ExportFormat) // validated when the config was read
	if o.format != "" {
		format, _ = export.ParseFormat(o.format)
	}
	wallet := o.wallet
	if !o.allWallets && wallet == "" {
		wallet = state.NormalizeWallet(p.SubAccount)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := state.Open(ctx, config.StateDir(os.Getenv), p.Name)
	if err == nil {
		defer store.Close()
		err = store.Check(ctx, state.CheckTables) // no figures from a damaged database
	}
	if err != nil {
		return &exitError{code: exitFailure, err: withRepairHint(p.Name, fmt.Errorf("profile %s: %w", p.Name, err))}
	}
	if o.wallet != "" {
		if err := knownWallet(ctx, store, p, wallet); err != nil {
			return err
		}
	}
	opts := export.Options{
		Format: format, Query: state.ChargeQuery{Wallet: wallet},
		From: from, To: to.AddDate(0, 0, 1), Location: time.Local,
	}
	opts.PixFee, opts.HasPixFee = workflow.FeeEstimate(store, p.PixFee, p.HasPixFee) // the figures' rule
	var n int
	if o.output == "-" {
		bw := bufio.NewWriter(stdout)
		n, err = export.Write(ctx, bw, store, opts)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	} else {
		n, err = export.WriteFile(ctx, o.output, store, opts)
	}
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	scope := "all wallets"
	if wallet != "" {
		scope = "wallet " + wallet
	}
	where := "standard output"
	if o.output != "-" {
		where = o.output
	}
	fmt.Fprintf(stderr, "Exported %d charges of profile %s (%s) created %s to %s to %s.\n", n, p.Name, scope, o.from, o.to, where)
	return nil
}

// knownWallet refuses (exit 2) a --wallet that is none of the profile's: not principal, not
// its sub_account and not a wallet any of its charges was in. An export of it would say
// "Exported 0 charges" and succeed, hiding a typo.
func knownWallet(ctx context.Context, store *state.Store, p *config.Profile, wallet string) error {
	known := []string{api.WalletPrincipal}
	if w := state.NormalizeWallet(p.SubAccount); !slices.Contains(known, w) {
		known = append(known, w)
	}
	seen, err := store.KnownWallets(ctx)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	for _, w := range seen {
		if !slices.Contains(known, w) {
			known = append(known, w)
		}
	}
	if slices.Contains(known, wallet) {
		return nil
	}
	return usageError("--wallet %s: not a wallet of profile %s (it is neither principal nor its sub_account, and none of its charges was in it); its wallets: %s",
		wallet, p.Name, strings.Join(known, ", "))
}

// exportSettings are where the dashboard's export key writes and each profile's export_format.
func exportSettings(cfg *config.Config) ui.ExportSettings {
	return ui.ExportSettings{
		Dir: config.ExportDir(os.Getenv),
		Format: func(profile string) export.Format {
			if cfg == nil {
				return export.BR
			}
			p, err := cfg.Profile(profile)
			if err != nil {
				return export.BR
			}
			f, _ := export.ParseFormat(p.ExportFormat) // validated when the config was read
			return f
		},
	}
}

// chosenProfile is the profile --profile names, else $PIXDASH_PROFILE, else the config's default.
func chosenProfile(cfg *config.Config, flagValue string) (*config.Profile, error) {
	name := flagValue
	if name == "" {
		name = os.Getenv(config.EnvProfile)
	}
	return cfg.Profile(name)
}

// closeFlags are the options of pixdash close.
type closeFlags struct {
	config, profile, date, csv, format, lang string
	width                                    int
	print, offline, debug                    bool
}

func newCloseCmd(stdout, stderr io.Writer) *cobra.Command {
	var o closeFlags
	cmd := &cobra.Command{
		Use:   "close [--date YYYY-MM-DD]",
		Short: "Print a profile's close of a day (fechamento de caixa)",
		Long: `Print the close of a day (fechamento de caixa) of a profile: per wallet and in total, the
charges created, paid, expired and failed, gross, fees, net, refunds, withdrawals, MED blocks,
split sent and received, and each wallet's balance as the service reports it now. The figures
come from the profile's local database, so they cover what this pixdash saw. The text report
goes to standard output (--width 48 fits a receipt printer); --csv also writes it as a
spreadsheet (atomically, mode 0600), and --print sends the 48-column receipt to the profile's
print_command. A day in the future is refused.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClose(cmd.Context(), o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.date, "date", "", "the day, YYYY-MM-DD (local time; default today, a partial close)")
	f.IntVar(&o.width, "width", report.DefaultWidth, "line width of the text report: 80 for a terminal, 48 for a receipt printer (at least 40)")
	f.StringVar(&o.lang, "lang", "", `language of the report: "en" or "pt-BR" (default: the config's language, else LC_ALL/LC_MESSAGES/LANG)`)
	f.StringVar(&o.csv, "csv", "", "also write the close as a spreadsheet to this file")
	f.StringVar(&o.format, "format", "", `dialect of --csv: "csv" (RFC 4180) or "br" (semicolons, decimal comma, BOM); default the profile's export_format`)
	f.BoolVar(&o.print, "print", false, "send the text report to the profile's print_command")
	f.BoolVar(&o.offline, "offline", false, "do not ask the service for the balances")
	f.StringVar(&o.profile, "profile", "", "profile to close (default $PIXDASH_PROFILE, then default_profile)")
	f.StringVar(&o.config, "config", "", configFlagHelp)
	f.BoolVar(&o.debug, "debug", false, "write a structured debug log (secrets redacted) to $XDG_STATE_HOME/pixdash/debug.log")
	return cmd
}

// Bounds of pixdash close --width.
const (
	maxCloseWidth = 400
	// closeBalanceTimeout bounds signing in and reading every balance.
	closeBalanceTimeout = 30 * time.Second
)

// runClose prints a profile's close of a day; the balances are read with the profile's
// credential unless --offline (a wallet whose read fails says why in the report).
func runClose(ctx context.Context, o closeFlags, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dayTime := time.Now()
	if o.date != "" {
		d, err := time.ParseInLocation("2006-01-02", o.date, time.Local)
		if err != nil {
			return usageError("--date must be a day like 2025-01-31")
		}
		dayTime = d.Add(12 * time.Hour)
		if today := time.Now(); d.After(today) {
			return usageError("--date %s is in the future (today is %s): a close is of today (partial) or a past day", o.date, today.Format("2006-01-02"))
		}
	}
	if o.width < report.MinWidth || o.width > maxCloseWidth {
		return usageError("--width %d: say 80 for a terminal or 48 for a receipt printer (%d to %d)", o.width, report.MinWidth, maxCloseWidth)
	}
	if _, err := flagLang(o.lang); err != nil {
		return err
	}
	if o.format != "" && o.csv == "" {
		return usageError("--format is the dialect of --csv: give --csv FILE too")
	}
	if o.format != "" {
		if _, err := export.ParseFormat(o.format); err != nil || strings.TrimSpace(o.format) == "" {
			return usageError(`--format must be "csv" or "br"`)
		}
	}
	cfg, p, err := loadProfile(o.config, o.profile)
	if err != nil {
		return err
	}
	if o.print && len(p.PrintCommand) == 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, workflow.ErrNoPrintCommand)}
	}
	l, _ := merchantLang(o.lang, cfg, os.Getenv)    // --lang was checked above
	lang := string(l)                               // ui's and report's language codes are the same
	format, _ := export.ParseFormat(p.ExportFormat) // validated when the config was read
	if o.format != "" {
		format, _ = export.ParseFormat(o.format)
	}
	logger := slog.New(slog.DiscardHandler)
	if o.debug {
		l, closeLog, logPath, err := openDebugLog(config.StateDir(os.Getenv))
		if err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("--debug: %w", err)}
		}
		defer closeLog()
		logger = slog.New(ui.SafeLogHandler(l.Handler()))
		fmt.Fprintf(stderr, "pixdash: debug log at %s\n", logPath)
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	store, err := state.Open(ctx, config.StateDir(os.Getenv), p.Name, state.WithLocation(time.Local))
	if err == nil {
		defer store.Close()
		err = store.Check(ctx, state.CheckTables) // no figures from a damaged database
	}
	if err != nil {
		return &exitError{code: exitFailure, err: withRepairHint(p.Name, fmt.Errorf("profile %s: %w", p.Name, err))}
	}
	// The dashboard's rule (workflow.FeeEstimate): pix_fee, else the fee learned from the service, else unknown.
	fee, hasFee := workflow.FeeEstimate(store, p.PixFee, p.HasPixFee)
	q := state.CloseQuery{
		Day: state.Days(dayTime, 1, time.Local),
		// The profile's own wallet and, when the service can be asked, every usable
		// sub-account; any other wallet with figures that day is reported too.
		Wallets: []string{state.NormalizeWallet(p.SubAccount)},
		Fee:     fee, HasFee: hasFee,
	}
	var acct workflow.AccountReader
	var noAcct string // why the balances are not read, for every wallet
	if !o.offline {
		client, err := closeClient(ctx, p, logger)
		if err != nil {
			noAcct = err.Error()
		} else {
			defer client.Close()
			acct = client
		}
	}
	bctx, cancel := context.WithTimeout(ctx, closeBalanceTimeout)
	defer cancel()
	if lister, ok := acct.(workflow.SubAccountLister); ok {
		q.Wallets = workflow.CloseWallets(bctx, lister, q.Wallets)
	}
	r, err := workflow.CloseDay(bctx, store, acct, q)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
	}
	if noAcct != "" {
		for _, l := range r.Wallets {
			r.SetBalance(l.Wallet, nil, noAcct)
		}
	}
	text := report.Text(r, report.Options{Width: o.width, Lang: lang, Loc: time.Local})
	if _, err := io.WriteString(stdout, text); err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if o.csv != "" {
		if err := export.WriteAtomic(o.csv, func(w io.Writer) error { return report.CSV(w, r, format == export.BR) }); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: --csv: %w", p.Name, err)}
		}
		fmt.Fprintf(stderr, "Wrote the close of %s to %s.\n", q.Day.From.Format("2006-01-02"), o.csv)
	}
	if o.print {
		// The printer gets the receipt, as from the dashboard, whatever --width the screen had.
		receipt := report.Text(r, report.Options{Width: report.ReceiptWidth, Lang: lang, Loc: time.Local})
		if err := workflow.PrintReport(ctx, p.PrintCommand, []byte(receipt), workflow.DefaultPrintTimeout); err != nil {
			return &exitError{code: exitFailure, err: fmt.Errorf("profile %s: %w", p.Name, err)}
		}
		fmt.Fprintf(stderr, "Sent the close to %s.\n", filepath.Base(p.PrintCommand[0]))
	}
	return nil
}

// closeClient is the profile's API client for reading balances: its secret resolved (at most
// 15 s) and nothing else of a session.
func closeClient(ctx context.Context, p *config.Profile, logger *slog.Logger) (*api.Client, error) {
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	secret, err := p.ClientSecret(rctx)
	if err != nil {
		return nil, fmt.Errorf("no credential: %w", err)
	}
	return api.NewClient(p.BaseURL, p.ClientID, secret, api.WithLogger(logger))
}

// utf8Locale reports whether the locale the terminal runs in can draw block glyphs: the first of
// LC_ALL, LC_CTYPE and LANG that is set names UTF-8 (none set counts as UTF-8, as on most
// terminals today).
func utf8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return true
}

// loadProfile reads the config file (--config, else the default place) and picks the profile
// (--profile, else the default); a profile named on the command line that is not there is a
// usage error.
func loadProfile(configFlag, profileFlag string) (*config.Config, *config.Profile, error) {
	path, _ := config.Locate(configFlag, os.Getenv)
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, &exitError{code: exitFailure, err: err}
	}
	p, err := chosenProfile(cfg, profileFlag)
	if err != nil {
		if profileFlag != "" {
			return nil, nil, usageError("--profile: %v", err)
		}
		return nil, nil, &exitError{code: exitFailure, err: err}
	}
	return cfg, p, nil
}
