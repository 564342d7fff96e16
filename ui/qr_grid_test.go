package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"rsc.io/qr/coding"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/qr"
)

// Issue 14 #19: a default 80x24 terminal shows a scannable QR whenever the code fits one.

// counterCodes are fixed BR Codes of the lengths a counter sees: a dynamic code (a URL) and a
// static one with a key and a txid in the service's shape, as the sandbox emulator writes them
// (field 26 holds only the GUI and the key).
func counterCodes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{"dynamic": goldenCode(t, 1234)}
	static, err := api.EncodeBRCode(api.BRCodeParams{
		PixKey: "a319c031-a546-4765-9353-1359b7156cb0", MerchantName: "PADARIA PAO QUENTE LTDA",
		MerchantCity: "SAO PAULO", TxID: "53fe702801d845b7917b99434", Amount: 1234,
	})
	if err != nil {
		t.Fatal(err)
	}
	out["static"] = static
	return out
}

// trackCode tracks a pending charge of amount with code in the golden store.
func trackCode(t testing.TB, s *Session, id, code string, amount api.Money) {
	t.Helper()
	ch := state.Charge{ID: id, Amount: amount, Description: "Cafezinho", Status: api.StatusPending,
		CreatedAt: goldenNow.Add(-time.Minute), UpdatedAt: goldenNow.Add(-time.Minute), ExpiresAt: goldenNow.Add(10 * time.Minute),
		PixCopyPaste: code, Wallet: api.WalletPrincipal}
	if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
}

// innerMatrix cuts the code out of a module grid read off the screen: from the first dark
// module (the top-left finder's corner), n modules a side.
func innerMatrix(grid [][]bool, n int) ([][]bool, error) {
	top, left := -1, -1
	for y, row := range grid {
		for x, dark := range row {
			if dark && (top < 0 || y < top) {
				top = y
			}
			if dark && (left < 0 || x < left) {
				left = x
			}
		}
	}
	if top < 0 || top+n > len(grid) {
		return nil, fmt.Errorf("no %d-module code in a %d-row grid (first dark row %d)", n, len(grid), top)
	}
	out := make([][]bool, n)
	for y := range out {
		if left+n > len(grid[top+y]) {
			return nil, fmt.Errorf("row %d is %d modules wide, want %d from %d", top+y, len(grid[top+y]), n, left)
		}
		out[y] = grid[top+y][left : left+n]
	}
	return out, nil
}

func TestQRAt80x24ReadsBack(t *testing.T) {
	for name, code := range counterCodes(t) {
		for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
			t.Run(name+"_"+string(lang), func(t *testing.T) {
				s := goldenSession(t, api.Sandbox)
				trackCode(t, s, "3f6c1a2e-0000-4000-8000-0000000000cc", code, 1234)
				m := qrModel(t, s, "3f6c1a2e-0000-4000-8000-0000000000cc", lang, 80, 24)
				screen := ansi.Strip(m.View())
				if n := len(strings.Split(screen, "\n")); n != 24 {
					t.Fatalf("the screen has %d lines", n)
				}
				lines := qrFromScreen(screen)
				if lines == nil {
					t.Fatalf("no QR at 80x24 for a %d-character code:\n%s", len(code), screen)
				}
				// The modules on screen are the code's, module for module.
				want, v, ok := qr.Matrix(code, coding.L)
				if !ok {
					t.Fatal("the code does not encode")
				}
				got, err := innerMatrix(qr.Modules(lines), len(want))
				if err != nil {
					t.Fatalf("version %d: %v\n%s", v, err, screen)
				}
				for y := range want {
					for x := range want {
						if got[y][x] != want[y][x] {
							t.Fatalf("module (%d,%d) differs from the encoded matrix\n%s", x, y, screen)
						}
					}
				}
				// And a reader gets the code back.
				if text := decodeQRLines(t, lines); text != code {
					t.Fatalf("decodes to %q, want %q", text, code)
				}
				// The customer still sees the amount and the countdown beside it, the
				// merchant the environment and the keys.
				for _, want := range []string{"SANDBOX", "Pague com PIX", "Expira em", "esc"} {
					if !strings.Contains(screen, want) {
						t.Errorf("the 80x24 screen lacks %q:\n%s", want, screen)
					}
				}
			})
		}
	}
}

// The encoder cuts a code into numeric, alphanumeric and byte segments; every mix reads back,
// at every level renderQR uses.
func TestQRMatrixSegmentsReadBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 19))
	pools := []string{"0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:", "abcdefghijklmnopqrstuvwxyz-.@_"}
	for i := range 60 {
		var b strings.Builder
		for b.Len() < 20+rng.IntN(180) {
			pool := pools[rng.IntN(len(pools))]
			runes := []rune(pool)
			for range 1 + rng.IntN(25) {
				b.WriteRune(runes[rng.IntN(len(runes))])
			}
		}
		text := b.String()
		for _, level := range []coding.Level{coding.L, coding.M} {
			m, _, ok := qr.Matrix(text, level)
			if !ok {
				t.Fatalf("%d: %q does not encode", i, text)
			}
			if got := decodeQRLines(t, qr.HalfBlocks(m, 2)); got != text {
				t.Fatalf("%d level %v: %q decodes to %q", i, level, text, got)
			}
		}
	}
}

// Mixed segments make the sandbox's codes one version smaller than byte mode alone.
func TestQRMatrixIsSmallerThanByteMode(t *testing.T) {
	for name, code := range counterCodes(t) {
		_, v, _ := qr.Matrix(code, coding.L)
		byteOnly := coding.Version(coding.MinVersion)
		for coding.String(code).Bits(byteOnly) > byteOnly.DataBytes(coding.L)*8 {
			byteOnly++
		}
		if v >= byteOnly {
			t.Errorf("%s: version %d, byte mode alone needs %d", name, v, byteOnly)
		}
		if v > 7 {
			t.Errorf("%s: version %d does not fit 24 rows (at most 7)", name, v)
		}
	}
}
