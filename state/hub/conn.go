package hub

import (
	"context"
	"errors"
	"fmt"

	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pixdash/api"
)

// Link is how a pixdash reaches the hub's NATS: the URL and the credentials of its user.
type Link struct {
	// URL is one or more comma-separated server URLs: nats://host:4222, tls://host:4222.
	URL string
	// Name names the connection in the server's monitoring (the counter's name).
	Name string
	// User and Password authenticate with a user/password pair.
	User     string
	Password api.Secret
	// CredsFile is a .creds file (JWT and nkey seed) of a decentralised-auth deployment.
	CredsFile string
	// NKeyFile is a file holding a user's nkey seed (SU…).
	NKeyFile string
	// CAFile, CertFile and KeyFile configure TLS: the servers' CA, and a client certificate for
	// servers that verify clients. Any of them, or a tls:// URL, requires TLS.
	CAFile, CertFile, KeyFile string
	// InboxPrefix is the prefix of the connection's reply subjects ("_INBOX" when empty). A
	// server config that lets each user subscribe only to its own inbox names it per user.
	InboxPrefix string
}

// TLS reports whether the link requires TLS.
func (l Link) TLS() bool {
	return l.CAFile != "" || l.CertFile != "" || strings.Contains(strings.ToLower(l.URL), "tls://")
}

// authenticated reports whether the link carries credentials.
func (l Link) authenticated() bool {
	return l.User != "" || l.CredsFile != "" || l.NKeyFile != "" || l.CertFile != "" || urlHasUser(l.URL)
}

func urlHasUser(raw string) bool {
	for u := range strings.SplitSeq(raw, ",") {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil && p.User != nil {
			return true
		}
	}
	return false
}

// Check refuses a link beyond loopback without TLS and credentials.
func (l Link) Check() error {
	if strings.TrimSpace(l.URL) == "" {
		return errors.New("hub: no NATS URL")
	}
	for u := range strings.SplitSeq(l.URL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" {
			return fmt.Errorf("hub: NATS URL %q: want nats://host:port or tls://host:port", strings.TrimSpace(u))
		}
		switch p.Scheme {
		case "nats", "tls":
		default:
			return fmt.Errorf("hub: NATS URL %q: want nats:// or tls://", p.Redacted())
		}
		if !loopbackHost(p.Hostname()) && (!l.TLS() || !l.authenticated()) {
			return fmt.Errorf("%w: %s (use tls:// or a CA file, and a user, a .creds file or an nkey)", ErrUnprotected, p.Host)
		}
	}
	return nil
}

// String describes the link without its secrets.
func (l Link) String() string {
	var us []string
	for u := range strings.SplitSeq(l.URL, ",") {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil {
			us = append(us, p.Redacted())
		}
	}
	return "hub link " + strings.Join(us, ",")
}

// Dial connects to the hub's NATS; the connection reconnects for ever after a drop (buffering
// what is published meanwhile is off: a publish fails at once and its caller retries).
func (l Link) Dial(ctx context.Context, extra ...nats.Option) (*nats.Conn, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	opts := []nats.Option{
		nats.Name(cmp(l.Name, "pixdash")),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(100*time.Millisecond, time.Second),
		nats.ReconnectBufSize(-1),
		nats.RetryOnFailedConnect(false),
		nats.Timeout(5 * time.Second),
	}
	if l.User != "" {
		opts = append(opts, nats.UserInfo(l.User, l.Password.Reveal()))
	}
	if l.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(l.CredsFile))
	}
	if l.NKeyFile != "" {
		o, err := nats.NkeyOptionFromSeed(l.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("hub: nkey %s: %w", l.NKeyFile, err)
		}
		opts = append(opts, o)
	}
	if l.CAFile != "" {
		opts = append(opts, nats.RootCAs(l.CAFile))
	}
	if l.CertFile != "" || l.KeyFile != "" {
		opts = append(opts, nats.ClientCert(l.CertFile, l.KeyFile))
	}
	if l.TLS() {
		opts = append(opts, nats.Secure())
	}
	if l.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(l.InboxPrefix))
	}
	opts = append(opts, extra...)
	type result struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := nats.Connect(l.URL, opts...)
		done <- result{nc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", l, r.err)
		}
		return r.nc, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.nc != nil {
				r.nc.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// JetStream connects and opens JetStream on the connection.
func (l Link) JetStream(ctx context.Context, extra ...nats.Option) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := l.Dial(ctx, extra...)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("hub: %w", err)
	}
	return nc, js, nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
