package ui

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/state/workflow"
)

// "The customer says they paid": S opens a search across every wallet of the profile's store
// by end-to-end id, amount, payer name or time window (state/workflow/search.go). Each match is
// read back from the service before it is shown as paid; enter opens one in the inspector.

// searchFoundMsg is what the store found for search seq (not read back yet).
type searchFoundMsg struct {
	tag     tag
	seq     int
	q       state.ChargeSearch
	matches []workflow.SearchMatch
	capped  bool
	err     error
}

// searchCheckedMsg is the service's answers for the matches of search seq.
type searchCheckedMsg struct {
	tag     tag
	seq     int
	matches []workflow.SearchMatch
}

// searchOverlay is the search: a text field and the matches.
type searchOverlay struct {
	closer
	c        *common
	input    textinput.Model
	seq      int
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

func newSearchOverlay(c *common) *searchOverlay {
	ti := textinput.New()
	ti.Prompt = "› "
	ti.Placeholder = c.tr.T("E2E id, amount, payer or 14:00-14:30")
	ti.CharLimit = 80
	ti.Focus()
	return &searchOverlay{c: c, input: ti}
}

func (o *searchOverlay) layer() layer       { return layerBody }
func (o *searchOverlay) focus() tea.Cmd     { return textinput.Blink }
func (o *searchOverlay) blur()              {}
func (o *searchOverlay) capturesText() bool { return true }
func (o *searchOverlay) setSize(w, h int) {
	o.width, o.height = w, h
	o.input.Width = max(min(w-4, 60), 10)
}

// ShortHelp lists the overlay's keys.
func (o *searchOverlay) ShortHelp() []key.Binding {
	k := o.c.keys
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", o.c.tr.T("search / inspect"))),
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", o.c.tr.T("move"))),
		k.Back,
	}
}

// FullHelp lists the overlay's keys.
func (o *searchOverlay) FullHelp() [][]key.Binding { return [][]key.Binding{o.ShortHelp()} }

func (o *searchOverlay) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchFoundMsg:
		if msg.seq != o.seq || o.c.app.stale(msg.tag) {
			return nil
		}
		o.found, o.q, o.matches, o.capped, o.cursor = true, msg.q, msg.matches, msg.capped, 0
		if msg.err != nil {
			o.err = describeErr(o.c.tr, o.c.tr.T("Search failed"), msg.err)
			return nil
		}
		if len(o.matches) == 0 {
			return nil
		}
		o.reading = true
		return o.readBack(msg.seq, msg.matches)
	case searchCheckedMsg:
		if msg.seq != o.seq || o.c.app.stale(msg.tag) {
			return nil
		}
		o.reading, o.matches = false, msg.matches
		return nil
	case tea.KeyMsg:
		return o.handleKey(msg)
	}
	var cmd tea.Cmd
	o.input, cmd = o.input.Update(msg)
	return cmd
}

func (o *searchOverlay) handleKey(km tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(km, o.c.keys.Back):
		o.close()
		return nil
	case km.Type == tea.KeyUp:
		o.cursor = max(o.cursor-1, 0)
		return nil
	case km.Type == tea.KeyDown:
		o.cursor = max(min(o.cursor+1, len(o.matches)-1), 0)
		return nil
	case km.Type == tea.KeyEnter:
		text := strings.TrimSpace(o.input.Value())
		if text == o.searched && o.found && len(o.matches) > 0 {
			ch := o.matches[o.cursor].Charge
			o.close()
			return func() tea.Msg { return inspectMsg{query: ch.ID, wallet: ch.Wallet} }
		}
		return o.search(text)
	}
	var cmd tea.Cmd
	o.input, cmd = o.input.Update(km)
	return cmd
}

// search parses the text and runs the store's search in a command.
func (o *searchOverlay) search(text string) tea.Cmd {
	o.seq++
	o.searched, o.found, o.reading, o.matches, o.capped, o.err, o.cursor = text, false, false, nil, false, "", 0
	q, err := workflow.ParseSearch(text, o.c.now(), o.c.loc)
	if err != nil {
		o.err = o.c.tr.T("Cannot search") + ": " + o.c.tr.T(sanitize(amountError(o.c.tr, err).Error()))
		return nil
	}
	store := o.c.app.sess.Store
	if store == nil {
		o.err = o.c.tr.T("This session has no local store to search.")
		return nil
	}
	seq, t := o.seq, o.c.app.tag()
	return o.c.app.withTimeout(persistTimout, func(ctx context.Context) tea.Msg {
		ms, capped, err := workflow.FindCharges(ctx, store, q)
		return searchFoundMsg{tag: t, seq: seq, q: q, matches: ms, capped: capped, err: err}
	})
}

// readBacker reads search matches back from the service (*workflow.Session does).
type readBacker interface {
	ReadBack(ctx context.Context, ms []workflow.SearchMatch) []workflow.SearchMatch
}

// readBack asks the service about every match.
func (o *searchOverlay) readBack(seq int, ms []workflow.SearchMatch) tea.Cmd {
	var rb readBacker = o.c.app.sess
	t := o.c.app.tag()
	return o.c.app.withTimeout(callTimeout*2, func(ctx context.Context) tea.Msg {
		return searchCheckedMsg{tag: t, seq: seq, matches: rb.ReadBack(ctx, ms)}
	})
}

// what says what was searched, in the merchant's words.
func (o *searchOverlay) what() string {
	tr, q := o.c.tr, o.q
	switch q.Kind {
	case state.SearchE2E:
		return tr.F("e2e id %s", q.E2E)
	case state.SearchAmount:
		return tr.F("amount %s", q.Amount.BRL())
	case state.SearchPayer:
		return tr.F("payer name containing “%s”", q.Payer)
	case state.SearchWindow:
		loc := o.c.loc
		return tr.F("created or paid from %s to %s", q.From.In(loc).Format("02/01/2006 15:04"), q.To.In(loc).Format("02/01/2006 15:04"))
	}
	return ""
}

func (o *searchOverlay) view() string {
	st, tr := o.c.st, o.c.tr
	w := max(o.width, 20)
	var b strings.Builder
	profile := sanitize(o.c.app.sess.Profile)
	b.WriteString(st.Bold.Render(truncateWidth(tr.T("The customer says they paid")+" · "+tr.F("every wallet of profile %s", profile), w)) + "\n")
	b.WriteString(st.Muted.Render(truncateWidth(tr.T("Search by e2e id (E…), amount (49,90), payer name, or time (14:00-14:30, 23/11)."), w)) + "\n\n")
	b.WriteString(o.input.View() + "\n\n")
	switch {
	case o.err != "":
		b.WriteString(st.Err.Render(truncateWidth(o.err, w)) + "\n")
	case o.searched == "":
	case !o.found:
		b.WriteString(st.Muted.Render(tr.T("searching…")) + "\n")
	case len(o.matches) == 0:
		b.WriteString(st.Warn.Render(truncateWidth(tr.F("No charge with %s in any wallet of profile %s.", o.what(), profile), w)) + "\n")
	default:
		head := tr.N(len(o.matches), "%d charge with %s", "%d charges with %s", len(o.matches), o.what())
		if o.capped {
			head += " · " + tr.F("showing the newest %d; narrow the search", state.MaxSearchResults)
		}
		if o.reading {
			head += " · " + tr.T("checking with the service…")
		}
		b.WriteString(truncateWidth(head, w) + "\n")
		b.WriteString(o.rows(w, max(o.height-7, 1)))
	}
	return b.String()
}

// rows renders the matches around the cursor, one a line: the service's answer, amount,
// wallet, time, payer and e2e id.
func (o *searchOverlay) rows(w, h int) string {
	st, tr := o.c.st, o.c.tr
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
			status = st.Muted.Render(padRight("… "+tr.T("checking…"), 16)) // the header says with whom
		case m.Service == state.StateNotFound:
			sty, _ := st.status(m.Service)
			status = sty.Render(padRight(stateText(tr, m.Service), 16))
		case m.Tx == nil:
			status = st.Err.Render(padRight("! "+tr.T("not confirmed"), 16))
		default:
			sty, _ := st.status(m.Service)
			status = sty.Render(padRight(stateText(tr, m.Service), 16))
		}
		when := ch.CreatedAt
		if ch.PaidAt != nil {
			when = *ch.PaidAt
		}
		payer := sanitize(ch.PayerName)
		if payer == "" {
			payer = "—"
		}
		e2e := sanitize(ch.E2EID)
		if e2e == "" {
			e2e = "—"
		}
		line := status + " " + padLeft(ch.Amount.BRL(), 13) + " " + padRight(sanitize(state.NormalizeWallet(ch.Wallet)), 12) + " " +
			when.In(o.c.loc).Format("02/01 15:04") + " " + padRight(payer, 18)
		if !twoLines {
			line += " " + e2e
		}
		mark := "  "
		if i == o.cursor {
			mark = "› "
		}
		line = padRight(mark+line, w)
		if i == o.cursor {
			line = st.selected(line)
		}
		b.WriteString(line + "\n")
		if twoLines {
			b.WriteString(st.Muted.Render(truncateWidth("    e2e "+e2e, w)) + "\n")
		}
		if m.Checked && m.Tx != nil && wentBack(m.Service) && i == o.cursor {
			// What went back or is held, with the amount: goods must not be handed over.
			b.WriteString(truncateWidth("    "+outcomeLine(st, tr, m.Outcome), w) + "\n")
		}
		if m.Checked && m.Err != nil && i == o.cursor {
			b.WriteString(st.Err.Render(truncateWidth("  "+describeErr(tr, tr.T("read-back"), m.Err), w)) + "\n")
		}
	}
	return b.String()
}
