package ui

import (
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"rsc.io/qr/coding"

	"pixdash/api"
	"pixdash/ui/common"
	"pixdash/ui/qr"
)

// Issue 21 #10: how small a quiet zone phone-like readers accept. The standard asks for 4
// modules; a full-height QR at 80x24 has room for 1 above it (and 2 below: the last half row).
// Measured here with gozxing and, when installed, zbarimg, on pictures of the screen at a usual
// cell (8x16 pixels, so a module is 8x8) with light sensor noise, in the worst surroundings: a
// dark terminal, where the light quiet zone is all that parts the code from the dark around
// it, and text two cells to the right. A light terminal's paper is itself a quiet zone.
//
// Measured (4 fixed codes of the service's shape, version 7, level L):
//
//	quiet zone   dark terminal: gozxing  zbarimg   light terminal: gozxing  zbarimg
//	0 modules                   0/4      0/4                       4/4      4/4
//	1 module                    4/4      4/4                       4/4      4/4
//	2–4 modules                 4/4      4/4                       4/4      4/4
//
// (A wider run of 30 random codes: 0 modules read 0/30 with gozxing and 3/30 with zbarimg on a
// dark terminal, 1 module 30/30 with both.) So 1 module is the smallest that scans; the
// renderer steps down to 1 and never to 0 (qrAttempts), and keeps 4 at the sides whenever the
// width allows.
func TestQRQuietZoneMeasured(t *testing.T) {
	codes := quietTestCodes(t, 4)
	zbar, _ := exec.LookPath("zbarimg")
	if zbar == "" {
		t.Log("zbarimg not installed (apt-get install zbar-tools): measuring with gozxing only")
	}
	dir := t.TempDir()
	for _, tm := range termModels {
		for quiet := 0; quiet <= 4; quiet++ {
			goOK, zbarOK := 0, 0
			for i, code := range codes {
				m, v, ok := qr.Matrix(code, coding.L)
				if !ok || v != 7 {
					t.Fatalf("code %d: version %d", i, v)
				}
				img := quietPicture(m, quiet, tm, uint64(i))
				if text, _, err := readScreenQR(img); err == nil && text == code {
					goOK++
				}
				if zbar != "" && zbarRead(t, zbar, img, filepath.Join(dir, fmt.Sprintf("q%d-%d.png", quiet, i))) == code {
					zbarOK++
				}
			}
			t.Logf("%s, quiet zone %d: gozxing %d/%d, zbarimg %d/%d", tm.name, quiet, goOK, len(codes), zbarOK, len(codes))
			switch {
			case quiet >= qr.QrAttempts[len(qr.QrAttempts)-1].Quiet:
				if goOK != len(codes) || zbar != "" && zbarOK != len(codes) {
					t.Errorf("%s: a quiet zone of %d modules (the renderer's smallest) does not always scan", tm.name, quiet)
				}
			case tm.dark && goOK == len(codes):
				t.Errorf("%s: a quiet zone of %d modules scans: the renderer could step down further", tm.name, quiet)
			}
		}
	}
}

// quietTestCodes are fixed codes of the service's shape (the same every run: a reader's finder
// may miss a few percent of clean codes, so the measurement must not draw new ones).
func quietTestCodes(t *testing.T, n int) []string {
	rng := rand.New(rand.NewPCG(21, 10))
	hex := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0123456789abcdef"[rng.IntN(16)])
		}
		return b.String()
	}
	var out []string
	for range n {
		code, err := api.EncodeBRCode(api.BRCodeParams{PixKey: hex(8) + "-" + hex(4) + "-4" + hex(3) + "-a" + hex(3) + "-" + hex(12),
			MerchantName: "PADARIA PAO QUENTE LTDA", MerchantCity: "SAO PAULO", TxID: hex(25), Amount: api.Money(100 + rng.IntN(100_000))})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, code)
	}
	return out
}

// quietPicture is the screen of a full-height QR with quiet modules of quiet zone as the
// terminal shows it without colours (light modules in ink on a dark terminal), text two cells
// to its right, one cell of the terminal's paper around, and light noise.
func quietPicture(m [][]bool, quiet int, tm termModel, seed uint64) *image.Gray {
	lines := qr.HalfBlocks(m, quiet)
	if tm.dark {
		lines = qr.Inverted(lines)
	}
	text := []string{"SANDBOX", "", "Pague com PIX", "R$ 12,34", "Expira em 9 min", "○ Aguardando pagamento", "", "c copiar código", "esc voltar"}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l + "  ")
		if i < len(text) {
			b.WriteString(text[i])
		}
		b.WriteByte('\n')
	}
	img := screenImage(strings.TrimSuffix(b.String(), "\n"), tm, cellW)
	rng := rand.New(rand.NewPCG(seed, 10))
	for i, p := range img.Pix {
		img.Pix[i] = uint8(max(0, min(255, int(p)+rng.IntN(25)-12)))
	}
	return img
}

// zbarRead decodes a picture with zbarimg ("" when it finds no code).
func zbarRead(t *testing.T, zbar string, img image.Image, path string) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zbar, "-q", "--raw", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}

// At 80x24 the service's code takes the whole height with the measured smallest quiet zone
// above it (1 module; 2 below, the last half row) and the standard's 4 to its left and right,
// where the width has room; the screen, photographed on a dark or a light terminal without
// colours, reads with gozxing and zbarimg.
func TestQRAt80x24QuietZoneAndScans(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii) // NO_COLOR: the quiet zone is ink on a dark terminal, so it shows
	code := counterCodes(t)["static"]
	const id = "3f6c1a2e-0000-4000-8000-0000000000cc"
	zbar, _ := exec.LookPath("zbarimg")
	for _, tm := range termModels {
		s := goldenSession(t, api.Sandbox)
		trackCode(t, s, id, code, 1234)
		m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, DarkBackground: tm.dark})
		send(t, m, tea.WindowSizeMsg{Width: common.MinWidth, Height: common.MinHeight})
		openQRByID(t, m, id)
		screen := ansi.Strip(m.View())
		if tm.dark {
			lines := qrFromScreen(screen) // the inked block: the code and its quiet zone
			grid := qr.Modules(qr.Inverted(lines))
			_, v, _ := qr.Matrix(code, coding.L)
			n := 17 + 4*int(v)
			top, left := -1, -1
			for y, row := range grid {
				for x, dark := range row {
					if dark && top < 0 {
						top = y
					}
					if dark && (left < 0 || x < left) {
						left = x
					}
				}
			}
			right, bottom := len(grid[0])-left-n, len(grid)-top-n
			if top < 1 || bottom < 2 || left < qr.QrQuietSides || right < qr.QrQuietSides || len(lines) != common.MinHeight {
				t.Fatalf("quiet zone above %d, below %d, left %d, right %d modules on %d rows; want 1, 2, %d, %d on %d:\n%s",
					top, bottom, left, right, len(lines), qr.QrQuietSides, qr.QrQuietSides, common.MinHeight, screen)
			}
		}
		img := screenImage(screen, tm, cellW)
		if text, _, err := readScreenQR(img); text != code {
			t.Errorf("%s: gozxing reads %q, %v", tm.name, text, err)
		}
		if zbar != "" {
			if text := zbarRead(t, zbar, img, filepath.Join(t.TempDir(), "screen.png")); text != code {
				t.Errorf("%s: zbarimg reads %q", tm.name, text)
			}
		}
	}
}
