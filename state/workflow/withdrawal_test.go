package workflow

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// wdFake is the service for withdrawals: canned answers in order, every call recorded.
type wdFake struct {
	mu     sync.Mutex
	calls  []call
	bodies []api.CreateWithdrawalRequest
	errs   []error // the i-th call's error (nil or past the end: the reply)
	reply  *api.Withdrawal
	onCall func()
}

func (f *wdFake) CreateWithdrawal(_ context.Context, req *api.CreateWithdrawalRequest, opts ...api.RequestOption) (*api.Withdrawal, error) {
	f.mu.Lock()
	i := len(f.calls)
	f.calls = append(f.calls, call{method: "POST withdrawals", opts: options(opts)})
	f.bodies = append(f.bodies, *req)
	f.mu.Unlock()
	if f.onCall != nil {
		f.onCall()
	}
	if i < len(f.errs) && f.errs[i] != nil {
		return nil, f.errs[i]
	}
	return f.reply, nil
}

// wdStore is an in-memory WithdrawalFeed: the records by key and the events by withdrawal id.
type wdStore struct {
	mu      sync.Mutex
	recs    map[string]state.Withdrawal
	events  map[string][]*api.Event
	changed chan struct{}
	putErr  error
	puts    []state.WithdrawalState
}

func newWdStore() *wdStore {
	return &wdStore{recs: map[string]state.Withdrawal{}, events: map[string][]*api.Event{}, changed: make(chan struct{})}
}

func (s *wdStore) PutWithdrawal(_ context.Context, w state.Withdrawal) (state.Withdrawal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.putErr != nil {
		return w, s.putErr
	}
	w.Wallet = state.NormalizeWallet(w.Wallet)
	s.recs[w.Key] = w
	s.puts = append(s.puts, w.State)
	return w, nil
}

func (s *wdStore) WithdrawalByKey(_ context.Context, key string) (state.Withdrawal, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.recs[key]
	return w, ok, nil
}

func (s *wdStore) WithdrawalEvents(_ context.Context, _, id string) ([]*api.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*api.Event(nil), s.events[id]...), nil
}

func (s *wdStore) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *wdStore) addEvent(ev *api.Event) {
	s.mu.Lock()
	s.events[ev.WithdrawalID] = append(s.events[ev.WithdrawalID], ev)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func money(m api.Money) *api.Money { return &m }

func wdOrder(key string, amount api.Money, spendable api.Money) WithdrawalOrder {
	return WithdrawalOrder{Wallet: "loja-a", Key: key, Spendable: money(spendable), Req: api.CreateWithdrawalRequest{
		PixKey: "maria@example.com", PixKeyType: api.PixKeyEmail, HolderName: "Maria da Silva",
		HolderDocument: "52998224725", HolderDocumentType: api.DocumentCPF, Amount: money(amount)}}
}

// A lost reply leaves the record unknown; the retry sends the same body with the same key
// (the service answers the first outcome), and a key the service took is never sent again.
func TestWithdrawLostReplyIsRetriedWithTheSameKey(t *testing.T) {
	ctx := context.Background()
	svc := &wdFake{errs: []error{errors.New("read tcp: connection reset by peer")},
		reply: &api.Withdrawal{ID: "wd-1", Amount: 1500, FeeAmount: 100, NetAmount: 1400, Status: api.WithdrawalPending}}
	st := newWdStore()
	// The record is written before the request goes out.
	svc.onCall = func() {
		if r, ok, _ := st.WithdrawalByKey(ctx, "key-1"); !ok || !r.State.Open() {
			t.Errorf("sent before it was recorded: %+v", r)
		}
	}
	o := wdOrder("key-1", 1500, 10000)
	out := Withdraw(ctx, svc, st, o, nil)
	if out.Kind != WithdrawalUnknown || !out.Sent || out.Record.State != state.WithdrawalUnknown {
		t.Fatalf("lost reply: %+v", out)
	}
	// The balance no longer tells (the first attempt may have taken the money): it is not in the way.
	o.Spendable = money(0)
	out = Withdraw(ctx, svc, st, o, nil)
	if out.Kind != WithdrawalDone || out.Record.ID != "wd-1" || out.Record.State != state.WithdrawalPending || out.Record.Attempts != 2 ||
		out.Record.Fee != 100 || out.Record.NetAmount != 1400 {
		t.Fatalf("retry: %+v", out)
	}
	out = Withdraw(ctx, svc, st, o, nil)
	if out.Kind != WithdrawalDone || out.Sent || len(svc.calls) != 2 {
		t.Fatalf("a taken key was sent again: %+v, %d calls", out, len(svc.calls))
	}
	for i, c := range svc.calls {
		if c.opts.IdempotencyKey != "key-1" || c.opts.SubAccount != "loja-a" {
			t.Errorf("call %d: %+v", i, c.opts)
		}
	}
	if svc.bodies[0].PixKey != svc.bodies[1].PixKey || *svc.bodies[0].Amount != *svc.bodies[1].Amount {
		t.Errorf("the retry changed the body: %+v", svc.bodies)
	}
}

func TestWithdrawRefusals(t *testing.T) {
	ctx := context.Background()
	ae := &api.Error{HTTPStatus: 400, Message: "Insufficient balance: spendable 10.00, required 15.00", TraceID: "0123456789abcdef0123456789abcdef"}
	svc := &wdFake{errs: []error{ae}}
	st := newWdStore()
	out := Withdraw(ctx, svc, st, wdOrder("k", 1500, 10000), nil)
	if out.Kind != WithdrawalRefused || !out.Sent || out.Record.State != state.WithdrawalRefused ||
		out.Record.Message != ae.Message || out.Record.TraceID != ae.TraceID {
		t.Fatalf("service refusal: %+v", out)
	}

	local := []struct {
		name string
		o    WithdrawalOrder
		want error
	}{
		{"read-only", func() WithdrawalOrder { o := wdOrder("a", 1500, 10000); o.ReadOnly = true; return o }(), ErrWithdrawalReadOnly},
		{"over the balance", wdOrder("b", 1500, 1499), ErrWithdrawalBalance},
		{"balance unknown", func() WithdrawalOrder { o := wdOrder("c", 1500, 0); o.Spendable = nil; return o }(), ErrWithdrawalNoBalance},
		{"net plus the fee over the balance", func() WithdrawalOrder {
			o := wdOrder("d", 0, 1500)
			o.Req.Amount, o.Req.NetAmount, o.Fee = nil, money(1450), 100
			return o
		}(), ErrWithdrawalBalance},
		{"no key", wdOrder("", 1500, 10000), ErrWithdrawalNoKey},
	}
	for _, tc := range local {
		svc := &wdFake{}
		out := Withdraw(ctx, svc, newWdStore(), tc.o, nil)
		if out.Kind != WithdrawalRefused || out.Sent || len(svc.calls) != 0 || !errors.Is(out.Err, tc.want) {
			t.Errorf("%s: %+v", tc.name, out)
		}
	}
	// Both amounts: the request's own rule.
	o := wdOrder("e", 1500, 10000)
	o.Req.NetAmount = money(1000)
	var ve *api.ValidationError
	if out := Withdraw(ctx, &wdFake{}, newWdStore(), o, nil); out.Kind != WithdrawalRefused || !errors.As(out.Err, &ve) {
		t.Errorf("both amounts: %+v", out)
	}
	// A record that cannot be written is never sent.
	st = newWdStore()
	st.putErr = errors.New("disk full")
	svc = &wdFake{}
	if out := Withdraw(ctx, svc, st, wdOrder("f", 1500, 10000), nil); out.Kind != WithdrawalRefused || len(svc.calls) != 0 {
		t.Errorf("unrecorded: %+v", out)
	}
}

func TestAwaitWithdrawalFollowsItsEvents(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st := newWdStore()
	if _, err := st.PutWithdrawal(ctx, state.Withdrawal{Key: "k", ID: "wd-9", Wallet: "loja-a", State: state.WithdrawalPending}); err != nil {
		t.Fatal(err)
	}
	done := make(chan state.Withdrawal, 1)
	go func() {
		r, err := AwaitWithdrawal(ctx, st, "k", nil)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(20 * time.Millisecond)
	st.addEvent(&api.Event{Kind: api.EventWithdrawalFailed, WithdrawalID: "other", FailureReason: "x"})
	st.addEvent(&api.Event{Kind: api.EventWithdrawalFailed, WithdrawalID: "wd-9", FailureReason: "chave inexistente"})
	r := <-done
	if r.State != state.WithdrawalFailed || r.FailureReason != "chave inexistente" {
		t.Fatalf("await: %+v", r)
	}
	if got, _, _ := st.WithdrawalByKey(ctx, "k"); got.State != state.WithdrawalFailed {
		t.Fatalf("not recorded: %+v", got)
	}
	// Nothing comes: the context ends the wait.
	if _, err := st.PutWithdrawal(ctx, state.Withdrawal{Key: "k2", ID: "wd-10", State: state.WithdrawalPending}); err != nil {
		t.Fatal(err)
	}
	short, c2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer c2()
	if _, err := AwaitWithdrawal(short, st, "k2", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("no event: %v", err)
	}
}

// End to end on the emulator: the fee, the debit, withdrawal_completed through the session's
// receiver; a failure and a reversal forced through the control endpoints; a lost reply asked
// again with the same key takes the money once.
func TestWithdrawalOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, d := demoSession(t, sandbox.DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.01)}})
	// withdrawal_* events move a withdrawal once read back, as the dashboard does.
	confirmAll(ctx, s)
	if err := d.Control.SetWithdrawalFee(ctx, 150); err != nil {
		t.Fatal(err)
	}
	balance := func() api.Money {
		t.Helper()
		acc, err := s.Client.GetAccount(ctx)
		if err != nil || acc.Balance.Available == nil {
			t.Fatalf("balance: %+v %v", acc, err)
		}
		return *acc.Balance.Available
	}
	start := balance()
	if start < 5000 {
		t.Fatalf("the demo's principal has only %s", start.BRL())
	}
	o := wdOrder(api.NewIdempotencyKey(), 2000, start)
	o.Wallet = api.WalletPrincipal
	out := Withdraw(ctx, s.Client, s.Store, o, nil)
	if out.Kind != WithdrawalDone || out.Record.ID == "" || out.Record.Fee != 150 || out.Record.NetAmount != 1850 || out.Record.Amount != 2000 {
		t.Fatalf("withdraw: %+v", out)
	}
	if got := balance(); got != start-2000 {
		t.Fatalf("balance %s after withdrawing R$ 20,00 from %s", got.BRL(), start.BRL())
	}
	done, err := AwaitWithdrawal(ctx, s.Store, o.Key, nil)
	if err != nil || done.State != state.WithdrawalCompleted || !strings.HasPrefix(done.E2EID, "E") {
		t.Fatalf("await: %+v %v", done, err)
	}

	// By net amount: gross = net + fee. Its reply is lost (the record says unknown): asked
	// again with the same key, the service answers the first withdrawal.
	o2 := wdOrder(api.NewIdempotencyKey(), 0, balance())
	o2.Wallet, o2.Req.Amount, o2.Req.NetAmount, o2.Fee = api.WalletPrincipal, nil, money(1000), 150
	first := Withdraw(ctx, s.Client, s.Store, o2, nil)
	if first.Kind != WithdrawalDone || first.Record.Amount != 1150 || first.Record.NetAmount != 1000 {
		t.Fatalf("by net: %+v", first)
	}
	before := balance()
	lost := first.Record
	lost.State, lost.ID = state.WithdrawalUnknown, ""
	if _, err := s.Store.PutWithdrawal(ctx, lost); err != nil {
		t.Fatal(err)
	}
	again := Withdraw(ctx, s.Client, s.Store, o2, nil)
	if again.Kind != WithdrawalDone || again.Record.ID != first.Record.ID {
		t.Fatalf("retry after a lost reply: %+v (first %s)", again, first.Record.ID)
	}
	if got := balance(); got != before {
		t.Fatalf("the retry took money again: %s → %s", before.BRL(), got.BRL())
	}

	// A failure forced before the delay, and a reversal of the completed one.
	if _, err := d.Control.FailWithdrawal(ctx, first.Record.ID, "chave PIX inexistente"); err != nil && !strings.Contains(err.Error(), "cannot be failed") {
		t.Fatal(err)
	}
	if _, err := d.Control.ReverseWithdrawal(ctx, out.Record.ID, "conta encerrada"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := ListWithdrawals(ctx, s.Store, api.WalletPrincipal, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 2 && list[1].Key == o.Key && list[1].State == state.WithdrawalReversed && list[1].FailureReason == "conta encerrada" &&
			list[0].State.Settled() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list: %+v", list)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The service's refusal keeps its envelope.
	o3 := wdOrder(api.NewIdempotencyKey(), 1000, 1<<40)
	o3.Wallet = api.WalletPrincipal
	o3.Req.Amount = money(balance() + 100)
	ref := Withdraw(ctx, s.Client, s.Store, o3, nil)
	if ref.Kind != WithdrawalRefused || !ref.Sent || !strings.Contains(ref.Record.Message, "Insufficient balance") || ref.Record.TraceID == "" {
		t.Fatalf("refusal: %+v", ref)
	}
}

func (s *wdStore) OpenWithdrawals(context.Context) ([]state.Withdrawal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []state.Withdrawal
	for _, w := range s.recs {
		if w.State.Open() {
			out = append(out, w)
		}
	}
	return out, nil
}

// A withdrawal left requested or unknown by an earlier session is looked up by its key in its
// own wallet: found, it is recorded as the service holds it; a 404 counts only once no attempt
// can land any more; any other failure changes nothing; nothing is ever sent again.
func TestRecoverWithdrawals(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	old := now.Add(-(WithdrawalTimeout + InFlightMargin + time.Second)) // no attempt can land any more
	recent := now.Add(-time.Minute)                                     // an attempt may still land
	rec := func(key, wallet string, st state.WithdrawalState, at time.Time) state.Withdrawal {
		return state.Withdrawal{Key: key, Wallet: wallet, PixKeyType: api.PixKeyEmail, PixKey: "maria@example.com",
			HolderName: "Maria da Silva", HolderDocument: "52998224725", Amount: 2000, State: st, RequestedAt: at, UpdatedAt: at}
	}
	wdTx := func(id string, st api.TxStatus) *api.Transaction {
		return &api.Transaction{ID: id, Status: st, Type: api.TypeWithdrawal, Amount: -2150, FailureReason: map[bool]string{true: "chave inexistente"}[st == api.StatusFailed]}
	}
	type want struct {
		state   state.WithdrawalState
		id      string
		amount  api.Money
		message string
		outcome string // taken, notsent, pending or "" (not looked at)
		retryAt time.Time
		err     bool
	}
	cases := []struct {
		name   string
		rec    state.Withdrawal
		tx     *api.Transaction
		err    error
		events []*api.Event
		want   want
	}{
		{name: "found pending: taken", rec: rec("k-pending", "loja-a", state.WithdrawalRequested, old), tx: wdTx("wd-1", api.StatusPending),
			want: want{state: state.WithdrawalPending, id: "wd-1", amount: 2150, outcome: "taken"}},
		{name: "found completed: completed", rec: rec("k-completed", "loja-a", state.WithdrawalUnknown, recent), tx: wdTx("wd-2", api.StatusCompleted),
			want: want{state: state.WithdrawalCompleted, id: "wd-2", amount: 2150, outcome: "taken"}},
		{name: "found failed: failed", rec: rec("k-failed", "", state.WithdrawalUnknown, old), tx: wdTx("wd-3", api.StatusFailed),
			want: want{state: state.WithdrawalFailed, id: "wd-3", amount: 2150, outcome: "taken"}},
		{name: "found cancelled: failed", rec: rec("k-cancelled", "", state.WithdrawalUnknown, old), tx: wdTx("wd-4", api.StatusCancelled),
			want: want{state: state.WithdrawalFailed, id: "wd-4", amount: 2150, outcome: "taken"}},
		{name: "found pending, its event recorded: the event applies", rec: rec("k-evented", "loja-a", state.WithdrawalRequested, old), tx: wdTx("wd-5", api.StatusPending),
			events: []*api.Event{{Kind: api.EventWithdrawalReversed, WithdrawalID: "wd-5", FailureReason: "conta encerrada"}},
			want:   want{state: state.WithdrawalReversed, id: "wd-5", amount: 2150, outcome: "taken"}},
		{name: "404 inside the window: still open, looked up again", rec: rec("k-early", "loja-a", state.WithdrawalUnknown, recent),
			want: want{state: state.WithdrawalUnknown, amount: 2000, outcome: "pending", retryAt: now.Add(WithdrawalRecheck)}},
		{name: "404 just before the window ends: looked up when it ends", rec: rec("k-edge", "loja-a", state.WithdrawalRequested, now.Add(-(WithdrawalTimeout + InFlightMargin - 3*time.Second))),
			want: want{state: state.WithdrawalRequested, amount: 2000, outcome: "pending", retryAt: now.Add(3 * time.Second)}},
		{name: "404 after the window: never sent", rec: rec("k-lost", "loja-a", state.WithdrawalRequested, old),
			want: want{state: state.WithdrawalRefused, amount: 2000, message: NotSentMessage, outcome: "notsent"}},
		{name: "5xx: unchanged, reported", rec: rec("k-5xx", "loja-a", state.WithdrawalUnknown, old), err: &api.Error{HTTPStatus: 500, Message: "boom"},
			want: want{state: state.WithdrawalUnknown, amount: 2000, outcome: "pending", retryAt: now.Add(WithdrawalRecheck), err: true}},
		{name: "the key resolves to a payment: unchanged, reported", rec: rec("k-payment", "loja-a", state.WithdrawalUnknown, old),
			tx:   &api.Transaction{ID: "pay-1", Status: api.StatusCompleted, Type: api.TypePayment, Amount: 2000},
			want: want{state: state.WithdrawalUnknown, amount: 2000, outcome: "pending", retryAt: now.Add(WithdrawalRecheck), err: true}},
		{name: "pending: not looked at", rec: func() state.Withdrawal {
			w := rec("k-taken", "loja-a", state.WithdrawalPending, old)
			w.ID = "wd-9"
			return w
		}(),
			want: want{state: state.WithdrawalPending, id: "wd-9", amount: 2000}},
		{name: "refused: not looked at", rec: rec("k-refused", "loja-a", state.WithdrawalRefused, old),
			want: want{state: state.WithdrawalRefused, amount: 2000}},
		{name: "completed: not looked at", rec: rec("k-done", "loja-a", state.WithdrawalCompleted, old),
			want: want{state: state.WithdrawalCompleted, amount: 2000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := newWdStore()
			store.recs[tc.rec.Key] = tc.rec
			for _, ev := range tc.events {
				store.addEvent(ev)
			}
			svc := &fakeAPI{txs: map[string]*api.Transaction{}, errs: map[string]error{}}
			if tc.tx != nil {
				svc.txs[tc.rec.Key] = tc.tx
			}
			if tc.err != nil {
				svc.errs[tc.rec.Key] = tc.err
			}
			out := RecoverWithdrawals(context.Background(), svc, store, clock)

			calls := svc.callsOf("GetTransaction")
			if tc.want.outcome == "" {
				if len(calls) != 0 {
					t.Fatalf("a %s withdrawal was looked up: %+v", tc.rec.State, calls)
				}
			} else {
				wantHeader := tc.rec.Wallet
				if wantHeader == "" {
					wantHeader = SubAccountHeader(api.WalletPrincipal)
				}
				if len(calls) != 1 || calls[0].id != tc.rec.Key || calls[0].opts.SubAccount != wantHeader || calls[0].opts.IdempotencyKey != "" {
					t.Fatalf("lookups %+v, want one GET of key %s with X-Sub-Account %q", calls, tc.rec.Key, wantHeader)
				}
			}
			if n := len(svc.callsOf("CreatePix")); n != 0 {
				t.Fatalf("%d requests sent", n)
			}
			got := store.recs[tc.rec.Key]
			if got.State != tc.want.state || got.ID != tc.want.id || got.Amount != tc.want.amount || got.Message != tc.want.message {
				t.Errorf("record %+v, want %+v", got, tc.want)
			}
			if tc.want.state == state.WithdrawalFailed && got.FailureReason == "" && tc.tx.Status == api.StatusFailed {
				t.Errorf("failure reason lost: %+v", got)
			}
			if tc.want.state == state.WithdrawalReversed && got.FailureReason != "conta encerrada" {
				t.Errorf("the reversal's reason: %+v", got)
			}
			if (out.Err != nil) != tc.want.err {
				t.Errorf("err %v, want an error: %v", out.Err, tc.want.err)
			}
			counts := map[string]int{"taken": len(out.Taken), "notsent": len(out.NotSent), "pending": len(out.Pending)}
			for k, n := range counts {
				if want := map[bool]int{true: 1}[k == tc.want.outcome]; n != want {
					t.Errorf("%s: %d, want %d (%+v)", k, n, want, out)
				}
			}
			if !out.RetryAt.Equal(tc.want.retryAt) {
				t.Errorf("retry at %v, want %v", out.RetryAt, tc.want.retryAt)
			}
			if len(out.Taken) == 1 && out.Taken[0].State != got.State {
				t.Errorf("reported %+v, recorded %+v", out.Taken[0], got)
			}
			if tc.want.outcome == "" && len(store.puts) != 0 {
				t.Errorf("a settled record was written: %v", store.puts)
			}
			if tc.want.outcome == "pending" && len(store.puts) != 0 {
				t.Errorf("an open record was rewritten: %v", store.puts)
			}
		})
	}
}

// Several records at once: each in its own wallet, resolved independently, the earliest retry
// reported; a record resolved meanwhile (by the form's own retry) is left alone.
func TestRecoverWithdrawalsManyWallets(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	old := now.Add(-time.Hour)
	store := newWdStore()
	for _, w := range []state.Withdrawal{
		{Key: "k-a", Wallet: "loja-a", Amount: 1000, State: state.WithdrawalUnknown, RequestedAt: old},
		{Key: "k-b", Wallet: "loja-b", Amount: 2000, State: state.WithdrawalRequested, RequestedAt: old},
		{Key: "k-p", Wallet: api.WalletPrincipal, Amount: 3000, State: state.WithdrawalRequested, RequestedAt: now.Add(-10 * time.Second)},
	} {
		store.recs[w.Key] = w
	}
	svc := &fakeAPI{txs: map[string]*api.Transaction{"k-a": {ID: "wd-a", Type: api.TypeWithdrawal, Status: api.StatusPending, Amount: -1000}}}
	out := RecoverWithdrawals(context.Background(), svc, store, func() time.Time { return now })
	if out.Err != nil || len(out.Taken) != 1 || out.Taken[0].Key != "k-a" || len(out.NotSent) != 1 || out.NotSent[0].Key != "k-b" ||
		len(out.Pending) != 1 || out.Pending[0].Key != "k-p" || !out.RetryAt.Equal(now.Add(WithdrawalRecheck)) {
		t.Fatalf("%+v", out)
	}
	headers := map[string]string{}
	for _, c := range svc.callsOf("GetTransaction") {
		headers[c.id] = c.opts.SubAccount
	}
	if headers["k-a"] != "loja-a" || headers["k-b"] != "loja-b" || headers["k-p"] != "" || len(headers) != 3 {
		t.Fatalf("X-Sub-Account per key: %v", headers)
	}

	// The form's retry got the answer between the listing and the write: the answer stays.
	store = newWdStore()
	store.recs["k-r"] = state.Withdrawal{Key: "k-r", Wallet: "loja-a", Amount: 1000, State: state.WithdrawalUnknown, RequestedAt: old}
	racing := &racingReader{store: store, answer: state.Withdrawal{Key: "k-r", Wallet: "loja-a", ID: "wd-r", Amount: 1000, State: state.WithdrawalCompleted, RequestedAt: old}}
	out = RecoverWithdrawals(context.Background(), racing, store, func() time.Time { return now })
	if got := store.recs["k-r"]; got.State != state.WithdrawalCompleted || got.ID != "wd-r" || len(out.NotSent) != 0 {
		t.Fatalf("the form's answer was overwritten: %+v (%+v)", got, out)
	}
}

// racingReader answers 404 after the record got its answer from elsewhere.
type racingReader struct {
	store  *wdStore
	answer state.Withdrawal
}

func (r *racingReader) GetTransaction(ctx context.Context, id string, _ ...api.RequestOption) (*api.Transaction, error) {
	_, _ = r.store.PutWithdrawal(ctx, r.answer)
	return nil, &api.Error{HTTPStatus: 404, Kind: "NotFound", Message: "Transaction not found"}
}

// On the emulator and a real store: a withdrawal whose reply was lost (its record put back to
// requested) is found by its key in its sub-account and recorded taken with the service's id,
// once; a key the service never saw, older than the window, is recorded not sent.
func TestRecoverWithdrawalsOnTheEmulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _ := demoSession(t, sandbox.DemoOptions{})
	o := wdOrder(api.NewIdempotencyKey(), 2000, 1<<40)
	o.Wallet = api.WalletPrincipal
	sent := Withdraw(ctx, s.Client, s.Store, o, nil)
	if sent.Kind != WithdrawalDone || sent.Record.ID == "" {
		t.Fatalf("withdraw: %+v", sent)
	}
	lost := sent.Record
	lost.State, lost.ID, lost.Fee, lost.NetAmount = state.WithdrawalRequested, "", 0, 0
	if _, err := s.Store.PutWithdrawal(ctx, lost); err != nil {
		t.Fatal(err)
	}
	never := state.Withdrawal{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal, PixKeyType: api.PixKeyEmail, PixKey: "joao@example.com",
		Amount: 1500, State: state.WithdrawalUnknown, RequestedAt: time.Now().Add(-time.Hour), UpdatedAt: time.Now().Add(-time.Hour)}
	if _, err := s.Store.PutWithdrawal(ctx, never); err != nil {
		t.Fatal(err)
	}
	out := RecoverWithdrawals(ctx, s.Client, s.Store, nil)
	if out.Err != nil || len(out.Taken) != 1 || len(out.NotSent) != 1 || len(out.Pending) != 0 {
		t.Fatalf("%+v", out)
	}
	got, _, _ := s.Store.WithdrawalByKey(ctx, o.Key)
	if got.ID != sent.Record.ID || !got.State.Taken() || got.Amount != 2000 {
		t.Fatalf("recovered %+v, want the service's %s", got, sent.Record.ID)
	}
	gone, _, _ := s.Store.WithdrawalByKey(ctx, never.Key)
	if gone.State != state.WithdrawalRefused || gone.Message != NotSentMessage {
		t.Fatalf("never sent: %+v", gone)
	}
	if again := RecoverWithdrawals(ctx, s.Client, s.Store, nil); len(again.Taken)+len(again.NotSent)+len(again.Pending) != 0 || again.Err != nil {
		t.Fatalf("a second pass found work: %+v", again)
	}
}
