package training

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/sandbox"
)

// trainee plays a scenario the way the checklist says, or with the mistakes asked for.
type trainee struct {
	t       *testing.T
	run     *Run
	sc      *Scenario
	charged map[string]string // customer → charge id
	// mistakes
	handEarly   string // customer whose goods go before PAGO
	handOffline string // customer whose goods go while the network is down
	wrongRefund string // refund this customer's charge instead
}

func (tr *trainee) now(s State) int {
	for i, l := range s.Lines {
		if l.State == StepNow {
			return i
		}
	}
	return -1
}

// act does what step i asks, once per call; it returns when it did something.
func (tr *trainee) act(ctx context.Context, i int) {
	st := tr.sc.Steps[i]
	c := tr.run.Demo.Client
	e := tr.run.Engine
	switch st.Kind {
	case KindCharge:
		if _, ok := tr.charged[st.Customer]; ok {
			return
		}
		ch, err := c.CreatePix(ctx, &api.CreatePixRequest{Amount: st.amount, Description: "treino"})
		if err != nil {
			tr.t.Fatalf("charge %s: %v", st.Customer, err)
		}
		tr.charged[st.Customer] = ch.ID
	case KindHandover:
		id := tr.charged[st.Customer]
		if tr.handEarly == st.Customer {
			e.Observe(Action{Kind: HandOver, ChargeID: id})
			return
		}
		for _, f := range tr.run.Demo.Server.ChargeFacts(sandbox.DemoClientID) {
			if f.ID == id && f.Status == api.StatusCompleted && !tr.run.Network.Down() {
				e.Observe(Action{Kind: HandOver, ChargeID: id})
			}
		}
	case KindOutage:
		if tr.handOffline != "" {
			e.Observe(Action{Kind: HandOver, ChargeID: tr.charged[tr.handOffline]})
		}
	case KindRefuse:
		e.Observe(Action{Kind: Decline, ChargeID: tr.charged[st.Customer]})
	case KindBlock:
		e.Observe(Action{Kind: ViewBlocks})
	case KindRefund:
		who := st.Customer
		if tr.wrongRefund != "" {
			who = tr.wrongRefund
		}
		id := tr.charged[who]
		if _, err := c.RefundTransaction(ctx, id, &api.RefundRequest{Reason: "treino"}); err != nil {
			tr.t.Fatalf("refund %s: %v", who, err)
		}
		tr.charged[st.Customer+"/refunded"] = id
	case KindClose:
		e.Observe(Action{Kind: CloseDay})
	}
}

// play runs sc to its summary with a scenario second of 10ms.
func play(t *testing.T, name string, mistakes func(*trainee), lang ...string) State {
	t.Helper()
	sc, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := Options{Scale: 10 * time.Millisecond, Tick: 5 * time.Millisecond}
	if len(lang) > 0 {
		o.Lang = lang[0]
	}
	run, err := Start(ctx, sc, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	tr := &trainee{t: t, run: run, sc: sc, charged: map[string]string{}}
	if mistakes != nil {
		mistakes(tr)
	}
	done := make(chan State, 1)
	go func() { done <- run.Engine.Run(ctx) }()
	acted := map[int]bool{} // charge and refund steps act once
	var last State
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s := <-done:
			if !s.Done {
				t.Fatalf("%s stopped before its end: %+v", name, s)
			}
			return s
		case last = <-run.Engine.Updates():
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("%s: no summary in time", name)
		}
		i := tr.now(last)
		if i < 0 {
			continue
		}
		if k := sc.Steps[i].Kind; k == KindCharge || k == KindRefund {
			if acted[i] {
				continue
			}
			acted[i] = true
		}
		tr.act(ctx, i)
	}
}

func summaryText(s State) (right, missed []string) {
	for _, it := range s.Summary {
		if it.Right {
			right = append(right, it.Text)
		} else {
			missed = append(missed, it.Text)
		}
	}
	return right, missed
}

// TestBuiltinScenariosPlayThrough plays every built-in scenario to its summary as the
// checklist says: every item is right, one per step.
func TestBuiltinScenariosPlayThrough(t *testing.T) {
	for _, name := range Builtins() {
		t.Run(name, func(t *testing.T) {
			sc, _ := Builtin(name)
			s := play(t, name, nil)
			right, missed := summaryText(s)
			if len(missed) != 0 || len(right) != len(sc.Steps) {
				t.Fatalf("right %q\nmissed %q", right, missed)
			}
			for _, l := range s.Lines {
				if l.State != StepRight {
					t.Errorf("line %q is %v, want right", l.Label, l.State)
				}
			}
		})
	}
}

// TestScenarioMistakesAreMissed: goods handed before PAGO and the wrong charge refunded are
// what the summary says was missed.
func TestScenarioMistakesAreMissed(t *testing.T) {
	s := play(t, "dia-cheio", func(tr *trainee) { tr.handEarly, tr.wrongRefund = "Diego", "Carla" })
	right, missed := summaryText(s)
	want := []string{
		"Entregou a mercadoria (Diego) antes do PAGO",
		"Devolveu a cobrança errada (Carla) em vez da de Diego",
	}
	if strings.Join(missed, "|") != strings.Join(want, "|") {
		t.Fatalf("missed %q, want %q (right %q)", missed, want, right)
	}
	if len(right) != 6 {
		t.Errorf("right %q, want the other 6 steps", right)
	}
}

// TestSummaryInEnglish: with --lang en the checklist and the summary are the scenario's
// English texts and the engine's English verdicts.
func TestSummaryInEnglish(t *testing.T) {
	s := play(t, "problemas", func(tr *trainee) { tr.wrongRefund = "Fábio" }, "en")
	right, missed := summaryText(s)
	if s.Title != "A day of trouble" || len(s.Lines) == 0 || s.Lines[0].Label != "Charge Fábio R$ 60.00" {
		t.Fatalf("title %q, lines %+v", s.Title, s.Lines)
	}
	want := "Refunded the wrong charge (Fábio) instead of Gabi's"
	if len(missed) != 1 || missed[0] != want {
		t.Fatalf("missed %q, want [%q]", missed, want)
	}
	if !slices.Contains(right, "Waited for the network without handing anything over") || !slices.Contains(right, "Saw Fábio's MED block in the Blocks view") {
		t.Errorf("right %q", right)
	}
}

// TestHandOverDuringOutageIsMissed: goods handed while the network is down are missed twice
// over: the outage was not waited out, and the customer's PAGO was never seen.
func TestHandOverDuringOutageIsMissed(t *testing.T) {
	s := play(t, "problemas", func(tr *trainee) { tr.handOffline = "Gabi" })
	_, missed := summaryText(s)
	want := []string{
		"Entregou a mercadoria (Gabi) durante a queda da internet",
		"Entregou a mercadoria (Gabi) com a internet fora, sem ver PAGO",
	}
	if strings.Join(missed, "|") != strings.Join(want, "|") {
		t.Fatalf("missed %q, want %q", missed, want)
	}
}
