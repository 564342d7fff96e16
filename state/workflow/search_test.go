package workflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

func TestParseSearch(t *testing.T) {
	loc := time.FixedZone("BRT", -3*3600)
	now := time.Date(2026, 11, 23, 15, 0, 0, 0, loc)
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, loc) }
	cases := []struct {
		in   string
		want state.ChargeSearch
		err  bool
	}{
		{in: "E99990000202611231407abcDEF12345", want: state.ChargeSearch{Kind: state.SearchE2E, E2E: "E99990000202611231407abcDEF12345"}},
		{in: " e9999 0000 2026 1123 ", want: state.ChargeSearch{Kind: state.SearchE2E, E2E: "e999900002026" + "1123"}},
		{in: "R$ 49,90", want: state.ChargeSearch{Kind: state.SearchAmount, Amount: 4990}},
		{in: "1.234,56", want: state.ChargeSearch{Kind: state.SearchAmount, Amount: 123456}},
		{in: "49.90", want: state.ChargeSearch{Kind: state.SearchAmount, Amount: 4990}},
		{in: "12", want: state.ChargeSearch{Kind: state.SearchAmount, Amount: 1200}},
		{in: "49,999", err: true},
		{in: "0,00", err: true},
		{in: "14:00-14:30", want: state.ChargeSearch{Kind: state.SearchWindow, From: at(23, 14, 0), To: at(23, 14, 30)}},
		{in: "9h00 a 10h15", want: state.ChargeSearch{Kind: state.SearchWindow, From: at(23, 9, 0), To: at(23, 10, 15)}},
		{in: "14:30-14:00", err: true},
		{in: "23/11", want: state.ChargeSearch{Kind: state.SearchWindow, From: at(23, 0, 0), To: at(24, 0, 0)}},
		{in: "22/11/2026", want: state.ChargeSearch{Kind: state.SearchWindow, From: at(22, 0, 0), To: at(23, 0, 0)}},
		{in: "2026-11-21", want: state.ChargeSearch{Kind: state.SearchWindow, From: at(21, 0, 0), To: at(22, 0, 0)}},
		{in: "31/02", err: true},
		{in: "Maria Souza", want: state.ChargeSearch{Kind: state.SearchPayer, Payer: "Maria Souza"}},
		{in: "Eduardo", want: state.ChargeSearch{Kind: state.SearchPayer, Payer: "Eduardo"}},
		{in: "   ", err: true},
	}
	for _, tc := range cases {
		got, err := ParseSearch(tc.in, now, loc)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && (got.Kind != tc.want.Kind || got.E2E != tc.want.E2E || got.Amount != tc.want.Amount || got.Payer != tc.want.Payer ||
			!got.From.Equal(tc.want.From) || !got.To.Equal(tc.want.To)) {
			t.Errorf("%q: got %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// countingAPI answers GetTransaction after a pause and records how many run at once.
type countingAPI struct {
	fakeAPI
	running, peak atomic.Int32
}

func (c *countingAPI) GetTransaction(ctx context.Context, id string, opts ...api.RequestOption) (*api.Transaction, error) {
	n := c.running.Add(1)
	defer c.running.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	return c.fakeAPI.GetTransaction(ctx, id, opts...)
}

// Every match is read back in its own wallet, at most 4 at once; a charge the store holds as
// paid but the service does not is not shown paid, and a failed read says so.
func TestReadBackMatches(t *testing.T) {
	ctx := context.Background()
	s := state.OpenMemory(state.WithLocation(time.UTC))
	defer s.Close()
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	svc := &countingAPI{fakeAPI: fakeAPI{txs: map[string]*api.Transaction{}, errs: map[string]error{}}}
	var ms []SearchMatch
	for i := range 10 {
		id := "tx-" + string(rune('a'+i))
		wallet := []string{"principal", "loja-sul"}[i%2]
		c := state.Charge{ID: id, Wallet: wallet, Amount: 4990, Status: api.StatusPending, CreatedAt: now.Add(time.Duration(i) * time.Minute)}
		if i == 3 {
			c.Status = api.StatusCompleted // the store says paid (a webhook, say); the service will not
		}
		if _, err := s.UpsertCharge(ctx, c); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 3:
			svc.txs[id] = &api.Transaction{ID: id, Amount: 4990, Status: api.StatusPending}
		case 5:
			svc.errs[id] = &api.Error{HTTPStatus: 503, Message: "down"}
		default:
			svc.txs[id] = &api.Transaction{ID: id, Amount: 4990, Status: api.StatusCompleted, E2EID: "E0000" + id, PaidAt: &now}
		}
	}
	found, capped, err := FindCharges(ctx, s, state.ChargeSearch{Kind: state.SearchAmount, Amount: 4990})
	if err != nil || capped || len(found) != 10 {
		t.Fatalf("found %d (capped %v): %v", len(found), capped, err)
	}
	for _, m := range found {
		if m.Checked || m.Paid() {
			t.Fatalf("%s is shown checked or paid before the read-back", m.Charge.ID)
		}
	}
	ms = ReadBackMatches(ctx, svc, s, found, SearchReadBackWorkers)
	if p := svc.peak.Load(); p > SearchReadBackWorkers || p < 2 {
		t.Errorf("%d read-backs at once, want 2..%d", p, SearchReadBackWorkers)
	}
	calls := svc.callsOf("GetTransaction")
	if len(calls) != 10 {
		t.Fatalf("%d read-backs, want 10", len(calls))
	}
	for _, c := range calls {
		want := "loja-sul"
		if (c.id[3]-'a')%2 == 0 {
			want = ""
		}
		if c.opts.SubAccount != want {
			t.Errorf("%s read with X-Sub-Account %q, want %q", c.id, c.opts.SubAccount, want)
		}
	}
	for i, m := range ms {
		if m.Charge.ID != found[i].Charge.ID || !m.Checked {
			t.Fatalf("match %d: %+v", i, m)
		}
		switch m.Charge.ID {
		case "tx-d":
			if m.Paid() || m.Service != state.StatePending {
				t.Errorf("tx-d: shown %s, the service says pending", m.Service)
			}
		case "tx-f":
			var ae *api.Error
			if m.Paid() || !errors.As(m.Err, &ae) {
				t.Errorf("tx-f: %+v", m)
			}
		default:
			if !m.Paid() || m.Charge.E2EID != "E0000"+m.Charge.ID {
				t.Errorf("%s: not paid after the service said so: %+v", m.Charge.ID, m)
			}
		}
	}
	// The answers reached the store: a search by e2e id now finds the charge.
	got, _, err := FindCharges(ctx, s, state.ChargeSearch{Kind: state.SearchE2E, E2E: "e0000TX-A"})
	if err != nil || len(got) != 1 || got[0].Charge.ID != "tx-a" {
		t.Fatalf("e2e search after read-back: %+v %v", got, err)
	}
}

// End to end on the emulator: a charge paid while pixdash did not look is found by its amount,
// still pending in the store, shown paid only after the read-back, then found by the e2e id
// the customer's receipt prints.
func TestSearchOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _ := demoSession(t, sandbox.DemoOptions{})
	draft := Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, Req: api.CreatePixRequest{Amount: 98765, Description: "Pão"}}
	r := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	q, err := ParseSearch("R$ 987,65", time.Now(), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	found, _, err := FindCharges(ctx, s.Store, q)
	if err != nil || len(found) != 1 || found[0].Charge.ID != r.Charge.ID || found[0].Paid() {
		t.Fatalf("by amount: %+v %v", found, err)
	}
	ms := ReadBackMatches(ctx, s.Client, s.Store, found, SearchReadBackWorkers)
	if !ms[0].Paid() || ms[0].Charge.E2EID == "" || ms[0].Charge.PayerName != "Maria da Silva" {
		t.Fatalf("read-back: %+v", ms[0])
	}
	q, err = ParseSearch(ms[0].Charge.E2EID, time.Now(), time.UTC)
	if err != nil || q.Kind != state.SearchE2E {
		t.Fatalf("e2e %q parsed as %+v (%v)", ms[0].Charge.E2EID, q, err)
	}
	found, _, err = FindCharges(ctx, s.Store, q)
	if err != nil || len(found) != 1 || found[0].Charge.ID != r.Charge.ID {
		t.Fatalf("by e2e id: %+v %v", found, err)
	}
}
