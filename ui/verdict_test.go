package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/events"
)

// verdictEvents are payment events the service confirmed, disputed, did not know and has not
// answered yet, and a refund (not read back), newest last.
func verdictEvents(t testing.TB) []*api.Event {
	t.Helper()
	return []*api.Event{
		decoded(t, `{"eventId":"evt-ok","event":"payment_completed","subAccount":"loja-sul","data":{"transactionId":"`+evPaidCharge+`","status":"completed","amount":89.90,"counterpartName":"Maria da Silva"}}`),
		decoded(t, `{"eventId":"evt-liar","event":"payment_completed","data":{"transactionId":"3f6c1a2e-0000-4000-8000-000000000001","status":"completed","amount":1.00,"counterpartName":"Liar"}}`),
		decoded(t, `{"eventId":"evt-ghost","event":"payment_completed","data":{"transactionId":"made-up-0001","status":"completed","amount":10.00}}`),
		decoded(t, `{"eventId":"evt-new","event":"payment_failed","data":{"transactionId":"3f6c1a2e-0000-4000-8000-000000000003","status":"failed","failureReason":"recusado"}}`),
		decoded(t, `{"eventId":"evt-refund","event":"refund_completed","subAccount":"loja-sul","data":{"transactionId":"`+evPaidCharge+`","amount":10.00,"netAmount":10.00}}`),
	}
}

// verdictSession holds the golden charges and the verdict events at one minute intervals,
// with the service's answers recorded.
func verdictSession(t testing.TB) *Session {
	t.Helper()
	s, clk := evSession(t, true, api.ReceiverStats{Accepted: 5})
	goldenCharges(t, s)
	evs := verdictEvents(t)
	for i, ev := range evs {
		clk.t = goldenNow.Add(time.Duration(i-len(evs)) * time.Minute)
		if _, err := s.Store.ApplyEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = goldenNow
	for id, v := range map[string]struct {
		v      state.Verdict
		reason string
	}{
		"evt-ok":    {state.VerdictConfirmed, ""},
		"evt-liar":  {state.VerdictDisputed, "the service says pending"},
		"evt-ghost": {state.VerdictUnknown, "the service does not know transaction made-up-0001 in wallet principal"},
	} {
		if err := s.Store.SetEventVerdict(context.Background(), id, v.v, v.reason); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// rowOf is the screen line (or two) of the event whose row holds text.
func rowOf(screen, text string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, text) {
			if i+1 < len(lines) && strings.Contains(lines[i+1], "↳") {
				return l + "\n" + lines[i+1]
			}
			return l
		}
	}
	return ""
}

func TestEventsShowVerdicts(t *testing.T) {
	cases := []struct {
		lang                                   common.Lang
		w, h                                   int
		confirmed, disputed, unknown, checking string
		detail                                 string
	}{
		{common.LangEN, 120, 40, "✓ split", "✗ disputed: the service says pending", "? unknown to the service", "… recusado",
			"service check: ✗ disputed: the service says pending · not applied"},
		{common.LangEN, 80, 24, "↳ ✓ split", "↳ ✗ disputed: the service says pending", "↳ ? unknown to the service", "↳ … recusado",
			"service check: ✗ disputed: the service says pending · not applied"},
		{common.LangPT, 120, 40, "✓ split", "✗ divergente: the service says pending", "? desconhecido pelo serviço", "… recusado",
			"conferência: ✗ divergente: the service says pending · não aplicado"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%dx%d", c.lang, c.w, c.h), func(t *testing.T) {
			s := verdictSession(t)
			m := New(Options{Session: s, Lang: c.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			press(t, m, "5")
			out := m.View()
			for id, want := range map[string]string{"evt-ok": c.confirmed, "evt-liar": c.disputed, "evt-ghost": c.unknown, "evt-new": c.checking} {
				short := map[string]string{"evt-ok": "R$ 89,90", "evt-liar": "R$ 1,00", "evt-ghost": "made-up-", "evt-new": common.Catalog{Lang: c.lang}.Enum(api.EventPaymentFailed)}[id]
				if row := rowOf(out, short); !strings.Contains(row, want) {
					t.Errorf("%s: row %q lacks %q:\n%s", id, row, want, out)
				}
			}
			// A refund is read back too (its refund line): until then it says so.
			if row := rowOf(out, common.Catalog{Lang: c.lang}.Enum(api.EventRefundCompleted)); !strings.Contains(row, "… ") {
				t.Errorf("the refund row lacks the read-back mark \"…\": %q", row)
			}
			// The detail says it in full. evt-liar is the fourth newest.
			press(t, m, "j", "j", "j", "enter")
			if d := m.View(); !strings.Contains(d, c.detail) {
				t.Errorf("the disputed event's detail lacks %q:\n%s", c.detail, d)
			}
		})
	}
}

func TestEventsVerdictArrivesWhileShown(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	goldenCharges(t, s)
	m, v := eventsModel(t, s, 120, 40)
	ev := verdictEvents(t)[1]
	deliver(t, m, ev)
	if row := rowOf(m.View(), "R$ 1,00"); !strings.Contains(row, "… ") || strings.Contains(row, "disputed") {
		t.Fatalf("an unchecked payment row: %q", row)
	}
	press(t, m, "enter")
	if out := m.View(); !strings.Contains(out, "service check: checking…") {
		t.Fatalf("the detail does not say it is being checked:\n%s", out)
	}
	// The service's answer arrives while the detail is open, then after it is closed: both
	// the detail and the cached row show it.
	if err := s.Store.SetEventVerdict(context.Background(), ev.EventID, state.VerdictDisputed, "the event says R$ 1,00, the service R$ 12,34"); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	if out := m.View(); !strings.Contains(out, "✗ disputed: the event says R$ 1,00, the service R$ 12,34 · not applied") {
		t.Errorf("the open detail did not take the verdict:\n%s", out)
	}
	press(t, m, "esc")
	if v.Detail != nil {
		t.Fatal("esc did not close the detail")
	}
	if row := rowOf(m.View(), "R$ 1,00"); !strings.Contains(row, "✗ disputed: the event says R$ 1,00") {
		t.Errorf("the row kept its old verdict: %q", row)
	}
	if err := s.Store.SetEventVerdict(context.Background(), ev.EventID, state.VerdictConfirmed, ""); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	if row := rowOf(m.View(), "R$ 1,00"); !strings.Contains(row, "✓ ") || strings.Contains(row, "disputed") {
		t.Errorf("the cached row did not follow the new verdict: %q", row)
	}
}

func TestEventsVerdictColumnDropsFirst(t *testing.T) {
	// The widest terminal without room for the verdict beside a full summary keeps one line and
	// drops the column; one cell more brings it back; two-line rows carry it before the summary.
	fixed := events.EvTimeW + events.EvKindW + events.EvAmountW + events.EvChargeW + events.EvCountW + 6 + 12
	for _, c := range []struct {
		w                 int
		verdict, twoLines bool
	}{
		{fixed + events.EvMinSummary + events.EvVerdictW, true, false},
		{fixed + events.EvMinSummary + events.EvVerdictW - 1, false, false},
		{fixed + events.EvMinSummary, false, false},
		{fixed + events.EvMinSummary - 1, true, true},
		{80, true, true},
		{40, false, true},
	} {
		l := events.EventLayoutFor(c.w)
		if l.Verdict != c.verdict || l.TwoLines != c.twoLines {
			t.Errorf("width %d: verdict %v, two lines %v; want %v, %v", c.w, l.Verdict, l.TwoLines, c.verdict, c.twoLines)
		}
	}
	// Every width: rows fit and the disputed claim is never lost entirely.
	s := verdictSession(t)
	_, v := eventsModel(t, s, 120, 40)
	for w := 60; w <= 140; w++ {
		out := viewAt(v, w, 20)
		for _, l := range strings.Split(out, "\n") {
			if lw := len([]rune(withoutSelection(l))); lw > w {
				t.Fatalf("width %d: line %q is wider", w, l)
			}
		}
		if w >= common.MinWidth && !strings.Contains(out, "disputed") {
			t.Errorf("width %d: the disputed row does not say so:\n%s", w, out)
		}
	}
}

func TestGoldenEventsDisputed(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"list", nil},
		{"payload", []string{"j", "j", "j", "enter"}},
	} {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				m, _ := eventsModel(t, verdictSession(t), size[0], size[1])
				press(t, m, tc.keys...)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}
