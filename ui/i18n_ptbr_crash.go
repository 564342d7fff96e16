package ui

// ptBRCrash holds the pt-BR messages of refund claims between windows, the refunds settled
// at start, and the charge form's discard while a request may land.
var ptBRCrash = map[string]string{
	"pid %d":       "pid %d",
	"pid %d on %s": "pid %d em %s",
	"Not sent":     "Não enviado",
	"This refund is being sent by another window (%s) since %s; nothing was sent from here.":                                                      "Este estorno está sendo enviado por outra janela (%s) desde %s; nada foi enviado daqui.",
	"%d refund(s) from an earlier session confirmed by the service: refunded.":                                                                    "%d estorno(s) de uma sessão anterior confirmado(s) pelo serviço: estornado(s).",
	"%d refund(s) from an earlier session taken by the service; waiting for its confirmation.":                                                    "%d estorno(s) de uma sessão anterior aceito(s) pelo serviço; aguardando a confirmação.",
	"A request is being sent and may still create this charge. Discard the form? It will be recovered if it lands. (y/N)":                         "Uma requisição está sendo enviada e ainda pode criar esta cobrança. Descartar o formulário? Ela será recuperada se chegar. (s/N)",
	"A request was sent and may still have created this charge. Discard the form? It will be recovered if it landed. (y/N)":                       "Uma requisição foi enviada e pode ter criado esta cobrança. Descartar o formulário? Ela será recuperada se tiver chegado. (s/N)",
	"A request for this charge was sent and may still create it; quit anyway? pixdash looks it up by its key when the profile opens again. (y/N)": "Uma requisição desta cobrança foi enviada e ainda pode criá-la; sair mesmo assim? O pixdash a procura pela chave quando o perfil abrir de novo. (s/N)",
	"The charge of %s whose form was discarded was created after all; it is in the charges list.":                                                 "A cobrança de %s cujo formulário foi descartado foi criada afinal; está na lista de cobranças.",
	"settle a refund": "concluir um estorno",
	"The charge's row shows its outcome; esc closes.": "A linha da cobrança mostra o resultado; esc fecha.",
}

func init() { ptBRTables = append(ptBRTables, ptBRCrash) }
