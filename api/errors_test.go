package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeError(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		body    string
		kind    string
		message string
		check   func(t *testing.T, e *Error)
	}{
		{"envelope", 404, `{"statusCode":404,"error":"NotFound","message":"Transaction not found","details":{"resource":"transaction","id":"abc"},"timestamp":"2025-03-01T12:00:00Z","traceId":"tr-9"}`,
			KindNotFound, "Transaction not found", func(t *testing.T, e *Error) {
				if e.StatusCode != 404 || e.Detail("resource") != "transaction" || e.Detail("id") != "abc" || e.TraceID != "tr-9" || e.Timestamp != "2025-03-01T12:00:00Z" {
					t.Errorf("%+v", e)
				}
			}},
		{"auth bare 401", 401, `{"error":"Unauthorized","message":"Invalid credentials"}`, "Unauthorized", MessageInvalidCredentials,
			func(t *testing.T, e *Error) {
				if e.StatusCode != 401 || e.Details != nil {
					t.Errorf("%+v", e)
				}
			}},
		{"auth bare 400", 400, `{"error":"Bad Request","message":"client_id and client_secret are required"}`, "Bad Request", MessageCredentialsRequired, nil},
		{"message array", 400, `{"statusCode":400,"message":["a must be x","b must be y"],"error":"Bad Request"}`, "Bad Request", "a must be x; b must be y", nil},
		{"only message", 500, `{"message":"boom"}`, "", "boom", nil},
		{"numeric details value", 409, `{"error":"Conflict","message":"m","details":{"value":12.5,"ok":true,"n":null}}`, KindConflict, "m",
			func(t *testing.T, e *Error) {
				if e.Detail("value") != "12.5" || e.Detail("ok") != "true" || e.Detail("n") != "" || e.Detail("missing") != "" {
					t.Errorf("details %v", e.Details)
				}
			}},
		{"details not an object", 400, `{"error":"BadRequest","message":"m","details":["x"]}`, KindBadRequest, "m",
			func(t *testing.T, e *Error) {
				if e.Details != nil {
					t.Errorf("details %v", e.Details)
				}
			}},
		{"string status code", 500, `{"statusCode":"500","error":"InternalError","message":"m"}`, KindInternalError, "m",
			func(t *testing.T, e *Error) {
				if e.StatusCode != 500 {
					t.Errorf("StatusCode %d", e.StatusCode)
				}
			}},
		{"numeric code", 400, `{"error":"BadRequest","message":"m","code":1234}`, KindBadRequest, "m",
			func(t *testing.T, e *Error) {
				if e.Code != "1234" {
					t.Errorf("Code %q", e.Code)
				}
			}},
		{"error object", 400, `{"error":{"code":"X"},"message":"m"}`, "", "m", nil},
		{"no kind or message", 500, `{"statusCode":500}`, errorKindNonJSON, "unexpected Internal Server Error response (body: {\"statusCode\":500})", nil},
		{"html title", 502, "<!DOCTYPE html>\n<html><head><TITLE> 502 Bad Gateway </TITLE></head></html>", errorKindNonJSON, "unexpected Bad Gateway response (HTML page: 502 Bad Gateway)", nil},
		{"html no title", 504, "<html><body>Gateway Timeout</body></html>", errorKindNonJSON, "unexpected Gateway Timeout response (HTML page, probably from a proxy)", nil},
		{"html with multibyte lowercase", 502, "<html>İİİİİİİİİİ\xff\xff<title>Proxy error</title></html>", errorKindNonJSON, "unexpected Bad Gateway response (HTML page: Proxy error)", nil},
		{"empty", 503, "", errorKindNonJSON, "unexpected Service Unavailable response (empty body)", nil},
		{"whitespace", 500, " \n\t ", errorKindNonJSON, "unexpected Internal Server Error response (empty body)", nil},
		{"plain text", 500, "upstream connect error\r\nreset", errorKindNonJSON, "unexpected Internal Server Error response (body: upstream connect error  reset)", nil},
		{"truncated JSON", 500, `{"statusCode":500,"error":"Intern`, errorKindNonJSON, `unexpected Internal Server Error response (body: {"statusCode":500,"error":"Intern)`, nil},
		{"unknown status", 599, "", errorKindNonJSON, "unexpected HTTP 599 response (empty body)", nil},
		{"long body", 500, strings.Repeat("x", 1000), errorKindNonJSON, "unexpected Internal Server Error response (body: " + strings.Repeat("x", maxErrorBodySnippet) + "…)", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := decodeError(tc.status, "POST", "/pix", []byte(tc.body))
			if e.HTTPStatus != tc.status || e.Method != "POST" || e.Path != "/pix" {
				t.Errorf("status/method/path = %d %s %s", e.HTTPStatus, e.Method, e.Path)
			}
			if e.Kind != tc.kind || e.Message != tc.message {
				t.Errorf("kind %q message %q; want %q %q", e.Kind, e.Message, tc.kind, tc.message)
			}
			if tc.check != nil {
				tc.check(t, e)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	cases := []struct {
		e    *Error
		want string
	}{
		{&Error{HTTPStatus: 404, Method: "GET", Path: "/transactions/x", Kind: "NotFound", Message: "Transaction not found", TraceID: "t1"},
			"GET /transactions/x: 404 NotFound: Transaction not found [trace t1]"},
		{&Error{HTTPStatus: 403, Kind: "Forbidden", Code: CodeSubAccountForbidden, Message: "no access"},
			"403 Forbidden SUB_ACCOUNT_FORBIDDEN: no access"},
		{&Error{HTTPStatus: 409, Kind: CodeSubAccountQuotaExceeded, Message: "quota"},
			"409 SUB_ACCOUNT_QUOTA_EXCEEDED: quota"},
		{&Error{HTTPStatus: 400, Kind: "BadRequest", Message: "refused", Reason: ReasonCredentialInactive},
			"400 BadRequest: refused (reason credential_inactive)"},
		{&Error{HTTPStatus: 400, Kind: "BadRequest", Message: "credential_inactive", Reason: ReasonCredentialInactive},
			"400 BadRequest: credential_inactive"},
		{&Error{HTTPStatus: 502, Body: "raw"}, "502: raw"},
	}
	for _, tc := range cases {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestErrorIs(t *testing.T) {
	e := &Error{HTTPStatus: 409, Kind: KindConflict, Details: map[string]any{"code": CodeSubAccountReferenceTaken}}
	yes := []error{ErrConflict, ErrSubAccountReferenceTaken, &Error{HTTPStatus: 409, Code: CodeSubAccountReferenceTaken}, &Error{Kind: KindConflict}}
	no := []error{ErrNotFound, ErrSubAccountQuotaExceeded, &Error{}, ErrSplitSum, &Error{HTTPStatus: 409, Kind: KindBadRequest}, &Error{Reason: ReasonCredentialInactive}, io.EOF}
	for _, target := range yes {
		if !errors.Is(e, target) {
			t.Errorf("errors.Is(%v, %+v) = false", e, target)
		}
	}
	for _, target := range no {
		if errors.Is(e, target) {
			t.Errorf("errors.Is(%v, %+v) = true", e, target)
		}
	}
	wrapped := fmt.Errorf("ctx: %w", e)
	if !errors.Is(wrapped, ErrSubAccountReferenceTaken) {
		t.Errorf("wrapping lost the match")
	}
}

func TestSubAccountCode(t *testing.T) {
	cases := []struct {
		e    *Error
		want string
	}{
		{&Error{Code: CodeSubAccountForbidden}, CodeSubAccountForbidden},
		{&Error{Kind: CodeSubAccountNotFound}, CodeSubAccountNotFound},
		{&Error{Details: map[string]any{"code": CodeSubAccountSuspended}}, CodeSubAccountSuspended},
		{&Error{Details: map[string]any{"error": CodeSubAccountQuotaExceeded}}, CodeSubAccountQuotaExceeded},
		{&Error{Details: map[string]any{"errorCode": CodeSubAccountInvalidReference}}, CodeSubAccountInvalidReference},
		{&Error{Message: "Conflict: SUB_ACCOUNT_REFERENCE_TAKEN (loja-a)"}, CodeSubAccountReferenceTaken},
		{&Error{Code: "OTHER", Message: "nothing here"}, ""},
		{&Error{Details: map[string]any{"code": 5}}, ""},
		{&Error{}, ""},
	}
	for _, tc := range cases {
		if got := tc.e.SubAccountCode(); got != tc.want {
			t.Errorf("%+v: SubAccountCode() = %q, want %q", tc.e, got, tc.want)
		}
	}
	for _, code := range SubAccountCodes {
		e := decodeError(400, "GET", "/x", []byte(`{"error":"X","message":"m","code":"`+code+`"}`))
		if !errors.Is(e, &Error{Code: code}) {
			t.Errorf("%s not matched", code)
		}
	}
}

func TestInstitutionReason(t *testing.T) {
	for _, r := range InstitutionReasons {
		for _, e := range []*Error{
			{Reason: r},
			{Details: map[string]any{"reason": r}},
			{Message: "refused: " + r},
		} {
			if got := e.InstitutionReason(); got != r {
				t.Errorf("%+v: InstitutionReason() = %q, want %q", e, got, r)
			}
		}
	}
	if got := (&Error{Reason: "something_else", Message: "m"}).InstitutionReason(); got != "" {
		t.Errorf("unknown reason matched %q", got)
	}
}

func TestRequiredPermission(t *testing.T) {
	cases := map[string]string{
		"Insufficient permissions. Required: PIX:WRITE":                   "PIX:WRITE",
		"Insufficient permissions. Required: BALANCE_BLOCK:READ.":         "BALANCE_BLOCK:READ",
		"Insufficient permissions. Required: TRANSACTION:READ or FULL":    "TRANSACTION:READ",
		"Insufficient permissions. Required: SUBACCOUNT:WRITE, something": "SUBACCOUNT:WRITE",
		"Forbidden": "",
		"":          "",
	}
	for msg, want := range cases {
		if got := (&Error{Message: msg}).RequiredPermission(); got != want {
			t.Errorf("RequiredPermission(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestTemporary(t *testing.T) {
	for status, want := range map[int]bool{500: true, 502: true, 503: true, 429: true, 400: false, 404: false, 422: false} {
		if got := (&Error{HTTPStatus: status}).Temporary(); got != want {
			t.Errorf("Temporary(%d) = %v", status, got)
		}
	}
}

func TestIsNetwork(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&Error{HTTPStatus: 500}, false},
		{fmt.Errorf("x: %w", &Error{HTTPStatus: 404}), false},
		{&ValidationError{Problems: []FieldProblem{{FieldAmount, "m"}}}, false},
		{fmt.Errorf("GET /x: %w", context.Canceled), false},
		{fmt.Errorf("GET /x: %w", context.DeadlineExceeded), true},
		{io.ErrUnexpectedEOF, true},
	}
	for _, tc := range cases {
		if got := IsNetwork(tc.err); got != tc.want {
			t.Errorf("IsNetwork(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestParseSplitSumMessage(t *testing.T) {
	cases := []struct {
		msg  string
		want SplitSumInfo
		ok   bool
	}{
		{"A soma do split (R$ 10,00) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)",
			SplitSumInfo{Sum: 1000, Net: 901, Gross: 1000, Fee: 99}, true},
		{"A soma do split (R$ 1.234,56) excede o líquido da cobrança (R$ 1.000,00 — bruto R$ 1.010,00 menos taxa de R$ 10,00).",
			SplitSumInfo{Sum: 123456, Net: 100000, Gross: 101000, Fee: 1000}, true},
		{"A soma do split (R$\u00a010,00) excede o líquido da cobrança (R$\u00a09,01 — bruto R$\u00a010,00 menos taxa de R$\u00a00,99)",
			SplitSumInfo{Sum: 1000, Net: 901, Gross: 1000, Fee: 99}, true},
		{"A soma do split (R$ 10.50) excede o líquido da cobrança (R$ 9.51 - bruto R$ 10.50 menos taxa de R$ 0.99)",
			SplitSumInfo{Sum: 1050, Net: 951, Gross: 1050, Fee: 99}, true},
		{"A soma do split (R$ 5,00) excede o líquido da cobrança (R$ -0,50 — bruto R$ 0,50 menos taxa de R$ 1,00)",
			SplitSumInfo{Sum: 500, Net: -50, Gross: 50, Fee: 100}, true},
		{"Subconta 'x' não existe nesta conta ou não está ativa", SplitSumInfo{}, false},
		{"A soma do split (R$ 10,00) excede o líquido da cobrança", SplitSumInfo{}, false},
		{"A soma do split (R$ 1,2,3) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)", SplitSumInfo{}, false},
		{"", SplitSumInfo{}, false},
	}
	for _, tc := range cases {
		got, ok := ParseSplitSumMessage(tc.msg)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseSplitSumMessage(%q) = %+v, %v; want %+v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzDecodeError: any reply body yields a usable *Error without panicking.
func FuzzDecodeError(f *testing.F) {
	seeds := []string{
		`{"statusCode":404,"error":"NotFound","message":"x","details":{"resource":"t","id":"1"},"timestamp":"t","traceId":"a"}`,
		`{"error":"Unauthorized","message":"Invalid credentials"}`,
		`{"statusCode":400,"message":["a","b"],"error":"Bad Request"}`,
		`{"error":"DomainError","message":"A soma do split (R$ 10,00) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)"}`,
		`{"error":"Forbidden","message":"Insufficient permissions. Required: PIX:WRITE","code":"SUB_ACCOUNT_FORBIDDEN","reason":"credential_inactive"}`,
		"<html><head><title>502 Bad Gateway</title></head></html>",
		"<html>İİİ\xff<title>x</title>",
		"", "null", "[]", `{"details":7}`, "\x00\x01",
	}
	for i, s := range seeds {
		f.Add(400+i, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeError(status, "GET", "/x", body)
		if e == nil || e.HTTPStatus != status {
			t.Fatalf("decodeError = %+v", e)
		}
		msg := e.Error()
		if msg == "" || !utf8.ValidString(msg) {
			t.Errorf("Error() = %q", msg)
		}
		if e.Kind == errorKindNonJSON && len(e.Message) > 2*maxErrorBodySnippet+100 {
			t.Errorf("non-JSON message not bounded: %d bytes", len(e.Message))
		}
		if e.Kind == errorKindNonJSON && strings.ContainsAny(e.Message, "\r\n\x00") {
			t.Errorf("non-JSON message not on one line: %q", e.Message)
		}
		_ = e.SubAccountCode()
		_ = e.InstitutionReason()
		_ = e.RequiredPermission()
		_ = e.Detail("id")
		_, _ = e.SplitSum()
		_ = errors.Is(e, ErrSubAccountNotFound)
	})
}

// FuzzParseSplitSumMessage: no input panics, and the service's own message always parses back
// to its figures (also with Intl's no-break spaces).
func FuzzParseSplitSumMessage(f *testing.F) {
	f.Add("A soma do split (R$ 10,00) excede o líquido da cobrança (R$ 9,01 — bruto R$ 10,00 menos taxa de R$ 0,99)", int64(1000), int64(1000), int64(99))
	f.Add("R$ 1) R$ 2 bruto R$ 3 menos taxa de R$ 4", int64(0), int64(0), int64(0))
	f.Add("R$ ,) R$ . — bruto R$ - menos taxa de R$ ,.", int64(-1), int64(123456789012), int64(-5))
	f.Fuzz(func(t *testing.T, msg string, sum, gross, fee int64) {
		_, _ = ParseSplitSumMessage(msg)
		const bound = int64(1e15)
		if sum > bound || sum < -bound || gross > bound || gross < -bound || fee > bound || fee < -bound {
			return
		}
		p := SplitProblem{Rule: SplitSumExceedsNet, Index: -1, Sum: Money(sum), Net: SplitNet(Money(gross), Money(fee)), Gross: Money(gross), Fee: Money(fee)}
		want := SplitSumInfo{Sum: p.Sum, Net: p.Net, Gross: p.Gross, Fee: p.Fee}
		for _, m := range []string{p.SpecMessage(), strings.ReplaceAll(p.SpecMessage(), "R$ ", "R$\u00a0")} {
			got, ok := ParseSplitSumMessage(m)
			if !ok || got != want {
				t.Fatalf("ParseSplitSumMessage(%q) = %+v, %v; want %+v", m, got, ok, want)
			}
			e := decodeError(400, "POST", "/pix", []byte(`{"statusCode":400,"error":"DomainError","message":"`+m+`"}`))
			if got, ok := e.SplitSum(); !ok || got != want || !errors.Is(e, ErrSplitSum) {
				t.Fatalf("through decodeError: %+v, %v", got, ok)
			}
		}
	})
}
