package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// traceHeaders are response headers that may carry the service's trace id, in order of preference.
// The contract only documents traceId in the error envelope; a header is used when one is sent.
var traceHeaders = []string{"X-Trace-Id", "Trace-Id", "X-Request-Id"}

// responseTraceID returns the trace id of a reply: the error envelope's traceId, else a trace header.
func responseTraceID(h http.Header, err error) string {
	if e := (*Error)(nil); errors.As(err, &e) && e.TraceID != "" {
		return truncate(e.TraceID, 80)
	}
	for _, name := range traceHeaders {
		if v := h.Get(name); v != "" && validHeaderToken(v) {
			return truncate(v, 80)
		}
	}
	return ""
}

// logCall writes one debug line for one HTTP exchange with the service: method, path (never
// the query), wallet, attempt, status or error, duration and traceId. Never headers nor bodies.
func (c *Client) logCall(ctx context.Context, method, path, wallet string, attempt int, d time.Duration, res attemptResult) {
	if !c.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	if wallet == "" {
		wallet = WalletPrincipal
	}
	attrs := []slog.Attr{
		slog.String("method", method), slog.String("path", path), slog.String("wallet", truncate(wallet, 80)),
		slog.Int("attempt", attempt), slog.Int("status", res.status),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
	}
	if res.traceID != "" {
		attrs = append(attrs, slog.String("traceId", res.traceID))
	}
	if res.err != nil {
		attrs = append(attrs, slog.String("error", logError(res.err)))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "api: call", attrs...)
}

// logError describes a failed exchange for the debug log: the envelope's kind and message (long
// digit runs such as a CPF or CNPJ masked), or a transport error without the request's URL.
func logError(err error) string {
	var msg string
	var e *Error
	var ue *url.Error
	switch {
	case errors.As(err, &e):
		msg = e.Error()
	case errors.As(err, &ue):
		msg = ue.Op + ": " + ue.Err.Error()
	default:
		msg = err.Error()
	}
	return truncate(MaskDigitRuns(msg), 240)
}

// MaskDigitRuns replaces every run of 11 or more digits (dots, dashes and slashes between them
// allowed, as in a formatted CPF or CNPJ) with "[document]", so a log never holds a full document.
func MaskDigitRuns(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		if s[i] < '0' || s[i] > '9' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j, digits, end := i, 0, i
		for j < len(s) {
			c := s[j]
			if c >= '0' && c <= '9' {
				digits++
				j++
				end = j
				continue
			}
			if (c == '.' || c == '-' || c == '/') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
				j++
				continue
			}
			break
		}
		if digits >= 11 {
			b.WriteString("[document]")
		} else {
			b.WriteString(s[i:end])
		}
		i = end
	}
	return b.String()
}
