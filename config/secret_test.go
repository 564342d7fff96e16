package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const secretValue = "s3cret"

// mustProfile parses a one-profile document.
func mustProfile(t *testing.T, lines ...string) *Profile {
	t.Helper()
	cfg, err := Parse(testFile, []byte(profileDoc(lines...)), 0o600)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg.Profiles[0]
}

func TestClientSecret(t *testing.T) {
	t.Setenv("PIXDASH_TEST_SECRET", "  "+secretValue+"\n")
	t.Setenv("PIXDASH_TEST_EMPTY", "")
	tests := []struct {
		name    string
		line    string
		want    string
		wantErr []string // substrings that must all appear
	}{
		{name: "env", line: `client_secret_env = "PIXDASH_TEST_SECRET"`, want: secretValue},
		{name: "env unset", line: `client_secret_env = "PIXDASH_TEST_UNSET_VAR"`, wantErr: []string{"environment variable PIXDASH_TEST_UNSET_VAR (client_secret_env) is not set"}},
		{name: "env empty", line: `client_secret_env = "PIXDASH_TEST_EMPTY"`, wantErr: []string{"environment variable PIXDASH_TEST_EMPTY", "is empty"}},
		{name: "cmd", line: `client_secret_cmd = "printf s3cret"`, want: secretValue},
		{name: "cmd trims newline", line: `client_secret_cmd = "echo '  s3cret  '"`, want: secretValue},
		{name: "cmd sees env", line: `client_secret_cmd = "printf %s \"$PIXDASH_TEST_SECRET\""`, want: secretValue},
		{name: "cmd fails", line: `client_secret_cmd = "echo 'gpg: decryption failed' >&2; exit 3"`, wantErr: []string{"client_secret_cmd failed with exit status 3", ": gpg: decryption failed"}},
		{name: "cmd fails after printing secret", line: `client_secret_cmd = "printf s3cret; echo leaked s3cret here >&2; exit 1"`, wantErr: []string{"exit status 1", "leaked [redacted] here"}},
		{name: "cmd not found", line: `client_secret_cmd = "pixdash-no-such-command-xyz"`, wantErr: []string{"exit status 127"}},
		{name: "cmd prints nothing", line: `client_secret_cmd = "true"`, wantErr: []string{"client_secret_cmd printed nothing on stdout"}},
		{name: "cmd prints lines", line: `client_secret_cmd = "printf 's3cret\nurl: x\n'"`, wantErr: []string{"printed more than one line", "head -n 1"}},
		{name: "cmd stderr cut short", line: `client_secret_cmd = "printf '%0300d\n' 0 >&2; exit 2"`, wantErr: []string{"exit status 2", "…"}},
		{name: "file", line: `client_secret = "  s3cret "`, want: secretValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustProfile(t, tt.line)
			got, err := p.ClientSecret(t.Context())
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ClientSecret: %v", err)
				}
				if got.Reveal() != tt.want {
					t.Fatalf("ClientSecret revealed %d bytes, want the %d-byte secret", len(got.Reveal()), len(tt.want))
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), secretValue) {
				t.Errorf("error reveals the secret or the command: %q", err)
			}
			// The caller names the profile ("profile shop: …"); the error does not, or it says it twice.
			if strings.Contains(err.Error(), "shop") {
				t.Errorf("error names the profile itself: %q", err)
			}
			if got != "" {
				t.Errorf("a failed resolution returned a value")
			}
		})
	}
}

func TestSecretCommandDeadlineAndCancel(t *testing.T) {
	p := mustProfile(t, `client_secret_cmd = "exec sleep 30"`)

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := p.ClientSecret(ctx)
	if err == nil || !strings.Contains(err.Error(), "client_secret_cmd did not finish before the deadline") {
		t.Errorf("deadline: got %v", err)
	}

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	_, err = p.ClientSecret(ctx)
	if err == nil || !strings.Contains(err.Error(), "was canceled") {
		t.Errorf("cancel: got %v", err)
	}
}

func TestWebhookSecret(t *testing.T) {
	t.Setenv("PIXDASH_TEST_WH", secretValue)
	p := mustProfile(t, "[profiles.shop.webhook]", `secret_env = "PIXDASH_TEST_WH"`)
	got, err := p.Webhook.Secret(t.Context())
	if err != nil || got.Reveal() != secretValue {
		t.Fatalf("env: ok=%v err=%v", got.Reveal() == secretValue, err)
	}

	p = mustProfile(t, "[profiles.shop.webhook]", `secret_cmd = "printf s3cret"`)
	if got, err := p.Webhook.Secret(t.Context()); err != nil || got.Reveal() != secretValue {
		t.Fatalf("cmd: ok=%v err=%v", got.Reveal() == secretValue, err)
	}

	p = mustProfile(t, "[profiles.shop.webhook]", `secret_cmd = "exit 4"`)
	_, err = p.Webhook.Secret(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), `webhook.secret_cmd failed with exit status 4`) {
		t.Fatalf("failing cmd: got %v", err)
	}

	p = mustProfile(t, "[profiles.shop.webhook]")
	if _, err := p.Webhook.Secret(t.Context()); !errors.Is(err, ErrNoWebhookSecret) {
		t.Fatalf("no source: got %v", err)
	}
	p = mustProfile(t)
	if _, err := p.Webhook.Secret(t.Context()); !errors.Is(err, ErrNoWebhookSecret) {
		t.Fatalf("no webhook table: got %v", err)
	}
	if p.Webhook.SecretSource() != "none" {
		t.Errorf("nil webhook SecretSource = %q", p.Webhook.SecretSource())
	}
}

// TestSecretsNeverPrinted formats profiles and configs with every verb and checks no secret or secret command leaks.
func TestSecretsNeverPrinted(t *testing.T) {
	docs := []string{
		profileDoc(`client_secret = "s3cret"`, "[profiles.shop.webhook]", `secret_cmd = "printf s3cret"`),
		profileDoc(`client_secret_cmd = "printf s3cret"`, "[profiles.shop.webhook]", `secret_env = "X"`),
		profileDoc(`client_secret_env = "X"`, `webhook = { secret_cmd = "echo s3cret" }`),
	}
	for i, doc := range docs {
		cfg, err := Parse(testFile, []byte(doc), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		p := cfg.Profiles[0]
		outputs := []string{
			fmt.Sprintf("%v %+v %#v", p, p, p),
			fmt.Sprintf("%v %+v %#v %s %q %x", *p, *p, *p, *p, *p, *p),
			fmt.Sprintf("%v %+v %#v", cfg, cfg, *cfg),
			fmt.Sprintf("%v %+v %#v %s", p.Webhook, p.Webhook, *p.Webhook, p.Webhook),
			fmt.Sprint(p, p.Webhook, cfg),
			p.String(), p.SecretSource(), p.Webhook.SecretSource(),
		}
		for _, out := range outputs {
			if strings.Contains(out, secretValue) {
				t.Errorf("doc %d: output reveals a secret or secret command: %s", i, out)
			}
		}
		if !strings.Contains(outputs[0], "Name:shop") {
			t.Errorf("doc %d: formatting lost the useful fields: %s", i, outputs[0])
		}
	}
}
