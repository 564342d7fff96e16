package workflow

import (
	"context"
	"time"

	"pixdash/api"
)

// The session's calls: each runs a workflow of this package with the session's client and
// store, so that a screen needs the session only (and declares the few methods it uses).

// Lookup reads the transaction query names in wallet with what belongs to it (see the
// function Lookup).
func (s *Session) Lookup(ctx context.Context, query, wallet string, record bool) LookupResult {
	return Lookup(ctx, s.Client, s.Store, query, wallet, record)
}

// Blocks lists wallet's MED blocks with status and records them (ListBlocks).
func (s *Session) Blocks(ctx context.Context, wallet string, status api.BlockStatus) (*api.BalanceBlockList, error) {
	var rec BlockRecorder
	if s.Store != nil {
		rec = s.Store
	}
	return ListBlocks(ctx, s.Client, rec, wallet, status)
}

// ReadBack reads every search match back from the service, SearchReadBackWorkers at once
// (ReadBackMatches).
func (s *Session) ReadBack(ctx context.Context, ms []SearchMatch) []SearchMatch {
	return ReadBackMatches(ctx, s.Client, s.Store, ms, SearchReadBackWorkers)
}

// Refund sends the refund o orders (see the function Refund).
func (s *Session) Refund(ctx context.Context, o RefundOrder, now func() time.Time) RefundOutcome {
	return Refund(ctx, s.Client, s.Store, o, now)
}

// Withdraw sends the withdrawal o orders (see the function Withdraw).
func (s *Session) Withdraw(ctx context.Context, o WithdrawalOrder, now func() time.Time) WithdrawalOutcome {
	return Withdraw(ctx, s.Client, s.Store, o, now)
}

// Projects lists wallet's projects, sorted by name (LoadProjects).
func (s *Session) Projects(ctx context.Context, wallet string) ([]api.Project, error) {
	return LoadProjects(ctx, s.Client, wallet)
}
