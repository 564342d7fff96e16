package ui

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
	"rsc.io/qr/coding"
)

// decodeQRLines turns rendered half-block lines back into an image and decodes it.
func decodeQRLines(t *testing.T, lines []string) string {
	t.Helper()
	grid := qrModules(lines)
	const scale, border = 6, 8
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
			for dy := 0; dy < scale; dy++ {
				for dx := 0; dx < scale; dx++ {
					img.SetGray((x+border)*scale+dx, (y+border)*scale+dy, color.Gray{Y: 0})
				}
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
		r := renderQR(sampleBRCode, tc.w, tc.h)
		if !r.fits {
			continue
		}
		if r.width > tc.w || r.height > tc.h {
			t.Fatalf("%dx%d: rendered %dx%d does not fit", tc.w, tc.h, r.width, r.height)
		}
		if got := decodeQRLines(t, r.lines); got != sampleBRCode {
			t.Fatalf("%dx%d: decoded %q", tc.w, tc.h, got)
		}
	}
}

func TestRenderQRStepsDownThenRefuses(t *testing.T) {
	big := renderQR(sampleBRCode, 500, 500)
	if !big.fits || !big.quietOK {
		t.Fatalf("roomy window should fit with a full quiet zone: %+v", big.fits)
	}
	small := renderQR(sampleBRCode, big.width-1, big.height-1)
	if small.fits && small.width >= big.width {
		t.Fatalf("step-down did not shrink: %d >= %d", small.width, big.width)
	}
	none := renderQR(sampleBRCode, 20, 10)
	if none.fits {
		t.Fatal("20x10 cannot hold a BR Code QR")
	}
	if none.needW <= 20 || none.needH <= 10 {
		t.Fatalf("needed size %dx%d must exceed the window", none.needW, none.needH)
	}
}

func TestQRHasNoDarkBorderRows(t *testing.T) {
	r := renderQR(sampleBRCode, 500, 500)
	first, last := r.lines[0], r.lines[len(r.lines)-1]
	if strings.Trim(first, " ") != "" || strings.Trim(last, " ") != "" {
		t.Fatalf("quiet zone rows must be light:\n%q\n%q", first, last)
	}
}

// qrterminal draws the code whenever its encoding fits; the compact one steps in only when it
// does not (a default 80x24 terminal).
func TestQRUsesQrterminalWhenItFits(t *testing.T) {
	code := goldenCode(t, 1234)
	c := newQRCode(code)
	big := c.render(116, 36)
	std, ok := qrterminalMatrix(code, big.level)
	if !big.fits || !ok {
		t.Fatalf("fits %v, qrterminal %v", big.fits, ok)
	}
	if got := qrModules(big.lines); !sameModules(got, std, len(big.lines[0])) {
		t.Fatal("at 116x36 the drawn code is not qrterminal's")
	}
	if c.compact[coding.L].v >= c.std[coding.L].v {
		t.Skipf("this code is no smaller in compact form (v%d); nothing to compare", c.compact[coding.L].v)
	}
	small := c.render(len(c.compact[coding.L].m)+2, (len(c.compact[coding.L].m)+3)/2)
	if !small.fits || small.version != c.compact[coding.L].v {
		t.Fatalf("in the compact code's room: fits %v, version %d, want the compact v%d", small.fits, small.version, c.compact[coding.L].v)
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
