package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Error kinds ("error" field) seen in the spec's envelope.
const (
	KindBadRequest    = "BadRequest"
	KindUnauthorized  = "Unauthorized"
	KindForbidden     = "Forbidden"
	KindNotFound      = "NotFound"
	KindConflict      = "Conflict"
	KindInternalError = "InternalError"
	KindDomainError   = "DomainError"
)

// Sub-account error codes from the spec.
const (
	CodeSubAccountNotFound         = "SUB_ACCOUNT_NOT_FOUND"
	CodeSubAccountForbidden        = "SUB_ACCOUNT_FORBIDDEN"
	CodeSubAccountSuspended        = "SUB_ACCOUNT_SUSPENDED"
	CodeSubAccountQuotaExceeded    = "SUB_ACCOUNT_QUOTA_EXCEEDED"
	CodeSubAccountReferenceTaken   = "SUB_ACCOUNT_REFERENCE_TAKEN"
	CodeSubAccountInvalidReference = "SUB_ACCOUNT_INVALID_REFERENCE"
)

// SubAccountCodes lists the sub-account error codes.
var SubAccountCodes = []string{
	CodeSubAccountNotFound, CodeSubAccountForbidden, CodeSubAccountSuspended,
	CodeSubAccountQuotaExceeded, CodeSubAccountReferenceTaken, CodeSubAccountInvalidReference,
}

// Institution-choice refusal reasons ("reason" of a 400).
const (
	ReasonSelfRoutingDisabled  = "self_routing_disabled"
	ReasonCredentialNotLinked  = "credential_not_linked"
	ReasonCredentialNotEnabled = "credential_not_enabled"
	ReasonCredentialInactive   = "credential_inactive"
	ReasonOutCapacityExhausted = "out_capacity_exhausted"
	MessagePaymentServiceDown  = "Payment service temporarily unavailable"
	MessageUnexpected          = "An unexpected error occurred"
	MessageInvalidCredentials  = "Invalid credentials"
	MessageCredentialsRequired = "client_id and client_secret are required"
	permissionMessagePrefix    = "Insufficient permissions. Required: "
	maxErrorBodySnippet        = 200
	maxErrorBodyBytes          = 64 << 10
	errorKindNonJSON           = "NonJSON"
	errorKindRedirect          = "Redirect"
	// ResourceSubAccount is the details.resource of a 404 for an unknown sub-account.
	ResourceSubAccount = "Sub-account"
)

// InstitutionReasons lists the institution-choice refusal reasons.
var InstitutionReasons = []string{
	ReasonSelfRoutingDisabled, ReasonCredentialNotLinked, ReasonCredentialNotEnabled,
	ReasonCredentialInactive, ReasonOutCapacityExhausted,
}

// Error is a refusal from the service, decoded from its error envelope.
type Error struct {
	// HTTPStatus is the response's status code.
	HTTPStatus int `json:"-"`
	// Method and Path say which call failed.
	Method string `json:"-"`
	Path   string `json:"-"`

	StatusCode int    `json:"statusCode,omitempty"`
	Kind       string `json:"error"`
	Message    string `json:"message"`
	// Messages holds each message when the service sent a list (Message joins them with "; ").
	Messages  []string       `json:"-"`
	Details   map[string]any `json:"details,omitempty"`
	Timestamp string         `json:"timestamp,omitempty"`
	TraceID   string         `json:"traceId,omitempty"`
	// Reason carries an institution-choice refusal reason, when present.
	Reason string `json:"reason,omitempty"`
	// Code carries a sub-account code when the server sends it at the top level.
	Code string `json:"code,omitempty"`
	// Body holds a short, printable excerpt of a body that was not an envelope.
	Body string `json:"-"`
}

// Error describes the refusal in one line.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Method != "" {
		fmt.Fprintf(&b, "%s %s: ", e.Method, e.Path)
	}
	fmt.Fprintf(&b, "%d", e.HTTPStatus)
	if e.Kind != "" {
		b.WriteString(" " + e.Kind)
	}
	if c := e.SubAccountCode(); c != "" && c != e.Kind {
		b.WriteString(" " + c)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else if e.Body != "" {
		b.WriteString(": " + e.Body)
	}
	if e.Reason != "" && !strings.Contains(e.Message, e.Reason) {
		b.WriteString(" (reason " + e.Reason + ")")
	}
	if e.TraceID != "" {
		b.WriteString(" [trace " + e.TraceID + "]")
	}
	return b.String()
}

// Is matches targets built from a status, a kind, a code or a reason (e.g. ErrNotFound, ErrSubAccountForbidden).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t.HTTPStatus != 0 && t.HTTPStatus != e.HTTPStatus {
		return false
	}
	if t.Kind != "" && t.Kind != e.Kind {
		return false
	}
	if t.Code != "" && t.Code != e.SubAccountCode() {
		return false
	}
	if t.Reason != "" && t.Reason != e.InstitutionReason() {
		return false
	}
	return t.HTTPStatus != 0 || t.Kind != "" || t.Code != "" || t.Reason != ""
}

// Targets for errors.Is.
var (
	ErrBadRequest          = &Error{HTTPStatus: http.StatusBadRequest}
	ErrUnauthorized        = &Error{HTTPStatus: http.StatusUnauthorized}
	ErrForbidden           = &Error{HTTPStatus: http.StatusForbidden}
	ErrNotFound            = &Error{HTTPStatus: http.StatusNotFound}
	ErrConflict            = &Error{HTTPStatus: http.StatusConflict}
	ErrIdempotencyConflict = &Error{HTTPStatus: http.StatusUnprocessableEntity}
	ErrSplitSum            = &Error{Kind: KindDomainError}

	ErrSubAccountNotFound         = &Error{Code: CodeSubAccountNotFound}
	ErrSubAccountForbidden        = &Error{Code: CodeSubAccountForbidden}
	ErrSubAccountSuspended        = &Error{Code: CodeSubAccountSuspended}
	ErrSubAccountQuotaExceeded    = &Error{Code: CodeSubAccountQuotaExceeded}
	ErrSubAccountReferenceTaken   = &Error{Code: CodeSubAccountReferenceTaken}
	ErrSubAccountInvalidReference = &Error{Code: CodeSubAccountInvalidReference}
)

// SubAccountCode finds a sub-account code in the code field, details, the kind or the message;
// a 404 whose details.resource is "Sub-account" is SUB_ACCOUNT_NOT_FOUND.
func (e *Error) SubAccountCode() string {
	cands := []string{e.Code, e.Kind}
	for _, k := range []string{"code", "error", "errorCode"} {
		if s, ok := e.Details[k].(string); ok {
			cands = append(cands, s)
		}
	}
	for _, c := range cands {
		for _, code := range SubAccountCodes {
			if c == code {
				return code
			}
		}
	}
	for _, code := range SubAccountCodes {
		if strings.Contains(e.Message, code) {
			return code
		}
	}
	// The service answers an unknown X-Sub-Account with a plain 404 naming the resource.
	if e.HTTPStatus == http.StatusNotFound && strings.EqualFold(e.Detail("resource"), ResourceSubAccount) {
		return CodeSubAccountNotFound
	}
	return ""
}

// Field returns the request field a validation error names (details.field), or "".
func (e *Error) Field() string { return e.Detail("field") }

// BusinessCode returns details.code (e.g. VALIDATION_ERROR or a SUB_ACCOUNT_* code), or "".
func (e *Error) BusinessCode() string {
	if c := e.Detail("code"); c != "" {
		return c
	}
	return e.Code
}

// InstitutionReason returns the institution-choice refusal reason, from reason or details.reason.
func (e *Error) InstitutionReason() string {
	cands := []string{e.Reason}
	if s, ok := e.Details["reason"].(string); ok {
		cands = append(cands, s)
	}
	for _, c := range cands {
		for _, r := range InstitutionReasons {
			if c == r {
				return r
			}
		}
	}
	for _, r := range InstitutionReasons {
		if strings.Contains(e.Message, r) {
			return r
		}
	}
	return ""
}

// RequiredPermission returns the permission named by a 403 "Insufficient permissions" message.
func (e *Error) RequiredPermission() string {
	i := strings.Index(e.Message, permissionMessagePrefix)
	if i < 0 {
		return ""
	}
	p := strings.TrimSpace(e.Message[i+len(permissionMessagePrefix):])
	if j := strings.IndexAny(p, " ,;"); j >= 0 {
		p = p[:j]
	}
	return strings.TrimSuffix(p, ".")
}

// Detail returns a string field of details, or "".
func (e *Error) Detail(key string) string {
	switch v := e.Details[key].(type) {
	case string:
		return v
	case float64, bool, json.Number:
		return fmt.Sprint(v)
	}
	return ""
}

// Temporary reports whether trying the same request again may succeed (5xx or 429).
func (e *Error) Temporary() bool {
	return e.HTTPStatus >= 500 || e.HTTPStatus == http.StatusTooManyRequests
}

// SplitSumInfo holds the figures of a "split sum exceeds net" refusal.
type SplitSumInfo struct {
	Sum, Net, Gross, Fee Money
}

// splitSumRE reads the four figures; spaces may be any Unicode space (Intl's pt-BR currency
// format puts a no-break space after "R$").
var splitSumRE = regexp.MustCompile(`R\$[\s\p{Zs}]*([-0-9.,]+)\).*?R\$[\s\p{Zs}]*([-0-9.,]+)[\s\p{Zs}]*[^\s\p{Zs}]*[\s\p{Zs}]*bruto[\s\p{Zs}]+R\$[\s\p{Zs}]*([-0-9.,]+)[\s\p{Zs}]+menos[\s\p{Zs}]+taxa[\s\p{Zs}]+de[\s\p{Zs}]+R\$[\s\p{Zs}]*([-0-9.,]+)`)

// SplitSum parses the sum, net, gross and fee out of a DomainError split refusal.
func (e *Error) SplitSum() (SplitSumInfo, bool) {
	return ParseSplitSumMessage(e.Message)
}

// ParseSplitSumMessage parses the spec's split-sum message ("A soma do split (R$ 10,00) excede ...").
func ParseSplitSumMessage(msg string) (SplitSumInfo, bool) {
	m := splitSumRE.FindStringSubmatch(msg)
	if m == nil {
		return SplitSumInfo{}, false
	}
	var vals [4]Money
	for i := range vals {
		v, err := ParseBRL(strings.TrimRight(m[i+1], ".,"))
		if err != nil {
			return SplitSumInfo{}, false
		}
		vals[i] = v
	}
	return SplitSumInfo{Sum: vals[0], Net: vals[1], Gross: vals[2], Fee: vals[3]}, true
}

// decodeError builds an *Error from a non-2xx response body; it never fails.
// It reads the spec's envelope and the bare {error, message} of POST /auth, and tolerates
// fields of other JSON types (a message given as an array of strings, as validation
// frameworks send it; a numeric code; details that are not an object).
func decodeError(status int, method, path string, body []byte) *Error {
	e := &Error{HTTPStatus: status, Method: method, Path: path}
	trimmed := strings.TrimSpace(string(body))
	var env struct {
		StatusCode json.RawMessage `json:"statusCode"`
		Kind       json.RawMessage `json:"error"`
		Message    json.RawMessage `json:"message"`
		Details    json.RawMessage `json:"details"`
		Timestamp  json.RawMessage `json:"timestamp"`
		TraceID    json.RawMessage `json:"traceId"`
		Reason     json.RawMessage `json:"reason"`
		Code       json.RawMessage `json:"code"`
	}
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &env) == nil {
		e.Kind = jsonText(env.Kind)
		e.Message = jsonText(env.Message)
		var list []string
		if json.Unmarshal(env.Message, &list) == nil && len(list) > 0 {
			e.Messages = list
		}
		if e.Kind != "" || e.Message != "" {
			e.Timestamp = jsonText(env.Timestamp)
			e.TraceID = jsonText(env.TraceID)
			e.Reason = jsonText(env.Reason)
			e.Code = jsonText(env.Code)
			var details map[string]any
			if json.Unmarshal(env.Details, &details) == nil && len(details) > 0 {
				e.Details = details
			}
			var sc float64
			if json.Unmarshal(env.StatusCode, &sc) == nil && sc >= 100 && sc <= 999 && sc == float64(int(sc)) {
				e.StatusCode = int(sc)
			} else {
				e.StatusCode = status
			}
			return e
		}
	}
	*e = Error{HTTPStatus: status, Method: method, Path: path, StatusCode: status, Kind: errorKindNonJSON}
	e.Message = fmt.Sprintf("unexpected %s response (%s)", statusText(status), describeBody(trimmed))
	if status >= 300 && status < 400 {
		e.Kind = errorKindRedirect
		e.Message = fmt.Sprintf("the server answered %s, a redirect; pixdash never follows redirects (check base_url)", statusText(status))
	}
	return e
}

// jsonText returns a JSON string, number or array of strings as text ("" for anything else).
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, "; ")
	}
	return ""
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return fmt.Sprintf("HTTP %d", status)
}

// describeBody summarises a body that is not JSON, e.g. a proxy's HTML page.
func describeBody(s string) string {
	if s == "" {
		return "empty body"
	}
	// asciiLower keeps every byte offset, so indexes found in lower are valid in s.
	lower := asciiLower(s)
	if strings.Contains(lower, "<html") || strings.HasPrefix(lower, "<!doctype") {
		if i := strings.Index(lower, "<title>"); i >= 0 {
			if j := strings.Index(lower[i:], "</title>"); j > 0 {
				if title := snippet(strings.TrimSpace(s[i+7 : i+j])); title != "" {
					return "HTML page: " + title
				}
			}
		}
		return "HTML page, probably from a proxy"
	}
	return "body: " + snippet(s)
}

// snippet makes s printable on one line and at most maxErrorBodySnippet bytes of valid UTF-8.
func snippet(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxErrorBodySnippet {
		s = s[:maxErrorBodySnippet]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

// asciiLower lowercases ASCII letters only, keeping the length of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IsNetwork reports whether err is a transport failure (including a timeout) rather than a reply
// from the service, a request refused before sending, or a cancellation.
func IsNetwork(err error) bool {
	var ae *Error
	var ve *ValidationError
	return err != nil && !errors.As(err, &ae) && !errors.As(err, &ve) && !errors.Is(err, context.Canceled)
}
