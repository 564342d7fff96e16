package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// listen prints the engine's reports: an event that needs a read-back once the service's
// answer is in (a failure the engine retries is a warning, not a line), only the kinds and
// wallet asked for, an event an earlier run left unchecked when the engine reads it back at
// start, and, once told to stop, a failed read-back as unchecked and never twice.
func TestListenerPrintsEachEventOnceItsReadBackIsIn(t *testing.T) {
	store := state.OpenMemory()
	t.Cleanup(func() { _ = store.Close() })
	var out, errb strings.Builder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := &listener{c: &cli{ctx: ctx, stdout: &out, stderr: &errb}, sess: &workflow.Session{Store: store},
		only: []api.EventKind{api.EventPaymentCompleted}, outMu: &sync.Mutex{}, report: func(deliveryJSON) {},
		pending: map[string]*api.Event{}, early: map[string]bool{}}
	ev := func(id string, k api.EventKind) *api.Event {
		return &api.Event{EventID: id, Kind: k, TransactionID: "tx-" + id, Amount: 1234}
	}
	a, b, c, d := ev("a", api.EventPaymentCompleted), ev("b", api.EventPaymentExpired), ev("c", api.EventPaymentCompleted), ev("d", api.EventPaymentCompleted)
	confirmed := state.Confirmation{Verdict: state.VerdictConfirmed}
	lines := func() []string {
		s := strings.TrimSpace(out.String())
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}

	l.handle(workflow.Events{Events: []*api.Event{a, b}})
	if len(lines()) != 0 {
		t.Fatalf("printed before the read-back: %q", out.String())
	}
	l.handle(workflow.EventConfirmed{Event: a, Attempt: 0, Err: errors.New("503")})
	if len(lines()) != 0 || !strings.Contains(errb.String(), "trying again") {
		t.Fatalf("a failure the engine retries: stdout %q, stderr %q", out.String(), errb.String())
	}
	l.handle(workflow.EventConfirmed{Event: a, Attempt: 1, Conf: confirmed})
	l.handle(workflow.EventConfirmed{Event: b, Conf: confirmed}) // not a kind asked for
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "payment_completed") || !strings.Contains(got[0], "confirmed") || !strings.Contains(got[0], "tx-a") {
		t.Fatalf("want a's line, confirmed: %q", got)
	}
	if len(l.pending) != 0 {
		t.Fatalf("still pending: %v", l.pending)
	}

	// Left unchecked by an earlier run, read back at start: printed too.
	l.handle(workflow.EventConfirmed{Event: c, Conf: confirmed})
	if got := lines(); len(got) != 2 || !strings.Contains(got[1], "tx-c") {
		t.Fatalf("want c's line: %q", got)
	}

	// Told to stop: a failed read-back is final (printed unchecked), and the engine's retry of
	// it is not printed again.
	l.handle(workflow.Events{Events: []*api.Event{d}})
	l.stopping = true
	l.handle(workflow.EventConfirmed{Event: d, Attempt: 0, Err: errors.New("503")})
	l.handle(workflow.EventConfirmed{Event: d, Attempt: 1, Conf: confirmed})
	if got := lines(); len(got) != 3 || !strings.Contains(got[2], "tx-d") || !strings.Contains(got[2], "unchecked") {
		t.Fatalf("want d's line once, unchecked: %q", got)
	}
	if len(l.pending) != 0 {
		t.Fatalf("still pending: %v", l.pending)
	}
}
