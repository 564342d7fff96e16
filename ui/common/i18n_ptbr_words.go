package common

import "pixdash/api"

// Glossary of the pt-BR catalog (issue 21): one word per idea, everywhere.
//
//	charge                 cobrança
//	fee                    tarifa (never "taxa")
//	refund                 estorno, estornar, estornada (never "devolução")
//	split leg              parte (never "parcela")
//	withdrawal             saque; reversed: revertido
//	balance block          bloqueio
//	wallet / sub-account   carteira / subconta
//	webhook event          evento; the service's notice of one: aviso
//	yes / no               sim / não; questions end "(s/N)" and s (or y) answers yes
//	read-only profile      perfil somente leitura
//
// Event kinds, statuses and types are shown by their labels (catalog.Enum), never by their
// wire names (payment_completed, refund_completed).

// ptBREventKinds are the pt-BR labels of the webhook event kinds (enumEN has the English ones).
var ptBREventKinds = map[any]string{
	api.EventPaymentCompleted:     "pagamento recebido",
	api.EventPaymentExpired:       "cobrança expirada",
	api.EventPaymentFailed:        "pagamento com falha",
	api.EventRefundCompleted:      "estorno concluído",
	api.EventWithdrawalCompleted:  "saque concluído",
	api.EventWithdrawalFailed:     "saque com falha",
	api.EventWithdrawalReversed:   "saque revertido",
	api.EventBalanceBlockCreated:  "bloqueio aberto",
	api.EventBalanceBlockApproved: "bloqueio aprovado",
	api.EventBalanceBlockRejected: "bloqueio rejeitado",
}

func init() {
	for k, v := range ptBREventKinds {
		PtBRAPI[k] = v
	}
}
