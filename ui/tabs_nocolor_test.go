package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"pixdash/api"
	"pixdash/ui/common"
)

// Under NO_COLOR the active tab keeps a cue that is not a colour: reverse video, as the
// selected row (underline and bold go with the colours). Only the active tab has it, in both
// languages, and the new-charge form's tab has it while the form is open.
func TestActiveTabVisibleWithoutColor(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii) // NO_COLOR
	rev := func(s string) string { return common.SgrReverse + s + common.SgrNoReverse }
	for _, tc := range []struct {
		lang               common.Lang
		first, second, new string
	}{
		{common.LangEN, "1 Charges", "2 Inspector", "New charge"},
		{common.LangPT, "1 Cobranças", "2 Inspetor", "Nova cobrança"},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			m := New(Options{Session: s, Lang: tc.lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
			send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
			tabs := func() string {
				for _, l := range strings.Split(m.View(), "\n") {
					if strings.Contains(l, tc.second) {
						return l
					}
				}
				t.Fatalf("no tab line:\n%s", m.View())
				return ""
			}
			if l := tabs(); !strings.Contains(l, rev(tc.first)) || strings.Contains(l, rev(tc.second)) || strings.Count(l, common.SgrReverse) != 1 {
				t.Fatalf("charges active: %q", l)
			}
			m.Update(runeKey("2"))
			if l := tabs(); !strings.Contains(l, rev(tc.second)) || strings.Contains(l, rev(tc.first)) || strings.Count(l, common.SgrReverse) != 1 {
				t.Fatalf("inspector active: %q", l)
			}
			m.Update(runeKey("1"))
			m.Update(runeKey("n"))
			if l := tabs(); !strings.Contains(l, rev(tc.new)) || strings.Count(l, common.SgrReverse) != 1 {
				t.Fatalf("new charge form open: %q", l)
			}
		})
	}
}
