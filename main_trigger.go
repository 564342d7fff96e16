package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"pixdash/api/safetext"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state/workflow"
)

// triggerKinds are the events pixdash trigger can make the emulator produce.
var triggerKinds = []string{
	"payment_completed", "payment_failed", "payment_expired", "refund_completed",
	"withdrawal_completed", "withdrawal_failed", "withdrawal_reversed",
	"balance_block_created", "balance_block_approved", "balance_block_rejected",
}

// triggerFlags are the options of pixdash trigger.
type triggerFlags struct {
	commonFlags
	charge, amount, payerName, document, wallet string
	overrides                                   []string
}

// triggerJSON is what pixdash trigger --json prints: the event kind asked for and the ids it
// touched (the event itself reaches the profile's receiver as the service would send it).
type triggerJSON struct {
	Kind         string `json:"kind"`
	ChargeID     string `json:"chargeId,omitempty"`
	WithdrawalID string `json:"withdrawalId,omitempty"`
	BlockID      string `json:"blockId,omitempty"`
	Status       string `json:"status,omitempty"`
}

func newTriggerCmd(stdout, stderr io.Writer) *cobra.Command {
	var o triggerFlags
	cmd := &cobra.Command{
		Use:   "trigger KIND",
		Short: "Make the sandbox emulator produce a real event (sandbox profiles only)",
		Long: `Make the emulator (pixdash sandbox, or the in-process one of a sandbox profile on a loopback
address) produce a real event through its control endpoints, delivered to the registered
webhook endpoints as the service would: ` + strings.Join(triggerKinds, ", ") + `.

payment_* and balance_block_* act on --charge, else on a new charge (--amount, default 10.00);
payment_failed pays with a CNPJ payer, which the sandbox account refuses. Refused for a
production profile (exit 4). A base URL that is not pixdash's emulator (its control
endpoints answer 404: a real sandbox, another server) is said so before anything is sent (exit 6).

--override field=value sets what the control endpoint takes: payerName, payerDocument,
amount; and for balance_block_*: reason, blockType (med, judicial, administrative).`,
		Example: `  id=$(pixdash trigger payment_completed --amount 12.34 --json | jq -r .chargeId)
  pixdash trigger payment_completed --charge "$id" --payer-name "Maria da Silva" --document 52998224725
  pixdash trigger withdrawal_failed --override reason="conta encerrada"`,
		ValidArgs: triggerKinds,
		Args:      exactArgs(1, "the event kind: "+strings.Join(triggerKinds, ", ")),
		RunE:      func(cmd *cobra.Command, args []string) error { return runTrigger(cmd, o, args[0], stdout, stderr) },
	}
	o.add(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.charge, "charge", "", "the charge to act on (default: a new one)")
	f.StringVar(&o.amount, "amount", "", "amount of the new charge, withdrawal or block (default 10.00, the withdrawal 1.00)")
	f.StringVar(&o.payerName, "payer-name", "", "payer's name (default the emulator's)")
	f.StringVar(&o.document, "document", "", "payer's CPF or CNPJ (a CNPJ payer fails on the sandbox account)")
	f.StringVar(&o.wallet, "wallet", "", "wallet of the new charge or withdrawal (default the profile's)")
	f.StringArrayVar(&o.overrides, "override", nil, "field=value the control endpoint takes (repeatable)")
	return cmd
}

func runTrigger(cmd *cobra.Command, o triggerFlags, kind string, stdout, stderr io.Writer) error {
	if !slices.Contains(triggerKinds, kind) {
		return usageError("unknown event kind %q: say one of %s", kind, strings.Join(triggerKinds, ", "))
	}
	var reason, blockType string
	for _, kv := range o.overrides {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageError("--override %q: say field=value", kv)
		}
		switch k {
		case "payerName":
			o.payerName = v
		case "payerDocument":
			o.document = v
		case "amount":
			o.amount = v
		case "reason":
			reason = v
		case "blockType":
			blockType = v
		default:
			return usageError("--override %s: the control endpoints take payerName, payerDocument, amount, reason and blockType", k)
		}
	}
	if (reason != "" || blockType != "") && !strings.HasPrefix(kind, "balance_block_") {
		return usageError("--override reason and blockType are taken by balance_block_* only")
	}
	var amount *api.Money
	if o.amount != "" {
		m, err := parseAmountFlag("--amount", o.amount)
		if err != nil {
			return err
		}
		amount = &m
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if c.p.Environment != api.Sandbox {
		return cliErrorf(exitPermission, "profile %s is %s: trigger works only on sandbox profiles (the emulator's control endpoints)", c.p.Name, c.p.Environment)
	}
	wallet, client, err := c.WalletClient(o.wallet)
	if err != nil {
		return err
	}
	ctl := sandbox.NewControl(client)
	if err := checkEmulator(c, ctl); err != nil {
		return err
	}
	out := triggerJSON{Kind: kind}

	// charge is --charge, else a new charge created as charge create does (recorded first).
	charge := func() (string, error) {
		if o.charge != "" {
			return o.charge, nil
		}
		store, err := c.Store()
		if err != nil {
			return "", err
		}
		m := api.Money(1000)
		if amount != nil {
			m = *amount
		}
		req := api.CreatePixRequest{Amount: m, Description: "pixdash trigger " + kind}
		if ps := api.CheckCreatePix(&req); len(ps) > 0 {
			return "", cliError(exitValidation, &api.ValidationError{Problems: ps})
		}
		r := workflow.CreateCharge(c.ctx, client, store, workflow.Draft{Key: api.NewIdempotencyKey(), Wallet: wallet, Req: req}, nil)
		if r.Charge == nil {
			return "", asCLIError(r.Err)
		}
		return r.Charge.ID, nil
	}
	pay := func(id, doc string) (*api.Transaction, error) {
		tx, err := ctl.PayCharge(c.ctx, id, o.payerName, doc)
		return tx, asCLIError(err)
	}
	paid := func() (string, error) {
		id, err := charge()
		if err != nil {
			return "", err
		}
		if o.charge != "" {
			return id, nil // already paid, presumably: the endpoint says otherwise
		}
		_, err = pay(id, o.document)
		return id, err
	}

	switch kind {
	case "payment_completed", "payment_failed":
		doc := o.document
		if kind == "payment_failed" && doc == "" {
			doc = "11222333000181" // a CNPJ payer: refused by the sandbox account (block_cnpj_payers)
		}
		if out.ChargeID, err = charge(); err != nil {
			return err
		}
		tx, err := pay(out.ChargeID, doc)
		if err != nil {
			return err
		}
		out.Status = string(tx.Status)
	case "payment_expired":
		if out.ChargeID, err = charge(); err != nil {
			return err
		}
		if err := ctl.Expire(c.ctx, out.ChargeID); err != nil {
			return asCLIError(err)
		}
		out.Status = "expired"
	case "refund_completed":
		if out.ChargeID, err = paid(); err != nil {
			return err
		}
		tx, err := ctl.RefundCharge(c.ctx, out.ChargeID, amount)
		if err != nil {
			return asCLIError(err)
		}
		out.Status = string(tx.Status)
	case "withdrawal_completed", "withdrawal_failed", "withdrawal_reversed":
		m := api.Money(100)
		if amount != nil {
			m = *amount
		}
		tx, err := ctl.Withdraw(c.ctx, sandbox.WithdrawalRequest{Amount: m, SubAccount: workflow.SubAccountHeader(wallet),
			Outcome: strings.TrimPrefix(kind, "withdrawal_")})
		if err != nil {
			return asCLIError(err)
		}
		out.WithdrawalID, out.Status = tx.ID, string(tx.Status)
	default: // balance_block_*
		if out.ChargeID, err = paid(); err != nil {
			return err
		}
		b, err := ctl.CreateBlock(c.ctx, sandbox.BlockRequest{TransactionID: out.ChargeID, Amount: nil, BlockType: blockType, Reason: reason})
		if err != nil {
			return asCLIError(err)
		}
		out.BlockID, out.Status = b.ID, string(b.Status)
		if kind != "balance_block_created" {
			status := api.BlockApproved
			if kind == "balance_block_rejected" {
				status = api.BlockRejected
			}
			if b, err = ctl.ResolveBlock(c.ctx, b.ID, status, reason); err != nil {
				return asCLIError(err)
			}
			out.Status = string(b.Status)
		}
	}
	return c.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "%s triggered", kind)
		for _, f := range [][2]string{{"charge", out.ChargeID}, {"withdrawal", out.WithdrawalID}, {"block", out.BlockID}, {"status", out.Status}} {
			if f[1] != "" {
				fmt.Fprintf(w, " %s=%s", f[0], f[1])
			}
		}
		fmt.Fprintln(w)
	})
}

// checkEmulator asks the emulator's control endpoints (GET /_sandbox/faults, which changes
// nothing) before trigger sends anything: a base URL that is not pixdash's emulator (a real
// sandbox, another server) answers 404 or 405 there, and is said to be so (exit 6) before a
// charge is created on it.
func checkEmulator(c *cli, ctl *sandbox.Control) error {
	_, err := ctl.Faults(c.ctx)
	var ae *api.Error
	if err == nil || !errors.As(err, &ae) || (ae.HTTPStatus != http.StatusNotFound && ae.HTTPStatus != http.StatusMethodNotAllowed) {
		return asCLIError(err)
	}
	return cliErrorf(exitNotFound, "%s is not pixdash's emulator: trigger needs `pixdash sandbox` (or a sandbox profile whose base_url is one); its control endpoints answered %d (%s); nothing was sent",
		safetext.Clean(c.p.BaseURL), ae.HTTPStatus, err)
}
