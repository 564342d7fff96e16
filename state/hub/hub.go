// Package hub carries a profile's webhook events from the one pixdash that receives them (the
// hub) to every counter of the shop over NATS JetStream, and the charges each counter creates
// to the others.
//
// Subjects are pix.<environment>.<wallet>.<kind> (Subject); each environment has its own stream
// (StreamName), so sandbox and production never share a stream or a subject space. The hub
// publishes an event with its eventId as the JetStream message id (Nats-Msg-Id): a redelivery
// the service makes within the stream's duplicate window (Limits.DuplicateWindow) is dropped by
// the server, and one made later is dropped by each counter's store, which records an eventId
// once. A counter is a durable pull consumer (Counter): it commits each event to its store
// through the same intake as a webhook receiver, and acknowledges it only then.
//
// The package imports no terminal library: the dashboard, the command line and the hub command
// all drive it.
package hub

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
)

// KindChargeCreated is the subject kind of a charge a counter created (a ChargeNote).
const KindChargeCreated = "charge_created"

// Default stream limits (see Limits).
const (
	DefaultMaxAge          = 7 * 24 * time.Hour
	DefaultMaxBytes        = 1 << 30 // 1 GiB: about a million events
	DefaultDuplicateWindow = 24 * time.Hour
)

// Limits bound a stream. Zero fields take the defaults above.
type Limits struct {
	// MaxAge is how long a message is kept: a counter away for longer misses the events before
	// (its pending charges are still read back by polling).
	MaxAge time.Duration
	// MaxBytes is the most the stream keeps on disk; the oldest messages go first.
	MaxBytes int64
	// DuplicateWindow is how long the server remembers a message id: a copy published within it
	// is acknowledged as a duplicate and not stored. It is at most MaxAge. Copies published
	// after it reach the counters, whose stores record an eventId once.
	DuplicateWindow time.Duration
	// Replicas is how many servers of a JetStream cluster keep the stream (1 when 0; 3 for a
	// cluster that survives losing a server).
	Replicas int
}

func (l Limits) withDefaults() Limits {
	if l.MaxAge <= 0 {
		l.MaxAge = DefaultMaxAge
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.DuplicateWindow <= 0 {
		l.DuplicateWindow = DefaultDuplicateWindow
	}
	l.DuplicateWindow = min(l.DuplicateWindow, l.MaxAge)
	l.Replicas = max(l.Replicas, 1)
	return l
}

// checkEnv refuses an environment other than sandbox and production: it names a stream and a
// subject space.
func checkEnv(env api.Environment) error {
	if env != api.Sandbox && env != api.Production {
		return fmt.Errorf("hub: unknown environment %q (sandbox or production)", env)
	}
	return nil
}

// StreamName is the stream of an environment's subjects: PIX_SANDBOX or PIX_PRODUCTION.
func StreamName(env api.Environment) string { return "PIX_" + strings.ToUpper(string(env)) }

// Subject is the subject of an event or announcement: pix.<env>.<wallet>.<kind>, each token
// escaped by Token ("" and "principal" are the main account).
func Subject(env api.Environment, wallet, kind string) string {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	return "pix." + Token(string(env)) + "." + Token(wallet) + "." + Token(kind)
}

// WalletFilter is the subject filter of every kind of one wallet's messages.
func WalletFilter(env api.Environment, wallet string) string {
	if wallet == "" {
		wallet = api.WalletPrincipal
	}
	return "pix." + Token(string(env)) + "." + Token(wallet) + ".>"
}

// EnvFilter is the subject filter of every message of an environment.
func EnvFilter(env api.Environment) string { return "pix." + Token(string(env)) + ".>" }

// Token escapes s into one subject token: letters, digits, '-' and '_' stay, every other byte
// (the separators '.', '*', '>', spaces, '%') becomes %XX, so two wallets never share a token.
// An empty s becomes "%00".
func Token(s string) string {
	if s == "" {
		return "%00"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// StreamConfig is the stream of env's messages: file storage, the limits l, the oldest dropped
// first when full.
func StreamConfig(env api.Environment, l Limits) jetstream.StreamConfig {
	l = l.withDefaults()
	return jetstream.StreamConfig{
		Name:        StreamName(env),
		Description: "pixdash: the " + string(env) + " webhook events and charge announcements of one profile",
		Subjects:    []string{EnvFilter(env)},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardOld,
		MaxAge:      l.MaxAge,
		MaxBytes:    l.MaxBytes,
		Duplicates:  l.DuplicateWindow,
		MaxMsgSize:  MaxMessageBytes,
		Replicas:    l.Replicas,
	}
}

// MaxMessageBytes is the largest message a stream takes (a webhook body is far smaller).
const MaxMessageBytes = 256 << 10

// EnsureStream creates env's stream, or updates its limits to l when it exists.
func EnsureStream(ctx context.Context, js jetstream.JetStream, env api.Environment, l Limits) error {
	if err := checkEnv(env); err != nil {
		return err
	}
	if _, err := js.CreateOrUpdateStream(ctx, StreamConfig(env, l)); err != nil {
		return fmt.Errorf("hub: stream %s: %w", StreamName(env), err)
	}
	return nil
}
