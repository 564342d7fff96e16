package brdoc

import (
	"errors"
	"strings"
	"testing"
)

func TestDocument(t *testing.T) {
	tests := []struct {
		in   string
		kind Kind
		want string
		err  error
	}{
		// CPF
		{"529.982.247-25", CPF, "52998224725", nil},
		{"52998224725", CPF, "52998224725", nil},
		{" 123.456.789-09 ", CPF, "12345678909", nil},
		{"529.982.247-24", CPF, "", ErrCPFCheck},
		{"111.111.111-11", CPF, "", ErrCPFRepeated}, // its check digits add up: the rule is another
		{"00000000000", CPF, "", ErrCPFRepeated},
		{"999.999.999-99", CPF, "", ErrCPFRepeated},
		{"5299822472A", CPF, "", ErrCPFLetters},
		// Numeric CNPJ
		{"11.222.333/0001-81", CNPJ, "11222333000181", nil},
		{"11222333000181", CNPJ, "11222333000181", nil},
		{"11.222.333/0001-82", CNPJ, "", ErrCNPJCheck},
		{"00.000.000/0000-00", CNPJ, "", ErrCNPJRepeated},
		{"11111111111111", CNPJ, "", ErrCNPJRepeated},
		// Alphanumeric CNPJ: the Receita Federal's example, and others computed by its rule.
		{"12.ABC.345/01DE-35", CNPJ, "12ABC34501DE35", nil},
		{"12ABC34501DE35", CNPJ, "12ABC34501DE35", nil},
		{"12.abc.345/01de-35", CNPJ, "12ABC34501DE35", nil}, // lower case is read upper-cased
		{"A1.B2C.3D4/E5F6-68", CNPJ, "A1B2C3D4E5F668", nil},
		{"ZZ.ZZZ.ZZZ/ZZZZ-62", CNPJ, "ZZZZZZZZZZZZ62", nil},
		{"12.345.678/90AB-04", CNPJ, "1234567890AB04", nil},
		{"12.ABC.345/01DE-36", CNPJ, "", ErrCNPJCheck},
		{"12.ABC.345/01DE-53", CNPJ, "", ErrCNPJCheck},
		{"12.ABD.345/01DE-35", CNPJ, "", ErrCNPJCheck},
		{"12.ABC.345/01DE-3A", CNPJ, "", ErrCNPJShape}, // check digits are digits
		// Neither
		{"", "", "", ErrEmpty},
		{"   ", "", "", ErrEmpty},
		{"123", "", "", ErrLength},
		{"1234567890123", "", "", ErrLength},
		{"12.ABC.345/01DE-350", "", "", ErrLength},
		{"529,982,247-25", "", "", ErrCharacters},
		{"12.ÁBC.345/01DE-35", "", "", ErrCharacters},
		{"12_ABC_345_01DE_35", "", "", ErrCharacters},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			k, c, err := Document(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Document(%q) = %q, %q, %v; want %v", tt.in, k, c, err, tt.err)
				}
				if tt.kind != "" && k != tt.kind {
					t.Errorf("Document(%q) kind %q, want %q", tt.in, k, tt.kind)
				}
				return
			}
			if err != nil || k != tt.kind || c != tt.want {
				t.Fatalf("Document(%q) = %q, %q, %v; want %q, %q", tt.in, k, c, err, tt.kind, tt.want)
			}
		})
	}
}

func TestLengthErrorSaysWhatWasFound(t *testing.T) {
	_, _, err := Document("123.45")
	var le *LengthError
	if !errors.As(err, &le) || le.Got != 5 || !strings.Contains(err.Error(), "got 5") {
		t.Fatalf("Document(123.45) = %v; want a LengthError with 5", err)
	}
}

func TestCheckCPFAndCNPJ(t *testing.T) {
	if d, err := CheckCPF("529.982.247-25"); err != nil || d != "52998224725" {
		t.Errorf("CheckCPF = %q, %v", d, err)
	}
	if _, err := CheckCPF("11.222.333/0001-81"); !errors.Is(err, ErrNotCPF) {
		t.Errorf("CheckCPF(a CNPJ) = %v, want ErrNotCPF", err)
	}
	if _, err := CheckCPF("111.111.111-11"); !errors.Is(err, ErrCPFRepeated) {
		t.Errorf("CheckCPF(111...) = %v, want ErrCPFRepeated", err)
	}
	if c, err := CheckCNPJ("12.ABC.345/01DE-35"); err != nil || c != "12ABC34501DE35" {
		t.Errorf("CheckCNPJ = %q, %v", c, err)
	}
	if _, err := CheckCNPJ("529.982.247-25"); !errors.Is(err, ErrNotCNPJ) {
		t.Errorf("CheckCNPJ(a CPF) = %v, want ErrNotCNPJ", err)
	}
	if _, err := CheckCNPJ("12.ABC.345/01DE-36"); !errors.Is(err, ErrCNPJCheck) {
		t.Errorf("CheckCNPJ(bad digits) = %v, want ErrCNPJCheck", err)
	}
	if !ValidCNPJ("12ABC34501DE35") || ValidCNPJ("12abc34501de35") || !ValidCPF("52998224725") || ValidCPF("11111111111") {
		t.Error("ValidCPF/ValidCNPJ disagree with Document")
	}
}

func TestCNPJCheckDigits(t *testing.T) {
	for base, want := range map[string]string{
		"12ABC34501DE": "35", // Receita Federal's example
		"112223330001": "81", // a numeric CNPJ keeps its digits under the new rule
		"A1B2C3D4E5F6": "68",
		"00000000000A": "04",
	} {
		if got, ok := CNPJCheckDigits(base); !ok || got != want {
			t.Errorf("CNPJCheckDigits(%q) = %q, %v; want %q", base, got, ok, want)
		}
	}
	for _, bad := range []string{"", "12ABC34501D", "12abc34501de", "12ABC34501D-"} {
		if _, ok := CNPJCheckDigits(bad); ok {
			t.Errorf("CNPJCheckDigits(%q) accepted", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[string]string{
		"52998224725":        "529.982.247-25",
		"11222333000181":     "11.222.333/0001-81",
		"12abc34501de35":     "12.ABC.345/01DE-35",
		"12.ABC.345/01DE-35": "12.ABC.345/01DE-35",
		"123":                "123",
	} {
		if got := Format(in); got != want {
			t.Errorf("Format(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPixKey(t *testing.T) {
	tests := []struct {
		t    KeyType
		in   string
		want string
		err  error
	}{
		{KeyCPF, "529.982.247-25", "52998224725", nil},
		{KeyCPF, "111.111.111-11", "", ErrCPFRepeated},
		{KeyCPF, "11222333000181", "", ErrNotCPF},
		{KeyCNPJ, "12.ABC.345/01DE-35", "12ABC34501DE35", nil},
		{KeyCNPJ, "12.abc.345/01de-35", "12ABC34501DE35", nil},
		{KeyCNPJ, "11.222.333/0001-81", "11222333000181", nil},
		{KeyCNPJ, "12.ABC.345/01DE-36", "", ErrCNPJCheck},
		{KeyCNPJ, "52998224725", "", ErrNotCNPJ},
		{KeyEmail, " ana@example.com ", "ana@example.com", nil},
		{KeyEmail, "ana@example", "", ErrEmail},
		{KeyEmail, strings.Repeat("a", 70) + "@example.com", "", ErrEmailKeyLong},
		{KeyPhone, "+55 11 98765-4321", "+5511987654321", nil},
		{KeyPhone, "(11) 3456-7890", "+551134567890", nil},
		{KeyPhone, "5511987654321", "+5511987654321", nil},
		{KeyPhone, "+1 212 555 0100", "", ErrPhoneCountry},
		{KeyPhone, "11 8765-43210", "", ErrPhoneMobile},
		{KeyPhone, "01 98765-4321", "", ErrPhoneDDD},
		{KeyPhone, "987654", "", ErrPhoneShape},
		{KeyPhone, "11 98765#4321", "", ErrPhoneCharacters},
		{KeyRandom, "123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000", nil},
		{KeyRandom, "123e4567e89b12d3a456426614174000", "", ErrEVP},
		{KeyRandom, "123e4567-e89b-12d3-a456-42661417400g", "", ErrEVP},
		{KeyCPF, "", "", ErrEmpty},
		{KeyType("iban"), "x", "", ErrKeyType},
	}
	for _, tt := range tests {
		got, err := PixKey(tt.t, tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("PixKey(%s, %q) = %q, %v; want %v", tt.t, tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("PixKey(%s, %q) = %q, %v; want %q", tt.t, tt.in, got, err, tt.want)
		}
	}
}

func TestPhone(t *testing.T) {
	if _, err := Phone("(11) 98765-4321"); err != nil {
		t.Errorf("Phone: %v", err)
	}
	var le *LengthError
	if _, err := Phone("98765"); !errors.As(err, &le) || le.Got != 5 || !errors.Is(err, ErrPhoneLength) {
		t.Errorf("Phone(98765) = %v", err)
	}
	if _, err := Phone("11 9876x4321"); !errors.Is(err, ErrPhoneCharacters) {
		t.Errorf("Phone(letters) = %v", err)
	}
}

// FuzzDocument: no panic; an accepted document is 11 digits or 14 upper-case characters
// ending in two digits, reads back the same punctuated, and a changed check digit is refused.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{"529.982.247-25", "111.111.111-11", "12.ABC.345/01DE-35", "12.abc.345/01de-35",
		"11222333000181", "", "12.ABC.345/01DE-3A", "ÿ", "1234567890123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, c, err := Document(s)
		if err != nil {
			return
		}
		switch k {
		case CPF:
			if len(c) != CPFLen || Digits(c) != c || !ValidCPF(c) {
				t.Fatalf("Document(%q) = CPF %q", s, c)
			}
		case CNPJ:
			if len(c) != CNPJLen || !isAlnum(c) || !isDigit(c[12]) || !isDigit(c[13]) || !ValidCNPJ(c) {
				t.Fatalf("Document(%q) = CNPJ %q", s, c)
			}
		default:
			t.Fatalf("Document(%q) kind %q", s, k)
		}
		if k2, c2, err := Document(Format(c)); err != nil || k2 != k || c2 != c {
			t.Fatalf("Document(Format(%q)) = %q, %q, %v", c, k2, c2, err)
		}
		bad := []byte(c)
		bad[len(bad)-1] = '0' + (bad[len(bad)-1]-'0'+1)%10
		if _, _, err := Document(string(bad)); err == nil {
			t.Fatalf("Document(%q) accepted with a wrong last check digit", bad)
		}
	})
}
