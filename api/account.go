package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// AccountStatus is the account's (or a sub-account's) approval status; unknown values are kept.
type AccountStatus string

// Account statuses the service documents for GET /account.
const (
	AccountApproved        AccountStatus = "approved"
	AccountPending         AccountStatus = "pending"
	AccountPendingDocs     AccountStatus = "pending_documents"
	AccountPendingApproval AccountStatus = "pending_approval"
	AccountRejected        AccountStatus = "rejected"
	AccountSuspended       AccountStatus = "suspended"
)

// Known reports whether s is one of the documented statuses.
func (s AccountStatus) Known() bool {
	switch s {
	case AccountApproved, AccountPending, AccountPendingDocs, AccountPendingApproval, AccountRejected, AccountSuspended:
		return true
	}
	return false
}

// Account is the body of GET /account: the wallet's account record and its balances.
type Account struct {
	ID      string
	Status  AccountStatus
	Balance AccountBalance
	// Raw is the reply exactly as received, unknown members included.
	Raw json.RawMessage
}

// AccountBalance holds the balance figures of GET /account; a nil figure was not sent.
type AccountBalance struct {
	// Available is what can be spent or withdrawn.
	Available *Money
	// Promotional is promotional credit.
	Promotional *Money
	// Held is money blocked (MED, judicial or administrative blocks).
	Held *Money
	// Total is the sum the service reports.
	Total     *Money
	Currency  string
	UpdatedAt *time.Time
}

// GetAccount reads the wallet's account status and balances (GET /account; X-Sub-Account
// through WithSubAccount).
func (c *Client) GetAccount(ctx context.Context, opts ...RequestOption) (*Account, error) {
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.call(ctx, &apiRequest{method: http.MethodGet, path: pathAccount, out: &raw, opts: ro}); err != nil {
		return nil, err
	}
	acc, err := DecodeAccount(raw)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", pathAccount, err)
	}
	return acc, nil
}

const pathAccount = "/account"

// DecodeAccount reads a GET /account body: {"account":{"id","status"},"balance":{"available":
// {"amount":<centavos>,"amountFormatted":<reais>},"promotional","held","total","currency",
// "updatedAt"}}. amount must be a whole number of centavos; amountFormatted, when present, must
// agree with it (it is a cross-check, never the source). A missing figure stays nil.
func DecodeAccount(raw []byte) (*Account, error) {
	var doc struct {
		Account *struct {
			ID     string        `json:"id"`
			Status AccountStatus `json:"status"`
		} `json:"account"`
		Balance *struct {
			Available   *balanceAmount `json:"available"`
			Promotional *balanceAmount `json:"promotional"`
			Held        *balanceAmount `json:"held"`
			Total       *balanceAmount `json:"total"`
			Currency    string         `json:"currency"`
			UpdatedAt   *time.Time     `json:"updatedAt"`
		} `json:"balance"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding account: %w", err)
	}
	acc := &Account{Raw: append(json.RawMessage(nil), raw...)}
	if doc.Account != nil {
		acc.ID, acc.Status = doc.Account.ID, doc.Account.Status
	}
	if b := doc.Balance; b != nil {
		acc.Balance = AccountBalance{
			Available: b.Available.money(), Promotional: b.Promotional.money(), Held: b.Held.money(),
			Total: b.Total.money(), Currency: b.Currency, UpdatedAt: b.UpdatedAt,
		}
	}
	return acc, nil
}

// balanceAmount is one figure of GET /account: integer centavos plus the same in reais.
type balanceAmount struct {
	amount Money
}

func (b *balanceAmount) money() *Money {
	if b == nil {
		return nil
	}
	m := b.amount
	return &m
}

// ErrBalanceMismatch reports a balance whose amountFormatted disagrees with its amount.
var ErrBalanceMismatch = errors.New("amount and amountFormatted disagree")

// UnmarshalJSON reads {"amount": <integer centavos>, "amountFormatted": <reais>}.
func (b *balanceAmount) UnmarshalJSON(data []byte) error {
	var doc struct {
		Amount    json.RawMessage `json:"amount"`
		Formatted json.RawMessage `json:"amountFormatted"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	cents, err := ParseCentavos(doc.Amount)
	if err != nil {
		return fmt.Errorf("amount: %w", err)
	}
	if f := bytes.TrimSpace(doc.Formatted); len(f) > 0 && string(f) != "null" {
		var reais Money
		if err := reais.UnmarshalJSON(f); err != nil {
			return fmt.Errorf("amountFormatted: %w", err)
		}
		if reais != cents {
			return fmt.Errorf("%w: %d centavos against %s", ErrBalanceMismatch, int64(cents), truncate(string(f), 24))
		}
	}
	b.amount = cents
	return nil
}

// ParseCentavos reads a JSON number that counts centavos: a whole number, no fraction or
// exponent (2500 is R$ 25,00).
func ParseCentavos(raw []byte) (Money, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("%w: missing", ErrMoneyFormat)
	}
	if bytes.ContainsAny(raw, ".eE\"") {
		return 0, fmt.Errorf("%w: %s is not a whole number of centavos", ErrMoneyFormat, truncate(string(raw), 24))
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %s", ErrMoneyRange, truncate(string(raw), 24))
		}
		return 0, fmt.Errorf("%w: %s is not a whole number of centavos", ErrMoneyFormat, truncate(string(raw), 24))
	}
	return Money(n), nil
}
