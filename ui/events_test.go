package ui

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/events"
	"pixdash/ui/qr"
)

// Charges of goldenCharges the event fixture refers to.
const (
	evPaidCharge   = "3f6c1a2e-0000-4000-8000-000000000002" // loja-sul, split requested: principal R$ 10,00
	evFailedCharge = "3f6c1a2e-0000-4000-8000-000000000003"
)

// evClock is a store clock the tests move by hand, so each event gets its own receipt time.
type evClock struct{ t time.Time }

func (c *evClock) now() time.Time { return c.t }

// evSession is a golden session (its client is never called) whose store stamps events with clk;
// with a receiver it has an intake, fixed receiver counters and a fixed URL.
func evSession(t testing.TB, receiver bool, stats api.ReceiverStats) (*Session, *evClock) {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	clk := &evClock{t: goldenNow}
	s.Store = state.OpenMemory(state.WithClock(clk.now), state.WithLocation(time.UTC))
	t.Cleanup(func() { _ = s.Store.Close() })
	if receiver {
		in, err := s.Store.OpenIntake()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Close() })
		s.Intake = in
		s.ReceiverStats = func() api.ReceiverStats { return stats }
		s.WebhookURL = "http://127.0.0.1:8787/webhook"
	}
	return s, clk
}

// decoded builds an event the way the receiver does: from its JSON payload (Raw kept).
func decoded(t testing.TB, payload string) *api.Event {
	t.Helper()
	ev, err := api.DecodeEvent([]byte(payload))
	if err != nil {
		t.Fatalf("fixture payload: %v\n%s", err, payload)
	}
	return ev
}

// evArrival is an event and how long before goldenNow it arrived.
type evArrival struct {
	ago time.Duration
	ev  *api.Event
}

// evFixture is one event of every family, a re-sent one, an unknown kind and one with a field
// that could not be decoded, oldest first.
func evFixture(t testing.TB) []evArrival {
	t.Helper()
	return []evArrival{
		{26 * time.Hour, decoded(t, `{"eventId":"evt-0001","event":"withdrawal_completed","createdAt":"2026-11-20T12:30:00Z","transactionId":"9a1b2c3d-wd-0001","status":"completed","amount":200.00,"e2eId":"E99990001202611201230wd000001","counterpartName":"Conta de destino"}`)},
		{55 * time.Minute, decoded(t, `{"eventId":"evt-0002","event":"payment_completed","createdAt":"2026-11-21T13:35:00Z","subAccount":"loja-sul","transactionId":"`+evPaidCharge+`","status":"completed","amount":89.90,"feeAmount":0.99,"split":[{"subAccount":"principal","amount":8.00}],"e2eId":"E99990001202611211340abcdefghijk","counterpartName":"Maria da Silva"}`)},
		{50 * time.Minute, decoded(t, `{"eventId":"evt-0003","event":"payment_failed","createdAt":"2026-11-21T13:40:00Z","transactionId":"`+evFailedCharge+`","status":"failed","amount":2500.00,"failureReason":"Depósito recusado: a conta não aceita pagamentos de pessoa jurídica (CNPJ)","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending","e2eId":null,"settledAt":null}}}`)},
		{40 * time.Minute, decoded(t, `{"eventId":"evt-0004","event":"refund_completed","createdAt":"2026-11-21T13:50:00Z","transactionId":"`+evPaidCharge+`","status":"completed","amount":10.00,"netAmount":10.00,"feeAmount":0.50,"subAccount":"loja-sul"}`)},
		{30 * time.Minute, decoded(t, `{"eventId":"evt-0005","event":"balance_block_created","createdAt":"2026-11-21T14:00:00Z","transactionId":"`+evPaidCharge+`","status":"awaiting_response","amount":50.00,"subAccount":"loja-sul","balanceBlock":{"id":"blk-1","transactionId":"`+evPaidCharge+`","amount":50.00,"status":"awaiting_response","blockType":"MED","referenceNumber":"MED-20261121-000123","createdAt":"2026-11-21T14:00:00Z"}}`)},
		{20 * time.Minute, decoded(t, `{"eventId":"evt-0006","event":"withdrawal_failed","createdAt":"2026-11-21T14:10:00Z","transactionId":"9a1b2c3d-wd-0002","status":"failed","amount":1000.00,"failureReason":"Saque recusado pela instituição de pagamento","subAccount":"loja-norte"}`)},
		{10 * time.Minute, decoded(t, `{"eventId":"evt-0007","event":"pix_refund_partial","createdAt":"2026-11-21T14:20:00Z","someNewField":{"x":1}}`)},
		{5 * time.Minute, decoded(t, `{"eventId":"evt-0008","event":"payment_expired","createdAt":"21/11/2026 14:25","transactionId":"3f6c1a2e-0000-4000-8000-000000000004","externalReference":"PED-0998","amount":5.00}`)},
		{2 * time.Minute, decoded(t, `{"eventId":"evt-0002","event":"payment_completed","createdAt":"2026-11-21T13:35:30Z","subAccount":"loja-sul","transactionId":"`+evPaidCharge+`","status":"completed","amount":89.90}`)},
		{time.Minute, decoded(t, `{"eventId":"evt-0009","event":"balance_block_approved","createdAt":"2026-11-21T14:29:00Z","transactionId":"`+evPaidCharge+`","amount":50.00,"subAccount":"loja-sul","balanceBlock":{"id":"blk-1","amount":50.00,"status":"approved","blockType":"MED","referenceNumber":"MED-20261121-000123","createdAt":"2026-11-21T14:00:00Z"}}`)},
	}
}

// applyFixture tracks the golden charges and applies the fixture events at their times.
func applyFixture(t testing.TB, s *Session, clk *evClock) {
	t.Helper()
	goldenCharges(t, s)
	for _, r := range evFixture(t) {
		clk.t = goldenNow.Add(-r.ago)
		if _, err := s.Store.ApplyEvent(context.Background(), r.ev); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = goldenNow
}

// eventsModel is a dashboard on the events view.
func eventsModel(t testing.TB, s *Session, w, h int) (*Model, *events.View) {
	t.Helper()
	m := goldenModel(t, s, w, h)
	send(t, m, runeKey("5"))
	if m.view != viewEvents {
		t.Fatalf("5 did not open the events view")
	}
	return m, m.panes[viewEvents].(*events.View)
}

// deliver records ev in the store as the receiver's intake does, then runs what the dashboard
// runs on it: the event feed (waitEvent, which reports an eventId the first time only) and the
// store-change notice that makes the views read again.
func deliver(t testing.TB, m *Model, ev *api.Event) {
	t.Helper()
	store := m.app.Sess.Store
	if m.app.EventSeq < 0 {
		// What the feed reads first when the session starts: where the history ends.
		last, err := store.LastEventSeq(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m.app.EventSeq = last
	}
	first, err := store.ApplyEvent(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if first {
		// The feed has something to return now, so its command does not wait.
		msg := runLeaf(t, m.waitEvent())
		em, ok := msg.(eventsMsg)
		if !ok || em.err != nil || len(em.items) == 0 || em.items[len(em.items)-1].Ev.EventID != ev.EventID {
			t.Fatalf("the event feed returned %#v for new event %s", msg, ev.EventID)
		}
		send(t, m, em)
	}
	storeChanged(t, m)
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return runeKey(k)
}

// press sends keys to the model one by one, letting each key's reads finish (see settle).
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		send(t, m, keyMsg(k))
	}
}

func TestGoldenEvents(t *testing.T) {
	cases := []struct {
		name     string
		receiver bool
		full     bool
		keys     []string
	}{
		{"no_receiver", false, false, nil},
		{"empty", true, false, nil},
		{"full", true, true, nil},
		// evt-0003 (payment_failed) is the seventh newest.
		{"payload", true, true, []string{"j", "j", "j", "j", "j", "j", "enter"}},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				s, clk := evSession(t, tc.receiver, api.ReceiverStats{Accepted: 9, Rejected: 2, Duplicates: 1})
				if tc.full {
					applyFixture(t, s, clk)
				}
				m, _ := eventsModel(t, s, size[0], size[1])
				press(t, m, tc.keys...)
				teatest.RequireEqualOutput(t, []byte(m.View()))
			})
		}
	}
}

func TestEventsSummaries(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	goldenCharges(t, s)
	// A charge whose blocked-deposit refund was confirmed after the event was sent.
	e2e := "D1"
	if _, err := s.Store.UpsertCharge(context.Background(), state.Charge{ID: "ch-refunded", Amount: 100, Status: api.StatusFailed, UpdatedAt: goldenNow,
		BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundConfirmed, E2EID: &e2e}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.UpsertCharge(context.Background(), state.Charge{ID: "ch-split", Amount: 10000, Status: api.StatusPending, UpdatedAt: goldenNow,
		SplitRequested: []api.SplitItem{{SubAccount: "a", Amount: 3000}, {SubAccount: "b", Amount: 2000}}}); err != nil {
		t.Fatal(err)
	}
	_, v := eventsModel(t, s, 120, 40)
	cases := []struct {
		name, payload, want string
	}{
		{"paid, no split", `{"eventId":"1","event":"payment_completed","transactionId":"nope","counterpartName":"Ana"}`, "no split · payer Ana"},
		{"paid, split as requested", `{"eventId":"2","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30},{"subAccount":"b","amount":20}]}`,
			"split as requested: 2 legs, R$ 50,00"},
		{"paid, a leg reduced", `{"eventId":"3","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30},{"subAccount":"b","amount":5}],"feeAmount":0.99}`,
			"split R$ 35,00 of R$ 50,00 requested: 1 leg reduced · fee R$ 0,99 (reported)"},
		{"paid, a leg dropped", `{"eventId":"4","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30}]}`,
			"split R$ 30,00 of R$ 50,00 requested: 1 leg dropped"},
		{"paid, reduced and dropped", `{"eventId":"5","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":1}]}`,
			"split R$ 1,00 of R$ 50,00 requested: 1 reduced, 1 dropped"},
		{"paid, split of an untracked charge", `{"eventId":"6","event":"payment_completed","transactionId":"nope","split":[{"subAccount":"a","amount":1.5}]}`,
			"split distributed: 1 leg, R$ 1,50"},
		{"failed, CNPJ, refund pending", `{"eventId":"7","event":"payment_failed","transactionId":"nope","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending"}}}`,
			"CNPJ payer blocked · refund pending"},
		{"failed, refund confirmed since", `{"eventId":"8","event":"payment_failed","transactionId":"ch-refunded","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending"}}}`,
			"CNPJ payer blocked · refund pending · now confirmed"},
		{"failed, other reason, no refund yet", `{"eventId":"9","event":"payment_failed","blockedDeposit":{"reason":"sanctioned_payer"}}`,
			"blocked: sanctioned_payer · refund not started"},
		{"failed without a blocked deposit", `{"eventId":"10","event":"payment_failed","failureReason":"Banco recusou"}`, "Banco recusou"},
		{"expired", `{"eventId":"11","event":"payment_expired","externalReference":"PED-1"}`, "expired without payment · ref PED-1"},
		{"refund: net, fee and total cost", `{"eventId":"12","event":"refund_completed","amount":10,"netAmount":10,"feeAmount":0.5}`,
			"net R$ 10,00 · fee R$ 0,50 (reported) · cost to you R$ 10,50"},
		{"block", `{"eventId":"13","event":"balance_block_rejected","balanceBlock":{"blockType":"JUDICIAL","amount":12.34,"status":"rejected","referenceNumber":"JUD-1"}}`,
			"JUDICIAL block R$ 12,34 · rejected · JUD-1"},
		{"block without its object", `{"eventId":"14","event":"balance_block_created","status":"awaiting_response"}`, "block awaiting response"},
		{"withdrawal completed", `{"eventId":"15","event":"withdrawal_completed","counterpartName":"Conta X","e2eId":"E1"}`, "to Conta X · E1"},
		{"withdrawal reversed", `{"eventId":"16","event":"withdrawal_reversed","failureReason":"devolvido","status":"failed"}`, "devolvido"},
		{"unknown kind, as it came", `{"eventId":"17", "event":"pix_new",  "x":[1, 2]}`, `{"eventId":"17","event":"pix_new","x":[1,2]}`},
	}
	for _, c := range cases {
		// The entry as the view gets it: read back from the store with its tracked charge.
		ev := decoded(t, c.payload)
		if _, err := s.Store.ApplyEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		var entry *state.EventEntry
		for _, e := range eventPageOf(t, s.Store, state.EventQuery{}).Entries {
			if e.Event.EventID == ev.EventID {
				entry = &e
			}
		}
		if entry == nil {
			t.Fatalf("%s: event %s not stored", c.name, ev.EventID)
		}
		if got := v.Summary(entry); got != c.want {
			t.Errorf("%s: summary = %q, want %q", c.name, got, c.want)
		}
	}
	// The event's own fee is reported, not confirmed: in pt-BR too, in the summary and the detail.
	v.C.Tr = common.Catalog{Lang: common.LangPT}
	for _, e := range eventPageOf(t, s.Store, state.EventQuery{}).Entries {
		var want string
		switch e.Event.EventID {
		case "3":
			want = "tarifa R$ 0,99 (informada)"
		case "12":
			want = "líquido R$ 10,00 · tarifa R$ 0,50 (informada) · custo para você R$ 10,50"
		default:
			continue
		}
		if got := v.Summary(&e); !strings.Contains(got, want) {
			t.Errorf("pt-BR summary of event %s = %q, want %q", e.Event.EventID, got, want)
		}
		if e.Event.EventID == "12" {
			lines, _ := v.DetailLines(e, 120, false)
			if d := strings.Join(lines, "\n"); !strings.Contains(d, "R$ 0,50 (segundo o evento; o serviço não confirma)") {
				t.Errorf("pt-BR detail of the refund event:\n%s", d)
			}
		}
	}
}

func TestEventsSetupWithoutReceiver(t *testing.T) {
	s, _ := evSession(t, false, api.ReceiverStats{})
	s.Profile = "loja-sul"
	m, _ := eventsModel(t, s, 80, 24)
	out := m.View()
	for _, want := range []string{"No webhook receiver for profile loja-sul.", "[profiles.loja-sul.webhook]", "listen", "secret_env", "secret_cmd", "/webhook", "pixdash config check"} {
		if !strings.Contains(out, want) {
			t.Errorf("setup help lacks %q:\n%s", want, out)
		}
	}
	// Saved events are still listed, with a note that new ones cannot arrive.
	deliver(t, m, decoded(t, `{"eventId":"evt-old","event":"refund_completed","amount":1}`))
	out = m.View()
	if !strings.Contains(out, "refund completed") || !strings.Contains(out, "No webhook receiver: these are saved events") {
		t.Errorf("saved events without a receiver:\n%s", out)
	}
}

// When another pixdash holds the profile's receiver, the view says so instead of the setup help.
func TestEventsReceiverElsewhere(t *testing.T) {
	s, _ := evSession(t, false, api.ReceiverStats{})
	s.ReceiverElsewhere = true
	m, _ := eventsModel(t, s, 120, 40)
	for _, events := range []int{0, 1} {
		if events > 0 {
			deliver(t, m, decoded(t, `{"eventId":"evt-1","event":"refund_completed","amount":1}`))
		}
		out := m.View()
		if !strings.Contains(out, "Another pixdash receives this profile's webhooks") || strings.Contains(out, "No webhook receiver") {
			t.Errorf("%d events:\n%s", events, out)
		}
	}
}

func TestEventsDuplicateShownOnceWithCount(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	m, v := eventsModel(t, s, 120, 40)
	ev := decoded(t, `{"eventId":"evt-dup","event":"refund_completed","amount":3.21,"transactionId":"tx-dup"}`)
	deliver(t, m, ev)
	if out := m.View(); !strings.Contains(out, "R$ 3,21") || strings.Contains(out, "×") {
		t.Fatalf("first copy:\n%s", out)
	}
	deliver(t, m, decoded(t, `{"eventId":"evt-dup","event":"refund_completed","amount":3.21,"transactionId":"tx-dup","createdAt":"2026-11-21T14:31:00Z"}`))
	out := m.View()
	if n := strings.Count(out, "R$ 3,21"); n != 1 {
		t.Errorf("the event is shown %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "×2") || !strings.Contains(out, "1 event ") {
		t.Errorf("the duplicate is not counted:\n%s", out)
	}
	if e, ok := eventByID(t, s.Store, "evt-dup"); !ok || e.Count != 2 {
		t.Errorf("stored count = %d (found %v), want 2", e.Count, ok)
	}
	// The row is cached and re-rendered when the count changes, not before.
	cached := v.Cache["evt-dup"]
	press(t, m, "j") // nothing below: the cursor stays, the row stays cached
	m.View()
	if v.Cache["evt-dup"] != cached {
		t.Errorf("row rebuilt though nothing changed")
	}
}

func TestEventsEnterShowsPrettyPayload(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{})
	applyFixture(t, s, clk)
	m, v := eventsModel(t, s, 120, 40)
	press(t, m, "j", "j", "j", "j", "j", "j", "enter") // evt-0003, payment_failed
	if v.Detail == nil || v.Detail.ID != "evt-0003" {
		t.Fatalf("enter opened %+v", v.Detail)
	}
	out := m.View()
	for _, want := range []string{
		"Payload as received:",
		"{\n",
		`  "eventId": "evt-0003",`,
		`  "blockedDeposit": {`,
		`    "reason": "cnpj_payer_not_allowed",`,
		"Blocked deposit: payments from companies (CNPJ) are not accepted by this account",
		"Refund to the payer: pending",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("payload pane lacks %q:\n%s", want, out)
		}
	}
	// It scrolls: the last line of the payload comes into view at the bottom.
	press(t, m, "G")
	if out := m.View(); !strings.Contains(out, "\n}\n") {
		t.Errorf("G did not scroll to the end:\n%s", out)
	}
	press(t, m, "esc")
	if v.Detail != nil || !strings.Contains(m.View(), "SUMMARY") {
		t.Errorf("esc did not go back to the list")
	}
}

func TestEventsDecodeProblemIsMarked(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	m, _ := eventsModel(t, s, 120, 40)
	deliver(t, m, decoded(t, `{"eventId":"evt-odd","event":"refund_completed","amount":"1.005","createdAt":"ontem"}`))
	if row := rowOf(m.View(), "refund completed"); !strings.Contains(row, "⚠ ") || !strings.Contains(row, "net R$") {
		t.Errorf("row without the warning marker: %q", row)
	}
	press(t, m, "enter")
	out := m.View()
	if !strings.Contains(out, "Some fields could not be read and were left empty:") || !strings.Contains(out, "createdAt") || !strings.Contains(out, `"amount": "1.005"`) {
		t.Errorf("payload pane does not explain the problem:\n%s", out)
	}
}

// headerOf is the first line of the events view (count, filter and counters).
func headerOf(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	return lines[2]
}

func TestEventsKindAndWalletFilters(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{})
	applyFixture(t, s, clk)
	m, v := eventsModel(t, s, 120, 40)
	// t cycles through the kinds present, in the spec's order, unknown ones last, then all.
	want := []api.EventKind{api.EventPaymentCompleted, api.EventPaymentExpired, api.EventPaymentFailed, api.EventRefundCompleted,
		api.EventWithdrawalCompleted, api.EventWithdrawalFailed, api.EventBalanceBlockCreated, api.EventBalanceBlockApproved, "pix_refund_partial", ""}
	for _, k := range want {
		press(t, m, "t")
		if got := v.Filter.Kind; got != k {
			t.Fatalf("kind filter = %q, want %q", got, k)
		}
		if k == "" {
			continue
		}
		if h := headerOf(m); !strings.Contains(h, "1 of 9 events") || !strings.Contains(h, "kind: "+(common.Catalog{Lang: common.LangEN}).Enum(k)) {
			t.Errorf("header with kind %s: %q", k, h)
		}
		if e, ok := v.Win.At(0); !ok || e.Event.Kind != k || v.Win.Len() != 1 {
			t.Errorf("kind %s shows %d events", k, v.Win.Len())
		}
	}
	if h := headerOf(m); !strings.HasPrefix(h, "9 events") {
		t.Errorf("after a full cycle: %q", h)
	}
	// W cycles through the wallets events came for.
	for _, w := range []string{"loja-norte", "loja-sul", "principal", ""} {
		press(t, m, "W")
		if got := v.Filter.Wallet; got != w {
			t.Fatalf("wallet filter = %q, want %q", got, w)
		}
	}
	press(t, m, "W", "W") // loja-sul
	if h := headerOf(m); !strings.Contains(h, "4 of 9 events") || !strings.Contains(h, "wallet: loja-sul") {
		t.Errorf("wallet loja-sul: %q", h)
	}
	press(t, m, "t", "t", "t", "t") // refund_completed in loja-sul
	if h := headerOf(m); !strings.Contains(h, "1 of 9 events") {
		t.Errorf("kind and wallet: %q", h)
	}
	press(t, m, "t", "t", "t") // balance_block_created: in loja-sul
	out := m.View()
	if !strings.Contains(out, "block opened") || strings.Contains(out, "withdrawal") {
		t.Errorf("filtered list:\n%s", out)
	}
	press(t, m, "t") // balance_block_approved
	press(t, m, "esc")
	if k, w := v.Filter.Kind, v.Filter.Wallet; k != "" || w != "" || v.Cursor != 0 {
		t.Errorf("esc left filter %q/%q", k, w)
	}
	// A kind that arrived without the view seeing the event (saved by another window's
	// receiver: only the store-change notice comes) joins the cycle.
	if _, err := s.Store.ApplyEvent(context.Background(), decoded(t, `{"eventId":"evt-x","event":"withdrawal_reversed"}`)); err != nil {
		t.Fatal(err)
	}
	storeChanged(t, m)
	press(t, m, "t", "t", "t", "t", "t", "t", "t")
	if k := v.Filter.Kind; k != api.EventWithdrawalReversed {
		t.Errorf("seventh kind = %q, want withdrawal_reversed", k)
	}
	if h := headerOf(m); !strings.Contains(h, "1 of 10 events") {
		t.Errorf("header with the new kind: %q", h)
	}
	press(t, m, "esc")
	// With no match, the view says how to change the filter.
	settle(t, m, v.SetFilter(state.EventQuery{Kind: api.EventPaymentCompleted, Wallet: "loja-norte"}))
	if out := m.View(); !strings.Contains(out, "No event matches the filter.") {
		t.Errorf("empty filter:\n%s", out)
	}
}

func TestEventsSelectionStaysWhenEventsArrive(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	m, v := eventsModel(t, s, 120, 40)
	for i := range 5 {
		deliver(t, m, decoded(t, fmt.Sprintf(`{"eventId":"e%d","event":"refund_completed"}`, i)))
	}
	// At the top, the cursor follows the newest event.
	if e, _ := v.Win.At(v.Cursor); e.Event.EventID != "e4" {
		t.Fatalf("top selection = %s", e.Event.EventID)
	}
	press(t, m, "j", "j")
	sel, _ := v.Win.At(v.Cursor)
	deliver(t, m, decoded(t, `{"eventId":"e5","event":"refund_completed"}`))
	deliver(t, m, decoded(t, `{"eventId":"e2","event":"refund_completed"}`)) // a duplicate adds no row
	send(t, m, common.EventMsg{Gen: m.app.Gen + 1, Ev: decoded(t, `{"eventId":"zz","event":"refund_completed"}`)})
	m.View()
	if e, ok := v.Win.At(v.Cursor); !ok || e.Event.EventID != sel.Event.EventID {
		t.Errorf("selection moved from %s to %s", sel.Event.EventID, e.Event.EventID)
	}
	// An event the filter hides does not move it either.
	settle(t, m, v.SetFilter(state.EventQuery{Kind: api.EventRefundCompleted}))
	v.Cursor = 1
	sel, _ = v.Win.At(v.Cursor)
	deliver(t, m, decoded(t, `{"eventId":"w1","event":"withdrawal_failed"}`))
	if e, ok := v.Win.At(v.Cursor); !ok || e.Event.EventID != sel.Event.EventID {
		t.Errorf("hidden event moved the selection from %s to %s", sel.Event.EventID, e.Event.EventID)
	}
}

func TestEventsInspectOpensTheCharge(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{})
	applyFixture(t, s, clk)
	_, v := eventsModel(t, s, 120, 40)
	v.Cursor = 5 // evt-0004, refund of the loja-sul charge
	cmd := v.Update(keyMsg("i"))
	if cmd == nil {
		t.Fatal("i did nothing")
	}
	if got, ok := runReply(cmd).(common.InspectMsg); !ok || got.Query != evPaidCharge || got.Wallet != "loja-sul" {
		t.Errorf("i sent %+v", got)
	}
	v.Cursor = 2 // evt-0007, no transaction
	if cmd := v.Update(keyMsg("i")); cmd != nil {
		t.Errorf("i on an event without a charge sent %+v", runReply(cmd))
	}
}

// Only the visible rows are built, whatever the number of events.
func TestEventsRendersOnlyVisibleRows(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	evs := make([]*api.Event, 5000)
	for i := range evs {
		evs[i] = decoded(t, fmt.Sprintf(`{"eventId":"e%05d","event":"refund_completed","amount":%d.%02d}`, i, (i+1)/100, (i+1)%100))
	}
	if _, err := s.Store.ApplyEvents(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	m, v := eventsModel(t, s, 120, 40)
	m.View()
	if n, rows := len(v.Cache), v.Visible(); n > rows {
		t.Errorf("%d rows built for %d visible", n, rows)
	}
	press(t, m, "G")
	if out := m.View(); !strings.Contains(out, "R$ 0,01") {
		t.Errorf("G did not reach the oldest event")
	}
	if n := len(v.Cache); n > 2*v.Visible() {
		t.Errorf("%d rows built after two screens", n)
	}
}

// The view never draws past its size, in every mode, at every size the dashboard allows.
func TestEventsFitEverySize(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{Rejected: 123456, Duplicates: 99, Malformed: 7, TooLarge: 3, Overflow: 1})
	applyFixture(t, s, clk)
	s.WebhookURL = "http://[2001:db8::1]:65535/webhook/with/a/very/long/path/that/does/not/fit/anywhere/at/all"
	long := state.EventQuery{Kind: "pix_refund_partial_with_a_long_kind_name", Wallet: "a-very-long-sub-account-reference-name"}
	noRecv, _ := evSession(t, false, api.ReceiverStats{})
	noRecv.Profile = strings.Repeat("perfil-", 20)
	check := func(name string, out string, w, h int) {
		t.Helper()
		lines := strings.Split(out, "\n")
		if len(lines) > h {
			t.Errorf("%s at %dx%d: %d lines", name, w, h, len(lines))
		}
		for i, l := range lines {
			if lipgloss.Width(l) > w {
				t.Errorf("%s at %dx%d: line %d is %d wide: %q", name, w, h, i, lipgloss.Width(l), l)
			}
		}
	}
	for _, w := range []int{40, 70, 78, 80, 99, 106, 107, 108, 118, 120, 200} {
		for _, h := range []int{18, 20, 23, 36} {
			m, v := eventsModel(t, s, 120, 40)
			v.SetSize(w, h)
			settle(t, m, v.SetFilter(long))
			check("filtered empty", viewAt(v, w, h), w, h)
			settle(t, m, v.SetFilter(state.EventQuery{}))
			check("list", viewAt(v, w, h), w, h)
			v.Cursor = 3
			settle(t, m, v.Load())
			check("list, selected", viewAt(v, w, h), w, h)
			settle(t, m, v.Update(keyMsg("enter")))
			if v.Detail == nil {
				t.Fatalf("enter on row 3 at %dx%d opened nothing", w, h)
			}
			check("payload", viewAt(v, w, h), w, h)
			settle(t, m, v.Update(keyMsg("G")))
			check("payload, end", viewAt(v, w, h), w, h)
			settle(t, m, v.Update(keyMsg("esc")))
			_, nv := eventsModel(t, noRecv, 120, 40)
			check("setup", viewAt(nv, w, h), w, h)
		}
	}
}

func TestEventsPortugueseHeader(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{Rejected: 1})
	applyFixture(t, s, clk)
	m := New(Options{Session: s, Lang: common.LangPT, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "5")
	out := m.View()
	for _, want := range []string{"9 eventos", "rejeitados 1", "RESUMO", "pagador CNPJ bloqueado · estorno"} {
		if !strings.Contains(out, want) {
			t.Errorf("pt-BR view lacks %q:\n%s", want, out)
		}
	}
}

func TestEventsStaleCounter(t *testing.T) {
	cases := []struct {
		name      string
		stats     api.ReceiverStats
		tolerance time.Duration
		lang      common.Lang
		want      string // "" when the counter must not be shown
	}{
		{"none", api.ReceiverStats{Rejected: 2, Duplicates: 1}, 0, common.LangEN, ""},
		{"default window", api.ReceiverStats{Rejected: 2, Duplicates: 1, Stale: 12}, 0, common.LangEN, "12 refused: timestamp outside ±5m"},
		{"configured window", api.ReceiverStats{Stale: 1}, 90 * time.Second, common.LangEN, "1 refused: timestamp outside ±90s"},
		{"an hour", api.ReceiverStats{Stale: 3}, time.Hour, common.LangEN, "3 refused: timestamp outside ±1h"},
		{"pt-BR", api.ReceiverStats{Rejected: 1, Stale: 12}, 0, common.LangPT, "12 recusados: horário fora de ±5m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := evSession(t, true, tc.stats)
			s.WebhookTolerance = tc.tolerance
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			press(t, m, "5")
			top := strings.Split(viewAt(m.panes[viewEvents], 120, 36), "\n")[0]
			if tc.want == "" {
				if strings.Contains(top, "refused") || strings.Contains(top, "timestamp") {
					t.Fatalf("a zero stale counter is shown: %q", top)
				}
				return
			}
			// Next to the rejected counter, on the top line.
			if !strings.Contains(top, tc.want) {
				t.Fatalf("top line = %q, want %q", top, tc.want)
			}
			rej := "rejected"
			if tc.lang == common.LangPT {
				rej = "rejeitados"
			}
			if strings.Index(top, rej) > strings.Index(top, tc.want) {
				t.Errorf("the stale counter comes before the rejected one: %q", top)
			}
		})
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		300 * time.Second: "5m", 90 * time.Second: "90s", time.Second: "1s", time.Hour: "1h",
		90 * time.Minute: "1h30m", 24 * time.Hour: "24h", 1500 * time.Millisecond: "1.5s", 150 * time.Second: "150s",
	} {
		if got := events.ShortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// Events are kept with the profile's state: after a restart they are listed again, with their
// counts and their decode problems.
func TestEventsPersistAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	store, err := state.Open(context.Background(), dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := evSession(t, true, api.ReceiverStats{})
	s.Store = store
	m, _ := eventsModel(t, s, 120, 40)
	odd := `{"eventId":"evt-keep","event":"refund_completed","amount":"4.321","netAmount":4,"transactionId":"tx-keep"}`
	deliver(t, m, decoded(t, odd))
	deliver(t, m, decoded(t, odd))
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := state.Open(context.Background(), dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	s2, _ := evSession(t, true, api.ReceiverStats{})
	s2.Store = again
	m2, _ := eventsModel(t, s2, 120, 40)
	out := m2.View()
	for _, want := range []string{"1 event ", "refund completed", "×2", "⚠ ", "net R$ 4,00"} {
		if !strings.Contains(out, want) {
			t.Errorf("after restart the view lacks %q:\n%s", want, out)
		}
	}
}

// --- Flows against the in-process emulator ---

func TestEventsFlowPaymentArrivesLiveAndUpdatesCharges(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.waitFor("DEMO", "STATUS")
	f.keys("5")
	f.waitFor("No events yet", "Receiving at http://127.0.0.1:", "rejected 0")

	// Paid from the QR screen with $, as the merchant does.
	f.keys("1")
	f.newCharge("12,34", "Cafe")
	f.waitFor("Pague com PIX")
	f.keys("$")
	f.waitFor("PAGO")
	f.keys("esc", "5")
	f.waitFor("payment received", "R$ 12,34", "no split · payer Maria da Silva")

	// Paid while the events view is on screen: the row appears live.
	ctx := context.Background()
	pix, err := s.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: 777, Description: "ao vivo"}, api.WithIdempotencyKey(api.NewIdempotencyKey()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Simulator.Pay(ctx, pix.ID, qr.DemoPayerName, qr.DemoPayerCPF); err != nil {
		t.Fatal(err)
	}
	f.waitFor("R$ 7,77", common.ShortID(pix.ID), "2 events")
	// The event is read back from the service and the charge tracked as paid (the charge was
	// not even tracked before); the read-back runs after the row appears, so wait for it.
	var ch state.Charge
	var ok bool
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ch, ok = chargeByID(t, s.Store, pix.ID); ok && ch.State() == state.StatePaid {
			break
		}
	}
	if !ok || ch.State() != state.StatePaid || ch.Source != state.SourceEvent {
		t.Fatalf("charge after the event: %+v (tracked %t)", ch, ok)
	}
	f.keys("1")
	f.waitFor("R$ 7,77", "paid")
}

func TestEventsFlowBlockedDepositShowsReasonAndRefund(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	f := startFlow(t, s, 120, 40)
	f.newCharge("50", "cnpj")
	f.waitFor("Pague com PIX")
	f.keys("%")
	f.waitFor("FALHOU")
	f.keys("esc", "5")
	f.waitFor("payment failed", "R$ 50,00", "CNPJ payer blocked · refund pending")
	f.keys("enter")
	f.waitFor("Blocked deposit: payments from companies (CNPJ) are not accepted by this account", "Refund to the payer: pending",
		`"blockedDeposit": {`, `"reason": "cnpj_payer_not_allowed",`)
	f.keys("esc")
	f.waitFor("SUMMARY")
}

func TestEventsFlowForgedWebhookCountedNotShown(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	if s.WebhookURL == "" {
		t.Fatal("the demo session does not say where its receiver listens")
	}
	f := startFlow(t, s, 120, 40)
	f.keys("5")
	f.waitFor("No events yet", "rejected 0")
	forged := []byte(`{"eventId":"evt-forged-1","event":"payment_completed","transactionId":"tx-forged","amount":9999.99}`)
	for _, sig := range []string{api.Sign(forged, "whsec_attacker"), ""} {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, s.WebhookURL, bytes.NewReader(forged))
		if err != nil {
			t.Fatal(err)
		}
		if sig != "" {
			req.Header.Set(api.SignatureHeader, sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("forged delivery: status %d, want 401", resp.StatusCode)
		}
	}
	f.waitFor("rejected 2", "0 events")
	if _, ok := eventByID(t, s.Store, "evt-forged-1"); ok || eventsTotal(t, s.Store) != 0 {
		t.Fatalf("a forged event reached the store")
	}
	if err := f.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := f.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if out := final.View(); strings.Contains(out, "9.999,99") || strings.Contains(out, "tx-forged") || !strings.Contains(out, "rejected 2") {
		t.Errorf("final screen:\n%s", out)
	}
}

// FuzzEventsView renders whatever a signed payload may carry, in the list and in the payload
// pane: frames stay inside their size and nothing from the payload reaches the terminal as a
// control sequence (the Ascii profile draws no escapes of its own).
func FuzzEventsView(f *testing.F) {
	for _, r := range evFixture(f) {
		f.Add([]byte(r.ev.Raw), uint8(0))
	}
	f.Add([]byte(`{"eventId":"e\u001b[31m","event":"payment_failed\u009b2J","subAccount":"\u001b]52;c;AAAA\u0007","failureReason":"a\nb\tc\r",`+
		`"blockedDeposit":{"reason":"\u001bx","refund":{"status":"\u001b[2Jpending","e2eId":"\u009bE"}}}`), uint8(3))
	f.Add([]byte("{\"eventId\":\"\xc2\x9b\",\"event\":\"\xff\xfe\",\"counterpartName\":\"\u202e界界界界界界界界界界界界界界界界界界界界界界界界界界界界界界\"}"), uint8(40))
	f.Add([]byte(`{"eventId":"x","event":"payment_completed","split":[{"subAccount":"\u001b[1m","amount":1}],"transactionId":"t"}`), uint8(200))
	f.Fuzz(func(t *testing.T, payload []byte, wide uint8) {
		ev, err := api.DecodeEvent(payload)
		if err != nil {
			return
		}
		s, _ := evSession(t, true, api.ReceiverStats{})
		if _, err := s.Store.UpsertCharge(context.Background(), state.Charge{ID: "t", Amount: 100, Status: api.StatusPending,
			SplitRequested: []api.SplitItem{{SubAccount: "\x1b[1m", Amount: 100}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Store.ApplyEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		m, v := eventsModel(t, s, 120, 40)
		w, h := 78+int(wide)%123, 20
		v.SetSize(w, h)
		settle(t, m, v.Load())
		frames := []string{viewAt(v, w, h)}
		settle(t, m, v.Update(keyMsg("t")))
		settle(t, m, v.Update(keyMsg("W")))
		frames = append(frames, viewAt(v, w, h))
		settle(t, m, v.Update(keyMsg("esc")))
		settle(t, m, v.Update(keyMsg("enter")))
		if v.Detail == nil {
			t.Fatal("enter opened no payload pane")
		}
		frames = append(frames, viewAt(v, w, h))
		settle(t, m, v.Update(keyMsg("G")))
		frames = append(frames, viewAt(v, w, h))
		for i, fr := range frames {
			lines := strings.Split(fr, "\n")
			if len(lines) > h {
				t.Fatalf("frame %d: %d lines > %d", i, len(lines), h)
			}
			for _, l := range lines {
				if lipgloss.Width(l) > w {
					t.Fatalf("frame %d: line %q is %d wide > %d", i, l, lipgloss.Width(l), w)
				}
			}
			for _, r := range withoutSelection(fr) {
				if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
					t.Fatalf("frame %d carries control character %U:\n%q", i, r, fr)
				}
			}
		}
	})
}

// The feed of new events (waitEvent) starts where the stored history ends, reports each eventId
// once (a copy is only counted), in arrival order, at most maxEventBatch at a time, and ends
// with the session.
func TestEventFeedReportsNewEventsOnce(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	if _, err := s.Store.ApplyEvent(context.Background(), decoded(t, `{"eventId":"evt-old","event":"refund_completed","amount":1}`)); err != nil {
		t.Fatal(err)
	}
	m, _ := eventsModel(t, s, 120, 40)
	wait := func(within time.Duration) (eventsMsg, bool) {
		t.Helper()
		got, feed := make(chan tea.Msg, 1), m.waitEvent()
		go func() { got <- feed() }()
		select {
		case msg := <-got:
			em, ok := msg.(eventsMsg)
			if !ok || em.err != nil || em.gen != m.app.Gen {
				t.Fatalf("the feed returned %#v", msg)
			}
			return em, true
		case <-time.After(within):
			return eventsMsg{}, false
		}
	}
	ids := func(em eventsMsg) []string {
		var out []string
		for _, it := range em.items {
			if it.Ev == nil {
				t.Fatalf("feed item %+v", it)
			}
			out = append(out, it.Ev.EventID)
		}
		return out
	}
	accept := func(raw string) {
		t.Helper()
		if err := s.Intake.Accept([]byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	// At the start of a session what is stored is history: the first wait reports only what
	// arrives after it began (the events are accepted until one is reported, whenever the
	// feed's start read lands).
	if m.app.EventSeq >= 0 {
		t.Fatalf("the feed already started at %d", m.app.EventSeq)
	}
	got, feed := make(chan tea.Msg, 1), m.waitEvent()
	go func() { got <- feed() }()
	var first eventsMsg
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatal("the feed never reported a new event")
		}
		accept(fmt.Sprintf(`{"eventId":"evt-new-%d","event":"refund_completed","amount":2}`, i))
		select {
		case msg := <-got:
			first = msg.(eventsMsg)
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	if got := ids(first); len(got) == 0 || slices.Contains(got, "evt-old") {
		t.Fatalf("first report %v", got)
	}
	send(t, m, first)
	last, _ := eventByID(t, s.Store, first.items[len(first.items)-1].Ev.EventID)
	if m.app.EventSeq != last.Seq || first.last != last.Seq {
		t.Fatalf("feed position %d (message %d), want %d", m.app.EventSeq, first.last, last.Seq)
	}
	// A copy of a known eventId is counted, not reported; the next new one is.
	accept(fmt.Sprintf(`{"eventId":%q,"event":"refund_completed","amount":2}`, first.items[0].Ev.EventID))
	accept(`{"eventId":"evt-a","event":"refund_completed","amount":3}`)
	accept(`{"eventId":"evt-b","event":"payment_failed","amount":4}`)
	em, ok := wait(10 * time.Second)
	if !ok || fmt.Sprint(ids(em)) != "[evt-a evt-b]" {
		t.Fatalf("after a copy and two new events: %v (%v)", ids(em), ok)
	}
	send(t, m, em)
	// A flood comes in batches.
	flood := make([]*api.Event, maxEventBatch+6)
	for i := range flood {
		flood[i] = decoded(t, fmt.Sprintf(`{"eventId":"evt-flood-%04d","event":"refund_completed","amount":1}`, i))
	}
	if _, err := s.Store.ApplyEvents(context.Background(), flood); err != nil {
		t.Fatal(err)
	}
	em, _ = wait(10 * time.Second)
	if n := len(em.items); n != maxEventBatch || em.items[0].Ev.EventID != "evt-flood-0000" {
		t.Fatalf("first batch of the flood: %d items from %v", n, em.items[0].Ev.EventID)
	}
	send(t, m, em)
	em, _ = wait(10 * time.Second)
	if got := ids(em); len(got) != 6 || got[5] != fmt.Sprintf("evt-flood-%04d", maxEventBatch+5) {
		t.Fatalf("rest of the flood: %v", got)
	}
	send(t, m, em)
	// Nothing new: the feed waits; closing the session ends the wait without a message.
	done, feed := make(chan tea.Msg, 1), m.waitEvent()
	go func() { done <- feed() }()
	select {
	case msg := <-done:
		t.Fatalf("the feed reported %#v with nothing new", msg)
	case <-time.After(200 * time.Millisecond):
	}
	m.closeSession()
	select {
	case msg := <-done:
		if msg != nil {
			t.Fatalf("the feed of a closed session returned %#v", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the feed outlived its session")
	}
}
