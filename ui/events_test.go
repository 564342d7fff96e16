package ui

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/state"
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
// with a receiver it has an event channel, fixed receiver counters and a fixed URL.
func evSession(t testing.TB, receiver bool, stats api.ReceiverStats) (*Session, *evClock) {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	clk := &evClock{t: goldenNow}
	s.Store = state.OpenMemory(state.WithClock(clk.now))
	if receiver {
		s.Inbox = state.MemoryInbox()
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
		if _, err := s.Store.ApplyEvent(r.ev); err != nil {
			t.Fatal(err)
		}
	}
	clk.t = goldenNow
}

// eventsModel is a dashboard on the events view.
func eventsModel(t testing.TB, s *Session, w, h int) (*Model, *eventsView) {
	t.Helper()
	m := goldenModel(t, s, w, h)
	m.Update(runeKey("5"))
	if m.view != viewEvents {
		t.Fatalf("5 did not open the events view")
	}
	return m, m.panes[viewEvents].(*eventsView)
}

// deliver applies ev to the store as the root's event command does and hands the result to the model.
func deliver(t testing.TB, m *Model, ev *api.Event) {
	t.Helper()
	first, err := m.app.sess.Store.ApplyEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(eventMsg{gen: m.app.gen, ev: ev, first: first})
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

func press(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(keyMsg(k))
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
				press(m, tc.keys...)
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
	if _, err := s.Store.UpsertCharge(state.Charge{ID: "ch-refunded", Amount: 100, Status: api.StatusFailed, UpdatedAt: goldenNow,
		BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed, Refund: &api.Refund{Status: api.RefundConfirmed, E2EID: &e2e}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.UpsertCharge(state.Charge{ID: "ch-split", Amount: 10000, Status: api.StatusPending, UpdatedAt: goldenNow,
		SplitRequested: []api.SplitItem{{SubAccount: "a", Amount: 3000}, {SubAccount: "b", Amount: 2000}}}); err != nil {
		t.Fatal(err)
	}
	_, v := eventsModel(t, s, 120, 40)
	cases := []struct {
		name, payload, want string
	}{
		{"paid, no split", `{"eventId":"1","event":"payment_completed","transactionId":"nope","counterpartName":"Ana"}`, "no split · payer Ana"},
		{"paid, split as requested", `{"eventId":"2","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30},{"subAccount":"b","amount":20}]}`,
			"split as requested: 2 leg(s), R$ 50,00"},
		{"paid, a leg reduced", `{"eventId":"3","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30},{"subAccount":"b","amount":5}],"feeAmount":0.99}`,
			"split R$ 35,00 of R$ 50,00 requested: 1 leg(s) reduced · fee R$ 0,99"},
		{"paid, a leg dropped", `{"eventId":"4","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":30}]}`,
			"split R$ 30,00 of R$ 50,00 requested: 1 leg(s) dropped"},
		{"paid, reduced and dropped", `{"eventId":"5","event":"payment_completed","transactionId":"ch-split","split":[{"subAccount":"a","amount":1}]}`,
			"split R$ 1,00 of R$ 50,00 requested: 1 reduced, 1 dropped"},
		{"paid, split of an untracked charge", `{"eventId":"6","event":"payment_completed","transactionId":"nope","split":[{"subAccount":"a","amount":1.5}]}`,
			"split distributed: 1 leg(s), R$ 1,50"},
		{"failed, CNPJ, refund pending", `{"eventId":"7","event":"payment_failed","transactionId":"nope","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending"}}}`,
			"CNPJ payer blocked · refund pending"},
		{"failed, refund confirmed since", `{"eventId":"8","event":"payment_failed","transactionId":"ch-refunded","blockedDeposit":{"reason":"cnpj_payer_not_allowed","refund":{"status":"pending"}}}`,
			"CNPJ payer blocked · refund pending · now confirmed"},
		{"failed, other reason, no refund yet", `{"eventId":"9","event":"payment_failed","blockedDeposit":{"reason":"sanctioned_payer"}}`,
			"blocked: sanctioned_payer · refund not started"},
		{"failed without a blocked deposit", `{"eventId":"10","event":"payment_failed","failureReason":"Banco recusou"}`, "Banco recusou"},
		{"expired", `{"eventId":"11","event":"payment_expired","externalReference":"PED-1"}`, "expired without payment · ref PED-1"},
		{"refund: net, fee and total cost", `{"eventId":"12","event":"refund_completed","amount":10,"netAmount":10,"feeAmount":0.5}`,
			"net R$ 10,00 · fee R$ 0,50 · cost to you R$ 10,50"},
		{"block", `{"eventId":"13","event":"balance_block_rejected","balanceBlock":{"blockType":"JUDICIAL","amount":12.34,"status":"rejected","referenceNumber":"JUD-1"}}`,
			"JUDICIAL block R$ 12,34 · rejected · JUD-1"},
		{"block without its object", `{"eventId":"14","event":"balance_block_created","status":"awaiting_response"}`, "block awaiting_response"},
		{"withdrawal completed", `{"eventId":"15","event":"withdrawal_completed","counterpartName":"Conta X","e2eId":"E1"}`, "to Conta X · E1"},
		{"withdrawal reversed", `{"eventId":"16","event":"withdrawal_reversed","failureReason":"devolvido","status":"failed"}`, "devolvido"},
		{"unknown kind, as it came", `{"eventId":"17", "event":"pix_new",  "x":[1, 2]}`, `{"eventId":"17","event":"pix_new","x":[1,2]}`},
	}
	for _, c := range cases {
		if got := v.summary(decoded(t, c.payload)); got != c.want {
			t.Errorf("%s: summary = %q, want %q", c.name, got, c.want)
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
	if !strings.Contains(out, "refund_completed") || !strings.Contains(out, "No webhook receiver: these are saved events") {
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
	if !strings.Contains(out, "×2") || !strings.Contains(out, "1 events") {
		t.Errorf("the duplicate is not counted:\n%s", out)
	}
	if n := s.Store.Events().Seen("evt-dup"); n != 2 {
		t.Errorf("Seen = %d, want 2", n)
	}
	// The row is cached and re-rendered when the count changes, not before.
	cached := v.cache["evt-dup"]
	press(m, "j") // nothing below: the cursor stays, the row stays cached
	m.View()
	if v.cache["evt-dup"] != cached {
		t.Errorf("row rebuilt though nothing changed")
	}
}

func TestEventsEnterShowsPrettyPayload(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{})
	applyFixture(t, s, clk)
	m, v := eventsModel(t, s, 120, 40)
	press(m, "j", "j", "j", "j", "j", "j", "enter") // evt-0003, payment_failed
	if v.detail == nil || v.detail.id != "evt-0003" {
		t.Fatalf("enter opened %+v", v.detail)
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
	press(m, "G")
	if out := m.View(); !strings.Contains(out, "\n}\n") {
		t.Errorf("G did not scroll to the end:\n%s", out)
	}
	press(m, "esc")
	if v.detail != nil || !strings.Contains(m.View(), "SUMMARY") {
		t.Errorf("esc did not go back to the list")
	}
}

func TestEventsDecodeProblemIsMarked(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	m, _ := eventsModel(t, s, 120, 40)
	deliver(t, m, decoded(t, `{"eventId":"evt-odd","event":"refund_completed","amount":"1.005","createdAt":"ontem"}`))
	if out := m.View(); !strings.Contains(out, "⚠ net") {
		t.Errorf("row without the warning marker:\n%s", out)
	}
	press(m, "enter")
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
	lg := s.Store.Events()
	// t cycles through the kinds present, in the spec's order, unknown ones last, then all.
	want := []api.EventKind{api.EventPaymentCompleted, api.EventPaymentExpired, api.EventPaymentFailed, api.EventRefundCompleted,
		api.EventWithdrawalCompleted, api.EventWithdrawalFailed, api.EventBalanceBlockCreated, api.EventBalanceBlockApproved, "pix_refund_partial", ""}
	for _, k := range want {
		press(m, "t")
		if got, _ := lg.Filter(); got != k {
			t.Fatalf("kind filter = %q, want %q", got, k)
		}
		if k == "" {
			continue
		}
		if h := headerOf(m); !strings.Contains(h, "1 of 9 events") || !strings.Contains(h, "kind: "+string(k)) {
			t.Errorf("header with kind %s: %q", k, h)
		}
		if e, ok := lg.At(0); !ok || e.Event.Kind != k || lg.Len() != 1 {
			t.Errorf("kind %s shows %d events", k, lg.Len())
		}
	}
	if h := headerOf(m); !strings.HasPrefix(h, "9 events") {
		t.Errorf("after a full cycle: %q", h)
	}
	// W cycles through the wallets events came for.
	for _, w := range []string{"loja-norte", "loja-sul", "principal", ""} {
		press(m, "W")
		if _, got := lg.Filter(); got != w {
			t.Fatalf("wallet filter = %q, want %q", got, w)
		}
	}
	press(m, "W", "W") // loja-sul
	if h := headerOf(m); !strings.Contains(h, "4 of 9 events") || !strings.Contains(h, "wallet: loja-sul") {
		t.Errorf("wallet loja-sul: %q", h)
	}
	press(m, "t", "t", "t", "t") // refund_completed in loja-sul
	if h := headerOf(m); !strings.Contains(h, "1 of 9 events") {
		t.Errorf("kind and wallet: %q", h)
	}
	press(m, "t", "t", "t") // balance_block_created: in loja-sul
	out := m.View()
	if !strings.Contains(out, "balance_block_created") || strings.Contains(out, "withdrawal") {
		t.Errorf("filtered list:\n%s", out)
	}
	press(m, "t") // balance_block_approved
	press(m, "esc")
	if k, w := lg.Filter(); k != "" || w != "" || v.cursor != 0 {
		t.Errorf("esc left filter %q/%q", k, w)
	}
	// A kind that arrived without the view seeing it (e.g. saved by another session) joins the cycle.
	if _, err := s.Store.ApplyEvent(decoded(t, `{"eventId":"evt-x","event":"withdrawal_reversed"}`)); err != nil {
		t.Fatal(err)
	}
	press(m, "t", "t", "t", "t", "t", "t", "t")
	if k, _ := lg.Filter(); k != api.EventWithdrawalReversed {
		t.Errorf("seventh kind = %q, want withdrawal_reversed", k)
	}
	press(m, "esc")
	// With no match, the view says how to change the filter.
	lg.SetFilter(api.EventPaymentCompleted, "loja-norte")
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
	lg := s.Store.Events()
	// At the top, the cursor follows the newest event.
	if e, _ := lg.At(v.cursor); e.Event.EventID != "e4" {
		t.Fatalf("top selection = %s", e.Event.EventID)
	}
	press(m, "j", "j")
	sel, _ := lg.At(v.cursor)
	deliver(t, m, decoded(t, `{"eventId":"e5","event":"refund_completed"}`))
	deliver(t, m, decoded(t, `{"eventId":"e2","event":"refund_completed"}`)) // a duplicate adds no row
	m.Update(eventMsg{gen: m.app.gen + 1, ev: decoded(t, `{"eventId":"zz","event":"refund_completed"}`), first: true})
	m.View()
	if e, _ := lg.At(v.cursor); e.Event.EventID != sel.Event.EventID {
		t.Errorf("selection moved from %s to %s", sel.Event.EventID, e.Event.EventID)
	}
	// An event the filter hides does not move it either.
	lg.SetFilter(api.EventRefundCompleted, "")
	v.cursor = 1
	sel, _ = lg.At(v.cursor)
	deliver(t, m, decoded(t, `{"eventId":"w1","event":"withdrawal_failed"}`))
	if e, _ := lg.At(v.cursor); e.Event.EventID != sel.Event.EventID {
		t.Errorf("hidden event moved the selection from %s to %s", sel.Event.EventID, e.Event.EventID)
	}
}

func TestEventsInspectOpensTheCharge(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{})
	applyFixture(t, s, clk)
	_, v := eventsModel(t, s, 120, 40)
	v.cursor = 5 // evt-0004, refund of the loja-sul charge
	cmd := v.update(keyMsg("i"))
	if cmd == nil {
		t.Fatal("i did nothing")
	}
	if got, ok := cmd().(inspectMsg); !ok || got.query != evPaidCharge || got.wallet != "loja-sul" {
		t.Errorf("i sent %+v", got)
	}
	v.cursor = 2 // evt-0007, no transaction
	if cmd := v.update(keyMsg("i")); cmd != nil {
		t.Errorf("i on an event without a charge sent %+v", cmd())
	}
}

// Only the visible rows are built, whatever the number of events.
func TestEventsRendersOnlyVisibleRows(t *testing.T) {
	s, _ := evSession(t, true, api.ReceiverStats{})
	for i := range 5000 {
		if _, err := s.Store.ApplyEvent(&api.Event{EventID: fmt.Sprintf("e%05d", i), Kind: api.EventRefundCompleted, Amount: api.Money(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	m, v := eventsModel(t, s, 120, 40)
	m.View()
	if n, rows := len(v.cache), v.visibleRows(); n > rows {
		t.Errorf("%d rows built for %d visible", n, rows)
	}
	press(m, "G")
	if out := m.View(); !strings.Contains(out, "R$ 0,01") {
		t.Errorf("G did not reach the oldest event")
	}
	if n := len(v.cache); n > 2*v.visibleRows() {
		t.Errorf("%d rows built after two screens", n)
	}
}

// The view never draws past its size, in every mode, at every size the dashboard allows.
func TestEventsFitEverySize(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{Rejected: 123456, Duplicates: 99, Malformed: 7, TooLarge: 3, Overflow: 1})
	applyFixture(t, s, clk)
	s.WebhookURL = "http://[2001:db8::1]:65535/webhook/with/a/very/long/path/that/does/not/fit/anywhere/at/all"
	s.Store.Events().SetFilter("pix_refund_partial_with_a_long_kind_name", "a-very-long-sub-account-reference-name")
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
			_, v := eventsModel(t, s, 120, 40)
			v.setSize(w, h)
			check("filtered empty", v.view(w, h), w, h)
			s.Store.Events().SetFilter("", "")
			check("list", v.view(w, h), w, h)
			v.cursor = 3
			check("list, selected", v.view(w, h), w, h)
			v.update(keyMsg("enter"))
			check("payload", v.view(w, h), w, h)
			v.update(keyMsg("G"))
			check("payload, end", v.view(w, h), w, h)
			v.update(keyMsg("esc"))
			s.Store.Events().SetFilter("pix_refund_partial_with_a_long_kind_name", "a-very-long-sub-account-reference-name")
			_, nv := eventsModel(t, noRecv, 120, 40)
			check("setup", nv.view(w, h), w, h)
		}
	}
}

func TestEventsPortugueseHeader(t *testing.T) {
	s, clk := evSession(t, true, api.ReceiverStats{Rejected: 1})
	applyFixture(t, s, clk)
	m := New(Options{Session: s, Lang: LangPT, CustomerLang: LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(m, "5")
	out := m.View()
	for _, want := range []string{"9 eventos", "rejeitados 1", "RESUMO", "pagador CNPJ bloqueado · devolução"} {
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
		lang      Lang
		want      string // "" when the counter must not be shown
	}{
		{"none", api.ReceiverStats{Rejected: 2, Duplicates: 1}, 0, LangEN, ""},
		{"default window", api.ReceiverStats{Rejected: 2, Duplicates: 1, Stale: 12}, 0, LangEN, "12 refused: timestamp outside ±5m"},
		{"configured window", api.ReceiverStats{Stale: 1}, 90 * time.Second, LangEN, "1 refused: timestamp outside ±90s"},
		{"an hour", api.ReceiverStats{Stale: 3}, time.Hour, LangEN, "3 refused: timestamp outside ±1h"},
		{"pt-BR", api.ReceiverStats{Rejected: 1, Stale: 12}, 0, LangPT, "12 recusados: horário fora de ±5m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := evSession(t, true, tc.stats)
			s.WebhookTolerance = tc.tolerance
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			press(m, "5")
			top := strings.Split(m.panes[viewEvents].view(120, 36), "\n")[0]
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
			if tc.lang == LangPT {
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
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// Events are kept with the profile's state: after a restart they are listed again, with their
// counts and their decode problems.
func TestEventsPersistAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	store, err := state.Open(dir, "loja")
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
	again, err := state.Open(dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	s2, _ := evSession(t, true, api.ReceiverStats{})
	s2.Store = again
	m2, _ := eventsModel(t, s2, 120, 40)
	out := m2.View()
	for _, want := range []string{"1 events", "refund_completed", "×2", "⚠ net R$ 4,00"} {
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
	f.waitFor("payment_completed", "R$ 12,34", "no split · payer Maria da Silva")

	// Paid while the events view is on screen: the row appears live.
	ctx := context.Background()
	pix, err := s.Client.CreatePix(ctx, &api.CreatePixRequest{Amount: 777, Description: "ao vivo"}, api.WithIdempotencyKey(api.NewIdempotencyKey()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sandbox.Pay(ctx, pix.ID, demoPayerName, demoPayerCPF); err != nil {
		t.Fatal(err)
	}
	f.waitFor("R$ 7,77", shortID(pix.ID), "2 events")
	// The event updated the charges view at once (the charge was not even tracked before).
	ch, ok := s.Store.Charge(pix.ID)
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
	f.waitFor("payment_failed", "R$ 50,00", "CNPJ payer blocked · refund pending")
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
	if _, ok := s.Store.Events().Get("evt-forged-1"); ok || s.Store.Events().Total() != 0 {
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
		if _, err := s.Store.UpsertCharge(state.Charge{ID: "t", Amount: 100, Status: api.StatusPending,
			SplitRequested: []api.SplitItem{{SubAccount: "\x1b[1m", Amount: 100}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Store.ApplyEvent(ev); err != nil {
			t.Fatal(err)
		}
		_, v := eventsModel(t, s, 120, 40)
		w, h := 78+int(wide)%123, 20
		v.setSize(w, h)
		frames := []string{v.view(w, h)}
		v.update(keyMsg("t"))
		v.update(keyMsg("W"))
		frames = append(frames, v.view(w, h))
		v.update(keyMsg("esc"))
		v.update(keyMsg("enter"))
		frames = append(frames, v.view(w, h))
		v.update(keyMsg("G"))
		frames = append(frames, v.view(w, h))
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
			for _, r := range fr {
				if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
					t.Fatalf("frame %d carries control character %U:\n%q", i, r, fr)
				}
			}
		}
	})
}
