package workflow

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state"
)

// Helper process of TestRefundKilledWhileSendingSettlesAtStart: the test binary run again with
// these variables sends one refund and is killed while the request is out.
const (
	envRefundCrashDir = "PIXDASH_REFUND_CRASH_DIR"
	envRefundCrashID  = "PIXDASH_REFUND_CRASH_ID"
)

// hangingRefund is the service of the helper: the POST says it is out, then never answers.
type hangingRefund struct{ refundFake }

func (h *hangingRefund) RefundTransaction(ctx context.Context, id string, _ *api.RefundRequest, _ ...api.RequestOption) (*api.RefundResult, error) {
	fmt.Printf("sending %s\n", id)
	<-ctx.Done()
	time.Sleep(time.Minute) // killed before this ends
	return nil, ctx.Err()
}

// TestRefundCrashHelper sends the refund of the charge named by envRefundCrashID.
func TestRefundCrashHelper(t *testing.T) {
	dir, id := os.Getenv(envRefundCrashDir), os.Getenv(envRefundCrashID)
	if dir == "" || id == "" {
		t.Skip("helper process of TestRefundKilledWhileSendingSettlesAtStart")
	}
	s, err := state.Open(context.Background(), dir, "shop")
	if err != nil {
		fmt.Printf("ERR %v\n", err)
		os.Exit(3)
	}
	ch, ok, err := s.Charge(context.Background(), id)
	if err != nil || !ok {
		fmt.Printf("ERR charge %s: %v\n", id, err)
		os.Exit(3)
	}
	Refund(context.Background(), &hangingRefund{}, s, RefundOrder{Charge: ch, Amount: ch.Amount, Key: "key-" + id}, nil)
	os.Exit(0)
}

// killWhileSending runs the helper for charge id and kills it once its POST is out.
func killWhileSending(t *testing.T, dir, id string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRefundCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), envRefundCrashDir+"="+dir, envRefundCrashID+"="+id, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sent := false
	for !sent && sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "ERR") {
			t.Fatalf("helper: %s", line)
		}
		sent = line == "sending "+id
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait() // reaped: its pid is no longer a live process
	if !sent {
		t.Fatalf("the helper for %s never sent", id)
	}
}

// trackPaid tracks a completed payment of R$ 42,50 with this id in wallet loja-sul.
func trackPaid(t *testing.T, s *state.Store, id string) state.Charge {
	t.Helper()
	paid := time.Now().Add(-time.Hour)
	ch, err := s.UpsertCharge(context.Background(), state.Charge{ID: id, Amount: 4250, Status: api.StatusCompleted, PaidAt: &paid,
		Wallet: "loja-sul", CreatedAt: paid.Add(-time.Minute), UpdatedAt: paid, Description: "Café"})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestRefundKilledWhileSendingSettlesAtStart is issue 22's item 10: 20 windows killed while
// their refund request was out leave the rows at "refund unknown"; every refund_completed was
// stored and confirmed meanwhile (another window received them). The next session's recovery
// settles each row refunded, from the confirmed event, sending nothing; R then offers no
// refund, and a refund asked again sends nothing.
func TestRefundKilledWhileSendingSettlesAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	dir := t.TempDir()
	s, err := state.Open(context.Background(), dir, "shop")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	const kills = 20
	var ids []string
	for i := range kills {
		id := fmt.Sprintf("tx-kill-%02d", i)
		trackPaid(t, s, id)
		killWhileSending(t, dir, id)
		ids = append(ids, id)
	}
	for _, id := range ids {
		r, ok, err := s.RefundOf(context.Background(), id)
		if err != nil || !ok || !r.State.Open() {
			t.Fatalf("after the kill, %s: %+v %v %v", id, r, ok, err)
		}
		recordRefundEvent(t, s, id, 90)
	}

	// The next session starts.
	svc := &refundFake{txErr: errors.New("no read-back is needed: every event is confirmed")}
	got := RecoverRefunds(context.Background(), svc, s, nil)
	if len(got.Completed) != kills || got.Unknown != 0 || got.Waiting != 0 || got.Err != nil {
		t.Fatalf("recovery: %d completed, %d unknown, %d waiting, err %v", len(got.Completed), got.Unknown, got.Waiting, got.Err)
	}
	for _, id := range ids {
		r, _, err := s.RefundOf(context.Background(), id)
		if err != nil || r.State != state.RefundCompleted || r.FeeReported != 90 || r.Claim != nil {
			t.Fatalf("%s after recovery: %+v %v", id, r, err)
		}
		ch, _, _ := s.Charge(context.Background(), id)
		if err := CheckRefund(ch, &r, false); !errors.Is(err, ErrRefundDone) {
			t.Fatalf("R on %s offers a refund again: %v", id, err)
		}
		out := Refund(context.Background(), svc, s, RefundOrder{Charge: ch, Amount: 4250, Key: "again-" + id}, nil)
		if out.Sent || out.Kind != RefundRefused || !errors.Is(out.Err, ErrRefundDone) {
			t.Fatalf("a refund asked again for %s: %+v", id, out)
		}
	}
	if m := svc.methods(); m != "" {
		t.Fatalf("recovery called the service: %s", m)
	}
}

// refundLineReader answers the read-back of a refund_completed: the refund line (completed,
// negative amount) by its id, the charge by its.
type refundLineReader struct{ charge *api.Transaction }

func (r refundLineReader) GetTransaction(_ context.Context, id string, _ ...api.RequestOption) (*api.Transaction, error) {
	if id == "line-1" {
		return &api.Transaction{ID: "line-1", Type: api.TypeRefund, Status: api.StatusCompleted, Amount: -4250}, nil
	}
	if r.charge != nil && id == r.charge.ID {
		return r.charge, nil
	}
	return nil, api.ErrNotFound
}

// Issue 22's item 10, the other half: a refund_completed that arrives after the window that
// asked for the refund died settles its row when the service confirms it (in any window that
// reads it back), not only in the form that sent it.
func TestConfirmedRefundEventSettlesTheRecord(t *testing.T) {
	for _, st := range []state.RefundState{state.RefundRequested, state.RefundUnknown, state.RefundPending} {
		t.Run(string(st), func(t *testing.T) {
			store := refundMemStore(t)
			ch, tx := refundablePaid(t, store)
			if _, err := store.PutRefund(context.Background(), state.Refund{ChargeID: ch.ID, Wallet: ch.Wallet, Key: "k", Amount: 4250, State: st}); err != nil {
				t.Fatal(err)
			}
			recordUncheckedRefundEvent(t, store, ch.ID, 90)
			ev, _, err := store.RefundEvent(context.Background(), ch.ID)
			if err != nil {
				t.Fatal(err)
			}
			conf, err := ConfirmPayment(context.Background(), refundLineReader{charge: tx}, store, ev.Event)
			if err != nil || conf.Verdict != state.VerdictConfirmed {
				t.Fatalf("confirm: %+v %v", conf, err)
			}
			r, _, err := store.RefundOf(context.Background(), ch.ID)
			if err != nil || r.State != state.RefundCompleted || r.FeeReported != 90 {
				t.Fatalf("after the confirmed refund_completed: %+v %v", r, err)
			}
		})
	}
}

// Recovery settles only from the service: a recorded refund_completed not confirmed yet makes
// an open refund taken (pending), never refunded; an open refund with no event stays unknown
// (its dead window's claim dropped); a refund another window is sending is left to it, with a
// time to look again.
func TestRecoverRefundsOnlyFromTheService(t *testing.T) {
	ctx := context.Background()
	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	now := time.Now()
	store := refundMemStore(t)
	put := func(id string, st state.RefundState, cl *state.RefundClaim) {
		trackPaid(t, store, id)
		if _, err := store.PutRefund(ctx, state.Refund{ChargeID: id, Wallet: "loja-sul", Key: "k-" + id, Amount: 4250, State: st, Claim: cl}); err != nil {
			t.Fatal(err)
		}
	}
	put("tx-unchecked", state.RefundRequested, nil)
	recordUncheckedRefundEvent(t, store, "tx-unchecked", 90)
	put("tx-none", state.RefundRequested, &state.RefundClaim{PID: dead.ProcessState.Pid(), Host: host, Window: "w", Since: now, Until: now.Add(time.Minute)})
	until := now.Add(time.Minute)
	put("tx-elsewhere", state.RefundRequested, &state.RefundClaim{PID: 4242, Host: "caixa-2", Window: "w", Since: now, Until: until})
	recordRefundEvent(t, store, "tx-elsewhere", 90)
	put("tx-pending", state.RefundPending, nil)

	svc := &refundFake{tx: &api.Transaction{Status: api.StatusCompleted, Type: api.TypePayment, Amount: 4250}}
	got := RecoverRefunds(ctx, svc, store, func() time.Time { return now })
	if len(got.Completed) != 0 || len(got.Taken) != 1 || got.Taken[0].ChargeID != "tx-unchecked" || got.Unknown != 1 || got.Waiting != 2 || !got.RetryAt.Equal(until) {
		t.Fatalf("recovery: %+v", got)
	}
	want := map[string]state.RefundState{"tx-unchecked": state.RefundPending, "tx-none": state.RefundUnknown,
		"tx-elsewhere": state.RefundRequested, "tx-pending": state.RefundPending}
	for id, st := range want {
		r, _, _ := store.RefundOf(ctx, id)
		if r.State != st {
			t.Errorf("%s: %s, want %s", id, r.State, st)
		}
		if id == "tx-none" && r.Claim != nil {
			t.Errorf("the dead window's claim is kept: %+v", r.Claim)
		}
	}
	if strings.Contains(svc.methods(), "POST") {
		t.Fatalf("recovery sent a refund: %s", svc.methods())
	}
}
