package ui

import (
	"fmt"
	"strings"

	"pixdash/ui/common"
	"pixdash/ui/sales"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Trainer is a training scenario running beside the dashboard on the in-process emulator
// (main wires the engine): it says what to do next and judges what the trainee did.
type Trainer interface {
	// Updates delivers the scenario's newest state after each change; closed when it stops.
	Updates() <-chan TrainingState
	// Observe reports something the trainee did that only the dashboard sees; it never blocks.
	Observe(TrainingAction)
}

// TrainingActionKind names what the trainee did.
type TrainingActionKind int

// The actions the dashboard reports to a Trainer.
const (
	// TrainHandOver: the goods were handed over for a charge (the e key in training mode).
	TrainHandOver TrainingActionKind = iota + 1
	// TrainViewBlocks: the balance blocks view is on screen.
	TrainViewBlocks
	// TrainCloseDay: the day's close is on screen.
	TrainCloseDay
	// TrainDecline: the trainee told a charge's customer there is no payment, so no goods
	// (the N key in training mode).
	TrainDecline
)

// TrainingAction is one thing the trainee did.
type TrainingAction struct {
	Kind     TrainingActionKind
	ChargeID string
}

// TrainingLineState is where a checklist line stands.
type TrainingLineState int

// The states of a checklist line.
const (
	TrainTodo TrainingLineState = iota
	TrainNow
	TrainRight
	TrainMissed
)

// TrainingLine is one line of the checklist.
type TrainingLine struct {
	Label string
	State TrainingLineState
}

// TrainingItem is one line of the summary.
type TrainingItem struct {
	Right bool
	Text  string
}

// TrainingState is the scenario as the trainee sees it.
type TrainingState struct {
	Title   string
	Lines   []TrainingLine
	Now     string // what to do now
	Done    bool
	Summary []TrainingItem
}

// trainingStateMsg carries a new state from the Trainer.
type trainingStateMsg TrainingState

// Layout of training mode: a side panel when the terminal has room for it beside an 80-column
// dashboard, else a strip under the dashboard.
const (
	trainSideWidth  = 34
	trainStripLines = 4
)

var (
	colTrain        = lipgloss.AdaptiveColor{Light: "#7B2CBF", Dark: "#C77DFF"}
	trainBadgeStyle = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(colTrain).Padding(0, 1)
)

// TrainingModel is the dashboard in training mode: the root model, with the scenario's
// checklist beside or under it, the TREINAMENTO badge, the e key (hand the goods over), the N
// key (no payment, no goods) and the summary at the end.
type TrainingModel struct {
	inner   *Model
	trainer Trainer
	st      TrainingState
	have    bool
	width   int
	height  int
	side    bool
	strip   bool // the strip is drawn (not over a full-screen overlay)
	summary bool // the summary is on screen
	shown   bool // the summary opened by itself once
	list    bool // the whole checklist is open (narrow layout)
	closing bool // the day's close was reported for the overlay on screen
	note    string
}

// NewTraining builds the dashboard in training mode on o's session, beside trainer.
func NewTraining(o Options, trainer Trainer) *TrainingModel {
	m := New(o)
	m.training = true
	return &TrainingModel{inner: m, trainer: trainer}
}

// Close releases the dashboard's session.
func (t *TrainingModel) Close() { t.inner.Close() }

// Init starts the dashboard and listens to the scenario.
func (t *TrainingModel) Init() tea.Cmd { return tea.Batch(t.inner.Init(), t.wait()) }

func (t *TrainingModel) wait() tea.Cmd {
	ch := t.trainer.Updates()
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return trainingStateMsg(s)
	}
}

func (t *TrainingModel) observe(a TrainingAction) tea.Cmd {
	tr := t.trainer
	return func() tea.Msg { tr.Observe(a); return nil }
}

// Update routes to the dashboard, except the scenario's messages and training's own keys.
func (t *TrainingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case trainingStateMsg:
		t.st, t.have = TrainingState(msg), true
		t.showSummary()
		cmds = append(cmds, t.wait(), t.watch())
		return t, tea.Batch(cmds...)
	case tea.WindowSizeMsg:
		t.width, t.height = msg.Width, msg.Height
		t.layout(true)
		return t, t.sendSize()
	case tea.KeyMsg:
		if cmd, ok := t.key(msg); ok {
			return t, cmd
		}
	}
	_, cmd := t.inner.Update(msg)
	cmds = append(cmds, cmd, t.watch())
	t.showSummary()
	if t.layout(false) {
		cmds = append(cmds, t.sendSize())
	}
	return t, tea.Batch(cmds...)
}

// showSummary opens the summary once the scenario ended and the trainee closed what is open
// (the day's close that ended it stays on screen until esc).
func (t *TrainingModel) showSummary() {
	if t.st.Done && !t.shown && len(t.inner.overlays) == 0 {
		t.summary, t.shown = true, true
	}
}

// key handles training's own keys; ok is false for the dashboard's.
func (t *TrainingModel) key(km tea.KeyMsg) (tea.Cmd, bool) {
	tr := t.inner.c.Tr
	if t.summary {
		switch km.String() {
		case "q", "ctrl+c":
			return tea.Quit, true
		case "esc":
			t.summary = false
		}
		return nil, true
	}
	if t.list {
		t.list = false
		return nil, true
	}
	if t.inner.capturingText() || len(t.inner.overlays) > 0 {
		return nil, false
	}
	switch km.String() {
	case "T":
		if t.st.Done {
			t.summary = true
		} else {
			t.list = !t.side
		}
		return nil, true
	case "e", "N":
		if t.inner.view != viewCharges {
			t.note = tr.T("training.go_to_the_charges_1_and")
			return nil, true
		}
		ch, ok := t.inner.charges.SelectedLine()
		if !ok {
			t.note = tr.T("training.select_the_customer_s_line_first")
			return nil, true
		}
		if km.String() == "N" {
			t.note = tr.F("training.goods_not_handed_over", ch.Amount.BRL())
			return t.observe(TrainingAction{Kind: TrainDecline, ChargeID: ch.ID}), true
		}
		t.note = tr.F("training.goods_handed_over", ch.Amount.BRL())
		return t.observe(TrainingAction{Kind: TrainHandOver, ChargeID: ch.ID}), true
	}
	t.note = ""
	return nil, false
}

// watch reports what is on screen that the scenario judges: the blocks view, the day's close.
func (t *TrainingModel) watch() tea.Cmd {
	var cmds []tea.Cmd
	if t.inner.view == viewBlocks && len(t.inner.overlays) == 0 {
		cmds = append(cmds, t.observe(TrainingAction{Kind: TrainViewBlocks}))
	}
	_, open := common.Find[*sales.CloseOverlay](t.inner.overlays)
	switch {
	case open && !t.closing:
		t.closing = true
		cmds = append(cmds, t.observe(TrainingAction{Kind: TrainCloseDay}))
	case !open:
		t.closing = false
	}
	return tea.Batch(cmds...)
}

// layout decides where the checklist goes; it reports whether the dashboard's size changed.
func (t *TrainingModel) layout(force bool) bool {
	side := t.width >= common.MinWidth+trainSideWidth
	strip := !side && !t.fullScreen()
	changed := force || side != t.side || strip != t.strip
	t.side, t.strip = side, strip
	t.inner.reserveW, t.inner.reserveH = 0, 0
	switch {
	case side:
		t.inner.reserveW = trainSideWidth
	case strip:
		t.inner.reserveH = trainStripLines
	}
	return changed
}

// fullScreen: a screen for the customer (the QR) has the whole terminal.
func (t *TrainingModel) fullScreen() bool {
	for _, o := range t.inner.overlays {
		if o.Layer() == common.LayerScreen {
			return true
		}
	}
	return false
}

func (t *TrainingModel) sendSize() tea.Cmd {
	_, cmd := t.inner.Update(tea.WindowSizeMsg{Width: t.width - t.inner.reserveW, Height: t.height - t.inner.reserveH})
	return cmd
}

// View draws the dashboard with the checklist, or the summary.
func (t *TrainingModel) View() string {
	if t.width == 0 {
		return ""
	}
	if t.summary {
		return t.summaryView()
	}
	dash := t.inner.View()
	if t.inner.tooSmall() {
		return dash
	}
	switch {
	case t.list:
		return placeOver(common.FitBlock(dash, t.width, t.height-t.inner.reserveH)+"\n"+t.stripView(), t.listBox(), t.width, t.height)
	case t.side:
		return lipgloss.JoinHorizontal(lipgloss.Top, common.FitBlock(dash, t.width-trainSideWidth, t.height), t.sideView())
	case t.strip:
		return common.FitBlock(dash, t.width, t.height-trainStripLines) + "\n" + t.stripView()
	}
	return dash
}

func (t *TrainingModel) mark(s TrainingLineState) string {
	ascii := t.inner.c.ASCII
	st := t.inner.c.St
	switch s {
	case TrainRight:
		if ascii {
			return st.OK.Render("+")
		}
		return st.OK.Render("✓")
	case TrainMissed:
		if ascii {
			return st.Err.Render("x")
		}
		return st.Err.Render("✗")
	case TrainNow:
		if ascii {
			return st.Bold.Render(">")
		}
		return st.Bold.Render("▸")
	}
	return st.Muted.Render("·")
}

// progress is "step 2/6".
func (t *TrainingModel) progress() string {
	n := 0
	for i, l := range t.st.Lines {
		if l.State == TrainNow {
			n = i + 1
		}
	}
	if n == 0 {
		n = len(t.st.Lines)
	}
	return t.inner.c.Tr.F("training.step", n, len(t.st.Lines))
}

func (t *TrainingModel) badge() string {
	return trainBadgeStyle.Render(t.inner.c.Tr.T("training.training_caps"))
}

// nowText is what to do now, with the last answer of the e key.
func (t *TrainingModel) nowText() string {
	tr := t.inner.c.Tr
	if !t.have {
		return tr.T("training.the_scenario_is_starting")
	}
	if t.st.Done {
		return tr.T("training.scenario_finished_t_shows_the_summary")
	}
	return t.st.Now
}

func (t *TrainingModel) stripView() string {
	st, w := t.inner.c.St, t.width
	var current string
	for _, l := range t.st.Lines {
		if l.State == TrainNow {
			current = l.Label
		}
	}
	head := t.badge() + " " + st.Muted.Render(t.progress()) + " " + st.Bold.Render(common.Sanitize(current))
	right := st.Muted.Render(t.inner.c.Tr.T("training.t_checklist"))
	lines := []string{common.Spread(common.TruncateWidth(head, w-lipgloss.Width(right)-1), right, w)}
	// The answer of e or N takes a line only when what to do now leaves one free.
	body := common.WrapLines(t.nowText(), w-1, trainStripLines-1)
	if t.note != "" && len(body) < trainStripLines-1 {
		body = append(body, st.StatusOK.Render(common.TruncateWidth(common.Sanitize(t.note), w-1)))
	}
	for _, l := range body {
		lines = append(lines, " "+l)
	}
	for len(lines) < trainStripLines {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// checklist is the scenario's lines, each wrapped to at most two lines of w cells.
func (t *TrainingModel) checklist(w int) []string {
	var out []string
	for _, l := range t.st.Lines {
		for i, part := range common.WrapLines(l.Label, w-2, 2) {
			if l.State == TrainNow {
				part = t.inner.c.St.Bold.Render(part)
			}
			if i == 0 {
				out = append(out, t.mark(l.State)+" "+part)
			} else {
				out = append(out, "  "+part)
			}
		}
	}
	return out
}

func (t *TrainingModel) sideView() string {
	st, tr := t.inner.c.St, t.inner.c.Tr
	w := trainSideWidth - 2
	lines := []string{t.badge() + " " + st.Muted.Render(t.progress())}
	lines = append(lines, common.WrapLines(t.st.Title, w, 2)...)
	lines = append(lines, "")
	lines = append(lines, t.checklist(w)...)
	lines = append(lines, "", st.Label.Render(tr.T("training.now")))
	rest := t.height - len(lines) - 3
	lines = append(lines, common.WrapLines(t.nowText(), w, max(rest, 1))...)
	if t.note != "" {
		lines = append(lines, "", st.StatusOK.Render(common.TruncateWidth(common.Sanitize(t.note), w)))
	}
	box := lipgloss.NewStyle().Border(lipgloss.NormalBorder(), false, false, false, true).
		BorderForeground(colTrain).PaddingLeft(1).Width(trainSideWidth - 1)
	return box.Render(common.FitBlock(strings.Join(lines, "\n"), w, t.height))
}

func (t *TrainingModel) listBox() string {
	tr := t.inner.c.Tr
	w := min(t.width-4, 60)
	lines := []string{t.badge() + " " + common.Sanitize(t.st.Title), ""}
	lines = append(lines, t.checklist(w)...)
	lines = append(lines, "", t.inner.c.St.Muted.Render(tr.T("training.any_key_closes")))
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(colTrain).Padding(0, 1).Render(strings.Join(lines, "\n"))
}

// summaryView is the end: what was done right and what was missed.
func (t *TrainingModel) summaryView() string {
	st, tr := t.inner.c.St, t.inner.c.Tr
	w := t.width - 2
	var right, missed []string
	for _, it := range t.st.Summary {
		if it.Right {
			right = append(right, it.Text)
		} else {
			missed = append(missed, it.Text)
		}
	}
	lines := []string{t.badge() + " " + st.Bold.Render(tr.F("training.summary", common.Sanitize(t.st.Title))), ""}
	// An item takes two lines when they all fit, else one.
	per := 2
	if len(t.st.Summary)*2+9 > t.height {
		per = 1
	}
	add := func(title string, items []string, s TrainingLineState) {
		lines = append(lines, st.Label.Render(fmt.Sprintf("%s (%d)", title, len(items))))
		for _, it := range items {
			for i, l := range common.WrapLines(it, w-4, per) {
				if i == 0 {
					lines = append(lines, "  "+t.mark(s)+" "+l)
				} else {
					lines = append(lines, "    "+l)
				}
			}
		}
		lines = append(lines, "")
	}
	add(tr.T("training.done_right"), right, TrainRight)
	add(tr.T("training.missed"), missed, TrainMissed)
	lines = append(lines, st.Bold.Render(tr.F("training.of_done_right", len(right), len(right)+len(missed))),
		st.Muted.Render(tr.T("training.esc_back_to_the_dashboard_q")))
	return common.FitBlock(" "+strings.Join(lines, "\n "), t.width, t.height)
}
