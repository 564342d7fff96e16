package ui

// ptBRCrash holds the pt-BR messages of refund claims between windows, the refunds settled
// at start, and the charge form's discard while a request may land.
var ptBRCrash = map[string]string{
	"pid %d":       "pid %d",
	"pid %d on %s": "pid %d em %s",
	"Not sent":     "Não enviado",
	"This refund is being sent by another window (%s) since %s; nothing was sent from here.":   "Este estorno está sendo enviado por outra janela (%s) desde %s; nada foi enviado daqui.",
	"%d refund(s) from an earlier session confirmed by the service: refunded.":                 "%d estorno(s) de uma sessão anterior confirmado(s) pelo serviço: estornado(s).",
	"%d refund(s) from an earlier session taken by the service; waiting for its confirmation.": "%d estorno(s) de uma sessão anterior aceito(s) pelo serviço; aguardando a confirmação.",
	"settle a refund": "concluir um estorno",
	"The charge's row shows its outcome; esc closes.": "A linha da cobrança mostra o resultado; esc fecha.",
}

func init() { ptBRTables = append(ptBRTables, ptBRCrash) }
