// Package brdoc validates the Brazilian documents and PIX keys the dashboard, its
// configuration and the emulator accept: CPF, CNPJ (numeric and, since July 2026,
// alphanumeric), e-mail, phone and the random (EVP) key. It is the one place these rules live;
// it imports nothing of the project.
//
// Documents are read as people type them: punctuation (dots, dashes, a slash, spaces) is
// dropped and letters are upper-cased ("12.abc.345/01de-35" is the CNPJ 12ABC34501DE35). The
// compact form returned is what the service is sent: 11 digits for a CPF, 14 upper-case
// characters for a CNPJ.
package brdoc

import (
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// Kind is the kind of a document.
type Kind string

// Kinds of document (the values are the service's holderDocumentType).
const (
	CPF  Kind = "cpf"
	CNPJ Kind = "cnpj"
)

// Lengths of the compact documents.
const (
	CPFLen  = 11
	CNPJLen = 14
)

// EmailKeyMax is the longest e-mail PIX key (the DICT's limit).
const EmailKeyMax = 77

// Errors of the checks; each message is the English text shown for it. Errors returned wrap
// one of them (errors.Is).
var (
	ErrEmpty = errors.New("required")
	// ErrCharacters: a document holds something other than digits, letters, . - / and spaces.
	ErrCharacters = errors.New("use only digits, letters (CNPJ), dots, dashes and a slash")
	// ErrLength: a document is neither 11 (CPF) nor 14 (CNPJ) characters long; see LengthError.
	ErrLength = errors.New("a CPF has 11 digits and a CNPJ 14 characters")
	// ErrCPFLetters: an 11-character document with a letter (a CPF has digits only).
	ErrCPFLetters = errors.New("a CPF has digits only")
	// ErrCPFRepeated: a CPF whose 11 digits are all the same (111.111.111-11), which the
	// Receita Federal never issues even though its check digits add up.
	ErrCPFRepeated = errors.New("a CPF with all 11 digits the same (like 111.111.111-11) is not valid")
	// ErrCPFCheck: a CPF whose check digits do not match.
	ErrCPFCheck = errors.New("CPF check digits do not match")
	// ErrCNPJShape: a CNPJ's check digits (its last two characters) are not digits.
	ErrCNPJShape = errors.New("a CNPJ ends in two check digits (0-9)")
	// ErrCNPJRepeated: a CNPJ whose 14 characters are all the same.
	ErrCNPJRepeated = errors.New("a CNPJ with all 14 characters the same is not valid")
	// ErrCNPJCheck: a CNPJ whose check digits do not match.
	ErrCNPJCheck = errors.New("CNPJ check digits do not match")
	// ErrNotCPF: a CPF was asked for and something else was typed.
	ErrNotCPF = errors.New("a CPF has 11 digits")
	// ErrNotCNPJ: a CNPJ was asked for and something else was typed.
	ErrNotCNPJ = errors.New("a CNPJ has 14 characters")

	// ErrEmail: not an e-mail address.
	ErrEmail = errors.New("not an e-mail address (name@example.com)")
	// ErrEmailKeyLong: an e-mail longer than a PIX key may be (EmailKeyMax).
	ErrEmailKeyLong = errors.New("an e-mail key has at most 77 characters")
	// ErrPhoneCharacters: a phone with something other than digits, spaces, + ( ) and -.
	ErrPhoneCharacters = errors.New("use digits, spaces, +, ( ) and -")
	// ErrPhoneLength: a contact phone without 10 to 13 digits; see LengthError.
	ErrPhoneLength = errors.New("a phone has 10 to 13 digits with area code")
	// ErrPhoneCountry: a phone key outside Brazil.
	ErrPhoneCountry = errors.New("only Brazilian numbers (+55) can be PIX keys")
	// ErrPhoneShape: a phone key that is not +55, a DDD and 8 or 9 digits.
	ErrPhoneShape = errors.New("write +55, the area code (DDD) and the number: +55 11 98765-4321")
	// ErrPhoneDDD: a phone key whose area code has a 0.
	ErrPhoneDDD = errors.New("the area code (DDD) is two digits from 11 to 99")
	// ErrPhoneMobile: a 9-digit number that does not start with 9.
	ErrPhoneMobile = errors.New("a 9-digit mobile number starts with 9")
	// ErrEVP: a random key that is not a UUID.
	ErrEVP = errors.New("a random key is a UUID (8-4-4-4-12 hexadecimal digits)")
	// ErrKeyType: a PIX key type that is not one of KeyTypes.
	ErrKeyType = errors.New("choose the key type")
)

// LengthError is ErrLength or ErrPhoneLength with the length found.
type LengthError struct {
	Err error // ErrLength or ErrPhoneLength
	Got int   // characters (document) or digits (phone) found
}

func (e *LengthError) Error() string { return fmt.Sprintf("%s (got %d)", e.Err, e.Got) }

// Unwrap returns the sentinel.
func (e *LengthError) Unwrap() error { return e.Err }

// Clean drops a document's punctuation (. - / and spaces) and upper-cases its letters; other
// characters are kept, so the result can be checked.
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '.' || r == '-' || r == '/' || r == ' ' || r == '\t':
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Digits keeps only the ASCII digits of s.
func Digits(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Document checks a CPF or a CNPJ as typed (punctuation optional, letters of either case) and
// returns its kind and compact form. An empty s is ErrEmpty.
func Document(s string) (Kind, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", ErrEmpty
	}
	c := Clean(s)
	for i := 0; i < len(c); i++ {
		if !isDigit(c[i]) && !(c[i] >= 'A' && c[i] <= 'Z') {
			return "", "", ErrCharacters
		}
	}
	switch len(c) {
	case CPFLen:
		return CPF, c, checkCPF(c)
	case CNPJLen:
		return CNPJ, c, checkCNPJ(c)
	}
	return "", "", &LengthError{Err: ErrLength, Got: utf8.RuneCountInString(c)}
}

// CheckCPF checks a CPF as typed and returns its 11 digits.
func CheckCPF(s string) (string, error) {
	k, c, err := Document(s)
	if err == nil && k != CPF || errors.Is(err, ErrLength) {
		return "", ErrNotCPF
	}
	return c, err
}

// CheckCNPJ checks a CNPJ (numeric or alphanumeric) as typed and returns its 14 characters.
func CheckCNPJ(s string) (string, error) {
	k, c, err := Document(s)
	if err == nil && k != CNPJ || errors.Is(err, ErrLength) || errors.Is(err, ErrCPFLetters) ||
		errors.Is(err, ErrCPFCheck) || errors.Is(err, ErrCPFRepeated) {
		return "", ErrNotCNPJ
	}
	return c, err
}

// ValidCPF reports whether d is a valid compact CPF (11 digits).
func ValidCPF(d string) bool { return len(d) == CPFLen && checkCPF(d) == nil }

// ValidCNPJ reports whether c is a valid compact CNPJ (14 characters, upper-case letters).
func ValidCNPJ(c string) bool { return len(c) == CNPJLen && checkCNPJ(c) == nil }

// checkCPF checks an 11-character compact CPF.
func checkCPF(d string) error {
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) {
			return ErrCPFLetters
		}
	}
	if strings.Count(d, d[:1]) == CPFLen {
		return ErrCPFRepeated
	}
	for _, n := range []int{9, 10} {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * (n + 1 - i)
		}
		if (sum*10)%11%10 != int(d[n]-'0') {
			return ErrCPFCheck
		}
	}
	return nil
}

// checkCNPJ checks a 14-character compact CNPJ of digits and upper-case letters.
func checkCNPJ(c string) error {
	if !isDigit(c[12]) || !isDigit(c[13]) {
		return ErrCNPJShape
	}
	if strings.Count(c, c[:1]) == CNPJLen {
		return ErrCNPJRepeated
	}
	if dv, ok := CNPJCheckDigits(c[:12]); !ok || dv != c[12:] {
		return ErrCNPJCheck
	}
	return nil
}

// CNPJCheckDigits computes the two check digits of a CNPJ's first 12 characters (digits and
// upper-case letters), by the Receita Federal's rule for the alphanumeric CNPJ, which gives
// the old numeric CNPJ's digits too: each character is worth its ASCII code minus 48 ('0'-'9'
// 0-9, 'A'-'Z' 17-42), weighted 2 to 9 from the right (and again from 2), summed modulo 11;
// a remainder below 2 gives 0, otherwise 11 minus it. ok is false when base is not 12 such
// characters.
func CNPJCheckDigits(base string) (dv string, ok bool) {
	if len(base) != 12 {
		return "", false
	}
	for i := 0; i < len(base); i++ {
		if !isDigit(base[i]) && !(base[i] >= 'A' && base[i] <= 'Z') {
			return "", false
		}
	}
	digit := func(s string) byte {
		sum, w := 0, 2
		for i := len(s) - 1; i >= 0; i-- {
			sum += int(s[i]-'0') * w
			if w++; w > 9 {
				w = 2
			}
		}
		if r := sum % 11; r >= 2 {
			return byte('0' + 11 - r)
		}
		return '0'
	}
	d1 := digit(base)
	d2 := digit(base + string(d1))
	return string([]byte{d1, d2}), true
}

// Format punctuates a document for display: 000.000.000-00 for a CPF, 00.000.000/0000-00
// for a CNPJ (letters included); anything else is returned cleaned.
func Format(s string) string {
	c := Clean(s)
	switch {
	case len(c) == CPFLen && Digits(c) == c:
		return c[0:3] + "." + c[3:6] + "." + c[6:9] + "-" + c[9:]
	case len(c) == CNPJLen && isAlnum(c):
		return c[0:2] + "." + c[2:5] + "." + c[5:8] + "/" + c[8:12] + "-" + c[12:]
	}
	return c
}

// Email checks an e-mail address as typed (surrounding spaces dropped) and returns it.
func Email(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrEmpty
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || !strings.Contains(s[strings.IndexByte(s, '@')+1:], ".") {
		return "", ErrEmail
	}
	return s, nil
}

// Phone checks a contact phone as typed: digits, spaces, + ( ) and -, 10 to 13 digits in all
// (area code included). It returns s trimmed.
func Phone(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrEmpty
	}
	if !phoneChars(s) {
		return "", ErrPhoneCharacters
	}
	if n := len(Digits(s)); n < 10 || n > 13 {
		return "", &LengthError{Err: ErrPhoneLength, Got: n}
	}
	return s, nil
}

// PhoneKey reads a phone PIX key as "+55 11 98765-4321", "(11) 98765-4321" or "11987654321"
// and returns it as the DICT holds it: +55, the area code (DDD) and the number.
func PhoneKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrEmpty
	}
	if !phoneChars(s) {
		return "", ErrPhoneCharacters
	}
	d := Digits(s)
	switch {
	case strings.HasPrefix(s, "+"):
		if !strings.HasPrefix(d, "55") {
			return "", ErrPhoneCountry
		}
		d = d[2:]
	case (len(d) == 12 || len(d) == 13) && strings.HasPrefix(d, "55"):
		d = d[2:]
	}
	if len(d) != 10 && len(d) != 11 {
		return "", ErrPhoneShape
	}
	if d[0] == '0' || d[1] == '0' {
		return "", ErrPhoneDDD
	}
	if len(d) == 11 && d[2] != '9' {
		return "", ErrPhoneMobile
	}
	return "+55" + d, nil
}

// EVP checks a random PIX key (a UUID) and returns it in lower case.
func EVP(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ErrEmpty
	}
	if len(s) != 36 {
		return "", ErrEVP
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return "", ErrEVP
			}
			continue
		}
		if !isDigit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') {
			return "", ErrEVP
		}
	}
	return strings.ToLower(s), nil
}

// KeyType is a PIX key type; its values are the service's pixKeyType.
type KeyType string

// PIX key types.
const (
	KeyCPF    KeyType = "cpf"
	KeyCNPJ   KeyType = "cnpj"
	KeyEmail  KeyType = "email"
	KeyPhone  KeyType = "phone"
	KeyRandom KeyType = "random"
)

// PixKey checks a PIX key for its type and returns it as the service takes it: a CPF as 11
// digits, a CNPJ as 14 characters (letters upper-cased), an e-mail as typed (at most
// EmailKeyMax characters), a phone as +55DDDNUMBER, a random key as a lower-case UUID.
func PixKey(t KeyType, s string) (string, error) {
	switch t {
	case KeyCPF:
		return CheckCPF(s)
	case KeyCNPJ:
		return CheckCNPJ(s)
	case KeyEmail:
		e, err := Email(s)
		if err == nil && utf8.RuneCountInString(e) > EmailKeyMax {
			return "", ErrEmailKeyLong
		}
		return e, err
	case KeyPhone:
		return PhoneKey(s)
	case KeyRandom:
		return EVP(s)
	}
	if strings.TrimSpace(s) == "" {
		return "", ErrEmpty
	}
	return "", ErrKeyType
}

func phoneChars(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9') && !strings.ContainsRune("+()- ", r) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && !(s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}
