package ui

import (
	"context"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/inspector"
	"pixdash/ui/newcharge"
	"pixdash/ui/refund"
	"pixdash/ui/sales"
)

// idleStart is when the idle table's views are opened: 17 s past goldenNow's minute, so an
// "x ago" (counted from when the data was read) and the minute shown change at different ticks.
var idleStart = goldenNow.Add(17 * time.Second)

// idleCase is a screen of TestQuietTicksOnEveryView.
type idleCase struct {
	name string
	// model builds the dashboard (goldenModel with the golden charges when nil).
	model func(t *testing.T) *Model
	open  func(t *testing.T, m *Model)
	// changes: the screen shows a text that moves within 150 s (a countdown, an "x ago", the
	// minute); seconds: it moves every second (a countdown under an hour).
	changes, seconds bool
}

func idleCases() []idleCase {
	keys := func(ks ...tea.Msg) func(t *testing.T, m *Model) {
		return func(t *testing.T, m *Model) {
			for _, k := range ks {
				send(t, m, k)
			}
		}
	}
	withCharges := func(t *testing.T) *Model {
		s := goldenSession(t, api.Sandbox)
		goldenCharges(t, s)
		s.Wallet = "loja-norte" // walletsGoldenData's session wallet
		return goldenMoreModel(t, s, common.LangEN, 120, 40)
	}
	return []idleCase{
		{name: "charges", changes: true}, // the strip's "vs yesterday until 14:30"
		{name: "qr pending, 23 h left", open: func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000001") }, changes: true},
		{name: "qr pending, 5 min left", open: func(t *testing.T, m *Model) {
			ch, _ := chargeByID(t, m.app.Sess.Store, "3f6c1a2e-0000-4000-8000-000000000001")
			ch.ID, ch.ExpiresAt = "3f6c1a2e-0000-4000-8000-000000000009", goldenNow.Add(5*time.Minute)
			if _, err := m.app.Sess.Store.UpsertCharge(context.Background(), ch); err != nil {
				t.Fatal(err)
			}
			openQRByID(t, m, ch.ID)
		}, changes: true, seconds: true},
		{name: "result screen, paid", open: func(t *testing.T, m *Model) { openQRByID(t, m, "3f6c1a2e-0000-4000-8000-000000000002") }},
		{name: "help", open: keys(runeKey("?")), changes: true}, // over the charges view's strip,
		{name: "new charge form", open: keys(runeKey("n"), runeKey("5"))},
		{name: "split builder", open: keys(runeKey("n"), runeKey("5"), splitKey(tea.KeyCtrlP))},
		{name: "production confirmation", model: func(t *testing.T) *Model {
			return goldenMoreModel(t, goldenSession(t, api.Production), common.LangEN, 120, 40)
		}, open: func(t *testing.T, m *Model) {
			m.Update(reply(m, newcharge.ChargeSubmitMsg{Draft: newcharge.ChargeDraft{Key: "k-golden-0001", Req: api.CreatePixRequest{Amount: 1234}}}))
		}},
		{name: "refund form", open: func(t *testing.T, m *Model) { m.push(refund.NewRefundForm(m.c, paidGoldenCharge(t, m))) }, changes: true},
		{name: "search", open: keys(runeKey("S"))},
		{name: "search, found", open: func(t *testing.T, m *Model) { goldenSearch(t, m, "12,34") }},
		{name: "wallet picker", open: keys(runeKey("w")), changes: true},
		{name: "inspector", open: keys(runeKey("2"))},
		{name: "inspector, history", open: func(t *testing.T, m *Model) {
			for _, l := range []state.Lookup{
				{Query: "PED-0999", Wallet: "principal", Found: true, TxID: "3f6c1a2e-0000-4000-8000-000000000003", At: idleStart.Add(-3 * time.Hour)},
				{Query: "nao-existe", Wallet: "loja-sul", At: idleStart.Add(-40 * time.Second)},
			} {
				if err := m.app.Sess.Store.AddLookup(context.Background(), l); err != nil {
					t.Fatal(err)
				}
			}
			send(t, m, runeKey("2"))
		}, changes: true},
		{name: "inspector, a pending charge", open: func(t *testing.T, m *Model) {
			exp := goldenNow.Add(10 * time.Minute)
			tx := &api.Transaction{ID: "3f6c1a2e-0000-4000-8000-000000000001", Status: api.StatusPending, Type: api.TypePayment,
				PaymentMethod: api.MethodPix, Amount: 1234, Currency: "BRL", CreatedAt: goldenNow.Add(-2 * time.Minute), ExpiresAt: &exp}
			ch, _ := chargeByID(t, m.app.Sess.Store, tx.ID)
			showLookup(t, m, tx.ID, "principal", tx, ch, true, nil)
			if _, ok := m.activePane().(*inspector.View); !ok {
				t.Fatalf("the inspector is not on screen (%T)", m.activePane())
			}
		}, changes: true, seconds: true},
		{name: "wallets", model: withCharges, open: func(t *testing.T, m *Model) {
			m.Update(runeKey("3"))
			walletsGoldenData(t, m, m.wallets())
		}, changes: true},
		{name: "withdrawal form", model: withCharges, open: func(t *testing.T, m *Model) { goldenWithdrawalOpen(t, m) }, changes: true},
		{name: "blocks", open: func(t *testing.T, m *Model) {
			send(t, m, runeKey("4"))
			answerBlocks(m, goldenBlocks(), nil)
		}, changes: true},
		{name: "events", model: func(t *testing.T) *Model {
			s, clk := evSession(t, true, api.ReceiverStats{Accepted: 9})
			applyFixture(t, s, clk)
			return goldenModel(t, s, 120, 40)
		}, open: keys(runeKey("5")), changes: true},
		{name: "sales", model: func(t *testing.T) *Model { return dayModel(t, common.LangEN, 120, 40) }, changes: true},
		{name: "sales, period picker", model: func(t *testing.T) *Model { return dayModel(t, common.LangEN, 120, 40) }, open: keys(runeKey("p")), changes: true},
		{name: "day close", model: func(t *testing.T) *Model { return dayModel(t, common.LangEN, 120, 40) }, open: func(t *testing.T, m *Model) {
			send(t, m, runeKey("C"))
			o, _ := common.Find[*sales.CloseOverlay](m.overlays)
			send(t, m, sales.CloseMsg{Seq: o.Seq, Gen: m.app.Gen, Rep: o.Rep})
		}},
		{name: "too small", model: func(t *testing.T) *Model { return goldenModel(t, goldenSession(t, api.Sandbox), 60, 20) }},
	}
}

// Every view and overlay tells the root what on it changes with the clock (common.Clocked), so
// quiet ticks build no frame on any of them; a tick that changes what is shown builds one, and
// the frame kept is always the one a fresh render draws (issue 27: only the charges view had a
// clock key, every other screen was drawn again every second).
func TestQuietTicksOnEveryView(t *testing.T) {
	for _, tc := range idleCases() {
		t.Run(tc.name, func(t *testing.T) {
			var m *Model
			if tc.model != nil {
				m = tc.model(t)
			} else {
				s := goldenSession(t, api.Sandbox)
				goldenCharges(t, s)
				m = goldenModel(t, s, 120, 40)
			}
			now := idleStart
			m.c.Now = func() time.Time { return now }
			if tc.open != nil {
				tc.open(t, m)
			}
			checkIdleTicks(t, m, &now, tc.changes, tc.seconds)
		})
	}
}

// checkIdleTicks ticks m through 150 s of a clock (then an hour and a day later) and checks the
// frames it builds (see TestQuietTicksOnEveryView).
func checkIdleTicks(t *testing.T, m *Model, now *time.Time, changes, seconds bool) {
	t.Helper()
	if !m.tooSmall() {
		for _, c := range append([]common.Component{m.activePane()}, overlayComponents(m)...) {
			if _, ok := c.(common.Clocked); !ok {
				t.Errorf("%T is on screen and has no ClockKey", c)
			}
		}
	}
	frames := countFrames(t)
	fresh := func() string {
		hook := testHookRender
		testHookRender = nil
		defer func() { testHookRender = hook }()
		return m.render()
	}
	tick := func() string {
		t.Helper()
		send(t, m, common.TickMsg(*now))
		got := m.View()
		if want := fresh(); got != want {
			t.Fatalf("at %s the frame kept is not what a render draws:\n%s\nwant\n%s", now.Format("15:04:05.000"), got, want)
		}
		return got
	}
	*now = now.Add(10 * time.Millisecond)
	first := tick()
	if *frames != 1 {
		t.Fatalf("the first tick built %d frames, want 1", *frames)
	}
	for range 5 {
		*now = now.Add(100 * time.Millisecond)
		if got := tick(); got != first {
			t.Fatalf("a tick within the same second changed the screen")
		}
	}
	if *frames != 1 {
		t.Fatalf("5 quiet ticks built %d frames, want 0", *frames-1)
	}
	*frames = 0
	shown, moved := first, 0
	for range 150 {
		*now = now.Add(time.Second)
		if got := tick(); got != shown {
			shown = got
			moved++
		}
	}
	switch {
	case changes && moved == 0:
		t.Errorf("nothing on screen moved in 150 s")
	case !changes && moved > 0:
		t.Errorf("the screen changed %d times in 150 s, want none", moved)
	case seconds && moved < 140:
		t.Errorf("a countdown in seconds moved %d times in 150 s", moved)
	case !seconds && *frames > moved+3:
		// A key may move at the minute when the screen does not: at most 3 times in 150 s.
		t.Errorf("%d frames built in 150 s for %d changes on screen", *frames, moved)
	}
	if *frames < moved {
		t.Errorf("%d frames built for %d changes", *frames, moved)
	}
	// An hour and a day later: still what a render draws.
	*now = now.Add(time.Hour)
	tick()
	*now = now.Add(24 * time.Hour)
	tick()
	t.Logf("%T under %T: %d frames built in 150 s, the screen changed %d times", m.overlays.Top(), m.activePane(), *frames, moved)
}

// overlayComponents are the overlays on the stack, bottom first.
func overlayComponents(m *Model) []common.Component {
	out := make([]common.Component, 0, len(m.overlays))
	for _, o := range m.overlays {
		out = append(out, o)
	}
	return out
}

// An "x ago" is in whole minutes, so it changes once a minute (issue 27), in every unit.
func TestHumanAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "<1m"}, {59*time.Second + 999*time.Millisecond, "<1m"}, {time.Minute, "1m"}, {-90 * time.Second, "1m"},
		{59*time.Minute + 59*time.Second, "59m"}, {time.Hour, "1h00m"}, {2*time.Hour + 5*time.Minute + 59*time.Second, "2h05m"},
		{24 * time.Hour, "1d00h"}, {3*24*time.Hour + 4*time.Hour + 59*time.Minute, "3d04h"},
	} {
		if got := common.HumanAge(tc.d); got != tc.want {
			t.Errorf("HumanAge(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// A text field's cursor does not blink: a blink redraws the field's line twice a second, and
// an idle form or search wrote 60-560 B/s to the terminal (issue 27).
func TestInputsDoNotBlink(t *testing.T) {
	ti := common.NewInput()
	if cmd := ti.Focus(); cmd != nil || ti.Cursor.Mode() != cursor.CursorStatic {
		t.Fatalf("a field's focus: mode %v, command %v", ti.Cursor.Mode(), cmd != nil)
	}
	// The search overlay and the period form ask for textinput.Blink when they take the
	// keyboard: their cursor answers it with no blink to come.
	for _, open := range []func(m *Model){
		func(m *Model) { m.Update(runeKey("S")) },
		func(m *Model) {
			m.Update(runeKey("p"))
			for range 4 {
				m.Update(tea.KeyMsg{Type: tea.KeyDown})
			}
			send(t, m, tea.KeyMsg{Type: tea.KeyEnter}) // custom range
		},
	} {
		m := dayModel(t, common.LangEN, 120, 40)
		open(m)
		top := m.overlays.Top()
		if top == nil {
			t.Fatal("nothing opened")
		}
		blink := common.EnvelopeMsg{To: top.Cid(), Tag: common.Tag{Gen: m.app.Gen}, Msg: textinput.Blink()}
		if _, cmd := m.Update(blink); cmd != nil {
			if msgs := runAll(cmd); len(msgs) > 0 || waiting(cmd) {
				t.Errorf("%T: the cursor blinks (%d messages)", top, len(msgs))
			}
		}
	}
}
