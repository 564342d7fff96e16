package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// bcbExample is the static example of the BCB BR Code manual (key, no amount), CRC 1D3D.
const bcbExample = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
	"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

// refCRC16 is an independent bit-serial CRC-16/CCITT-FALSE: the register is fed one message bit
// at a time, MSB first, and the polynomial is applied when the bit leaving the register differs
// from the incoming one.
func refCRC16(data []byte) uint16 {
	reg := uint16(0xFFFF)
	for _, b := range data {
		for i := 7; i >= 0; i-- {
			in := b >> uint(i) & 1
			out := uint8(reg >> 15)
			reg <<= 1
			if in != out {
				reg ^= 0x1021
			}
		}
	}
	return reg
}

// tlv builds one data object for hand-assembled codes (ASCII values).
func tlv(id, v string) string { return fmt.Sprintf("%s%02d%s", id, len(v), v) }

// withCRC appends "6304" and the CRC computed by the reference implementation.
func withCRC(payload string) string {
	payload += "6304"
	return payload + fmt.Sprintf("%04X", refCRC16([]byte(payload)))
}

// bcbBody is the BCB example without its CRC field, for building variants.
const bcbBody = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
	"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***"

// pixMAI is a field 26 value holding the GUI and the key of the BCB example.
var pixMAI = tlv("00", "br.gov.bcb.pix") + tlv("01", "123e4567-e12b-12d1-a456-426655440000")

// assemble builds a code from parts with a correct CRC.
func assemble(parts ...string) string { return withCRC(strings.Join(parts, "")) }

func TestCRC16Vectors(t *testing.T) {
	tests := []struct {
		in   string
		want uint16
	}{
		{"123456789", 0x29B1}, // CRC-16/CCITT-FALSE check value
		{"", 0xFFFF},
		{bcbBody + "6304", 0x1D3D},
		{"A", 0xB915},
	}
	for _, tt := range tests {
		if got := CRC16([]byte(tt.in)); got != tt.want {
			t.Errorf("CRC16(%q) = %04X, want %04X", tt.in, got, tt.want)
		}
		if got := refCRC16([]byte(tt.in)); got != tt.want {
			t.Errorf("refCRC16(%q) = %04X, want %04X (reference implementation broken)", tt.in, got, tt.want)
		}
	}
	// Every single byte and a few longer inputs agree with the reference.
	for b := range 256 {
		in := []byte{byte(b), byte(255 - b), byte(b * 7)}
		if got, want := CRC16(in), refCRC16(in); got != want {
			t.Fatalf("CRC16(% x) = %04X, reference %04X", in, got, want)
		}
	}
}

func TestParseBRCodeValid(t *testing.T) {
	dynamic := assemble(
		tlv("00", "01"), tlv("01", "12"),
		tlv("26", tlv("00", "BR.GOV.BCB.PIX")+tlv("25", "pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25")),
		tlv("52", "5812"), tlv("53", "986"), tlv("54", "100.00"), tlv("58", "BR"),
		tlv("59", "PIX EXEMPLO"), tlv("60", "BRASILIA"), tlv("61", "70074900"),
		tlv("62", tlv("05", "***")+tlv("50", tlv("00", "BR.GOV.BCB.BRCODE")+tlv("01", "1.0.0"))),
		tlv("80", tlv("00", "example.unreserved")),
	)
	static := assemble(
		tlv("00", "01"), tlv("01", "11"),
		tlv("26", pixMAI+tlv("02", "Pedido 42")),
		tlv("52", "0000"), tlv("53", "986"), tlv("54", "5.5"), tlv("58", "BR"),
		tlv("59", "Fulano de Tal"), tlv("60", "BRASILIA"),
		tlv("62", tlv("05", "Pedido42abc")),
	)
	// "São João" counted in characters (8) as EMV says, and in bytes (10) as some issuers do.
	runeCounted := assemble(tlv("00", "01"), tlv("26", pixMAI),
		tlv("52", "0000"), tlv("53", "986"), tlv("58", "BR"), "5908São João", tlv("60", "SAO PAULO"))
	byteCounted := assemble(tlv("00", "01"), tlv("26", pixMAI),
		tlv("52", "0000"), tlv("53", "986"), tlv("58", "BR"), "5910São João", tlv("60", "SAO PAULO"))

	tests := []struct {
		name string
		in   string
		want BRCode // Raw is filled from in
	}{
		{"BCB manual example", bcbExample, BRCode{
			PayloadFormat: "01", GUI: "br.gov.bcb.pix", PixKey: "123e4567-e12b-12d1-a456-426655440000",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA",
		}},
		{"lowercase CRC hex", bcbBody + "63041d3d", BRCode{
			PayloadFormat: "01", GUI: "br.gov.bcb.pix", PixKey: "123e4567-e12b-12d1-a456-426655440000",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA",
		}},
		{"surrounding whitespace", "  " + bcbExample + "\n", BRCode{
			PayloadFormat: "01", GUI: "br.gov.bcb.pix", PixKey: "123e4567-e12b-12d1-a456-426655440000",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA",
		}},
		{"dynamic with URL, amount, postal code, extra templates", dynamic, BRCode{
			PayloadFormat: "01", InitiationMethod: "12", GUI: "BR.GOV.BCB.PIX",
			URL: "pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25", MCC: "5812", Currency: "986",
			Amount: 10000, HasAmount: true, Country: "BR", MerchantName: "PIX EXEMPLO", MerchantCity: "BRASILIA",
			PostalCode: "70074900",
		}},
		{"static with description, one-decimal amount, txid", static, BRCode{
			PayloadFormat: "01", InitiationMethod: "11", GUI: "br.gov.bcb.pix",
			PixKey: "123e4567-e12b-12d1-a456-426655440000", Description: "Pedido 42", MCC: "0000", Currency: "986",
			Amount: 550, HasAmount: true, Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA",
			TxID: "Pedido42abc",
		}},
		{"non-ASCII name, lengths in characters", runeCounted, BRCode{
			PayloadFormat: "01", GUI: "br.gov.bcb.pix", PixKey: "123e4567-e12b-12d1-a456-426655440000",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "São João", MerchantCity: "SAO PAULO",
		}},
		{"non-ASCII name, lengths in bytes", byteCounted, BRCode{
			PayloadFormat: "01", GUI: "br.gov.bcb.pix", PixKey: "123e4567-e12b-12d1-a456-426655440000",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "São João", MerchantCity: "SAO PAULO",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseBRCode(tt.in)
			if err != nil {
				t.Fatalf("ParseBRCode: %v", err)
			}
			want := tt.want
			want.Raw = strings.TrimSpace(tt.in)
			if *got != want {
				t.Errorf("ParseBRCode =\n %+v\nwant\n %+v", *got, want)
			}
		})
	}
}

func TestParseBRCodeAmounts(t *testing.T) {
	tests := []struct {
		amount string
		want   Money
		err    string // substring; "" means valid
	}{
		{"0.01", 1, ""},
		{"5", 500, ""},
		{"5.5", 550, ""},
		{"12.34", 1234, ""},
		{"0012.30", 1230, ""},
		{"1234567890.12", 123456789012, ""}, // 13 characters, the maximum
		{"10.505", 0, "more than 2 decimal places"},
		{"10.500", 0, "more than 2 decimal places"},
		{"12345678901.12", 0, "longer than 13"},
		{"0.00", 0, "not positive"},
		{"0", 0, "not positive"},
		{"-1.00", 0, "not a plain decimal"},
		{"+1.00", 0, "not a plain decimal"},
		{"1e2", 0, "not a plain decimal"},
		{"1,50", 0, "not a plain decimal"},
		{"1.", 0, "not a plain decimal"},
		{".5", 0, "not a plain decimal"},
		{"1.2.3", 0, "not a plain decimal"},
		{" 1.00", 0, "not a plain decimal"},
	}
	for _, tt := range tests {
		t.Run(tt.amount, func(t *testing.T) {
			code := assemble(tlv("00", "01"), tlv("26", pixMAI), tlv("52", "0000"), tlv("53", "986"),
				tlv("54", tt.amount), tlv("58", "BR"), tlv("59", "F"), tlv("60", "C"))
			b, err := ParseBRCode(code)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "field 54") {
					t.Fatalf("err = %v, want one about field 54 containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseBRCode: %v", err)
			}
			if !b.HasAmount || b.Amount != tt.want {
				t.Errorf("amount = %d (has %v), want %d", b.Amount, b.HasAmount, tt.want)
			}
		})
	}
}

func TestParseBRCodeInvalid(t *testing.T) {
	at := strings.Index(bcbBody, "5913Fulano")
	oneChanged := bcbExample[:at+6] + "G" + bcbExample[at+7:] // "Fulano" -> "Gulano"
	keyDigitChanged := strings.Replace(bcbExample, "426655440000", "426655440001", 1)
	swapped := strings.Replace(bcbExample, "5802BR5913", "5913", 1)
	swapped = strings.Replace(swapped, "6008BRASILIA", "6008BRASILIA5802BR", 1) // same bytes, other order

	base := func(extra ...string) []string {
		return append([]string{tlv("00", "01"), tlv("26", pixMAI), tlv("52", "0000"), tlv("53", "986"), tlv("58", "BR"),
			tlv("59", "Fulano de Tal"), tlv("60", "BRASILIA")}, extra...)
	}
	without := func(id string) string {
		var parts []string
		for _, p := range base() {
			if !strings.HasPrefix(p, id) {
				parts = append(parts, p)
			}
		}
		return assemble(parts...)
	}
	replace := func(id, v string) string {
		parts := base()
		for i, p := range parts {
			if strings.HasPrefix(p, id) {
				parts[i] = v
			}
		}
		return assemble(parts...)
	}

	tests := []struct {
		name string
		in   string
		want string // substring of the error
		crc  bool   // must match ErrBRCodeCRC
	}{
		{"one character changed in a value", oneChanged, "CRC mismatch: code says 1D3D, computed ", true},
		{"one digit of the key changed", keyDigitChanged, "CRC mismatch", true},
		{"fields reordered", swapped, "CRC mismatch", true},
		{"bad CRC", bcbBody + "63040000", "CRC mismatch: code says 0000, computed 1D3D", true},
		{"CRC of a different payload", bcbBody + "6304" + fmt.Sprintf("%04X", refCRC16([]byte(bcbBody))), "CRC mismatch", true},
		{"truncated inside field 59", bcbExample[:at+8], "truncated at field 59: length 13 but only 4 character(s) left", false},
		{"truncated after field 59 ID", bcbExample[:at+2], "truncated at field 59: no length", false},
		{"truncated to one character", bcbExample[:at+1], "truncated after field 58: 1 stray character(s)", false},
		{"truncated inside CRC", bcbExample[:len(bcbExample)-1], "truncated at field 63: length 4 but only 3", false},
		{"length field overflowing", strings.Replace(bcbExample, "6008BRASILIA", "6099BRASILIA", 1), "truncated at field 60: length 99", false},
		{"subfield length overflowing", replace("26", "2658"+tlv("00", "br.gov.bcb.pix")+"0140123e4567-e12b-12d1-a456-426655440000"),
			"truncated at field 26 subfield 01: length 40 but only 36", false},
		{"wrong GUI", replace("26", tlv("26", tlv("00", "br.gov.bcb.pax")+tlv("01", "k@x.com"))), "merchant account is not br.gov.bcb.pix", false},
		{"missing GUI", replace("26", tlv("26", tlv("01", "k@x.com"))), "missing subfield 00 (GUI)", false},
		{"neither key nor URL", replace("26", tlv("26", tlv("00", "br.gov.bcb.pix")+tlv("02", "only text"))), "neither a PIX key", false},
		{"missing 63", bcbBody, "missing field 63 (CRC)", false},
		{"63 not last", strings.Replace(bcbExample, "5802BR", "63041D3D5802BR", 1)[:len(bcbExample)], "field 63 (CRC) must be the last field", false},
		{"63 not last, CRC valid over prefix", withCRC(bcbBody) + "5802BR", "field 63 (CRC) must be the last field", false},
		{"CRC not hex", bcbBody + "6304ZZZZ", `CRC must be 4 hex digits, got "ZZZZ"`, false},
		{"CRC too short", bcbBody + "63031D3", "CRC must be 4 hex digits", false},
		{"amount with 3 decimals", assemble(base(tlv("54", "10.505"))...), `amount "10.505" has more than 2 decimal places`, false},
		{"missing merchant name", without("59"), "missing field 59 (merchant name)", false},
		{"missing merchant city", without("60"), "missing field 60 (merchant city)", false},
		{"missing merchant account", without("26"), "missing field 26 (merchant account information)", false},
		{"missing currency", without("53"), "missing field 53 (currency)", false},
		{"missing MCC", without("52"), "missing field 52", false},
		{"missing country", without("58"), "missing field 58", false},
		{"payload format not first", assemble(append(base()[1:], tlv("00", "01"))...), "field 00 (payload format) must come first", false},
		{"payload format 02", replace("00", tlv("00", "02")), `payload format must be "01"`, false},
		{"initiation method 13", assemble(append(base(), tlv("01", "13"))...), "point of initiation must be 11 or 12", false},
		{"currency USD", replace("53", tlv("53", "840")), "currency must be 986", false},
		{"country AR", replace("58", tlv("58", "AR")), "country must be BR", false},
		{"MCC not digits", replace("52", tlv("52", "00A0")), "merchant category code must be 4 digits", false},
		{"name too long", replace("59", tlv("59", strings.Repeat("N", 26))), "merchant name has 26 characters, more than 25", false},
		{"city too long", replace("60", tlv("60", strings.Repeat("C", 16))), "merchant city has 16 characters, more than 15", false},
		{"empty name", replace("59", tlv("59", "  ")), "merchant name is empty", false},
		{"txid with a dash", assemble(base(tlv("62", tlv("05", "abc-123")))...), "txid must be 1 to 25 letters or digits", false},
		{"txid too long", assemble(base(tlv("62", tlv("05", strings.Repeat("a", 26))))...), "txid must be", false},
		{"empty PIX key", replace("26", tlv("26", tlv("00", "br.gov.bcb.pix")+"0100")), "PIX key (subfield 01) is empty", false},
		{"empty URL", replace("26", tlv("26", tlv("00", "br.gov.bcb.pix")+"2501 ")), "URL (subfield 25) is empty", false},
		{"empty merchant account", replace("26", "2600"), "empty field 26 subfield list", false},
		{"empty amount", assemble(base("5400")...), "field 54: amount is empty", false},
		{"empty postal code", assemble(base("6100")...), "field 61: postal code is empty", false},
		{"duplicate txid", assemble(base(tlv("62", tlv("05", "a")+tlv("05", "b")))...), "field 62: subfield 05 appears twice", false},
		{"truncated additional data", assemble(base("62040510")...), "truncated at field 62 subfield 05: length 10 but only 0", false},
		{"duplicate field", assemble(base(tlv("59", "Outro"))...), "field 59 appears twice", false},
		{"duplicate subfield", replace("26", tlv("26", pixMAI+tlv("01", "k@x.com"))), "subfield 01 appears twice", false},
		{"bad field ID", "0002012X" + bcbBody[8:] + "63041D3D", `bad field ID "2X"`, false},
		{"bad length", "000201265X" + bcbBody[10:] + "63041D3D", `field 26: bad length "5X"`, false},
		{"empty", "", "empty code", false},
		{"only spaces", " \t\n", "empty code", false},
		{"not UTF-8", bcbBody[:at+6] + "\xff" + bcbBody[at+7:] + "63041D3D", "not valid UTF-8", false},
		{"too long", assemble(base(tlv("80", strings.Repeat("x", 99)), tlv("81", strings.Repeat("x", 99)),
			tlv("82", strings.Repeat("x", 99)), tlv("83", strings.Repeat("x", 99)))...), "more than the maximum 512", false},
		{"URL-shaped garbage", "https://example.com/pix", `bad field ID "ht"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ParseBRCode(tt.in)
			if err == nil {
				t.Fatalf("ParseBRCode accepted it: %+v", b)
			}
			if b != nil {
				t.Errorf("ParseBRCode returned a code with an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrBRCode) {
				t.Errorf("errors.Is(err, ErrBRCode) = false for %v", err)
			}
			if got := errors.Is(err, ErrBRCodeCRC); got != tt.crc {
				t.Errorf("errors.Is(err, ErrBRCodeCRC) = %v, want %v (err %v)", got, tt.crc, err)
			}
		})
	}
}

func TestBRCodeCheckAmount(t *testing.T) {
	with, err := ParseBRCode(assemble(tlv("00", "01"), tlv("26", pixMAI), tlv("52", "0000"), tlv("53", "986"),
		tlv("54", "12.34"), tlv("58", "BR"), tlv("59", "F"), tlv("60", "C")))
	if err != nil {
		t.Fatal(err)
	}
	without, err := ParseBRCode(bcbExample)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		code *BRCode
		want Money
		err  string
	}{
		{"same amount", with, 1234, ""},
		{"one centavo more", with, 1235, "the code says R$ 12,34, expected R$ 12,35"},
		{"one centavo less", with, 1233, "expected R$ 12,33"},
		{"no amount in code", without, 1000, "the code has no amount, expected R$ 10,00"},
		{"nil code", nil, 1, "no amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.code.CheckAmount(tt.want)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("CheckAmount(%d) = %v", tt.want, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrBRCodeAmount) {
				t.Fatalf("CheckAmount(%d) = %v, want ErrBRCodeAmount containing %q", tt.want, err, tt.err)
			}
		})
	}
}

func TestEncodeBRCodeExact(t *testing.T) {
	// The BCB example's content, with the name upper-cased by the encoder; CRC from the reference.
	want := withCRC("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
		"5204000053039865802BR5913FULANO DE TAL6008BRASILIA62070503***")
	got, err := EncodeBRCode(BRCodeParams{
		PixKey: "123e4567-e12b-12d1-a456-426655440000", MerchantName: "Fulano de Tal", MerchantCity: "Brasília",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("EncodeBRCode =\n %s\nwant\n %s", got, want)
	}

	want = withCRC("000201010212" + tlv("26", tlv("00", "br.gov.bcb.pix")+tlv("01", "loja@example.com")+
		tlv("02", "Pedido 42")+tlv("25", "pix.example.com/qr/v2/abc123")) +
		"52040000530398654071234.565802BR" + tlv("59", "PADARIA SAO JOAO") + tlv("60", "SAO PAULO") +
		tlv("62", tlv("05", "TX42abc")))
	got, err = EncodeBRCode(BRCodeParams{
		PixKey: " loja@example.com ", Description: "  Pedido\t42 ", URL: "https://pix.example.com/qr/v2/abc123",
		MerchantName: "Padaria São João", MerchantCity: "São Paulo", TxID: "TX42abc", Amount: 123456,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("EncodeBRCode =\n %s\nwant\n %s", got, want)
	}
}

func TestEncodeBRCode(t *testing.T) {
	long77 := strings.Repeat("k", 77)
	tests := []struct {
		name string
		p    BRCodeParams
		err  string // substring; "" means valid
		want BRCode // checked fields: PixKey, Description, URL, MerchantName, MerchantCity, TxID, Amount, InitiationMethod
	}{
		{"static, no amount", BRCodeParams{PixKey: "+5561999990000", MerchantName: "Ana", MerchantCity: "Recife"}, "",
			BRCode{PixKey: "+5561999990000", MerchantName: "ANA", MerchantCity: "RECIFE"}},
		{"dynamic, URL only", BRCodeParams{URL: "HTTPS://pix.example.com/v2/x", MerchantName: "Loja", MerchantCity: "Natal", Amount: 1},
			"", BRCode{URL: "pix.example.com/v2/x", MerchantName: "LOJA", MerchantCity: "NATAL", Amount: 1, HasAmount: true, InitiationMethod: "12"}},
		{"names cut and normalised", BRCodeParams{PixKey: "k", MerchantName: "Padaria São João Ltda. Comércio & Cia",
			MerchantCity: "Rio de Janeiro City"}, "",
			BRCode{PixKey: "k", MerchantName: "PADARIA SAO JOAO LTDA. CO", MerchantCity: "RIO DE JANEIRO"}},
		{"odd characters in names", BRCodeParams{PixKey: "k", MerchantName: "  Zé\u00a0😀 do*Café!! ", MerchantCity: "Ñandú-Açaí"}, "",
			BRCode{PixKey: "k", MerchantName: "ZE DO CAFE", MerchantCity: "NANDU-ACAI"}},
		{"largest amount", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", Amount: 999999999999}, "",
			BRCode{PixKey: "k", MerchantName: "A", MerchantCity: "B", Amount: 999999999999, HasAmount: true}},
		{"description cut to fit next to a long key", BRCodeParams{PixKey: long77, MerchantName: "a", MerchantCity: "b",
			Description: "descrição muito longa que não cabe"}, "",
			BRCode{PixKey: long77, Description: "", MerchantName: "A", MerchantCity: "B"}},
		{"description shortened", BRCodeParams{PixKey: strings.Repeat("k", 60), MerchantName: "a", MerchantCity: "b",
			Description: "0123456789 abcdefghij"}, "",
			BRCode{PixKey: strings.Repeat("k", 60), Description: "0123456789 ab", MerchantName: "A", MerchantCity: "B"}},
		{"txid", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", TxID: strings.Repeat("Z", 25)}, "",
			BRCode{PixKey: "k", MerchantName: "A", MerchantCity: "B", TxID: strings.Repeat("Z", 25)}},
		{"txid ***", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", TxID: "***"}, "",
			BRCode{PixKey: "k", MerchantName: "A", MerchantCity: "B"}},

		{"no key nor URL", BRCodeParams{MerchantName: "a", MerchantCity: "b"}, "a PIX key or a URL is required", BRCode{}},
		{"key with a space", BRCodeParams{PixKey: "a b", MerchantName: "a", MerchantCity: "b"}, "outside printable ASCII", BRCode{}},
		{"key too long", BRCodeParams{PixKey: long77 + "k", MerchantName: "a", MerchantCity: "b"}, "PIX key has 78 characters", BRCode{}},
		{"key and URL too long together", BRCodeParams{PixKey: long77, URL: strings.Repeat("u", 10), MerchantName: "a", MerchantCity: "b"},
			"do not fit", BRCode{}},
		{"name of symbols only", BRCodeParams{PixKey: "k", MerchantName: "😀 !!", MerchantCity: "b"}, "merchant name is empty", BRCode{}},
		{"no city", BRCodeParams{PixKey: "k", MerchantName: "a"}, "merchant city is empty", BRCode{}},
		{"negative amount", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", Amount: -1}, "negative amount", BRCode{}},
		{"amount too large", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", Amount: 1000000000000}, "too large", BRCode{}},
		{"txid with a dash", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", TxID: "a-b"}, "txid", BRCode{}},
		{"txid too long", BRCodeParams{PixKey: "k", MerchantName: "a", MerchantCity: "b", TxID: strings.Repeat("Z", 26)}, "txid", BRCode{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, err := EncodeBRCode(tt.p)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("EncodeBRCode = %q, %v; want error containing %q", code, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("EncodeBRCode: %v", err)
			}
			b, err := ParseBRCode(code)
			if err != nil {
				t.Fatalf("ParseBRCode(%q): %v", code, err)
			}
			w := tt.want
			got := BRCode{PixKey: b.PixKey, Description: b.Description, URL: b.URL, MerchantName: b.MerchantName,
				MerchantCity: b.MerchantCity, TxID: b.TxID, Amount: b.Amount, HasAmount: b.HasAmount, InitiationMethod: b.InitiationMethod}
			if got != w {
				t.Errorf("decoded\n %+v\nwant\n %+v\ncode %s", got, w, code)
			}
			if b.MCC != "0000" || b.Currency != "986" || b.Country != "BR" || b.PayloadFormat != "01" {
				t.Errorf("fixed fields wrong: %+v", b)
			}
		})
	}
}

// reencode encodes the content of a parsed code again.
func reencode(b *BRCode) (string, error) {
	return EncodeBRCode(BRCodeParams{PixKey: b.PixKey, Description: b.Description, URL: b.URL,
		MerchantName: b.MerchantName, MerchantCity: b.MerchantCity, TxID: b.TxID, Amount: b.Amount})
}

// crcValid reports whether code ends in 6304 and a CRC of everything before it.
func crcValid(code string) bool {
	if len(code) < 8 || code[len(code)-8:len(code)-4] != "6304" {
		return false
	}
	want := fmt.Sprintf("%04X", refCRC16([]byte(code[:len(code)-4])))
	return strings.EqualFold(code[len(code)-4:], want)
}

func FuzzParseBRCode(f *testing.F) {
	f.Add(bcbExample)
	f.Add(bcbBody + "63041d3d")
	f.Add(bcbBody + "63040000")
	f.Add(bcbExample[:40])
	f.Add(strings.Replace(bcbExample, "6008BRASILIA", "6099BRASILIA", 1))
	f.Add(assemble(tlv("00", "01"), tlv("26", pixMAI), tlv("52", "0000"), tlv("53", "986"), tlv("54", "10.505"),
		tlv("58", "BR"), tlv("59", "F"), tlv("60", "C")))
	f.Add(assemble(tlv("00", "01"), tlv("26", pixMAI), tlv("52", "0000"), tlv("53", "986"),
		tlv("58", "BR"), "5910São João", tlv("60", "C")))
	for _, p := range []BRCodeParams{
		{PixKey: "k@x.com", MerchantName: "Loja", MerchantCity: "Natal", Amount: 1234, TxID: "abc"},
		{URL: "pix.example.com/qr/v2/abc", MerchantName: "Loja", MerchantCity: "Natal", Amount: 1, Description: "d"},
	} {
		code, err := EncodeBRCode(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(code)
	}
	f.Add("")
	f.Add("6304")
	f.Add("000201")
	f.Fuzz(func(t *testing.T, s string) {
		checkParse(t, s)
		// The same input with its CRC repaired, so that mutations reach the checks behind the CRC.
		if i := strings.LastIndex(s, "6304"); i >= 0 {
			checkParse(t, withCRC(s[:i]))
		}
	})
}

// checkParse asserts what must hold for any input of ParseBRCode.
func checkParse(t *testing.T, s string) {
	t.Helper()
	b, err := ParseBRCode(s)
	if err != nil {
		if b != nil {
			t.Fatalf("code and error both returned")
		}
		if !errors.Is(err, ErrBRCode) {
			t.Fatalf("error does not match ErrBRCode: %v", err)
		}
		return
	}
	if b.Raw != strings.TrimSpace(s) {
		t.Fatalf("Raw = %q, want the trimmed input", b.Raw)
	}
	if !crcValid(b.Raw) {
		t.Fatalf("accepted a code whose CRC does not re-validate: %q", b.Raw)
	}
	if !strings.EqualFold(b.GUI, PixGUI) || (b.PixKey == "" && b.URL == "") || b.MerchantName == "" || b.MerchantCity == "" ||
		b.PayloadFormat != "01" || b.Currency != "986" || b.Country != "BR" || len(b.MCC) != 4 {
		t.Fatalf("accepted a code without mandatory content: %+v", b)
	}
	if b.HasAmount != (b.Amount > 0) {
		t.Fatalf("amount %d with HasAmount %v", b.Amount, b.HasAmount)
	}
	if b.TxID != "" && !brcValidTxID(b.TxID) {
		t.Fatalf("accepted txid %q", b.TxID)
	}
	again, err := ParseBRCode(b.Raw)
	if err != nil || *again != *b {
		t.Fatalf("parsing Raw again gave %+v, %v", again, err)
	}
	// Any other CRC value must be refused.
	got := brcHexValue(b.Raw[len(b.Raw)-4:])
	bad := b.Raw[:len(b.Raw)-4] + fmt.Sprintf("%04X", got^0x8001)
	if _, err := ParseBRCode(bad); err == nil {
		t.Fatalf("accepted a wrong CRC: %q", bad)
	} else if brcIsASCII(b.Raw) && !errors.Is(err, ErrBRCodeCRC) {
		t.Fatalf("wrong CRC gave %v, want ErrBRCodeCRC", err)
	}
}

func FuzzEncodeBRCode(f *testing.F) {
	f.Add("123e4567-e12b-12d1-a456-426655440000", "", "", "Fulano de Tal", "BRASILIA", "", int64(0))
	f.Add("loja@example.com", "Pedido 42", "https://pix.example.com/qr/v2/abc", "Padaria São João", "São Paulo", "TX42", int64(123456))
	f.Add("", "", "pix.example.com/x", "a", "b", "***", int64(1))
	f.Add(strings.Repeat("k", 77), "descrição", "", strings.Repeat("N", 40), strings.Repeat("C", 40), strings.Repeat("Z", 25), int64(999999999999))
	f.Add("k", "", "https://https://x", " Zé ", "\u00a0Açaí ", "a-b", int64(-5))
	f.Fuzz(func(t *testing.T, key, desc, url, name, city, txid string, amount int64) {
		p := BRCodeParams{PixKey: key, Description: desc, URL: url, MerchantName: name, MerchantCity: city, TxID: txid, Amount: Money(amount)}
		code, err := EncodeBRCode(p)
		if err != nil {
			return
		}
		if !crcValid(code) {
			t.Fatalf("encoded code has a bad CRC: %q", code)
		}
		b, err := ParseBRCode(code)
		if err != nil {
			t.Fatalf("ParseBRCode(EncodeBRCode(%+v) = %q): %v", p, code, err)
		}
		if b.PixKey != strings.TrimSpace(key) {
			t.Errorf("PixKey %q, want %q", b.PixKey, strings.TrimSpace(key))
		}
		if b.HasAmount != (amount > 0) || (amount > 0 && b.Amount != Money(amount)) {
			t.Errorf("amount %d (has %v), want %d", b.Amount, b.HasAmount, amount)
		}
		wantTx := strings.TrimSpace(txid)
		if wantTx == "***" {
			wantTx = ""
		}
		if b.TxID != wantTx {
			t.Errorf("TxID %q, want %q", b.TxID, wantTx)
		}
		if (b.InitiationMethod == BRCodeDynamic) != (b.URL != "") {
			t.Errorf("initiation method %q with URL %q", b.InitiationMethod, b.URL)
		}
		for _, v := range []string{b.MerchantName, b.MerchantCity, b.Description, b.URL} {
			if !brcIsASCII(v) {
				t.Errorf("non-ASCII %q in encoded code", v)
			}
		}
		if b.MerchantName != strings.ToUpper(b.MerchantName) || b.MerchantCity != strings.ToUpper(b.MerchantCity) {
			t.Errorf("names not upper case: %q %q", b.MerchantName, b.MerchantCity)
		}
		// Encoding the decoded content gives the same code: normalisation is stable.
		again, err := reencode(b)
		if err != nil || again != code {
			t.Errorf("re-encoding gave %q, %v; want %q", again, err, code)
		}
	})
}
