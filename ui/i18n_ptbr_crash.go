package ui

// ptBRCrash holds the pt-BR messages of refund claims between windows, the refunds settled
// at start, and the charge form's discard while a request may land.
var ptBRCrash = map[string]string{
	"pid %d":       "pid %d",
	"pid %d on %s": "pid %d em %s",
	"Not sent":     "Não enviado",
	"This refund is being sent by another window (%s) since %s; nothing was sent from here.": "Este estorno está sendo enviado por outra janela (%s) desde %s; nada foi enviado daqui.",
	"The charge's row shows its outcome; esc closes.":                                        "A linha da cobrança mostra o resultado; esc fecha.",
}

func init() { ptBRTables = append(ptBRTables, ptBRCrash) }
