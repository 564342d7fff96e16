package state

import (
	"fmt"
	"slices"
	"testing"

	"pixdash/api"
)

func ev(id string, kind api.EventKind, wallet string, sec int) *api.Event {
	return &api.Event{EventID: id, Kind: kind, SubAccount: wallet, CreatedAt: at(sec), TransactionID: "tx-" + id}
}

func eventIDs(l *EventLog) []string {
	ids := make([]string, l.Len())
	for i := range ids {
		e, ok := l.At(i)
		if !ok {
			panic("At out of range inside Len")
		}
		ids[i] = e.Event.EventID
	}
	return ids
}

func TestEventLogDedupe(t *testing.T) {
	l := NewEventLog()
	steps := []struct {
		e     *api.Event
		first bool
	}{
		{ev("e1", api.EventPaymentCompleted, "", 1), true},
		{ev("e2", api.EventPaymentExpired, "loja", 2), true},
		{ev("e1", api.EventPaymentCompleted, "", 3), false},
		{ev("e3", api.EventRefundCompleted, "loja", 4), true},
		{ev("e1", api.EventPaymentCompleted, "", 5), false},
		{ev("e2", api.EventPaymentExpired, "loja", 6), false},
	}
	for i, s := range steps {
		if got := l.ApplyAt(s.e, s.e.CreatedAt); got != s.first {
			t.Fatalf("step %d (%s): first=%v, want %v", i, s.e.EventID, got, s.first)
		}
	}
	for id, n := range map[string]int{"e1": 3, "e2": 2, "e3": 1, "e9": 0} {
		if got := l.Seen(id); got != n {
			t.Errorf("Seen(%s)=%d, want %d", id, got, n)
		}
	}
	if got := eventIDs(l); !slices.Equal(got, []string{"e3", "e2", "e1"}) {
		t.Fatalf("order %v", got)
	}
	e, ok := l.Get("e1")
	if !ok || e.Count != 3 || !e.ReceivedAt.Equal(at(1)) {
		t.Fatalf("e1: %+v", e)
	}
	if l.Total() != 3 {
		t.Fatalf("total %d", l.Total())
	}
}

func TestEventLogFilter(t *testing.T) {
	l := NewEventLog()
	kinds := []api.EventKind{api.EventPaymentCompleted, api.EventPaymentFailed, api.EventBalanceBlockCreated}
	wallets := []string{"", "principal", "loja-a", "loja-b"}
	type item struct {
		id     string
		kind   api.EventKind
		wallet string
	}
	var all []item
	add := func(i int) {
		it := item{fmt.Sprintf("e%03d", i), kinds[i%3], wallets[(i/3)%4]}
		l.Apply(ev(it.id, it.kind, it.wallet, i))
		all = append(all, it)
	}
	for i := range 100 {
		add(i)
	}
	want := func(kind api.EventKind, wallet string) []string {
		var out []string
		for i := len(all) - 1; i >= 0; i-- {
			w := NormalizeWallet(all[i].wallet)
			if (kind == "" || all[i].kind == kind) && (wallet == "" || w == wallet) {
				out = append(out, all[i].id)
			}
		}
		return out
	}
	for _, k := range append([]api.EventKind{""}, kinds...) {
		for _, w := range []string{"", "principal", "loja-a", "nope"} {
			l.SetFilter(k, w)
			if got := eventIDs(l); !slices.Equal(got, want(k, w)) {
				t.Fatalf("filter %q %q: %v, want %v", k, w, got, want(k, w))
			}
		}
	}
	// Events arriving while filtered join the view.
	l.SetFilter(api.EventPaymentFailed, "loja-a")
	v := l.Version()
	for i := 100; i < 130; i++ {
		add(i)
	}
	if l.Version() == v {
		t.Fatal("version did not change")
	}
	if got := eventIDs(l); !slices.Equal(got, want(api.EventPaymentFailed, "loja-a")) {
		t.Fatalf("after arrivals: %v", got)
	}
	rows, _ := l.Window(1, 2)
	if len(rows) != 2 || rows[0].Event.EventID != eventIDs(l)[1] {
		t.Fatalf("window %v", rows)
	}
	if got := l.Wallets(); !slices.Equal(got, []string{"loja-a", "loja-b", "principal"}) {
		t.Fatalf("wallets %v", got)
	}
	if k, w := l.Filter(); k != api.EventPaymentFailed || w != "loja-a" {
		t.Fatalf("filter %q %q", k, w)
	}
}
