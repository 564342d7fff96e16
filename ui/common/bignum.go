// Package common is the dashboard's foundation: the component contract and reply envelopes, shared
// messages, styles, keys, the catalog's and the sanitizer's use, list and window, the form kit,
// confirm and picker overlays, the chart, and the words for errors and outcomes. It imports no
// view.
package common

import (
	"strings"

	"pixdash/api"
)

// BigGlyphs is a three-row font for amounts on the customer screen. It uses box-drawing
// characters, never block elements, so it cannot be mistaken for QR modules.
var BigGlyphs = map[rune][3]string{
	'0': {"┏━┓", "┃ ┃", "┗━┛"},
	'1': {" ┓ ", " ┃ ", " ┻ "},
	'2': {"━━┓", "┏━┛", "┗━━"},
	'3': {"━━┓", " ━┫", "━━┛"},
	'4': {"┃ ┃", "┗━┫", "  ┃"},
	'5': {"┏━━", "┗━┓", "━━┛"},
	'6': {"┏━━", "┣━┓", "┗━┛"},
	'7': {"━━┓", "  ┃", "  ┃"},
	'8': {"┏━┓", "┣━┫", "┗━┛"},
	'9': {"┏━┓", "┗━┫", "━━┛"},
	',': {" ", " ", "┛"},
	'.': {" ", " ", "·"},
	'-': {"  ", "━━", "  "},
	' ': {" ", " ", " "},
}

// BigAmount draws an amount as "R$" plus three-row digits; it returns nil if it is wider than w.
func BigAmount(m api.Money, w int) []string {
	text := strings.TrimPrefix(m.BRL(), "R$ ")
	neg := strings.HasPrefix(text, "-R$ ")
	if neg {
		text = "-" + strings.TrimPrefix(text, "-R$ ")
	}
	rows := [3]string{"   ", "   ", "R$ "}
	for _, r := range text {
		g, ok := BigGlyphs[r]
		if !ok {
			return nil
		}
		for i := range rows {
			rows[i] += g[i] + " "
		}
	}
	if len([]rune(rows[0])) > w {
		return nil
	}
	return rows[:]
}
