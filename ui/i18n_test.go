package ui

import (
	"testing"

	"pixdash/ui/common"
)

// The ui catalog reads pixdash/api/i18n by id (whose tests check the tables: missing, unused and
// colliding ids), falls back to the English data's translation, and sanitizes what it returns.
func TestCatalogFallsBackToEnglish(t *testing.T) {
	pt, en := common.Catalog{Lang: common.LangPT}, common.Catalog{Lang: common.LangEN}
	if got := pt.T("day.paid_caps"); got != "PAGAS" {
		t.Fatalf("the Sales table's PAID in pt-BR = %q, want PAGAS", got)
	}
	word := "PAID" // a state word, English data (the customer screen's banner)
	if got := pt.T(word); got != "PAGO" {
		t.Fatalf("the state PAID in pt-BR = %q, want PAGO", got)
	}
	if got := en.T("day.paid_caps"); got != "PAID" {
		t.Fatalf("PAID in en = %q", got)
	}
	if got := pt.T("no such id"); got != "no such id" {
		t.Fatalf("unknown id = %q", got)
	}
	if got := pt.T("evil\x1b[31m"); got != common.Sanitize("evil\x1b[31m") {
		t.Fatalf("outside text not sanitized: %q", got)
	}
	if common.ParseLang("pt_BR") != common.LangPT || common.ParseLang("xx") != common.LangEN {
		t.Fatal("ParseLang")
	}
}
