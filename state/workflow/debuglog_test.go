package workflow

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/apitest"
	"pixdash/api/sandbox"
	"pixdash/state"
)

// TestDebugLogOnTheEmulator: --debug's logger, wired as demo mode wires it (emulator, client,
// session), records a charge create, its payment and webhook: the API calls (POST /auth, POST
// /pix with its status, duration and wallet), the delivery accepted, the event stored, the
// read-back confirmed and the charge written; and no secret nor the payer's CPF.
func TestDebugLogOnTheEmulator(t *testing.T) {
	const cpf = "52998224725"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var buf apitest.SyncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, err := sandbox.StartDemo(ctx, sandbox.DemoOptions{
		ServerOptions: []sandbox.Option{sandbox.WithLogger(logger)},
		ClientOptions: []api.Option{api.WithLogger(logger)},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Params{
		Profile: "demo", Env: d.Env, Demo: true, Client: d.Client, Simulator: d.Control,
		Webhook: &Webhook{Listener: d.WebhookListener, Secret: d.WebhookSecret, Tolerance: api.DefaultWebhookTolerance},
		Release: d.Close, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	feedStart, err := s.Store.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	draft := Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 1234, Description: "Café", Customer: &api.Customer{Name: "Maria", Document: cpf}}}
	r := CreateCharge(ctx, s.Client, s.Store, draft, nil)
	if r.Err != nil || r.Charge == nil {
		t.Fatalf("create: %+v", r)
	}
	if err := s.Simulator.Pay(ctx, r.Charge.ID, "Maria da Silva", cpf); err != nil {
		t.Fatal(err)
	}
	var ev *api.Event
	for after := feedStart; ev == nil; {
		b, ok := WaitEvents(ctx, s.Store, after, 100)
		if !ok || b.Err != nil {
			t.Fatalf("feed: %+v, %v", b, ok)
		}
		after = b.Last
		for _, e := range b.Events {
			if e.Kind == api.EventPaymentCompleted && e.TransactionID == r.Charge.ID {
				ev = e
			}
		}
	}
	if conf, err := ConfirmPayment(ctx, s.Client, s.Store, ev); err != nil || conf.Verdict != state.VerdictConfirmed {
		t.Fatalf("read back: %+v, %v", conf, err)
	}

	out := buf.String()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		lines = append(lines, m)
	}
	has := func(what string, match func(m map[string]any) bool) {
		t.Helper()
		for _, m := range lines {
			if match(m) {
				return
			}
		}
		t.Errorf("the debug log has no line for %s:\n%s", what, out)
	}
	has("POST /auth", func(m map[string]any) bool {
		return m["msg"] == "api: call" && m["method"] == "POST" && m["path"] == "/auth" && m["status"] == float64(200)
	})
	has("POST /pix", func(m map[string]any) bool {
		_, timed := m["duration_ms"].(float64)
		return m["msg"] == "api: call" && m["method"] == "POST" && m["path"] == "/pix" && m["status"] == float64(201) &&
			m["wallet"] == api.WalletPrincipal && timed
	})
	has("GET /transactions/{id}", func(m map[string]any) bool {
		return m["msg"] == "api: call" && m["method"] == "GET" && m["path"] == "/transactions/"+r.Charge.ID && m["status"] == float64(200)
	})
	has("the webhook accepted", func(m map[string]any) bool {
		return m["msg"] == "webhook delivery" && m["event"] == ev.EventID && m["kind"] == string(api.EventPaymentCompleted) && m["verdict"] == "accepted"
	})
	has("the event stored", func(m map[string]any) bool {
		return m["msg"] == "state: write" && m["record"] == "event" && m["op"] == "stored" && m["id"] == ev.EventID
	})
	has("the read-back confirmed", func(m map[string]any) bool {
		return m["msg"] == "webhook: read back" && m["event"] == ev.EventID && m["verdict"] == string(state.VerdictConfirmed)
	})
	has("the submission", func(m map[string]any) bool {
		return m["msg"] == "state: write" && m["record"] == "submission" && m["op"] == "begin" && m["id"] == draft.Key
	})
	has("the charge written", func(m map[string]any) bool {
		return m["msg"] == "state: write" && m["record"] == "charge" && m["id"] == r.Charge.ID
	})
	for _, secret := range []string{sandbox.DemoSecret.Reveal(), d.WebhookSecret.Reveal(), "Bearer", "eyJ", "access_token", "Authorization", cpf, "529.982.247-25"} {
		if strings.Contains(out, secret) {
			t.Errorf("the debug log holds %q", secret)
		}
	}
}
