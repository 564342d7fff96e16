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
