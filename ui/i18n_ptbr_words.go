package ui

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

// ptBRWords holds the pt-BR messages added for issue 21's wording defects.
var ptBRWords = map[string]string{
	"The service answered:": "O serviço respondeu:",
	"%d min":                "%d min",
	"<1 min":                "<1 min",
	"Another pixdash receives this profile's webhooks; this window shows the events it saves, and takes over when that one quits.": "Outro pixdash recebe os webhooks deste perfil; esta janela mostra os eventos que ele salva e assume quando ele fechar.",
	// main.go: a loopback sandbox profile registers its receiver with pixdash sandbox.
	"The local sandbox did not take this profile's webhook endpoint (a secret of 16 to 255 printable characters is needed): payments show up by polling only.": "O sandbox local não aceitou o endpoint de webhook deste perfil (o segredo precisa ter de 16 a 255 caracteres imprimíveis): os pagamentos aparecem só pela consulta periódica.",
	"DEMO · temporary": "DEMO · temporário",
	"READ-ONLY":        "SÓ LEITURA",
	"No charges yet. This profile is read-only: charges are created elsewhere.":                                                                             "Nenhuma cobrança ainda. Este perfil é somente leitura: as cobranças são criadas em outro lugar.",
	"No sub-accounts yet. This profile is read-only: sub-accounts are created elsewhere.":                                                                   "Nenhuma subconta ainda. Este perfil é somente leitura: as subcontas são criadas em outro lugar.",
	"The charge of %s is waiting for payment. This is the demo: the built-in emulator stops with pixdash, so it cannot be paid after quitting. Quit? (y/N)": "A cobrança de %s aguarda pagamento. Esta é a demonstração: o emulador interno para junto com o pixdash, e ela não poderá ser paga depois de sair. Sair? (s/N)",
	"(the whole amount)": "(o valor inteiro)",
	"Discard this sub-account? Nothing was sent. (y/N)": "Descartar esta subconta? Nada foi enviado. (s/N)",
	"Discard this withdrawal? Nothing was sent. (y/N)":  "Descartar este saque? Nada foi enviado. (s/N)",
	"name@example.com": "nome@exemplo.com",
	"order=1234":       "pedido=1234",
}

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
	ptBRTables = append(ptBRTables, ptBRWords)
	for k, v := range ptBREventKinds {
		ptBRAPI[k] = v
	}
}
