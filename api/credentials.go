package api

import (
	"fmt"
	"log/slog"
	"strings"
)

// Secret holds a credential (client secret, token, signing secret) that must never be shown.
type Secret string

const redacted = "[redacted]"

// String hides the secret.
func (Secret) String() string { return redacted }

// GoString hides the secret from %#v.
func (Secret) GoString() string { return redacted }

// Format hides the secret from every fmt verb.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// LogValue hides the secret from log/slog.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalText hides the secret from encoders (JSON, TOML) so it is never persisted by accident.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Reveal returns the secret's value, for the one place that must send it.
func (s Secret) Reveal() string { return string(s) }

// Environment is the service environment a credential belongs to.
type Environment string

// The two environments; credential prefixes tell them apart.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// Credential prefixes per environment.
const (
	LivePrefix = "mp_live_"
	TestPrefix = "mp_test_"
)

// EnvironmentOf derives the environment from a client_id prefix.
func EnvironmentOf(clientID string) (Environment, error) {
	switch {
	case strings.HasPrefix(clientID, LivePrefix) && len(clientID) > len(LivePrefix):
		return Production, nil
	case strings.HasPrefix(clientID, TestPrefix) && len(clientID) > len(TestPrefix):
		return Sandbox, nil
	}
	return "", fmt.Errorf("client_id %q must start with %s (production) or %s (sandbox)", truncate(clientID, 40), LivePrefix, TestPrefix)
}
