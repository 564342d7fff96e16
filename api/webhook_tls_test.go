package api

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pixdash/api/apitest"
)

// TestReceiverStartTLS: a signed delivery over HTTPS lands; TLS below 1.2 and plain HTTP do not.
func TestReceiverStartTLS(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	certFile, keyFile, cert := apitest.SelfSigned(t, t.TempDir())
	r := NewReceiver(testWebhookSecret, WithMaxConns(4))
	url, err := r.StartTLS(ctx, "127.0.0.1:0", certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^https://127\.0\.0\.1:[1-9][0-9]*/webhook$`).MatchString(url) {
		t.Fatalf("url = %q", url)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client := func(maxVersion uint16) *http.Client {
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: maxVersion},
		}}
	}
	post := func(c *http.Client, url, id string) (*http.Response, error) {
		body := webhookBody(id)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set(PagueSignatureHeader, Sign(body, testWebhookSecret))
		return c.Do(req)
	}

	// Quiet TCP connections that never start a handshake fill the cap; they are evicted.
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "https://"), WebhookPath)
	for range 8 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}

	resp, err := post(client(0), url, "evt-tls")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTPS delivery: status %d", resp.StatusCode)
	}
	if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
		t.Errorf("connection state %+v, want TLS 1.2 or later", resp.TLS)
	}
	if ev := takeEvent(r); ev == nil || ev.EventID != "evt-tls" {
		t.Fatalf("event = %+v, want evt-tls", ev)
	}

	if resp, err := post(client(tls.VersionTLS11), url, "evt-tls11"); err == nil {
		resp.Body.Close()
		t.Errorf("a TLS 1.1 client was served: status %d", resp.StatusCode)
	}
	if resp, err := post(client(0), "http://"+addr+WebhookPath, "evt-plain"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the HTTPS receiver answered 200")
		}
	}
	if ev := takeEvent(r); ev != nil {
		t.Errorf("a refused delivery reached the sink: %+v", ev)
	}
	if s := r.Stats(); s.Evicted == 0 {
		t.Errorf("stats %+v: the quiet connections were not evicted", s)
	}
}

func TestReceiverStartTLSRefusesBadPair(t *testing.T) {
	dir := t.TempDir()
	certFile, _, _ := apitest.SelfSigned(t, dir)
	_, otherKey, _ := apitest.SelfSigned(t, t.TempDir())
	r := NewReceiver(testWebhookSecret)
	if _, err := r.StartTLS(t.Context(), "127.0.0.1:0", certFile, otherKey); err == nil {
		t.Errorf("StartTLS accepted a key that does not match the certificate")
	}
	if _, err := r.StartTLS(t.Context(), "127.0.0.1:0", filepath.Join(dir, "missing.pem"), otherKey); err == nil {
		t.Errorf("StartTLS accepted a missing certificate")
	}
	if err := r.ServeTLS(t.Context(), nil, nil); err == nil {
		t.Errorf("ServeTLS without a configuration succeeded")
	}
}
