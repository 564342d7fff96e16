package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"pixdash/api/sandbox/training"
	"pixdash/ui/common"
)

// TestScreenshotsTraining renders training mode for the README (make screenshots): the
// checklist under the dashboard at 80x24, beside it at 120x40, and the summary, in pt-BR on
// the demo session. The scenario's state is the one the engine sends in the basic scenario's
// second step (see api/sandbox/training).
func TestScreenshotsTraining(t *testing.T) {
	dir := os.Getenv("PIXDASH_SCREENSHOTS")
	if dir == "" {
		t.Skip("set PIXDASH_SCREENSHOTS=DIR (make screenshots) to render the screenshots")
	}
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	fx, err := training.Fixture()
	if err != nil {
		t.Fatal(err)
	}
	r := newShotRig(t, DemoOptions{Fixture: fx})
	shot := func(name string, w, h int, st TrainingState, wait string, steps func(tm *teatest.TestModel, waitFor func(string))) {
		t.Helper()
		r.clock.Advance(time.Minute)
		ch := make(chan TrainingState, 1)
		ch <- st
		tr := &fakeTrainer{ch: ch}
		m := NewTraining(Options{
			Session: r.sess, Lang: common.LangPT, CustomerLang: common.LangPT, Location: time.UTC, Now: r.clock.Now,
			NewKey: func() string { r.keyN++; return fmt.Sprintf("pixdash-screenshot-%04d", r.keyN) },
			Bell:   func() {}, Clipboard: func(string) {},
		}, tr)
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
		waitFor := func(text string) {
			t.Helper()
			var seen strings.Builder
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
				seen.Write(b)
				return strings.Contains(seen.String(), text)
			}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		}
		waitFor(wait)
		if steps != nil {
			steps(tm, waitFor)
		}
		time.Sleep(150 * time.Millisecond)
		if err := tm.Quit(); err != nil {
			t.Fatal(err)
		}
		final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*TrainingModel)
		final.inner.eng.Close() // the program ended: its engine stops, the rig's session stays
		if err := os.WriteFile(filepath.Join(dir, name+".ansi"), []byte(final.View()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Ana's charge, paid by the simulated payer: the second step waits for the trainee's e.
	ana := func(tm *teatest.TestModel, waitFor func(string)) {
		tm.Send(runeKey("n"))
		waitFor("Nova cobrança")
		tm.Send(runeKey("25,00"))
		tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
		waitFor("Pague com PIX")
		tm.Send(runeKey("$"))
		waitFor("Pago em")
		tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		waitFor("passo 2/6")
	}
	shot("21-training-80x24", 80, 24, trainingScene(), "EXPIRA/PAGA", ana)
	shot("22-training-120x40", 120, 40, trainingScene(), "EXPIRA/PAGA", nil)
	shot("23-training-summary", 80, 24, trainingSummary(), "Resumo", nil)
}
