package api

import (
	"errors"
	"strings"
	"testing"
)

// A dot then three digits ending in 0 reads two ways ("1.500": R$ 1.500,00 in Brazil, R$ 1,50
// with a decimal point): refused, naming both; the unambiguous forms keep working.
func TestParseBRLAmbiguousDot(t *testing.T) {
	for _, tt := range []struct {
		in             string
		thousands, dec Money
	}{
		{"1.500", 150000, 150},
		{"R$ 2.000", 200000, 200},
		{"12.990", 1299000, 1299},
		{"999.900", 99990000, 99990},
		{"-1.500", -150000, -150},
	} {
		_, err := ParseBRL(tt.in)
		var ae *AmbiguousAmountError
		if !errors.As(err, &ae) || !errors.Is(err, ErrMoneyAmbiguous) || !errors.Is(err, ErrMoneyFormat) {
			t.Fatalf("ParseBRL(%q) = %v; want an ambiguous amount", tt.in, err)
		}
		if ae.Thousands != tt.thousands || ae.Decimal != tt.dec {
			t.Errorf("ParseBRL(%q) readings %d, %d; want %d, %d", tt.in, ae.Thousands, ae.Decimal, tt.thousands, tt.dec)
		}
	}
	_, err := ParseBRL("1.500")
	for _, want := range []string{`"1.500" could be R$ 1.500,00 or R$ 1,50`, "write 1500 or 1.500,00 (or 1,50)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("message %v, want %q", err, want)
		}
	}
	for in, want := range map[string]Money{
		"1.50": 150, "1.5": 150, "1.500,00": 150000, "1500": 150000, "15,00": 1500, "1,50": 150,
		"1.234":     123400, // cannot be a decimal (3 places): thousands, as before
		"1.500.000": 150000000, "R$ 1.500,00": 150000, "1500.00": 150000,
	} {
		if got, err := ParseBRL(in); err != nil || got != want {
			t.Errorf("ParseBRL(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestMoneyTypedAndGrouped(t *testing.T) {
	for _, tt := range []struct {
		m              Money
		typed, grouped string
	}{
		{150000, "1500", "1.500,00"},
		{150, "1,50", "1,50"},
		{123456, "1234,56", "1.234,56"},
		{-150000, "-1500", "-1.500,00"},
	} {
		if got := tt.m.Typed(); got != tt.typed {
			t.Errorf("Typed(%d) = %q, want %q", tt.m, got, tt.typed)
		}
		if got := tt.m.Grouped(); got != tt.grouped {
			t.Errorf("Grouped(%d) = %q, want %q", tt.m, got, tt.grouped)
		}
		for _, s := range []string{tt.m.Typed(), tt.m.Grouped()} {
			if back, err := ParseBRL(s); err != nil || back != tt.m {
				t.Errorf("ParseBRL(%q) = %d, %v; want %d", s, back, err, tt.m)
			}
		}
	}
}
