package ui

// ptBRStore holds the pt-BR messages about the webhook receiver's refusals and about a profile
// opened without its receiver.
var ptBRStore = map[string]string{
	// the receiver's counters and its last refusal (Events view)
	"too slow %d":                  "lentos demais %d",
	"connections refused %d":       "conexões recusadas %d",
	"last: %s %s":                  "última: %s %s",
	"bad signature":                "assinatura inválida",
	"timestamp outside the window": "horário fora da janela",
	"too large":                    "grande demais",
	"not an event":                 "não é um evento",
	"body too slow":                "corpo lento demais",
}

func init() { ptBRTables = append(ptBRTables, ptBRStore) }
