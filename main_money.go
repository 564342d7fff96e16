package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/api/brdoc"
	"pixdash/state"
	"pixdash/state/workflow"
)

// refundFlags are the options of pixdash refund.
type refundFlags struct {
	commonFlags
	writeFlags
	reason, wallet string
}

// refundJSON is a refund in --json output.
type refundJSON struct {
	ChargeID string `json:"chargeId"`
	State    string `json:"state"`
	moneyJSON
	Wallet      string `json:"wallet"`
	Key         string `json:"idempotencyKey"`
	Reason      string `json:"reason,omitempty"`
	PspRefundID string `json:"pspRefundId,omitempty"`
	RequestedAt string `json:"requestedAt,omitempty"`
	Message     string `json:"message,omitempty"`
	TraceID     string `json:"traceId,omitempty"`
}

func refundOut(r state.Refund) refundJSON {
	return refundJSON{ChargeID: r.ChargeID, State: string(r.State), moneyJSON: jsonMoney(r.Amount), Wallet: r.Wallet, Key: r.Key,
		Reason: r.Reason, PspRefundID: r.PspRefundID, RequestedAt: rfc3339(r.RequestedAt), Message: r.Message, TraceID: r.TraceID}
}

func newRefundCmd(stdout, stderr io.Writer) *cobra.Command {
	var o refundFlags
	cmd := &cobra.Command{
		Use:   "refund ID",
		Short: "Refund a paid charge in full (POST /transactions/{id}/refund)",
		Long: `Refund a paid charge in full, as the dashboard does: the charge is read from the service
first, the refund is recorded before it is sent, and a refund whose reply was lost (exit 8) is
read back before anything is asked again, so running the command again never refunds twice.
refund_completed, read back, confirms it later. On a production profile the amount is
confirmed: typed on a terminal, else --yes --confirm-amount A.`,
		Example: `  pixdash refund 3f6c… --reason "produto em falta"
  pixdash refund 3f6c… --profile loja --yes --confirm-amount 12.50 --json`,
		Args: exactArgs(1, "the charge's id"),
		RunE: func(cmd *cobra.Command, args []string) error { return runRefund(cmd, o, args[0], stdout, stderr) },
	}
	o.commonFlags.add(cmd, true)
	o.writeFlags.add(cmd)
	cmd.Flags().StringVar(&o.reason, "reason", "", fmt.Sprintf("why (at most %d characters)", api.MaxRefundReason))
	cmd.Flags().StringVar(&o.wallet, "wallet", "", "wallet the charge is in (default: the one it was tracked in, else the profile's)")
	return cmd
}

func runRefund(cmd *cobra.Command, o refundFlags, id string, stdout, stderr io.Writer) error {
	if len([]rune(o.reason)) > api.MaxRefundReason {
		return cliError(exitValidation, workflow.ErrRefundLongReason)
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if c.p.ReadOnly {
		return cliError(exitPermission, workflow.ErrRefundReadOnly)
	}
	ch, err := readCharge(c, id, o.wallet)
	if err != nil {
		return err
	}
	store, _ := c.Store()
	client, _ := c.Client()
	prior, hasPrior, err := store.RefundOf(c.ctx, ch.ID)
	if err != nil {
		return cliError(exitFailure, err)
	}
	var pp *state.Refund
	if hasPrior {
		pp = &prior
	}
	// The dashboard's rules, before anything is asked.
	if err := workflow.CheckRefund(ch, pp, false); err != nil {
		if errors.Is(err, workflow.ErrRefundDone) {
			return cliError(exitConflict, err)
		}
		return cliError(exitValidation, err)
	}
	if err := c.checkWrite(o.writeFlags, "refund", ch.Amount); err != nil {
		return err
	}
	key := api.NewIdempotencyKey()
	if hasPrior && prior.State.Open() {
		key = prior.Key // the same refund, asked again: read back first, never sent twice
	}
	r := workflow.Refund(c.ctx, client, store, workflow.RefundOrder{Charge: ch, Amount: ch.Amount, Reason: o.reason, Key: key, ReadOnly: c.p.ReadOnly}, nil)
	switch r.Kind {
	case workflow.RefundDone:
		if r.Err != nil {
			c.note("warning: %v", r.Err)
		}
		return c.emit(refundOut(r.Record), func(w io.Writer) {
			fmt.Fprintf(w, "Refund of %s for charge %s taken by the service (%s); refund_completed confirms it.\n", r.Record.Amount.BRL(), ch.ID, r.Record.State)
		})
	case workflow.RefundUnknown:
		return cliErrorf(exitUnknown, "the outcome is unknown (%v): run the same command again; it reads the charge back before asking again", r.Err)
	case workflow.RefundBusy:
		return cliError(exitConflict, r.Err)
	}
	var ae *api.Error
	if errors.As(r.Err, &ae) {
		return asCLIError(r.Err)
	}
	if errors.Is(r.Err, workflow.ErrRefundReadOnly) {
		return cliError(exitPermission, r.Err)
	}
	if errors.Is(r.Err, workflow.ErrRefundDone) {
		return cliError(exitConflict, r.Err)
	}
	return cliError(exitValidation, r.Err)
}

// withdrawFlags are the options of pixdash withdraw.
type withdrawFlags struct {
	commonFlags
	writeFlags
	wallet, keyType, key, holder, document, amount, net, idemKey, project, reference string
}

// withdrawalJSON is a withdrawal in --json output.
type withdrawalJSON struct {
	ID    string `json:"id,omitempty"`
	Key   string `json:"idempotencyKey"`
	State string `json:"state"`
	moneyJSON
	Net        moneyJSON `json:"net"`
	Fee        moneyJSON `json:"fee"`
	Wallet     string    `json:"wallet"`
	PixKeyType string    `json:"pixKeyType"`
	PixKey     string    `json:"pixKey"`
	Holder     string    `json:"holderName"`
	Message    string    `json:"message,omitempty"`
	TraceID    string    `json:"traceId,omitempty"`
}

func newWithdrawCmd(stdout, stderr io.Writer) *cobra.Command {
	var o withdrawFlags
	cmd := &cobra.Command{
		Use:   "withdraw --wallet W --key-type T --key K --holder NAME --document DOC (--amount A | --net N)",
		Short: "Send money out of a wallet to a PIX key (POST /withdrawals)",
		Long: `Send a PIX withdrawal, as the dashboard does: the wallet's spendable balance is read first
(GET /account), the withdrawal is recorded before it is sent with its Idempotency-Key (printed
on stderr), and a lost reply (exit 8) is asked again with the same key by running the command
again with --idempotency-key: the service answers with the first outcome, never a second
withdrawal. --amount is what leaves the wallet; --net what the recipient receives.`,
		Example: `  pixdash withdraw --wallet principal --key-type email --key fin@loja.com.br --holder "Loja Ltda" --document 11222333000181 --amount 50.00`,
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runWithdraw(cmd, o, stdout, stderr) },
	}
	o.commonFlags.add(cmd, true)
	o.writeFlags.add(cmd)
	f := cmd.Flags()
	f.StringVar(&o.wallet, "wallet", "", `wallet to take it from ("principal" or a sub-account reference; default the profile's)`)
	f.StringVar(&o.keyType, "key-type", "", "PIX key type: cpf, cnpj, email, phone or random")
	f.StringVar(&o.key, "key", "", "the recipient's PIX key")
	f.StringVar(&o.holder, "holder", "", "the key holder's name")
	f.StringVar(&o.document, "document", "", "the holder's CPF or CNPJ")
	f.StringVar(&o.amount, "amount", "", "gross amount leaving the wallet, e.g. 50.00")
	f.StringVar(&o.net, "net", "", "net amount the recipient receives (the fee is added)")
	f.StringVar(&o.idemKey, "idempotency-key", "", "Idempotency-Key (default a new one, printed): repeat it to ask again after exit 8")
	f.StringVar(&o.project, "project", "", "project id (UUID)")
	f.StringVar(&o.reference, "external-reference", "", "your reference")
	return cmd
}

func runWithdraw(cmd *cobra.Command, o withdrawFlags, stdout, stderr io.Writer) error {
	req := api.CreateWithdrawalRequest{PixKeyType: api.PixKeyType(strings.ToLower(o.keyType)), PixKey: o.key,
		HolderName: o.holder, ProjectID: o.project, ExternalReference: o.reference}
	if o.document != "" {
		kind, doc, err := brdoc.Document(o.document)
		if err != nil {
			return cliErrorf(exitValidation, "--document: %v (nothing sent)", err)
		}
		req.HolderDocument, req.HolderDocumentType = doc, api.DocumentCPF
		if kind == brdoc.CNPJ {
			req.HolderDocumentType = api.DocumentCNPJ
		}
	}
	if o.amount != "" && o.net != "" {
		return usageError("say --amount or --net, not both")
	}
	if o.amount != "" {
		m, err := parseAmountFlag("--amount", o.amount)
		if err != nil {
			return err
		}
		req.Amount = &m
	}
	if o.net != "" {
		m, err := parseAmountFlag("--net", o.net)
		if err != nil {
			return err
		}
		req.NetAmount = &m
	}
	if o.idemKey != "" {
		if err := api.ValidateIdempotencyKey(o.idemKey); err != nil {
			return usageError("--idempotency-key: %v", err)
		}
	}
	if ps := api.CheckCreateWithdrawal(&req); len(ps) > 0 {
		return cliError(exitValidation, &api.ValidationError{Problems: ps})
	}
	c, err := openCLI(cmd, o.commonFlags, stdout, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if c.p.ReadOnly {
		return cliError(exitPermission, workflow.ErrWithdrawalReadOnly)
	}
	wallet, client, err := c.WalletClient(o.wallet)
	if err != nil {
		return err
	}
	store, err := c.Store()
	if err != nil {
		return err
	}
	acct, err := client.GetAccount(c.ctx, api.WithSubAccount(workflow.SubAccountHeader(wallet)))
	if err != nil {
		return asCLIError(fmt.Errorf("reading the spendable balance of %s: %w", wallet, err))
	}
	order := workflow.WithdrawalOrder{Wallet: wallet, Req: req, Spendable: acct.Balance.Available, ReadOnly: c.p.ReadOnly}
	if err := workflow.CheckWithdrawal(order); err != nil {
		if o.idemKey == "" { // a retry of an open one is checked by Withdraw itself
			return cliError(exitValidation, err)
		}
	}
	if err := c.checkWrite(o.writeFlags, "withdrawal", order.Need()); err != nil {
		return err
	}
	order.Key = o.idemKey
	if order.Key == "" {
		order.Key = api.NewIdempotencyKey()
	}
	c.note("Idempotency-Key: %s", order.Key)
	r := workflow.Withdraw(c.ctx, client, store, order, nil)
	switch r.Kind {
	case workflow.WithdrawalDone:
		if r.Err != nil {
			c.note("warning: %v", r.Err)
		}
		w := r.Record
		out := withdrawalJSON{ID: w.ID, Key: w.Key, State: string(w.State), moneyJSON: jsonMoney(w.Amount), Net: jsonMoney(w.NetAmount),
			Fee: jsonMoney(w.Fee), Wallet: w.Wallet, PixKeyType: string(w.PixKeyType), PixKey: w.PixKey, Holder: w.HolderName}
		return c.emit(out, func(wr io.Writer) {
			fmt.Fprintf(wr, "Withdrawal %s of %s from %s to %s key %s: %s (withdrawal_* events confirm the outcome).\n",
				w.ID, w.Amount.BRL(), w.Wallet, w.PixKeyType, w.PixKey, w.State)
		})
	case workflow.WithdrawalUnknown:
		return cliErrorf(exitUnknown, "the outcome is unknown (%v): run the same command again with --idempotency-key %s; the service answers with the first outcome", r.Err, order.Key)
	}
	if errors.Is(r.Err, workflow.ErrWithdrawalReadOnly) {
		return cliError(exitPermission, r.Err)
	}
	var ae *api.Error
	if errors.As(r.Err, &ae) {
		return asCLIError(r.Err)
	}
	return cliError(exitValidation, r.Err)
}
