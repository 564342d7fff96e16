package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// logLines decodes the JSON lines of a slog JSON handler's output.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// callLines returns the "api: call" lines.
func callLines(lines []map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range lines {
		if m["msg"] == "api: call" {
			out = append(out, m)
		}
	}
	return out
}

// TestDebugLogsEveryCall: with a debug logger, POST /auth and every call each write one line with
// method, path (no query), wallet, status or error, duration and traceId; never a secret, a
// token, a query or a body's document.
func TestDebugLogsEveryCall(t *testing.T) {
	const cpf = "52998224725"
	s := newCtServer(t, func(w http.ResponseWriter, r *http.Request, rec ctRecorded) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v2/pix":
			w.Header().Set("X-Request-Id", "req-abc-1")
			ctRaw(201, "application/json", ctChargeJSON)(w, r, rec)
		default:
			ctJSON(w, 422, map[string]any{"statusCode": 422, "error": "BadRequest",
				"message": "document 529.982.247-25 is invalid", "timestamp": "2025-03-01T12:00:00Z", "traceId": "trace-xyz-9"})
		}
	})
	var buf bytes.Buffer
	c := ctNewClient(t, s, WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	defer c.Close()
	ctx := ctCtx(t)
	req := &CreatePixRequest{Amount: 1050, Description: "d", Customer: &Customer{Name: "Ana", Document: cpf}}
	if _, err := c.CreatePix(ctx, req, WithSubAccount("loja-a")); err != nil {
		t.Fatalf("CreatePix: %v", err)
	}
	if _, err := c.GetTransaction(ctx, "tx-1"); err == nil {
		t.Fatal("GetTransaction: want the 422")
	}
	if err := c.Do(ctx, http.MethodGet, "/_sandbox/fee?secret=q-s3cr3t", nil, nil); err == nil {
		t.Fatal("Do: want the 422")
	}
	lines := callLines(logLines(t, &buf))
	if len(lines) != 4 {
		t.Fatalf("want 4 call lines (auth, pix, transaction, fee), got %d:\n%s", len(lines), buf.String())
	}
	want := []struct {
		method, path, wallet, trace string
		status                      float64
		errPart                     string
	}{
		{"POST", "/auth", "principal", "", 200, ""},
		{"POST", "/pix", "loja-a", "req-abc-1", 201, ""},
		{"GET", "/transactions/tx-1", "principal", "trace-xyz-9", 422, "BadRequest"},
		{"GET", "/_sandbox/fee", "principal", "trace-xyz-9", 422, "BadRequest"},
	}
	for i, w := range want {
		m := lines[i]
		if m["level"] != "DEBUG" || m["method"] != w.method || m["path"] != w.path || m["wallet"] != w.wallet || m["status"] != w.status {
			t.Errorf("line %d = %v, want %s %s wallet %s status %v", i, m, w.method, w.path, w.wallet, w.status)
		}
		if _, ok := m["duration_ms"].(float64); !ok {
			t.Errorf("line %d has no duration_ms: %v", i, m)
		}
		if got, _ := m["traceId"].(string); got != w.trace {
			t.Errorf("line %d traceId = %q, want %q", i, got, w.trace)
		}
		if got, _ := m["error"].(string); !strings.Contains(got, w.errPart) || (w.errPart == "") != (got == "") {
			t.Errorf("line %d error = %q, want it to hold %q", i, got, w.errPart)
		}
	}
	out := buf.String()
	ctNoLeak(t, "the debug log", out)
	for _, bad := range []string{cpf, "529.982.247-25", "q-s3cr3t", "Authorization", "Bearer", "Ana"} {
		if strings.Contains(out, bad) {
			t.Errorf("the debug log holds %q:\n%s", bad, out)
		}
	}
}

// TestDebugLogsTransportError: a call that gets no reply logs status 0 and the error without the URL's query.
func TestDebugLogsTransportError(t *testing.T) {
	s := newCtServer(t, nil)
	var buf bytes.Buffer
	c := ctNewClient(t, s, WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		WithRetry(RetryPolicy{MaxAttempts: 1}))
	defer c.Close()
	if err := c.Authenticate(ctCtx(t)); err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	s.srv.Close()
	if err := c.Do(ctCtx(t), http.MethodGet, "/_sandbox/fee?k=q-s3cr3t", nil, nil); err == nil {
		t.Fatal("want a transport error")
	}
	lines := callLines(logLines(t, &buf))
	if len(lines) == 0 {
		t.Fatalf("no call line:\n%s", buf.String())
	}
	last := lines[len(lines)-1]
	if last["path"] != "/_sandbox/fee" || last["status"] != float64(0) || last["error"] == nil {
		t.Errorf("last line = %v, want the failed GET with status 0 and an error", last)
	}
	if strings.Contains(buf.String(), "q-s3cr3t") {
		t.Errorf("the log holds the query:\n%s", buf.String())
	}
}

func TestMaskDigitRuns(t *testing.T) {
	for in, want := range map[string]string{
		"document 529.982.247-25 is invalid": "document [document] is invalid",
		"cnpj 12.345.678/0001-99.":           "cnpj [document].",
		"amount 10.50 on 2025-03-01":         "amount 10.50 on 2025-03-01",
		"id 12345678901":                     "id [document]",
		"tx 1234567890":                      "tx 1234567890",
	} {
		if got := MaskDigitRuns(in); got != want {
			t.Errorf("MaskDigitRuns(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDebugLogsWebhookVerdicts: each delivery writes one line with its event id, kind and verdict
// (accepted, duplicate, refused with the reason), never the body nor the secret.
func TestDebugLogsWebhookVerdicts(t *testing.T) {
	var buf bytes.Buffer
	r := NewReceiver(testWebhookSecret, WithServerLog(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	body := webhookBody("evt-log-1")
	for _, sig := range []string{Sign(body, testWebhookSecret), Sign(body, testWebhookSecret), "sha256=00"} {
		deliverWebhook(r, body, sig)
	}
	var got [][3]string
	for _, m := range logLines(t, &buf) {
		if strings.HasPrefix(m["msg"].(string), "webhook delivery") {
			ev, _ := m["event"].(string)
			verdict, _ := m["verdict"].(string)
			extra, _ := m["kind"].(string)
			if verdict == "refused" {
				extra, _ = m["reason"].(string)
			}
			got = append(got, [3]string{ev, verdict, extra})
		}
	}
	want := [][3]string{{"evt-log-1", "accepted", "payment_completed"}, {"evt-log-1", "duplicate", "payment_completed"}, {"", "refused", RejectSignature.String()}}
	if len(got) != len(want) {
		t.Fatalf("webhook lines = %v, want %v\n%s", got, want, buf.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %v, want %v", i, got[i], want[i])
		}
	}
	out := buf.String()
	for _, bad := range []string{testWebhookSecret.Reveal(), "tx-evt-log-1", "loja-1"} {
		if strings.Contains(out, bad) {
			t.Errorf("the log holds %q:\n%s", bad, out)
		}
	}
}
