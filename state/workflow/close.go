package workflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"pixdash/api"
	"pixdash/api/safetext"
	"pixdash/state"
)

// CloseStore makes a day's close from the local database (*state.Store).
type CloseStore interface {
	CloseDay(ctx context.Context, q state.CloseQuery) (state.CloseReport, error)
}

// AccountReader reads a wallet's account and balances (*api.Client).
type AccountReader interface {
	GetAccount(ctx context.Context, opts ...api.RequestOption) (*api.Account, error)
}

// MaxBalanceReads is how many wallets' balances CloseDay reads at once.
const MaxBalanceReads = 4

// BalanceReadTimeout bounds the read of one wallet's balance.
const BalanceReadTimeout = 15 * time.Second

// CloseDay makes the day's close q selects and records each wallet's balance as the service
// reports it now (at most MaxBalanceReads reads at once, each bounded by ctx and
// BalanceReadTimeout). A failed read leaves that wallet's balance unset with a short reason
// in BalanceErr and does not fail the report; with no acct (no service) every balance is left
// unread with no reason. Only the store's error fails it.
func CloseDay(ctx context.Context, store CloseStore, acct AccountReader, q state.CloseQuery) (state.CloseReport, error) {
	r, err := store.CloseDay(ctx, q)
	if err != nil {
		return r, err
	}
	if acct == nil || len(r.Wallets) == 0 {
		return r, nil
	}
	type result struct {
		bal    *api.AccountBalance
		reason string
	}
	results := make([]result, len(r.Wallets))
	sem := make(chan struct{}, MaxBalanceReads)
	var wg sync.WaitGroup
	for i, line := range r.Wallets {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i].reason = BalanceErrText(ctx.Err())
				return
			}
			defer func() { <-sem }()
			rctx, cancel := context.WithTimeout(ctx, BalanceReadTimeout)
			defer cancel()
			var opts []api.RequestOption
			if h := SubAccountHeader(state.NormalizeWallet(line.Wallet)); h != "" {
				opts = append(opts, api.WithSubAccount(h))
			}
			acc, err := acct.GetAccount(rctx, opts...)
			switch {
			case err != nil:
				results[i].reason = BalanceErrText(err)
			case acc == nil:
				results[i].reason = "no reply"
			default:
				b := acc.Balance
				results[i].bal = &b
			}
		})
	}
	wg.Wait()
	for i, line := range r.Wallets {
		r.SetBalance(line.Wallet, results[i].bal, results[i].reason)
	}
	return r, nil
}

// maxReason bounds the reason a balance could not be read, in characters.
const maxReason = 160

// BalanceErrText is a short reason a balance read failed: the service's message and trace id
// for a refusal, "timed out" or "cancelled" for the context, else the error's text; at most
// a line of 160 characters.
func BalanceErrText(err error) string {
	var ae *api.Error
	var s string
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ae):
		msg := ae.Message
		if msg == "" {
			msg = ae.Body
		}
		if msg == "" {
			msg = strings.TrimSpace(fmt.Sprintf("%d %s", ae.HTTPStatus, http.StatusText(ae.HTTPStatus)))
		}
		if ae.Kind != "" && !strings.Contains(msg, ae.Kind) {
			msg = ae.Kind + ": " + msg
		}
		s = msg
		if ae.TraceID != "" {
			s += " (trace " + ae.TraceID + ")"
		}
	case errors.Is(err, context.DeadlineExceeded):
		s = "timed out"
	case errors.Is(err, context.Canceled):
		s = "cancelled"
	default:
		s = err.Error()
	}
	return clip(oneLine(s), maxReason)
}

// DefaultPrintTimeout bounds one print_command run.
const DefaultPrintTimeout = 30 * time.Second

// ErrNoPrintCommand is PrintReport's error when the profile names no print_command.
var ErrNoPrintCommand = errors.New("no print_command is configured for this profile (set print_command in the config, e.g. [\"lp\", \"-d\", \"recibos\"])")

// PrintEnv is the print command's environment: ChildEnv's allow-list of parent (os.Environ's
// form: PATH, HOME, LANG, LC_*, TZ, TMPDIR), nothing else, so no secret reaches it.
func PrintEnv(parent []string) []string { return ChildEnv(parent) }

// maxPrintStderr bounds the command's stderr quoted in PrintReport's error.
const maxPrintStderr = 200

// PrintReport runs the profile's print_command (argv: the program, looked up in PATH, then its
// arguments; no shell) with report on its stdin, cleaned by safetext.CleanText (no control,
// bidi or zero-width character reaches the printer), and PrintEnv's environment, and waits for it,
// at most timeout (DefaultPrintTimeout when 0) plus a moment for its output to close. Like an
// on_paid run (RunOnPaid), a command past its time is killed and its pipes are closed after
// a short delay; a process it started in the background is not killed with it. Its output is
// kept in memory (8 KiB of each stream); a failure's error names the program and quotes the
// end of its stderr, cleaned of control characters: `print command "lp" failed: exit status 1:
// lp: no default destination`. Empty argv is ErrNoPrintCommand.
func PrintReport(ctx context.Context, argv []string, report []byte, timeout time.Duration) error {
	if len(argv) == 0 || strings.TrimSpace(argv[0]) == "" {
		return ErrNoPrintCommand
	}
	if timeout <= 0 {
		timeout = DefaultPrintTimeout
	}
	name := clip(oneLine(filepath.Base(argv[0])), 60)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	cmd.Env = PrintEnv(os.Environ())
	// The printer gets text only: whatever drives a terminal would drive many receipt printers
	// too (ESC/POS), so the report passes api/safetext, its line breaks kept.
	cmd.Stdin = strings.NewReader(safetext.CleanText(string(report)))
	stdout := &boundedBuffer{max: MaxOnPaidOutput}
	stderr := &boundedBuffer{max: MaxOnPaidOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = onPaidWaitDelay
	err := cmd.Run()
	exited0 := cmd.ProcessState != nil && cmd.ProcessState.Exited() && cmd.ProcessState.ExitCode() == 0
	switch {
	case err == nil:
		return nil
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("print command %q: program not found: %w", name, err)
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return fmt.Errorf("print command %q timed out after %s: %w", name, timeout, context.DeadlineExceeded)
	case ctx.Err() != nil:
		return fmt.Errorf("print command %q: %w", name, ctx.Err())
	case errors.Is(err, exec.ErrWaitDelay) && exited0:
		// It exited 0; something it started kept its output open past the wait.
		return nil
	}
	out, _ := stderr.result()
	if tail := stderrTail(out); tail != "" {
		return fmt.Errorf("print command %q failed: %w: %s", name, err, tail)
	}
	return fmt.Errorf("print command %q failed: %w", name, err)
}

// stderrTail is the last non-blank line of a command's stderr, one line of printable text
// of at most maxPrintStderr characters.
func stderrTail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(oneLine(lines[i])); l != "" {
			return clipTail(l, maxPrintStderr)
		}
	}
	return ""
}

// oneLine drops control characters (escape sequences lose their ESC and become inert text)
// and turns tabs and line breaks into spaces; invalid UTF-8 becomes U+FFFD.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return -1
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// clip keeps the first n characters of s, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// clipTail keeps the last n characters of s, marking a cut with "…".
func clipTail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n+1:])
}

// SubAccountLister lists the account's sub-accounts (*api.Client implements it).
type SubAccountLister interface {
	ListSubAccounts(ctx context.Context) ([]api.SubAccount, error)
}

// CloseWallets is base plus every usable sub-account the service lists, in that order and
// once each: the wallets a close reports even on a day without sales. When the list cannot be
// read, base is returned as it is (the close still reports every wallet with figures).
func CloseWallets(ctx context.Context, l SubAccountLister, base []string) []string {
	out := slices.Clone(base)
	if l == nil {
		return out
	}
	subs, err := LoadSubAccounts(ctx, l)
	if err != nil {
		return out
	}
	for _, s := range subs {
		if s.Reference != "" && s.Status.Usable() && !slices.Contains(out, s.Reference) {
			out = append(out, s.Reference)
		}
	}
	return out
}
