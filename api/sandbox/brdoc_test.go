package sandbox

import (
	"net/http"
	"strings"
	"testing"

	"pixdash/api"
)

// The emulator takes the documents the dashboard takes (api/brdoc): an alphanumeric CNPJ as
// payer, withdrawal holder and CNPJ key; a CPF of one repeated digit is refused for that.
func TestEmulatorDocumentsAsTheDashboard(t *testing.T) {
	e, _, _, _ := fundedEnv(t, 500)
	t.Run("alphanumeric CNPJ payer is a CNPJ (blocked where CNPJ payers are)", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerName: "Empresa Nova", PayerDocument: "12.ABC.345/01DE-35"}, nil)
		if r.status != 200 {
			t.Fatalf("pay: %d %s", r.status, r.body)
		}
		var tx api.Transaction
		r.decode(t, &tx)
		if tx.Status != api.StatusFailed || tx.BlockedDeposit == nil || tx.CounterpartDocument != "12ABC34501DE35" {
			t.Errorf("tx %+v", tx)
		}
	})
	t.Run("alphanumeric CNPJ with wrong check digits is refused", func(t *testing.T) {
		pc := e.createPix(map[string]any{"description": "Venda", "amount": 10}, nil)
		r := e.full(http.MethodPost, "/_sandbox/charges/"+pc.ID+"/pay", PayRequest{PayerDocument: "12.ABC.345/01DE-36"}, nil)
		expectError(t, r, 400, api.KindBadRequest, "")
	})
	valid := func() map[string]any {
		return map[string]any{"pixKey": "12.ABC.345/01DE-35", "pixKeyType": "cnpj", "holderName": "Empresa Nova",
			"holderDocument": "12.abc.345/01de-35", "holderDocumentType": "cnpj", "amount": 10}
	}
	t.Run("withdrawal to an alphanumeric CNPJ key and holder", func(t *testing.T) {
		r := e.full(http.MethodPost, "/withdrawals", valid(), nil)
		if r.status != 201 {
			t.Fatalf("withdrawal: %d %s", r.status, r.body)
		}
		var wd api.Withdrawal
		r.decode(t, &wd)
		if wd.SnapshotPixKey != "12ABC34501DE35" || wd.SnapshotHolderDocument != "12ABC34501DE35" || wd.SnapshotPixKeyType != api.PixKeyCNPJ {
			t.Errorf("withdrawal %+v", wd)
		}
	})
	for _, tc := range []struct {
		name, field, value, docType, want string
	}{
		{"holder CPF of one repeated digit", "holderDocument", "111.111.111-11", "cpf", "all 11 digits the same"},
		{"holder CNPJ check digits", "holderDocument", "12.ABC.345/01DE-53", "cnpj", "CNPJ check digits do not match"},
		{"CNPJ key check digits", "pixKey", "12.ABC.345/01DE-36", "cnpj", "CNPJ check digits do not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := valid()
			body[tc.field], body["holderDocumentType"] = tc.value, tc.docType
			if tc.docType == "cpf" {
				body["pixKey"], body["pixKeyType"] = "loja@example.com", "email"
			}
			r := e.full(http.MethodPost, "/withdrawals", body, nil)
			m := expectError(t, r, 400, api.KindBadRequest, "")
			if !strings.Contains(string(r.body), tc.want) || !strings.Contains(string(r.body), tc.field) {
				t.Errorf("refusal %v, want %q on %s", m, tc.want, tc.field)
			}
		})
	}
}
