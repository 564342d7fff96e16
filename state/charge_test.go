package state

import (
	"testing"
	"time"

	"pixdash/api"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func tp(t time.Time) *time.Time { return &t }

func TestChargeFromPix(t *testing.T) {
	split := []api.SplitItem{{SubAccount: "loja-a", Amount: 300}}
	p := &api.PixCharge{ID: "c1", Status: api.StatusPending, Amount: 1234, PixCopyPaste: "000201...",
		ExpiresAt: at(86400), CreatedAt: at(0), ExternalReference: "ref-1", Split: split}
	req := &api.CreatePixRequest{Amount: 1234, Description: "café", ExternalReference: "ref-1", Split: split}
	c := ChargeFromPix(p, req, "", "key-12345678")
	want := Charge{ID: "c1", IdempotencyKey: "key-12345678", Wallet: "principal", Amount: 1234, Description: "café",
		ExternalReference: "ref-1", Status: api.StatusPending, CreatedAt: at(0), ExpiresAt: at(86400),
		PixCopyPaste: "000201...", SplitRequested: split, UpdatedAt: at(0), Source: SourceCreated}
	if !equalJSON(t, c, want) {
		t.Fatalf("got %+v\nwant %+v", c, want)
	}
	if c.State() != StatePending || c.Final() {
		t.Fatalf("state %s final %v", c.State(), c.Final())
	}
	// The request's split is kept when the reply does not echo it; the wallet is kept as given.
	p.Split = nil
	c = ChargeFromPix(p, req, "loja-b", "key-12345678")
	if len(c.SplitRequested) != 1 || c.Wallet != "loja-b" {
		t.Fatalf("split %v wallet %q", c.SplitRequested, c.Wallet)
	}
}

func TestChargeApplyTransaction(t *testing.T) {
	base := Charge{ID: "c1", Wallet: "principal", Amount: 1000, Status: api.StatusPending, CreatedAt: at(0),
		ExpiresAt: at(600), UpdatedAt: at(0), Source: SourceCreated, PixCopyPaste: "code"}
	tests := []struct {
		name   string
		start  func() Charge
		tx     api.Transaction
		status api.TxStatus
		state  ChargeState
		check  func(t *testing.T, c Charge)
	}{
		{
			name:  "paid",
			start: func() Charge { return base },
			tx: api.Transaction{ID: "c1", Status: api.StatusCompleted, Amount: 1000, CreatedAt: at(0), PaidAt: tp(at(30)),
				E2EID: "E123", CounterpartName: "Maria", CounterpartDocument: "12345678901", UpdatedAt: tp(at(30))},
			status: api.StatusCompleted, state: StatePaid,
			check: func(t *testing.T, c Charge) {
				if c.PaidAt == nil || !c.PaidAt.Equal(at(30)) || c.E2EID != "E123" || c.PayerName != "Maria" ||
					c.PayerDocument != "12345678901" || !c.UpdatedAt.Equal(at(30)) || c.PixCopyPaste != "code" {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name:   "blocked deposit",
			start:  func() Charge { return base },
			tx:     api.Transaction{ID: "c1", Status: api.StatusFailed, FailureReason: "cnpj", BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundPending}}, UpdatedAt: tp(at(40))},
			status: api.StatusFailed, state: StateFailed,
			check: func(t *testing.T, c Charge) {
				if c.FailureReason != "cnpj" || c.BlockedDeposit == nil || c.BlockedDeposit.Refund.Status != api.RefundPending {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name:   "cancelled after expiry counts as expired",
			start:  func() Charge { return base },
			tx:     api.Transaction{ID: "c1", Status: api.StatusCancelled, UpdatedAt: tp(at(601))},
			status: api.StatusCancelled, state: StateExpired,
		},
		{
			name:   "cancelled before expiry is cancelled",
			start:  func() Charge { return base },
			tx:     api.Transaction{ID: "c1", Status: api.StatusCancelled, UpdatedAt: tp(at(100))},
			status: api.StatusCancelled, state: StateCancelled,
		},
		{
			name: "final never goes back to pending",
			start: func() Charge {
				c := base
				c.Status, c.PaidAt, c.UpdatedAt = api.StatusCompleted, tp(at(30)), at(30)
				return c
			},
			tx:     api.Transaction{ID: "c1", Status: api.StatusPending, UpdatedAt: tp(at(50))},
			status: api.StatusCompleted, state: StatePaid,
		},
		{
			name: "older final does not replace newer final",
			start: func() Charge {
				c := base
				c.Status, c.UpdatedAt = api.StatusCompleted, at(30)
				return c
			},
			tx:     api.Transaction{ID: "c1", Status: api.StatusCancelled, UpdatedAt: tp(at(10))},
			status: api.StatusCompleted, state: StatePaid,
		},
		{
			name:   "unknown status kept",
			start:  func() Charge { return base },
			tx:     api.Transaction{ID: "c1", Status: "refunded"},
			status: "refunded", state: StateUnknown,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.start()
			c.ApplyTransaction(&tt.tx)
			if c.Status != tt.status || c.State() != tt.state {
				t.Fatalf("status %s state %s, want %s %s", c.Status, c.State(), tt.status, tt.state)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestChargeApplyEvent(t *testing.T) {
	pending := Charge{ID: "c1", Wallet: "loja", Amount: 1000, Status: api.StatusPending, CreatedAt: at(0), UpdatedAt: at(0),
		Source: SourceCreated, SplitRequested: []api.SplitItem{{SubAccount: "x1", Amount: 500}}}
	tests := []struct {
		name  string
		start Charge
		ev    api.Event
		state ChargeState
		check func(t *testing.T, c Charge)
	}{
		{
			name: "completed with split", start: pending,
			ev: api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, CreatedAt: at(20), TransactionID: "c1",
				PaidAt: tp(at(19)), E2EID: "E1", CounterpartName: "Ana", Split: []api.SplitItem{{SubAccount: "x1", Amount: 400}}},
			state: StatePaid,
			check: func(t *testing.T, c Charge) {
				if !c.HasDistributed || len(c.SplitDistributed) != 1 || c.SplitDistributed[0].Amount != 400 ||
					c.SplitRequested[0].Amount != 500 || c.E2EID != "E1" || c.PayerName != "Ana" || !c.PaidAt.Equal(at(19)) {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name: "completed without split distributes nothing", start: pending,
			ev:    api.Event{EventID: "e1", Kind: api.EventPaymentCompleted, CreatedAt: at(20), TransactionID: "c1"},
			state: StatePaid,
			check: func(t *testing.T, c Charge) {
				if !c.HasDistributed || len(c.SplitDistributed) != 0 || c.PaidAt == nil {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name: "expired", start: pending,
			ev:    api.Event{EventID: "e2", Kind: api.EventPaymentExpired, CreatedAt: at(700), TransactionID: "c1"},
			state: StateExpired,
		},
		{
			name: "failed with blocked deposit", start: pending,
			ev: api.Event{EventID: "e3", Kind: api.EventPaymentFailed, CreatedAt: at(30), TransactionID: "c1", FailureReason: "blocked",
				BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundPending}}},
			state: StateFailed,
			check: func(t *testing.T, c Charge) {
				if c.BlockedDeposit == nil || c.FailureReason != "blocked" {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name: "unknown charge from event", start: Charge{},
			ev:    api.Event{EventID: "e4", Kind: api.EventPaymentCompleted, CreatedAt: at(50), TransactionID: "c9", SubAccount: "loja-z", Amount: 777},
			state: StatePaid,
			check: func(t *testing.T, c Charge) {
				if c.ID != "c9" || c.Source != SourceEvent || c.Wallet != "loja-z" || c.Amount != 777 || !c.CreatedAt.Equal(at(50)) {
					t.Fatalf("%+v", c)
				}
			},
		},
		{
			name: "other kinds ignored", start: pending,
			ev:    api.Event{EventID: "e5", Kind: api.EventRefundCompleted, CreatedAt: at(50), TransactionID: "c1"},
			state: StatePending,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.start
			c.ApplyEvent(&tt.ev)
			if c.State() != tt.state {
				t.Fatalf("state %s, want %s (%+v)", c.State(), tt.state, c)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestChargeMerge(t *testing.T) {
	created := Charge{ID: "c1", IdempotencyKey: "k-12345678", Wallet: "loja", Amount: 1000, Status: api.StatusPending,
		CreatedAt: at(0), UpdatedAt: at(0), Source: SourceCreated, Description: "d"}
	fromEvent := Charge{ID: "c1", Wallet: "principal", Amount: 1000, Status: api.StatusCompleted, CreatedAt: at(30),
		UpdatedAt: at(30), Source: SourceEvent, HasDistributed: true}

	// An event-made charge learns everything from the created one, keeping the paid status.
	c := fromEvent
	c.Merge(created)
	if c.Status != api.StatusCompleted || c.Source != SourceCreated || c.Wallet != "loja" || !c.CreatedAt.Equal(at(0)) ||
		c.IdempotencyKey != "k-12345678" || !c.HasDistributed || c.Description != "d" {
		t.Fatalf("%+v", c)
	}
	// The created one takes the paid status but keeps its creation time and wallet.
	c = created
	c.Merge(fromEvent)
	if c.Status != api.StatusCompleted || c.Source != SourceCreated || c.Wallet != "loja" || !c.CreatedAt.Equal(at(0)) {
		t.Fatalf("%+v", c)
	}
}
