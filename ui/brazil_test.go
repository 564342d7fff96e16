package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
	"pixdash/ui/withdrawal"
)

// The charge form takes the payer's document as api/brdoc does: an alphanumeric CNPJ is sent
// compact and upper-case; a CPF of one repeated digit is refused for that, not for its check
// digits (which add up).
func TestNewChargePayerDocument(t *testing.T) {
	for _, tc := range []struct {
		lang    common.Lang
		doc     string
		want    string // the document sent; "" when refused
		problem string
	}{
		{common.LangEN, "12.ABC.345/01DE-35", "12ABC34501DE35", ""},
		{common.LangEN, "12.abc.345/01de-35", "12ABC34501DE35", ""},
		{common.LangEN, "11.222.333/0001-81", "11222333000181", ""},
		{common.LangEN, "529.982.247-25", "52998224725", ""},
		{common.LangEN, "12.ABC.345/01DE-36", "", "CNPJ check digits do not match"},
		{common.LangEN, "111.111.111-11", "", "a CPF with all 11 digits the same (like 111.111.111-11) is not valid"},
		{common.LangPT, "111.111.111-11", "", "um CPF com os 11 dígitos iguais (como 111.111.111-11) não é válido"},
		{common.LangPT, "12.ABC.345/01DE-3X", "", "um CNPJ termina em dois dígitos verificadores (0-9)"},
		{common.LangEN, "12.ABC.345/01DE", "", "a CPF has 11 digits and a CNPJ 14 characters (got 12)"},
	} {
		t.Run(string(tc.lang)+" "+tc.doc, func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), tc.lang)
			walletsType(m, "12,34")
			formOf(m).Inputs[newcharge.FDocument].SetValue(tc.doc)
			d, _ := submitted(t, m)
			if tc.want != "" {
				if d == nil || d.Req.Customer == nil || d.Req.Customer.Document != tc.want {
					t.Fatalf("draft %+v, errors %q; want document %q sent", d, formOf(m).Errs, tc.want)
				}
				return
			}
			if d != nil {
				t.Fatalf("a refused document was sent: %+v", d.Req.Customer)
			}
			if got := formOf(m).Errs[newcharge.FDocument]; got != tc.problem {
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
		if got := common.MaskDocumentsIn(in); got != want {
			t.Errorf("maskDocumentsIn(%q) = %q, want %q", in, got, want)
		}
	}
	if got := common.MaskPixKey(api.PixKeyCNPJ, "12ABC34501DE35"); got != "**.ABC.345/****-**" {
		t.Errorf("maskPixKey = %q", got)
	}
	if got := common.MaskDocumentValue("12ABC34501DE35"); got != "**.ABC.345/****-**" {
		t.Errorf("maskDocumentValue = %q", got)
	}
}

// "1.500" in the charge form is refused as ambiguous in either language, the live preview
// asking which was meant; "1.50", "1.5" and "1.500,00" go through with their preview.
func TestNewChargeAmbiguousAmount(t *testing.T) {
	for _, tc := range []struct {
		lang         common.Lang
		typed        string
		want         api.Money // 0: refused
		preview, msg string
	}{
		{common.LangEN, "1.500", 0, "= R$ 1.500,00 or R$ 1,50?", `1.500 could be R$ 1.500,00 or R$ 1,50: write 1500 or 1.500,00 (or 1,50)`},
		{common.LangPT, "1.500", 0, "= R$ 1.500,00 ou R$ 1,50?", `1.500 pode ser R$ 1.500,00 ou R$ 1,50: escreva 1500 ou 1.500,00 (ou 1,50)`},
		{common.LangPT, "R$ 2.000", 0, "= R$ 2.000,00 ou R$ 2,00?", `2.000 pode ser R$ 2.000,00 ou R$ 2,00: escreva 2000 ou 2.000,00 (ou 2,00)`},
		{common.LangEN, "1.50", 150, "= R$ 1,50", ""},
		{common.LangPT, "1.5", 150, "= R$ 1,50", ""},
		{common.LangPT, "1.500,00", 150000, "= R$ 1.500,00", ""},
		{common.LangEN, "1500", 150000, "= R$ 1.500,00", ""},
		{common.LangPT, "1.234", 123400, "= R$ 1.234,00", ""}, // not a decimal (3 places): thousands
	} {
		t.Run(string(tc.lang)+" "+tc.typed, func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), tc.lang)
			walletsType(m, tc.typed)
			line := formLine(t, m.View(), formOf(m).FieldLabel(newcharge.FAmount))
			if !strings.Contains(line, tc.preview) {
				t.Fatalf("amount line %q, want the preview %q", line, tc.preview)
			}
			d, _ := submitted(t, m)
			if tc.want != 0 {
				if d == nil || d.Req.Amount != tc.want {
					t.Fatalf("draft %+v, errors %q; want %d sent", d, formOf(m).Errs, tc.want)
				}
				return
			}
			if d != nil {
				t.Fatalf("an ambiguous amount was sent: %+v", d.Req)
			}
			if got := formOf(m).Errs[newcharge.FAmount]; got != tc.msg {
				t.Fatalf("amount message %q, want %q", got, tc.msg)
			}
			// The whole message is on screen, wrapped under the field when it is long: what
			// to write is at its end.
			for _, w := range []int{80, 120} {
				drive(t, m, tea.WindowSizeMsg{Width: w, Height: 24})
				if screen := strings.Join(strings.Fields(ansi.Strip(m.View())), " "); !strings.Contains(screen, "✗ "+tc.msg) {
					t.Fatalf("at %d columns the message is cut:\n%s", w, m.View())
				}
			}
		})
	}
}

// The withdrawal and refund forms and a split leg refuse the ambiguous amount the same way.
func TestAmbiguousAmountEverywhere(t *testing.T) {
	tr := common.Catalog{Lang: common.LangPT}
	bal := api.Money(500000)
	in := withdrawal.WdInput{KeyType: api.PixKeyEmail, Key: "maria@example.com", Name: "Maria", Doc: "529.982.247-25", Amount: "1.500"}
	if c := withdrawal.CheckWithdrawal(tr, in, &bal, 150, true); c.Ok || !strings.Contains(c.Errs[withdrawal.WfAmount], "pode ser R$ 1.500,00 ou R$ 1,50") {
		t.Errorf("withdrawal of 1.500: ok %v, %q", c.Ok, c.Errs[withdrawal.WfAmount])
	}
	b := &newcharge.SplitBuilder{C: &common.Common{Tr: tr}}
	_, err := api.ParseBRL("1.500")
	if got := b.LegErrorText(state.LegError{Kind: state.LegAmountFormat, Err: err}); !strings.Contains(got, "pode ser R$ 1.500,00 ou R$ 1,50") {
		t.Errorf("split leg of 1.500: %q", got)
	}
}

// The charges filter (/) finds "Açaí com granola" from "acai" and its payer "Conceição Araújo"
// from "CONCEICAO".
func TestChargesFilterIgnoresAccents(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	goldenCharges(t, s)
	ch := state.Charge{ID: "3f6c1a2e-0000-4000-8000-000000000077", Amount: 850, Description: "Açaí com granola", PayerName: "Conceição Araújo",
		Status: api.StatusCompleted, Wallet: api.WalletPrincipal, CreatedAt: goldenNow.Add(-time.Minute), UpdatedAt: goldenNow}
	if _, err := s.Store.UpsertCharge(context.Background(), ch); err != nil {
		t.Fatal(err)
	}
	for _, typed := range []string{"acai", "ACAI COM", "CONCEICAO", "araujo", "açaí"} {
		m := goldenModel(t, s, 120, 40)
		send(t, m, runeKey("/"))
		for _, r := range typed {
			send(t, m, runeKey(string(r)))
		}
		send(t, m, tea.KeyMsg{Type: tea.KeyEnter})
		out := m.View()
		if rows := listRows(t, out); len(rows) != 1 || !strings.Contains(rows[0], "Açaí com granola") {
			t.Fatalf("filter %q:\n%s", typed, out)
		}
	}
}

// The inspector punctuates an alphanumeric CNPJ it reveals, as it does a numeric one.
func TestFormatAlphanumericCNPJ(t *testing.T) {
	if got := common.FormatDocument("12ABC34501DE35"); got != "12.ABC.345/01DE-35" {
		t.Errorf("formatDocument = %q", got)
	}
	if got := common.FormatDocument("52998224725"); got != "529.982.247-25" {
		t.Errorf("formatDocument = %q", got)
	}
}
