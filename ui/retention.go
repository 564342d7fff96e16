package ui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state"
	"pixdash/state/workflow"
	"pixdash/ui/common"
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
	days := m.app.Sess.EventRetentionDays
	if days <= 0 {
		return nil
	}
	gen, store, now := m.app.Gen, m.app.Sess.Store, m.c.Now()
	return m.app.WithTimeout(pruneTimeout, func(ctx context.Context) tea.Msg {
		n, err := workflow.PruneEvents(ctx, store, now, days)
		return prunedMsg{gen: gen, days: days, n: n, err: err}
	})
}

func (m *Model) onPruned(msg prunedMsg) {
	switch {
	case msg.gen != m.app.Gen:
	case msg.err != nil:
		m.setStatus(m.c.Tr.F("retention.could_not_remove_events_older_than", m.c.Tr.N("retention.days_n", msg.days), msg.err), common.StatusWarn)
	case msg.n > 0:
		m.setStatus(m.c.Tr.N("retention.removed_events_older_than_event_retention_n", msg.n, msg.n, m.c.Tr.N("retention.days_n", msg.days)), common.StatusInfo)
	}
}

// importNotice says, once, what was imported from an older pixdash's journal ("" when nothing).
func importNotice(tr common.Catalog, r *state.ImportReport) string {
	if r == nil {
		return ""
	}
	s := tr.F("retention.imported_and_from_the_old_journal", tr.N("retention.charges_n", r.Charges), tr.N("retention.events_n", r.Events), tr.N("retention.pending_charge_creations_n", r.Submissions))
	if r.Damaged > 0 {
		s += " " + tr.N("retention.damaged_records_were_skipped_n", r.Damaged)
	}
	return s + " " + tr.F("retention.the_old_files_are_kept_in", common.Sanitize(r.Dir), common.Sanitize(strings.Join(r.Kept, ", ")))
}
