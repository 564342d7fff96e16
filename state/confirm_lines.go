package state

import (
	"context"
	"errors"
	"strconv"

	"pixdash/api"
)

// BalanceBlockReader lists a wallet's balance blocks as the service holds them (api.Client
// does). ConfirmEvent needs it for balance_block_* events.
type BalanceBlockReader interface {
	ListBalanceBlocks(ctx context.Context, status api.BlockStatus, opts ...api.RequestOption) (*api.BalanceBlockList, error)
}

// ErrNoBlockReader reports a reader that cannot list balance blocks: a balance_block_* event
// stays unchecked.
var ErrNoBlockReader = errors.New("state: balance blocks cannot be read back with this reader")

// withdrawalStatus is the status the service's withdrawal transaction has after the event
// kind: completed, or failed for a failure and for a reversal (the money came back).
func withdrawalStatus(k api.EventKind) api.TxStatus {
	if k == api.EventWithdrawalCompleted {
		return api.StatusCompleted
	}
	return api.StatusFailed
}

// confirmWithdrawal reads the withdrawal a withdrawal_* event names (withdrawalId, else data.id)
// back with GET /transactions/{id} in the event's wallet and records the verdict: confirmed
// when it is that withdrawal, in the status the kind implies, of the event's amount; disputed
// otherwise; unknown when the service does not know it. Only confirmed events move a
// withdrawal (WithdrawalEvents), so a forged withdrawal_reversed never shows a completed
// withdrawal as reversed.
func (s *Store) confirmWithdrawal(ctx context.Context, r TransactionReader, e *api.Event, wallet string) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	id := e.WithdrawalID
	if id == "" {
		id = e.ID
	}
	tx, done, err := s.readBack(ctx, r, e, id, wallet, &out)
	if done || err != nil {
		return out, err
	}
	amount := tx.Amount
	if amount < 0 {
		amount = -amount
	}
	out.Verdict = VerdictConfirmed
	switch {
	case tx.ID != id:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonOtherTransaction, tx.ID)
	case tx.Type != api.TypeWithdrawal:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonType, string(e.Kind), orUnknown(string(tx.Type)))
	case tx.Status != withdrawalStatus(e.Kind):
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonStatus, string(e.Kind), orUnknown(string(tx.Status)))
	case e.Amount != 0 && e.Amount != amount:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonAmount, strconv.FormatInt(int64(e.Amount), 10), strconv.FormatInt(int64(amount), 10))
	}
	return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
}

// blockStatus is the status a balance_block_* event claims ("" for created: a block may have
// moved on by the time it is read back).
func blockStatus(k api.EventKind) api.BlockStatus {
	switch k {
	case api.EventBalanceBlockApproved:
		return api.BlockApproved
	case api.EventBalanceBlockRejected:
		return api.BlockRejected
	}
	return ""
}

// confirmBlock reads the block a balance_block_* event names (data.id) back through GET
// /balance-blocks of the event's wallet and records the verdict: confirmed when the wallet lists
// it, in the status the kind claims, of the event's amount; disputed otherwise; unknown when
// the wallet does not list it or the account has no such wallet. Only confirmed block events
// count in the day's close.
func (s *Store) confirmBlock(ctx context.Context, r TransactionReader, e *api.Event, wallet string) (Confirmation, error) {
	out := Confirmation{EventID: e.EventID}
	br, ok := r.(BalanceBlockReader)
	if !ok {
		return out, ErrNoBlockReader
	}
	id, amount := e.ID, e.Amount
	if b := e.BalanceBlock; b != nil {
		if id == "" {
			id = b.ID
		}
		if b.Amount != 0 {
			amount = b.Amount
		}
	}
	if id == "" {
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoTransaction)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	}
	list, err := br.ListBalanceBlocks(ctx, "", api.WithSubAccount(walletHeader(wallet)))
	switch {
	case errors.Is(err, api.ErrSubAccountNotFound):
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNoWallet, wallet)
		return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
	case err != nil:
		return out, err
	}
	var found *api.BalanceBlock
	if list != nil {
		for i := range list.Items {
			if list.Items[i].ID == id {
				found = &list.Items[i]
				break
			}
		}
	}
	out.Verdict = VerdictConfirmed
	switch want := blockStatus(e.Kind); {
	case found == nil:
		out.Verdict, out.Reason = VerdictUnknown, Reason(ReasonNotFound, id, wallet)
	case want != "" && found.Status != want:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonStatus, string(e.Kind), orUnknown(string(found.Status)))
	case amount != 0 && amount != found.Amount:
		out.Verdict, out.Reason = VerdictDisputed, Reason(ReasonAmount, strconv.FormatInt(int64(amount), 10), strconv.FormatInt(int64(found.Amount), 10))
	}
	if found != nil {
		// The service's answer, whatever the event said: the block's charge shows what it
		// holds (blocked, or returned once approved) in the list, the export, the Sales view
		// and the close, as after the blocks view reads the same list.
		if _, err := s.RecordBlocks(ctx, []api.BalanceBlock{*found}); err != nil {
			return out, err
		}
	}
	return out, s.SetEventVerdict(ctx, e.EventID, out.Verdict, out.Reason)
}
