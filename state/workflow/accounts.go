package workflow

import (
	"context"
	"strings"

	"pixdash/api"
	"pixdash/state"
)

// SubAccountCreator creates a sub-account (POST /sub-accounts; *api.Client implements it).
type SubAccountCreator interface {
	CreateSubAccount(ctx context.Context, req *api.CreateSubAccountRequest) (*api.SubAccount, error)
}

// LoadSubAccounts is the account's sub-account list (GET /sub-accounts, every page; it always
// acts on the main account: no X-Sub-Account). A successful answer is never nil, so that an
// empty list tells "none" from "not loaded". The wallets view, the split builder and the
// day's close all load it here.
func LoadSubAccounts(ctx context.Context, l SubAccountLister) ([]api.SubAccount, error) {
	subs, err := l.ListSubAccounts(ctx)
	if err != nil {
		return nil, err
	}
	if subs == nil {
		subs = []api.SubAccount{}
	}
	return subs, nil
}

// CreateSubAccount creates the sub-account reference named name (trimmed). It is sent once:
// POST /sub-accounts takes no idempotency key, so after an error without an answer the
// caller reloads the list (LoadSubAccounts) to see whether it was created.
func CreateSubAccount(ctx context.Context, c SubAccountCreator, reference, name string) (*api.SubAccount, error) {
	return c.CreateSubAccount(ctx, &api.CreateSubAccountRequest{Reference: reference, Name: strings.TrimSpace(name)})
}

// ReadBalance reads wallet's account and balances (GET /account with its X-Sub-Account),
// waiting first for one of slots (a buffered channel: its capacity bounds the reads in flight
// across every caller sharing it; nil for no bound). Giving up while waiting returns ctx's
// error.
func ReadBalance(ctx context.Context, acct AccountReader, slots chan struct{}, wallet string) (*api.Account, error) {
	return slotted{acct, slots}.GetAccount(ctx, api.WithSubAccount(SubAccountHeader(state.NormalizeWallet(wallet))))
}

// slotted is an AccountReader whose reads each hold one of slots (nil: no bound) while they run.
type slotted struct {
	acct  AccountReader
	slots chan struct{}
}

func (r slotted) GetAccount(ctx context.Context, opts ...api.RequestOption) (*api.Account, error) {
	if r.slots != nil {
		select {
		case r.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-r.slots }()
	}
	return r.acct.GetAccount(ctx, opts...)
}

// ListSubAccounts is the account's sub-account list (LoadSubAccounts); the session is the
// SubAccountLister CloseWallets takes.
func (s *Session) ListSubAccounts(ctx context.Context) ([]api.SubAccount, error) {
	return LoadSubAccounts(ctx, s.Client)
}

// CreateSubAccount creates a sub-account (see the function CreateSubAccount).
func (s *Session) CreateSubAccount(ctx context.Context, reference, name string) (*api.SubAccount, error) {
	return CreateSubAccount(ctx, s.Client, reference, name)
}

// Balance reads wallet's account and balances; at most MaxBalanceReads of the session's
// balance reads (the wallets view's and the close's) are in flight at once.
func (s *Session) Balance(ctx context.Context, wallet string) (*api.Account, error) {
	return ReadBalance(ctx, s.Client, s.slots(), wallet)
}

// slots are the session's balance-read slots.
func (s *Session) slots() chan struct{} {
	s.balanceOnce.Do(func() { s.balanceSlots = make(chan struct{}, MaxBalanceReads) })
	return s.balanceSlots
}

// CloseDay makes the day's close q selects from the session's store with each wallet's
// balance read now (through the session's balance-read slots); with allWallets, every usable
// sub-account the service lists is added to q.Wallets first (CloseWallets). Without a client
// the balances are left unread.
func (s *Session) CloseDay(ctx context.Context, q state.CloseQuery, allWallets bool) (state.CloseReport, error) {
	var acct AccountReader
	if s.Client != nil {
		acct = slotted{s.Client, s.slots()}
		if allWallets {
			q.Wallets = CloseWallets(ctx, s, q.Wallets)
		}
	}
	return CloseDay(ctx, s.Store, acct, q)
}
