package sandbox

import (
	"context"
	"net/http"
	"net/url"

	"pixdash/api"
)

// Control drives the emulator's control endpoints (/_sandbox/...) through an api.Client.
type Control struct{ c *api.Client }

// NewControl returns a Control that uses c (its credential selects the account acted on).
func NewControl(c *api.Client) *Control { return &Control{c: c} }

func seg(id string) string { return url.PathEscape(id) }

// Pay simulates the payer paying charge id; a CNPJ (14 characters, alphanumeric ones too) on an account that blocks CNPJ payers fails it.
func (k *Control) Pay(ctx context.Context, id, payerName, payerDocument string) error {
	_, err := k.PayCharge(ctx, id, payerName, payerDocument)
	return err
}

// PayCharge is Pay returning the charge as it is after the payment.
func (k *Control) PayCharge(ctx context.Context, id, payerName, payerDocument string) (*api.Transaction, error) {
	var out api.Transaction
	err := k.c.Do(ctx, http.MethodPost, "/_sandbox/charges/"+seg(id)+"/pay",
		PayRequest{PayerName: payerName, PayerDocument: payerDocument}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Expire makes pending charge id expire now.
func (k *Control) Expire(ctx context.Context, id string) error {
	return k.c.Do(ctx, http.MethodPost, "/_sandbox/charges/"+seg(id)+"/expire", struct{}{}, nil)
}

// Refund refunds amount of completed charge id (nil: what is left), debiting only the charge's wallet.
func (k *Control) Refund(ctx context.Context, id string, amount *api.Money) error {
	_, err := k.RefundCharge(ctx, id, amount)
	return err
}

// RefundCharge is Refund returning the refund transaction.
func (k *Control) RefundCharge(ctx context.Context, id string, amount *api.Money) (*api.Transaction, error) {
	var out api.Transaction
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/transactions/"+seg(id)+"/refund", RefundRequest{Amount: amount}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateBlock opens a balance block on a completed charge.
func (k *Control) CreateBlock(ctx context.Context, req BlockRequest) (*api.BalanceBlock, error) {
	var out api.BalanceBlock
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/balance-blocks", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ResolveBlock moves block id to defended, approved or rejected.
func (k *Control) ResolveBlock(ctx context.Context, id string, status api.BlockStatus, reason string) (*api.BalanceBlock, error) {
	var out api.BalanceBlock
	err := k.c.Do(ctx, http.MethodPost, "/_sandbox/balance-blocks/"+seg(id)+"/resolve",
		ResolveRequest{Status: status, ResolutionReason: reason}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// SetFee changes the account's PIX fee from now on (settlement of existing charges uses the new fee).
func (k *Control) SetFee(ctx context.Context, fee api.Money) error {
	return k.c.Do(ctx, http.MethodPut, "/_sandbox/fee", FeeRequest{PixFee: fee.Decimal()}, nil)
}

// SetWithdrawalFee changes the account's withdrawal fee for withdrawals created from now on.
func (k *Control) SetWithdrawalFee(ctx context.Context, fee api.Money) error {
	return k.c.Do(ctx, http.MethodPut, "/_sandbox/fee", FeeRequest{WithdrawalFee: fee.Decimal()}, nil)
}

// RegisterWebhook registers an endpoint for the main account (subAccount "" or "principal") or a sub-account.
func (k *Control) RegisterWebhook(ctx context.Context, url, subAccount string) (string, api.Secret, error) {
	var out WebhookEndpoint
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/webhook-endpoints", WebhookEndpointRequest{URL: url, SubAccount: subAccount}, &out); err != nil {
		return "", "", err
	}
	return out.ID, out.Secret, nil
}

// RegisterWebhookSecret registers an endpoint with a given signing secret (16 to 255 printable
// ASCII characters), or returns the one already registered with the same url, wallet and secret.
func (k *Control) RegisterWebhookSecret(ctx context.Context, url, subAccount string, secret api.Secret) (string, error) {
	var out WebhookEndpoint
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/webhook-endpoints",
		WebhookEndpointRequest{URL: url, SubAccount: subAccount, Secret: secret}, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// Faults returns the faults in force, with what is left of the bursts.
func (k *Control) Faults(ctx context.Context) (Faults, error) {
	var out Faults
	err := k.c.Do(ctx, http.MethodGet, "/_sandbox/faults", nil, &out)
	return out, err
}

// Deliveries lists the account's webhook deliveries, oldest first.
func (k *Control) Deliveries(ctx context.Context) ([]Delivery, error) {
	var out listBody[Delivery]
	if err := k.c.Do(ctx, http.MethodGet, "/_sandbox/webhook-deliveries", nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// Wallets lists the balances of the account's wallets, the main one first.
func (k *Control) Wallets(ctx context.Context) ([]Wallet, error) {
	var out listBody[Wallet]
	if err := k.c.Do(ctx, http.MethodGet, "/_sandbox/wallets", nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// SetFaults sets the fault probabilities and latency of the API (zero value: none).
func (k *Control) SetFaults(ctx context.Context, f Faults) error {
	return k.c.Do(ctx, http.MethodPut, "/_sandbox/faults", f, nil)
}

// CompleteWithdrawal completes pending withdrawal id now (withdrawal_completed) and returns it.
func (k *Control) CompleteWithdrawal(ctx context.Context, id string) (*api.Withdrawal, error) {
	return k.withdrawalOutcome(ctx, id, "complete", "")
}

// FailWithdrawal fails pending withdrawal id (the money returns; withdrawal_failed with reason,
// or a default sentence) and returns it.
func (k *Control) FailWithdrawal(ctx context.Context, id, reason string) (*api.Withdrawal, error) {
	return k.withdrawalOutcome(ctx, id, "fail", reason)
}

// ReverseWithdrawal reverses completed withdrawal id (the money returns; withdrawal_reversed) and returns it.
func (k *Control) ReverseWithdrawal(ctx context.Context, id, reason string) (*api.Withdrawal, error) {
	return k.withdrawalOutcome(ctx, id, "reverse", reason)
}

func (k *Control) withdrawalOutcome(ctx context.Context, id, verb, reason string) (*api.Withdrawal, error) {
	var out api.Withdrawal
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/withdrawals/"+seg(id)+"/"+verb, OutcomeRequest{Reason: reason}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Withdraw simulates a PIX withdrawal from a wallet and returns its transaction.
func (k *Control) Withdraw(ctx context.Context, req WithdrawalRequest) (*api.Transaction, error) {
	var out api.Transaction
	if err := k.c.Do(ctx, http.MethodPost, "/_sandbox/withdrawals", req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
