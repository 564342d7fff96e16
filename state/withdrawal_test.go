package state

import (
	"testing"
	"time"

	"pixdash/api"
)

func TestWithdrawalRecords(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir(), "p", WithClock(func() time.Time { return now }), WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.PutWithdrawal(ctx, Withdrawal{}); err == nil {
		t.Fatal("a record with no key was accepted")
	}
	for i, k := range []string{"k1", "k2", "k3"} {
		w := Withdrawal{Key: k, Wallet: "loja", Amount: api.Money(1000 * (i + 1)), State: WithdrawalRequested, RequestedAt: now.Add(time.Duration(i) * time.Minute)}
		if k == "k3" {
			w.Wallet = ""
		}
		if _, err := s.PutWithdrawal(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	// The same key replaces its record.
	if _, err := s.PutWithdrawal(ctx, Withdrawal{Key: "k1", Wallet: "loja", Amount: 1000, ID: "wd-1", State: WithdrawalPending, RequestedAt: now}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.WithdrawalByKey(ctx, "k1")
	if err != nil || !ok || got.ID != "wd-1" || got.State != WithdrawalPending {
		t.Fatalf("by key: %+v %v %v", got, ok, err)
	}
	if _, ok, err := s.WithdrawalByKey(ctx, "nope"); ok || err != nil {
		t.Fatalf("unknown key: %v %v", ok, err)
	}
	list, err := s.Withdrawals(ctx, "loja", 0)
	if err != nil || len(list) != 2 || list[0].Key != "k2" || list[1].Key != "k1" {
		t.Fatalf("loja's list: %+v %v", list, err)
	}
	list, err = s.Withdrawals(ctx, api.WalletPrincipal, 10)
	if err != nil || len(list) != 1 || list[0].Key != "k3" || list[0].Wallet != api.WalletPrincipal {
		t.Fatalf("principal's list: %+v %v", list, err)
	}
}

func TestApplyWithdrawalEvent(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	w := Withdrawal{Key: "k", ID: "wd", State: WithdrawalPending}
	if !ApplyWithdrawalEvent(&w, &api.Event{Kind: api.EventWithdrawalCompleted, E2EID: "E123"}, at) || w.State != WithdrawalCompleted || w.E2EID != "E123" {
		t.Fatalf("completed: %+v", w)
	}
	if ApplyWithdrawalEvent(&w, &api.Event{Kind: api.EventWithdrawalCompleted, E2EID: "E123"}, at) {
		t.Fatal("a copy of the same event changed the record")
	}
	if !ApplyWithdrawalEvent(&w, &api.Event{Kind: api.EventWithdrawalReversed, FailureReason: "devolvido"}, at) || w.State != WithdrawalReversed || w.FailureReason != "devolvido" {
		t.Fatalf("reversed: %+v", w)
	}
	// A late completion does not undo the reversal.
	if ApplyWithdrawalEvent(&w, &api.Event{Kind: api.EventWithdrawalCompleted}, at) || w.State != WithdrawalReversed {
		t.Fatalf("late completion: %+v", w)
	}
	f := Withdrawal{State: WithdrawalPending}
	if !ApplyWithdrawalEvent(&f, &api.Event{Kind: api.EventWithdrawalFailed, FailureReason: "conta inválida"}, at) || f.State != WithdrawalFailed || !f.State.Settled() || !f.State.Taken() {
		t.Fatalf("failed: %+v", f)
	}
	if !WithdrawalUnknown.Open() || WithdrawalPending.Open() || WithdrawalRefused.Taken() {
		t.Fatal("state predicates")
	}
}

// OpenWithdrawals lists the requested and unknown withdrawals of every wallet, oldest first,
// and nothing else.
func TestOpenWithdrawals(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir(), "p", WithClock(func() time.Time { return now }), WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	states := []WithdrawalState{WithdrawalUnknown, WithdrawalPending, WithdrawalRequested, WithdrawalCompleted,
		WithdrawalFailed, WithdrawalReversed, WithdrawalRefused}
	for i, st := range states {
		w := Withdrawal{Key: "k-" + string(st), Wallet: "loja", Amount: 1000, State: st,
			RequestedAt: now.Add(-time.Duration(i) * time.Minute)}
		if st == WithdrawalRequested {
			w.Wallet = ""
		}
		if _, err := s.PutWithdrawal(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	open, err := s.OpenWithdrawals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 2 || open[0].Key != "k-requested" || open[0].Wallet != api.WalletPrincipal || open[1].Key != "k-unknown" || open[1].Wallet != "loja" {
		t.Fatalf("open: %+v", open)
	}
	// Resolved, it is no longer listed.
	w := open[0]
	w.State, w.ID = WithdrawalPending, "wd-1"
	if _, err := s.PutWithdrawal(ctx, w); err != nil {
		t.Fatal(err)
	}
	if open, err := s.OpenWithdrawals(ctx); err != nil || len(open) != 1 || open[0].Key != "k-unknown" {
		t.Fatalf("after resolving one: %+v %v", open, err)
	}
}
