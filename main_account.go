package main

import (
	"context"
	"errors"
	"fmt"
	"io"

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
