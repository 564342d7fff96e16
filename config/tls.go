package config

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxPEMFile bounds webhook.tls_cert and webhook.tls_key; real ones are a few KiB.
const maxPEMFile = 1 << 20

// checkKeyPair checks webhook.tls_cert and webhook.tls_key: both or neither, each a readable
// PEM file, and together a certificate with its private key. It returns the message for each
// key ("" when it is fine); a mismatch is reported on tls_key.
func checkKeyPair(certFile, keyFile string) (certMsg, keyMsg string) {
	switch {
	case certFile == "" && keyFile == "":
		return "", ""
	case keyFile == "":
		return "needs tls_key too (the certificate's private key): set both or neither", ""
	case certFile == "":
		return "", "needs tls_cert too (the certificate for this key): set both or neither"
	}
	certPEM, certMsg := readPEMFile(certFile)
	keyPEM, keyMsg := readPEMFile(keyFile)
	if certMsg != "" || keyMsg != "" {
		return certMsg, keyMsg
	}
	if !hasPEMBlock(certPEM, "CERTIFICATE") {
		return fmt.Sprintf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", certFile), ""
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		// The crypto/tls messages name no key material.
		return "", fmt.Sprintf("%s does not load as the private key of %s: %v", keyFile, certFile, err)
	}
	return "", ""
}

// readPEMFile reads a regular file of at most maxPEMFile bytes.
func readPEMFile(path string) ([]byte, string) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Sprintf("%s is not a regular file", path)
	}
	if fi.Size() > maxPEMFile {
		return nil, fmt.Sprintf("%s is larger than 1 MiB; is it a PEM file?", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPEMFile+1))
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", path, unwrapPath(err))
	}
	if len(data) > maxPEMFile {
		return nil, fmt.Sprintf("%s is larger than 1 MiB; is it a PEM file?", path)
	}
	return data, ""
}

// hasPEMBlock reports whether data holds a PEM block of the given type.
func hasPEMBlock(data []byte, typ string) bool {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return false
		}
		if b.Type == typ {
			return true
		}
	}
}

// unwrapPath drops the path an *os.PathError repeats, leaving its reason.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
