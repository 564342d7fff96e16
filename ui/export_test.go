package ui

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state/export"
	"pixdash/ui/charges"
	"pixdash/ui/common"
)

// exportKey presses E on m and returns the status message its command reports, after the
// root took it.
func exportKey(t *testing.T, m *Model) common.StatusMsg {
	t.Helper()
	_, cmd := m.Update(runeKey("E"))
	for _, msg := range runAll(cmd) {
		if st, ok := msg.(common.StatusMsg); ok && st.Owner == charges.ExportOwner {
			m.Update(reply(m, st))
			return st
		}
	}
	t.Fatal("E reported nothing")
	return common.StatusMsg{}
}

// setExport gives m export settings, as main does through Options.Export.
func setExport(m *Model, s common.ExportSettings) { m.c.Export = s }

// E on the charges view writes the list as it is on screen (wallet, status and text filters)
// to the exports directory, in the profile's dialect, and says where on the status line.
func TestExportKeyWritesTheCurrentList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "exports")
	settings := common.ExportSettings{Dir: dir}
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := goldenModel(t, s, 120, 40)
	setExport(m, settings)

	// Update does no I/O: the key alone creates nothing.
	_, cmd := m.Update(runeKey("E"))
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Update touched the disk: %v", err)
	}
	_ = cmd

	// The text filter narrows the export as it narrows the list.
	send(t, m, runeKey("/"))
	for _, r := range "festa" {
		send(t, m, runeKey(string(r)))
	}
	send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
	st := exportKey(t, m)
	if st.Kind != common.StatusOK || !strings.Contains(st.Text, "Exported 1 charge to ") {
		t.Fatalf("status %+v", st)
	}
	path := strings.TrimPrefix(st.Text, "Exported 1 charge to ")
	if want := filepath.Join(dir, export.FileName(s.Profile, goldenNow.In(time.UTC), export.BR)); path != want {
		t.Errorf("written to %s", path)
	}
	if out := m.View(); !strings.Contains(out, "Exported 1 charge to") {
		t.Errorf("the status line does not say where the file went:\n%s", out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if !bytes.HasPrefix(data, []byte("\uFEFF")) {
		t.Fatal("the default dialect is not BR (no BOM)")
	}
	r := csv.NewReader(bytes.NewReader(data[3:]))
	r.Comma = ';'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1][0] != "3f6c1a2e-0000-4000-8000-000000000003" || !strings.Contains(strings.Join(recs[1], ";"), "2500,00") {
		t.Fatalf("records %q", recs)
	}
}

func TestExportKeyFormatAndLanguage(t *testing.T) {
	dir := t.TempDir()
	var asked string
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	m := New(Options{Session: s, Lang: common.LangPT, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC,
		Export: common.ExportSettings{Dir: dir, Format: func(p string) export.Format { asked = p; return export.CSV }}})
	send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	settle(t, m, m.focusActive())
	st := exportKey(t, m)
	if !strings.HasPrefix(st.Text, "3 cobranças exportadas para ") { // the list is the principal wallet's
		t.Fatalf("status %q", st.Text)
	}
	if asked != s.Profile {
		t.Errorf("format asked for profile %q, want %q", asked, s.Profile)
	}
	data, err := os.ReadFile(strings.TrimPrefix(st.Text, "3 cobranças exportadas para "))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) || !bytes.HasPrefix(data, []byte("id,created_at,")) {
		t.Errorf("not the CSV dialect: %q", data[:min(len(data), 40)])
	}

	// Nowhere to write: said, in the merchant's language.
	setExport(m, common.ExportSettings{})
	if st := exportKey(t, m); st.Kind != common.StatusError || !strings.Contains(st.Text, "XDG_DATA_HOME") || !strings.HasPrefix(st.Text, "Sem onde gravar") {
		t.Errorf("status %+v", st)
	}
}
