package workflow

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

func TestCreateCharge(t *testing.T) {
	const key = "pixdash-test-key-0001"
	req := api.CreatePixRequest{Amount: 1234, Description: "Café"}
	good := func(t *testing.T) *api.PixCharge {
		return &api.PixCharge{ID: "tx-1", Status: api.StatusPending, Amount: 1234, PixCopyPaste: brCode(t, 1234), CreatedAt: t0}
	}
	cases := []struct {
		name      string
		wallet    string
		createErr error
		reply     func(t *testing.T) *api.PixCharge
		store     fakeSubmissions
		// want
		charge, unconfirmed, err, abandoned, completed bool
		mismatch                                       bool
		calls                                          int
	}{
		{name: "created", reply: good, charge: true, completed: true, calls: 1},
		{name: "created in a sub-account", wallet: "loja-centro", reply: good, charge: true, completed: true, calls: 1},
		{name: "refused 400: abandoned", createErr: &api.Error{HTTPStatus: 400, Message: "amount must not be less than 1"}, err: true, abandoned: true, calls: 1},
		{name: "refused 409: abandoned", createErr: &api.Error{HTTPStatus: 409, Message: "idempotency key reused"}, err: true, abandoned: true, calls: 1},
		{name: "429: unconfirmed, kept", createErr: &api.Error{HTTPStatus: 429}, err: true, unconfirmed: true, calls: 1},
		{name: "503: unconfirmed, kept", createErr: &api.Error{HTTPStatus: 503}, err: true, unconfirmed: true, calls: 1},
		{name: "network: unconfirmed, kept", createErr: errNetwork, err: true, unconfirmed: true, calls: 1},
		{name: "not recorded: nothing sent", store: fakeSubmissions{beginErr: state.ErrDiskFull}, err: true, calls: 0},
		{name: "reply differs: tracked with the mismatch", reply: func(t *testing.T) *api.PixCharge {
			p := good(t)
			p.Amount = 4321
			return p
		}, charge: true, completed: true, mismatch: true, calls: 1},
		{name: "created, not saved: the charge and the error", reply: good, store: fakeSubmissions{completeErr: state.ErrDiskFull}, charge: true, err: true, calls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeAPI{createErr: tc.createErr}
			if tc.reply != nil {
				c.created = tc.reply(t)
			}
			s := tc.store
			r := CreateCharge(context.Background(), c, &s, Draft{Key: key, Wallet: tc.wallet, Req: req}, func() time.Time { return t0 })
			if got := r.Charge != nil; got != tc.charge {
				t.Errorf("charge = %+v, want one: %v", r.Charge, tc.charge)
			}
			if r.Unconfirmed != tc.unconfirmed || (r.Err != nil) != tc.err {
				t.Errorf("unconfirmed %v, err %v; want %v, %v", r.Unconfirmed, r.Err, tc.unconfirmed, tc.err)
			}
			if got := len(s.abandoned) == 1 && s.abandoned[0] == key; got != tc.abandoned {
				t.Errorf("abandoned %v, want %v", s.abandoned, tc.abandoned)
			}
			if _, got := s.completed[key]; got != tc.completed {
				t.Errorf("completed %v, want %v", s.completed, tc.completed)
			}
			calls := c.callsOf("CreatePix")
			if len(calls) != tc.calls {
				t.Fatalf("%d calls to POST /pix, want %d", len(calls), tc.calls)
			}
			if tc.calls == 0 {
				return
			}
			// The key recorded before the attempt is the key sent, in the draft's wallet.
			if len(s.begun) != 1 || s.begun[0].Key != key || calls[0].opts.IdempotencyKey != key || calls[0].opts.SubAccount != tc.wallet {
				t.Errorf("recorded %+v, sent %+v", s.begun, calls[0].opts)
			}
			if got, want := s.begun[0].InFlightUntil, t0.Add(CreateTimeout+InFlightMargin); !got.Equal(want) {
				t.Errorf("in flight until %s, want %s", got, want)
			}
			if r.Charge != nil {
				if r.Charge.IdempotencyKey != key || r.Charge.ID != "tx-1" {
					t.Errorf("charge %+v", r.Charge)
				}
				if got := r.Charge.Mismatch != ""; got != tc.mismatch {
					t.Errorf("mismatch %q, want one: %v", r.Charge.Mismatch, tc.mismatch)
				}
			}
		})
	}
}

// The main account travels as no X-Sub-Account at all.
func TestSubAccountHeader(t *testing.T) {
	for wallet, want := range map[string]string{api.WalletPrincipal: "", "": "", "loja-centro": "loja-centro"} {
		if got := SubAccountHeader(wallet); got != want {
			t.Errorf("SubAccountHeader(%q) = %q, want %q", wallet, got, want)
		}
	}
}

func TestRecoverSubmissions(t *testing.T) {
	sub := func(key, wallet string, inFlight bool) state.Submission {
		until := t0.Add(-time.Second)
		if inFlight {
			until = t0.Add(time.Minute)
		}
		return state.Submission{Key: key, Wallet: wallet, Request: api.CreatePixRequest{Amount: 100}, InFlightUntil: until}
	}
	found := &api.Transaction{ID: "tx-found", Status: api.StatusPending, Amount: 100}
	cases := []struct {
		name                       string
		subs                       []state.Submission
		errs                       map[string]error
		store                      fakeSubmissions
		resolved, pending, dropped int
		err                        bool
	}{
		{name: "nothing pending"},
		{name: "found by its key: tracked", subs: []state.Submission{sub("k-found", "loja-centro", false)}, resolved: 1},
		{name: "not found, may still land: pending", subs: []state.Submission{sub("k-late", "", true)}, pending: 1},
		{name: "not found, cannot land: abandoned", subs: []state.Submission{sub("k-lost", "", false)}, dropped: 1},
		{name: "lookup failed: pending", subs: []state.Submission{sub("k-down", "", false)}, errs: map[string]error{"k-down": errNetwork}, pending: 1, err: true},
		{name: "found, not saved: pending", subs: []state.Submission{sub("k-found", "", false)}, store: fakeSubmissions{resolveErr: state.ErrDiskFull}, pending: 1, err: true},
		{name: "not abandoned: pending", subs: []state.Submission{sub("k-lost", "", false)}, store: fakeSubmissions{abandonErr: state.ErrDiskFull}, pending: 1, err: true},
		{name: "submissions unreadable", store: fakeSubmissions{pendingErr: state.ErrIO}, err: true},
		{name: "a mix", subs: []state.Submission{sub("k-found", "", false), sub("k-late", "", true), sub("k-lost", "", false)}, resolved: 1, pending: 1, dropped: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeAPI{txs: map[string]*api.Transaction{"k-found": found}, errs: tc.errs}
			s := tc.store
			s.pending = tc.subs
			r := RecoverSubmissions(context.Background(), c, &s, func() time.Time { return t0 })
			if len(r.Resolved) != tc.resolved || r.Pending != tc.pending || r.Abandoned != tc.dropped || (r.Err != nil) != tc.err {
				t.Fatalf("got %d resolved, %d pending, %d abandoned, err %v; want %d, %d, %d, err %v",
					len(r.Resolved), r.Pending, r.Abandoned, r.Err, tc.resolved, tc.pending, tc.dropped, tc.err)
			}
			if len(s.abandoned) != r.Abandoned {
				t.Errorf("store abandoned %v, reported %d", s.abandoned, r.Abandoned)
			}
			// Each lookup is by the submission's key, in its wallet.
			for i, call := range c.callsOf("GetTransaction") {
				if call.id != tc.subs[i].Key || call.opts.SubAccount != SubAccountHeader(tc.subs[i].Wallet) {
					t.Errorf("lookup %d: %+v for %+v", i, call, tc.subs[i])
				}
			}
		})
	}
}

func TestPollCharge(t *testing.T) {
	paidAt := t0.Add(time.Minute)
	paid := &api.Transaction{ID: "tx-1", Status: api.StatusCompleted, Amount: 1234, PaidAt: &paidAt, UpdatedAt: &paidAt}
	cases := []struct {
		name        string
		apiErr      error
		applyErr    error
		before      state.ChargeState
		after       state.ChargeState
		err, gotTx  bool
		applyCalled bool
	}{
		{name: "paid", before: state.StatePending, after: state.StatePaid, gotTx: true},
		{name: "service unreachable: nothing applied", apiErr: errNetwork, err: true},
		{name: "not saved", applyErr: state.ErrDiskFull, before: state.StatePending, err: true, gotTx: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeAPI{txs: map[string]*api.Transaction{"tx-1": paid}, errs: map[string]error{"tx-1": tc.apiErr}}
			s := &fakeCharges{charges: map[string]state.Charge{"tx-1": {ID: "tx-1", Status: api.StatusPending, Amount: 1234, Wallet: "loja"}}, applyErr: tc.applyErr}
			r := PollCharge(context.Background(), c, s, "tx-1", "loja")
			if (r.Err != nil) != tc.err || (r.Tx != nil) != tc.gotTx {
				t.Fatalf("err %v, tx %v", r.Err, r.Tx)
			}
			if tc.err {
				return
			}
			if r.Before.State() != tc.before || r.After.State() != tc.after {
				t.Errorf("before %s, after %s; want %s, %s", r.Before.State(), r.After.State(), tc.before, tc.after)
			}
			if calls := c.callsOf("GetTransaction"); len(calls) != 1 || calls[0].opts.SubAccount != "loja" {
				t.Errorf("calls %+v", calls)
			}
		})
	}
}

func TestTrackChargesSkipsWalletsItCannotRead(t *testing.T) {
	forbidden := &api.Error{HTTPStatus: 403, Code: api.CodeSubAccountForbidden}
	c := &fakeAPI{
		txs:  map[string]*api.Transaction{"a": {ID: "a", Status: api.StatusPending}, "c": {ID: "c", Status: api.StatusCompleted}},
		errs: map[string]error{"b": forbidden},
	}
	s := &fakeCharges{charges: map[string]state.Charge{}}
	refs := []TrackRef{{ID: "a", Wallet: api.WalletPrincipal}, {ID: "b", Wallet: "loja-sul"}, {ID: "c", Wallet: "loja-centro"}}
	if err := TrackCharges(context.Background(), c, s, refs); err != nil {
		t.Fatal(err)
	}
	if len(s.charges) != 2 || s.charges["c"].Wallet != "loja-centro" {
		t.Fatalf("tracked %+v", s.charges)
	}
	// Any other failure stops it.
	c.errs["a"] = errNetwork
	if err := TrackCharges(context.Background(), c, s, refs); !errors.Is(err, errNetwork) {
		t.Fatalf("err %v", err)
	}
}

func TestLoadProjectsSortsByName(t *testing.T) {
	c := &fakeAPI{}
	items, err := LoadProjects(context.Background(), c, "loja-centro")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range items {
		names = append(names, p.Name)
	}
	if fmt.Sprint(names) != "[alfa Beta zeta]" {
		t.Errorf("names %v", names)
	}
	if calls := c.callsOf("ListAllProjects"); len(calls) != 1 || calls[0].opts.SubAccount != "loja-centro" {
		t.Errorf("calls %+v", calls)
	}
}

func TestAuthenticate(t *testing.T) {
	c := &fakeAPI{createErr: errNetwork}
	if err := Authenticate(context.Background(), c); !errors.Is(err, errNetwork) || len(c.callsOf("Authenticate")) != 1 {
		t.Fatalf("err %v, calls %+v", err, c.calls)
	}
}

// The interfaces are what *api.Client and *state.Store offer: the dashboard passes them as they are.
func TestRealTypesImplementThePorts(*testing.T) {
	var (
		_ ChargeAPI         = (*api.Client)(nil)
		_ ProjectLister     = (*api.Client)(nil)
		_ Authenticator     = (*api.Client)(nil)
		_ SubmissionStore   = (*state.Store)(nil)
		_ ChargeStore       = (*state.Store)(nil)
		_ Tracker           = (*state.Store)(nil)
		_ EventFeed         = (*state.Store)(nil)
		_ PaymentChecker    = (*state.Store)(nil)
		_ EventPruner       = (*state.Store)(nil)
		_ TransactionReader = (*api.Client)(nil)
	)
}
