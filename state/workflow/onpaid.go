package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixdash/api/safetext"
	"pixdash/state"
)

// DefaultOnPaidTimeout bounds one on_paid run when the profile names no timeout.
const DefaultOnPaidTimeout = 30 * time.Second

// MaxOnPaidOutput bounds the command's output kept for the debug log (stdout and stderr
// together; the rest is counted and dropped).
const MaxOnPaidOutput = 8 << 10

// onPaidWaitDelay is how long, after the command is killed or exits, its output pipes may stay
// open (held by a process it started) before they are closed and the run reports.
const onPaidWaitDelay = 2 * time.Second

// OnPaidCommand is the profile's on_paid option: a command run once per confirmed payment.
// It runs without a shell: Argv[0] is the program (looked up in PATH when it has no slash),
// the rest its arguments. Its environment is an allow-list of this process's (ChildEnv: PATH,
// HOME, LANG, LC_*, TZ, TMPDIR) plus the charge's fields as PIXDASH_* variables (see
// OnPaidEnv); its stdin is empty.
type OnPaidCommand struct {
	Argv []string
	// Timeout kills the command when it runs longer (DefaultOnPaidTimeout when 0).
	Timeout time.Duration
	// Profile is passed as PIXDASH_PROFILE (Open sets it to the session's profile).
	Profile string
	// Hide names environment variables never passed on even when ChildEnv's allow-list would
	// (the profile's secret variables: client_secret_env, the webhook's secret_env).
	Hide []string
	// Logger receives each run's outcome and output at debug level (discarded when nil).
	Logger *slog.Logger
}

// Name is the program's name for messages: the base name of Argv[0].
func (c *OnPaidCommand) Name() string {
	if c == nil || len(c.Argv) == 0 {
		return ""
	}
	return filepath.Base(c.Argv[0])
}

// OnPaidStore records which charges the command ran for (state.Store in the program).
type OnPaidStore interface {
	ClaimOnPaid(ctx context.Context, chargeID, command string) (bool, error)
	FinishOnPaid(ctx context.Context, chargeID, outcome string) error
}

// OnPaidResult is what one RunOnPaid did.
type OnPaidResult struct {
	ChargeID string
	Amount   string // the charge's amount as R$ text, for messages
	Command  string // the program's base name
	// Ran is set when this call started (or tried to start) the command; false when the charge
	// is not paid, there is no command, or it already ran for this charge (in this window,
	// another one, or before a restart).
	Ran bool
	// Err is nil when the command ran and exited with status 0; otherwise it says why
	// (ErrOnPaidNotFound, ErrOnPaidTimeout, an *exec.ExitError, or the store's error when the
	// run could not be recorded, in which case the command was not run).
	Err      error
	ExitCode int // the exit status; -1 when the command did not exit by itself
	Output   string
	// Truncated counts output bytes dropped beyond MaxOnPaidOutput.
	Truncated int64
	Duration  time.Duration
}

// Failed reports whether the result is worth showing as a failure.
func (r OnPaidResult) Failed() bool { return r.Err != nil }

// Errors a failed on_paid run matches.
var (
	ErrOnPaidNotFound = errors.New("program not found")
	ErrOnPaidTimeout  = errors.New("timed out")
)

// RunOnPaid runs the on_paid command for a charge whose payment the service confirmed (the
// caller passes the charge as read back from the service; anything but a paid charge does
// nothing). It records the charge in the store before starting the command, and only the
// first recorder runs it: once per payment across windows and restarts, and never twice after
// a crash (a crash between recording and running skips it). It waits for the command (at most
// its timeout plus a moment for its output to close): call it from a goroutine or command.
func RunOnPaid(ctx context.Context, store OnPaidStore, c *OnPaidCommand, ch state.Charge) OnPaidResult {
	res := OnPaidResult{ChargeID: ch.ID, Amount: ch.Amount.BRL(), Command: c.Name(), ExitCode: -1}
	if c == nil || len(c.Argv) == 0 || ch.ID == "" || ch.State() != state.StatePaid {
		return res
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	claimed, err := store.ClaimOnPaid(ctx, ch.ID, res.Command)
	if err != nil {
		res.Ran, res.Err = true, fmt.Errorf("could not record the run, so it was not started: %w", err)
		logger.Warn("on_paid not run", "charge", ch.ID, "command", res.Command, "err", err)
		return res
	}
	if !claimed {
		return res
	}
	res.Ran = true
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultOnPaidTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, c.Argv[0], c.Argv[1:]...)
	cmd.Env = OnPaidEnv(os.Environ(), c.Hide, c.Profile, ch)
	cmd.Stdin = nil // the null device
	out := &boundedBuffer{max: MaxOnPaidOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = onPaidWaitDelay
	start := time.Now()
	err = cmd.Run()
	res.Duration = time.Since(start)
	res.Output, res.Truncated = out.result()
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case err == nil:
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		res.Err = fmt.Errorf("%w: %s", ErrOnPaidNotFound, c.Argv[0])
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.Err = fmt.Errorf("%w after %s", ErrOnPaidTimeout, timeout)
	case errors.Is(err, exec.ErrWaitDelay) && res.ExitCode == 0:
		// It exited 0; something it started kept its output open past the wait.
	default:
		res.Err = err
	}
	outcome := "ok"
	if res.Err != nil {
		outcome = res.Err.Error()
	}
	// The record's outcome is informative: the run is already accounted for by the claim.
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer fcancel()
	if ferr := store.FinishOnPaid(fctx, ch.ID, outcome); ferr != nil {
		logger.Warn("on_paid outcome not recorded", "charge", ch.ID, "err", ferr)
	}
	level := slog.LevelDebug
	if res.Err != nil {
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, "on_paid ran", "charge", ch.ID, "command", res.Command, "outcome", outcome,
		"exit", res.ExitCode, "duration", res.Duration.Round(time.Millisecond), "output", res.Output, "output_dropped", res.Truncated)
	return res
}

// OnPaidEnv is the on_paid command's environment, built from an allow-list, never from a
// deny-list: ChildEnv's variables of parent (os.Environ's form: PATH, HOME, LANG, LC_*, TZ,
// TMPDIR) except the names in hide, followed by the charge's fields as the PIXDASH_* variables
// pixdash sets. So no secret of any profile (client_secret_env, a webhook's secret_env,
// whatever their names) nor anything else of the parent's environment reaches the command.
// The fields' values are outside text and pass api/safetext: control characters (C0, DEL, C1)
// become spaces, bidi controls and zero-width characters are removed.
func OnPaidEnv(parent, hide []string, profile string, ch state.Charge) []string {
	env := make([]string, 0, 16)
	for _, kv := range ChildEnv(parent) {
		name, _, _ := strings.Cut(kv, "=")
		if !containsName(hide, name) {
			env = append(env, kv)
		}
	}
	paidAt := ""
	if ch.PaidAt != nil {
		paidAt = ch.PaidAt.UTC().Format(time.RFC3339)
	}
	for _, f := range [][2]string{
		{"PIXDASH_CHARGE_ID", ch.ID},
		{"PIXDASH_AMOUNT_CENTS", strconv.FormatInt(int64(ch.Amount), 10)},
		{"PIXDASH_AMOUNT", ch.Amount.BRL()},
		{"PIXDASH_DESCRIPTION", ch.Description},
		{"PIXDASH_EXTERNAL_REFERENCE", ch.ExternalReference},
		{"PIXDASH_WALLET", state.NormalizeWallet(ch.Wallet)},
		{"PIXDASH_PAYER_NAME", ch.PayerName},
		{"PIXDASH_E2E_ID", ch.E2EID},
		{"PIXDASH_PAID_AT", paidAt},
		{"PIXDASH_PROFILE", profile},
	} {
		env = append(env, f[0]+"="+safetext.Clean(f[1]))
	}
	return env
}

// childEnvNames are the variables a child process (on_paid, print_command) inherits; LC_* too.
var childEnvNames = []string{"PATH", "HOME", "LANG", "TZ", "TMPDIR"}

// ChildEnv is the part of parent (os.Environ's form) a child process pixdash starts inherits:
// PATH, HOME, LANG, every LC_* variable, TZ and TMPDIR, nothing else (an allow-list: no secret
// of any profile, whatever its variable's name, is passed on). A variable among those whose
// value looks secret (SecretLooking: a URL with a password) is dropped too.
func ChildEnv(parent []string) []string {
	var env []string
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !(containsName(childEnvNames, name) || strings.HasPrefix(name, "LC_")) || SecretLooking(name, value) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// secretWords mark a variable's name as secret-looking (compared in upper case).
var secretWords = []string{"SECRET", "TOKEN", "PASSW", "PASSPHRASE", "PWD_", "CREDENTIAL", "PRIVATE", "AUTH", "COOKIE", "APIKEY", "API_KEY", "ACCESS_KEY", "SIGNING", "SIGNATURE"}

// SecretLooking reports whether an environment variable looks like it holds a secret: its
// name contains a word such as SECRET, TOKEN, PASSWORD, KEY (as a word: API_KEY, KEY_ID),
// CREDENTIAL, AUTH or COOKIE, or its value is a URL carrying a user name or password.
func SecretLooking(name, value string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if part == "KEY" || part == "KEYS" || part == "PASS" || part == "PW" || part == "DSN" {
			return true
		}
	}
	if i := strings.Index(value, "://"); i >= 0 {
		rest := value[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if strings.Contains(rest, "@") {
			return true
		}
	}
	return false
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n != "" && n == name {
			return true
		}
	}
	return false
}

// boundedBuffer keeps the first max bytes written to it and counts the rest; safe for the two
// goroutines copying stdout and stderr.
type boundedBuffer struct {
	mu      sync.Mutex
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - b.buf.Len()
	if room >= len(p) {
		b.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

func (b *boundedBuffer) result() (string, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String(), b.dropped
}
