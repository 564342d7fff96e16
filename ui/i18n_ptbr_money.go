package ui

// ptBRMoney holds the pt-BR texts of what happened to a charge's money (outcome.go).
var ptBRMoney = map[string]string{
	"returned":                       "devolvida",
	"blocked":                        "bloqueada",
	"refunded %s":                    "estornada %s",
	"returned to the payer (MED) %s": "devolvida ao pagador (MED) %s",
	"blocked (MED) %s":               "bloqueada (MED) %s",
	"not found at the service":       "não encontrada no serviço",
	"held %s":                        "retido %s",
	"returned by MED ":               "devolvido por MED ",
	"held by MED ":                   "retido por MED ",
	"−%s":                            "−%s",
	" · completed at the service":    " · concluída no serviço",
	"This charge was already refunded (%s); see the inspector.": "Esta cobrança já foi estornada (%s); veja o inspetor.",
	"RETURNED":  "DEVOLVIDO", // result banners agree with PAGO and ESTORNADO: o pagamento
	"BLOCKED":   "BLOQUEADO",
	"NOT FOUND": "NÃO ENCONTRADO",
}

func init() { ptBRTables = append(ptBRTables, ptBRMoney) }
