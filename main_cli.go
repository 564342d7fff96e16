package main

// The command line's scripting conventions, in one place every command uses: exit codes, data
// on stdout and messages on stderr, --json (one document, or NDJSON for lists), money as a
// two-decimal string plus integer centavos, RFC 3339 times, no prompt without a terminal,
// production writes confirmed, read_only profiles refusing writes, and the service's errors
// printed with the envelope's message and traceId (api.Error's own text).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/config"
	"pixdash/state"
)

// Exit codes of the command line beyond 0, 1 and 2 (README › Command line).
const (
	exitAuth       = 3 // the credential was refused
	exitPermission = 4 // the credential or the profile may not do this (read_only, 403)
	exitValidation = 5 // the request breaks a rule: nothing was sent
	exitNotFound   = 6 // no such charge, event or wallet
	exitConflict   = 7 // the service or another window holds a conflicting operation
	exitUnknown    = 8 // sent, reply lost: retry with the printed key, which is safe
	// charge wait.
	exitWaitExpired = 10
	exitWaitFailed  = 11
	exitWaitTimeout = 12
)

// cliError ends a command with code and err (printed on stderr by run).
func cliError(code int, err error) error { return &exitError{code: code, err: err} }

// cliErrorf is cliError with a formatted message.
func cliErrorf(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// exitCodeOf is the exit code an error from the service, a workflow or a local check ends a
// command with: an *exitError keeps its own; a refusal by the service maps its HTTP status;
// a request refused before it was sent is a validation error.
func exitCodeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ve *api.ValidationError
	if errors.As(err, &ve) {
		return exitValidation
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		switch ae.HTTPStatus {
		case http.StatusUnauthorized:
			return exitAuth
		case http.StatusForbidden:
			return exitPermission
		case http.StatusNotFound:
			return exitNotFound
		case http.StatusConflict, http.StatusUnprocessableEntity:
			return exitConflict
		case http.StatusBadRequest:
			return exitValidation
		}
	}
	return exitFailure
}

// asCLIError gives err its exit code (see exitCodeOf); nil stays nil.
func asCLIError(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return cliError(exitCodeOf(err), err)
}

// commonFlags are the flags every profile command takes.
type commonFlags struct {
	config, profile string
	json            bool
}

// add registers --config, --profile and, when withJSON, --json on fs.
func (f *commonFlags) add(cmd *cobra.Command, withJSON bool) {
	fs := cmd.Flags()
	fs.StringVar(&f.config, "config", "", configFlagHelp)
	fs.StringVar(&f.profile, "profile", "", "profile to use (default $PIXDASH_PROFILE, then default_profile)")
	if withJSON {
		fs.BoolVar(&f.json, "json", false, "print JSON (one document; NDJSON, one object a line, for lists) instead of text")
	}
}

// cli is one command's profile, its client and store (each opened on first use), and its
// output streams.
type cli struct {
	ctx            context.Context
	cfg            *config.Config
	p              *config.Profile
	stdout, stderr io.Writer
	json           bool
	client         *api.Client
	store          *state.Store
	stop           func()
}

// openCLI loads the profile the flags name. The context ends at Ctrl+C or SIGTERM. Close it.
func openCLI(cmd *cobra.Command, f commonFlags, stdout, stderr io.Writer) (*cli, error) {
	cfg, p, err := loadProfile(f.config, f.profile)
	if err != nil {
		return nil, err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	return &cli{ctx: ctx, cfg: cfg, p: p, stdout: stdout, stderr: stderr, json: f.json, stop: stop}, nil
}

// Close releases the client and the store.
func (c *cli) Close() {
	if c.client != nil {
		c.client.Close()
	}
	if c.store != nil {
		_ = c.store.Close()
	}
	c.stop()
}

// Client is the profile's API client, its secret resolved (a failure is exit 3).
func (c *cli) Client() (*api.Client, error) {
	if c.client != nil {
		return c.client, nil
	}
	rctx, cancel := context.WithTimeout(c.ctx, 15*time.Second)
	defer cancel()
	secret, err := c.p.ClientSecret(rctx)
	if err != nil {
		return nil, cliErrorf(exitAuth, "profile %s: no credential: %w", c.p.Name, err)
	}
	cl, err := api.NewClient(c.p.BaseURL, c.p.ClientID, secret)
	if err != nil {
		return nil, cliErrorf(exitFailure, "profile %s: %w", c.p.Name, err)
	}
	c.client = cl
	return cl, nil
}

// Store is the profile's local database (the dashboard's), checked before anything is read.
func (c *cli) Store() (*state.Store, error) {
	if c.store != nil {
		return c.store, nil
	}
	s, err := state.Open(c.ctx, config.StateDir(os.Getenv), c.p.Name, state.WithLocation(time.Local))
	if err != nil {
		return nil, cliError(exitFailure, withRepairHint(c.p.Name, fmt.Errorf("profile %s: %w", c.p.Name, err)))
	}
	c.store = s
	return s, nil
}

// Wallet is the wallet a command works in: --wallet when given (checked), else the profile's.
func (c *cli) Wallet(flag string) (string, error) {
	if flag == "" {
		return state.NormalizeWallet(c.p.SubAccount), nil
	}
	if err := api.ValidateWallet(flag); err != nil {
		return "", usageError("--wallet: %v", err)
	}
	return flag, nil
}

// StoredEvent is the event with this id in the profile's store (not found is exit 6).
func (c *cli) StoredEvent(id string) (state.EventEntry, error) {
	store, err := c.Store()
	if err != nil {
		return state.EventEntry{}, err
	}
	e, ok, err := store.Event(c.ctx, id)
	if err != nil {
		return state.EventEntry{}, cliError(exitFailure, err)
	}
	if !ok {
		return state.EventEntry{}, cliErrorf(exitNotFound, "no event %q in profile %s", id, c.p.Name)
	}
	return e, nil
}

// WalletClient is the wallet a command works in (see Wallet) and the profile's client.
func (c *cli) WalletClient(flag string) (string, *api.Client, error) {
	wallet, err := c.Wallet(flag)
	if err != nil {
		return "", nil, err
	}
	client, err := c.Client()
	return wallet, client, err
}

// emit prints v as one JSON document with --json, else calls text.
func (c *cli) emit(v any, text func(w io.Writer)) error {
	if !c.json {
		text(c.stdout)
		return nil
	}
	return writeJSON(c.stdout, v)
}

// writeJSON writes v as one line of JSON (so a list of them is NDJSON).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return cliError(exitFailure, err)
	}
	return nil
}

// note prints a message for the person at the terminal on stderr.
func (c *cli) note(format string, args ...any) {
	fmt.Fprintf(c.stderr, format+"\n", args...)
}

// writeFlags are the flags of a command that moves money or creates something.
type writeFlags struct {
	yes           bool
	confirmAmount string
}

func (w *writeFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&w.yes, "yes", false, "confirm a production write without asking (needed when standard input is not a terminal)")
	cmd.Flags().StringVar(&w.confirmAmount, "confirm-amount", "", "with --yes on a production profile: the amount again, e.g. 12.34 (the dashboard's typed confirmation)")
}

// checkWrite refuses a write on a read_only profile (exit 4) and, on a production profile,
// wants the amount confirmed: typed on a terminal, else --yes with --confirm-amount equal to
// amount (exit 2 otherwise). what names the write for the question.
func (c *cli) checkWrite(w writeFlags, what string, amount api.Money) error {
	if c.p.ReadOnly {
		return cliErrorf(exitPermission, "profile %s is read-only (read_only = true): %s refused, nothing sent", c.p.Name, what)
	}
	if c.p.Environment != api.Production {
		return nil
	}
	if w.yes {
		if w.confirmAmount == "" {
			return usageError("profile %s is production: --yes needs --confirm-amount %s too", c.p.Name, amount.Decimal())
		}
		got, err := parseAmountFlag("--confirm-amount", w.confirmAmount)
		if err != nil {
			return err
		}
		if got != amount {
			return usageError("--confirm-amount %s is not the amount of this %s (%s): nothing sent", got.Decimal(), what, amount.Decimal())
		}
		return nil
	}
	if !stdinTerminal() {
		return usageError("profile %s is production and standard input is not a terminal to ask on: add --yes --confirm-amount %s to %s", c.p.Name, amount.Decimal(), what)
	}
	fmt.Fprintf(c.stderr, "Production profile %s: %s of %s. Type the amount (%s) to confirm: ", c.p.Name, what, amount.BRL(), amount.Decimal())
	answer, _ := bufio.NewReader(promptIn).ReadString('\n')
	got, err := api.ParseDecimal(strings.TrimSpace(answer))
	if err != nil || got != amount {
		return usageError("not confirmed: nothing sent")
	}
	return nil
}

// parseAmountFlag reads an amount in reais with at most two decimals: "12.34", "12,34", or as
// the dashboard prints it, "R$ 1.234,56". "1.234" is an error (three decimals), never one
// thousand two hundred and thirty-four reais; so is an exponent.
func parseAmountFlag(flag, s string) (api.Money, error) {
	s = strings.TrimSpace(s)
	bad := func(err error) (api.Money, error) {
		return 0, cliErrorf(exitUsage, "%s %q: %v (say e.g. 12.34)", flag, s, err)
	}
	if strings.HasPrefix(s, "R$") {
		m, err := api.ParseBRL(s)
		if err != nil {
			return bad(err)
		}
		return m, nil
	}
	if strings.ContainsAny(s, "eE") {
		return bad(api.ErrMoneyFormat)
	}
	d := s
	if strings.Count(d, ",") == 1 && !strings.Contains(d, ".") {
		d = strings.Replace(d, ",", ".", 1)
	}
	m, err := api.ParseDecimal(d)
	if err != nil {
		return bad(err)
	}
	return m, nil
}

// moneyJSON is money in --json output: a string with two decimals and integer centavos.
type moneyJSON struct {
	Amount string `json:"amount"`
	Cents  int64  `json:"amountCents"`
}

func jsonMoney(m api.Money) moneyJSON { return moneyJSON{Amount: m.Decimal(), Cents: int64(m)} }

// rfc3339 formats t for --json ("" for the zero time).
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// rfc3339p formats *t ("" for nil).
func rfc3339p(t *time.Time) string {
	if t == nil {
		return ""
	}
	return rfc3339(*t)
}
