package ui

// ptBRFid holds the pt-BR words of issue 26's fidelity items: the receiver's environment check
// (item 7) and a reference the service refuses (item 4).
var ptBRFid = map[string]string{
	"wrong environment %d": "de outro ambiente %d",
	"wrong environment":    "de outro ambiente",
	"%s is not a valid reference (SUB_ACCOUNT_INVALID_REFERENCE): 2 to 32 characters (a-z, 0-9, - and _), starting with a letter or digit": "%s não é uma referência válida (SUB_ACCOUNT_INVALID_REFERENCE): 2 a 32 caracteres (a-z, 0-9, - e _), começando por letra ou dígito",
}

func init() { ptBRTables = append(ptBRTables, ptBRFid) }
