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
	// a damaged state database
	"The state database is damaged and the figures may be wrong: quit and run pixdash db repair --profile %s (%s)": "O banco de dados local está danificado e os valores podem estar errados: saia e execute pixdash db repair --profile %s (%s)",
	"database damaged: pixdash db repair": "banco danificado: pixdash db repair",
	// a profile whose webhook port another program holds
	"The webhook port %s is in use by another program: this window opens without a receiver and keeps trying.": "A porta de webhooks %s está em uso por outro programa: esta janela abre sem receptor e continua tentando.",
	"No webhook receiver: %s is in use by another program; trying again. These are saved events.":              "Sem receptor de webhooks: %s está em uso por outro programa; tentando de novo. Estes são eventos salvos.",
}

func init() { ptBRTables = append(ptBRTables, ptBRStore) }
