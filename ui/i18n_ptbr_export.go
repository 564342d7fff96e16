package ui

// ptBRExport holds the pt-BR messages of the charges view's export key.
var ptBRExport = map[string]string{
	"export list": "exportar lista",
	"Nowhere to write the export: set XDG_DATA_HOME or HOME.": "Sem onde gravar a exportação: defina XDG_DATA_HOME ou HOME.",
	"Export failed: %v":         "A exportação falhou: %v",
	"Exported %d charge to %s":  "%d cobrança exportada para %s",
	"Exported %d charges to %s": "%d cobranças exportadas para %s",
}
