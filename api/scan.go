package api

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scanEvent reads the top-level "eventId" and "event" strings of a webhook body and validates
// the whole body as JSON in one pass, without allocating beyond the two strings (and the kind
// is not allocated when it is one of the EventKind constants). It reports ok only when the body
// is valid JSON as json.Valid judges it, within encoding/json's nesting limit, and DecodeEvent
// would read the same id and kind: one top-level object with exactly one member named exactly
// "eventId" and exactly one named exactly "event", each a non-empty string without escapes and
// in valid UTF-8, no other top-level key that matches either name case-insensitively, and no
// top-level key with escapes. Otherwise it reports false and the caller decodes the body in full.
func scanEvent(b []byte) (id, kind string, ok bool) {
	var (
		idRaw, kindRaw     []byte // nil until found; a found string is a non-nil (sub)slice of b
		idASCII, kindASCII bool
	)
	i := skipBlank(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", "", false
	}
	i++
	for {
		// The key, plain: one with escapes could be "eventId" in disguise.
		if i < len(b) && isBlank(b[i]) {
			i = skipBlank(b, i)
		}
		if i >= len(b) || b[i] != '"' {
			return "", "", false // not a key; this includes an empty object, which has no eventId
		}
		j, keyASCII := plainEnd(b, i+1)
		if j < 0 {
			return "", "", false
		}
		key := b[i+1 : j]
		i = j + 1
		if i < len(b) && b[i] == ':' {
			i++
		} else if i = skipBlank(b, i); i < len(b) && b[i] == ':' {
			i++
		} else {
			return "", "", false
		}
		if i < len(b) && isBlank(b[i]) {
			i = skipBlank(b, i)
		}
		if i >= len(b) {
			return "", "", false
		}

		// The value.
		switch {
		case string(key) == "eventId":
			if idRaw != nil || b[i] != '"' {
				return "", "", false
			}
			if j, idASCII = plainEnd(b, i+1); j < 0 {
				return "", "", false
			}
			idRaw, i = b[i+1:j], j+1
		case string(key) == "event":
			if kindRaw != nil || b[i] != '"' {
				return "", "", false
			}
			if j, kindASCII = plainEnd(b, i+1); j < 0 {
				return "", "", false
			}
			kindRaw, i = b[i+1:j], j+1
		case (len(key) == len("event") || len(key) == len("eventId") || !keyASCII) && foldsToEventKey(key):
			// (An ASCII key can only fold to a name of its own length.)
			return "", "", false
		case b[i] == '"':
			j = stringStop(b, i+1)
			if j < len(b) && b[j] == '"' {
				i = j + 1
			} else if i = finishString(b, j); i < 0 {
				return "", "", false
			}
		case b[i] == '-' || b[i]-'0' <= 9:
			if i = skipNumber(b, i); i < 0 {
				return "", "", false
			}
		default:
			if i = skipValue(b, i, 1); i < 0 {
				return "", "", false
			}
		}

		// A comma and the next member, or the end of the object.
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i = skipBlank(b, i); i >= len(b) {
			return "", "", false
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '}' {
			return "", "", false
		}
		break
	}
	if skipBlank(b, i+1) != len(b) || len(idRaw) == 0 || len(kindRaw) == 0 ||
		!idASCII && !utf8.Valid(idRaw) || !kindASCII && !utf8.Valid(kindRaw) {
		return "", "", false
	}
	return string(idRaw), internKind(kindRaw), true
}

// internKind returns raw as a string, sharing the storage of the EventKind constants for the
// spec's kinds.
func internKind(raw []byte) string {
	switch string(raw) {
	case string(EventPaymentCompleted):
		return string(EventPaymentCompleted)
	case string(EventPaymentExpired):
		return string(EventPaymentExpired)
	case string(EventPaymentFailed):
		return string(EventPaymentFailed)
	case string(EventRefundCompleted):
		return string(EventRefundCompleted)
	case string(EventWithdrawalCompleted):
		return string(EventWithdrawalCompleted)
	case string(EventWithdrawalFailed):
		return string(EventWithdrawalFailed)
	case string(EventWithdrawalReversed):
		return string(EventWithdrawalReversed)
	case string(EventBalanceBlockCreated):
		return string(EventBalanceBlockCreated)
	case string(EventBalanceBlockApproved):
		return string(EventBalanceBlockApproved)
	case string(EventBalanceBlockRejected):
		return string(EventBalanceBlockRejected)
	}
	return string(raw)
}

// foldsToEventKey reports whether key (a top-level member name, escapes already excluded) is one
// DecodeEvent would take for eventId or event by matching case-insensitively (strings.EqualFold).
func foldsToEventKey(key []byte) bool {
	if len(key) < len("event") {
		return false // every rune takes at least one byte
	}
	if c := key[0]; c < utf8.RuneSelf && c|0x20 != 'e' {
		return false // the only ASCII letters that fold to 'e' are 'e' and 'E'
	}
	return bytes.EqualFold(key, []byte("eventId")) || bytes.EqualFold(key, []byte("event"))
}

// Byte classes for the scanner.
const (
	classStringStop = 1 << iota // ends a run of plain string bytes: '"', '\\' or a control character
	classBlank                  // JSON whitespace: space, tab, newline, carriage return
	classHex                    // hexadecimal digit
	classDigit                  // decimal digit
)

// byteClass holds the classes of every byte value.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		if c == '"' || c == '\\' || c < 0x20 {
			t[c] |= classStringStop
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			t[c] |= classBlank
		case '0' <= c && c <= '9':
			t[c] |= classHex | classDigit
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			t[c] |= classHex
		}
	}
	return t
}()

// isBlank reports whether c is JSON whitespace.
func isBlank(c byte) bool {
	return c <= ' ' && byteClass[c]&classBlank != 0
}

// skipBlank returns the index of the first byte at or after i that is not JSON whitespace.
func skipBlank(b []byte, i int) int {
	for i < len(b) && byteClass[b[i]]&classBlank != 0 {
		i++
	}
	return i
}

// Masks for the eight-bytes-at-a-time string searches.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stringStop returns the index of the first byte at or after i that cannot be part of a string
// as is ('"', '\\' or a control character), or len(b) when there is none.
func stringStop(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ ('"' * ones)
		s := x ^ ('\\' * ones)
		// A byte's high bit is set in m when it is zero in q or s or below 0x20 in x; borrows can
		// also mark bytes above the first such byte, never below it.
		m := ((q - ones) &^ q) | ((s - ones) &^ s) | ((x - 0x20*ones) &^ x)
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if byteClass[b[i]]&classStringStop != 0 {
			return i
		}
	}
	return i
}

// plainEnd returns the index of the quote that ends a string whose contents start at b[i], and
// whether the contents are ASCII; -1 when the string does not end or holds escapes or control
// characters.
func plainEnd(b []byte, i int) (int, bool) {
	var seen uint64 // the bytes before the end, ORed
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q := x ^ ('"' * ones)
		s := x ^ ('\\' * ones)
		if m := (((q - ones) &^ q) | ((s - ones) &^ s) | ((x - 0x20*ones) &^ x)) & highs; m != 0 {
			// m&-m is the first stop's high bit: the bits below it are the bytes before it.
			seen |= x & (m&-m - 1)
			i += bits.TrailingZeros64(m) >> 3
			if b[i] != '"' {
				return -1, false
			}
			return i, seen&highs == 0
		}
		seen |= x
	}
	for ; i < len(b); i++ {
		c := b[i]
		if byteClass[c]&classStringStop != 0 {
			if c != '"' {
				return -1, false
			}
			return i, seen&highs == 0
		}
		seen |= uint64(c) << 56
	}
	return -1, false
}

// skipString returns the index just past the JSON string starting at b[i] (a quote), or -1 when
// it is not a valid string (unterminated, a control character, a bad escape).
func skipString(b []byte, i int) int {
	return finishString(b, stringStop(b, i+1))
}

// finishString returns the index just past the JSON string whose plain bytes run up to b[j]
// (as found by stringStop), or -1 when it is not a valid string.
func finishString(b []byte, j int) int {
	for j < len(b) {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			if j = skipEscape(b, j); j < 0 {
				return -1
			}
			j = stringStop(b, j)
		default:
			return -1 // a control character
		}
	}
	return -1
}

// skipEscape returns the index just past the escape sequence starting at b[i] (a backslash),
// or -1 when it is not a valid JSON escape.
func skipEscape(b []byte, i int) int {
	if i+1 >= len(b) {
		return -1
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		if len(b)-i < 6 {
			return -1
		}
		h := b[i+2 : i+6]
		if byteClass[h[0]]&byteClass[h[1]]&byteClass[h[2]]&byteClass[h[3]]&classHex == 0 {
			return -1
		}
		return i + 6
	}
	return -1
}

// skipDigits returns the index of the first byte at or after i that is not a decimal digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && byteClass[b[i]]&classDigit != 0 {
		i++
	}
	return i
}

// skipNumber returns the index just past the JSON number starting at b[i], or -1 when there is
// no valid number there.
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i = skipDigits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// skipLiteral returns the index just past lit if b holds it at i, or -1.
func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// skipValue returns the index just past the JSON value starting at b[i], inside depth open
// objects and arrays (1 for a member of the top-level object), or -1 when there is no valid
// value there (as json.Valid judges it, including encoding/json's nesting limit of maxJSONDepth).
func skipValue(b []byte, i, depth int) int {
	// The arrays and objects open around the current value, innermost last, one bit each
	// (1 for an object): the most recent 64 in open, the older ones in groups of 64 in spill.
	var (
		open  uint64
		n     int // how many are open
		spill []uint64
	)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; c {
		case '"':
			j := stringStop(b, i+1)
			if j < len(b) && b[j] == '"' {
				i = j + 1
			} else if i = finishString(b, j); i < 0 {
				return -1
			}
		case '{', '[':
			if depth+n+1 > maxJSONDepth { // the enclosing ones, the open ones and this one
				return -1
			}
			if i = skipBlank(b, i+1); i >= len(b) {
				return -1
			}
			if b[i] == c+2 { // '}' and ']' follow '{' and '[' by two
				i++
				break // an empty object or array: a complete value
			}
			if n > 0 && n%64 == 0 {
				spill = append(spill, open)
				open = 0
			}
			open <<= 1
			if c == '{' {
				open |= 1
				if i = skipKey(b, i); i < 0 {
					return -1
				}
			}
			n++
			continue
		case 't':
			if i = skipLiteral(b, i, "true"); i < 0 {
				return -1
			}
		case 'f':
			if i = skipLiteral(b, i, "false"); i < 0 {
				return -1
			}
		case 'n':
			if i = skipLiteral(b, i, "null"); i < 0 {
				return -1
			}
		default:
			if i = skipNumber(b, i); i < 0 {
				return -1
			}
		}
		// A value ended just before b[i]: close what it completes, up to the next value.
	next:
		for n > 0 {
			if i < len(b) && isBlank(b[i]) {
				i = skipBlank(b, i)
			}
			if i >= len(b) {
				return -1
			}
			switch c := b[i]; {
			case c == ',':
				if i = skipBlank(b, i+1); open&1 != 0 {
					if i = skipKey(b, i); i < 0 {
						return -1
					}
				}
				break next
			case c == '}' && open&1 != 0, c == ']' && open&1 == 0:
				i++
				n--
				open >>= 1
				if n > 0 && n%64 == 0 {
					open = spill[len(spill)-1]
					spill = spill[:len(spill)-1]
				}
			default:
				return -1
			}
		}
		if n == 0 {
			return i
		}
	}
}

// skipKey reads an object member's key and colon at b[i] and returns the index of its value,
// or -1 when they are not valid JSON.
func skipKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 {
		return -1
	}
	if i < len(b) && b[i] == ':' {
		return skipBlank(b, i+1)
	}
	if i = skipBlank(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipBlank(b, i+1)
}
