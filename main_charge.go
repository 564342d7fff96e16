package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mdp/qrterminal/v3"
	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// chargeJSON is a charge in --json output (README › Command line › JSON schema).
type chargeJSON struct {
	ID string `json:"id"`
	// State is pixdash's reading of it: pending, paid, expired, failed, cancelled, refunded,
	// returned, blocked, not-found or unknown; Status is the service's own word.
	State  string `json:"state"`
	Status string `json:"status"`
	moneyJSON
	Wallet            string         `json:"wallet"`
	Description       string         `json:"description,omitempty"`
	ExternalReference string         `json:"externalReference,omitempty"`
	IdempotencyKey    string         `json:"idempotencyKey,omitempty"`
	CreatedAt         string         `json:"createdAt,omitempty"`
	ExpiresAt         string         `json:"expiresAt,omitempty"`
	PaidAt            string         `json:"paidAt,omitempty"`
	PixCopyPaste      string         `json:"pixCopyPaste,omitempty"`
	E2EID             string         `json:"e2eId,omitempty"`
	PayerName         string         `json:"payerName,omitempty"`
	PayerDocument     string         `json:"payerDocument,omitempty"` // masked
	FailureReason     string         `json:"failureReason,omitempty"`
	Refunded          *moneyJSON     `json:"refunded,omitempty"`
	Split             []splitLegJSON `json:"split,omitempty"`
	Mismatch          string         `json:"mismatch,omitempty"`
}

// splitLegJSON is one leg of a split in --json output.
type splitLegJSON struct {
	Wallet string `json:"wallet"`
	moneyJSON
}

func chargeOut(ch state.Charge) chargeJSON {
	out := chargeJSON{
		ID: ch.ID, State: string(ch.State()), Status: string(ch.Status), moneyJSON: jsonMoney(ch.Amount),
		Wallet: state.NormalizeWallet(ch.Wallet), Description: ch.Description, ExternalReference: ch.ExternalReference,
		IdempotencyKey: ch.IdempotencyKey, CreatedAt: rfc3339(ch.CreatedAt), ExpiresAt: rfc3339(ch.ExpiresAt),
		PaidAt: rfc3339p(ch.PaidAt), PixCopyPaste: ch.PixCopyPaste, E2EID: ch.E2EID, PayerName: ch.PayerName,
		PayerDocument: state.MaskDocument(ch.PayerDocument), FailureReason: ch.FailureReason, Mismatch: ch.Mismatch,
	}
	if ch.PayerDocument == "" {
		out.PayerDocument = ""
	}
	if ch.Refunded != 0 {
		m := jsonMoney(ch.Refunded)
		out.Refunded = &m
	}
	for _, l := range ch.SplitRequested {
		out.Split = append(out.Split, splitLegJSON{Wallet: l.SubAccount, moneyJSON: jsonMoney(l.Amount)})
	}
	return out
}

// chargeText prints a charge for a person: one field a line.
func chargeText(w io.Writer, ch state.Charge) {
	o := chargeOut(ch)
	fmt.Fprintf(w, "id          %s\nstate       %s (service: %s)\namount      %s\nwallet      %s\n", o.ID, o.State, o.Status, ch.Amount.BRL(), o.Wallet)
	for _, f := range [][2]string{
		{"description", o.Description}, {"reference", o.ExternalReference}, {"key", o.IdempotencyKey},
		{"created", o.CreatedAt}, {"expires", o.ExpiresAt}, {"paid", o.PaidAt}, {"payer", strings.TrimSpace(o.PayerName + " " + o.PayerDocument)},
		{"e2eId", o.E2EID}, {"failure", o.FailureReason}, {"MISMATCH", o.Mismatch}, {"pix code", o.PixCopyPaste},
	} {
		if f[1] != "" {
			fmt.Fprintf(w, "%-11s %s\n", f[0], f[1])
		}
	}
}

// chargeLine prints a charge on one line (charge list).
func chargeLine(w io.Writer, ch state.Charge) {
	fmt.Fprintf(w, "%s  %-9s %14s  %-12s %s  %s\n", ch.ID, ch.State(), ch.Amount.BRL(), state.NormalizeWallet(ch.Wallet),
		ch.CreatedAt.Local().Format("2006-01-02 15:04"), ch.Description)
}

func newChargeCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "charge",
		Short: "Create, read, list and wait for PIX charges",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return usageError("say create, get, list or wait") },
	}
	cmd.AddCommand(newChargeCreateCmd(stdout, stderr), newChargeGetCmd(stdout, stderr), newChargeListCmd(stdout, stderr), newChargeWaitCmd(stdout, stderr))
	return cmd
}

// chargeCreateFlags are the options of pixdash charge create.
type chargeCreateFlags struct {
	commonFlags
	writeFlags
	amount, description, reference, project, psp, wallet, key, split string
	custName, custDoc, custEmail, custPhone                          string
	expiresIn                                                        time.Duration
	metadata                                                         []string
	qr                                                               bool
}

func newChargeCreateCmd(stdout, stderr io.Writer) *cobra.Command {
	var o chargeCreateFlags
	cmd := &cobra.Command{
		Use:   "create --amount A",
		Short: "Create a PIX charge (POST /pix)",
		Long: `Create a PIX charge. The Idempotency-Key (--idempotency-key, else one minted here) is
recorded before the first attempt and printed on stderr: when the reply is lost (exit 8), run
the same command again with that key and the service answers with the same charge, never a
second one. --qr also draws the customer's QR code. On a production profile the amount is
confirmed: typed on a terminal, else --yes --confirm-amount A.`,
		Example: `  pixdash charge create --amount 12.50 --description "Pão de queijo" --external-reference pedido-42 --qr
  pixdash charge create --amount 100 --split loja-praia=10.00,parceiro_entregas=5.00 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChargeCreate(cmd, o, stdout, stderr) },
	}
	o.commonFlags.add(cmd, true)
	o.writeFlags.add(cmd)
	f := cmd.Flags()
	f.StringVar(&o.amount, "amount", "", "amount in reais, e.g. 12.50 (at least 1.00)")
	f.StringVar(&o.description, "description", "", "description (default the profile's default_description)")
	f.StringVar(&o.reference, "external-reference", "", "your reference (an order number); charge get finds the charge by it")
	f.StringVar(&o.project, "project", "", "project id (UUID)")
	f.StringVar(&o.psp, "psp-credential", "", "PSP credential id (UUID)")
	f.DurationVar(&o.expiresIn, "expires-in", 0, "how long the customer has to pay, 5m to 168h (default the service's, 24h)")
	f.StringVar(&o.custName, "customer-name", "", "customer's name")
	f.StringVar(&o.custDoc, "customer-document", "", "customer's CPF or CNPJ")
	f.StringVar(&o.custEmail, "customer-email", "", "customer's e-mail")
	f.StringVar(&o.custPhone, "customer-phone", "", "customer's phone")
	f.StringArrayVar(&o.metadata, "metadata", nil, "metadata key=value (repeatable)")
	f.StringVar(&o.split, "split", "", "split: wallet=amount,… (each leg a sub-account reference, or principal from a sub-account)")
	f.StringVar(&o.wallet, "wallet", "", `wallet to create it in ("principal" or a sub-account reference; default the profile's sub_account)`)
	f.StringVar(&o.key, "idempotency-key", "", "Idempotency-Key to send (8 to 255 characters; default a new one, printed)")
	f.BoolVar(&o.qr, "qr", false, "also draw the customer's QR code (on stderr with --json)")
	return cmd
}

// parseSplit reads --split wallet=amount,…
func parseSplit(s string) ([]api.SplitItem, error) {
	var legs []api.SplitItem
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ref, amt, ok := strings.Cut(part, "=")
		if !ok {
			return nil, usageError("--split %q: say wallet=amount, e.g. loja-praia=10.00", part)
		}
		m, err := parseAmountFlag("--split "+ref, amt)
		if err != nil {
			return nil, err
		}
		legs = append(legs, api.SplitItem{SubAccount: strings.TrimSpace(ref), Amount: m})
	}
	return legs, nil
}

func runChargeCreate(cmd *cobra.Command, o chargeCreateFlags, stdout, stderr io.Writer) error {
	if o.amount == "" {
		return usageError("--amount is required, e.g. --amount 12.50")
	}
	amount, err := parseAmountFlag("--amount", o.amount)
	if err != nil {
		return err
	}
	if o.key != "" {
		if err := api.ValidateIdempotencyKey(o.key); err != nil {
			return usageError("--idempotency-key: %v", err)
		}
	}
	req := api.CreatePixRequest{Amount: amount, ExternalReference: o.reference, ProjectID: o.project, PspCredentialID: o.psp}
	if o.expiresIn != 0 {
		if o.expiresIn%time.Second != 0 {
			return usageError("--expires-in %s: whole seconds only", o.expiresIn)
		}
		req.ExpiresIn = int(o.expiresIn / time.Second)
	}
	if c := (api.Customer{Name: o.custName, Document: o.custDoc, Email: o.custEmail, Phone: o.custPhone}); !c.IsZero() {
		req.Customer = &c
	}
	for _, kv := range o.metadata {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageError("--metadata %q: say key=value", kv)
		}
		if req.Metadata == nil {
			req.Metadata = map[string]any{}
		}
		req.Metadata[k] = v
	}
	if req.Split, err = parseSplit(o.split); err != nil {
		return err
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	wallet, err := c.Wallet(o.wallet)
	if err != nil {
		return err
	}
	req.Description = o.description
	if !cmd.Flags().Changed("description") {
		req.Description = (&workflow.Session{DefaultDescription: c.p.DefaultDescription}).Description()
	}
	// The service's own field rules, checked here so that nothing is sent that it would refuse.
	if ps := api.CheckCreatePix(&req); len(ps) > 0 {
		return cliError(exitValidation, &api.ValidationError{Problems: ps})
	}
	if len(req.Split) > 0 {
		fee := c.p.PixFee // 0 when the profile has no pix_fee: the service checks the sum then
		if ps := api.CheckSplit(req.Split, workflow.SubAccountHeader(wallet), amount, fee, nil); len(ps) > 0 {
			msgs := make([]string, len(ps))
			for i, p := range ps {
				msgs[i] = p.SpecMessage()
			}
			return cliErrorf(exitValidation, "--split: %s (nothing sent)", strings.Join(msgs, "; "))
		}
	}
	if err := c.checkWrite(o.writeFlags, "charge", amount); err != nil {
		return err
	}
	client, err := c.Client()
	if err != nil {
		return err
	}
	store, err := c.Store()
	if err != nil {
		return err
	}
	key := o.key
	if key == "" {
		key = api.NewIdempotencyKey()
	}
	c.note("Idempotency-Key: %s", key)
	r := workflow.CreateCharge(c.ctx, client, store, workflow.Draft{Key: key, Wallet: wallet, Req: req}, nil)
	switch {
	case r.Unconfirmed:
		return cliErrorf(exitUnknown, "the outcome is unknown (%v): run the same command again with --idempotency-key %s, which never creates a second charge", r.Err, key)
	case r.Charge == nil:
		return asCLIError(r.Err)
	case r.Err != nil:
		c.note("warning: the charge was created but not saved locally: %v", r.Err)
	}
	ch := *r.Charge
	if ch.Mismatch != "" {
		return cliErrorf(exitFailure, "the service created charge %s but it differs from the request (%s): do not show it to the customer", ch.ID, ch.Mismatch)
	}
	if err := c.emit(chargeOut(ch), func(w io.Writer) { chargeText(w, ch) }); err != nil {
		return err
	}
	if o.qr && ch.PixCopyPaste != "" {
		w := stdout
		if c.json {
			w = stderr
		}
		drawQR(w, ch.PixCopyPaste)
	}
	return nil
}

// drawQR draws a PIX code as a QR code in half blocks, with a quiet zone, for a phone to scan.
func drawQR(w io.Writer, code string) {
	qrterminal.GenerateWithConfig(code, qrterminal.Config{
		Level: qrterminal.M, Writer: w, HalfBlocks: true, QuietZone: 2,
		BlackChar: qrterminal.BLACK_BLACK, WhiteBlackChar: qrterminal.WHITE_BLACK,
		WhiteChar: qrterminal.WHITE_WHITE, BlackWhiteChar: qrterminal.BLACK_WHITE,
	})
}

// chargeGetFlags are the options of charge get and charge wait.
type chargeGetFlags struct {
	commonFlags
	wallet  string
	timeout time.Duration
	every   time.Duration
}

func newChargeGetCmd(stdout, stderr io.Writer) *cobra.Command {
	var o chargeGetFlags
	cmd := &cobra.Command{
		Use:   "get ID|EXTERNAL_REFERENCE|IDEMPOTENCY_KEY",
		Short: "Read a charge from the service (GET /transactions/{id}) and track it",
		Example: `  pixdash charge get pedido-42 --json
  pixdash charge get 3f6c… --wallet loja-praia`,
		Args: exactArgs(1, "the charge's id, external reference or idempotency key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			ch, err := readCharge(c, args[0], o.wallet)
			if err != nil {
				return err
			}
			return c.emit(chargeOut(ch), func(w io.Writer) { chargeText(w, ch) })
		},
	}
	o.add(cmd, true)
	cmd.Flags().StringVar(&o.wallet, "wallet", "", "wallet the charge is in (default: the one it was tracked in, else the profile's)")
	return cmd
}

// exactArgs wants n positional arguments, naming what they are in the usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("say %s (%d argument(s), got %d)", what, n, len(args))
		}
		return nil
	}
}

// readCharge reads a charge from the service (by id, external reference or idempotency key)
// in its wallet and applies the answer to the profile's store, which it starts tracking.
func readCharge(c *cli, ref, walletFlag string) (state.Charge, error) {
	client, err := c.Client()
	if err != nil {
		return state.Charge{}, err
	}
	store, err := c.Store()
	if err != nil {
		return state.Charge{}, err
	}
	wallet, err := c.Wallet(walletFlag)
	if err != nil {
		return state.Charge{}, err
	}
	if walletFlag == "" {
		if ch, ok, _ := store.Charge(c.ctx, ref); ok && ch.Wallet != "" {
			wallet = ch.Wallet
		}
	}
	tx, err := client.GetTransaction(c.ctx, ref, api.WithSubAccount(workflow.SubAccountHeader(wallet)))
	if errors.Is(err, api.ErrNotFound) && !errors.Is(err, api.ErrSubAccountNotFound) {
		return state.Charge{}, cliErrorf(exitNotFound, "no charge %q in wallet %s: %v", ref, wallet, err)
	}
	if err != nil {
		return state.Charge{}, asCLIError(err)
	}
	ch, err := store.TrackTransaction(c.ctx, tx, wallet)
	if err != nil {
		return state.Charge{}, cliError(exitFailure, err)
	}
	return ch, nil
}

func newChargeWaitCmd(stdout, stderr io.Writer) *cobra.Command {
	var o chargeGetFlags
	cmd := &cobra.Command{
		Use:   "wait ID",
		Short: "Wait until the service confirms a charge paid, expired or failed",
		Long: `Wait until the service confirms that the charge was paid (exit 0), expired or cancelled
(10: it can no longer be paid) or failed (11), or --timeout passes (12). Only the service's answer to GET /transactions/{id} counts: a
webhook event the profile's receiver records only makes it ask sooner. It runs the dashboard's
engine: the profile's on_paid runs here if this command is the first to see the payment.`,
		Example: `  pixdash charge wait "$id" --timeout 10m; case $? in 0) echo paid;; 10) echo expired;; 11) echo failed;; 12) echo still waiting;; esac`,
		Args:    exactArgs(1, "the charge's id"),
		RunE:    func(cmd *cobra.Command, args []string) error { return runChargeWait(cmd, o, args[0], stdout, stderr) },
	}
	o.add(cmd, true)
	cmd.Flags().StringVar(&o.wallet, "wallet", "", "wallet the charge is in (default: the one it was tracked in, else the profile's)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 15*time.Minute, "give up after this long (exit 12)")
	cmd.Flags().DurationVar(&o.every, "interval", 2*time.Second, "how often to ask the service")
	return cmd
}

// waitVerdict is the exit code of charge wait for a charge's state, and whether it is final.
func waitVerdict(s state.ChargeState) (int, bool) {
	switch {
	case s.Received():
		return exitOK, true
	case s == state.StateExpired || s == state.StateCancelled:
		// The service reports an expired charge as cancelled: either way it can no longer be paid.
		return exitWaitExpired, true
	case s == state.StateFailed:
		return exitWaitFailed, true
	case s == state.StateNotFound:
		return exitNotFound, true
	}
	return 0, false
}

func runChargeWait(cmd *cobra.Command, o chargeGetFlags, id string, stdout, stderr io.Writer) error {
	if o.timeout <= 0 || o.every <= 0 {
		return usageError("--timeout and --interval must be positive")
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	ch, err := readCharge(c, id, o.wallet)
	if err != nil {
		return err
	}
	if code, final := waitVerdict(ch.State()); final {
		return waitDone(c, ch, code)
	}
	client, _ := c.Client()
	store, _ := c.Store()
	// The session's engine (the dashboard's): it polls the charge every --interval and reads
	// back each payment event the profile's receiver records about it (a webhook only makes it
	// ask sooner); the state comes only from GET /transactions/{id}. on_paid runs here when
	// this command is the first to see the payment.
	sess := &workflow.Session{Profile: c.p.Name, Env: c.p.Environment, ReadOnly: c.p.ReadOnly, Client: client, Store: store}
	if len(c.p.OnPaid) > 0 {
		sess.OnPaid = &workflow.OnPaidCommand{Argv: c.p.OnPaid, Timeout: c.p.OnPaidTimeout, Hide: c.p.SecretEnvNames(), Profile: c.p.Name}
	}
	eng := workflow.NewEngine(sess, workflow.EngineOptions{WatchEvery: o.every, NoStartup: true})
	defer eng.Close()
	eng.Watch(ch.ID)
	eng.Start()
	ctx, cancel := context.WithTimeout(c.ctx, o.timeout)
	defer cancel()
	for {
		var r workflow.Report
		select {
		case <-ctx.Done():
			if c.ctx.Err() != nil {
				return cliErrorf(exitFailure, "interrupted")
			}
			return cliErrorf(exitWaitTimeout, "charge %s is still %s after %s", ch.ID, ch.State(), o.timeout)
		case r = <-eng.Reports():
		}
		switch r := r.(type) {
		case workflow.ChargeChanged:
			if r.ID != ch.ID {
				continue
			}
			if r.After.ID != "" {
				ch = r.After
			}
			if r.Err != nil {
				if code := exitCodeOf(r.Err); code == exitAuth || code == exitPermission {
					return asCLIError(r.Err)
				}
				if ch.State() != state.StateNotFound {
					c.note("warning: %v (asking again)", r.Err)
				}
			}
		case workflow.EventConfirmed:
			if r.Err != nil || r.Conf.After.ID != ch.ID {
				continue
			}
			ch = r.Conf.After
		default:
			continue
		}
		if code, final := waitVerdict(ch.State()); final {
			return waitDone(c, ch, code)
		}
	}
}

// waitDone prints the charge charge wait ends with and ends with its exit code.
func waitDone(c *cli, ch state.Charge, code int) error {
	if err := c.emit(chargeOut(ch), func(w io.Writer) { chargeLine(w, ch) }); err != nil {
		return err
	}
	if code != exitOK {
		return cliErrorf(code, "charge %s is %s", ch.ID, ch.State())
	}
	return nil
}

// chargeListFlags are the options of pixdash charge list.
type chargeListFlags struct {
	commonFlags
	status, since, wallet string
	allWallets            bool
	limit                 int
}

func newChargeListCmd(stdout, stderr io.Writer) *cobra.Command {
	var o chargeListFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profile's tracked charges, newest first (from its local database)",
		Example: `  pixdash charge list --status paid --since 2025-01-31 --json | jq -r .amount
  pixdash charge list --all-wallets --limit 20`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChargeList(cmd, o, stdout, stderr) },
	}
	o.add(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.status, "status", "", "only this state: pending, paid, expired, failed, cancelled, refunded, returned, blocked, not-found")
	f.StringVar(&o.since, "since", "", "only charges created on or after this day (YYYY-MM-DD, local time) or time (RFC 3339)")
	f.StringVar(&o.wallet, "wallet", "", "only this wallet (default the profile's sub_account)")
	f.BoolVar(&o.allWallets, "all-wallets", false, "every wallet")
	f.IntVar(&o.limit, "limit", 50, "at most this many charges (0: all)")
	return cmd
}

// parseSince reads --since: a day (local midnight) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, usageError("--since %q: say a day like 2025-01-31 or a time like 2025-01-31T14:00:00-03:00", s)
}

var chargeStates = []state.ChargeState{state.StatePending, state.StatePaid, state.StateExpired, state.StateFailed,
	state.StateCancelled, state.StateRefunded, state.StateReturned, state.StateBlocked, state.StateNotFound, state.StateUnknown}

func runChargeList(cmd *cobra.Command, o chargeListFlags, stdout, stderr io.Writer) error {
	q := state.ChargeQuery{Status: state.FilterAll}
	if o.status != "" {
		ok := false
		for _, s := range chargeStates {
			ok = ok || string(s) == o.status
		}
		if !ok {
			return usageError("--status %q: say one of pending, paid, expired, failed, cancelled, refunded, returned, blocked, not-found", o.status)
		}
		q.Status = state.StatusFilter(o.status)
	}
	since, err := parseSince(o.since)
	if err != nil {
		return err
	}
	if o.allWallets && o.wallet != "" {
		return usageError("say --wallet or --all-wallets, not both")
	}
	if o.limit < 0 {
		return usageError("--limit must be 0 (all) or more")
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if !o.allWallets {
		if q.Wallet, err = c.Wallet(o.wallet); err != nil {
			return err
		}
	}
	store, err := c.Store()
	if err != nil {
		return err
	}
	if o.wallet != "" {
		if err := knownWallet(c.ctx, store, c.p, q.Wallet); err != nil {
			return err
		}
	}
	const page = 500
	n := 0
	for offset := 0; ; offset += page {
		pg, err := store.ChargeWindow(c.ctx, q, offset, page)
		if err != nil {
			return cliError(exitFailure, err)
		}
		for _, ch := range pg.Charges {
			if !since.IsZero() && ch.CreatedAt.Before(since) {
				return nil // newest first: the rest is older
			}
			if c.json {
				if err := writeJSON(stdout, chargeOut(ch)); err != nil {
					return err
				}
			} else {
				chargeLine(stdout, ch)
			}
			if n++; o.limit > 0 && n >= o.limit {
				return nil
			}
		}
		if len(pg.Charges) < page {
			return nil
		}
	}
}
