package common

import (
	"strings"
	"time"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/export"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Common is what every view shares: size, styles, keys, languages and the clock.
type Common struct {
	Width, Height int
	St            *Styles
	Keys          KeyMap
	Tr            Catalog // merchant-facing language
	Cust          Catalog // customer-facing language (QR and result screens)
	Now           func() time.Time
	Loc           *time.Location // times are shown in this zone
	App           *AppState      // the live session and wallet
	NewKey        func() string  // mints Idempotency-Keys
	Export        ExportSettings // where and how the charges view's E writes
	ASCII         bool           // chart glyphs in ASCII
	DarkBG        bool           // the terminal's background is dark (see Options.DarkBackground)
	Open          Openers        // the overlays a view opens but another package owns
}

// Openers make the overlays that a view opens and another package owns (the refund and
// withdrawal forms): the root fills them in, so that no view imports another.
type Openers struct {
	// Refund is R on a charge: the refund form, or a status line saying why not.
	Refund func(c *Common, ch state.Charge) (Overlay, tea.Cmd)
	// RefundTx is R in the inspector: the charge as tracked (tracked), else as the service
	// showed it (tx, in wallet).
	RefundTx func(c *Common, ch state.Charge, tracked bool, tx *api.Transaction, wallet string) (Overlay, tea.Cmd)
	// Withdrawal is s on a wallet: the withdrawal form, or a status line saying why not.
	Withdrawal func(c *Common, wallet string, spendable *api.Money, readAt time.Time) (Overlay, tea.Cmd)
}

// TruncateWidth cuts s to at most w cells, with an ellipsis when cut.
func TruncateWidth(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// PadRight pads s with spaces to exactly w cells (cutting when longer).
func PadRight(s string, w int) string {
	s = TruncateWidth(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return s + Spaces(n)
	}
	return s
}

// PadLeft right-aligns s in w cells.
func PadLeft(s string, w int) string {
	s = TruncateWidth(s, w)
	if n := w - lipgloss.Width(s); n > 0 {
		return Spaces(n) + s
	}
	return s
}

const spaceRun = "                                                                                                                                "

// Spaces is n spaces.
func Spaces(n int) string {
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

// ChunkCells sanitizes s and cuts it into lines of at most w cells (at least one cell each), for
// long unbroken texts such as a PIX copy-and-paste code.
func ChunkCells(s string, w int) []string {
	s = Sanitize(s)
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
