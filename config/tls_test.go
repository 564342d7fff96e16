package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pixdash/api/apitest"
)

// writePair writes a self-signed certificate and its PKCS#8 key as cert.pem and key.pem in dir.
func writePair(t *testing.T, dir string) (certFile, keyFile string) {
	certFile, keyFile, _ = apitest.SelfSigned(t, dir)
	return certFile, keyFile
}

// webhookDoc is a profile whose [webhook] table holds lines and a signing secret source.
func webhookDoc(lines ...string) string {
	return profileDoc() + "[profiles.shop.webhook]\nsecret_env = \"SHOP_WEBHOOK\"\n" + strings.Join(lines, "\n") + "\n"
}

// problemAt finds the problem on key whose message contains want.
func problemAt(t *testing.T, err error, key, want string) Problem {
	t.Helper()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %T is not Problems: %v", err, err)
	}
	for _, p := range ps {
		if p.Key == key && strings.Contains(p.Msg, want) {
			return p
		}
	}
	t.Fatalf("no problem on %s containing %q:\n%v", key, want, err)
	return Problem{}
}

func TestWebhookTLSKeys(t *testing.T) {
	dir := t.TempDir()
	cert, key := writePair(t, filepath.Join(dir, "tls"))
	_, otherKey := writePair(t, filepath.Join(dir, "other"))
	cfgFile := filepath.Join(dir, "config.toml")
	notPEM := filepath.Join(dir, "config.toml.bak")
	if err := os.WriteFile(notPEM, []byte("listen = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const certKey, keyKey = "profiles.shop.webhook.tls_cert", "profiles.shop.webhook.tls_key"

	t.Run("pair", func(t *testing.T) {
		cfg, err := Parse(cfgFile, []byte(webhookDoc(`listen = "0.0.0.0:8787"`, `tls_cert = "`+cert+`"`, `tls_key = "`+key+`"`)), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		w := cfg.Profiles[0].Webhook
		if !w.TLS() || w.TLSCert != cert || w.TLSKey != key {
			t.Fatalf("webhook = %+v, want TLS with %s and %s", w, cert, key)
		}
		if w.PlainBeyondLoopback() || len(cfg.Warnings) != 0 {
			t.Errorf("a TLS receiver is warned about: %v", cfg.Warnings)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("relative to the config file", func(t *testing.T) {
		cfg, err := Parse(cfgFile, []byte(webhookDoc(`tls_cert = "tls/cert.pem"`, `tls_key = "tls/key.pem"`)), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if w := cfg.Profiles[0].Webhook; w.TLSCert != cert || w.TLSKey != key {
			t.Errorf("paths = %q, %q; want %q, %q", w.TLSCert, w.TLSKey, cert, key)
		}
	})
	for _, tt := range []struct {
		name, key, want string
		lines           []string
		line            int // the problem's line within the webhook table (1 = its first line)
	}{
		{name: "cert without key", key: certKey, want: "needs tls_key too", lines: []string{`tls_cert = "` + cert + `"`}},
		{name: "key without cert", key: keyKey, want: "needs tls_cert too", lines: []string{`tls_key = "` + key + `"`}},
		{name: "missing cert", key: certKey, want: "cannot read " + filepath.Join(dir, "nope.pem") + ": no such file or directory", lines: []string{`tls_cert = "nope.pem"`, `tls_key = "` + key + `"`}},
		{name: "missing key", key: keyKey, want: "no such file", lines: []string{`tls_cert = "` + cert + `"`, `tls_key = "/nonexistent/key.pem"`}, line: 2},
		{name: "directory", key: certKey, want: "is not a regular file", lines: []string{`tls_cert = "tls"`, `tls_key = "` + key + `"`}},
		{name: "not a certificate", key: certKey, want: "holds no PEM certificate", lines: []string{`tls_cert = "` + notPEM + `"`, `tls_key = "` + key + `"`}},
		{name: "key of another certificate", key: keyKey, want: "does not load as the private key of " + cert, lines: []string{`tls_cert = "` + cert + `"`, `tls_key = "` + otherKey + `"`}, line: 2},
		{name: "key is the certificate", key: keyKey, want: "does not load as the private key", lines: []string{`tls_cert = "` + cert + `"`, `tls_key = "` + cert + `"`}, line: 2},
		{name: "empty", key: certKey, want: "is empty", lines: []string{`tls_cert = ""`, `tls_key = "` + key + `"`}},
		{name: "not a string", key: certKey, want: "string", lines: []string{`tls_cert = 1`, `tls_key = "` + key + `"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := webhookDoc(tt.lines...)
			_, err := Parse(cfgFile, []byte(doc), 0o600)
			if err == nil {
				t.Fatalf("accepted:\n%s", doc)
			}
			p := problemAt(t, err, tt.key, tt.want)
			// The webhook table's first key line follows its header and secret_env.
			first := strings.Count(profileDoc(), "\n") + 3
			if want := first + max(tt.line, 1) - 1; p.File != cfgFile || p.Line != want {
				t.Errorf("problem at %s:%d, want %s:%d (%v)", p.File, p.Line, cfgFile, want, p)
			}
			if !strings.HasPrefix(p.Error(), cfgFile+":") || !strings.Contains(p.Error(), ": "+tt.key+": ") {
				t.Errorf("not file:line: key: message: %q", p.Error())
			}
		})
	}
	t.Run("Validate", func(t *testing.T) {
		cfg, err := Parse(cfgFile, []byte(webhookDoc(`tls_cert = "`+cert+`"`, `tls_key = "`+key+`"`)), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Profiles[0].Webhook.TLSKey = ""
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tls_cert: needs tls_key too") {
			t.Errorf("Validate with a certificate and no key: %v", err)
		}
		cfg.Profiles[0].Webhook.TLSKey = otherKey
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tls_key: "+otherKey+" does not load") {
			t.Errorf("Validate with a mismatched key: %v", err)
		}
	})
}

func TestPlainListenWarning(t *testing.T) {
	dir := t.TempDir()
	cert, key := writePair(t, dir)
	tlsLines := []string{`tls_cert = "` + cert + `"`, `tls_key = "` + key + `"`}
	for _, tt := range []struct {
		name string
		doc  string
		warn bool
	}{
		{name: "all interfaces", doc: webhookDoc(`listen = ":8787"`), warn: true},
		{name: "0.0.0.0", doc: webhookDoc(`listen = "0.0.0.0:8798"`), warn: true},
		{name: "LAN address", doc: webhookDoc(`listen = "192.168.0.10:8787"`), warn: true},
		{name: "host name", doc: webhookDoc(`listen = "caixa.lan:8787"`), warn: true},
		{name: "loopback", doc: webhookDoc(`listen = "127.0.0.1:8787"`)},
		{name: "IPv6 loopback", doc: webhookDoc(`listen = "[::1]:8787"`)},
		{name: "localhost", doc: webhookDoc(`listen = "localhost:8787"`)},
		{name: "default listen", doc: webhookDoc()},
		{name: "TLS", doc: webhookDoc(append([]string{`listen = ":8787"`}, tlsLines...)...)},
		{name: "no signing secret: no receiver", doc: profileDoc() + "[profiles.shop.webhook]\nlisten = \":8787\"\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(filepath.Join(dir, "config.toml"), []byte(tt.doc), 0o600)
			if err != nil {
				t.Fatal(err)
			}
			w := cfg.Profiles[0].Webhook
			if got := w.PlainBeyondLoopback(); got != tt.warn {
				t.Errorf("PlainBeyondLoopback(%q) = %v, want %v", w.Listen, got, tt.warn)
			}
			if !tt.warn {
				if len(cfg.Warnings) != 0 {
					t.Errorf("unexpected warnings: %v", cfg.Warnings)
				}
				return
			}
			if len(cfg.Warnings) != 1 {
				t.Fatalf("warnings = %v, want one", cfg.Warnings)
			}
			p := cfg.Warnings[0]
			listenLine := strings.Count(profileDoc(), "\n") + 3
			if p.Key != "profiles.shop.webhook.listen" || p.Line != listenLine {
				t.Errorf("warning at %s line %d, want profiles.shop.webhook.listen line %d", p.Key, p.Line, listenLine)
			}
			for _, want := range []string{w.Listen, "no TLS", "clear text", "tls_cert and tls_key", "reverse proxy"} {
				if !strings.Contains(p.Msg, want) {
					t.Errorf("warning %q does not say %q", p.Msg, want)
				}
			}
		})
	}
}
