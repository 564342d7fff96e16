package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state/export"
)


// exportTimeout bounds one export from the dashboard (it streams the list a page at a time).
const exportTimeout = 5 * time.Minute

// exportOwner owns the export's status message.
const exportOwner = "export"

// export writes the list as it is on screen (wallet, status filter, text filter) to a new file
// in the exports directory, in a command; the status line says where it went. Update only
// gathers what the command needs.
func (v *chargesView) export() tea.Cmd {
	s := v.c.export
	tr := v.c.tr
	if s.Dir == "" {
		return func() tea.Msg {
			return statusMsg{text: tr.T("export.nowhere_to_write_the_export_set"), kind: statusError, owner: exportOwner}
		}
	}
	sess := v.c.app.sess
	profile := ""
	var opts export.Options
	if sess != nil {
		profile = sess.Profile
		opts.PixFee, opts.HasPixFee = sess.FeeEstimate() // the figures' rule (workflow.FeeEstimate)
	}
	opts.Format = export.BR
	if s.Format != nil {
		if f := s.Format(profile); f != "" {
			opts.Format = f
		}
	}
	opts.Query = v.query()
	opts.Location = v.c.loc
	path := filepath.Join(s.Dir, export.FileName(profile, v.c.now().In(v.c.loc), opts.Format))
	var store export.Source
	if v.store != nil {
		store = v.store
	}
	return v.c.app.withTimeout(exportTimeout, func(ctx context.Context) tea.Msg {
		n, err := writeExport(ctx, s.Dir, path, store, opts)
		if err != nil {
			return statusMsg{text: tr.F("export.export_failed", err), kind: statusError, owner: exportOwner}
		}
		return statusMsg{text: tr.N("export.exported_charges_to_n", n, n, path), kind: statusOK, owner: exportOwner}
	})
}

// writeExport creates the exports directory (mode 0700) and writes the export to path.
func writeExport(ctx context.Context, dir, path string, src export.Source, o export.Options) (int, error) {
	if src == nil {
		return 0, errors.New("no store")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	return export.WriteFile(ctx, path, src, o)
}
