package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pixdash/api/atomicfile"
)

// Example is a commented configuration showing every key; it parses with Parse.
const Example = `# pixdash configuration.
# Location: $XDG_CONFIG_HOME/pixdash/config.toml (default ~/.config/pixdash/config.toml),
# or the file given by --config FILE or $PIXDASH_CONFIG.
# Secrets are never taken from command-line flags.

# Profile used when neither --profile nor $PIXDASH_PROFILE names one.
# With a single profile it is picked anyway.
default_profile = "sandbox"

# Language of the dashboard: "en" or "pt-BR". Unset, the environment decides:
# the first of LC_ALL, LC_MESSAGES and LANG that is set (pt_BR.UTF-8 gives
# "pt-BR"; anything else, C and POSIX included, gives "en").
# language = "pt-BR"

# Language of the screens shown to the customer (QR code, payment result):
# "en" or "pt-BR". Default "pt-BR".
customer_language = "pt-BR"

# One [profiles.NAME] section per account and credential.
# NAME: 1 to 32 letters, digits, '-' or '_'.
[profiles.sandbox]
# Base address of the service; its last path segment is the API version, v2.
# https is required; plain http is accepted only for loopback hosts, e.g. the
# local emulator started by "pixdash sandbox": "http://127.0.0.1:8080/v2".
base_url = "https://api.example.com/v2"

# API credential from the merchant dashboard. The prefix sets the environment:
# mp_test_ is sandbox, mp_live_ is production.
client_id = "mp_test_REPLACE_ME"

# Optional; when given it must agree with the client_id prefix.
environment = "sandbox"

# The client secret: exactly one of
#   client_secret_env = "NAME"     read from that environment variable
#   client_secret_cmd = "COMMAND"  run with sh -c; its output (trimmed, one line) is the secret
#   client_secret_keyring = true   the OS keyring, where "pixdash login --profile NAME" stores it
#   client_secret     = "..."      in this file, which must then be private: chmod 600 <this file>
client_secret_env = "PIXDASH_SANDBOX_SECRET"

# Optional: run every operation inside this sub-account (its reference), or "principal".
sub_account = "loja-centro"

# Optional: the PIX fee of the account in reais, at most 2 decimals, used to
# preview split ceilings before the service reports the real fee.
pix_fee = "0.99"

# Optional: the description a new charge starts with (the service requires one).
# Up to 255 characters, not blank. Default "Venda".
default_description = "Venda"

# Optional: true makes pixdash refuse to create charges and sub-accounts (it
# says so when you try); nothing is hidden: every view and the webhook receiver
# work as usual. Default false.
read_only = false

# Optional: webhook events older than this many days are removed from this
# profile's local history when the dashboard opens it (charges are always
# kept). Default 0: keep every event. Prune by date any time with
# pixdash events prune --before 2025-01-01 --profile sandbox
event_retention_days = 0

# Optional: the dialect of the dashboard's export key (E on the charges view),
# which writes to $XDG_DATA_HOME/pixdash/exports: "br" (default; semicolons,
# decimal comma, UTF-8 BOM: opens as is in Excel and LibreOffice in Portuguese)
# or "csv" (RFC 4180: commas, decimal point, ISO dates).
# export_format = "br"

# Optional: a command run once for each payment the service confirms, e.g. to
# print a receipt or open a cash drawer. An array: the program, then its
# arguments; no shell is used. It gets the charge in its environment
# (PIXDASH_CHARGE_ID, PIXDASH_AMOUNT_CENTS, PIXDASH_AMOUNT, PIXDASH_DESCRIPTION,
# PIXDASH_EXTERNAL_REFERENCE, PIXDASH_WALLET, PIXDASH_PAYER_NAME, PIXDASH_E2E_ID,
# PIXDASH_PAID_AT, PIXDASH_PROFILE), an empty stdin, and is killed after
# on_paid_timeout_seconds (default 30). Its failures show on the status line.
# on_paid = ["lp", "-d", "balcao", "/home/loja/recibo.txt"]
# on_paid_timeout_seconds = 30

# Optional: a command the day's close (fechamento de caixa) is printed with,
# e.g. a receipt printer: pixdash close --print, or the dashboard's close
# screen. An array: the program, then its arguments; no shell is used. The
# report, plain text, goes to its stdin; its environment holds only PATH, HOME,
# LANG and TZ (no secrets), and it is killed after 30 seconds.
# print_command = ["lp", "-d", "recibos"]   # the day's close is sent to its stdin

# Optional: a counter of a shop with several (README › Several counters). The
# shop's hub (pixdash hub) receives the service's webhooks and hands them to
# every counter through NATS JetStream; this profile then needs no webhook
# section (the signing secret lives only on the hub). Each event is committed
# here before it is acknowledged, and read back from the service before
# anything counts. Beyond loopback, TLS and credentials are required.
# hub = "nats://127.0.0.1:4222"
# hub_counter = "caixa-1"           # unique per counter; default: the profile's name
# hub_wallets = ["principal"]       # default: sub_account; ["*"]: every wallet (the owner)
# hub_user = "caixa1"               # user and password, or a .creds file, or an nkey
# hub_password_env = "PIXDASH_HUB_PASSWORD"
# hub_creds = "/etc/pixdash/caixa1.creds"
# hub_nkey = "/etc/pixdash/caixa1.nk"
# hub_tls_ca = "/etc/pixdash/hub-ca.pem"
# hub_tls_cert = "/etc/pixdash/caixa1.pem"   # client certificate, when the hub asks for one
# hub_tls_key = "/etc/pixdash/caixa1-key.pem"
# hub_inbox = "_INBOX_caixa1"       # when the server gives each user its own inbox

# Optional: local receiver for the service's signed webhooks.
[profiles.sandbox.webhook]
# host:port to listen on. Default "127.0.0.1:0" (loopback, any free port).
# A non-loopback address exposes the receiver to your network: deliveries carry
# payers' CPF/CNPJ, so serve HTTPS with tls_cert and tls_key, or keep listen on
# 127.0.0.1 behind a TLS reverse proxy (pixdash config check warns otherwise).
listen = "127.0.0.1:8085"
# Optional: serve HTTPS with this PEM certificate chain and its private key
# (both or neither; a relative path is read from this file's directory).
# tls_cert = "/etc/pixdash/webhook-cert.pem"
# tls_key = "/etc/pixdash/webhook-key.pem"
# The endpoint's signing secret: secret_env = "NAME" or secret_cmd = "COMMAND", or
# secret_keyring = true (the OS keyring, where "pixdash login" stores it).
# Without one the receiver is disabled.
secret_env = "PIXDASH_SANDBOX_WEBHOOK_SECRET"
# Optional: a header to read the signature from before the service's own
# (X-Pague-Signature, then X-Service-Signature). An HTTP header name.
signature_header = "X-Pague-Signature"
# Optional: how far a delivery's X-Pague-Timestamp may be from this computer's
# clock before it is refused as stale: "300s", "5m" or whole seconds, 1s to 24h.
# Default "300s".
tolerance = "300s"

[profiles.live]
base_url = "https://api.example.com/v2"
client_id = "mp_live_REPLACE_ME"
environment = "production"
# The secret comes from a password manager (one line on stdout).
client_secret_cmd = "pass show pixdash/live"
pix_fee = 0.99
default_description = "Venda no balcão"
read_only = true

[profiles.live.webhook]
listen = "127.0.0.1:8086"
secret_cmd = "pass show pixdash/live-webhook"
`

// existsError is WriteExample's refusal to overwrite a file: it matches fs.ErrExist, and says
// so once ("… already exists; not overwriting it"), not twice.
type existsError struct{ path string }

func (e *existsError) Error() string        { return e.path + " already exists; not overwriting it" }
func (e *existsError) Is(target error) bool { return target == fs.ErrExist }

// exampleLanguageLine is the Example's commented-out language line, which ExampleFor replaces.
const exampleLanguageLine = "# language = \"pt-BR\"\n"

// ExampleFor is Example with an active `language = "LANG"` line when lang is given ("en" or
// "pt-BR" in any spelling ParseLanguage reads); with lang "" it is Example unchanged, whose
// language line is commented out so that the environment decides.
func ExampleFor(lang string) (string, error) {
	if lang == "" {
		return Example, nil
	}
	l, ok := ParseLanguage(lang)
	if !ok {
		return "", fmt.Errorf("config: language %q is not supported; use %q or %q", truncate(lang, 20), LangEnglish, LangPortuguese)
	}
	return strings.Replace(Example, exampleLanguageLine, fmt.Sprintf("language = %q\n", l), 1), nil
}

// WriteExample writes ExampleFor(lang) to path with mode 0600, creating parent directories
// (0700); it never overwrites.
func WriteExample(path, lang string) error {
	text, err := ExampleFor(lang)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return &existsError{path: path}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	// api/atomicfile, the one atomic writer: never over a file created meanwhile.
	err = atomicfile.Create(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
	switch {
	case errors.Is(err, fs.ErrExist):
		return &existsError{path: path}
	case err != nil:
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
