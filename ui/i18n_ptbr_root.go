package ui

// ptBRRoot holds the pt-BR messages of the root: the header's light, the help overlay.
var ptBRRoot = map[string]string{
	"answered %s ago":      "respondeu há %s",
	"retrying":             "tentando de novo",
	"credentials refused":  "credenciais recusadas",
	"↑/↓ scroll (%d%%) · ": "↑/↓ rola (%d%%) · ",
}
