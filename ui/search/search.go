// Package search is the dashboard's "customer says they paid" search.
package search

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
)

// "The customer says they paid": S opens a search across every wallet of the profile's store
// by end-to-end id, amount, payer name or time window (state/workflow/search.go). Each match is
// read back from the service before it is shown as paid; enter opens one in the inspector.

// FoundMsg is what the store found for search seq (not read back yet).
type FoundMsg struct {
	Tag     common.Tag
	seq     int
	q       state.ChargeSearch
	Matches []workflow.SearchMatch
	capped  bool
	Err     error
}

// CheckedMsg is the service's answers for the matches of search seq.
type CheckedMsg struct {
	Tag     common.Tag
	Seq     int
	Matches []workflow.SearchMatch
}

// Overlay is the search: a text field and the matches.
type Overlay struct {
	common.Closer
	c        *common.Common
	Input    textinput.Model
	Seq      int
	searched string // the text of the last search run
	q        state.ChargeSearch
	matches  []workflow.SearchMatch
	capped   bool
	found    bool // the store answered search seq
	reading  bool // the read-back of the matches runs
	err      string
	cursor   int
	width    int
	height   int
}

// NewSearchOverlay makes the search overlay.
func NewSearchOverlay(c *common.Common) *Overlay {
	ti := common.NewInput()
	ti.Prompt = "› "
	ti.Placeholder = c.Tr.T("search.e2e_id_amount_payer_or_14")
	ti.CharLimit = 80
	ti.Focus()
	return &Overlay{c: c, Input: ti}
}

// Layer says how the overlay is drawn.
func (o *Overlay) Layer() common.Layer { return common.LayerBody }

// Focus gives it the keyboard back.
func (o *Overlay) Focus() tea.Cmd { return textinput.Blink }

// Start begins its loading, once.
func (o *Overlay) Start() tea.Cmd { return nil }

// Blur runs when it leaves the screen or the keyboard.
func (o *Overlay) Blur() {}

// CapturesText reports whether printable keys belong to its text fields.
func (o *Overlay) CapturesText() bool { return true }

// SetSize gives it its room in cells.
func (o *Overlay) SetSize(w, h int) tea.Cmd {
	o.width, o.height = w, h
	o.Input.Width = max(min(w-4, 60), 10)
	return nil
}

// ShortHelp lists the overlay's keys.
func (o *Overlay) ShortHelp() []key.Binding {
	k := o.c.Keys
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", o.c.Tr.T("search.search_inspect"))),
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", o.c.Tr.T("search.move"))),
		k.Back,
	}
}

// FullHelp lists the overlay's keys.
func (o *Overlay) FullHelp() [][]key.Binding { return [][]key.Binding{o.ShortHelp()} }

// Update handles a key or a reply meant for it.
func (o *Overlay) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case FoundMsg:
		if msg.seq != o.Seq || o.c.App.Stale(msg.Tag) {
			return nil
		}
		o.found, o.q, o.matches, o.capped, o.cursor = true, msg.q, msg.Matches, msg.capped, 0
		if msg.Err != nil {
			o.err = common.DescribeErr(o.c.Tr, o.c.Tr.T("search.search_failed"), msg.Err)
			return nil
		}
		if len(o.matches) == 0 {
			return nil
		}
		o.reading = true
		return o.readBack(msg.seq, msg.Matches)
	case CheckedMsg:
		if msg.Seq != o.Seq || o.c.App.Stale(msg.Tag) {
			return nil
		}
		o.reading, o.matches = false, msg.Matches
		return nil
	case tea.KeyMsg:
		return o.handleKey(msg)
	}
	var cmd tea.Cmd
	o.Input, cmd = o.Input.Update(msg)
	return cmd
}

func (o *Overlay) handleKey(km tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(km, o.c.Keys.Back):
		o.Close()
		return nil
	case km.Type == tea.KeyUp:
		o.cursor = max(o.cursor-1, 0)
		return nil
	case km.Type == tea.KeyDown:
		o.cursor = max(min(o.cursor+1, len(o.matches)-1), 0)
		return nil
	case km.Type == tea.KeyEnter:
		text := strings.TrimSpace(o.Input.Value())
		if text == o.searched && o.found && len(o.matches) > 0 {
			ch := o.matches[o.cursor].Charge
			o.Close()
			return func() tea.Msg { return common.InspectMsg{Query: ch.ID, Wallet: ch.Wallet} }
		}
		return o.search(text)
	}
	var cmd tea.Cmd
	o.Input, cmd = o.Input.Update(km)
	return cmd
}

// search parses the text and runs the store's search in a command.
func (o *Overlay) search(text string) tea.Cmd {
	o.Seq++
	o.searched, o.found, o.reading, o.matches, o.capped, o.err, o.cursor = text, false, false, nil, false, "", 0
	q, err := workflow.ParseSearch(text, o.c.Now(), o.c.Loc)
	if err != nil {
		o.err = o.c.Tr.T("search.cannot_search") + ": " + o.c.Tr.T(common.Sanitize(common.AmountError(o.c.Tr, err).Error()))
		return nil
	}
	store := o.c.App.Sess.Store
	if store == nil {
		o.err = o.c.Tr.T("search.this_session_has_no_local_store")
		return nil
	}
	seq, t := o.Seq, o.c.App.Tag()
	return o.c.App.WithTimeout(common.PersistTimout, func(ctx context.Context) tea.Msg {
		ms, capped, err := workflow.FindCharges(ctx, store, q)
		return FoundMsg{Tag: t, seq: seq, q: q, Matches: ms, capped: capped, Err: err}
	})
}

// readBacker reads search matches back from the service (*workflow.Session does).
type readBacker interface {
	ReadBack(ctx context.Context, ms []workflow.SearchMatch) []workflow.SearchMatch
}

// readBack asks the service about every match.
func (o *Overlay) readBack(seq int, ms []workflow.SearchMatch) tea.Cmd {
	var rb readBacker = o.c.App.Sess
	t := o.c.App.Tag()
	return o.c.App.WithTimeout(common.CallTimeout*2, func(ctx context.Context) tea.Msg {
		return CheckedMsg{Tag: t, Seq: seq, Matches: rb.ReadBack(ctx, ms)}
	})
}

// what says what was searched, in the merchant's words.
func (o *Overlay) what() string {
	tr, q := o.c.Tr, o.q
	switch q.Kind {
	case state.SearchE2E:
		return tr.F("search.e2e_id", q.E2E)
	case state.SearchAmount:
		return tr.F("search.amount", q.Amount.BRL())
	case state.SearchPayer:
		return tr.F("search.payer_name_containing", q.Payer)
	case state.SearchWindow:
		loc := o.c.Loc
		return tr.F("search.created_or_paid_from_to", q.From.In(loc).Format("02/01/2006 15:04"), q.To.In(loc).Format("02/01/2006 15:04"))
	}
	return ""
}

// View renders it at the size it was given; it changes nothing.
func (o *Overlay) View() string {
	st, tr := o.c.St, o.c.Tr
	w := max(o.width, 20)
	var b strings.Builder
	profile := common.Sanitize(o.c.App.Sess.Profile)
	b.WriteString(st.Bold.Render(common.TruncateWidth(tr.T("search.the_customer_says_they_paid")+" · "+tr.F("search.every_wallet_of_profile", profile), w)) + "\n")
	b.WriteString(st.Muted.Render(common.TruncateWidth(tr.T("search.search_by_e2e_id_e_amount"), w)) + "\n\n")
	b.WriteString(o.Input.View() + "\n\n")
	switch {
	case o.err != "":
		b.WriteString(st.Err.Render(common.TruncateWidth(o.err, w)) + "\n")
	case o.searched == "":
	case !o.found:
		b.WriteString(st.Muted.Render(tr.T("search.searching")) + "\n")
	case len(o.matches) == 0:
		b.WriteString(st.Warn.Render(common.TruncateWidth(tr.F("search.no_charge_with_in_any_wallet", o.what(), profile), w)) + "\n")
	default:
		head := tr.N("search.charges_with_n", len(o.matches), len(o.matches), o.what())
		if o.capped {
			head += " · " + tr.F("search.showing_the_newest_narrow_the_search", state.MaxSearchResults)
		}
		if o.reading {
			head += " · " + tr.T("search.checking_with_the_service")
		}
		b.WriteString(common.TruncateWidth(head, w) + "\n")
		b.WriteString(o.rows(w, max(o.height-7, 1)))
	}
	return b.String()
}

// rows renders the matches around the cursor, one a line: the service's answer, amount,
// wallet, time, payer and e2e id.
func (o *Overlay) rows(w, h int) string {
	st, tr := o.c.St, o.c.Tr
	// A narrow terminal shows the e2e id on a line of its own under the match.
	twoLines := w < 110
	if twoLines {
		h = max(h/2, 1)
	}
	first := 0
	if o.cursor >= h {
		first = o.cursor - h + 1
	}
	var b strings.Builder
	for i := first; i < len(o.matches) && i < first+h; i++ {
		m := o.matches[i]
		ch := m.Charge
		var status string
		switch {
		case !m.Checked:
			status = st.Muted.Render(common.PadRight("… "+tr.T("search.checking"), 16)) // the header says with whom
		case m.Service == state.StateNotFound:
			sty, _ := st.StatusLine(m.Service)
			status = sty.Render(common.PadRight(common.StateText(tr, m.Service), 16))
		case m.Tx == nil:
			status = st.Err.Render(common.PadRight("! "+tr.T("search.not_confirmed"), 16))
		default:
			sty, _ := st.StatusLine(m.Service)
			status = sty.Render(common.PadRight(common.StateText(tr, m.Service), 16))
		}
		when := ch.CreatedAt
		if ch.PaidAt != nil {
			when = *ch.PaidAt
		}
		payer := common.Sanitize(ch.PayerName)
		if payer == "" {
			payer = "—"
		}
		e2e := common.Sanitize(ch.E2EID)
		if e2e == "" {
			e2e = "—"
		}
		line := status + " " + common.PadLeft(ch.Amount.BRL(), 13) + " " + common.PadRight(common.Sanitize(state.NormalizeWallet(ch.Wallet)), 12) + " " +
			when.In(o.c.Loc).Format("02/01 15:04") + " " + common.PadRight(payer, 18)
		if !twoLines {
			line += " " + e2e
		}
		mark := "  "
		if i == o.cursor {
			mark = "› "
		}
		line = common.PadRight(mark+line, w)
		if i == o.cursor {
			line = st.SelectedLine(line)
		}
		b.WriteString(line + "\n")
		if twoLines {
			b.WriteString(st.Muted.Render(common.TruncateWidth("    e2e "+e2e, w)) + "\n")
		}
		if m.Checked && m.Tx != nil && common.WentBack(m.Service) && i == o.cursor {
			// What went back or is held, with the amount: goods must not be handed over.
			b.WriteString(common.TruncateWidth("    "+common.OutcomeLine(st, tr, m.Outcome), w) + "\n")
		}
		if m.Checked && m.Err != nil && i == o.cursor {
			b.WriteString(st.Err.Render(common.TruncateWidth("  "+common.DescribeErr(tr, tr.T("search.read_back"), m.Err), w)) + "\n")
		}
	}
	return b.String()
}

// ClockKey says nothing on the search changes with the clock (see common.Clocked).
func (o *Overlay) ClockKey(time.Time) string { return "" }
