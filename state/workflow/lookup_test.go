package workflow

import (
	"context"
	"errors"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// lookupFake answers a lookup: one transaction, a block list, every call recorded.
type lookupFake struct {
	fakeAPI
	blocks    []api.BalanceBlock
	blocksErr error
}

func (f *lookupFake) ListBalanceBlocks(_ context.Context, status api.BlockStatus, opts ...api.RequestOption) (*api.BalanceBlockList, error) {
	f.record("ListBalanceBlocks", string(status), opts)
	if f.blocksErr != nil {
		return nil, f.blocksErr
	}
	return &api.BalanceBlockList{Items: f.blocks}, nil
}

// waitEvent waits until the store holds an event of kind about transaction id.
func waitEvent(t *testing.T, s *state.Store, kind api.EventKind, id string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := s.EventWindow(ctx, state.EventQuery{Kind: kind}, 0, 100)
		if err == nil {
			for _, e := range page.Entries {
				if e.Event != nil && e.Event.TransactionID == id {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event for %s reached the store (%v)", kind, id, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// End to end on the emulator: a payment refunded in part and under a MED block is found by its
// external reference with both, the block is recorded on the tracked charge, and the lookup
// goes into the history; a transaction the service does not know is recorded as not found; a
// refusal about the wallet is not a lookup the history keeps.
func TestLookupOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{})
	draft := Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 5000, Description: "Com estorno", ExternalReference: "lookup-0001"}}
	cr := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if cr.Err != nil || cr.Charge == nil {
		t.Fatalf("create: %+v", cr)
	}
	id := cr.Charge.ID

	// Pending: found, nothing related is asked for.
	r := s.Lookup(ctx, "lookup-0001", "", false)
	if r.Err != nil || r.Tx == nil || r.Tx.ID != id || !r.Tracked || len(r.Related.Blocks)+len(r.Related.Refunds) != 0 {
		t.Fatalf("pending lookup: %+v", r)
	}

	if err := s.Simulator.Pay(ctx, id, "Fulano de Tal", "52998224725"); err != nil {
		t.Fatal(err)
	}
	part := api.Money(1250)
	if err := d.Control.Refund(ctx, id, &part); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Control.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: id, Reason: "Pagador alega golpe"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, s.Store, api.EventRefundCompleted, id)

	r = s.Lookup(ctx, "lookup-0001", api.WalletPrincipal, true)
	if r.Err != nil || r.SaveErr != nil || r.Tx.ID != id {
		t.Fatalf("lookup: %+v", r)
	}
	if rel := r.Related; rel.BlocksErr != nil || rel.RefundsErr != nil || len(rel.Refunds) != 1 || rel.Refunds[0].Amount != 1250 ||
		len(rel.Blocks) != 1 || rel.Blocks[0].Reason != "Pagador alega golpe" || rel.Blocks[0].TransactionID != id {
		t.Fatalf("related: %+v", rel)
	}
	if !r.Tracked || r.Charge.Block == nil || r.Charge.Block.ID != r.Related.Blocks[0].ID {
		t.Fatalf("the listed block is not on the tracked charge: %+v", r.Charge)
	}

	miss := s.Lookup(ctx, "nao-existe-0001", "", true)
	if miss.Tx != nil || !TxNotFound(miss.Err) || miss.SaveErr != nil {
		t.Fatalf("unknown transaction: %+v", miss)
	}
	wallet := s.Lookup(ctx, "lookup-0001", "carteira-que-nao-existe", true)
	if wallet.Err == nil || TxNotFound(wallet.Err) {
		t.Fatalf("unknown wallet: %+v", wallet)
	}
	hist, err := s.Store.RecentLookups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Query != "nao-existe-0001" || hist[0].Found ||
		hist[1].Query != "lookup-0001" || !hist[1].Found || hist[1].TxID != id || hist[1].Wallet != api.WalletPrincipal {
		t.Fatalf("history: %+v", hist)
	}
}

// The refund pixdash asked for shows among a payment's refunds while no refund_completed has
// come (pending when the service took it, unknown when its answer was lost); a completed or
// refused record adds nothing, and an event replaces it. A block list that cannot be read is
// said, and the refunds are still read.
func TestLookupRelatedRequestedRefund(t *testing.T) {
	ctx := context.Background()
	paid := &api.Transaction{ID: "tx_1", Type: api.TypePayment, Status: api.StatusCompleted, Amount: 3000}
	requested := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		state state.RefundState
		want  api.TxStatus // "" for no entry
	}{
		{"taken", state.RefundPending, api.StatusPending},
		{"answer lost", state.RefundUnknown, api.TxStatus(state.RefundUnknown)},
		{"being sent", state.RefundRequested, api.TxStatus(state.RefundUnknown)},
		{"completed", state.RefundCompleted, ""},
		{"refused", state.RefundRefused, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := state.OpenMemory()
			t.Cleanup(func() { _ = store.Close() })
			if _, err := store.PutRefund(ctx, state.Refund{ChargeID: "tx_1", Key: "k", Amount: 3000, State: tc.state, RequestedAt: requested}); err != nil {
				t.Fatal(err)
			}
			f := &lookupFake{blocksErr: &api.Error{HTTPStatus: 403, Message: "Missing permission BALANCE_BLOCK:READ"}}
			rel := LookupRelated(ctx, f, store, paid, api.WalletPrincipal)
			var ae *api.Error
			if !errors.As(rel.BlocksErr, &ae) || ae.HTTPStatus != 403 || rel.RefundsErr != nil {
				t.Fatalf("errors: %+v", rel)
			}
			if tc.want == "" {
				if len(rel.Refunds) != 0 {
					t.Fatalf("refunds %+v, want none", rel.Refunds[0])
				}
				return
			}
			if len(rel.Refunds) != 1 {
				t.Fatalf("refunds: %+v", rel.Refunds)
			}
			e := rel.Refunds[0]
			if e.Kind != api.EventRefundCompleted || e.TransactionID != "tx_1" || e.Amount != 3000 || e.Status != tc.want || !e.CreatedAt.Equal(requested) {
				t.Fatalf("requested refund: %+v", e)
			}
		})
	}
}

// Only a payment that left pending has blocks and refunds: nothing else is asked for.
func TestLookupRelatedOnlyForSettledPayments(t *testing.T) {
	ctx := context.Background()
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	for _, tx := range []*api.Transaction{
		{ID: "p", Type: api.TypePayment, Status: api.StatusPending},
		{ID: "w", Type: api.TypeWithdrawal, Status: api.StatusCompleted},
		nil,
	} {
		f := &lookupFake{}
		if rel := LookupRelated(ctx, f, store, tx, "loja-centro"); rel.Blocks != nil || rel.Refunds != nil || rel.BlocksErr != nil || rel.RefundsErr != nil {
			t.Fatalf("%+v: related %+v", tx, rel)
		}
		if len(f.calls) != 0 {
			t.Fatalf("%+v: calls %+v", tx, f.calls)
		}
	}
	f := &lookupFake{blocks: []api.BalanceBlock{{ID: "b1", TransactionID: "s"}, {ID: "b2", TransactionID: "other"}}}
	rel := LookupRelated(ctx, f, store, &api.Transaction{ID: "s", Status: api.StatusCompleted}, "loja-centro")
	if len(rel.Blocks) != 1 || rel.Blocks[0].ID != "b1" {
		t.Fatalf("blocks %+v, want b1 only", rel.Blocks)
	}
	if len(f.calls) != 1 || f.calls[0].opts.SubAccount != "loja-centro" {
		t.Fatalf("calls %+v, want one list in loja-centro", f.calls)
	}
}
