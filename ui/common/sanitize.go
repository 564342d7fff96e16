package common

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"pixdash/api/safetext"
)

// Sanitize is the one gate every text from outside passes before it is drawn or logged
// (safetext.Clean, shared with the day's close report).
func Sanitize(s string) string { return safetext.Clean(s) }

// SanitizeLines sanitizes each line of a multi-line text and keeps the line breaks.
func SanitizeLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Sanitize(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Sanitize(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// SafeLogHandler wraps h so that no record can carry text that drives a terminal: the message,
// every attribute key, string value, group, error, fmt.Stringer and structured value pass through
// the same sanitizer the screens use (a JSON handler escapes C0 itself but writes C1 and bidi
// controls raw, and a reader like jq turns escaped ESC back into a real one).
func SafeLogHandler(h slog.Handler) slog.Handler { return safeHandler{h: h} }

type safeHandler struct{ h slog.Handler }

func (s safeHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s safeHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Sanitize(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(safeAttr(a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s safeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return safeHandler{h: s.h.WithAttrs(safeAttrs(as))}
}

func (s safeHandler) WithGroup(name string) slog.Handler {
	return safeHandler{h: s.h.WithGroup(Sanitize(name))}
}

func safeAttrs(as []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = safeAttr(a)
	}
	return out
}

func safeAttr(a slog.Attr) slog.Attr {
	return slog.Attr{Key: Sanitize(a.Key), Value: safeValue(a.Value.Resolve())}
}

func safeValue(v slog.Value) slog.Value {
	switch v.Kind() {
	case slog.KindString:
		return slog.StringValue(Sanitize(v.String()))
	case slog.KindGroup:
		return slog.GroupValue(safeAttrs(v.Group())...)
	case slog.KindAny:
		return safeAny(v.Any())
	}
	return v // numbers, booleans, durations and times carry no text
}

// safeAny makes an arbitrary value safe: errors and Stringers by their text, anything else by
// its JSON form with every key and string sanitized.
func safeAny(x any) slog.Value {
	switch x := x.(type) {
	case nil:
		return slog.AnyValue(nil)
	case error:
		return slog.StringValue(Sanitize(x.Error()))
	case fmt.Stringer:
		return slog.StringValue(Sanitize(x.String()))
	case []byte:
		return slog.StringValue(Sanitize(string(x)))
	}
	b, err := json.Marshal(x)
	if err != nil {
		return slog.StringValue(Sanitize(fmt.Sprintf("%+v", x)))
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return slog.StringValue(Sanitize(string(b)))
	}
	return slog.AnyValue(sanitizeTree(tree))
}

// sanitizeTree sanitizes every key and string of a decoded JSON value.
func sanitizeTree(x any) any {
	switch x := x.(type) {
	case string:
		return Sanitize(x)
	case []any:
		for i := range x {
			x[i] = sanitizeTree(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[Sanitize(k)] = sanitizeTree(v)
		}
		return out
	}
	return x
}
