package ui

import (
	"context"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/state"
	"pixdash/ui/common"
)

// shotNow is the fixed clock of every screenshot: the emulator, the client, the store and the UI.
var shotNow = time.Date(2026, 11, 21, 14, 30, 0, 0, time.UTC)

// shotRig is a demo session on a fake clock with seeded ids, so the same input gives the same images.
type shotRig struct {
	t     *testing.T
	clock *sandbox.FakeClock
	sess  *Session
	keyN  int
	lang  common.Lang // the merchant's language of the next scene ("" for English)
}

func newShotRig(t *testing.T, o DemoOptions) *shotRig {
	t.Helper()
	r := &shotRig{t: t, clock: sandbox.NewFakeClock(shotNow)}
	now := r.clock.Now
	o.ServerOptions = append(o.ServerOptions, sandbox.WithClock(r.clock), sandbox.WithRand(20261121))
	o.ClientOptions = append(o.ClientOptions, api.WithClock(now))
	o.StoreOptions = append(o.StoreOptions, state.WithClock(now))
	o.ReceiverOptions = append(o.ReceiverOptions, api.WithReceiverClock(now)) // the emulator dates its deliveries by this clock
	s, _, err := DemoSession(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r.sess = s
	return r
}

// model is a dashboard on the rig's session with the fixed clock and deterministic keys.
func (r *shotRig) model() *Model {
	lang := r.lang
	if lang == "" {
		lang = common.LangEN
	}
	return New(Options{
		Session: r.sess, Lang: lang, CustomerLang: common.LangPT, Location: time.UTC,
		Now:    r.clock.Now,
		NewKey: func() string { r.keyN++; return fmt.Sprintf("pixdash-screenshot-%04d", r.keyN) },
		Bell:   func() {}, Clipboard: func(string) {},
	})
}

// scene runs a fresh dashboard, plays steps, quits and returns the final frame.
func (r *shotRig) scene(w, h int, steps func(f *flow)) string {
	r.t.Helper()
	return r.sceneModel(w, h, steps).View()
}

// sceneLang is scene with the merchant's screens in lang.
func (r *shotRig) sceneLang(w, h int, lang common.Lang, steps func(f *flow)) string {
	r.t.Helper()
	r.lang = lang
	defer func() { r.lang = "" }()
	return r.sceneModel(w, h, steps).View()
}

// sceneModel runs a fresh dashboard, plays steps, quits and returns the final model (to draw
// one frame in both themes).
func (r *shotRig) sceneModel(w, h int, steps func(f *flow)) *Model {
	r.t.Helper()
	r.clock.Advance(time.Minute) // each scene a minute later, so charges keep a clear order
	m := r.model()
	tm := teatest.NewTestModel(r.t, m, teatest.WithInitialTermSize(w, h))
	f := &flow{t: r.t, tm: tm, m: m, out: &screenLog{}}
	f.waitFor(" · ") // the list has read its window ("11 charges · wallet principal")
	if steps != nil {
		steps(f)
	}
	time.Sleep(150 * time.Millisecond) // let in-flight replies land
	if err := tm.Quit(); err != nil {
		r.t.Fatal(err)
	}
	fm := tm.FinalModel(r.t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	fm.eng.Close() // the program ended: its engine stops, the rig's session stays
	return fm
}

// lightFrame draws m as a light terminal shows it. A light terminal's default text is dark;
// freeze's default is light grey, so it is set after every reset.
func lightFrame(m *Model) string {
	lipgloss.SetHasDarkBackground(false)
	defer lipgloss.SetHasDarkBackground(true)
	const darkText = "\x1b[38;2;26;26;26m"
	light := m.View()
	return darkText + strings.ReplaceAll(strings.ReplaceAll(light, "\x1b[0m", "\x1b[0m"+darkText), "\n", "\n"+darkText)
}

// chargeNamed finds the tracked charge with a description (the newest, in any wallet).
func (r *shotRig) chargeNamed(desc string) state.Charge {
	cs := allCharges(r.t, r.sess.Store, state.ChargeQuery{})
	for _, ch := range cs {
		if ch.Description == desc {
			return ch
		}
	}
	var have []string
	for _, ch := range cs {
		have = append(have, ch.Description)
	}
	r.t.Fatalf("no charge %q among %q", desc, have)
	return state.Charge{}
}

// TestScreenshots writes the README's screenshots as ANSI files when PIXDASH_SCREENSHOTS names a
// directory; `make screenshots` turns them into PNGs with freeze.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("PIXDASH_SCREENSHOTS")
	if dir == "" {
		t.Skip("set PIXDASH_SCREENSHOTS=DIR (make screenshots) to render the screenshots")
	}
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	write := func(name, view string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name+".ansi"), []byte(view), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := newShotRig(t, DemoOptions{})
	const w, h = 120, 40

	write("01-charges", r.scene(w, h, nil))
	write("02-new-charge-split", r.scene(w, h, func(f *flow) {
		f.keys("n")
		f.waitFor("New charge")
		f.keys("20,00", "tab", "Bolo de aniversário")
		f.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlP})
		f.waitFor("Split")
		f.keys("loja-centro", "tab", "12,00")
		f.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlN})
		f.keys("loja-praia", "tab", "8,00")
		f.waitFor("exceeds the net")
	}))
	var qr state.Charge
	// The light screenshot is the same frame as the dark one (same clock, same countdown).
	qrShot := r.sceneModel(w, h, func(f *flow) {
		f.newCharge("12,34", "Café e pão de queijo")
		f.waitFor("Pague com PIX")
	})
	dark, light := qrShot.View(), lightFrame(qrShot)
	if ansi.Strip(dark) != ansi.Strip(light) {
		t.Fatalf("the light QR screenshot reads differently from the dark one:\n%s\n---\n%s", ansi.Strip(dark), ansi.Strip(light))
	}
	write("03-qr", dark)
	write("03-qr-light", light)
	if ch := r.chargeNamed("Café e pão de queijo"); ch.ID != "" {
		qr = ch
		if err := os.WriteFile(filepath.Join(dir, "qr.code.txt"), []byte(ch.PixCopyPaste), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	qrScene := func(f *flow) {
		f.tm.Send(common.OpenChargeMsg{Charge: qr}) // as enter on its row does
		f.waitFor("Pague com PIX")
	}
	write("04-paid", r.scene(w, h, func(f *flow) {
		qrScene(f)
		f.keys("$")
		f.waitFor("PAGO")
	}))
	write("05-inspector-blocked", r.scene(w, h, func(f *flow) {
		f.newCharge("250,00", "Encomenda de festa")
		f.waitFor("Pague com PIX")
		f.keys("%")
		f.waitFor("FALHOU")
		r.clock.Advance(10 * time.Second) // the emulator settles the refund to the payer
		f.keys("esc")
		ch := r.chargeNamed("Encomenda de festa")
		f.tm.Send(common.InspectMsg{Query: ch.ID, Wallet: ch.Wallet})
		f.waitFor("cnpj_payer_not_allowed")
	}))
	write("06-wallets", r.scene(w, h, func(f *flow) {
		f.keys("3")
		f.waitFor("loja-centro", "R$")
	}))
	write("07-blocks", r.scene(w, h, func(f *flow) {
		f.keys("4")
		f.waitFor("awaiting")
	}))
	write("08-events-payload", r.scene(w, h, func(f *flow) {
		f.keys("5")
		f.waitFor("payment received")
		f.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		f.waitFor("eventId")
	}))
	write("09-help", r.scene(w, h, func(f *flow) { f.keys("?"); f.waitFor("Keys") }))
	write("12-sales", r.scene(w, h, func(f *flow) {
		f.keys("6")
		f.waitFor("Received")
		f.keys("a")
		f.waitFor("all wallets", "WALLET")
	}))
	write("13-sales-80x24-pt", r.sceneLang(80, 24, common.LangPT, func(f *flow) {
		f.keys("6")
		f.waitFor("Recebido")
	}))
	write("14-refund-confirm", r.scene(w, h, func(f *flow) {
		f.newCharge("45,00", "Torta de frango")
		f.waitFor("Pague com PIX")
		f.keys("$")
		f.waitFor("PAGO")
		f.keys("esc")
		f.waitFor("Torta de frango")
		f.keys("g", "R")
		f.waitFor("Refund a charge")
		f.keys("tab", "cliente desistiu", "ctrl+s")
		f.waitFor("Refund R$ 45,00 of charge Torta de frango")
	}))
	write("15-withdrawal-form", r.scene(w, h, func(f *flow) {
		f.keys("3")
		f.waitFor("loja-centro", "available") // in colour, labels and figures are separate spans
		f.keys("s")
		f.waitFor("Withdraw to a bank", "spendable")
		f.keys("maria@example.com", "tab", "Maria da Silva", "tab", "52998224725", "tab", "tab", "150,00")
		f.waitFor("150,00")
	}))
	write("16-close", r.scene(w, h, func(f *flow) {
		f.keys("6", "a", "C")
		f.waitFor("DAY CLOSE")
		f.keys("t")                        // the 48-column receipt: only the lines that changed are printed again,
		time.Sleep(300 * time.Millisecond) // so there is no new text to wait for
	}))

	// A default 80x24 terminal: the QR the whole height, the amount and the keys beside it.
	write("11-qr-80x24", r.scene(80, 24, func(f *flow) {
		f.newCharge("12,34", "Café")
		f.waitFor("Pague com PIX")
	}))
	if err := os.WriteFile(filepath.Join(dir, "qr-80x24.code.txt"), []byte(r.chargeNamed("Café").PixCopyPaste), 0o644); err != nil {
		t.Fatal(err)
	}

	// Money that went back: a charge refunded at the service (not from pixdash), one whose MED
	// block was approved (returned to the payer) and one whose block is still open, each read
	// back from the service before the list shows it.
	ctx := context.Background()
	ctl := sandbox.NewControl(r.sess.Client)
	paid := func(f *flow, amount, desc string) state.Charge {
		t.Helper()
		f.newCharge(amount, desc)
		f.waitFor("Pague com PIX")
		f.keys("$")
		f.waitFor("PAGO")
		f.keys("esc")
		f.waitFor(desc)
		return r.chargeNamed(desc)
	}
	write("17-charges-refunded-returned", r.scene(w, h, func(f *flow) {
		refunded := paid(f, "35,50", "Bolo de cenoura")
		returned := paid(f, "70,00", "Kit festa infantil")
		blocked := paid(f, "48,00", "Cesta de café")
		if err := ctl.Refund(ctx, refunded.ID, nil); err != nil { // from the service's own panel
			t.Fatal(err)
		}
		b, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: returned.ID, Reason: "Pagador alega golpe"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctl.CreateBlock(ctx, sandbox.BlockRequest{TransactionID: blocked.ID, Reason: "Pagador não reconhece"}); err != nil {
			t.Fatal(err)
		}
		r.clock.Advance(5 * time.Second) // refund_completed and balance_block_created are delivered
		if _, err := ctl.ResolveBlock(ctx, b.ID, api.BlockApproved, "procedente"); err != nil {
			t.Fatal(err)
		}
		r.clock.Advance(5 * time.Second) // balance_block_approved
		f.waitFor("↩ refunded", "−R$ 35,50", "↩ returned", "−R$ 70,00", "! blocked", "held R$ 48,00")
	}))
	write("18-inspector-refunded", r.scene(w, h, func(f *flow) {
		ch := r.chargeNamed("Bolo de cenoura")
		f.tm.Send(common.InspectMsg{Query: ch.ID, Wallet: ch.Wallet})
		f.waitFor("↩ refunded R$ 35,50", "completed at the service", "1 refund of R$ 35,50")
	}))
	write("19-result-refunded", r.scene(w, h, func(f *flow) {
		f.tm.Send(common.OpenChargeMsg{Charge: r.chargeNamed("Bolo de cenoura")}) // as enter on its row does
		f.waitFor("ESTORNADO")
	}))

	// NO_COLOR at 80x24: the states read by their glyphs and words, the selected row in reverse
	// video. freeze does not draw SGR 7, so the image gets it as a dark terminal shows it: its
	// light text colour behind, its dark background as ink (the frame itself is unchanged).
	lipgloss.SetColorProfile(termenv.Ascii)
	noColor := r.scene(80, 24, func(f *flow) {
		time.Sleep(500 * time.Millisecond) // the rows are already in the store: nothing new to wait for
		f.keys("j", "j")
		time.Sleep(100 * time.Millisecond)
	})
	lipgloss.SetColorProfile(termenv.TrueColor)
	if !strings.Contains(noColor, common.SgrReverse) || strings.Count(ansi.Strip(noColor), "refunded") == 0 {
		t.Fatalf("the NO_COLOR list has no reverse-video selection or no refunded row:\n%s", noColor)
	}
	write("20-charges-nocolor-80x24", strings.NewReplacer(common.SgrReverse, "\x1b[38;2;23;23;23;48;2;200;200;200m", common.SgrNoReverse, "\x1b[39;49m").Replace(noColor))

	live := newShotRig(t, DemoOptions{ClientID: "mp_live_demo_full", Secret: "demo-live-secret"})
	live.sess.Demo, live.sess.Profile = false, "loja-live"
	write("10-production", live.scene(w, h, func(f *flow) {
		f.newCharge("1.234,56", "Encomenda corporativa")
		f.waitFor("PRODUCTION? (y/N)")
	}))
}

// TestScreenshotQRsDecode reads the QR back out of the committed screenshots (dark, light and
// the 80x24 terminal).
func TestScreenshotQRsDecode(t *testing.T) {
	codes := map[string]string{"03-qr.png": "qr.code.txt", "03-qr-light.png": "qr.code.txt", "11-qr-80x24.png": "qr-80x24.code.txt"}
	for name, file := range codes {
		want, err := os.ReadFile(filepath.Join("..", "screenshots", file))
		if err != nil {
			t.Skip("no screenshots yet (make screenshots)")
		}
		if _, err := api.ParseBRCode(string(want)); err != nil {
			t.Fatalf("the recorded code is not a valid BR Code: %v", err)
		}
		f, err := os.Open(filepath.Join("..", "screenshots", name))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bmp, err := gozxing.NewBinaryBitmapFromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		res, err := gzqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]interface{}{gozxing.DecodeHintType_TRY_HARDER: true})
		if err != nil {
			t.Fatalf("%s: no QR found: %v", name, err)
		}
		if got := res.GetText(); got != strings.TrimSpace(string(want)) {
			t.Fatalf("%s decodes to %q, want %q", name, got, want)
		}
	}
}
