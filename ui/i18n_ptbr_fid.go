package ui

// ptBRFid holds the pt-BR words of the receiver's environment check (issue 26, item 7).
var ptBRFid = map[string]string{
	"wrong environment %d": "de outro ambiente %d",
	"wrong environment":    "de outro ambiente",
}

func init() { ptBRTables = append(ptBRTables, ptBRFid) }
