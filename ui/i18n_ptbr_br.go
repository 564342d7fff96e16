package ui

// ptBRBR holds the pt-BR texts of the Brazilian document, key and amount checks (api/brdoc,
// the ambiguous amount).
var ptBRBR = map[string]string{
	"a CPF has 11 digits and a CNPJ 14 characters (got %d)":                "um CPF tem 11 dígitos e um CNPJ 14 caracteres (há %d)",
	"use only digits, letters (CNPJ), dots, dashes and a slash":            "use apenas dígitos, letras (CNPJ), pontos, traços e uma barra",
	"a CPF has digits only":                                                "um CPF tem apenas dígitos",
	"a CPF with all 11 digits the same (like 111.111.111-11) is not valid": "um CPF com os 11 dígitos iguais (como 111.111.111-11) não é válido",
	"a CNPJ ends in two check digits (0-9)":                                "um CNPJ termina em dois dígitos verificadores (0-9)",
	"a CNPJ with all 14 characters the same is not valid":                  "um CNPJ com os 14 caracteres iguais não é válido",
	"%s could be %s or %s: write %s or %s (or %s)":                         "%s pode ser %s ou %s: escreva %s ou %s (ou %s)",
	"= %s or %s?":                  "= %s ou %s?",
	"a CNPJ key has 14 characters": "uma chave CNPJ tem 14 caracteres",
}

func init() { ptBRTables = append(ptBRTables, ptBRBR) }
