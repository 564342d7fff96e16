package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/api/apitest"
	"pixdash/api/sandbox"
	"pixdash/config"
	"pixdash/state"
	"pixdash/state/hub"
	"pixdash/state/workflow"
)

// hubConfig writes a config with the hub's profile "loja" (its webhook receiver on listen)
// and the counter profile "caixa" (hub = natsURL, no receiver) on the emulator at base.
func hubConfig(t *testing.T, base, listen, natsURL string) string {
	t.Helper()
	t.Setenv("PIXDASH_TEST_CLIENT_SECRET", knownClientSecret)
	t.Setenv("PIXDASH_TEST_WEBHOOK_SECRET", "whsec-hub-command-test")
	cfg, _ := isolatedDirs(t)
	text := `default_profile = "loja"
[profiles.loja]
base_url = "` + base + `"
client_id = "` + sandbox.DemoClientID + `"
client_secret_env = "PIXDASH_TEST_CLIENT_SECRET"
[profiles.loja.webhook]
listen = "` + listen + `"
secret_env = "PIXDASH_TEST_WEBHOOK_SECRET"

[profiles.caixa]
base_url = "` + base + `"
client_id = "` + sandbox.DemoClientID + `"
client_secret_env = "PIXDASH_TEST_CLIENT_SECRET"
hub = "` + natsURL + `"
hub_counter = "caixa-1"
`
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestHubCommandRefusesUnprotectedNATS: the hub refuses (usage error, exit 2) an embedded server
// beyond loopback without TLS and authentication, and an existing deployment reached the same
// way; a profile without a webhook receiver cannot be a hub.
func TestHubCommandRefusesUnprotectedNATS(t *testing.T) {
	hubConfig(t, "http://127.0.0.1:1/v2", "127.0.0.1:0", "nats://127.0.0.1:4222")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"hub", "--nats-listen", "0.0.0.0:0"}, "TLS and authentication"},
		{[]string{"hub", "--nats", "nats://192.0.2.10:4222"}, "TLS and authentication"},
		{[]string{"hub", "--nats", "tls://192.0.2.10:4222"}, "TLS and authentication"},
		{[]string{"hub", "--nats-config", "state/hub/testdata/hub-accounts.conf", "--nats-listen", "0.0.0.0:0"}, "TLS and authentication"},
		{[]string{"hub", "--profile", "caixa"}, "has no webhook receiver"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			if code := run(tc.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}

// TestHubCommandHelp: pixdash hub --help says what it does and names its options.
func TestHubCommandHelp(t *testing.T) {
	noConfig(t)
	var out, errOut strings.Builder
	if code := run([]string{"hub", "--help"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, w := range []string{"pix.<environment>.<wallet>.<kind>", "--nats", "--nats-listen", "--nats-config", "--max-age", "--max-bytes", "--duplicate-window", "--replicas", "--sync-always", "--profile", "TLS"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("help lacks %q", w)
		}
	}
}

// TestHubCommandFeedsACounter: pixdash hub for profile loja (embedded NATS) registers its
// receiver with the local sandbox; the counter profile caixa (hub = …) opens as the dashboard
// opens it, creates a charge, the emulator pays it, and the payment event reaches the counter's
// store through the hub; read back, the charge is paid.
func TestHubCommandFeedsACounter(t *testing.T) {
	base := emulatorURL(t)
	listen := freePort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	natsAddr := ln.Addr().String()
	ln.Close()
	hubConfig(t, base, listen, "nats://"+natsAddr)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut apitest.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runHub(ctx, hubFlags{natsListen: natsAddr, maxAge: hub.DefaultMaxAge, maxBytes: hub.DefaultMaxBytes, dupWindow: hub.DefaultDuplicateWindow}, &out, &errOut)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub: %v", err)
		}
		if !strings.Contains(out.String(), "stopped;") {
			t.Errorf("hub output: %s", out.String())
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "webhooks:"); {
		select {
		case err := <-done:
			t.Fatalf("hub ended: %v\n%s\n%s", err, out.String(), errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not start: %s %s", out.String(), errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, w := range []string{"profile loja (sandbox)", "PIX_SANDBOX", "pix.sandbox.<wallet>.<kind>", "embedded"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("hub output lacks %q:\n%s", w, out.String())
		}
	}

	cfgFile := os.Getenv("XDG_CONFIG_HOME")
	cfg, err := config.Load(filepath.Join(cfgFile, "pixdash", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.Profile("caixa")
	if err != nil {
		t.Fatal(err)
	}
	s, err := openProfile(ctx, p, os.Getenv("XDG_STATE_HOME"), slogDiscard())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Hub == nil || s.WebhookURL != "" {
		t.Fatalf("counter session: hub %v, receiver %q", s.Hub, s.WebhookURL)
	}
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	r := workflow.CreateCharge(rctx, s.Client, s.Store, workflow.Draft{Key: api.NewIdempotencyKey(), Wallet: api.WalletPrincipal,
		Req: api.CreatePixRequest{Amount: 700, Description: "Pelo hub"}}, nil)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if err := s.Simulator.Pay(rctx, r.Charge.ID, "Maria da Silva", "52998224725"); err != nil {
		t.Fatal(err)
	}
	for after := int64(0); ; {
		b, ok := workflow.WaitEvents(rctx, s.Store, after, 100)
		if !ok || b.Err != nil {
			t.Fatalf("no payment event reached the counter through the hub: %+v\n%s", b, out.String())
		}
		after = b.Last
		for _, e := range b.Events {
			if e.Kind == api.EventPaymentCompleted && e.TransactionID == r.Charge.ID {
				if conf, err := workflow.ConfirmPayment(rctx, s.Client, s.Store, e); err != nil || conf.Verdict != state.VerdictConfirmed {
					t.Fatalf("read-back: %+v %v", conf, err)
				}
				if c, _, _ := s.Store.Charge(rctx, r.Charge.ID); c.Status != api.StatusCompleted {
					t.Fatalf("charge %s", c.Status)
				}
				return
			}
		}
	}
}
