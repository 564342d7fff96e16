package ui

import (
	"strings"
	"testing"

	"pixdash/api"
)

// The charge form takes the payer's document as api/brdoc does: an alphanumeric CNPJ is sent
// compact and upper-case; a CPF of one repeated digit is refused for that, not for its check
// digits (which add up).
func TestNewChargePayerDocument(t *testing.T) {
	for _, tc := range []struct {
		lang    Lang
		doc     string
		want    string // the document sent; "" when refused
		problem string
	}{
		{LangEN, "12.ABC.345/01DE-35", "12ABC34501DE35", ""},
		{LangEN, "12.abc.345/01de-35", "12ABC34501DE35", ""},
		{LangEN, "11.222.333/0001-81", "11222333000181", ""},
		{LangEN, "529.982.247-25", "52998224725", ""},
		{LangEN, "12.ABC.345/01DE-36", "", "CNPJ check digits do not match"},
		{LangEN, "111.111.111-11", "", "a CPF with all 11 digits the same (like 111.111.111-11) is not valid"},
		{LangPT, "111.111.111-11", "", "um CPF com os 11 dígitos iguais (como 111.111.111-11) não é válido"},
		{LangPT, "12.ABC.345/01DE-3X", "", "um CNPJ termina em dois dígitos verificadores (0-9)"},
		{LangEN, "12.ABC.345/01DE", "", "a CPF has 11 digits and a CNPJ 14 characters (got 12)"},
	} {
		t.Run(string(tc.lang)+" "+tc.doc, func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), tc.lang)
			walletsType(m, "12,34")
			formOf(m).inputs[fDocument].SetValue(tc.doc)
			d, _ := submitted(t, m)
			if tc.want != "" {
				if d == nil || d.Req.Customer == nil || d.Req.Customer.Document != tc.want {
					t.Fatalf("draft %+v, errors %q; want document %q sent", d, formOf(m).errs, tc.want)
				}
				return
			}
			if d != nil {
				t.Fatalf("a refused document was sent: %+v", d.Req.Customer)
			}
			if got := formOf(m).errs[fDocument]; got != tc.problem {
				t.Fatalf("document message %q, want %q", got, tc.problem)
			}
			if !strings.Contains(m.View(), "✗ "+tc.problem[:20]) {
				t.Fatalf("the message is not next to the field:\n%s", m.View())
			}
		})
	}
}

// An alphanumeric CNPJ is masked like a numeric one: in free text, as a JSON document member
// and as a withdrawal's CNPJ key.
func TestMaskAlphanumericCNPJ(t *testing.T) {
	for in, want := range map[string]string{
		"payer 12.ABC.345/01DE-35 blocked": "payer **.ABC.345/****-** blocked",
		"12ABC34501DE35":                   "**.ABC.345/****-**",
		"ref 12ABC34501DE36":               "ref 12ABC34501DE36", // not a CNPJ: check digits wrong
		"ORDER-ABCDEFGH-12":                "ORDER-ABCDEFGH-12",
	} {
		if got := maskDocumentsIn(in); got != want {
			t.Errorf("maskDocumentsIn(%q) = %q, want %q", in, got, want)
		}
	}
	if got := maskPixKey(api.PixKeyCNPJ, "12ABC34501DE35"); got != "**.ABC.345/****-**" {
		t.Errorf("maskPixKey = %q", got)
	}
	if got := maskDocumentValue("12ABC34501DE35"); got != "**.ABC.345/****-**" {
		t.Errorf("maskDocumentValue = %q", got)
	}
}
