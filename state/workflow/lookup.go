package workflow

import (
	"context"
	"errors"

	"pixdash/api"
	"pixdash/state"
)

// LookupRefundScan bounds how many of the wallet's newest refund_completed events a lookup
// reads to find the transaction's refunds.
const LookupRefundScan = 500

// LookupAPI is what a lookup asks the service (*api.Client implements it): the transaction,
// and the wallet's balance blocks.
type LookupAPI interface {
	TransactionReader
	BlockLister
}

// LookupStore is what a lookup reads and records locally (*state.Store implements it).
type LookupStore interface {
	Charge(ctx context.Context, id string) (state.Charge, bool, error)
	BlockRecorder
	EventWindow(ctx context.Context, q state.EventQuery, offset, limit int) (state.EventPage, error)
	RefundOf(ctx context.Context, chargeID string) (state.Refund, bool, error)
	AddLookup(ctx context.Context, l state.Lookup) error
}

// Related is what a lookup gathers about a payment beyond its transaction: the balance blocks
// the service lists for it (GET /balance-blocks) and its refunds (the refund_completed events
// received, or the refund pixdash asked for while none has come).
type Related struct {
	Blocks    []api.BalanceBlock
	BlocksErr error
	Refunds   []*api.Event
	// RefundsErr is why the refund events could not be read (Refunds is then empty).
	RefundsErr error
}

// LookupResult is the answer of a lookup.
type LookupResult struct {
	// Tx is the service's answer (nil when Err).
	Tx *api.Transaction
	// Charge is the tracked charge of Tx as the store holds it after the lookup recorded the
	// blocks the service listed; Tracked reports whether there is one.
	Charge  state.Charge
	Tracked bool
	Related Related
	// Err is the service's refusal of GET /transactions/{id} (TxNotFound tells a 404 on the
	// transaction).
	Err error
	// SaveErr is why the lookup could not be added to the history (nil when saved or not
	// asked to).
	SaveErr error
}

// Lookup reads the transaction query names (its id, external reference or idempotency key)
// in wallet (principal when ""), with what belongs to it (LookupRelated) and the tracked
// charge it is; with record, a lookup the service answered (found or not found) is added to
// the store's lookup history.
func Lookup(ctx context.Context, c LookupAPI, s LookupStore, query, wallet string, record bool) LookupResult {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	var out LookupResult
	tx, err := c.GetTransaction(ctx, query, api.WithSubAccount(SubAccountHeader(wallet)))
	out.Tx, out.Err = tx, err
	if err == nil {
		out.Related = LookupRelated(ctx, c, s, tx, wallet)
		// Read after the blocks the service listed were recorded on it.
		out.Charge, out.Tracked, _ = s.Charge(ctx, tx.ID)
	}
	if record && (err == nil || TxNotFound(err)) {
		l := state.Lookup{Query: query, Wallet: wallet, Found: err == nil}
		if tx != nil {
			l.TxID = tx.ID
		}
		out.SaveErr = s.AddLookup(ctx, l)
	}
	return out
}

// TxNotFound reports a 404 about the transaction itself (not about the wallet in
// X-Sub-Account).
func TxNotFound(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && ae.HTTPStatus == 404 && ae.SubAccountCode() == ""
}

// LookupRelated reads what belongs to a payment that left pending: the balance blocks the
// service lists for it in wallet (recorded on the tracked charge: the service's answer is
// what its money outcome is made of), and the refund_completed events received for it (among
// the wallet's newest LookupRefundScan). Other transactions have neither.
func LookupRelated(ctx context.Context, c BlockLister, s LookupStore, tx *api.Transaction, wallet string) Related {
	var r Related
	if tx == nil || tx.Status == api.StatusPending || (tx.Type != api.TypePayment && tx.Type != "") {
		return r
	}
	list, err := c.ListBalanceBlocks(ctx, "", api.WithSubAccount(SubAccountHeader(wallet)))
	if err != nil {
		r.BlocksErr = err
	} else {
		for _, b := range list.Items {
			if b.TransactionID == tx.ID {
				r.Blocks = append(r.Blocks, b)
			}
		}
		_, _ = s.RecordBlocks(ctx, r.Blocks)
	}
	page, err := s.EventWindow(ctx, state.EventQuery{Wallet: state.NormalizeWallet(wallet), Kind: api.EventRefundCompleted}, 0, LookupRefundScan)
	if err != nil {
		r.RefundsErr = err
		return r
	}
	for _, e := range page.Entries {
		if e.Event != nil && !e.Damaged && e.Event.TransactionID == tx.ID {
			r.Refunds = append(r.Refunds, e.Event)
		}
	}
	r.Refunds = withRequestedRefund(ctx, s, tx.ID, r.Refunds)
	return r
}

// withRequestedRefund adds the refund pixdash asked for a transaction (the store's record) to
// the refunds its events reported, while no refund_completed has come for it yet: as a
// refund_completed entry with status pending (the service took it) or unknown (the answer
// never came). A completed or refused record adds nothing.
func withRequestedRefund(ctx context.Context, s LookupStore, id string, evs []*api.Event) []*api.Event {
	if len(evs) > 0 {
		return evs
	}
	r, ok, err := s.RefundOf(ctx, id)
	if err != nil || !ok || !(r.State == state.RefundPending || r.State.Open()) {
		return evs
	}
	st := api.StatusPending
	if r.State.Open() {
		st = api.TxStatus(state.RefundUnknown)
	}
	return append(evs, &api.Event{Kind: api.EventRefundCompleted, TransactionID: id, Amount: r.Amount, Status: st, CreatedAt: r.RequestedAt})
}
