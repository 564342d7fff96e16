package config

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHubKeys: hub = "nats://…" and its hub_* keys make the profile a counter; the link is
// checked where it is written (a hub beyond loopback needs TLS and credentials, a user needs a
// password variable, a certificate its key).
func TestHubKeys(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		wantErr string
		check   func(t *testing.T, p *Profile)
	}{
		{name: "none", check: func(t *testing.T, p *Profile) {
			if p.Hub != nil {
				t.Errorf("hub %+v without a hub key", p.Hub)
			}
		}},
		{name: "loopback defaults", lines: []string{`hub = "nats://127.0.0.1:4222"`, `sub_account = "loja-centro"`}, check: func(t *testing.T, p *Profile) {
			if p.Hub.URL != "nats://127.0.0.1:4222" || p.HubCounter() != "shop" || !slices.Equal(p.HubWallets(), []string{"loja-centro"}) {
				t.Errorf("hub %+v counter %q wallets %v", p.Hub, p.HubCounter(), p.HubWallets())
			}
		}},
		{name: "owner", lines: []string{`hub = "nats://localhost:4222"`, `hub_counter = "dono"`, `hub_wallets = ["*"]`}, check: func(t *testing.T, p *Profile) {
			if p.HubCounter() != "dono" || p.HubWallets() != nil {
				t.Errorf("counter %q wallets %v, want every wallet", p.HubCounter(), p.HubWallets())
			}
		}},
		{name: "remote with tls and user", lines: []string{`hub = "tls://hub.loja.example:4222"`, `hub_user = "caixa1"`, `hub_password_env = "HUB_PW"`, `hub_tls_ca = "ca.pem"`, `hub_inbox = "_INBOX_caixa1"`, `hub_wallets = ["principal", "loja-2"]`}, check: func(t *testing.T, p *Profile) {
			h := p.Hub
			if !h.TLS() || !h.Authenticated() || h.PasswordEnv() != "HUB_PW" || !strings.HasSuffix(h.CAFile, "ca.pem") || h.Inbox != "_INBOX_caixa1" || !slices.Equal(p.HubWallets(), []string{"principal", "loja-2"}) {
				t.Errorf("hub %+v", h)
			}
		}},
		{name: "remote plain", lines: []string{`hub = "nats://10.0.0.5:4222"`}, wantErr: "beyond loopback needs TLS"},
		{name: "remote tls without credentials", lines: []string{`hub = "tls://10.0.0.5:4222"`}, wantErr: "beyond loopback needs TLS"},
		{name: "credentials in the url", lines: []string{`hub = "nats://u:p@127.0.0.1:4222"`}, wantErr: "must not hold credentials"},
		{name: "not nats", lines: []string{`hub = "http://127.0.0.1:4222"`}, wantErr: "must be nats://host:port"},
		{name: "user without password", lines: []string{`hub = "nats://127.0.0.1:4222"`, `hub_user = "x"`}, wantErr: "hub_user needs hub_password_env"},
		{name: "cert without key", lines: []string{`hub = "nats://127.0.0.1:4222"`, `hub_tls_cert = "c.pem"`}, wantErr: "hub_tls_cert and hub_tls_key go together"},
		{name: "keys without hub", lines: []string{`hub_counter = "caixa"`}, wantErr: "the hub_* keys need hub ="},
		{name: "bad counter", lines: []string{`hub = "nats://127.0.0.1:4222"`, `hub_counter = "caixa.1"`}, wantErr: "without spaces, dots"},
		{name: "star and wallets", lines: []string{`hub = "nats://127.0.0.1:4222"`, `hub_wallets = ["*", "loja"]`}, wantErr: `"*" already means every wallet`},
		{name: "wallets not an array", lines: []string{`hub = "nats://127.0.0.1:4222"`, `hub_wallets = "loja"`}, wantErr: "must be an array of wallets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseOne(t, profileDoc(tt.lines...), 0o600)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, p)
		})
	}
}

// TestHubPassword reads the hub password from its variable only, and says which is missing.
func TestHubPassword(t *testing.T) {
	p, err := parseOne(t, profileDoc(`hub = "nats://127.0.0.1:4222"`, `hub_user = "caixa1"`, `hub_password_env = "PIXDASH_TEST_HUB_PW"`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PIXDASH_TEST_HUB_PW", "")
	if _, err := p.Hub.Password(context.Background()); err == nil || !strings.Contains(err.Error(), "PIXDASH_TEST_HUB_PW") {
		t.Errorf("unset variable: %v", err)
	}
	t.Setenv("PIXDASH_TEST_HUB_PW", "s3cret")
	if pw, err := p.Hub.Password(context.Background()); err != nil || pw.Reveal() != "s3cret" {
		t.Errorf("password: %v", err)
	}
}
