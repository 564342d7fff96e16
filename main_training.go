package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"pixdash/api"
	"pixdash/api/sandbox"
	"pixdash/api/sandbox/training"
	"pixdash/state/workflow"
	"pixdash/ui"
)

// trainingFlags are the training command's flags.
type trainingFlags struct {
	file, lang string
	list       bool
}

func newTrainingCmd(stdout, stderr io.Writer) *cobra.Command {
	var o trainingFlags
	cmd := &cobra.Command{
		Use:   "training [SCENARIO]",
		Short: "Practise at the counter: the dashboard in pt-BR on the built-in emulator, with a scenario",
		Long: `Open the dashboard in training mode: in pt-BR, against the built-in sandbox emulator (nothing
touches a real account), with a scenario of customers who pay, pay with a company's CNPJ, say
they paid and did not, a MED block, the network dropping, a refund and the day's close. A
checklist says what to do next; the end shows what was done right and what was missed.

Built-in scenarios: basico (the default), dia-cheio, problemas (pixdash training --list).
A shop's own: --scenario FILE (TOML, the built-in ones are the examples).`,
		Args:          cobra.MaximumNArgs(1),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return runTraining(cmd.Context(), name, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.file, "scenario", "", "scenario file (TOML) instead of a built-in one")
	f.StringVar(&o.lang, "lang", "pt-BR", `language of the screens and the scenario: "pt-BR" or "en"`)
	f.BoolVar(&o.list, "list", false, "list the built-in scenarios and exit")
	return cmd
}

// loadScenario is the built-in scenario name (basico when empty) or the file.
func loadScenario(name, file string) (*training.Scenario, error) {
	if file != "" {
		if name != "" {
			return nil, usageError("give a built-in scenario (%s) or --scenario FILE, not both", name)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, &exitError{code: exitFailure, err: err}
		}
		sc, err := training.Parse(data)
		if err != nil {
			return nil, &exitError{code: exitFailure, err: fmt.Errorf("%s: %w", file, err)}
		}
		return sc, nil
	}
	if name == "" {
		name = training.Builtins()[0]
	}
	sc, err := training.Builtin(name)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return sc, nil
}

func runTraining(ctx context.Context, name string, o trainingFlags, stdout, stderr io.Writer) error {
	lang, ok := parseLang(o.lang)
	if !ok {
		return usageError(`--lang %q: say "pt-BR" or "en"`, o.lang)
	}
	if o.list {
		for _, n := range training.Builtins() {
			sc, err := training.Builtin(n)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			title := sc.Title
			if lang == ui.LangEN && sc.TitleEN != "" {
				title = sc.TitleEN
			}
			fmt.Fprintf(stdout, "%-10s %s (%d)\n", n, title, len(sc.Steps))
		}
		return nil
	}
	sc, err := loadScenario(name, o.file)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer cancel()
	ts, err := openTraining(ctx, sc, training.Options{Lang: string(lang)}, ui.Options{Lang: lang,
		ASCII: !utf8Locale(os.Getenv), DarkBackground: lipgloss.HasDarkBackground()})
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	_, err = tea.NewProgram(ts.model, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	end := ts.end()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return &exitError{code: exitFailure, err: err}
	}
	printTrainingSummary(stdout, end, lang)
	return nil
}

// trainingSession is a running training: the emulator with the scenario's engine, and the
// dashboard in training mode on it.
type trainingSession struct {
	model *ui.TrainingModel
	final chan training.State
	stop  context.CancelFunc
}

// openTraining starts the emulator and the engine for sc and builds the dashboard (o gives its
// language and terminal settings; the session is training's own).
func openTraining(ctx context.Context, sc *training.Scenario, to training.Options, o ui.Options) (*trainingSession, error) {
	logger := slog.New(slog.DiscardHandler)
	run, err := training.Start(ctx, sc, to, []sandbox.Option{sandbox.WithLogger(logger)}, api.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	params := demoParams(run.Demo, logger)
	// The customers are the scenario's: no simulated payer keys ($, %, x) for the trainee.
	params.Profile, params.Release, params.Simulator = "treino", run.Close, nil
	s, err := workflow.Open(ctx, params)
	if err != nil {
		run.Close()
		return nil, err
	}
	ectx, stop := context.WithCancel(ctx)
	ts := &trainingSession{final: make(chan training.State, 1), stop: stop}
	go func() { ts.final <- run.Engine.Run(ectx) }()
	o.Session, o.CustomerLang, o.Logger = s, ui.LangPT, logger
	ts.model = ui.NewTraining(o, newTrainerAdapter(ectx, run.Engine))
	return ts, nil
}

// end stops the engine and the session and returns the scenario's last state.
func (ts *trainingSession) end() training.State {
	ts.stop()
	st := <-ts.final
	ts.model.Close()
	return st
}

// printTrainingSummary leaves the summary on the terminal after the dashboard closes.
func printTrainingSummary(w io.Writer, s training.State, lang ui.Lang) {
	en := lang == ui.LangEN
	say := func(pt, e string) string {
		if en {
			return e
		}
		return pt
	}
	if !s.Done {
		fmt.Fprintln(w, say("Treinamento interrompido antes do fim: "+s.Title, "Training stopped before its end: "+s.Title))
		return
	}
	fmt.Fprintln(w, say("Resumo do treinamento: ", "Training summary: ")+s.Title)
	n := 0
	for _, it := range s.Summary {
		mark := say("FALTOU", "MISSED")
		if it.Right {
			mark, n = say("CERTO ", "RIGHT "), n+1
		}
		fmt.Fprintf(w, "  %s  %s\n", mark, it.Text)
	}
	fmt.Fprintf(w, say("%d de %d feitos certo.\n", "%d of %d done right.\n"), n, len(s.Summary))
}

// trainerAdapter is the engine as the dashboard's ui.Trainer.
type trainerAdapter struct {
	e   *training.Engine
	out chan ui.TrainingState
}

func newTrainerAdapter(ctx context.Context, e *training.Engine) *trainerAdapter {
	a := &trainerAdapter{e: e, out: make(chan ui.TrainingState, 1)}
	go func() {
		defer close(a.out)
		for {
			select {
			case <-ctx.Done():
				return
			case s := <-e.Updates():
				u := trainingView(s)
				select {
				case <-a.out: // the dashboard draws the newest only
				default:
				}
				a.out <- u
			}
		}
	}()
	return a
}

// Updates implements ui.Trainer.
func (a *trainerAdapter) Updates() <-chan ui.TrainingState { return a.out }

// Observe implements ui.Trainer.
func (a *trainerAdapter) Observe(x ui.TrainingAction) {
	a.e.Observe(training.Action{Kind: training.ActionKind(x.Kind), ChargeID: x.ChargeID})
}

func trainingView(s training.State) ui.TrainingState {
	u := ui.TrainingState{Title: s.Title, Now: s.Now, Done: s.Done}
	for _, l := range s.Lines {
		u.Lines = append(u.Lines, ui.TrainingLine{Label: l.Label, State: ui.TrainingLineState(l.State)})
	}
	for _, it := range s.Summary {
		u.Summary = append(u.Summary, ui.TrainingItem{Right: it.Right, Text: it.Text})
	}
	return u
}
