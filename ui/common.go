package ui

import (
	"pixdash/state/export"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// common is what every view shares: size, styles, keys, languages and the clock.
type common struct {
	width, height int
	st            *styles
	keys          keyMap
	tr            catalog // merchant-facing language
	cust          catalog // customer-facing language (QR and result screens)
	now           func() time.Time
	loc           *time.Location // times are shown in this zone
	app           *appState      // the live session and wallet
	newKey        func() string  // mints Idempotency-Keys
	export        ExportSettings // where and how the charges view's E writes
	ascii         bool           // chart glyphs in ASCII
	darkBG        bool           // the terminal's background is dark (see Options.DarkBackground)
}

// truncateWidth cuts s to at most w cells, with an ellipsis when cut.
func truncateWidth(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// padRight pads s with spaces to exactly w cells (cutting when longer).
func padRight(s string, w int) string {
	s = truncateWidth(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return s + spaces(n)
	}
	return s
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	s = truncateWidth(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return spaces(n) + s
	}
	return s
}

const spaceRun = "                                                                                                                                "

func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	if n <= len(spaceRun) {
		return spaceRun[:n]
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// chunkCells sanitizes s and cuts it into lines of at most w cells (at least one cell each), for
// long unbroken texts such as a PIX copy-and-paste code.
func chunkCells(s string, w int) []string {
	s = sanitize(s)
	w = max(w, 1)
	var out []string
	var cur strings.Builder
	curW := 0
	for _, r := range s {
		rw := ansi.StringWidth(string(r))
		if curW > 0 && curW+rw > w {
			out = append(out, cur.String())
			cur.Reset()
			curW = 0
		}
		cur.WriteRune(r)
		curW += rw
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// ExportSettings say where the charges view's export key (E) writes and in which dialect.
type ExportSettings struct {
	// Dir is the exports directory ($XDG_DATA_HOME/pixdash/exports); "" leaves the key saying
	// there is nowhere to write.
	Dir string
	// Format is a profile's export_format (nil, or "" for a profile: export.BR).
	Format func(profile string) export.Format
}
