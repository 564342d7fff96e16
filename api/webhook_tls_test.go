package api

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// selfSignedPair writes a self-signed certificate for 127.0.0.1 and its key (PEM) under dir
// and returns their paths and the certificate.
func selfSignedPair(t *testing.T, dir string) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "pixdash test receiver"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// TestReceiverStartTLS: a signed delivery over HTTPS lands; TLS below 1.2 and plain HTTP do not.
func TestReceiverStartTLS(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	certFile, keyFile, cert := selfSignedPair(t, t.TempDir())
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
	certFile, _, _ := selfSignedPair(t, dir)
	_, otherKey, _ := selfSignedPair(t, t.TempDir())
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
