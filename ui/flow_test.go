package ui

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// The session types are the workflow's; the tests keep their short names.
type (
	Session   = workflow.Session
	Receiving = workflow.Receiving
)

// DefaultDescription is the description a new charge starts with when the session names none.
const DefaultDescription = workflow.DefaultDescription

// The built-in fixture's demo credential, the one demo mode signs in with.
const (
	DemoClientID = sandbox.DemoClientID
	demoSecret   = sandbox.DemoSecret
)

// DemoOptions tunes the in-process emulator and the session of a demo (tests pass a fake clock
// or another credential).
type DemoOptions struct {
	// ClientID and Secret pick another fixture credential (default: the demo full-access one).
	ClientID      string
	Secret        api.Secret
	Fixture       *sandbox.Fixture
	ServerOptions []sandbox.Option
	ClientOptions []api.Option
	StoreOptions  []state.Option
	// ReceiverOptions are added after the receiver's defaults (those of a profile with no
	// signature_header or tolerance: api.DefaultWebhookTolerance), e.g. a test clock.
	ReceiverOptions []api.ReceiverOption
}

// DemoSession builds the session of demo mode as main does: the emulator in-process
// (sandbox.StartDemo) and a session on it with a memory store (workflow.Open), tracking the
// fixture's charges. Closing the session stops the emulator.
func DemoSession(ctx context.Context, o DemoOptions) (*Session, *sandbox.Server, error) {
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{ClientID: o.ClientID, Secret: o.Secret, Fixture: o.Fixture,
		ServerOptions: o.ServerOptions, ClientOptions: o.ClientOptions})
	if err != nil {
		return nil, nil, err
	}
	track := make([]workflow.TrackRef, len(d.Seeded))
	for i, ref := range d.Seeded {
		track[i] = workflow.TrackRef(ref)
	}
	s, err := workflow.Open(ctx, workflow.Params{
		Profile: "demo", Env: d.Env, Demo: true, Client: d.Client, Simulator: d.Control,
		PixFee: d.PixFee, HasPixFee: d.HasPixFee, DefaultDescription: workflow.DefaultDescription,
		StoreOptions: o.StoreOptions,
		Webhook: &workflow.Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret,
			Tolerance: api.DefaultWebhookTolerance, Options: o.ReceiverOptions},
		Track: track, Release: d.Close,
	})
	if err != nil {
		return nil, nil, err
	}
	return s, d.Server, nil
}

// demo starts the in-process emulator and a session against it, closed when the test ends.
func demo(t *testing.T, o DemoOptions) (*Session, *sandbox.Server) {
	t.Helper()
	s, srv, err := DemoSession(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	baselines.Store(srv, srv.ChargeCount())
	return s, srv
}

// flow runs the dashboard for a session in a teatest program.
type flow struct {
	t     *testing.T
	tm    *teatest.TestModel
	m     *Model
	out   *screenLog
	bells *int
	mu    *sync.Mutex
}

// screenLog keeps everything the program printed, for waiting on text.
type screenLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func startFlow(t *testing.T, s *Session, w, h int) *flow {
	t.Helper()
	var mu sync.Mutex
	bells := 0
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Bell: func() { mu.Lock(); bells++; mu.Unlock() }, Clipboard: func(string) {}})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	f := &flow{t: t, tm: tm, m: m, out: &screenLog{}, bells: &bells, mu: &mu}
	t.Cleanup(func() { stopEngine(t, tm, m) })
	return f
}

// waitFor waits until the program has printed every one of the texts.
func (f *flow) waitFor(texts ...string) {
	f.t.Helper()
	teatest.WaitFor(f.t, f.tm.Output(), func(b []byte) bool {
		f.out.mu.Lock()
		f.out.buf.Write(b)
		all := f.out.buf.String()
		f.out.mu.Unlock()
		for _, s := range texts {
			if !strings.Contains(all, s) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	f.out.mu.Lock()
	f.out.buf.Reset()
	f.out.mu.Unlock()
}

func (f *flow) keys(ks ...string) {
	for _, k := range ks {
		switch k {
		case "tab":
			f.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
		case "enter":
			f.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			f.tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		case "ctrl+s":
			f.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
		default:
			// One key per rune (teatest's Type sends bytes, which splits accented letters).
			for _, r := range k {
				f.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
	}
}

func (f *flow) bellCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.bells
}

// newCharge opens the form, types an amount and description and submits.
func (f *flow) newCharge(amount, desc string) {
	f.keys("n")
	f.waitFor("New charge", "Create charge")
	f.keys(amount, "tab", desc, "ctrl+s")
}

func TestFlowCreateShowQRPayPaid(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "charges", "STATUS")
	f.newCharge("12,34", "Cafe")
	f.waitFor("Pague com PIX", "PIX copia e cola:", "Aguardando pagamento")
	f.keys("$")
	f.waitFor("PAGO", "Maria da Silva", "e2eId")
	deadline := time.Now().Add(5 * time.Second)
	for f.bellCount() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f.bellCount() == 0 {
		t.Fatal("the bell did not ring on payment")
	}
	f.keys("esc")
	f.waitFor("Cafe", "paid")
	// The newest charge of the list the merchant sees (the active wallet's).
	cs := allCharges(t, s.Store, state.ChargeQuery{Wallet: api.WalletPrincipal})
	if len(cs) == 0 {
		t.Fatal("no charge tracked")
	}
	if ch := cs[0]; ch.State() != state.StatePaid || ch.Amount != 1234 || ch.PayerName != "Maria da Silva" || ch.Description != "Cafe" {
		t.Fatalf("tracked charge = %+v", ch)
	}
}

func TestFlowExpired(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.newCharge("5", "expira")
	f.waitFor("Pague com PIX")
	f.keys("x")
	f.waitFor("EXPIRADA", "Esta cobrança expirou sem pagamento")
}

func TestFlowBlockedDepositShowsReasonAndRefund(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.newCharge("50", "cnpj")
	f.waitFor("Pague com PIX")
	f.keys("%")
	f.waitFor("FALHOU", "esta conta não aceita pagamentos de empresas (CNPJ)", "Estorno ao pagador")
}

func TestFlowProductionAsksConfirmation(t *testing.T) {
	s, srv := demo(t, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	s.Demo = false
	f := startFlow(t, s, 120, 40)
	f.waitFor("PRODUCTION")
	f.newCharge("12,34", "live")
	f.waitFor("Create R$ 12,34 in PRODUCTION? (y/N)")
	f.keys("n")
	f.waitFor("Cancelled; nothing was sent.")
	if n := countCharges(t, srv); n != 0 {
		t.Fatalf("a refused confirmation created %d charge(s)", n)
	}
	f.keys("ctrl+s")
	f.waitFor("Create R$ 12,34 in PRODUCTION? (y/N)")
	f.keys("y")
	f.waitFor("Pague com PIX")
	if n := countCharges(t, srv); n != 1 {
		t.Fatalf("confirmed create made %d charge(s), want 1", n)
	}
}

// countCharges counts charges created since the emulator started (not the seeded history).
func countCharges(t *testing.T, srv *sandbox.Server) int {
	t.Helper()
	base, ok := baselines.Load(srv)
	if !ok {
		t.Fatal("no baseline for this emulator")
	}
	return srv.ChargeCount() - base.(int)
}

// baselines holds each test emulator's charge count at start.
var baselines sync.Map

func TestFlowReadOnlyRefusesWrites(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	s.ReadOnly = true
	f := startFlow(t, s, 120, 40)
	f.waitFor("charges", "STATUS")
	f.keys("n")
	f.waitFor("read-only")
	if n := countCharges(t, srv); n != 0 {
		t.Fatalf("read-only profile created %d charge(s)", n)
	}
}

func TestFlowValidationMessagesAndNothingSent(t *testing.T) {
	s, srv := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.keys("n")
	f.waitFor("New charge")
	f.keys("0,50", "tab")
	f.waitFor("the minimum charge is R$ 1,00")
	f.keys("tab", "tab", "tab", "tab", "tab", "123.456.789-00", "tab", "not-an-email", "tab")
	f.waitFor("CPF check digits do not match", "not an e-mail address")
	f.keys("ctrl+s")
	f.waitFor("Fix the highlighted fields; nothing was sent.")
	if n := countCharges(t, srv); n != 0 {
		t.Fatalf("invalid form created %d charge(s)", n)
	}
}

func TestFlowRestartRestoresTrackedCharges(t *testing.T) {
	dir := t.TempDir()
	s, _ := demo(t, DemoOptions{})
	store, err := state.Open(context.Background(), dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	s.Store = store
	f := startFlow(t, s, 120, 40)
	f.newCharge("21,00", "persist me")
	f.waitFor("Pague com PIX")
	f.keys("esc")
	f.waitFor("1 charge · wallet")
	if err := f.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	f.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := state.Open(context.Background(), dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Close() })
	s2, _ := demo(t, DemoOptions{})
	s2.Store = again
	f2 := startFlow(t, s2, 120, 40)
	f2.waitFor("1 charge · wallet", "persist me", "R$ 21,00")
}

func TestFlowInterruptedSubmissionResolvesToOneCharge(t *testing.T) {
	dir := t.TempDir()
	s, srv := demo(t, DemoOptions{})
	store, err := state.Open(context.Background(), dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	s.Store = store
	// A crash after the POST reached the service but before the reply was saved: the
	// submission is on disk, the charge exists on the server, nothing is tracked.
	key := api.NewIdempotencyKey()
	req := api.CreatePixRequest{Amount: 3300, Description: "interrupted"}
	if err := store.BeginSubmission(context.Background(), state.Submission{Key: key, Wallet: api.WalletPrincipal, Request: req}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.CreatePix(context.Background(), &req, api.WithIdempotencyKey(key)); err != nil {
		t.Fatal(err)
	}
	// A second interrupted submission that never reached the service.
	lost := api.NewIdempotencyKey()
	if err := store.BeginSubmission(context.Background(), state.Submission{Key: lost, Request: api.CreatePixRequest{Amount: 100}}); err != nil {
		t.Fatal(err)
	}
	f := startFlow(t, s, 120, 40)
	f.waitFor("Recovered 1 charge(s)", "interrupted", "R$ 33,00")
	if n := countCharges(t, srv); n != 1 {
		t.Fatalf("server has %d charges, want exactly 1", n)
	}
	if subs, err := store.PendingSubmissions(context.Background()); err != nil || len(subs) != 0 {
		t.Fatalf("pending submissions left: %+v (%v)", subs, err)
	}
	if cs := allCharges(t, store, state.ChargeQuery{}); len(cs) != 1 || cs[0].Amount != 3300 || cs[0].IdempotencyKey != key {
		t.Fatalf("tracked %+v, want the one charge of key %s", cs, key)
	}
}

// Switching profile cancels what the old session had in flight: a call that hangs on the old
// service ends at once with the switch, not at its timeout, and its reply is dropped.
func TestSwitchCancelsTheOldSessionsCalls(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // never answers while the test runs
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // before srv.Close: the client's own token exchange is not the session's
	client, err := api.NewClient(srv.URL+"/v2", "mp_test_hung", "unused", api.WithRetry(api.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	old := goldenSession(t, api.Sandbox)
	old.Client = client
	m := New(Options{Session: old, Lang: common.LangEN, Now: func() time.Time { return goldenNow }})
	started := time.Now()
	replies := make(chan tea.Msg, 2)
	for _, cmd := range []tea.Cmd{m.pollNow("tx-hung", api.WalletPrincipal), m.authCmd()} {
		go func() { replies <- cmd() }()
	}
	select {
	case msg := <-replies:
		t.Fatalf("a call to the hung service returned %#v", msg)
	case <-time.After(200 * time.Millisecond):
	}
	m.Update(profileOpenedMsg{name: "outra", sess: goldenSession(t, api.Sandbox)})
	for range 2 {
		select {
		case msg := <-replies:
			var err error
			switch msg := msg.(type) {
			case txMsg:
				err = msg.err
			case authMsg:
				err = msg.err
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("reply %#v, want a cancelled call", msg)
			}
			// The new session drops it.
			if _, cmd := m.Update(reply(m, msg)); cmd != nil {
				t.Errorf("the old session's reply reached the new one")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a call of the old session outlived the switch")
		}
	}
	if d := time.Since(started); d > common.CallTimeout/2 {
		t.Fatalf("the calls ended after %s", d)
	}
}
