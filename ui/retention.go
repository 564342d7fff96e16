package ui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/state/workflow"
)

// pruneTimeout bounds the start-of-session removal of old events.
const pruneTimeout = 2 * time.Minute

// prunedMsg reports the removal of events older than the profile's retention.
type prunedMsg struct {
	gen  uint64
	days int
	n    int
	err  error
}

// pruneEvents removes the events older than the session's retention (event_retention_days),
// in a command: the dashboard works meanwhile.
func (m *Model) pruneEvents() tea.Cmd {
	days := m.app.sess.EventRetentionDays
	if days <= 0 {
		return nil
	}
	gen, store, now := m.app.gen, m.app.sess.Store, m.c.now()
	return m.app.withTimeout(pruneTimeout, func(ctx context.Context) tea.Msg {
		n, err := workflow.PruneEvents(ctx, store, now, days)
		return prunedMsg{gen: gen, days: days, n: n, err: err}
	})
}

func (m *Model) onPruned(msg prunedMsg) {
	switch {
	case msg.gen != m.app.gen:
	case msg.err != nil:
		m.setStatus(m.c.tr.F("Could not remove events older than %s: %v", m.c.tr.N(msg.days, "%d day", "%d days"), msg.err), statusWarn)
	case msg.n > 0:
		m.setStatus(m.c.tr.N(msg.n, "Removed %d event older than %s (event_retention_days).", "Removed %d events older than %s (event_retention_days).", msg.n, m.c.tr.N(msg.days, "%d day", "%d days")), statusInfo)
	}
}

// importNotice says, once, what was imported from an older pixdash's journal ("" when nothing).
func importNotice(tr catalog, r *state.ImportReport) string {
	if r == nil {
		return ""
	}
	s := tr.F("Imported %s, %s and %s from the old journal.", tr.N(r.Charges, "%d charge", "%d charges"), tr.N(r.Events, "%d event", "%d events"), tr.N(r.Submissions, "%d pending charge creation", "%d pending charge creations"))
	if r.Damaged > 0 {
		s += " " + tr.N(r.Damaged, "%d damaged record was skipped.", "%d damaged records were skipped.")
	}
	return s + " " + tr.F("The old files are kept in %s as %s.", sanitize(r.Dir), sanitize(strings.Join(r.Kept, ", ")))
}
