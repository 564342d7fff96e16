package ui

import (
	"image"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/ui/common"
)

// Issue 21 #9: under NO_COLOR the screen has only the terminal's two colours, its ink
// (foreground) and its paper (background); which of them is light depends on the theme.

// termModel is a terminal theme: the grey levels of its ink and its paper.
type termModel struct {
	name    string
	dark    bool // the background is dark
	ink, bg uint8
}

var termModels = []termModel{{"dark terminal", true, 0xE0, 0x1E}, {"light terminal", false, 0x20, 0xFA}}

// Screen pixels per terminal cell: a usual cell is twice as tall as wide, so a half block is square.
const cellW, cellH = 8, 16

// screenImage paints a screen (text without escapes) as the terminal shows it: block glyphs
// inked over their halves, any other character a speckle of ink (text), spaces the paper. A
// margin of paper surrounds the screen (the terminal window's padding).
func screenImage(screen string, tm termModel, margin int) *image.Gray {
	lines := strings.Split(screen, "\n")
	cols := 0
	for _, l := range lines {
		cols = max(cols, len([]rune(l)))
	}
	img := image.NewGray(image.Rect(0, 0, cols*cellW+2*margin, len(lines)*cellH+2*margin))
	for i := range img.Pix {
		img.Pix[i] = tm.bg
	}
	ink := func(x0, y0, x1, y1 int, every func(x, y int) bool) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if every == nil || every(x, y) {
					img.Pix[(margin+y)*img.Stride+margin+x] = tm.ink
				}
			}
		}
	}
	for row, l := range lines {
		for col, r := range []rune(l) {
			x, y := col*cellW, row*cellH
			switch r {
			case ' ':
			case '█':
				ink(x, y, x+cellW, y+cellH, nil)
			case '▀':
				ink(x, y, x+cellW, y+cellH/2, nil)
			case '▄':
				ink(x, y+cellH/2, x+cellW, y+cellH, nil)
			default: // a letter: strokes in the middle of the cell
				ink(x+1, y+3, x+cellW-1, y+cellH-3, func(px, py int) bool { return (px*7+py*3+int(r))%3 == 0 })
			}
		}
	}
	return img
}

// readScreenQR decodes the QR a camera sees on the image: no hint that the picture is only a
// code, no inversion tried (a dark-on-light code is what bank apps read).
func readScreenQR(img image.Image) (string, []gozxing.ResultPoint, error) {
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", nil, err
	}
	res, err := gzqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		return "", nil, err
	}
	return res.GetText(), res.GetResultPoints(), nil
}

func TestQRNoColorIsDarkOnLightOnAnyTerminal(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii) // NO_COLOR
	code := counterCodes(t)["static"]
	const id = "3f6c1a2e-0000-4000-8000-0000000000cc"
	for _, tm := range termModels {
		for _, size := range goldenSizes {
			s := goldenSession(t, api.Sandbox)
			trackCode(t, s, id, code, 1234)
			m := New(Options{Session: s, Lang: common.LangEN, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, DarkBackground: tm.dark})
			send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			openQRByID(t, m, id)
			view := m.View()
			if strings.Contains(view, "\x1b[3") || strings.Contains(view, "\x1b[4") || strings.Contains(view, "\x1b[9") {
				t.Fatalf("%s %dx%d: a colour escape under NO_COLOR: %q", tm.name, size[0], size[1], view)
			}
			img := screenImage(ansi.Strip(view), tm, 2*cellW)
			text, points, err := readScreenQR(img)
			if err != nil || text != code {
				t.Fatalf("%s %dx%d: the screen's QR reads %q, %v (want the charge's code)\n%s", tm.name, size[0], size[1], text, err, ansi.Strip(view))
			}
			// The finder patterns' centres are dark and the quiet zone beside the top-left one
			// (4 modules out: the finder is 7 modules, 3.5 from its centre to its edge) is light.
			module := cellW // a module is a cell wide, half a cell tall
			for i, p := range points[:3] {
				x, y := int(p.GetX()), int(p.GetY())
				if img.GrayAt(x, y).Y > 0x80 {
					t.Errorf("%s %dx%d: finder %d's centre is light", tm.name, size[0], size[1], i)
				}
			}
			tl := points[1] // zxing orders bottom-left, top-left, top-right
			x, y := int(tl.GetX()), int(tl.GetY())
			if img.GrayAt(x-4*module, y).Y < 0x80 || img.GrayAt(x, y-4*module).Y < 0x80 {
				t.Errorf("%s %dx%d: the quiet zone beside the top-left finder is dark", tm.name, size[0], size[1])
			}
		}
	}
}

// ownReverse is a selected row as the dashboard draws it without colours: reverse video around
// text with no escape in it.
var ownReverse = regexp.MustCompile(regexp.QuoteMeta(common.SgrReverse) + "([^\x1b]*)" + regexp.QuoteMeta(common.SgrNoReverse))

// withoutSelection removes the dashboard's own reverse video from a frame (the selected row
// under NO_COLOR), so a check for escapes from outside sees only those.
func withoutSelection(frame string) string { return ownReverse.ReplaceAllString(frame, "$1") }

// The selected row of every list stays visible without colours: reverse video (not a colour).
func TestSelectionVisibleWithoutColor(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii) // NO_COLOR
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 80, 24)
	view := m.View()
	// The active tab is reversed too (TestActiveTabVisibleWithoutColor); the list has one row.
	if n := strings.Count(view, common.SgrReverse); n != 2 || !strings.Contains(view, common.SgrReverse+"1 Charges"+common.SgrNoReverse) {
		t.Fatalf("the charges list has %d reversed rows, want 1 (and the active tab):\n%q", n-1, view)
	}
	view = strings.Replace(view, common.SgrReverse+"1 Charges"+common.SgrNoReverse, "1 Charges", 1)
	i := strings.Index(view, common.SgrReverse)
	row := view[i+len(common.SgrReverse) : i+strings.Index(view[i:], common.SgrNoReverse)]
	if !strings.Contains(row, "Café e pão de queijo") {
		t.Fatalf("the reversed row is %q, want the first charge", row)
	}
	p := common.NewPicker(m.c, "Switch wallet", []common.PickerItem{{Label: "principal", Value: "principal"}, {Label: "loja-b", Value: "loja-b"}}, nil)
	p.Width, p.Height = 80, 24
	p.Update(tea.KeyMsg{Type: tea.KeyDown})
	pv := p.View()
	if strings.Count(pv, common.SgrReverse) != 1 || !strings.Contains(pv, common.SgrReverse+"  loja-b") {
		t.Fatalf("the picker's selected row is not reversed:\n%q", pv)
	}
	// With colours the Selected style draws it (no reverse video).
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	if strings.Contains(m.View(), common.SgrReverse) {
		t.Fatal("reverse video with colours")
	}
}
