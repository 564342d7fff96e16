package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"pixdash/api"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

// fuzzKeys are the keys a merchant can press, plus some they should not.
var fuzzKeys = []tea.KeyMsg{
	{Type: tea.KeyEnter}, {Type: tea.KeyEsc}, {Type: tea.KeyTab}, {Type: tea.KeyShiftTab},
	{Type: tea.KeyUp}, {Type: tea.KeyDown}, {Type: tea.KeyLeft}, {Type: tea.KeyRight},
	{Type: tea.KeyPgUp}, {Type: tea.KeyPgDown}, {Type: tea.KeyHome}, {Type: tea.KeyEnd},
	{Type: tea.KeyBackspace}, {Type: tea.KeyDelete}, {Type: tea.KeySpace},
	{Type: tea.KeyCtrlS}, {Type: tea.KeyCtrlP}, {Type: tea.KeyCtrlN}, {Type: tea.KeyCtrlX},
	{Type: tea.KeyCtrlK}, {Type: tea.KeyCtrlJ}, {Type: tea.KeyCtrlU}, {Type: tea.KeyCtrlD},
	runeKey("n"), runeKey("q"), runeKey("?"), runeKey("/"), runeKey("f"), runeKey("r"), runeKey("$"),
	runeKey("%"), runeKey("x"), runeKey("c"), runeKey("y"), runeKey("N"), runeKey("1"), runeKey("2"),
	runeKey("3"), runeKey("4"), runeKey("5"), runeKey("w"), runeKey("P"), runeKey("s"), runeKey("v"),
	runeKey("g"), runeKey("G"), runeKey("j"), runeKey("k"), runeKey("t"), runeKey("W"), runeKey("i"),
	runeKey("0"), runeKey("9"), runeKey(","), runeKey("."), runeKey("-"), runeKey("é"), runeKey("界"),
	runeKey("\x00"), runeKey("\x1b[31m"),
}

// fuzzReplies are replies a command could bring back, good and bad.
func fuzzReplies(m *Model) []tea.Msg {
	t := m.tagNow()
	failed, _ := m.app.Sess.Store.Peek("3f6c1a2e-0000-4000-8000-000000000003") // written by goldenCharges, so in memory
	boom := &api.Error{HTTPStatus: 500, Kind: "InternalError", Message: "An unexpected error occurred", TraceID: "t-1"}
	return []tea.Msg{
		common.SimulatedMsg{ID: "x", Err: errors.New("network down")},
		common.SimulatedMsg{ID: "y", Err: boom},
		common.StatusMsg{Text: strings.Repeat("long status ", 40), Kind: common.StatusError},
		authMsg{gen: m.app.Gen, err: boom},
		authMsg{gen: m.app.Gen},
		common.ProjectsMsg{Tag: t, Err: boom},
		common.ProjectsMsg{Tag: t, Items: []api.Project{{ID: "p1", Name: "Loja"}, {ID: "p2", Name: strings.Repeat("x", 300)}}},
		chargeCreatedMsg{tag: t, err: boom, unconfirmed: true},
		chargeCreatedMsg{tag: t, err: &api.Error{HTTPStatus: 400, Message: "amount must not be less than 1"}},
		txMsg{gen: m.app.Gen, id: "3f6c1a2e-0000-4000-8000-000000000001", err: boom},
		txMsg{gen: m.app.Gen + 1, id: "stale"},
		newcharge.ChargeSubmitMsg{Draft: newcharge.ChargeDraft{Key: "k-fuzz-00001", Req: api.CreatePixRequest{Amount: 100}}},
		common.OpenChargeMsg{Charge: failed},
		common.OpenChargeMsg{},
		common.StoreChangedMsg{Gen: m.app.Gen, Charges: true, Events: true},
		recoveredMsg{gen: m.app.Gen, pending: 2, err: boom},
		common.SimulatedMsg{Err: boom},
	}
}

// feed drives the model with events chosen by data and checks every frame; the store reads the
// views ask for are run (see settle), the service's replies come from fuzzReplies.
func feed(t *testing.T, m *Model, data []byte) {
	t.Helper()
	replies := fuzzReplies(m)
	w, h := 120, 40
	for i := 0; i < len(data); i++ {
		b := data[i]
		switch {
		case b < 200:
			send(t, m, fuzzKeys[int(b)%len(fuzzKeys)])
		case b < 230 && i+2 < len(data):
			w, h = int(data[i+1])%260, int(data[i+2])%90
			i += 2
			send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
		default:
			send(t, m, replies[int(b)%len(replies)])
		}
		view := m.View()
		if w >= common.MinWidth && h >= common.MinHeight {
			lines := strings.Split(view, "\n")
			if len(lines) > h {
				t.Fatalf("frame has %d lines for height %d after byte %d", len(lines), h, i)
			}
			for n, l := range lines {
				if lw := lipgloss.Width(l); lw > w {
					t.Fatalf("line %d is %d cells wide for width %d after byte %d:\n%s", n, lw, w, i, l)
				}
			}
		}
	}
}

func FuzzRootModel(f *testing.F) {
	f.Add([]byte("n12\x09hello\x13"))
	f.Add([]byte{210, 80, 24, 30, 31, 32, 33, 1, 2, 3})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 230, 231, 232, 240, 250})
	f.Add([]byte{26, 29, 40, 41, 210, 0, 0, 27, 220, 255, 255, 28})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			data = data[:400]
		}
		s := goldenSession(t, api.Sandbox)
		goldenCharges(t, s)
		m := goldenModel(t, s, 120, 40)
		feed(t, m, data)
	})
}

// TestRandomKeysNeverPanic runs the fuzz body over a fixed pseudo-random corpus on every test run.
func TestRandomKeysNeverPanic(t *testing.T) {
	seed := uint32(2463534242)
	next := func() byte {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return byte(seed)
	}
	for run := 0; run < 12; run++ {
		data := make([]byte, 300)
		for i := range data {
			data[i] = next()
		}
		for _, env := range []api.Environment{api.Sandbox, api.Production} {
			s := goldenSession(t, env)
			goldenCharges(t, s)
			feed(t, goldenModel(t, s, 120, 40), data)
		}
	}
}
