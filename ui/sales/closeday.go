// Package sales is the dashboard's Sales view, its date range and the day's close.
package sales

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/export"
	"pixdash/state/report"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// closeTimeout bounds reading the day's close: the local figures and each wallet's balance.
const closeTimeout = 30 * time.Second

// printTimeout bounds the profile's print_command.
const printTimeout = 30 * time.Second

// CloseOwner owns the close report's status messages.
const CloseOwner = "close"

// CloseOverlay is the day's close (fechamento de caixa): per wallet and in total, read from the
// local database with each wallet's balance as the service reports it now. It shows the text
// report at 80 columns or as the 48-column receipt, writes it (text and CSV) to the exports
// directory and sends it to the profile's print_command.
type CloseOverlay struct {
	common.Closer
	c             *common.Common
	day           state.Period
	width, height int
	narrow        bool // the 48-column receipt
	Vp            viewport.Model

	Seq     uint64
	loading bool
	Loaded  bool
	Rep     state.CloseReport
	ErrText string
	busy    string // "writing…", "printing…"
}

// CloseMsg is a read of the day's close.
type CloseMsg struct {
	Seq uint64
	Gen uint64
	Rep state.CloseReport
	err error
}

// CloseDoneMsg reports a write or a print of the report.
type CloseDoneMsg struct {
	text string
	err  error
}

func newCloseOverlay(c *common.Common, day state.Period) *CloseOverlay {
	o := &CloseOverlay{c: c, day: day, Vp: viewport.New(0, 0)}
	return o
}

// Layer says how the overlay is drawn.
func (o *CloseOverlay) Layer() common.Layer { return common.LayerBody }

// SetSize gives it its room in cells.
func (o *CloseOverlay) SetSize(w, h int) tea.Cmd {
	o.width, o.height = w, h
	o.Vp.Width, o.Vp.Height = w, max(h-2, 1)
	o.render()
	return nil
}

// Focus gives the report the keyboard back; it reads nothing.
func (o *CloseOverlay) Focus() tea.Cmd { return nil }

// Start reads the report, once.
func (o *CloseOverlay) Start() tea.Cmd {
	if o.Loaded || o.loading {
		return nil
	}
	return o.load()
}

// Blur runs when it leaves the screen or the keyboard.
func (o *CloseOverlay) Blur() {}

// ShortHelp lists the keys the footer shows.
func (o *CloseOverlay) ShortHelp() []key.Binding {
	tr := o.c.Tr
	return []key.Binding{
		key.NewBinding(key.WithKeys("w"), key.WithHelp("w", tr.T("closeday.write_files"))),
		key.NewBinding(key.WithKeys("p"), key.WithHelp("p", tr.T("closeday.print"))),
		key.NewBinding(key.WithKeys("t"), key.WithHelp("t", tr.T("closeday.80_48_columns"))),
		o.c.Keys.Back,
	}
}

// FullHelp lists the overlay's keys for the help screen.
func (o *CloseOverlay) FullHelp() [][]key.Binding {
	k := o.c.Keys
	return [][]key.Binding{append(o.ShortHelp(), k.Up, k.Down, k.PageUp, k.PageDown, k.Refresh)}
}

// wallets are the wallets the close lists even without figures: the active one, and the
// account's sub-accounts when the wallets view loaded them.
func (o *CloseOverlay) wallets() []string {
	ws := []string{api.WalletPrincipal}
	if o.c.App.Wallet != api.WalletPrincipal {
		ws = append(ws, o.c.App.Wallet)
	}
	for _, s := range o.c.App.SubAccounts {
		if s.Reference != "" && s.Reference != o.c.App.Wallet && s.Status.Usable() {
			ws = append(ws, s.Reference)
		}
	}
	return ws
}

// dayCloser makes the day's close with the wallets' balances (*workflow.Session does).
type dayCloser interface {
	CloseDay(ctx context.Context, q state.CloseQuery, allWallets bool) (state.CloseReport, error)
}

// load reads the close (figures and balances) in a command.
func (o *CloseOverlay) load() tea.Cmd {
	sess := o.c.App.Sess
	if sess == nil || sess.Store == nil {
		o.ErrText = o.c.Tr.T("closeday.this_session_has_no_local_store")
		return nil
	}
	o.Seq++
	o.loading = true
	fee, hasFee := common.FeeEstimate(o.c)
	q := state.CloseQuery{Day: o.day, Wallets: o.wallets(), Fee: fee, HasFee: hasFee}
	var cd dayCloser = sess
	seq, gen := o.Seq, o.c.App.Gen
	// Until the wallets view lists the sub-accounts, the close asks for them: every usable
	// wallet of the account belongs in the close, with its balance, even on a day without sales.
	listSubs := o.c.App.SubAccounts == nil
	return o.c.App.WithTimeout(closeTimeout, func(ctx context.Context) tea.Msg {
		rep, err := cd.CloseDay(ctx, q, listSubs)
		return CloseMsg{Seq: seq, Gen: gen, Rep: rep, err: err}
	})
}

// text is the report as it is shown, written and printed.
func (o *CloseOverlay) text(width int) string {
	return report.Text(o.Rep, report.Options{Width: width, Lang: string(o.c.Tr.Lang), Loc: o.c.Loc})
}

func (o *CloseOverlay) render() {
	if !o.Loaded {
		return
	}
	w := 80
	if o.narrow {
		w = 48
	}
	o.Vp.SetContent(o.text(w))
}

// Update handles a key or a reply meant for it.
func (o *CloseOverlay) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case CloseMsg:
		if msg.Seq != o.Seq || msg.Gen != o.c.App.Gen {
			return nil
		}
		o.loading = false
		if msg.err != nil {
			o.ErrText = o.c.Tr.F("closeday.could_not_make_the_day_s", msg.err)
			return nil
		}
		o.Loaded, o.Rep, o.ErrText = true, msg.Rep, ""
		if o.Rep.Profile == "" && o.c.App.Sess != nil {
			o.Rep.Profile = o.c.App.Sess.Profile
		}
		o.render()
		o.Vp.GotoTop()
	case CloseDoneMsg:
		o.busy = ""
		if msg.err != nil {
			return func() tea.Msg {
				return common.StatusMsg{Text: msg.text + ": " + msg.err.Error(), Kind: common.StatusError, Owner: CloseOwner}
			}
		}
		return func() tea.Msg { return common.StatusMsg{Text: msg.text, Kind: common.StatusOK, Owner: CloseOwner} }
	case tea.KeyMsg:
		return o.key(msg)
	}
	return nil
}

func (o *CloseOverlay) key(km tea.KeyMsg) tea.Cmd {
	k := o.c.Keys
	switch {
	case key.Matches(km, k.Back), key.Matches(km, k.Quit):
		o.Close()
		return nil
	case key.Matches(km, k.Refresh):
		return o.load()
	case key.Matches(km, k.Top):
		o.Vp.GotoTop()
		return nil
	case key.Matches(km, k.Bottom):
		o.Vp.GotoBottom()
		return nil
	}
	if !o.Loaded || o.busy != "" {
		var cmd tea.Cmd
		o.Vp, cmd = o.Vp.Update(km)
		return cmd
	}
	switch km.String() {
	case "t":
		o.narrow = !o.narrow
		o.render()
		return nil
	case "w":
		return o.write()
	case "p":
		return o.print()
	}
	var cmd tea.Cmd
	o.Vp, cmd = o.Vp.Update(km)
	return cmd
}

// write puts the report in the exports directory: the 80-column text, the 48-column receipt
// and the CSV (in the profile's export dialect).
func (o *CloseOverlay) write() tea.Cmd {
	tr := o.c.Tr
	dir := o.c.Export.Dir
	if dir == "" {
		return func() tea.Msg {
			return common.StatusMsg{Text: tr.T("closeday.nowhere_to_write_the_report_set"), Kind: common.StatusError, Owner: CloseOwner}
		}
	}
	profile := ""
	if o.c.App.Sess != nil {
		profile = o.c.App.Sess.Profile
	}
	format := export.BR
	if o.c.Export.Format != nil {
		if f := o.c.Export.Format(profile); f != "" {
			format = f
		}
	}
	base := export.FileStem(profile) + "-close-" + o.day.From.In(o.c.Loc).Format("20060102") // a day's close replaces the last one of that day
	wide, narrow, rep := o.text(80), o.text(48), o.Rep
	o.busy = tr.T("closeday.writing")
	return o.c.App.WithTimeout(closeTimeout, func(ctx context.Context) tea.Msg {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return CloseDoneMsg{text: tr.T("closeday.could_not_write_the_report"), err: err}
		}
		files := []struct {
			name string
			fill func(w *bytes.Buffer) error
		}{
			{base + ".txt", func(b *bytes.Buffer) error { b.WriteString(wide); return nil }},
			{base + "-48.txt", func(b *bytes.Buffer) error { b.WriteString(narrow); return nil }},
			{base + ".csv", func(b *bytes.Buffer) error { return report.CSV(b, rep, format == export.BR) }},
		}
		for _, f := range files {
			var b bytes.Buffer
			if err := f.fill(&b); err != nil {
				return CloseDoneMsg{text: tr.T("closeday.could_not_write_the_report"), err: err}
			}
			if err := export.WriteAtomic(filepath.Join(dir, f.name), func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
				return CloseDoneMsg{text: tr.T("closeday.could_not_write_the_report"), err: err}
			}
		}
		return CloseDoneMsg{text: tr.F("closeday.day_s_close_written_to_txt", filepath.Join(dir, base))}
	})
}

// print sends the 48-column receipt to the profile's print_command.
func (o *CloseOverlay) print() tea.Cmd {
	tr := o.c.Tr
	var argv []string
	if o.c.App.Sess != nil {
		argv = o.c.App.Sess.PrintCommand
	}
	if len(argv) == 0 {
		return func() tea.Msg {
			return common.StatusMsg{Text: tr.T("closeday.no_print_command_in_this_profile"), Kind: common.StatusWarn, Owner: CloseOwner}
		}
	}
	text := []byte(o.text(48))
	o.busy = tr.T("closeday.printing")
	return o.c.App.WithTimeout(printTimeout+5*time.Second, func(ctx context.Context) tea.Msg {
		if err := workflow.PrintReport(ctx, argv, text, printTimeout); err != nil {
			return CloseDoneMsg{text: tr.T("closeday.printing_failed"), err: err}
		}
		return CloseDoneMsg{text: tr.F("closeday.day_s_close_sent_to", argv[0])}
	})
}

// View renders it at the size it was given; it changes nothing.
func (o *CloseOverlay) View() string {
	st, tr := o.c.St, o.c.Tr
	w := o.width
	title := tr.F("closeday.day_s_close", o.day.From.In(o.c.Loc).Format("02/01/2006"))
	var right string
	switch {
	case o.busy != "":
		right = st.Muted.Render(o.busy)
	case o.loading:
		right = st.Muted.Render(tr.T("closeday.reading_figures_and_balances"))
	case o.Loaded && o.Rep.Partial:
		right = st.Warn.Render(tr.T("closeday.the_day_has_not_ended"))
	}
	if o.Loaded && !o.Vp.AtBottom() {
		right += st.Muted.Render(fmt.Sprintf(" · %.0f%% ↓", o.Vp.ScrollPercent()*100))
	}
	lines := []string{common.Spread(st.Brand.Render(title), right, w)}
	switch {
	case o.ErrText != "":
		lines = append(lines, common.WrapLines(o.ErrText, w, 3)...)
		lines = append(lines, st.Muted.Render(tr.T("closeday.r_tries_again_esc_closes")))
		return common.FitLines(lines, o.height)
	case !o.Loaded:
		lines = append(lines, st.Muted.Render(tr.T("closeday.reading_the_day_s_figures_and")))
		return common.FitLines(lines, o.height)
	}
	lines = append(lines, o.Vp.View())
	return common.FitLines(strings.Split(strings.Join(lines, "\n"), "\n"), o.height)
}

// ClockKey says nothing on the close changes with the clock: it is drawn from what was read
// (see common.Clocked).
func (o *CloseOverlay) ClockKey(time.Time) string { return "" }
