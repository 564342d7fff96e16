package api

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
)

// WebhookTLSConfig loads a PEM certificate chain and its private key (a profile's
// webhook.tls_cert and webhook.tls_key) into the receiver's TLS settings: TLS 1.2 at least,
// HTTP/1.1 only (a delivery is one small POST).
func WebhookTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: TLS certificate: %w", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{pair},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"},
	}, nil
}

// ServeTLS is Serve over HTTPS with cfg (see WebhookTLSConfig), with the same connection cap,
// timeouts and error log. A cfg allowing versions below TLS 1.2 is raised to TLS 1.2.
func (r *Receiver) ServeTLS(ctx context.Context, ln net.Listener, cfg *tls.Config) error {
	if cfg == nil {
		return fmt.Errorf("webhook receiver: ServeTLS needs a TLS configuration")
	}
	cfg = cfg.Clone()
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	return r.serve(ctx, ln, cfg)
}

// StartTLS is Start over HTTPS: it loads the PEM certificate chain and key in certFile and
// keyFile, listens on addr, serves in the background until ctx is done and returns the webhook
// URL, e.g. "https://192.0.2.7:8787/webhook".
func (r *Receiver) StartTLS(ctx context.Context, addr, certFile, keyFile string) (string, error) {
	cfg, err := WebhookTLSConfig(certFile, keyFile)
	if err != nil {
		return "", err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("webhook receiver: %w", err)
	}
	go func() { _ = r.ServeTLS(ctx, ln, cfg) }()
	return "https://" + ln.Addr().String() + WebhookPath, nil
}
