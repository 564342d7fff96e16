package ui

import "pixdash/ui/common"

// The dashboard's public names that live in its foundation package (ui/common).
type (
	// Lang is a user-interface language.
	Lang = common.Lang
	// ExportSettings say where the charges view's export key (E) writes and in which dialect.
	ExportSettings = common.ExportSettings
)

// Supported languages.
const (
	LangEN = common.LangEN
	LangPT = common.LangPT
)

// ParseLang maps a config value to a Lang (default English).
func ParseLang(s string) Lang { return common.ParseLang(s) }

// SafeLogHandler wraps a slog handler so every logged string passes the one sanitizer.
var SafeLogHandler = common.SafeLogHandler
