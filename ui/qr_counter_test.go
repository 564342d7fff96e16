package ui

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/ui/common"
)

// The QR screen at the counter: what the customer sees, what the merchant's keys do there.

// runMsgs runs cmd (batches included, waiting commands such as ticks skipped) and returns the
// messages it produces, without handing them to anything.
func runMsgs(t testing.TB, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil || waiting(c) {
			continue
		}
		switch msg := runLeaf(t, c).(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case common.AddressedCmd:
			// A component's command: run it (unless it waits) as the root would.
			if !waiting(msg.Cmd) {
				queue = append(queue, msg.Run)
			}
		default:
			out = append(out, msg)
		}
	}
	return out
}

// keyPress sends one key to m and hands back what it produced, one round: the messages the
// command makes go back to m (not a quit), and whether the program was told to quit.
func keyPress(t testing.TB, m *Model, k tea.KeyMsg) (quit bool) {
	t.Helper()
	_, cmd := m.Update(reply(m, k))
	for _, msg := range runMsgs(t, cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			quit = true
			continue
		}
		send(t, m, msg)
	}
	return quit
}

// pendingCharge is a tracked pending charge of the golden store, with a split to two
// sub-accounts, in wallet loja-sul.
func pendingSplitCharge(t testing.TB, s *Session) state.Charge {
	t.Helper()
	ch := state.Charge{ID: "3f6c1a2e-0000-4000-8000-0000000000aa", Amount: 5000, Description: "Almoço executivo",
		Status: api.StatusPending, CreatedAt: goldenNow.Add(-time.Minute), UpdatedAt: goldenNow.Add(-time.Minute),
		ExpiresAt: goldenNow.Add(14 * time.Minute), PixCopyPaste: goldenCode(t, 5000), Wallet: "loja-sul",
		SplitRequested: []api.SplitItem{{SubAccount: "cozinha-central", Amount: 1500}, {SubAccount: "garcom-joao", Amount: 500}}}
	got, err := s.Store.UpsertCharge(context.Background(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// qrModel is a golden dashboard at a size with the QR screen of charge id open.
func qrModel(t testing.TB, s *Session, id string, lang common.Lang, w, h int) *Model {
	t.Helper()
	m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	openQRByID(t, m, id)
	if qrOf(m) == nil {
		t.Fatal("the QR screen did not open")
	}
	return m
}

// Issue 14 #12: the customer-facing screens show what is the customer's: no split legs, no
// wallet or sub-account names, pending or paid.
func TestQRCustomerSeesNoSplitOrWallet(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	ch := pendingSplitCharge(t, s)
	secret := []string{"cozinha-central", "garcom-joao", "loja-sul", "Split", "split", "→"}
	check := func(what, screen string) {
		t.Helper()
		for _, word := range secret {
			if strings.Contains(screen, word) {
				t.Errorf("%s shows %q to the customer:\n%s", what, word, screen)
			}
		}
	}
	for _, size := range goldenSizes {
		m := qrModel(t, s, ch.ID, common.LangEN, size[0], size[1])
		screen := ansi.Strip(m.View())
		check("the pending QR screen", screen)
		for _, want := range []string{"Pague com PIX", "Almoço executivo", "Expira em", "PADARIA PAO QUENTE"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%dx%d: the pending screen lacks %q:\n%s", size[0], size[1], want, screen)
			}
		}
	}
	paid := ch
	at := goldenNow.Add(-10 * time.Second)
	paid.Status, paid.PaidAt, paid.PayerName, paid.UpdatedAt = api.StatusCompleted, &at, "Maria da Silva", at
	paid.HasDistributed = true
	paid.SplitDistributed = []api.SplitItem{{SubAccount: "cozinha-central", Amount: 1500}, {SubAccount: "garcom-joao", Amount: 400}}
	if _, err := s.Store.UpsertCharge(context.Background(), paid); err != nil {
		t.Fatal(err)
	}
	for _, size := range goldenSizes {
		m := qrModel(t, s, ch.ID, common.LangEN, size[0], size[1])
		screen := ansi.Strip(m.View())
		if !strings.Contains(screen, "PAGO") {
			t.Fatalf("not the paid screen:\n%s", screen)
		}
		check("the PAID screen", screen)
	}
}

// Issue 14 #17: q on a pending QR asks (the customer may be scanning); n keeps the screen,
// y quits. On a final screen q quits at once. ctrl+c asks too (the root's quit guard).
func TestQRQuitAsksWhilePending(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		t.Run(string(lang), func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			goldenCharges(t, s)
			const pending = "3f6c1a2e-0000-4000-8000-000000000001"
			m := qrModel(t, s, pending, lang, 80, 24)
			if q := qrOf(m).QuitQuestion(); q == "" {
				t.Fatal("a pending QR has no quit question")
			}
			question := qrOf(m).QuitQuestion()
			for _, k := range []tea.KeyMsg{runeKey("q"), {Type: tea.KeyCtrlC}} {
				if keyPress(t, m, k) {
					t.Fatalf("%s quit at once on a pending QR", k)
				}
				screen := ansi.Strip(m.View())
				if !strings.Contains(strings.Join(strings.Fields(screen), " "), strings.Join(strings.Fields(question), " ")[:30]) {
					t.Fatalf("%s: no question on screen:\n%s", k, screen)
				}
				if keyPress(t, m, runeKey("n")) {
					t.Fatal("n quit")
				}
				if qrOf(m) == nil || strings.Contains(ansi.Strip(m.View()), question[:20]) {
					t.Fatalf("after n the QR screen is not back:\n%s", ansi.Strip(m.View()))
				}
			}
			keyPress(t, m, runeKey("q"))
			if !keyPress(t, m, runeKey("y")) {
				t.Fatal("q then y did not quit")
			}
			// The help line says what q does there.
			if screen := ansi.Strip(m.View()); !strings.Contains(screen, "q ") {
				t.Fatalf("the QR screen does not list q:\n%s", screen)
			}

			paid := qrModel(t, s, "3f6c1a2e-0000-4000-8000-000000000002", lang, 80, 24)
			if qrOf(paid).QuitQuestion() != "" {
				t.Fatal("a paid screen asks before quitting")
			}
			if !keyPress(t, paid, runeKey("q")) {
				t.Fatal("q on the PAID screen did not quit")
			}
		})
	}
}

// Issue 14 #20: c copies the code and says so on the QR screen itself, for a few seconds.
func TestQRCopyConfirmsOnScreen(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	for _, size := range goldenSizes {
		m := qrModel(t, s, "3f6c1a2e-0000-4000-8000-000000000001", common.LangPT, size[0], size[1])
		var copied string
		qrOf(m).CopyFn = func(s string) { copied = s }
		_, cmd := m.Update(runeKey("c"))
		var expire []tea.Cmd
		for _, msg := range runMsgs(t, cmd) {
			_, next := m.Update(reply(m, msg))
			expire = append(expire, next)
		}
		ch, _ := chargeByID(t, s.Store, "3f6c1a2e-0000-4000-8000-000000000001")
		if copied != ch.PixCopyPaste {
			t.Fatalf("copied %q", copied)
		}
		const said = "Código PIX copiado"
		if screen := ansi.Strip(m.View()); !strings.Contains(screen, said) {
			t.Fatalf("%dx%d: no confirmation on the QR screen:\n%s", size[0], size[1], screen)
		}
		if size[0] != common.MinWidth {
			continue // the tick takes its seconds: waited for once
		}
		// The confirmation goes away by itself: its expiry is a tick the screen asked for.
		var ticks int
		for _, c := range expire {
			for _, leaf := range leaves(c) {
				if !strings.Contains(cmdName(leaf), "Tick") {
					continue
				}
				ticks++
				m.Update(reply(m, leaf()))
			}
		}
		if ticks == 0 {
			t.Fatal("the confirmation has no tick to end it")
		}
		if screen := ansi.Strip(m.View()); strings.Contains(screen, said) {
			t.Fatalf("the confirmation stays after its tick:\n%s", screen)
		}
	}
}

// leaves flattens a command's batches without running the leaves that wait.
func leaves(c tea.Cmd) []tea.Cmd {
	if c == nil {
		return nil
	}
	if waiting(c) {
		return []tea.Cmd{c}
	}
	msg := c()
	if a, ok := msg.(common.AddressedCmd); ok {
		// A component's command: its leaves.
		if waiting(a.Cmd) {
			return []tea.Cmd{a.Cmd} // its reply is addressed by the test (see reply)
		}
		return leaves(a.Run)
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Cmd
		for _, x := range b {
			out = append(out, leaves(x)...)
		}
		return out
	}
	return []tea.Cmd{func() tea.Msg { return msg }}
}

// countdownRe finds the countdown after its label: the escape sequences that open it, and the
// time left.
var countdownRe = regexp.MustCompile("Expira em (?:\x1b\\[0m)?((?:\x1b\\[[0-9;]*m)*)([0-9][0-9a-z ]*[a-z])")

// Issue 14 #18: the countdown has a colour of its own in both themes (freeze and light
// terminals drew it light grey on white) and reads the same for the same clock.
func TestQRCountdownReadableInBothThemes(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	defer lipgloss.SetHasDarkBackground(true)
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	texts := map[bool]string{}
	for _, dark := range []bool{true, false} {
		lipgloss.SetHasDarkBackground(dark)
		for _, size := range goldenSizes {
			m := qrModel(t, s, "3f6c1a2e-0000-4000-8000-000000000001", common.LangEN, size[0], size[1])
			view := m.View()
			got := countdownRe.FindStringSubmatch(view)
			if got == nil {
				t.Fatalf("%dx%d: no countdown:\n%s", size[0], size[1], ansi.Strip(view))
			}
			fg := regexp.MustCompile(`38;2;(\d+);(\d+);(\d+)`).FindStringSubmatch(got[1])
			if fg == nil {
				t.Fatalf("dark=%v %dx%d: the countdown has no colour of its own: %q", dark, size[0], size[1], got[1])
			}
			lum := 0
			for _, c := range fg[1:] {
				n, _ := strconv.Atoi(c)
				lum += n
			}
			if dark && lum < 3*160 || !dark && lum > 3*100 {
				t.Errorf("dark=%v: countdown colour %v does not contrast with the background", dark, fg[1:])
			}
			texts[dark] = got[2]
		}
	}
	if texts[true] != texts[false] || texts[true] == "" {
		t.Fatalf("the countdown reads %q dark and %q light", texts[true], texts[false])
	}
}

// Issue 14 #7: the refused payment's screen follows the refund to the payer: "pending" turns
// "confirmed" on the screen when the service settles it (no webhook says so: the screen reads
// the charge again while the refund is open).
func TestFlowRefusedPaymentScreenFollowsTheRefund(t *testing.T) {
	s, _ := demo(t, DemoOptions{ServerOptions: []sandbox.Option{sandbox.WithWebhookScale(0.05)}})
	f := startFlow(t, s, 120, 40)
	f.newCharge("50", "cnpj")
	f.waitFor("Pague com PIX")
	f.keys("%")
	f.waitFor("FALHOU", "Estorno ao pagador: pendente")
	f.waitFor("Estorno ao pagador: confirmado", "e2eId do estorno")
}
