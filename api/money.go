package api

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Money is an amount in BRL held as integer centavos.
type Money int64

// Common amounts.
const (
	Centavo Money = 1
	Real    Money = 100
)

// ErrMoneyPrecision reports an amount with more than two decimal places.
var ErrMoneyPrecision = errors.New("more than 2 decimal places")

// ErrMoneyFormat reports text that is not an amount.
var ErrMoneyFormat = errors.New("not a valid amount")

// ErrMoneyRange reports an amount too large to hold.
var ErrMoneyRange = errors.New("amount out of range")

// ErrMoneyAmbiguous reports an amount that reads two ways: a dot followed by three digits ending
// in 0 ("1.500") is a thousands dot in pt-BR (R$ 1.500,00) and a decimal point elsewhere
// (R$ 1,50). Errors that match it are an *AmbiguousAmountError and match ErrMoneyFormat too.
var ErrMoneyAmbiguous = errors.New("ambiguous amount")

// AmbiguousAmountError is ParseBRL's refusal of text that could mean either of two amounts.
type AmbiguousAmountError struct {
	Text      string // the amount as typed, trimmed
	Thousands Money  // the reading with the dot grouping thousands ("1.500" → R$ 1.500,00)
	Decimal   Money  // the reading with the dot as a decimal point ("1.500" → R$ 1,50)
}

// Error asks for one of the unambiguous ways to write the amount.
func (e *AmbiguousAmountError) Error() string {
	return fmt.Sprintf("%q could be %s or %s: write %s or %s (or %s)", truncate(e.Text, 40), e.Thousands.BRL(), e.Decimal.BRL(),
		e.Thousands.Typed(), e.Thousands.Grouped(), e.Decimal.Grouped())
}

// Unwrap makes the error match ErrMoneyAmbiguous and ErrMoneyFormat.
func (e *AmbiguousAmountError) Unwrap() []error { return []error{ErrMoneyAmbiguous, ErrMoneyFormat} }

// Typed is m as a person would type it without ambiguity: whole reais bare ("1500"), else
// with a decimal comma ("15,00", "1500,50").
func (m Money) Typed() string {
	d := strings.Replace(m.Decimal(), ".", ",", 1)
	return strings.TrimSuffix(d, ",00")
}

// Grouped is m with thousands dots and a decimal comma, without the R$ ("1.500,00").
func (m Money) Grouped() string {
	s := m.BRL()
	if strings.HasPrefix(s, "-") {
		return "-" + strings.TrimPrefix(s, "-R$ ")
	}
	return strings.TrimPrefix(s, "R$ ")
}

// maxReais bounds the integer part so centavos never overflow int64.
const maxReais = math.MaxInt64/100 - 1

// Reais returns m as whole reais and the remaining centavos (both carry m's sign).
func (m Money) Reais() (reais, centavos int64) {
	return int64(m) / 100, int64(m) % 100
}

// Decimal formats m as a plain decimal with two places ("1234.56", "-0.05"), the wire form.
func (m Money) Decimal() string {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = uint64(-m)
		if m == math.MinInt64 {
			u = uint64(math.MaxInt64) + 1
		}
	}
	s := fmt.Sprintf("%d.%02d", u/100, u%100)
	if neg {
		return "-" + s
	}
	return s
}

// String formats m for people in the Brazilian style: "R$ 1.234,56", "-R$ 0,05".
func (m Money) String() string { return m.BRL() }

// BRL formats m as "R$ 1.234,56" (negative amounts as "-R$ 1,00").
func (m Money) BRL() string {
	d := m.Decimal()
	neg := strings.HasPrefix(d, "-")
	d = strings.TrimPrefix(d, "-")
	intPart, frac, _ := strings.Cut(d, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString("R$ ")
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(r)
	}
	b.WriteByte(',')
	b.WriteString(frac)
	return b.String()
}

// MarshalJSON writes m as an exact JSON number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.Decimal()), nil }

// UnmarshalJSON reads a JSON number (or a numeric string) exactly; more than 2 decimals is an error.
func (m *Money) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	v, err := ParseDecimal(string(b))
	if err != nil {
		return fmt.Errorf("money %q: %w", truncate(string(b), 40), err)
	}
	*m = v
	return nil
}

// ParseDecimal parses a wire decimal such as "10", "10.5", "-3.25" or "1e2" exactly into centavos.
func ParseDecimal(s string) (Money, error) {
	if s == "" {
		return 0, ErrMoneyFormat
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, ok := parseExponent(s[i+1:])
		if !ok {
			return 0, ErrMoneyFormat
		}
		exp = e
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (hasDot && frac == "") {
		return 0, ErrMoneyFormat
	}
	// Leading zeros carry no value; an all-zero mantissa is zero whatever the exponent.
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil
	}
	scale := int64(len(frac)) - exp // value = digits * 10^-scale
	// Drop trailing zeros beyond two places: 10.500 is exact.
	for scale > 2 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		scale--
	}
	if scale > 2 {
		return 0, ErrMoneyPrecision
	}
	// digits is non-zero with no leading zero: more than 19 digits of centavos cannot fit.
	if int64(len(digits))+(2-scale) > 19 {
		return 0, ErrMoneyRange
	}
	digits += strings.Repeat("0", int(2-scale))
	u, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || u > uint64(maxReais)*100 {
		return 0, ErrMoneyRange
	}
	if neg {
		return Money(-int64(u)), nil
	}
	return Money(u), nil
}

// parseExponent reads an optionally signed run of digits, saturating at ±1e18 (far beyond any
// input length, so the saturated value leads to the same verdict as the exact one).
func parseExponent(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || !allDigits(s) {
		return 0, false
	}
	const limit = int64(1e18)
	var e int64
	for i := 0; i < len(s); i++ {
		e = e*10 + int64(s[i]-'0')
		if e >= limit {
			e = limit
			break
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// ParseBRL parses an amount as a person types it: "1234,56", "1.234,56", "1234.56", "R$ 12", "12", "-R$ 0,05".
// A lone dot followed by three digits groups thousands ("1.234" is R$ 1.234,00) unless the
// digits end in 0, when the text could as well be a decimal ("1.500": R$ 1.500,00 or R$ 1,50):
// that is refused with an *AmbiguousAmountError naming both readings.
// Errors wrap ErrMoneyFormat, ErrMoneyPrecision, ErrMoneyRange or ErrMoneyAmbiguous.
func ParseBRL(s string) (Money, error) {
	s = strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(s, "-") { // "-R$ 1,00", as BRL formats negatives
		neg = true
		s = strings.TrimSpace(s[1:])
	}
	s = strings.TrimPrefix(s, "R$")
	s = strings.TrimSpace(s)
	if !neg && strings.HasPrefix(s, "-") { // "R$ -1,00"
		neg = true
		s = strings.TrimSpace(s[1:])
	}
	if s == "" {
		return 0, moneyError{"enter an amount", ErrMoneyFormat}
	}
	hasDigit := false
	for _, r := range s {
		if !(r >= '0' && r <= '9') && r != ',' && r != '.' {
			return 0, moneyError{fmt.Sprintf("%q is not an amount: use digits and a decimal comma, e.g. 1.234,56", truncate(s, 40)), ErrMoneyFormat}
		}
		hasDigit = hasDigit || (r >= '0' && r <= '9')
	}
	if !hasDigit {
		return 0, moneyError{fmt.Sprintf("%q has no digits", truncate(s, 40)), ErrMoneyFormat}
	}
	var intPart, frac string
	comma := strings.LastIndexByte(s, ',')
	dot := strings.LastIndexByte(s, '.')
	switch {
	case comma >= 0 && dot > comma:
		return 0, moneyError{fmt.Sprintf("%q mixes separators: use 1.234,56 or 1234.56", truncate(s, 40)), ErrMoneyFormat}
	case comma >= 0:
		// Brazilian: dots group thousands, the comma separates decimals.
		if strings.Count(s, ",") > 1 {
			return 0, moneyError{fmt.Sprintf("%q has more than one decimal comma", truncate(s, 40)), ErrMoneyFormat}
		}
		intPart, frac = s[:comma], s[comma+1:]
		if !validGrouping(intPart, '.') {
			return 0, moneyError{fmt.Sprintf("%q has misplaced thousands dots", truncate(s, 40)), ErrMoneyFormat}
		}
		intPart = strings.ReplaceAll(intPart, ".", "")
	case dot >= 0:
		if strings.Count(s, ".") > 1 {
			// Only thousands dots: 1.234.567
			if !validGrouping(s, '.') {
				return 0, moneyError{fmt.Sprintf("%q has misplaced thousands dots", truncate(s, 40)), ErrMoneyFormat}
			}
			intPart = strings.ReplaceAll(s, ".", "")
		} else if len(s)-dot-1 == 3 && dot > 0 && dot <= 3 && s[0] != '0' {
			// A thousands group ("0.123" is not one). "1.234" cannot be a decimal (3 places):
			// one thousand. "1.500" can: R$ 1.500,00 in Brazil, R$ 1,50 to someone used to a
			// decimal point; the merchant is asked which.
			intPart = strings.ReplaceAll(s, ".", "")
			if s[len(s)-1] == '0' && allDigits(intPart) {
				th, err1 := ParseDecimal(intPart)
				de, err2 := ParseDecimal(s)
				if err1 == nil && err2 == nil {
					if neg {
						th, de = -th, -de
					}
					return 0, &AmbiguousAmountError{Text: s, Thousands: th, Decimal: de}
				}
			}
		} else {
			intPart, frac = s[:dot], s[dot+1:]
		}
	default:
		intPart = s
	}
	if intPart == "" {
		intPart = "0"
	}
	if len(frac) > 2 {
		return 0, moneyError{fmt.Sprintf("%q has more than 2 decimal places", truncate(s, 40)), ErrMoneyPrecision}
	}
	v, err := ParseDecimal(intPart + "." + frac + strings.Repeat("0", 2-len(frac)))
	if err != nil {
		if errors.Is(err, ErrMoneyRange) {
			return 0, moneyError{fmt.Sprintf("%q is too large", truncate(s, 40)), ErrMoneyRange}
		}
		return 0, moneyError{fmt.Sprintf("%q is not an amount", truncate(s, 40)), ErrMoneyFormat}
	}
	if neg {
		v = -v
	}
	return v, nil
}

// moneyError is a message for people that still matches one of the ErrMoney* sentinels.
type moneyError struct {
	msg  string
	kind error
}

func (e moneyError) Error() string { return e.msg }
func (e moneyError) Unwrap() error { return e.kind }

// validGrouping reports whether s groups digits in threes with sep, with no leading zero (or has no sep at all).
func validGrouping(s string, sep byte) bool {
	if strings.IndexByte(s, sep) < 0 {
		return true
	}
	parts := strings.Split(s, string(sep))
	if len(parts[0]) == 0 || len(parts[0]) > 3 || parts[0][0] == '0' {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
