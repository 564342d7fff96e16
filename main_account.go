package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// walletJSON is one wallet's balances in --json output (wallets prints NDJSON).
type walletJSON struct {
	Wallet      string     `json:"wallet"`
	Status      string     `json:"status,omitempty"`
	Available   *moneyJSON `json:"available,omitempty"`
	Held        *moneyJSON `json:"held,omitempty"`
	Promotional *moneyJSON `json:"promotional,omitempty"`
	Total       *moneyJSON `json:"total,omitempty"`
	UpdatedAt   string     `json:"updatedAt,omitempty"`
	Error       string     `json:"error,omitempty"`
}

func moneyp(m *api.Money) *moneyJSON {
	if m == nil {
		return nil
	}
	j := jsonMoney(*m)
	return &j
}

func newWalletsCmd(stdout, stderr io.Writer) *cobra.Command {
	var o commonFlags
	cmd := &cobra.Command{
		Use:   "wallets",
		Short: "Print the balances of every wallet the credential can read (GET /account)",
		Long: `Print the balances of the main account ("principal"), the profile's sub_account and every
usable sub-account the service lists: available, held (MED and other blocks), promotional and
total. A wallet whose read fails says why (the service's message and traceId); the command then
exits with that failure's code after printing the others.`,
		Example: `  pixdash wallets
  pixdash wallets --json | jq -r 'select(.wallet=="principal") | .available.amount'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, o, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			client, err := c.Client()
			if err != nil {
				return err
			}
			base := []string{api.WalletPrincipal}
			if w := state.NormalizeWallet(c.p.SubAccount); w != api.WalletPrincipal {
				base = append(base, w)
			}
			var firstErr error
			for _, w := range workflow.CloseWallets(c.ctx, client, base) {
				a, err := client.GetAccount(c.ctx, api.WithSubAccount(workflow.SubAccountHeader(w)))
				out := walletJSON{Wallet: w}
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					out.Error = workflow.BalanceErrText(err)
				} else {
					b := a.Balance
					out.Status, out.Available, out.Held, out.Promotional, out.Total = string(a.Status), moneyp(b.Available), moneyp(b.Held), moneyp(b.Promotional), moneyp(b.Total)
					out.UpdatedAt = rfc3339p(b.UpdatedAt)
				}
				if c.json {
					if err := writeJSON(stdout, out); err != nil {
						return err
					}
					continue
				}
				if out.Error != "" {
					fmt.Fprintf(stdout, "%-20s %s\n", w, out.Error)
					continue
				}
				fmt.Fprintf(stdout, "%-20s available %14s  held %12s  total %14s\n", w, brl(a.Balance.Available), brl(a.Balance.Held), brl(a.Balance.Total))
			}
			if firstErr != nil {
				return cliError(exitCodeOf(firstErr), fmt.Errorf("a wallet could not be read: %w", firstErr))
			}
			return nil
		},
	}
	o.add(cmd, true)
	return cmd
}

// brl formats a balance figure ("—" when the service sent none).
func brl(m *api.Money) string {
	if m == nil {
		return "—"
	}
	return m.BRL()
}

// whoamiJSON is what pixdash whoami --json prints. The secret is never in it: SecretSource
// says where it is read from.
type whoamiJSON struct {
	Profile       string `json:"profile"`
	Environment   string `json:"environment"`
	BaseURL       string `json:"baseUrl"`
	ClientID      string `json:"clientId"`
	SecretSource  string `json:"secretSource"`
	ReadOnly      bool   `json:"readOnly"`
	Wallet        string `json:"wallet"`
	Receiver      string `json:"receiver,omitempty"`
	Authenticated bool   `json:"authenticated"`
	// Access is what the service answered to one read of each kind: "ok", "forbidden" (a
	// missing permission) or the failure.
	Access map[string]string `json:"access,omitempty"`
	// SubAccountAccess is "on", "off" (403 SUB_ACCOUNT_FORBIDDEN) or "unknown" (no sub-account to try).
	SubAccountAccess string `json:"subAccountAccess,omitempty"`
	Error            string `json:"error,omitempty"`
}

func newWhoamiCmd(stdout, stderr io.Writer) *cobra.Command {
	var o commonFlags
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Say which account, environment and credential a profile uses (exit 3 when refused)",
		Long: `Say which profile, environment, base URL and credential id (never the secret) a profile
uses, sign in (exit 3 when the credential is refused), and ask the service one read of each
kind to show what the credential may do: account (ACCOUNT:READ), sub-accounts
(SUBACCOUNT:READ), projects (PROJECT:READ), balance blocks (BALANCE_BLOCK:READ), and whether
its sub-account access is on.`,
		Example: `  pixdash whoami --profile loja || echo "credential refused"`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, o, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			p := c.p
			out := whoamiJSON{Profile: p.Name, Environment: string(p.Environment), BaseURL: p.BaseURL, ClientID: p.ClientID,
				SecretSource: p.SecretSource(), ReadOnly: p.ReadOnly, Wallet: state.NormalizeWallet(p.SubAccount)}
			if p.Webhook.Enabled() {
				out.Receiver = p.Webhook.Listen
			}
			client, err := c.Client()
			var authErr error
			if err == nil {
				authErr = client.Authenticate(c.ctx)
			} else {
				authErr = err
			}
			if authErr == nil {
				out.Authenticated = true
				out.Access, out.SubAccountAccess = probeAccess(c.ctx, client, out.Wallet)
			} else {
				out.Error = authErr.Error()
			}
			if err := c.emit(out, func(w io.Writer) { whoamiText(w, out) }); err != nil {
				return err
			}
			if authErr != nil {
				code := exitCodeOf(authErr)
				if code == exitFailure || code == exitNotFound || code == exitValidation {
					var ae *api.Error
					if errors.As(authErr, &ae) && ae.HTTPStatus < 500 {
						code = exitAuth
					}
				}
				return cliError(code, fmt.Errorf("profile %s: sign in refused: %w", p.Name, authErr))
			}
			return nil
		},
	}
	o.add(cmd, true)
	return cmd
}

func whoamiText(w io.Writer, o whoamiJSON) {
	fmt.Fprintf(w, "profile       %s\nenvironment   %s\nbase URL      %s\nclient id     %s\nsecret from   %s\nwallet        %s\n",
		o.Profile, o.Environment, o.BaseURL, o.ClientID, o.SecretSource, o.Wallet)
	if o.ReadOnly {
		fmt.Fprintln(w, "read-only     yes (writes refused)")
	}
	if o.Receiver != "" {
		fmt.Fprintf(w, "receiver      %s\n", o.Receiver)
	}
	if !o.Authenticated {
		fmt.Fprintf(w, "signed in     no: %s\n", o.Error)
		return
	}
	fmt.Fprintln(w, "signed in     yes")
	for _, k := range []string{"account", "subaccounts", "projects", "blocks"} {
		if v, ok := o.Access[k]; ok {
			fmt.Fprintf(w, "  %-12s %s\n", k, v)
		}
	}
	fmt.Fprintf(w, "sub-account access %s\n", o.SubAccountAccess)
}

// probeAccess asks one read of each kind and says what the service answered.
func probeAccess(ctx context.Context, c *api.Client, wallet string) (map[string]string, string) {
	verdict := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, api.ErrForbidden):
			return "forbidden: " + workflow.BalanceErrText(err)
		}
		return workflow.BalanceErrText(err)
	}
	access := map[string]string{}
	_, err := c.GetAccount(ctx)
	access["account"] = verdict(err)
	subs, err := c.ListSubAccounts(ctx)
	access["subaccounts"] = verdict(err)
	_, err = c.ListProjects(ctx, api.ProjectQuery{})
	access["projects"] = verdict(err)
	_, err = c.ListBalanceBlocks(ctx, "")
	access["blocks"] = verdict(err)
	ref := ""
	if wallet != api.WalletPrincipal {
		ref = wallet
	}
	for _, s := range subs {
		if ref == "" && s.Status.Usable() {
			ref = s.Reference
		}
	}
	if ref == "" {
		return access, "unknown"
	}
	_, err = c.GetAccount(ctx, api.WithSubAccount(ref))
	switch {
	case err == nil:
		return access, "on"
	case errors.Is(err, api.ErrSubAccountForbidden):
		return access, "off"
	}
	return access, "unknown (" + verdict(err) + ")"
}

// checkCreate refuses a creation on a read_only profile (exit 4) and, on a production
// profile, wants it confirmed: asked on a terminal, else --yes (exit 2 without it).
func (c *cli) checkCreate(yes bool, what string) error {
	if c.p.ReadOnly {
		return cliErrorf(exitPermission, "profile %s is read-only (read_only = true): %s refused, nothing sent", c.p.Name, what)
	}
	if c.p.Environment != api.Production || yes {
		return nil
	}
	if !stdinTerminal() {
		return usageError("profile %s is production and standard input is not a terminal to ask on: add --yes to create %s", c.p.Name, what)
	}
	fmt.Fprintf(c.stderr, "Production profile %s: create %s? [y/N] ", c.p.Name, what)
	answer, _ := bufio.NewReader(promptIn).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes", "s", "sim":
		return nil
	}
	return usageError("not confirmed: nothing sent")
}

// subAccountJSON is a sub-account in --json output.
type subAccountJSON struct {
	ID        string `json:"id"`
	Reference string `json:"reference"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt,omitempty"`
}

func subAccountOut(s api.SubAccount) subAccountJSON {
	return subAccountJSON{ID: s.ID, Reference: s.Reference, Name: s.Name, Status: string(s.Status), CreatedAt: rfc3339(s.CreatedAt)}
}

func newSubAccountCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "subaccount",
		Short: "List or create sub-accounts (wallets) of the main account",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return usageError("say list or create") },
	}
	var lo commonFlags
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the sub-accounts (GET /sub-accounts)",
		Example: `  pixdash subaccount list --json | jq -r .reference`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, lo, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			client, err := c.Client()
			if err != nil {
				return err
			}
			subs, err := client.ListSubAccounts(c.ctx)
			if err != nil {
				return asCLIError(err)
			}
			for _, s := range subs {
				if c.json {
					if err := writeJSON(stdout, subAccountOut(s)); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(stdout, "%-32s %-10s %s\n", s.Reference, s.Status, s.Name)
			}
			return nil
		},
	}
	lo.add(list, true)
	var co commonFlags
	var ref, name string
	var yes bool
	create := &cobra.Command{
		Use:     "create --reference REF --name NAME",
		Short:   "Create a sub-account (POST /sub-accounts)",
		Example: `  pixdash subaccount create --reference loja-norte --name "Loja Norte"`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := api.ValidateSubAccountRef(ref); err != nil {
				return cliErrorf(exitValidation, "--reference: %v (nothing sent)", err)
			}
			if strings.TrimSpace(name) == "" || len([]rune(name)) > api.MaxSubAccountName {
				return cliErrorf(exitValidation, "--name: 1 to %d characters (nothing sent)", api.MaxSubAccountName)
			}
			c, err := openCLI(cmd, co, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.checkCreate(yes, "sub-account "+ref); err != nil {
				return err
			}
			client, err := c.Client()
			if err != nil {
				return err
			}
			s, err := client.CreateSubAccount(c.ctx, &api.CreateSubAccountRequest{Reference: ref, Name: name})
			if err != nil {
				return asCLIError(err)
			}
			return c.emit(subAccountOut(*s), func(w io.Writer) {
				fmt.Fprintf(w, "Created sub-account %s (%s): %s\n", s.Reference, s.Status, s.Name)
			})
		},
	}
	co.add(create, true)
	create.Flags().StringVar(&ref, "reference", "", "the wallet's reference: 2 to 32 of a-z, 0-9, - and _")
	create.Flags().StringVar(&name, "name", "", "its name")
	create.Flags().BoolVar(&yes, "yes", false, "create on a production profile without asking")
	cmd.AddCommand(list, create)
	return cmd
}

// projectJSON is a project in --json output.
type projectJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
	CreatedAt   string `json:"createdAt,omitempty"`
}

func projectOut(p api.Project) projectJSON {
	return projectJSON{ID: p.ID, Name: p.Name, Color: p.Color, Description: p.Description, CreatedAt: rfc3339(p.CreatedAt)}
}

func newProjectsCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "projects",
		Short: "List, read or create the projects of a wallet",
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return usageError("say list, get or create") },
	}
	printProject := func(c *cli, p api.Project) error {
		return c.emit(projectOut(p), func(w io.Writer) { fmt.Fprintf(w, "%s  %-8s %s\n", p.ID, p.Color, p.Name) })
	}
	var lo struct {
		commonFlags
		wallet string
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List a wallet's projects, by name (GET /projects, every page)",
		Example: `  pixdash projects list --wallet loja-centro --json`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCLI(cmd, lo.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			wallet, client, err := c.WalletClient(lo.wallet)
			if err != nil {
				return err
			}
			ps, err := workflow.LoadProjects(c.ctx, client, wallet)
			if err != nil {
				return asCLIError(err)
			}
			for _, p := range ps {
				if err := printProject(c, p); err != nil {
					return err
				}
			}
			return nil
		},
	}
	lo.add(list, true)
	list.Flags().StringVar(&lo.wallet, "wallet", "", "wallet (default the profile's)")
	var gop struct {
		commonFlags
		wallet string
	}
	get := &cobra.Command{
		Use:     "get ID",
		Short:   "Read a project (GET /projects/{id})",
		Example: `  pixdash projects get 3f6c2a… --json`,
		Args:    exactArgs(1, "the project's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := openCLI(cmd, gop.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			wallet, client, err := c.WalletClient(gop.wallet)
			if err != nil {
				return err
			}
			p, err := client.GetProject(c.ctx, args[0], api.WithSubAccount(workflow.SubAccountHeader(wallet)))
			if err != nil {
				return asCLIError(err)
			}
			return printProject(c, *p)
		},
	}
	gop.add(get, true)
	get.Flags().StringVar(&gop.wallet, "wallet", "", "wallet (default the profile's)")
	var cop struct {
		commonFlags
		wallet string
		yes    bool
		req    api.CreateProjectRequest
	}
	create := &cobra.Command{
		Use:     "create --name NAME --color #RRGGBB",
		Short:   "Create a project (POST /projects)",
		Example: `  pixdash projects create --name Delivery --color '#1e90ff'`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if ps := api.CheckCreateProject(&cop.req); len(ps) > 0 {
				return cliError(exitValidation, &api.ValidationError{Problems: ps})
			}
			c, err := openCLI(cmd, cop.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			wallet, err := c.Wallet(cop.wallet)
			if err != nil {
				return err
			}
			if err := c.checkCreate(cop.yes, "project "+cop.req.Name); err != nil {
				return err
			}
			client, err := c.Client()
			if err != nil {
				return err
			}
			p, err := client.CreateProject(c.ctx, &cop.req, api.WithSubAccount(workflow.SubAccountHeader(wallet)))
			if err != nil {
				return asCLIError(err)
			}
			return printProject(c, *p)
		},
	}
	cop.add(create, true)
	f := create.Flags()
	f.StringVar(&cop.wallet, "wallet", "", "wallet (default the profile's)")
	f.StringVar(&cop.req.Name, "name", "", "the project's name")
	f.StringVar(&cop.req.Color, "color", "", "its colour, #rgb or #rrggbb")
	f.StringVar(&cop.req.Description, "description", "", "its description")
	f.StringVar(&cop.req.LogoURL, "logo-url", "", "its logo's URL")
	f.BoolVar(&cop.yes, "yes", false, "create on a production profile without asking")
	cmd.AddCommand(list, get, create)
	return cmd
}

// blockJSON is a balance block in --json output.
type blockJSON struct {
	ID            string `json:"id"`
	TransactionID string `json:"transactionId"`
	Status        string `json:"status"`
	Type          string `json:"blockType"`
	moneyJSON
	Reason     string `json:"reason,omitempty"`
	CreatedAt  string `json:"createdAt,omitempty"`
	ResolvedAt string `json:"resolvedAt,omitempty"`
}

func newBlocksCmd(stdout, stderr io.Writer) *cobra.Command {
	var o struct {
		commonFlags
		status, wallet string
	}
	cmd := &cobra.Command{
		Use:     "blocks",
		Short:   "List a wallet's balance blocks (MED, judicial, administrative; GET /balance-blocks)",
		Example: `  pixdash blocks --status awaiting_response --json`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st := api.BlockStatus(o.status)
			switch st {
			case "", api.BlockAwaitingResponse, api.BlockDefended, api.BlockApproved, api.BlockRejected:
			default:
				return usageError("--status %q: say awaiting_response, defended, approved or rejected", o.status)
			}
			c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
			if err != nil {
				return err
			}
			defer c.Close()
			wallet, client, err := c.WalletClient(o.wallet)
			if err != nil {
				return err
			}
			l, err := client.ListBalanceBlocks(c.ctx, st, api.WithSubAccount(workflow.SubAccountHeader(wallet)))
			if err != nil {
				return asCLIError(err)
			}
			for _, b := range l.Items {
				out := blockJSON{ID: b.ID, TransactionID: b.TransactionID, Status: string(b.Status), Type: b.BlockType,
					moneyJSON: jsonMoney(b.Amount), Reason: b.Reason, CreatedAt: rfc3339(b.CreatedAt), ResolvedAt: rfc3339p(b.ResolvedAt)}
				if c.json {
					if err := writeJSON(stdout, out); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(stdout, "%s  %-18s %-14s %14s  %s  %s\n", b.ID, b.Status, b.BlockType, b.Amount.BRL(), b.TransactionID, b.Reason)
			}
			return nil
		},
	}
	o.add(cmd, true)
	cmd.Flags().StringVar(&o.status, "status", "", "only this status: awaiting_response, defended, approved, rejected")
	cmd.Flags().StringVar(&o.wallet, "wallet", "", "wallet (default the profile's)")
	return cmd
}
