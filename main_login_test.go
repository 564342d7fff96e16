package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"pixdash/config"
)

// login reads the secret (never from a flag), checks it by signing in, and stores it in the OS
// keyring, where a profile with client_secret_keyring = true reads it; a machine without a
// keyring gets an error naming client_secret_env and client_secret_cmd.
func TestLoginKeyring(t *testing.T) {
	keyring.MockInit()
	base := emulatorURL(t)
	cfg, _ := isolatedDirs(t)
	body := "[profiles.k]\nbase_url = \"" + base + "\"\nclient_id = \"mp_test_demo_full\"\nclient_secret_keyring = true\n" +
		"[profiles.k.webhook]\nlisten = \"127.0.0.1:0\"\nsecret_keyring = true\n" +
		"[profiles.e]\nbase_url = \"" + base + "\"\nclient_id = \"mp_test_demo_full\"\nclient_secret_env = \"PIXDASH_TEST_E\"\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	oldIn, oldTerm := promptIn, stdinTerminal
	t.Cleanup(func() { promptIn, stdinTerminal = oldIn, oldTerm })
	stdinTerminal = func() bool { return false }
	cli := func(stdin string, args ...string) (int, string, string) {
		promptIn = strings.NewReader(stdin)
		var out, errb strings.Builder
		code := run(args, &out, &errb)
		if strings.Contains(out.String()+errb.String(), knownClientSecret) {
			t.Errorf("%q printed the secret: %q %q", args, out.String(), errb.String())
		}
		return code, out.String(), errb.String()
	}

	if code, _, errb := cli("", "whoami", "--profile", "k"); code != exitAuth || !strings.Contains(errb, "store it with pixdash login --profile k") {
		t.Errorf("whoami before login: exit %d, %q", code, errb)
	}
	if code, _, errb := cli("not-the-secret\n", "login", "--profile", "k"); code != exitAuth || !strings.Contains(errb, "refused this secret (nothing stored)") {
		t.Errorf("login with a wrong secret: exit %d, %q", code, errb)
	}
	if _, err := keyring.Get(config.KeyringService, config.KeyringUser("k")); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("a refused secret was stored: %v", err)
	}
	if code, _, _ := cli("\n", "login", "--profile", "k"); code != exitValidation {
		t.Errorf("login with an empty secret: exit %d, want 5", code)
	}
	if code, _, errb := cli(knownClientSecret+"\nshort\n", "login", "--profile", "k"); code != exitValidation || !strings.Contains(errb, "at least 16 characters") {
		t.Errorf("login with a short webhook secret: exit %d, %q", code, errb)
	}
	if code, out, _ := cli(knownClientSecret+"\nwhsec-login-test-0001\n", "login", "--profile", "k"); code != 0 || !strings.Contains(out, "stored its secret in the OS keyring (profile k)") || !strings.Contains(out, "Stored the webhook signing secret") {
		t.Errorf("login: exit %d, %q", code, out)
	}
	if v, err := keyring.Get(config.KeyringService, config.KeyringWebhookUser("k")); v != "whsec-login-test-0001" || err != nil {
		t.Errorf("webhook secret in the keyring: %q, %v", v, err)
	}
	cfgK, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := cfgK.Profile("k")
	if ws, err := pk.Webhook.Secret(context.Background()); ws.Reveal() != "whsec-login-test-0001" || err != nil {
		t.Errorf("the profile's webhook secret from the keyring: %v", err)
	}
	if code, out, _ := cli("", "whoami", "--profile", "k"); code != 0 || !strings.Contains(out, "secret from   OS keyring (client_secret_keyring)") || !strings.Contains(out, "signed in     yes") {
		t.Errorf("whoami after login: exit %d, %q", code, out)
	}
	// A profile that reads its secret elsewhere: stored, and told how to use it.
	if code, _, errb := cli(knownClientSecret+"\n", "login", "--profile", "e"); code != 0 || !strings.Contains(errb, "set client_secret_keyring = true in [profiles.e]") {
		t.Errorf("login of an env profile: exit %d, %q", code, errb)
	}
	// Secrets are never flags.
	if code, _, _ := cli("", "login", "--profile", "k", "--secret", "x"); code != exitUsage {
		t.Errorf("login --secret: exit %d, want 2", code)
	}

	// Headless: no keyring at all.
	keyring.MockInitWithError(errors.New("org.freedesktop.DBus.Error.ServiceUnknown: no Secret Service"))
	for _, args := range [][]string{{"login", "--profile", "k"}, {"whoami", "--profile", "k"}} {
		code, _, errb := cli(knownClientSecret+"\n", args...)
		if code == 0 || !strings.Contains(errb, "OS keyring is not available here") || !strings.Contains(errb, "client_secret_env") || !strings.Contains(errb, "client_secret_cmd") {
			t.Errorf("%q headless: exit %d, %q", args, code, errb)
		}
	}
}

// client_secret_keyring is one secret source among the others: exactly one, and true.
func TestConfigKeyringSource(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{"client_secret_keyring = false", "is false"},
		{"client_secret_keyring = true\nclient_secret_env = \"X\"", "client_secret_keyring"},
		{"client_secret_env = \"X\"\n[profiles.k.webhook]\nsecret_keyring = true\nsecret_env = \"Y\"", "found secret_keyring and secret_env"},
	} {
		body := "[profiles.k]\nbase_url = \"https://api.example.com/v2\"\nclient_id = \"mp_test_x\"\n" + tc.extra + "\n"
		_, err := config.Parse("c.toml", []byte(body), 0o600)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error naming %q", tc.extra, err, tc.want)
		}
	}
}
