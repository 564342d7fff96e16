package common

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"pixdash/api"
	"pixdash/api/brdoc"
	"pixdash/state"
)

// onlyDigits strips everything but digits (so "123.456.789-09" reads as a CPF): api/brdoc's rule.
var onlyDigits = brdoc.Digits

// CheckDocument validates a CPF or CNPJ (numeric or alphanumeric) as typed, with or without
// punctuation, through api/brdoc, and returns its compact form (what the service is sent: 11
// digits, or 14 characters with letters upper-cased) and kind. An empty s is no error.
func CheckDocument(tr Catalog, s string) (string, brdoc.Kind, error) {
	if strings.TrimSpace(s) == "" {
		return "", "", nil
	}
	k, c, err := brdoc.Document(s)
	if err != nil {
		return brdoc.Clean(s), k, BrdocError(tr, err)
	}
	return c, k, nil
}

// BrdocError words a refusal of api/brdoc in the catalog's language.
func BrdocError(tr Catalog, err error) error {
	if err == nil {
		return nil
	}
	var le *brdoc.LengthError
	var msg string
	switch {
	case errors.As(err, &le) && errors.Is(err, brdoc.ErrLength):
		msg = tr.F("validate.a_cpf_has_11_digits_and", le.Got)
	case errors.As(err, &le):
		msg = tr.F("validate.a_phone_has_10_to_13", le.Got)
	case errors.Is(err, brdoc.ErrEmpty):
		msg = tr.T("validate.required")
	case errors.Is(err, brdoc.ErrCharacters):
		msg = tr.T("validate.use_only_digits_letters_cnpj_dots")
	case errors.Is(err, brdoc.ErrCPFLetters):
		msg = tr.T("validate.a_cpf_has_digits_only")
	case errors.Is(err, brdoc.ErrCPFRepeated):
		msg = tr.T("validate.a_cpf_with_all_11_digits")
	case errors.Is(err, brdoc.ErrCPFCheck):
		msg = tr.T("validate.cpf_check_digits_do_not_match")
	case errors.Is(err, brdoc.ErrCNPJShape):
		msg = tr.T("validate.a_cnpj_ends_in_two_check")
	case errors.Is(err, brdoc.ErrCNPJRepeated):
		msg = tr.T("validate.a_cnpj_with_all_14_characters")
	case errors.Is(err, brdoc.ErrCNPJCheck):
		msg = tr.T("validate.cnpj_check_digits_do_not_match")
	case errors.Is(err, brdoc.ErrNotCPF):
		msg = tr.T("validate.a_cpf_key_has_11_digits")
	case errors.Is(err, brdoc.ErrNotCNPJ):
		msg = tr.T("validate.a_cnpj_key_has_14_characters")
	case errors.Is(err, brdoc.ErrEmail):
		msg = tr.T("validate.not_an_e_mail_address_name")
	case errors.Is(err, brdoc.ErrPhoneCharacters):
		msg = tr.T("validate.use_digits_spaces_and")
	case errors.Is(err, brdoc.ErrPhoneCountry):
		msg = tr.T("validate.only_brazilian_numbers_55_can_be")
	case errors.Is(err, brdoc.ErrPhoneShape):
		msg = tr.T("validate.write_55_the_area_code_ddd")
	case errors.Is(err, brdoc.ErrPhoneDDD):
		msg = tr.T("validate.the_area_code_ddd_is_two")
	case errors.Is(err, brdoc.ErrPhoneMobile):
		msg = tr.T("validate.a_9_digit_mobile_number_starts")
	case errors.Is(err, brdoc.ErrEVP):
		msg = tr.T("validate.a_random_key_is_a_uuid")
	case errors.Is(err, brdoc.ErrKeyType):
		msg = tr.T("validate.choose_the_key_type")
	default:
		msg = tr.T(err.Error())
	}
	return errors.New(msg)
}

// AmountError words a refusal of api.ParseBRL for the form: an ambiguous "1.500" names both
// readings and the ways to write either in the catalog's language; other refusals as they are.
func AmountError(tr Catalog, err error) error {
	var ae *api.AmbiguousAmountError
	if errors.As(err, &ae) {
		return errors.New(tr.F("validate.could_be_or_write_or_or", ae.Text, ae.Thousands.BRL(), ae.Decimal.BRL(),
			ae.Thousands.Typed(), ae.Thousands.Grouped(), ae.Decimal.Grouped()))
	}
	return errors.New(LocalMessage(tr, err.Error()))
}

// AmountPreview is the live reading shown after an amount field: "= R$ 1.234,56", or for an
// ambiguous "1.500" the question "= R$ 1.500,00 or R$ 1,50?"; "" when there is nothing to show.
func AmountPreview(tr Catalog, text string) string {
	amt, err := api.ParseBRL(text)
	var ae *api.AmbiguousAmountError
	switch {
	case err == nil && amt > 0:
		return "= " + amt.BRL()
	case errors.As(err, &ae):
		return tr.F("validate.or", ae.Thousands.BRL(), ae.Decimal.BRL())
	}
	return ""
}

// MaskDocument hides the middle of a CPF/CNPJ: ***.456.789-** style (state.MaskDocument, the
// one rule the dashboard and the exports share).
func MaskDocument(d string) string { return state.MaskDocument(d) }

// FormatDocument punctuates a CPF or CNPJ (alphanumeric too) for display.
func FormatDocument(d string) string { return brdoc.Format(d) }

// CheckEmail checks an optional e-mail address (api/brdoc's rule).
func CheckEmail(tr Catalog, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	_, err := brdoc.Email(s)
	return BrdocError(tr, err)
}

// CheckPhone checks an optional contact phone (api/brdoc's rule).
func CheckPhone(tr Catalog, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	_, err := brdoc.Phone(s)
	return BrdocError(tr, err)
}

// CheckMaxLen refuses s longer than max characters.
func CheckMaxLen(tr Catalog, s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf(tr.T("validate.at_most_characters_now"), max, n)
	}
	return nil
}

// metaPair is one metadata entry as typed, in the order typed.
type metaPair struct{ key, value string }

// String shows the pair as it will be sent: key=value, the value quoted when it is empty or
// holds a space, ; or = (so what is sent is unambiguous on screen).
func (p metaPair) String() string {
	v := p.value
	if v == "" || strings.ContainsAny(v, " ;=\t") {
		v = `"` + v + `"`
	}
	return Sanitize(p.key + "=" + v)
}

// ParseMetadata reads metadata pairs (see parseMetadataPairs) into what the request sends;
// nil when there are none.
func ParseMetadata(tr Catalog, s string) (map[string]any, error) {
	pairs, err := ParseMetadataPairs(tr, s)
	if err != nil || len(pairs) == 0 {
		return nil, err
	}
	out := make(map[string]any, len(pairs))
	for _, p := range pairs {
		out[p.key] = p.value
	}
	return out, nil
}

// ParseMetadataPairs reads key=value pairs as a shop owner types them: pairs are separated by
// a space, ";" or a new line ("mesa=4 garcom=João"); a value runs to the next key= or
// separator, so it may hold spaces ("garcom=João da Silva mesa=4"); a value in double quotes
// is taken as is (obs="leve 2 x=3"). Keys appear once.
func ParseMetadataPairs(tr Catalog, s string) ([]metaPair, error) {
	var pairs []metaPair
	seen := map[string]bool{}
	for _, piece := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' || r == '\r' }) {
		rest := strings.TrimSpace(piece)
		for rest != "" {
			// The key: up to "=", with no space in it.
			eq := strings.IndexByte(rest, '=')
			sp := strings.IndexFunc(rest, unicode.IsSpace)
			if eq <= 0 || (sp >= 0 && sp < eq) || strings.ContainsRune(rest[:eq], '"') {
				return nil, fmt.Errorf(tr.T("validate.write_key_value"), strings.TrimSpace(rest))
			}
			k := rest[:eq]
			rest = rest[eq+1:]
			var v string
			if strings.HasPrefix(rest, `"`) {
				end := strings.IndexByte(rest[1:], '"')
				if end < 0 {
					return nil, fmt.Errorf(tr.T("validate.the_closing_quote_is_missing"), k+"="+rest)
				}
				v, rest = rest[1:1+end], rest[2+end:]
			} else {
				end := nextMetaKey(rest)
				v, rest = strings.TrimSpace(rest[:end]), rest[end:]
			}
			if seen[k] {
				return nil, fmt.Errorf(tr.T("validate.key_appears_twice"), k)
			}
			seen[k] = true
			pairs = append(pairs, metaPair{key: k, value: v})
			rest = strings.TrimSpace(rest)
		}
	}
	return pairs, nil
}

// nextMetaKey is where the next pair starts in s, a value's text: at a space followed by a
// word and "=" (len(s) when no other pair follows).
func nextMetaKey(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			continue
		}
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		k := j
		for k < len(s) && s[k] != ' ' && s[k] != '\t' && s[k] != '=' && s[k] != '"' {
			k++
		}
		if k > j && k < len(s) && s[k] == '=' {
			return i
		}
		i = j - 1
	}
	return len(s)
}

// ParseDuration reads an expiry as a person types it: "300", "90m", "2h", "3d", "1d12h".
func ParseDuration(tr Catalog, s string) (time.Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return 0, fmt.Errorf("%s", tr.T("validate.enter_a_duration_like_30m_2h"))
	}
	if onlyDigits(s) == s {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil || len(s) > 7 {
			return 0, fmt.Errorf("%s", tr.T("validate.enter_a_duration_like_30m_2h"))
		}
		return time.Duration(n) * time.Second, nil
	}
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || i > 6 {
			return 0, fmt.Errorf("%s", tr.T("validate.enter_a_duration_like_30m_2h"))
		}
		var n int
		if _, err := fmt.Sscan(rest[:i], &n); err != nil {
			return 0, fmt.Errorf("%s", tr.T("validate.enter_a_duration_like_30m_2h"))
		}
		unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[rest[i]]
		if unit == 0 {
			return 0, fmt.Errorf("%s", tr.T("validate.enter_a_duration_like_30m_2h"))
		}
		total += time.Duration(n) * unit
		rest = rest[i+1:]
	}
	return total, nil
}

// CheckExpiry refuses an expiry the service does not take.
func CheckExpiry(tr Catalog, d time.Duration) error {
	secs := int(d / time.Second)
	if secs < api.MinExpiresIn || secs > api.MaxExpiresIn {
		return fmt.Errorf("%s", tr.T("validate.expiry_must_be_between_5_minutes"))
	}
	return nil
}
