package charges

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/state/export"
	"pixdash/ui/common"
)

// exportTimeout bounds one export from the dashboard (it streams the list a page at a time).
const exportTimeout = 5 * time.Minute

// ExportOwner owns the export's status message.
const ExportOwner = "export"

// export writes the list as it is on screen (wallet, status filter, text filter) to a new file
// in the exports directory, in a command; the status line says where it went. Update only
// gathers what the command needs.
func (v *View) export() tea.Cmd {
	s := v.c.Export
	tr := v.c.Tr
	if s.Dir == "" {
		return func() tea.Msg {
			return common.StatusMsg{Text: tr.T("export.nowhere_to_write_the_export_set"), Kind: common.StatusError, Owner: ExportOwner}
		}
	}
	sess := v.c.App.Sess
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
	opts.Query = v.Query()
	opts.Location = v.c.Loc
	path := filepath.Join(s.Dir, export.FileName(profile, v.c.Now().In(v.c.Loc), opts.Format))
	var store export.Source
	if v.store != nil {
		store = v.store
	}
	return v.c.App.WithTimeout(exportTimeout, func(ctx context.Context) tea.Msg {
		n, err := writeExport(ctx, s.Dir, path, store, opts)
		if err != nil {
			return common.StatusMsg{Text: tr.F("export.export_failed", err), Kind: common.StatusError, Owner: ExportOwner}
		}
		return common.StatusMsg{Text: tr.N("export.exported_charges_to_n", n, n, path), Kind: common.StatusOK, Owner: ExportOwner}
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
