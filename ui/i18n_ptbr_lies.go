package ui

// ptBRLies holds the pt-BR wording of the read-back verdicts of events that lie (issue 22).
var ptBRLies = map[string]string{
	"%s, but the service says it is a %s line":      "%s, mas o serviço diz que é um lançamento %s",
	"the account has no wallet %s":                  "a conta não tem a carteira %s",
	"refund line %s does not belong to charge %s":   "o lançamento de estorno %s não é da cobrança %s",
	"refund line %s is already counted (charge %s)": "o lançamento de estorno %s já foi contado (cobrança %s)",
	"Split reported by the event":                   "Split informado pelo evento",
	"unconfirmed, not counted":                      "não confirmado, fora das contas",
}

func init() { ptBRTables = append(ptBRTables, ptBRLies) }
