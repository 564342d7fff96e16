package ui

// ptBRFix holds the pt-BR wording of the fixes after issues 21 and 22: R on what is not a
// payment, fees reported by events, and refusals that were still English.
var ptBRFix = map[string]string{
	"Only payments can be refunded; this transaction is of type %s (%s).":                      "Só pagamentos podem ser estornados; esta transação é do tipo %s (%s).",
	"Only payments can be refunded; this is a refund line (%s), money that already went back.": "Só pagamentos podem ser estornados; este é um lançamento de estorno (%s), dinheiro que já voltou.",
	"Only payments can be refunded; this transaction has no amount received.":                  "Só pagamentos podem ser estornados; esta transação não tem valor recebido.",
	"%s + refund fee %s (reported, unconfirmed) = %s":                                          "%s + tarifa de estorno %s (informada, não confirmada) = %s",
	"fee %s (reported)":                           "tarifa %s (informada)",
	"net %s · fee %s (reported) · cost to you %s": "líquido %s · tarifa %s (informada) · custo para você %s",
	"%s (reported by the event, unconfirmed)":     "%s (segundo o evento; o serviço não confirma)",
}

func init() { ptBRTables = append(ptBRTables, ptBRFix) }
