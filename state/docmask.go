package state

import (
	"strings"

	"pixdash/api/brdoc"
)

// MaskDocument hides the middle of a CPF or CNPJ, punctuation or not: a CPF as
// ***.456.789-**, a CNPJ as **.345.678/****-**; anything else keeps its last 4 digits (all
// stars when it has 4 or fewer). Only the digits of d are read, but for an alphanumeric CNPJ
// (14 digits and letters, api/brdoc), masked as **.ABC.345/****-**. It is the one masking
// rule: the dashboard shows documents with it and exports write them with it.
func MaskDocument(d string) string {
	if c := brdoc.Clean(d); len(c) == brdoc.CNPJLen && brdoc.Digits(c) != c && brdoc.ValidCNPJ(c) {
		return "**." + c[2:5] + "." + c[5:8] + "/****-**"
	}
	var b strings.Builder
	for _, r := range d {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	d = b.String()
	switch len(d) {
	case 11:
		return "***." + d[3:6] + "." + d[6:9] + "-**"
	case 14:
		return "**." + d[2:5] + "." + d[5:8] + "/****-**"
	}
	if len(d) <= 4 {
		return strings.Repeat("*", len(d))
	}
	return strings.Repeat("*", len(d)-4) + d[len(d)-4:]
}
