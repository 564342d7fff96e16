package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

// trackedCharge creates a charge on the emulator and tracks it in the session's store.
func trackedCharge(t *testing.T, s *Session, amount api.Money) state.Charge {
	t.Helper()
	return trackedChargeDesc(t, s, amount, "Pão de queijo")
}

// trackedChargeDesc is trackedCharge with a description.
func trackedChargeDesc(t *testing.T, s *Session, amount api.Money, desc string) state.Charge {
	t.Helper()
	req := api.CreatePixRequest{Amount: amount, Description: desc}
	key := api.NewIdempotencyKey()
	pix, err := s.Client.CreatePix(context.Background(), &req, api.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Store.UpsertCharge(context.Background(), state.ChargeFromPix(pix, &req, api.WalletPrincipal, key))
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// qrScreen renders the QR screen of a tracked charge at a terminal size, without colours.
func qrScreen(t testing.TB, s *Session, id string, w, h int) string {
	t.Helper()
	m := New(Options{Session: s, Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	openQRByID(t, m, id)
	return ansi.Strip(m.View())
}

// qrFromScreen cuts the QR out of a screen: the lines and columns that hold block glyphs.
func qrFromScreen(screen string) []string {
	lines := strings.Split(screen, "\n")
	first, last, left, right := -1, -1, 1<<30, -1
	for i, l := range lines {
		rs := []rune(l)
		for j, r := range rs {
			if r == '█' || r == '▀' || r == '▄' {
				if first < 0 {
					first = i
				}
				last = i
				left, right = min(left, j), max(right, j)
			}
		}
	}
	if first < 0 {
		return nil
	}
	var out []string
	for _, l := range lines[first : last+1] {
		rs := []rune(l)
		for len(rs) <= right {
			rs = append(rs, ' ')
		}
		out = append(out, string(rs[left:right+1]))
	}
	return out
}

func TestQRScreenDecodesToTheChargeCode(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	// The emulator's code for a short description fits the dashboard's smallest terminal
	// (whatever its random key and txid: see TestQRMatrixIsSmallerThanByteMode).
	ch := trackedChargeDesc(t, s, 1234, "Café")
	for _, size := range [][2]int{{120, 40}, {common.MinWidth, common.MinHeight}} {
		screen := qrScreen(t, s, ch.ID, size[0], size[1])
		qr := qrFromScreen(screen)
		if qr == nil {
			t.Fatalf("%dx%d: no QR on screen:\n%s", size[0], size[1], screen)
		}
		if got := decodeQRLines(t, qr); got != ch.PixCopyPaste {
			t.Fatalf("%dx%d: QR decodes to %q, want %q", size[0], size[1], got, ch.PixCopyPaste)
		}
		big := common.BigAmount(1234, 200)
		if !strings.Contains(screen, "R$ 12,34") && !(strings.Contains(screen, big[0]) && strings.Contains(screen, big[2])) {
			t.Fatalf("%dx%d: amount missing:\n%s", size[0], size[1], screen)
		}
	}
}

// A code too long for the terminal: the screen says how large the terminal must be (exactly),
// in the customer's language (the screen is the customer's; issue 21 #10), and shows the code
// to copy instead. The code is a fixed long one (the emulator's codes fit 80x24 whatever the
// description: see TestQRUsualChargesFit80x24).
func TestQRScreenTooSmallSaysTheSize(t *testing.T) {
	long, err := api.EncodeBRCode(api.BRCodeParams{
		PixKey: "a319c031-a546-4765-9353-1359b7156cb0", Description: "Encomenda bolo de chocolate com morangos 2 kg retirar sabado",
		MerchantName: "PADARIA PAO QUENTE LTDA", MerchantCity: "SAO PAULO", TxID: "53fe702801d845b7917b99434", Amount: 1234,
	})
	if err != nil {
		t.Fatal(err)
	}
	const id = "3f6c1a2e-0000-4000-8000-0000000000dd"
	for _, langs := range [][2]common.Lang{{common.LangEN, common.LangPT}, {common.LangPT, common.LangPT}, {common.LangPT, common.LangEN}} {
		merchantLang, customerLang := langs[0], langs[1]
		s := goldenSession(t, api.Sandbox)
		trackCode(t, s, id, long, 1234)
		screenAt := func(w, h int) string {
			m := New(Options{Session: s, Lang: merchantLang, CustomerLang: customerLang, Now: func() time.Time { return goldenNow }})
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			openQRByID(t, m, id)
			return ansi.Strip(m.View())
		}
		screen := screenAt(common.MinWidth, common.MinHeight)
		if qrFromScreen(screen) != nil {
			t.Fatalf("a %d-character code fits %dx%d?\n%s", len(long), common.MinWidth, common.MinHeight, screen)
		}
		prefix := map[common.Lang]string{common.LangEN: "The QR needs a ", common.LangPT: "O QR precisa de um terminal de "}[customerLang]
		flat := strings.Join(strings.Fields(screen), " ")
		i := strings.Index(flat, prefix)
		if i < 0 {
			t.Fatalf("merchant %s, customer %s: no size hint in the customer's language:\n%s", merchantLang, customerLang, screen)
		}
		var needW, needH int
		if _, err := fmt.Sscanf(strings.TrimPrefix(flat[i+len(prefix):], "terminal de "), "%dx%d", &needW, &needH); err != nil {
			t.Fatalf("%s: %v in %q", customerLang, err, flat[i:])
		}
		if qrFromScreen(screenAt(needW, needH)) == nil {
			t.Fatalf("the hint promises a QR at %dx%d but none is shown", needW, needH)
		}
		// Each side is the smallest (or the dashboard's own minimum).
		if needH > common.MinHeight && qrFromScreen(screenAt(needW, needH-1)) != nil {
			t.Fatalf("the hint %dx%d is taller than needed", needW, needH)
		}
		if needW > common.MinWidth && qrFromScreen(screenAt(needW-1, needH)) != nil {
			t.Fatalf("the hint %dx%d is wider than needed", needW, needH)
		}
		if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), long[:40]) {
			t.Fatalf("a too-small QR screen must show the code:\n%s", screen)
		}
	}
}

func TestQRScreenRefusesACorruptedCode(t *testing.T) {
	s, _ := demo(t, DemoOptions{})
	ch := trackedCharge(t, s, 1234)
	for name, mutate := range map[string]func(c *state.Charge){
		"one character changed": func(c *state.Charge) {
			b := []byte(c.PixCopyPaste)
			b[30] ^= 1
			c.PixCopyPaste = string(b)
		},
		"amount differs from the charge": func(c *state.Charge) { c.Amount = 9999 },
	} {
		t.Run(name, func(t *testing.T) {
			bad := ch
			mutate(&bad)
			bad.UpdatedAt = bad.UpdatedAt.Add(time.Second)
			if _, err := s.Store.UpsertCharge(context.Background(), bad); err != nil {
				t.Fatal(err)
			}
			screen := qrScreen(t, s, ch.ID, 120, 40)
			if qrFromScreen(screen) != nil {
				t.Fatalf("a QR was drawn for a bad code:\n%s", screen)
			}
			if !strings.Contains(screen, "⚠") || !strings.Contains(screen, "QR não é exibido") {
				t.Fatalf("no warning:\n%s", screen)
			}
		})
	}
}

func TestBigAmountReadsBack(t *testing.T) {
	read := map[[3]string]rune{}
	for r, g := range common.BigGlyphs {
		read[g] = r
	}
	for _, m := range []api.Money{0, 1, 1234, 123456, 99999999, -5} {
		rows := common.BigAmount(m, 200)
		if rows == nil {
			t.Fatalf("%v: no big rendering", m)
		}
		// Read the digits back column by column after the "R$ " prefix.
		var got strings.Builder
		r0, r1, r2 := []rune(rows[0])[3:], []rune(rows[1])[3:], []rune(rows[2])[3:]
		for i := 0; i < len(r0); {
			found := false
			for _, n := range []int{3, 2, 1} {
				if i+n > len(r0) {
					continue
				}
				if c, ok := read[[3]string{string(r0[i : i+n]), string(r1[i : i+n]), string(r2[i : i+n])}]; ok && c != ' ' {
					got.WriteRune(c)
					i += n + 1
					found = true
					break
				}
			}
			if !found {
				i++
			}
		}
		want := strings.NewReplacer("R$ ", "", "-R$ ", "-").Replace(m.BRL())
		if strings.ReplaceAll(got.String(), "-", "") != strings.ReplaceAll(strings.ReplaceAll(want, "-", ""), " ", "") {
			t.Errorf("%v reads back as %q, want %q", m, got.String(), want)
		}
	}
	if common.BigAmount(123456789, 10) != nil {
		t.Fatal("a too-wide amount must fall back to plain text")
	}
}

// A refused payment's result screen wraps the service's long reason to the terminal: at 80x24
// no line is cut and the amount stays in the middle (a reason wider than the screen used to
// push everything off it).
func TestQRResultWrapsALongReason(t *testing.T) {
	const reason = "Depósito recusado: a conta não aceita pagamentos de pessoa jurídica (CNPJ); o valor será devolvido ao pagador automaticamente."
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		s := goldenSession(t, api.Sandbox)
		const id = "3f6c1a2e-0000-4000-8000-0000000000fa"
		ch := state.Charge{ID: id, Amount: 1234, Description: "Venda", Status: api.StatusFailed, FailureReason: reason,
			CreatedAt: goldenNow.Add(-time.Minute), UpdatedAt: goldenNow, Wallet: api.WalletPrincipal,
			BlockedDeposit: &api.BlockedDeposit{Reason: api.ReasonCNPJPayerNotAllowed}}
		if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
		m := New(Options{Session: s, Lang: lang, CustomerLang: lang, Now: func() time.Time { return goldenNow }})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		openQRByID(t, m, id)
		screen := ansi.Strip(m.View())
		for _, l := range strings.Split(screen, "\n") {
			if strings.HasSuffix(strings.TrimRight(l, " "), "…") || ansi.StringWidth(l) > 80 {
				t.Fatalf("%s: a cut line %q:\n%s", lang, l, screen)
			}
		}
		if flat := strings.Join(strings.Fields(screen), " "); !strings.Contains(flat, reason) {
			t.Fatalf("%s: the reason is not whole on screen:\n%s", lang, screen)
		}
	}
}
