package ui

// ptBROnPaid holds the pt-BR messages about the profile's on_paid command.
var ptBROnPaid = map[string]string{
	"on_paid %s failed: %s · charge %s (%s)": "on_paid %s falhou: %s · cobrança %s (%s)",
	"program not found":                      "programa não encontrado",
	"timed out (killed)":                     "tempo esgotado (encerrado)",
	"exit code %d":                           "código de saída %d",
}
