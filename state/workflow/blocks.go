package workflow

import (
	"context"

	"pixdash/api"
)

// BlockLister lists MED blocks (GET /balance-blocks; api.Client does).
type BlockLister interface {
	ListBalanceBlocks(ctx context.Context, status api.BlockStatus, opts ...api.RequestOption) (*api.BalanceBlockList, error)
}

// BlockRecorder records the MED blocks the service listed on the charges they name
// (state.Store.RecordBlocks).
type BlockRecorder interface {
	RecordBlocks(ctx context.Context, blocks []api.BalanceBlock) (int, error)
}

// ReadBackBlocks lists wallet's MED blocks and records them on the tracked charges, so that a
// payment shows blocked while a block is open and returned once it is approved. A
// balance_block_* event is a hint; this answer is the fact. It returns how many charges changed.
func ReadBackBlocks(ctx context.Context, c BlockLister, s BlockRecorder, wallet string) (int, error) {
	list, err := c.ListBalanceBlocks(ctx, "", api.WithSubAccount(SubAccountHeader(wallet)))
	if err != nil {
		return 0, err
	}
	return s.RecordBlocks(ctx, list.Items)
}

// ListBlocks lists wallet's MED blocks with status ("" for every status) and records them on
// the tracked charges they name (s may be nil), as ReadBackBlocks does.
func ListBlocks(ctx context.Context, c BlockLister, s BlockRecorder, wallet string, status api.BlockStatus) (*api.BalanceBlockList, error) {
	list, err := c.ListBalanceBlocks(ctx, status, api.WithSubAccount(SubAccountHeader(wallet)))
	if err == nil && s != nil {
		_, _ = s.RecordBlocks(ctx, list.Items) // the charges show what the service listed
	}
	return list, err
}
