package ui

import (
	"strings"
	"testing"

	"pixdash/api"
	"pixdash/state"
	"pixdash/ui/common"
)

func TestMaskDocumentsIn(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"52998224725", "***.982.247-**"},
		{"payer 529.982.247-25 blocked", "payer ***.982.247-** blocked"},
		{"CNPJ 11.222.333/0001-81.", "CNPJ **.222.333/****-**."},
		{"11222333000181 and 52998224725", "**.222.333/****-** and ***.982.247-**"},
		{"doc:52998224725,", "doc:***.982.247-**,"},
		// Not documents: identifiers, references, dates, amounts, other lengths.
		{"MED-20261121-000123", "MED-20261121-000123"},
		{"E99990001202611211340abcdefghijk", "E99990001202611211340abcdefghijk"},
		{"3f6c1a2e-0000-4000-8000-000000000001", "3f6c1a2e-0000-4000-8000-000000000001"},
		{"x52998224725", "x52998224725"},
		{"2026-11-21T13:35:00Z R$ 1.234,56", "2026-11-21T13:35:00Z R$ 1.234,56"},
		{"1234567890 123456789012", "1234567890 123456789012"},
		{"529.982.247/25", "529.982.247/25"},
	}
	for _, c := range cases {
		if got := common.MaskDocumentsIn(c.in); got != c.want {
			t.Errorf("maskDocumentsIn(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMaskDocumentsJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		// By member name, whatever the value looks like, nested and in arrays.
		{`{"counterpartDocument":"52998224725"}`, `{"counterpartDocument":"***.982.247-**"}`},
		{`{"data":{"payerDocument":"11.222.333/0001-81","holderDocument":12345}}`, `{"data":{"payerDocument":"**.222.333/****-**","holderDocument":"*2345"}}`},
		{`{"customer":{"name":"Ana","document":"abc"}}`, `{"customer":{"name":"Ana","document":"***"}}`},
		{`{"cpfs":["52998224725","12345678909"],"n":1}`, `{"cpfs":["***.982.247-**","***.456.789-**"],"n":1}`},
		{`{"taxId": 52998224725}`, `{"taxId": "***.982.247-**"}`},
		// By shape, in any string or as a bare number.
		{`{"failureReason":"CPF 52998224725 bloqueado","x":52998224725}`, `{"failureReason":"CPF ***.982.247-** bloqueado","x":"***.982.247-**"}`},
		// Escaped digits are read as digits.
		{`{"note":"\u0035\u00329982247\u0032\u0035"}`, `{"note":"***.982.247-**"}`},
		// Everything else byte for byte: order, spacing, escapes, numbers, the key itself.
		{"{\"document\" : null, \"amount\": 12.50, \"e2eId\": \"E52998224725\", \"s\": \"\\u00e9<&>\"}",
			"{\"document\" : null, \"amount\": 12.50, \"e2eId\": \"E52998224725\", \"s\": \"\\u00e9<&>\"}"},
		{`{"52998224725":"key stays"}`, `{"52998224725":"key stays"}`},
		// Not JSON: masked as far as it reads.
		{`{"payerDocument":"52998224725", broken`, `{"payerDocument":"***.982.247-**", broken`},
	}
	for _, c := range cases {
		if got := string(common.MaskDocumentsJSON([]byte(c.in))); got != c.want {
			t.Errorf("maskDocumentsJSON(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// docEvent is a payment event whose payload names the payer's CPF in several places.
const docEvent = `{"eventId":"evt-doc","event":"payment_completed","subAccount":"loja-sul","data":{"transactionId":"` + evPaidCharge +
	`","status":"completed","amount":89.90,"counterpartName":"Maria da Silva","counterpartDocument":"52998224725",` +
	`"payer":{"document":"529.982.247-25"},"customer":{"document":"11222333000181"},"note":"pago por 52998224725"}}`

func TestEventsPayloadMasksDocumentsUntilV(t *testing.T) {
	for _, size := range goldenSizes {
		s, _ := evSession(t, true, api.ReceiverStats{})
		goldenCharges(t, s)
		m, v := eventsModel(t, s, size[0], size[1])
		deliver(t, m, decoded(t, docEvent))
		list := m.View()
		if !strings.Contains(list, "R$ 89,90") || !strings.Contains(list, "payment received") {
			t.Fatalf("%dx%d: the event is not listed:\n%s", size[0], size[1], list)
		}
		press(t, m, "enter")
		if v.Detail == nil {
			t.Fatal("enter did not open the payload")
		}
		full := func() string {
			var b strings.Builder
			for _, l := range v.Detail.Lines {
				b.WriteString(l + "\n")
			}
			return b.String()
		}
		masked := m.View() + full()
		for _, leak := range []string{"52998224725", "529.982.247-25", "11222333000181"} {
			if strings.Contains(masked, leak) || strings.Contains(list, leak) {
				t.Errorf("%dx%d: the document %s is shown before v:\n%s", size[0], size[1], leak, masked)
			}
		}
		for _, want := range []string{`"counterpartDocument": "***.982.247-**"`, `"document": "***.982.247-**"`, `"document": "**.222.333/****-**"`,
			`"note": "pago por ***.982.247-**"`, `"counterpartName": "Maria da Silva"`} {
			if !strings.Contains(masked, want) {
				t.Errorf("%dx%d: the masked payload lacks %s:\n%s", size[0], size[1], want, masked)
			}
		}
		if !strings.Contains(m.View(), "v reveals documents") {
			t.Errorf("%dx%d: no hint that v reveals:\n%s", size[0], size[1], m.View())
		}
		press(t, m, "v")
		m.View()
		revealed := full()
		for _, want := range []string{`"counterpartDocument": "52998224725"`, `"document": "529.982.247-25"`, `"document": "11222333000181"`, `"note": "pago por 52998224725"`} {
			if !strings.Contains(revealed, want) {
				t.Errorf("%dx%d: v did not reveal %s:\n%s", size[0], size[1], want, revealed)
			}
		}
		if !strings.Contains(m.View(), "v hides documents") {
			t.Errorf("%dx%d: no hint that v hides:\n%s", size[0], size[1], m.View())
		}
		press(t, m, "v")
		m.View()
		if strings.Contains(full(), "52998224725") {
			t.Errorf("%dx%d: a second v did not mask again", size[0], size[1])
		}
		// Leaving the payload forgets the reveal.
		press(t, m, "v", "esc", "enter")
		m.View()
		if strings.Contains(full(), "52998224725") {
			t.Errorf("%dx%d: the next payload opened revealed", size[0], size[1])
		}
	}
}

func TestEventsPayloadMasksLikeTheInspector(t *testing.T) {
	// One masking for both: the inspector's counterpart document and the payload's member agree.
	s, _ := evSession(t, true, api.ReceiverStats{})
	goldenCharges(t, s)
	m, v := eventsModel(t, s, 120, 40)
	deliver(t, m, decoded(t, docEvent))
	press(t, m, "enter")
	m.View()
	payload := strings.Join(v.Detail.Lines, "\n")

	tx := goldenFailedTx()
	tx.CounterpartDocument = "52998224725"
	tx.Metadata = map[string]any{"cpf": "52998224725", "obs": "cliente 52998224725", "pedido": "0999", "cliente": map[string]any{"documento": "abc", "id": 7}}
	showLookup(t, m, "PED-0999", "principal", tx, state.Charge{}, false, nil)
	inspector := m.View()
	want := common.MaskDocument("52998224725")
	if !strings.Contains(payload, `"counterpartDocument": "`+want+`"`) || !strings.Contains(inspector, want+" (v reveals)") {
		t.Fatalf("the payload and the inspector mask differently:\n%s\n%s", payload, inspector)
	}
	for _, line := range []string{"cpf = " + want, "obs = cliente " + want, "pedido = 0999", `cliente = {"documento":"***","id":7}`} {
		if !strings.Contains(inspector, line) {
			t.Errorf("inspector metadata lacks %q:\n%s", line, inspector)
		}
	}
	if strings.Contains(inspector, "52998224725") {
		t.Errorf("the inspector shows a document before v:\n%s", inspector)
	}
	press(t, m, "v")
	if out := m.View(); !strings.Contains(out, "cpf = 52998224725") || !strings.Contains(out, "529.982.247-25 (v hides)") {
		t.Errorf("v did not reveal the inspector's documents:\n%s", out)
	}
}
