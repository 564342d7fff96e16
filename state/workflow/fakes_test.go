package workflow

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// call is one request a fake service received, with its options applied.
type call struct {
	method string
	id     string
	opts   api.RequestOptions
}

// fakeAPI is the service: canned answers, and every call recorded.
type fakeAPI struct {
	mu    sync.Mutex
	calls []call

	createErr error
	created   *api.PixCharge
	// txs answers GetTransaction by id or key; errs answers with an error instead.
	txs  map[string]*api.Transaction
	errs map[string]error
}

func options(opts []api.RequestOption) api.RequestOptions {
	var o api.RequestOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

func (f *fakeAPI) record(method, id string, opts []api.RequestOption) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{method: method, id: id, opts: options(opts)})
}

func (f *fakeAPI) CreatePix(_ context.Context, _ *api.CreatePixRequest, opts ...api.RequestOption) (*api.PixCharge, error) {
	f.record("CreatePix", "", opts)
	if f.createErr != nil {
		return nil, f.createErr
	}
	return f.created, nil
}

func (f *fakeAPI) GetTransaction(_ context.Context, id string, opts ...api.RequestOption) (*api.Transaction, error) {
	f.record("GetTransaction", id, opts)
	if err := f.errs[id]; err != nil {
		return nil, err
	}
	if tx, ok := f.txs[id]; ok {
		return tx, nil
	}
	return nil, &api.Error{HTTPStatus: 404, Kind: "NotFound", Message: "Transaction not found"}
}

func (f *fakeAPI) ListAllProjects(_ context.Context, opts ...api.RequestOption) ([]api.Project, error) {
	f.record("ListAllProjects", "", opts)
	return []api.Project{{ID: "3", Name: "zeta"}, {ID: "1", Name: "Beta"}, {ID: "2", Name: "alfa"}}, nil
}

func (f *fakeAPI) Authenticate(context.Context) error {
	f.record("Authenticate", "", nil)
	return f.createErr
}

func (f *fakeAPI) callsOf(method string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.method == method {
			out = append(out, c)
		}
	}
	return out
}

// fakeSubmissions is the store's submission records, in memory, with injectable failures.
type fakeSubmissions struct {
	begun     []state.Submission
	completed map[string]state.Charge
	abandoned []string
	resolved  map[string]*api.Transaction
	pending   []state.Submission

	beginErr, completeErr, abandonErr, pendingErr, resolveErr error
}

func (s *fakeSubmissions) BeginSubmission(_ context.Context, sub state.Submission) error {
	if s.beginErr != nil {
		return s.beginErr
	}
	s.begun = append(s.begun, sub)
	return nil
}

func (s *fakeSubmissions) CompleteSubmission(_ context.Context, key string, c state.Charge) (state.Charge, error) {
	if s.completeErr != nil {
		return state.Charge{}, s.completeErr
	}
	if s.completed == nil {
		s.completed = map[string]state.Charge{}
	}
	s.completed[key] = c
	return c, nil
}

func (s *fakeSubmissions) AbandonSubmission(_ context.Context, key string) error {
	if s.abandonErr != nil {
		return s.abandonErr
	}
	s.abandoned = append(s.abandoned, key)
	return nil
}

func (s *fakeSubmissions) PendingSubmissions(context.Context) ([]state.Submission, error) {
	return s.pending, s.pendingErr
}

func (s *fakeSubmissions) ResolveSubmission(_ context.Context, key string, tx *api.Transaction) (state.Charge, error) {
	if s.resolveErr != nil {
		return state.Charge{}, s.resolveErr
	}
	if s.resolved == nil {
		s.resolved = map[string]*api.Transaction{}
	}
	s.resolved[key] = tx
	return state.ChargeFromTransaction(tx, nil), nil
}

// fakeCharges is the store's tracked charges.
type fakeCharges struct {
	charges  map[string]state.Charge
	applyErr error
}

func (s *fakeCharges) Charge(_ context.Context, id string) (state.Charge, bool, error) {
	c, ok := s.charges[id]
	return c, ok, nil
}

func (s *fakeCharges) ApplyTransaction(_ context.Context, tx *api.Transaction) (state.Charge, bool, error) {
	if s.applyErr != nil {
		return state.Charge{}, false, s.applyErr
	}
	c, ok := s.charges[tx.ID]
	c.ApplyTransaction(tx)
	s.charges[tx.ID] = c
	return c, ok, nil
}

func (s *fakeCharges) MarkMissing(_ context.Context, id string) (state.Charge, bool, error) {
	c, ok := s.charges[id]
	if ok {
		c.Missing++
		s.charges[id] = c
	}
	return c, ok, nil
}

func (s *fakeCharges) TrackTransaction(_ context.Context, tx *api.Transaction, wallet string) (state.Charge, error) {
	c := state.ChargeFromTransaction(tx, nil)
	c.Wallet = wallet
	s.charges[tx.ID] = c
	return c, nil
}

// fakeFeed is an event store: events appended by the test, Changed closed on each append.
type fakeFeed struct {
	mu      sync.Mutex
	events  []state.EventEntry
	changed chan struct{}
	lastErr error
	readErr error
	reads   int
}

func newFeed() *fakeFeed { return &fakeFeed{changed: make(chan struct{})} }

func (f *fakeFeed) add(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		f.events = append(f.events, state.EventEntry{Seq: int64(len(f.events) + 1), Event: &api.Event{EventID: id}})
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeFeed) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

func (f *fakeFeed) EventsAfter(ctx context.Context, seq int64, max int) ([]state.EventEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.readErr != nil {
		return nil, f.readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []state.EventEntry
	for _, e := range f.events {
		if e.Seq > seq && len(out) < max {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeFeed) LastEventSeq(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lastErr != nil {
		return 0, f.lastErr
	}
	return int64(len(f.events)), nil
}

// brCode is a valid copy-and-paste code for amount.
func brCode(t *testing.T, amount api.Money) string {
	t.Helper()
	code, err := api.EncodeBRCode(api.BRCodeParams{URL: "pix.example.com/qr/v2/cobv/0c1d2e3f", MerchantName: "Padaria", MerchantCity: "Sao Paulo", Amount: amount})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

var (
	errNetwork = errors.New("dial tcp 127.0.0.1:9: connection refused")
	t0         = time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
)
