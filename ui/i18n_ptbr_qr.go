package ui

// ptBRQR holds the pt-BR messages of the QR and result screens and of the new-charge form's
// guards and metadata field.
var ptBRQR = map[string]string{
	// QR screen: the customer's side
	"Merchant: ": "Recebedor: ",
	// QR screen: the merchant's side
	"charge %s": "cobrança %s",
	"The QR needs a %dx%d terminal (now %dx%d): enlarge the window or make the font smaller.": "O QR precisa de um terminal de %dx%d (agora %dx%d): aumente a janela ou diminua a fonte.",
	"quit (asks first)": "sair (pergunta antes)",
	"The charge of %s is waiting for payment and can still be paid after pixdash quits. Quit? (y/N)": "A cobrança de %s aguarda pagamento e ainda pode ser paga depois que o pixdash fechar. Sair? (s/N)",
	"PIX code copied": "Código PIX copiado",
	// new-charge form: guards
	"Discard this charge? Nothing was sent. (y/N)":                         "Descartar esta cobrança? Nada foi enviado. (s/N)",
	"Quit and discard the charge being filled in? Nothing was sent. (y/N)": "Sair e descartar a cobrança em preenchimento? Nada foi enviado. (s/N)",
	// new-charge form: metadata
	"e.g. mesa=4 garcom=João Silva · separate pairs with a space, ; or a new line · put a value with = in quotes": "ex.: mesa=4 garcom=João Silva · separe os pares com espaço, ; ou nova linha · ponha entre aspas um valor com =",
	"sends %d pair: %s":                     "envia %d par: %s",
	"sends %d pairs: %s":                    "envia %d pares: %s",
	"%q: write key=value":                   "%q: escreva chave=valor",
	"key %q appears twice":                  "a chave %q aparece duas vezes",
	"%q: the closing quote (\") is missing": "%q: falta fechar as aspas (\")",
}
