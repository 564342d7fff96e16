package ui

import (
	"image"
	"pixdash/ui/qr"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
	"rsc.io/qr/coding"
)

// decodeQRLines turns rendered half-block lines back into an image and decodes it. Two
// pixels a module and the standard's quiet zone of four modules are all the decoder needs (a
// pure barcode): an image of 6 a module took most of the time of the tests that decode a QR
// for each of hundreds of charges under -race.
func decodeQRLines(t *testing.T, lines []string) string {
	t.Helper()
	grid := qr.Modules(lines)
	const scale, border = 2, 4
	w := len(grid[0])
	img := image.NewGray(image.Rect(0, 0, (w+2*border)*scale, (len(grid)+2*border)*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y, row := range grid {
		for x, dark := range row {
			if !dark {
				continue
			}
			for dy := range scale {
				at := img.PixOffset((x+border)*scale, (y+border)*scale+dy)
				clear(img.Pix[at : at+scale]) // black
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gzqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_PURE_BARCODE: true})
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, strings.Join(lines, "\n"))
	}
	return res.GetText()
}

const sampleBRCode = "00020101021226850014br.gov.bcb.pix2563pix.sandbox.pixdash.local/qr/v2/cobv/9d36b84fc70b478fb95c12729b90ca255204000053039865406123.455802BR5913PIXDASH DEMO6009SAO PAULO62070503***6304ABCD"

func TestRenderQRDecodes(t *testing.T) {
	for _, tc := range []struct{ w, h int }{{200, 100}, {120, 40}, {70, 30}, {60, 26}} {
		r := qr.RenderQR(sampleBRCode, tc.w, tc.h)
		if !r.Fits {
			continue
		}
		if r.Width > tc.w || r.Height > tc.h {
			t.Fatalf("%dx%d: rendered %dx%d does not fit", tc.w, tc.h, r.Width, r.Height)
		}
		if got := decodeQRLines(t, r.Lines); got != sampleBRCode {
			t.Fatalf("%dx%d: decoded %q", tc.w, tc.h, got)
		}
	}
}

func TestRenderQRStepsDownThenRefuses(t *testing.T) {
	big := qr.RenderQR(sampleBRCode, 500, 500)
	if !big.Fits || !big.QuietOK {
		t.Fatalf("roomy window should fit with a full quiet zone: %+v", big.Fits)
	}
	small := qr.RenderQR(sampleBRCode, big.Width-1, big.Height-1)
	if small.Fits && small.Width >= big.Width {
		t.Fatalf("step-down did not shrink: %d >= %d", small.Width, big.Width)
	}
	none := qr.RenderQR(sampleBRCode, 20, 10)
	if none.Fits {
		t.Fatal("20x10 cannot hold a BR Code QR")
	}
	if none.NeedW <= 20 || none.NeedH <= 10 {
		t.Fatalf("needed size %dx%d must exceed the window", none.NeedW, none.NeedH)
	}
}

func TestQRHasNoDarkBorderRows(t *testing.T) {
	r := qr.RenderQR(sampleBRCode, 500, 500)
	first, last := r.Lines[0], r.Lines[len(r.Lines)-1]
	if strings.Trim(first, " ") != "" || strings.Trim(last, " ") != "" {
		t.Fatalf("quiet zone rows must be light:\n%q\n%q", first, last)
	}
}

// qrterminal draws the code whenever its encoding fits; the compact one steps in only when it
// does not (a default 80x24 terminal).
func TestQRUsesQrterminalWhenItFits(t *testing.T) {
	code := goldenCode(t, 1234)
	c := qr.NewQRCode(code)
	big := c.Render(116, 36)
	std, ok := qr.QrterminalMatrix(code, big.Level)
	if !big.Fits || !ok {
		t.Fatalf("fits %v, qrterminal %v", big.Fits, ok)
	}
	if got := qr.Modules(big.Lines); !sameModules(got, std, len(big.Lines[0])) {
		t.Fatal("at 116x36 the drawn code is not qrterminal's")
	}
	if c.Compact[coding.L].V >= c.Std[coding.L].V {
		t.Skipf("this code is no smaller in compact form (v%d); nothing to compare", c.Compact[coding.L].V)
	}
	small := c.Render(len(c.Compact[coding.L].M)+2, (len(c.Compact[coding.L].M)+3)/2)
	if !small.Fits || small.Version != c.Compact[coding.L].V {
		t.Fatalf("in the compact code's room: fits %v, version %d, want the compact v%d", small.Fits, small.Version, c.Compact[coding.L].V)
	}
}

// sameModules reports whether the drawn modules (quiet zone included) hold m at their centre.
func sameModules(drawn, m [][]bool, width int) bool {
	q := (width - len(m)) / 2
	for y := range m {
		for x := range m[y] {
			if y+q >= len(drawn) || x+q >= len(drawn[y+q]) || drawn[y+q][x+q] != m[y][x] {
				return false
			}
		}
	}
	return true
}
