package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api/sandbox/training"
	"pixdash/ui"
)

// TestTrainingCommandLine: --list names the built-in scenarios; an unknown one, a scenario
// given twice and a broken file are refused with a specific message.
func TestTrainingCommandLine(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"training", "--list"}, &out, &errb); code != 0 {
		t.Fatalf("--list: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"basico     Primeiro dia no caixa (6)", "dia-cheio  Dia cheio no caixa (8)", "problemas  Dia de problemas (10)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list says %q, want a line %q", out.String(), want)
		}
	}
	out.Reset()
	if code := run([]string{"training", "--list", "--lang", "en"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "First day at the counter") {
		t.Errorf("--list --lang en: exit %d, %q", code, out.String())
	}
	bad := filepath.Join(t.TempDir(), "loja.toml")
	if err := os.WriteFile(bad, []byte("name = \"loja\"\ntitle = \"Loja\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"training", "feriado"}, exitUsage, `no built-in scenario "feriado" (there are: basico, dia-cheio, problemas)`},
		{[]string{"training", "basico", "--scenario", bad}, exitUsage, "not both"},
		{[]string{"training", "--scenario", bad}, exitFailure, bad + ": scenario loja: no steps"},
		{[]string{"training", "--lang", "fr"}, exitUsage, `--lang "fr"`},
	} {
		out.Reset()
		errb.Reset()
		if code := run(tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

// TestTrainingKindsAgree: the adapter converts the dashboard's actions and the engine's line
// states by number; both sides must count the same way.
func TestTrainingKindsAgree(t *testing.T) {
	pairs := [][2]int{
		{int(ui.TrainHandOver), int(training.HandOver)}, {int(ui.TrainViewBlocks), int(training.ViewBlocks)},
		{int(ui.TrainCloseDay), int(training.CloseDay)}, {int(ui.TrainDecline), int(training.Decline)},
		{int(ui.TrainTodo), int(training.StepTodo)}, {int(ui.TrainNow), int(training.StepNow)},
		{int(ui.TrainRight), int(training.StepRight)}, {int(ui.TrainMissed), int(training.StepMissed)},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("pair %d: ui %d, engine %d", i, p[0], p[1])
		}
	}
}

// TestTrainingBasicAsANewEmployee plays the built-in basic scenario in pt-BR at 80x24 through
// the real dashboard and engine, typing only what the checklist says, to the summary.
func TestTrainingBasicAsANewEmployee(t *testing.T) {
	sc, err := training.Builtin("basico")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ts, err := openTraining(ctx, sc, training.Options{Scale: 40 * time.Millisecond, Tick: 10 * time.Millisecond}, ui.Options{Lang: ui.LangPT})
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, ts.model, teatest.WithInitialTermSize(80, 24))
	var seen bytes.Buffer
	waitFor := func(text string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			seen.Write(b)
			if i := bytes.Index(seen.Bytes(), []byte(text)); i >= 0 {
				seen.Next(i + len(text))
				return true
			}
			return false
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	keys := func(ks ...string) {
		for _, k := range ks {
			switch k {
			case "ctrl+s":
				tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
			case "esc":
				tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
			default:
				tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
			}
		}
	}
	charge := func(amount string) {
		keys("n")
		waitFor("Nova cobrança")
		keys(amount, "ctrl+s")
		waitFor("Pague com PIX")
	}
	waitFor("passo 1/6")
	charge("25,00")
	waitFor("Pago em") // Ana pays
	keys("esc")
	waitFor("passo 2/6")
	keys("e") // Ana's line is the newest, selected
	waitFor("passo 3/6")
	charge("12,50")
	waitFor("FALHOU") // Bruno's CNPJ payment is refused
	keys("esc")
	waitFor("passo 4/6")
	keys("N") // no payment, no goods
	waitFor("passo 5/6")
	keys("j", "R") // Ana's line is under Bruno's
	waitFor("Estornar cobrança")
	keys("ctrl+s")
	waitFor("s sim")
	keys("s")
	waitFor("passo 6/6")
	keys("6", "C")
	waitFor("Fechamento de caixa") // the close stays until the trainee has read it
	keys("esc")
	waitFor("Resumo")
	waitFor("6 de 6 feitos certo.")
	keys("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	end := ts.end()
	var out bytes.Buffer
	printTrainingSummary(&out, end, ui.LangPT)
	for _, want := range []string{"CERTO   Criou a cobrança de R$ 25,00 para Ana", "CERTO   Entregou para Ana depois do PAGO",
		"CERTO   Não entregou para Bruno: o pagamento não entrou", "CERTO   Devolveu os R$ 25,00 de Ana", "6 de 6 feitos certo."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
