package api

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// PixGUI is the globally unique identifier of PIX inside a BR Code's merchant account field (26).
const PixGUI = "br.gov.bcb.pix"

// BR Code limits from the EMV QRCPS and the BCB BR Code manual.
const (
	BRCodeMaxLen          = 512 // whole payload, characters
	BRCodeMaxMerchantName = 25  // field 59
	BRCodeMaxMerchantCity = 15  // field 60
	BRCodeMaxAmountLen    = 13  // field 54
	BRCodeMaxTxID         = 25  // field 62, subfield 05
	BRCodeMaxKey          = 77  // field 26, subfield 01
	BRCodeMaxURL          = 77  // field 26, subfield 25
)

// Point of initiation values (field 01).
const (
	BRCodeStatic  = "11" // reusable code
	BRCodeDynamic = "12" // single-use code, usually with a URL
)

// ErrBRCode is matched (errors.Is) by every error ParseBRCode returns.
var ErrBRCode = errors.New("invalid PIX code")

// ErrBRCodeCRC is matched (errors.Is) by ParseBRCode errors for a CRC that does not match the payload.
var ErrBRCodeCRC = errors.New("PIX code CRC mismatch")

// ErrBRCodeAmount is matched (errors.Is) by CheckAmount errors.
var ErrBRCodeAmount = errors.New("PIX code amount differs")

// brcodeError is a specific parse error that matches ErrBRCode (and ErrBRCodeCRC when crc is set).
type brcodeError struct {
	msg string
	crc bool
}

func (e *brcodeError) Error() string { return "invalid PIX code: " + e.msg }

func (e *brcodeError) Is(target error) bool {
	return target == ErrBRCode || (e.crc && target == ErrBRCodeCRC)
}

func brcErrorf(format string, args ...any) error {
	return &brcodeError{msg: fmt.Sprintf(format, args...)}
}

// BRCode is a decoded PIX "copia e cola" code (EMV merchant-presented BR Code).
type BRCode struct {
	PayloadFormat    string // field 00, "01"
	InitiationMethod string // field 01: BRCodeStatic, BRCodeDynamic or "" when absent
	GUI              string // field 26/00 as written (matches PixGUI ignoring case)
	PixKey           string // field 26/01, "" when absent (dynamic codes carry a URL instead)
	Description      string // field 26/02, optional
	URL              string // field 26/25, optional (dynamic codes), without scheme
	MCC              string // field 52, 4 digits
	Currency         string // field 53, "986"
	Amount           Money  // field 54, valid only when HasAmount
	HasAmount        bool   // field 54 present
	Country          string // field 58, "BR"
	MerchantName     string // field 59
	MerchantCity     string // field 60
	PostalCode       string // field 61, optional
	TxID             string // field 62/05; "" when absent or "***"
	Raw              string // the whole code as parsed (surrounding spaces removed)
}

// CRC16 returns the CRC-16/CCITT-FALSE of data (poly 0x1021, init 0xFFFF), the BR Code checksum.
func CRC16(data []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, b := range data {
		crc ^= uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// brcField is one TLV data object.
type brcField struct {
	id    string
	value string
	start int // byte offset of the ID within the text it was split from
}

// brcSplit splits s into TLV data objects. Lengths count characters (runes), as the EMV
// specification says, or bytes when byBytes is set. what names the level for errors
// ("field" at the top, "field 26 subfield" inside a template).
func brcSplit(s string, byBytes bool, what string) ([]brcField, error) {
	// offs[i] is the byte offset of unit i; offs[n] == len(s).
	var offs []int
	if byBytes {
		offs = make([]int, len(s)+1)
		for i := range offs {
			offs[i] = i
		}
	} else {
		offs = make([]int, 0, len(s)+1)
		for i := range s {
			offs = append(offs, i)
		}
		offs = append(offs, len(s))
	}
	n := len(offs) - 1
	digits := func(i, j int) bool { // units i..j-1 are ASCII digits
		if offs[j]-offs[i] != j-i {
			return false
		}
		return allDigits(s[offs[i]:offs[j]])
	}
	var out []brcField
	prev := ""
	for p := 0; p < n; {
		if n-p < 2 {
			if prev == "" {
				return nil, brcErrorf("truncated: %d character(s) where a %s ID should be", n-p, what)
			}
			return nil, brcErrorf("truncated after %s %s: %d stray character(s)", what, prev, n-p)
		}
		if !digits(p, p+2) {
			return nil, brcErrorf("bad %s ID %q at position %d", what, s[offs[p]:offs[p+2]], p)
		}
		id := s[offs[p]:offs[p+2]]
		if n-p < 4 {
			return nil, brcErrorf("truncated at %s %s: no length", what, id)
		}
		if !digits(p+2, p+4) {
			return nil, brcErrorf("%s %s: bad length %q", what, id, s[offs[p+2]:offs[p+4]])
		}
		l := int(s[offs[p+2]]-'0')*10 + int(s[offs[p+2]+1]-'0')
		if left := n - p - 4; l > left {
			return nil, brcErrorf("truncated at %s %s: length %d but only %d character(s) left", what, id, l, left)
		}
		out = append(out, brcField{id: id, value: s[offs[p+4]:offs[p+4+l]], start: offs[p]})
		prev = id
		p += 4 + l
	}
	if len(out) == 0 {
		return nil, brcErrorf("empty %s list", what)
	}
	return out, nil
}

// brcLen counts the characters of v the way the code was split.
func brcLen(v string, byBytes bool) int {
	if byBytes {
		return len(v)
	}
	return utf8.RuneCountInString(v)
}

// brcFieldName names a field ParseBRCode requires, for error messages.
func brcFieldName(id string) string {
	switch id {
	case "00":
		return "payload format"
	case "26":
		return "merchant account information"
	case "52":
		return "merchant category code"
	case "53":
		return "currency"
	case "58":
		return "country"
	case "59":
		return "merchant name"
	case "60":
		return "merchant city"
	case "63":
		return "CRC"
	}
	return "field " + id
}

// ParseBRCode decodes and validates a PIX copy-and-paste code: TLV structure and lengths,
// the CRC (field 63, last), the PIX GUI, the mandatory fields and the amount format.
// Errors match ErrBRCode; a checksum error also matches ErrBRCodeCRC.
func ParseBRCode(s string) (*BRCode, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, brcErrorf("empty code")
	}
	if !utf8.ValidString(s) {
		return nil, brcErrorf("not valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(s); n > BRCodeMaxLen {
		return nil, brcErrorf("%d characters, more than the maximum %d", n, BRCodeMaxLen)
	}
	b, err := parseBRCode(s, false)
	if err != nil && !brcIsASCII(s) {
		// Some issuers count bytes rather than characters in non-ASCII names; accept that too.
		if b2, err2 := parseBRCode(s, true); err2 == nil {
			return b2, nil
		}
	}
	return b, err
}

func parseBRCode(s string, byBytes bool) (*BRCode, error) {
	fields, err := brcSplit(s, byBytes, "field")
	if err != nil {
		return nil, err
	}
	if fields[0].id != "00" {
		return nil, brcErrorf("field 00 (payload format) must come first, found field %s", fields[0].id)
	}
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		if seen[f.id] {
			return nil, brcErrorf("field %s appears twice", f.id)
		}
		seen[f.id] = true
		if f.id == "63" && i != len(fields)-1 {
			return nil, brcErrorf("field 63 (CRC) must be the last field, found field %s after it", fields[i+1].id)
		}
	}
	last := fields[len(fields)-1]
	if last.id != "63" {
		return nil, brcErrorf("missing field 63 (CRC)")
	}
	if len(last.value) != 4 || !brcIsHex(last.value) {
		return nil, brcErrorf("field 63: CRC must be 4 hex digits, got %q", last.value)
	}
	computed := CRC16([]byte(s[:last.start+4]))
	if got := brcHexValue(last.value); got != computed {
		return nil, &brcodeError{msg: fmt.Sprintf("CRC mismatch: code says %s, computed %04X", last.value, computed), crc: true}
	}

	b := &BRCode{Raw: s}
	for _, f := range fields {
		v := f.value
		switch f.id {
		case "00":
			if v != "01" {
				return nil, brcErrorf("field 00: payload format must be \"01\", got %q", v)
			}
			b.PayloadFormat = v
		case "01":
			if v != BRCodeStatic && v != BRCodeDynamic {
				return nil, brcErrorf("field 01: point of initiation must be 11 or 12, got %q", v)
			}
			b.InitiationMethod = v
		case "26":
			if err := b.parseMerchantAccount(v, byBytes); err != nil {
				return nil, err
			}
		case "52":
			if len(v) != 4 || !allDigits(v) {
				return nil, brcErrorf("field 52: merchant category code must be 4 digits, got %q", v)
			}
			b.MCC = v
		case "53":
			if v != "986" {
				return nil, brcErrorf("field 53: currency must be 986 (BRL), got %q", v)
			}
			b.Currency = v
		case "54":
			m, err := brcParseAmount(v)
			if err != nil {
				return nil, err
			}
			b.Amount, b.HasAmount = m, true
		case "58":
			if v != "BR" {
				return nil, brcErrorf("field 58: country must be BR, got %q", v)
			}
			b.Country = v
		case "59":
			if strings.TrimSpace(v) == "" {
				return nil, brcErrorf("field 59: merchant name is empty")
			}
			if n := brcLen(v, byBytes); n > BRCodeMaxMerchantName {
				return nil, brcErrorf("field 59: merchant name has %d characters, more than %d", n, BRCodeMaxMerchantName)
			}
			b.MerchantName = v
		case "60":
			if strings.TrimSpace(v) == "" {
				return nil, brcErrorf("field 60: merchant city is empty")
			}
			if n := brcLen(v, byBytes); n > BRCodeMaxMerchantCity {
				return nil, brcErrorf("field 60: merchant city has %d characters, more than %d", n, BRCodeMaxMerchantCity)
			}
			b.MerchantCity = v
		case "61":
			if strings.TrimSpace(v) == "" {
				return nil, brcErrorf("field 61: postal code is empty")
			}
			b.PostalCode = v
		case "62":
			if err := b.parseAdditionalData(v, byBytes); err != nil {
				return nil, err
			}
		}
		// Other IDs (other merchant accounts 02-51, 55-57, 64 and templates 65-99) are
		// allowed by the EMV layout and carry nothing PIX needs: skipped.
	}
	for _, id := range []string{"26", "52", "53", "58", "59", "60"} {
		if !seen[id] {
			return nil, brcErrorf("missing field %s (%s)", id, brcFieldName(id))
		}
	}
	return b, nil
}

// parseMerchantAccount reads field 26 (GUI, key, description, URL).
func (b *BRCode) parseMerchantAccount(v string, byBytes bool) error {
	subs, err := brcSplit(v, byBytes, "field 26 subfield")
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(subs))
	for _, f := range subs {
		if seen[f.id] {
			return brcErrorf("field 26: subfield %s appears twice", f.id)
		}
		seen[f.id] = true
		switch f.id {
		case "00":
			b.GUI = f.value
		case "01":
			// At most 77 characters: the GUI leaves no more room in 99.
			if strings.TrimSpace(f.value) == "" {
				return brcErrorf("field 26: PIX key (subfield 01) is empty")
			}
			b.PixKey = f.value
		case "02":
			b.Description = f.value
		case "25":
			if strings.TrimSpace(f.value) == "" {
				return brcErrorf("field 26: URL (subfield 25) is empty")
			}
			b.URL = f.value
		}
	}
	if !seen["00"] {
		return brcErrorf("field 26: missing subfield 00 (GUI)")
	}
	if !strings.EqualFold(b.GUI, PixGUI) {
		return brcErrorf("merchant account is not %s (GUI %q)", PixGUI, b.GUI)
	}
	if b.PixKey == "" && b.URL == "" {
		return brcErrorf("field 26: neither a PIX key (subfield 01) nor a URL (subfield 25)")
	}
	return nil
}

// parseAdditionalData reads field 62 (the txid in subfield 05).
func (b *BRCode) parseAdditionalData(v string, byBytes bool) error {
	subs, err := brcSplit(v, byBytes, "field 62 subfield")
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(subs))
	for _, f := range subs {
		if seen[f.id] {
			return brcErrorf("field 62: subfield %s appears twice", f.id)
		}
		seen[f.id] = true
		if f.id != "05" {
			continue
		}
		if f.value == "***" {
			continue
		}
		if !brcValidTxID(f.value) {
			return brcErrorf("field 62: txid must be 1 to %d letters or digits, or ***; got %q", BRCodeMaxTxID, f.value)
		}
		b.TxID = f.value
	}
	return nil
}

// brcParseAmount reads field 54: digits, optionally a '.' and one or two decimals, positive.
func brcParseAmount(v string) (Money, error) {
	if v == "" {
		return 0, brcErrorf("field 54: amount is empty")
	}
	if len(v) > BRCodeMaxAmountLen {
		return 0, brcErrorf("field 54: amount %q is longer than %d characters", v, BRCodeMaxAmountLen)
	}
	intPart, frac, hasDot := strings.Cut(v, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (hasDot && frac == "") {
		return 0, brcErrorf("field 54: amount %q is not a plain decimal like 12.34", v)
	}
	if len(frac) > 2 {
		return 0, brcErrorf("field 54: amount %q has more than 2 decimal places", v)
	}
	m, err := ParseDecimal(v)
	if err != nil {
		return 0, brcErrorf("field 54: amount %q: %v", v, err)
	}
	if m <= 0 {
		return 0, brcErrorf("field 54: amount %q is not positive", v)
	}
	return m, nil
}

// CheckAmount reports an error matching ErrBRCodeAmount unless the code carries exactly want.
func (b *BRCode) CheckAmount(want Money) error {
	if b == nil || !b.HasAmount {
		return fmt.Errorf("%w: the code has no amount, expected %s", ErrBRCodeAmount, want.BRL())
	}
	if b.Amount != want {
		return fmt.Errorf("%w: the code says %s, expected %s", ErrBRCodeAmount, b.Amount.BRL(), want.BRL())
	}
	return nil
}

// BRCodeParams is what EncodeBRCode puts in a code.
type BRCodeParams struct {
	PixKey       string // PIX key (field 26/01); this or URL is required
	Description  string // free text (26/02), made ASCII and cut to fit
	URL          string // payload location (26/25) of a dynamic code, with or without https://
	MerchantName string // field 59, made ASCII uppercase and cut to 25
	MerchantCity string // field 60, made ASCII uppercase and cut to 15
	TxID         string // field 62/05: up to 25 letters or digits; "" writes ***
	Amount       Money  // field 54 when positive; zero leaves the amount to the payer
}

// EncodeBRCode builds a PIX copy-and-paste code (dynamic when URL is set) with its CRC.
func EncodeBRCode(p BRCodeParams) (string, error) {
	key := strings.TrimSpace(p.PixKey)
	url := strings.TrimSpace(p.URL)
	for len(url) >= 8 && strings.EqualFold(url[:8], "https://") {
		url = url[8:]
	}
	if key == "" && url == "" {
		return "", errors.New("pix code: a PIX key or a URL is required")
	}
	if err := brcCheckToken("PIX key", key, BRCodeMaxKey); err != nil {
		return "", err
	}
	if err := brcCheckToken("URL", url, BRCodeMaxURL); err != nil {
		return "", err
	}
	name := brcNormalize(p.MerchantName, true, BRCodeMaxMerchantName)
	if name == "" {
		return "", errors.New("pix code: merchant name is empty after normalisation")
	}
	city := brcNormalize(p.MerchantCity, true, BRCodeMaxMerchantCity)
	if city == "" {
		return "", errors.New("pix code: merchant city is empty after normalisation")
	}
	txid := strings.TrimSpace(p.TxID)
	if txid == "" {
		txid = "***"
	}
	if txid != "***" && !brcValidTxID(txid) {
		return "", fmt.Errorf("pix code: txid %q must be 1 to %d letters or digits", truncate(txid, 40), BRCodeMaxTxID)
	}
	var amount string
	switch {
	case p.Amount < 0:
		return "", fmt.Errorf("pix code: negative amount %s", p.Amount.BRL())
	case p.Amount > 0:
		amount = p.Amount.Decimal()
		if len(amount) > BRCodeMaxAmountLen {
			return "", fmt.Errorf("pix code: amount %s is too large for a PIX code", p.Amount.BRL())
		}
	}

	mai := brcTLV("00", PixGUI)
	if key != "" {
		mai += brcTLV("01", key)
	}
	tail := ""
	if url != "" {
		tail = brcTLV("25", url)
	}
	if len(mai)+len(tail) > 99 {
		return "", errors.New("pix code: PIX key and URL do not fit in the merchant account field (99 characters)")
	}
	if room := 99 - len(mai) - len(tail) - 4; room > 0 {
		if desc := brcNormalize(p.Description, false, room); desc != "" {
			mai += brcTLV("02", desc)
		}
	}
	mai += tail

	var sb strings.Builder
	sb.WriteString(brcTLV("00", "01"))
	if url != "" {
		sb.WriteString(brcTLV("01", BRCodeDynamic))
	}
	sb.WriteString(brcTLV("26", mai))
	sb.WriteString(brcTLV("52", "0000"))
	sb.WriteString(brcTLV("53", "986"))
	if amount != "" {
		sb.WriteString(brcTLV("54", amount))
	}
	sb.WriteString(brcTLV("58", "BR"))
	sb.WriteString(brcTLV("59", name))
	sb.WriteString(brcTLV("60", city))
	sb.WriteString(brcTLV("62", brcTLV("05", txid)))
	sb.WriteString("6304")
	fmt.Fprintf(&sb, "%04X", CRC16([]byte(sb.String())))
	return sb.String(), nil
}

// brcTLV writes one data object; v is ASCII and at most 99 bytes.
func brcTLV(id, v string) string { return fmt.Sprintf("%s%02d%s", id, len(v), v) }

// brcCheckToken accepts printable ASCII without spaces, at most max characters (empty is fine).
func brcCheckToken(what, v string, max int) error {
	if len(v) > max {
		return fmt.Errorf("pix code: %s has %d characters, more than %d", what, len(v), max)
	}
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] > '~' {
			return fmt.Errorf("pix code: %s %q has a character outside printable ASCII", what, truncate(v, 40))
		}
	}
	return nil
}

// brcNormalize makes s safe for a code: accents removed, only printable ASCII kept (for names
// only A-Z, digits, space and . - &, upper-cased), spaces collapsed, cut to max characters.
func brcNormalize(s string, name bool, max int) string {
	var sb strings.Builder
	space := false
	for _, r := range s {
		r = brcFold(r)
		if name {
			if r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '&') {
				r = ' '
			}
		} else if r < ' ' || r > '~' {
			r = ' '
		}
		if r == ' ' {
			space = true
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	out := sb.String()
	if len(out) > max {
		out = strings.TrimRight(out[:max], " ")
	}
	return out
}

// brcFold maps accented Latin letters to their ASCII base letter; other runes are returned as is.
func brcFold(r rune) rune {
	switch r {
	case 'á', 'à', 'â', 'ã', 'ä', 'å', 'ª':
		return 'a'
	case 'Á', 'À', 'Â', 'Ã', 'Ä', 'Å':
		return 'A'
	case 'é', 'è', 'ê', 'ë':
		return 'e'
	case 'É', 'È', 'Ê', 'Ë':
		return 'E'
	case 'í', 'ì', 'î', 'ï':
		return 'i'
	case 'Í', 'Ì', 'Î', 'Ï':
		return 'I'
	case 'ó', 'ò', 'ô', 'õ', 'ö', 'º':
		return 'o'
	case 'Ó', 'Ò', 'Ô', 'Õ', 'Ö':
		return 'O'
	case 'ú', 'ù', 'û', 'ü':
		return 'u'
	case 'Ú', 'Ù', 'Û', 'Ü':
		return 'U'
	case 'ç':
		return 'c'
	case 'Ç':
		return 'C'
	case 'ñ':
		return 'n'
	case 'Ñ':
		return 'N'
	case 'ý', 'ÿ':
		return 'y'
	case 'Ý':
		return 'Y'
	}
	return r
}

// brcValidTxID reports whether s is 1 to 25 ASCII letters or digits.
func brcValidTxID(s string) bool {
	if s == "" || len(s) > BRCodeMaxTxID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func brcIsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// brcHexValue reads hex digits already checked by brcIsHex.
func brcHexValue(s string) uint16 {
	var v uint16
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		v = v<<4 | uint16(c)
	}
	return v
}

func brcIsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
