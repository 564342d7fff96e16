package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zalando/go-keyring"

	"pixdash/api"
)

// The OS keyring entries of client_secret_keyring: service KeyringService, user
// KeyringUser(profile).
const (
	KeyringService = "pixdash"
	keyringSuffix  = "/client_secret"
)

// KeyringUser is the keyring user under which a profile's client secret is kept.
func KeyringUser(profile string) string { return profile + keyringSuffix }

// KeyringWebhookUser is the keyring user of a profile's webhook signing secret (secret_keyring).
func KeyringWebhookUser(profile string) string { return profile + "/webhook_secret" }

// KeyringGet and KeyringSet read and write the OS keyring (the Secret Service on Linux, the
// Keychain on macOS, the Credential Manager on Windows); tests use keyring.MockInit.
var (
	KeyringGet = keyring.Get
	KeyringSet = keyring.Set
)

// KeyringUnavailable is the error of a machine without a usable keyring (a server without a
// D-Bus session or Secret Service): it names the alternatives.
type KeyringUnavailable struct{ Err error }

func (e KeyringUnavailable) Error() string {
	return fmt.Sprintf("the OS keyring is not available here (%v); on a headless machine use client_secret_env (an environment variable, e.g. from systemd's LoadCredential or EnvironmentFile) or client_secret_cmd (a command that prints the secret, e.g. \"pass show pixdash/live\") instead", e.Err)
}

func (e KeyringUnavailable) Unwrap() error { return e.Err }

// SecretCommandTimeout bounds a client_secret_cmd or secret_cmd run (long enough for a pinentry prompt).
const SecretCommandTimeout = 30 * time.Second

// ErrNoWebhookSecret reports a profile without a webhook signing secret source: the receiver stays off.
var ErrNoWebhookSecret = errors.New("no webhook signing secret configured (set secret_env or secret_cmd in the webhook section); the webhook receiver is disabled")

// Output limits for secret commands.
const (
	maxSecretStdout = 64 << 10
	maxSecretStderr = 4 << 10
)

type sourceKind int

const (
	sourceNone sourceKind = iota
	sourceEnv
	sourceCmd
	sourceFile
	sourceKeyring
)

// secretSource says where a secret comes from; the command line is held as a Secret since it may embed one.
type secretSource struct {
	kind  sourceKind
	field string // config key that named the source, for messages
	env   string
	cmd   api.Secret
	value api.Secret
	// keyringUser is the OS keyring entry's user (service KeyringService) for sourceKeyring,
	// and keyringProfile the profile it belongs to (for messages).
	keyringUser, keyringProfile string
}

// describe names the source without revealing the secret or the command line.
func (s secretSource) describe() string {
	switch s.kind {
	case sourceEnv:
		return "environment variable " + s.env
	case sourceCmd:
		return "command (" + s.field + ")"
	case sourceFile:
		return "config file (" + s.field + ")"
	case sourceKeyring:
		return "OS keyring (" + s.field + ")"
	}
	return "none"
}

// ClientSecret resolves the profile's client secret from its environment variable, command or file.
func (p *Profile) ClientSecret(ctx context.Context) (api.Secret, error) {
	if p.secret.kind == sourceNone {
		return "", errors.New("no client secret source (set client_secret_env, client_secret_cmd, client_secret_keyring or client_secret)")
	}
	return p.secret.resolve(ctx)
}

// SecretSource describes where the client secret comes from, e.g. "environment variable MP_SECRET".
func (p *Profile) SecretSource() string { return p.secret.describe() }

// Secret resolves the webhook signing secret; without a source it returns ErrNoWebhookSecret.
func (w *Webhook) Secret(ctx context.Context) (api.Secret, error) {
	if !w.Enabled() {
		return "", ErrNoWebhookSecret
	}
	return w.secret.resolve(ctx)
}

// SecretSource describes where the signing secret comes from ("none" when the receiver is disabled).
func (w *Webhook) SecretSource() string {
	if w == nil {
		return "none"
	}
	return w.secret.describe()
}

// resolve reads the secret. Its errors name the config key (client_secret_env,
// webhook.secret_cmd…) but not the profile: the caller says which profile ("profile loja: …"),
// once.
func (s secretSource) resolve(ctx context.Context) (api.Secret, error) {
	switch s.kind {
	case sourceEnv:
		v, ok := os.LookupEnv(s.env)
		if !ok {
			return "", fmt.Errorf("environment variable %s (%s) is not set", s.env, s.field)
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return "", fmt.Errorf("environment variable %s (%s) is empty", s.env, s.field)
		}
		return api.Secret(v), nil
	case sourceCmd:
		v, err := runSecretCmd(ctx, s.cmd.Reveal())
		if err != nil {
			return "", fmt.Errorf("%s %w", s.field, err)
		}
		return v, nil
	case sourceKeyring:
		v, err := KeyringGet(KeyringService, s.keyringUser)
		switch {
		case errors.Is(err, keyring.ErrNotFound):
			return "", fmt.Errorf("%s: the OS keyring has no secret for this profile yet; store it with pixdash login --profile %s", s.field, s.keyringProfile)
		case err != nil:
			return "", fmt.Errorf("%s: %w", s.field, KeyringUnavailable{Err: err})
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return "", fmt.Errorf("%s: the OS keyring's secret for this profile is empty; store it again with pixdash login", s.field)
		}
		return api.Secret(v), nil
	case sourceFile:
		v := strings.TrimSpace(s.value.Reveal())
		if v == "" {
			return "", fmt.Errorf("%s is empty", s.field)
		}
		return api.Secret(v), nil
	}
	return "", errors.New("no secret source")
}

// runSecretCmd runs cmdline with sh -c and returns its trimmed stdout; errors never carry stdout or the command line.
func runSecretCmd(parent context.Context, cmdline string) (api.Secret, error) {
	ctx, cancel := context.WithTimeout(parent, SecretCommandTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", cmdline)
	var stdout, stderr capBuffer
	stdout.limit, stderr.limit = maxSecretStdout, maxSecretStderr
	c.Stdout, c.Stderr = &stdout, &stderr
	c.WaitDelay = time.Second // do not hang on grandchildren that keep the pipes open
	err := c.Run()
	out := strings.TrimSpace(string(stdout.buf))
	detail := stderrLine(stderr.buf, out)
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		return "", fmt.Errorf("was canceled%s", detail)
	case parent.Err() != nil:
		return "", fmt.Errorf("did not finish before the deadline%s", detail)
	case ctx.Err() != nil:
		return "", fmt.Errorf("did not finish within %s%s", SecretCommandTimeout, detail)
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		if code := exitErr.ExitCode(); code >= 0 {
			return "", fmt.Errorf("failed with exit status %d%s", code, detail)
		}
		return "", fmt.Errorf("was stopped by a signal%s", detail)
	case err != nil:
		return "", fmt.Errorf("could not run sh: %s", sanitize(err.Error(), 160))
	case stdout.over:
		return "", errors.New("printed more than 64 KiB; it must print only the secret")
	case out == "":
		return "", fmt.Errorf("printed nothing on stdout%s", detail)
	case strings.ContainsAny(out, "\r\n"):
		return "", errors.New("printed more than one line; it must print only the secret (for pass: pass show NAME | head -n 1)")
	}
	return api.Secret(out), nil
}

// stderrLine returns ": <first non-empty stderr line>", cleaned, short, and without the secret.
func stderrLine(b []byte, secret string) string {
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(secret) >= 4 {
			l = strings.ReplaceAll(l, secret, "[redacted]")
		}
		return ": " + sanitize(l, 160)
	}
	return ""
}

// capBuffer keeps at most limit bytes and notes whether more arrived.
type capBuffer struct {
	buf   []byte
	limit int
	over  bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	room := max(b.limit-len(b.buf), 0)
	if len(p) > room {
		b.over = true
		b.buf = append(b.buf, p[:room]...)
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// SecretEnvNames lists the environment variables the profile reads secrets from
// (client_secret_env, the webhook's secret_env): a command the profile runs (on_paid) must
// not see them.
func (p *Profile) SecretEnvNames() []string {
	var names []string
	if p.secret.kind == sourceEnv && p.secret.env != "" {
		names = append(names, p.secret.env)
	}
	if w := p.Webhook; w != nil && w.secret.kind == sourceEnv && w.secret.env != "" {
		names = append(names, w.secret.env)
	}
	return names
}
