package ui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
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
	gen, store, before := m.app.gen, m.app.sess.Store, m.c.now().AddDate(0, 0, -days)
	return withTimeout(pruneTimeout, func(ctx context.Context) tea.Msg {
		n, err := store.PruneEvents(ctx, before)
		return prunedMsg{gen: gen, days: days, n: n, err: err}
	})
}

func (m *Model) onPruned(msg prunedMsg) {
	switch {
	case msg.gen != m.app.gen:
	case msg.err != nil:
		m.setStatus(m.c.tr.F("Could not remove events older than %d days: %v", msg.days, msg.err), statusWarn)
	case msg.n > 0:
		m.setStatus(m.c.tr.F("Removed %d events older than %d days (event_retention_days).", msg.n, msg.days), statusInfo)
	}
}

// importNotice says, once, what was imported from an older pixdash's journal ("" when nothing).
func importNotice(tr catalog, r *state.ImportReport) string {
	if r == nil {
		return ""
	}
	s := tr.F("Imported %d charges, %d events and %d pending charge creations from the old journal.", r.Charges, r.Events, r.Submissions)
	if r.Damaged > 0 {
		s += " " + tr.F("%d damaged records were skipped.", r.Damaged)
	}
	return s + " " + tr.F("The old files are kept in %s as %s.", sanitize(r.Dir), sanitize(strings.Join(r.Kept, ", ")))
}
