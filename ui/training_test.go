package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"

	"pixdash/api"
	"pixdash/ui/common"
)

// fakeTrainer records the actions; its updates channel is closed, so the model's wait for
// the next state returns at once in tests (states are handed in as messages).
type fakeTrainer struct {
	mu  sync.Mutex
	got []TrainingAction
	ch  chan TrainingState
}

func newFakeTrainer() *fakeTrainer {
	ch := make(chan TrainingState)
	close(ch)
	return &fakeTrainer{ch: ch}
}

func (f *fakeTrainer) Updates() <-chan TrainingState { return f.ch }

func (f *fakeTrainer) Observe(a TrainingAction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, a)
}

func (f *fakeTrainer) actions() []TrainingAction {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]TrainingAction(nil), f.got...)
}

// trainingScene is a state in the middle of the basic scenario.
func trainingScene() TrainingState {
	return TrainingState{
		Title: "Primeiro dia no caixa",
		Lines: []TrainingLine{
			{"Cobrar R$ 25,00 da Ana", TrainRight},
			{"Entregar para a Ana só depois do PAGO", TrainNow},
			{"Cobrar R$ 12,50 do Bruno", TrainTodo},
			{"Não entregar: Bruno pagou com CNPJ", TrainTodo},
			{"Devolver a compra da Ana", TrainTodo},
			{"Fazer o fechamento do dia", TrainTodo},
		},
		Now: "Espere a linha da Ana mostrar ✓ paga. Só então selecione a linha dela (setas) e aperte e (entregar a mercadoria).",
	}
}

// trainingSummary is the end of the basic scenario with two mistakes.
func trainingSummary() TrainingState {
	s := trainingScene()
	for i := range s.Lines {
		s.Lines[i].State = TrainRight
	}
	s.Lines[1].State, s.Lines[4].State = TrainMissed, TrainMissed
	s.Now, s.Done = "", true
	s.Summary = []TrainingItem{
		{true, "Criou a cobrança de R$ 25,00 para Ana"},
		{false, "Entregou a mercadoria (Ana) antes do PAGO"},
		{true, "Criou a cobrança de R$ 12,50 para Bruno"},
		{true, "Não entregou para Bruno: o pagamento não entrou"},
		{false, "Devolveu a cobrança errada (Bruno) em vez da de Ana"},
		{true, "Fez o fechamento do dia"},
	}
	return s
}

// trainingModel is the dashboard in training mode in pt-BR on the golden charges at w×h.
func trainingModel(t *testing.T, w, h int, st *TrainingState) (*TrainingModel, *fakeTrainer) {
	t.Helper()
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	f := newFakeTrainer()
	tm := NewTraining(Options{Session: s, Lang: common.LangPT, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC}, f)
	tsend(t, tm, tea.WindowSizeMsg{Width: w, Height: h})
	settle(t, tm.inner, tm.inner.focusActive())
	if st != nil {
		tsend(t, tm, trainingStateMsg(*st))
	}
	return tm, f
}

// tsend hands msg to the training model and runs what it returns (observations included).
func tsend(t *testing.T, tm *TrainingModel, msg tea.Msg) {
	t.Helper()
	_, cmd := tm.Update(msg)
	drainCmds(t, cmd, func(m tea.Msg) tea.Cmd {
		if storeReply(m) {
			_, c := tm.Update(m)
			return c
		}
		return nil
	})
}

func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, lipgloss.Width(l), w, l)
		}
	}
}

// TestGoldenTraining: the checklist under the dashboard at 80x24 and beside it at 120x40, the
// whole checklist (T) and the summary, in pt-BR with the TREINAMENTO badge.
func TestGoldenTraining(t *testing.T) {
	scene, sum := trainingScene(), trainingSummary()
	cases := []struct {
		name string
		st   *TrainingState
		keys string
	}{
		{"checklist", &scene, ""},
		{"checklist_open", &scene, "T"},
		{"summary", &sum, ""},
	}
	for _, tc := range cases {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1]), func(t *testing.T) {
				tm, _ := trainingModel(t, size[0], size[1], tc.st)
				for _, k := range tc.keys {
					tsend(t, tm, runeKey(string(k)))
				}
				v := tm.View()
				checkFrame(t, v, size[0], size[1])
				if !strings.Contains(v, "TREINAMENTO") {
					t.Error("no TREINAMENTO badge")
				}
				teatest.RequireEqualOutput(t, []byte(v))
			})
		}
	}
}

// TestTrainingStripShowsTheWholeStep: at 80x24 what to do now is shown whole under the
// dashboard, which keeps its header (with the badge), tabs and footer.
func TestTrainingStripShowsTheWholeStep(t *testing.T) {
	st := trainingScene()
	tm, _ := trainingModel(t, 80, 24, &st)
	v := tm.View()
	flat := strings.Join(strings.Fields(v), " ")
	for _, want := range []string{"pixdash TREINAMENTO", "1 Cobranças", "passo 2/6", "Entregar para a Ana só depois do PAGO",
		"Só então selecione a linha dela (setas) e aperte e (entregar a mercadoria).", "q sair"} {
		if !strings.Contains(flat, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	// The dashboard gave the strip its lines: its minimum size counts them.
	if tm.inner.tooSmall() {
		t.Fatal("the dashboard thinks 80x24 is too small in training mode")
	}
}

// TestTrainingKeys: e hands the goods over for the selected charge, N refuses them; both only
// on the charges list, never typed into a form.
func TestTrainingKeys(t *testing.T) {
	st := trainingScene()
	tm, f := trainingModel(t, 80, 24, &st)
	sel, ok := tm.inner.charges.SelectedLine()
	if !ok {
		t.Fatal("no charge selected")
	}
	tsend(t, tm, runeKey("e"))
	tsend(t, tm, runeKey("N"))
	want := []TrainingAction{{TrainHandOver, sel.ID}, {TrainDecline, sel.ID}}
	if got := f.actions(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("actions %+v, want %+v", got, want)
	}
	if !strings.Contains(tm.View(), "Mercadoria não entregue") {
		t.Error("N gave no answer on screen")
	}
	// In the new-charge form, e is a letter of the description.
	tsend(t, tm, runeKey("n"))
	tsend(t, tm, runeKey("e"))
	if got := f.actions(); len(got) != 2 {
		t.Fatalf("e in the form was taken as a hand-over: %+v", got)
	}
	tsend(t, tm, tea.KeyMsg{Type: tea.KeyEsc})
	tsend(t, tm, runeKey("s")) // discard the draft
	if len(tm.inner.overlays) != 0 {
		t.Fatalf("the form is still open:\n%s", tm.View())
	}
	// Elsewhere than the charges, e says where to go.
	tsend(t, tm, runeKey("3"))
	tsend(t, tm, runeKey("e"))
	if got := f.actions(); len(got) != 2 {
		t.Fatalf("e outside the charges list acted: %+v", got)
	}
	if !strings.Contains(strings.Join(strings.Fields(tm.View()), " "), "Vá para as cobranças (1)") {
		t.Errorf("e outside the list gave no hint:\n%s", tm.View())
	}
}

// TestTrainingObservesBlocksAndClose: the blocks view and the day's close on screen are
// reported to the scenario (the close once per opening).
func TestTrainingObservesBlocksAndClose(t *testing.T) {
	st := trainingScene()
	tm, f := trainingModel(t, 120, 40, &st)
	tsend(t, tm, runeKey("4"))
	tsend(t, tm, runeKey("6"))
	tsend(t, tm, runeKey("C"))
	tsend(t, tm, runeKey("j")) // a key inside the close: not a second report
	var kinds []TrainingActionKind
	for _, a := range f.actions() {
		kinds = append(kinds, a.Kind)
	}
	if len(kinds) != 2 || kinds[0] != TrainViewBlocks || kinds[1] != TrainCloseDay {
		t.Fatalf("observed %v, want [blocks close]", kinds)
	}
	// The close ends the scenario: the summary waits until the trainee leaves the close.
	tsend(t, tm, trainingStateMsg(trainingSummary()))
	if strings.Contains(tm.View(), "Resumo:") {
		t.Fatal("the summary covered the day's close the trainee was told to check")
	}
	tsend(t, tm, tea.KeyMsg{Type: tea.KeyEsc})
	if !strings.Contains(tm.View(), "Resumo:") {
		t.Fatalf("no summary after leaving the close:\n%s", tm.View())
	}
}

// TestTrainingSummaryKeys: the summary lists right and missed; esc goes back to the dashboard,
// T brings the summary back, q quits.
func TestTrainingSummaryKeys(t *testing.T) {
	st := trainingSummary()
	tm, _ := trainingModel(t, 80, 24, &st)
	v := tm.View()
	for _, want := range []string{"Resumo: Primeiro dia no caixa", "Feito certo (4)", "Faltou (2)", "✗ Entregou a mercadoria (Ana) antes do PAGO", "4 de 6 feitos certo."} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	tsend(t, tm, tea.KeyMsg{Type: tea.KeyEsc})
	if strings.Contains(tm.View(), "Resumo:") || !strings.Contains(tm.View(), "T mostra o resumo") {
		t.Fatalf("esc did not go back to the dashboard:\n%s", tm.View())
	}
	tsend(t, tm, runeKey("T"))
	if !strings.Contains(tm.View(), "Resumo:") {
		t.Fatal("T did not show the summary again")
	}
	_, cmd := tm.Update(runeKey("q"))
	if cmd == nil {
		t.Fatal("q on the summary does not quit")
	}
	if _, ok := runReply(cmd).(tea.QuitMsg); !ok {
		t.Fatal("q on the summary does not quit")
	}
}
