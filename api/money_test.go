package api

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// maxMoney is the largest amount ParseDecimal accepts.
const maxMoney = Money(maxReais * 100)

func TestMoneyUnmarshalJSON(t *testing.T) {
	tests := []struct {
		in   string
		want Money
		err  error // sentinel the error must match; nil means valid
	}{
		{"10", 1000, nil},
		{"10.5", 1050, nil},
		{"10.50", 1050, nil},
		{"10.500", 1050, nil},
		{"10.505", 0, ErrMoneyPrecision},
		{"0.001", 0, ErrMoneyPrecision},
		{"1e2", 10000, nil},
		{"1E2", 10000, nil},
		{"1e+2", 10000, nil},
		{"1.5e1", 1500, nil},
		{"1e-2", 1, nil},
		{"1e-3", 0, ErrMoneyPrecision},
		{"1230e-3", 123, nil},
		{"-3.25", -325, nil},
		{"0.01", 1, nil},
		{"0", 0, nil},
		{"-0", 0, nil},
		{"0.00", 0, nil},
		{" 7 ", 700, nil},
		{`"10.50"`, 1050, nil}, // quoted strings accepted
		{`"1e2"`, 10000, nil},
		{`"-3.25"`, -325, nil},
		{"0000000000000000000000000000000000000000000001", 100, nil},
		{"0e999", 0, nil},
		{"0.000e-50", 0, nil},
		{"92233720368547757", maxMoney, nil},
		{"-92233720368547757", -maxMoney, nil},
		{"92233720368547757.01", 0, ErrMoneyRange},
		{"92233720368547758", 0, ErrMoneyRange},
		{"99999999999999999999", 0, ErrMoneyRange},
		{"1e17", 0, ErrMoneyRange},
		{"1e40", 0, ErrMoneyRange},
		{"1e41", 0, ErrMoneyRange},
		{"-1e300", 0, ErrMoneyRange},
		{"1e9999999999999999999999", 0, ErrMoneyRange},
		{"1e-41", 0, ErrMoneyPrecision},
		{"1e-9999999999999999999999", 0, ErrMoneyPrecision},
		{"abc", 0, ErrMoneyFormat},
		{"", 0, ErrMoneyFormat},
		{`""`, 0, ErrMoneyFormat},
		{`"abc"`, 0, ErrMoneyFormat},
		{"1.", 0, ErrMoneyFormat},
		{".5", 0, ErrMoneyFormat},
		{"-", 0, ErrMoneyFormat},
		{"+", 0, ErrMoneyFormat},
		{"--1", 0, ErrMoneyFormat},
		{"1e", 0, ErrMoneyFormat},
		{"e2", 0, ErrMoneyFormat},
		{"1e2.5", 0, ErrMoneyFormat},
		{"1.2.3", 0, ErrMoneyFormat},
		{"1,50", 0, ErrMoneyFormat},
		{"0x10", 0, ErrMoneyFormat},
		{"1_000", 0, ErrMoneyFormat},
		{"NaN", 0, ErrMoneyFormat},
		{"Infinity", 0, ErrMoneyFormat},
		{"１０", 0, ErrMoneyFormat},
		{`"10`, 0, ErrMoneyFormat},
		{"true", 0, ErrMoneyFormat},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m := Money(-42) // must be overwritten on success, left alone on error
			err := m.UnmarshalJSON([]byte(tt.in))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("UnmarshalJSON(%s) = %v, want %v", tt.in, err, tt.err)
				}
				if m != -42 {
					t.Errorf("value changed to %d on error", m)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalJSON(%s): %v", tt.in, err)
			}
			if m != tt.want {
				t.Errorf("UnmarshalJSON(%s) = %d, want %d", tt.in, m, tt.want)
			}
		})
	}
}

func TestMoneyJSONInStruct(t *testing.T) {
	var v struct {
		Amount Money   `json:"amount"`
		Split  []Money `json:"split"`
		Opt    *Money  `json:"opt"`
	}
	if err := json.Unmarshal([]byte(`{"amount": 10.5, "split": [0.01, "2.50"], "opt": null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.Amount != 1050 || len(v.Split) != 2 || v.Split[0] != 1 || v.Split[1] != 250 || v.Opt != nil {
		t.Errorf("decoded %+v", v)
	}
	err := json.Unmarshal([]byte(`{"amount": 10.505}`), &v)
	if !errors.Is(err, ErrMoneyPrecision) {
		t.Errorf("10.505 in a struct: err = %v, want ErrMoneyPrecision", err)
	}
	err = json.Unmarshal([]byte(`{"amount": 1e30}`), &v)
	if !errors.Is(err, ErrMoneyRange) {
		t.Errorf("1e30 in a struct: err = %v, want ErrMoneyRange", err)
	}
	m := Money(7)
	if err := json.Unmarshal([]byte(`null`), &m); err != nil || m != 7 {
		t.Errorf("null: m = %d, err %v; want unchanged 7", m, err)
	}
}

func TestMoneyMarshalJSON(t *testing.T) {
	tests := []struct {
		in   Money
		want string
	}{
		{1050, "10.50"},
		{0, "0.00"},
		{1, "0.01"},
		{10, "0.10"},
		{100, "1.00"},
		{-5, "-0.05"},
		{-325, "-3.25"},
		{123456789, "1234567.89"},
		{maxMoney, "92233720368547757.00"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatalf("Marshal(%d): %v", tt.in, err)
		}
		if string(b) != tt.want {
			t.Errorf("Marshal(%d) = %s, want %s", tt.in, b, tt.want)
		}
		if got := tt.in.Decimal(); got != tt.want {
			t.Errorf("Decimal(%d) = %s, want %s", tt.in, got, tt.want)
		}
	}
	b, err := json.Marshal(struct {
		Amount Money `json:"amount"`
	}{1050})
	if err != nil || string(b) != `{"amount":10.50}` {
		t.Errorf("struct marshal = %s, %v", b, err)
	}
}

func TestMoneyBRL(t *testing.T) {
	tests := []struct {
		in   Money
		want string
	}{
		{0, "R$ 0,00"},
		{1, "R$ 0,01"},
		{99, "R$ 0,99"},
		{100, "R$ 1,00"},
		{99999, "R$ 999,99"},
		{100000, "R$ 1.000,00"},
		{123456, "R$ 1.234,56"},
		{123456789, "R$ 1.234.567,89"},
		{-5, "-R$ 0,05"},
		{-123456, "-R$ 1.234,56"},
		{maxMoney, "R$ 92.233.720.368.547.757,00"},
		{math.MinInt64, "-R$ 92.233.720.368.547.758,08"},
	}
	for _, tt := range tests {
		if got := tt.in.BRL(); got != tt.want {
			t.Errorf("BRL(%d) = %q, want %q", tt.in, got, tt.want)
		}
		if got := tt.in.String(); got != tt.want {
			t.Errorf("String(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMoneyReais(t *testing.T) {
	tests := []struct {
		in        Money
		reais, cs int64
	}{
		{123456, 1234, 56},
		{5, 0, 5},
		{-5, 0, -5},
		{-12345, -123, -45},
	}
	for _, tt := range tests {
		if r, c := tt.in.Reais(); r != tt.reais || c != tt.cs {
			t.Errorf("Reais(%d) = %d, %d; want %d, %d", tt.in, r, c, tt.reais, tt.cs)
		}
	}
}

func TestParseBRL(t *testing.T) {
	tests := []struct {
		in   string
		want Money
		err  error // sentinel the error must match; nil means valid
	}{
		{"1234,56", 123456, nil},
		{"1.234,56", 123456, nil},
		{"1234.56", 123456, nil},
		{"12", 1200, nil},
		{"R$ 12,3", 1230, nil},
		{"R$12,30", 1230, nil},
		{"  R$ 1.234.567,89  ", 123456789, nil},
		{"1.234", 123400, nil}, // thousands dot: 1234 reais
		{"1.234.567", 123456700, nil},
		{"1.23", 123, nil},
		{"1.2", 120, nil},
		{"0,01", 1, nil},
		{",50", 50, nil},
		{"0", 0, nil},
		{"-R$ 0,05", -5, nil}, // as BRL formats negatives
		{"R$ -1,00", -100, nil},
		{"-12", -1200, nil},
		{"0,001", 0, ErrMoneyPrecision},
		{"1234.567", 0, ErrMoneyPrecision},
		{"0.123", 0, ErrMoneyPrecision}, // a leading zero is no thousands group
		{"12,34,5", 0, ErrMoneyFormat},
		{"1,234.56", 0, ErrMoneyFormat}, // mixed: US style
		{"1.23.456", 0, ErrMoneyFormat},
		{"1234.567,00", 0, ErrMoneyFormat},
		{"0.123.456", 0, ErrMoneyFormat},
		{"abc", 0, ErrMoneyFormat},
		{"", 0, ErrMoneyFormat},
		{"R$", 0, ErrMoneyFormat},
		{"   ", 0, ErrMoneyFormat},
		{",", 0, ErrMoneyFormat},
		{".", 0, ErrMoneyFormat},
		{"-", 0, ErrMoneyFormat},
		{"--5", 0, ErrMoneyFormat},
		{"-R$ -5", 0, ErrMoneyFormat},
		{"1 234,56", 0, ErrMoneyFormat},
		{"12e3", 0, ErrMoneyFormat},
		{"US$ 12", 0, ErrMoneyFormat},
		{"99999999999999999999", 0, ErrMoneyRange},
		{"92.233.720.368.547.758,00", 0, ErrMoneyRange},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBRL(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseBRL(%q) = %d, %v; want error %v", tt.in, got, err, tt.err)
				}
				if err.Error() == "" {
					t.Errorf("empty error message")
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseBRL(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseBRL(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseBRLMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1,234.56", "mixes separators"},
		{"0,001", "more than 2 decimal places"},
		{"12,34,5", "more than one decimal comma"},
		{"", "enter an amount"},
		{"abc", "is not an amount"},
		{"1.23.456", "misplaced thousands dots"},
		{"99999999999999999999", "too large"},
	}
	for _, tt := range tests {
		_, err := ParseBRL(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseBRL(%q) = %v, want a message containing %q", tt.in, err, tt.want)
		}
	}
}

func FuzzMoneyJSON(f *testing.F) {
	for _, s := range []string{"10", "10.5", "10.505", "10.500", "1e2", "-3.25", "0.01", `"10.50"`, "null",
		"92233720368547757", "1e40", "1e-41", "abc", "", "1.", ".5", "0e999", "-0", "1230e-3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Money
		err := m.UnmarshalJSON(data)
		if err != nil {
			if !errors.Is(err, ErrMoneyFormat) && !errors.Is(err, ErrMoneyPrecision) && !errors.Is(err, ErrMoneyRange) {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			return
		}
		if m > maxMoney || m < -maxMoney {
			t.Fatalf("accepted %d, outside ±%d", m, maxMoney)
		}
		b, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%d): %v", m, err)
		}
		if !json.Valid(b) {
			t.Fatalf("MarshalJSON(%d) = %s is not valid JSON", m, b)
		}
		var back Money
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Fatalf("round trip of %d through %s gave %d, %v", m, b, back, err)
		}
	})
}

func FuzzParseBRL(f *testing.F) {
	for _, s := range []string{"1234,56", "1.234,56", "1234.56", "12", "R$ 12,3", "1.234", "0,001", "12,34,5",
		"1,234.56", "abc", "", "-R$ 0,05", "R$ -1,00", ",50", "0.123", "99999999999999999999", "92.233.720.368.547.757,00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBRL(s)
		if err != nil {
			if !errors.Is(err, ErrMoneyFormat) && !errors.Is(err, ErrMoneyPrecision) && !errors.Is(err, ErrMoneyRange) {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			return
		}
		back, err := ParseBRL(v.BRL())
		if err != nil || back != v {
			t.Fatalf("ParseBRL(%q) = %d; ParseBRL(%q) = %d, %v", s, v, v.BRL(), back, err)
		}
		back, err = ParseBRL(v.Decimal())
		if err != nil || back != v {
			t.Fatalf("ParseBRL(%q) = %d; ParseBRL(%q) = %d, %v", s, v, v.Decimal(), back, err)
		}
	})
}
