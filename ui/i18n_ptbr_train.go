package ui

// ptBRTrain holds the pt-BR messages of training mode: badge, checklist and summary.
var ptBRTrain = map[string]string{
	"TRAINING": "TREINAMENTO",
	"Go to the charges (1) and select the customer's line first.": "Vá para as cobranças (1) e selecione primeiro a linha do cliente.",
	"Select the customer's line first.":                           "Selecione primeiro a linha do cliente.",
	"Goods not handed over: %s.":                                  "Mercadoria não entregue: %s.",
	"Goods handed over: %s.":                                      "Mercadoria entregue: %s.",
	"step %d/%d":                                                  "passo %d/%d",
	"The scenario is starting…":                                   "O cenário está começando…",
	"Scenario finished: T shows the summary.":                     "Cenário concluído: T mostra o resumo.",
	"T checklist":                                                 "T lista",
	"Now:":                                                        "Agora:",
	"any key closes":                                              "qualquer tecla fecha",
	"Summary: %s":                                                 "Resumo: %s",
	"Done right":                                                  "Feito certo",
	"Missed":                                                      "Faltou",
	"%d of %d done right.":                                        "%d de %d feitos certo.",
	"esc back to the dashboard · q quit":                          "esc volta ao painel · q sai",
}

func init() { ptBRTables = append(ptBRTables, ptBRTrain) }
