package ui

// ptBRFix holds the pt-BR wording of the fixes after issues 21 and 22: R on what is not a
// payment, fees reported by events, and refusals that were still English.
var ptBRFix = map[string]string{
	"Only payments can be refunded; this transaction is of type %s (%s).":                      "Só pagamentos podem ser estornados; esta transação é do tipo %s (%s).",
	"Only payments can be refunded; this is a refund line (%s), money that already went back.": "Só pagamentos podem ser estornados; este é um lançamento de estorno (%s), dinheiro que já voltou.",
	"Only payments can be refunded; this transaction has no amount received.":                  "Só pagamentos podem ser estornados; esta transação não tem valor recebido.",
	"%s + refund fee %s (reported, unconfirmed) = %s":                                          "%s + tarifa de estorno %s (informada, não confirmada) = %s",
	"fee %s (reported)":                                                                  "tarifa %s (informada)",
	"net %s · fee %s (reported) · cost to you %s":                                        "líquido %s · tarifa %s (informada) · custo para você %s",
	"%s (reported by the event, unconfirmed)":                                            "%s (segundo o evento; o serviço não confirma)",
	"the withdrawal takes %s and the spendable balance is %s":                            "o saque leva %s e o saldo disponível é %s",
	"this refund is being sent by another window (pid %d) since %s":                      "este estorno está sendo enviado por outra janela (pid %d) desde %s",
	"the form lost the key minted when it opened; close it and open it again":            "o formulário perdeu a chave criada ao abrir; feche-o e abra de novo",
	"the service refunds the whole amount of a payment; partial refunds are not offered": "o serviço estorna o valor inteiro de um pagamento; estornos parciais não são oferecidos",
	"the reason must be at most %d characters":                                           "o motivo deve ter no máximo %d caracteres",
	"it could not be recorded before sending (nothing was sent)":                         "não foi possível registrar antes de enviar (nada foi enviado)",
	"Detail, in English:":                                                                "Detalhe, em inglês:",
	"invalid request (nothing was sent):":                                                "pedido inválido (nada foi enviado):",
	"(and %d more)":                                                                      "(e mais %d)",
	"file %s: %s":                                                                        "arquivo %s: %s",
}

func init() { ptBRTables = append(ptBRTables, ptBRFix) }
