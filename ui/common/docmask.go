package common

import (
	"bytes"
	"encoding/json"
	"strings"

	"pixdash/api/brdoc"
)

// Personal documents (CPF, CNPJ) are shown masked by maskDocument everywhere until `v` reveals
// them: the inspector's fields and metadata, and the events' payloads, whose raw JSON is masked
// by key (a member that holds a document) and by shape (a CPF or CNPJ anywhere in a string).

// DocumentKey reports whether a JSON member or metadata key names a personal document
// (counterpartDocument, payerDocument, holderDocument, customer.document, cpf, cnpj, taxId…).
func DocumentKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"document", "cpf", "cnpj", "taxid", "tax_id"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// MaskDocumentValue masks the whole value of a member that holds a document: the CPF or CNPJ
// masking when it has digits, stars otherwise.
func MaskDocumentValue(s string) string {
	if s == "" {
		return ""
	}
	if onlyDigits(s) == "" {
		return "***"
	}
	return MaskDocument(s)
}

// MaskDocumentsIn masks every CPF or CNPJ inside free text: a word (a run of letters, digits and
// . - / _) that is 11 or 14 digits alone, or a CPF (000.000.000-00) or CNPJ (00.000.000/0000-00)
// as written; digits inside a longer identifier (MED-20261121-000123, an e2eId) are left alone.
func MaskDocumentsIn(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !docWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && docWordByte(s[j]) {
			j++
		}
		word := strings.TrimRight(s[i:j], ".-/_") // a full stop after a number ends the sentence
		if looksLikeDocument(word) {
			b.Grow(len(s))
			b.WriteString(s[last:i])
			b.WriteString(MaskDocument(word))
			last = i + len(word)
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func docWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '/' || c == '_'
}

// looksLikeDocument reports whether w is a CPF or CNPJ: 11 or 14 digits, bare or punctuated as
// documents are written.
func looksLikeDocument(w string) bool {
	if d := onlyDigits(w); d == w {
		return len(w) == 11 || len(w) == 14
	}
	if c := brdoc.Clean(w); len(c) == brdoc.CNPJLen && brdoc.ValidCNPJ(c) && (c == w || docShape(w, "cc.ccc.ccc/cccc-dd")) {
		return true // an alphanumeric CNPJ
	}
	return docShape(w, "ddd.ddd.ddd-dd") || docShape(w, "dd.ddd.ddd/dddd-dd")
}

func docShape(w, shape string) bool {
	if len(w) != len(shape) {
		return false
	}
	for i := 0; i < len(w); i++ {
		alnum := w[i] >= '0' && w[i] <= '9' || w[i] >= 'A' && w[i] <= 'Z' || w[i] >= 'a' && w[i] <= 'z'
		if shape[i] == 'd' && (w[i] < '0' || w[i] > '9') || shape[i] == 'c' && !alnum || shape[i] != 'd' && shape[i] != 'c' && w[i] != shape[i] {
			return false
		}
	}
	return true
}

// MaskDocumentsJSON masks the documents of a JSON text, keeping everything else byte for byte:
// the string (or number) value of a member that holds a document, and every CPF or CNPJ inside
// any other string value or as a bare 11- or 14-digit number. Text that is not valid JSON is
// masked as far as it can be read.
func MaskDocumentsJSON(raw []byte) []byte {
	type frame struct {
		obj       bool
		expectKey bool
		key       string
	}
	var stack []frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	key := func() string {
		if f := top(); f != nil {
			return f.key
		}
		return ""
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '{':
			stack = append(stack, frame{obj: true, expectKey: true})
		case c == '[':
			stack = append(stack, frame{key: key()}) // an array's items belong to its member
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case c == ',':
			if f := top(); f != nil && f.obj {
				f.expectKey = true
			}
		case c == ':':
			if f := top(); f != nil && f.obj {
				f.expectKey = false
			}
		case c == '"':
			j := stringEnd(raw, i)
			lit := raw[i:j]
			var s string
			if json.Unmarshal(lit, &s) != nil {
				out = append(out, lit...)
				i = j
				continue
			}
			if f := top(); f != nil && f.obj && f.expectKey {
				f.key = s
				out = append(out, lit...)
				i = j
				continue
			}
			masked := MaskDocumentsIn(s)
			if DocumentKey(key()) {
				masked = MaskDocumentValue(s)
			}
			if masked == s {
				out = append(out, lit...)
			} else {
				out = appendJSONString(out, masked)
			}
			i = j
			continue
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(raw) && bytes.IndexByte([]byte("+-.0123456789eE"), raw[j]) >= 0 {
				j++
			}
			num := string(raw[i:j])
			if DocumentKey(key()) || onlyDigits(num) == num && (len(num) == 11 || len(num) == 14) {
				out = appendJSONString(out, MaskDocumentValue(num))
			} else {
				out = append(out, num...)
			}
			i = j
			continue
		}
		out = append(out, c)
		i++
	}
	return out
}

// stringEnd is the index just past the JSON string literal starting at raw[i] (the end of raw
// when it is not closed).
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// appendJSONString appends s as a JSON string literal (HTML characters left as they are).
func appendJSONString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
