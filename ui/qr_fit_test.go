package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"rsc.io/qr/coding"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/qr"
)

// randomDescription is a description a merchant might type: 1 to api.MaxDescription
// characters of Portuguese words, accents, digits and punctuation.
func randomDescription(rng *rand.Rand) string {
	words := []string{"Venda", "Coxinha", "Pão de queijo", "café", "Encomenda", "nº", "42", "bolo de chocolate",
		"ÁÉÍÓÚ çãõ", "pedido #1234", "(retirar sábado)", "R$", "2 kg", "—", "entrega", "mesa 7", "x"}
	var b strings.Builder
	n := 1 + rng.IntN(api.MaxDescription)
	if rng.IntN(3) == 0 {
		n = 1 + rng.IntN(20) // most are short
	}
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return truncateRunes(b.String(), n)
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return strings.TrimSpace(string(r))
}

// randomAmount is a usual counter amount: the smallest charge (api.MinChargeAmount) to
// R$ 99.999,99, most of them small.
func randomAmount(rng *rand.Rand) api.Money {
	upTo := []int{1_000, 100_000, 1_000_000, 10_000_000}[rng.IntN(4)] // R$ 10, 1.000, 10.000, 100.000
	return api.MinChargeAmount + api.Money(rng.IntN(upTo-int(api.MinChargeAmount)))
}

// Issue 21 #7 and #8: on a default 80x24 terminal every usual charge shows its QR, whatever its
// description and amount and the code's random key and txid: 500 charges made on the emulator,
// each drawn at 80x24 the whole height and read back to the charge's code.
func TestQRUsualChargesFit80x24(t *testing.T) {
	if testing.Short() {
		t.Skip("500 charges")
	}
	s, _ := demo(t, DemoOptions{})
	m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: common.MinWidth, Height: common.MinHeight})
	rng := rand.New(rand.NewPCG(21, 8))
	const charges = 500
	var lengths = map[int]int{}
	for i := range charges {
		req := api.CreatePixRequest{Amount: randomAmount(rng), Description: randomDescription(rng)}
		key := api.NewIdempotencyKey()
		pix, err := s.Client.CreatePix(context.Background(), &req, api.WithIdempotencyKey(key))
		if err != nil {
			t.Fatalf("charge %d (%q): %v", i, req.Description, err)
		}
		ch, err := s.Store.UpsertCharge(context.Background(), state.ChargeFromPix(pix, &req, api.WalletPrincipal, key))
		if err != nil {
			t.Fatal(err)
		}
		lengths[len(ch.PixCopyPaste)]++
		m.openQR(ch)
		screen := ansi.Strip(m.View())
		lines := qrFromScreen(screen)
		if lines == nil {
			_, v, _ := qr.Matrix(ch.PixCopyPaste, coding.L)
			t.Fatalf("charge %d (%s, description %q): no QR at 80x24 for a %d-character code (version %d):\n%s",
				i, req.Amount.BRL(), req.Description, len(ch.PixCopyPaste), v, screen)
		}
		if got := decodeQRLines(t, lines); got != ch.PixCopyPaste {
			t.Fatalf("charge %d: the QR reads %q, want %q", i, got, ch.PixCopyPaste)
		}
		if !strings.Contains(screen, "Pague com PIX") || !strings.Contains(screen, "Expira em") {
			t.Fatalf("charge %d: the amount and countdown are not beside the QR:\n%s", i, screen)
		}
	}
	t.Logf("%d charges, code lengths %v", charges, lengths)
}

// The service's code shape (GUI and 36-character key only) fits 24 rows for the longest
// merchant name and city a code holds, whatever the key, txid and usual amount.
func TestQRServiceShapeFits24Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 6))
	hex := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0123456789abcdef"[rng.IntN(16)])
		}
		return b.String()
	}
	for i := range 500 {
		key := hex(8) + "-" + hex(4) + "-4" + hex(3) + "-" + "89ab"[rng.IntN(4):][:1] + hex(3) + "-" + hex(12)
		code, err := api.EncodeBRCode(api.BRCodeParams{PixKey: key, MerchantName: strings.Repeat("M", api.BRCodeMaxMerchantName),
			MerchantCity: strings.Repeat("C", api.BRCodeMaxMerchantCity), TxID: hex(api.BRCodeMaxTxID), Amount: randomAmount(rng)})
		if err != nil {
			t.Fatal(err)
		}
		if r := qr.RenderQR(code, common.MinWidth-qr.QrColumnMin-qr.QrColumnGap, common.MinHeight); !r.Fits {
			t.Fatalf("code %d (%d characters, version %d) needs %dx%d beside the column at 80x24: %s", i, len(code), r.Version, r.NeedW, r.NeedH, code)
		}
	}
}

// Issue 21 #7: when the QR needs the whole height and leaves no room for the column beside it,
// it keeps one line under it for the amount (the customer sees what they pay), whenever that
// line fits; only a terminal one row shorter shows the QR alone.
func TestQRAloneKeepsTheAmountLine(t *testing.T) {
	// A code a version larger than the column leaves room for: the service's shape plus an
	// unreserved template (80) of the merchant's, as some PSPs add.
	base, err := api.EncodeBRCode(api.BRCodeParams{
		PixKey: "a319c031-a546-4765-9353-1359b7156cb0", MerchantName: "PADARIA PAO QUENTE LTDA",
		MerchantCity: "SAO PAULO", TxID: "53fe702801d845b7917b99434", Amount: 1234,
	})
	if err != nil {
		t.Fatal(err)
	}
	extra := "0015br.com.exemplo0166loja.exemplo.com.br/pedidos/2026/encomendas/bolo-chocolate-morango"
	body := base[:len(base)-len("6304ABCD")] + fmt.Sprintf("80%02d%s", len(extra), extra) + "6304"
	long := body + fmt.Sprintf("%04X", api.CRC16([]byte(body)))
	if _, err := api.ParseBRCode(long); err != nil {
		t.Fatal(err)
	}
	const id = "3f6c1a2e-0000-4000-8000-0000000000ee"
	s := goldenSession(t, api.Sandbox)
	trackCode(t, s, id, long, 1234)
	code := qr.NewQRCode(long)
	checked := 0
	for h := common.MinHeight; h < 60; h++ {
		if code.Render(common.MinWidth-qr.QrColumnMin-qr.QrColumnGap, h).Fits || !code.Render(common.MinWidth, h-1).Fits {
			continue // the column fits beside the QR, or the QR needs every row
		}
		screen := ansi.Strip(qrModel(t, s, id, common.LangEN, common.MinWidth, h).View())
		lines := qrFromScreen(screen)
		if lines == nil || decodeQRLines(t, lines) != long {
			t.Fatalf("80x%d: no readable QR:\n%s", h, screen)
		}
		if !strings.Contains(screen, "R$ 12,34") || !strings.Contains(screen, "Pague com PIX") {
			t.Fatalf("80x%d: the QR leaves a row but the amount is not on it:\n%s", h, screen)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no terminal height exercises the layout")
	}
}
