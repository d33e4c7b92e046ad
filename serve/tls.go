package serve

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync/atomic"
	"time"
)

// CertificateFiles is a TLS certificate and its key read from files, read
// again by Reload: a renewed certificate is served to new connections
// without a restart (`bogdbench serve` reloads on SIGHUP).
type CertificateFiles struct {
	certFile, keyFile string
	current           atomic.Pointer[tls.Certificate]
}

// LoadCertificate reads a PEM certificate (chain) and its key.
func LoadCertificate(certFile, keyFile string) (*CertificateFiles, error) {
	c := &CertificateFiles{certFile: certFile, keyFile: keyFile}
	if err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the files again. When they do not hold a certificate and
// its key, the one loaded before stays in use and the error says why.
func (c *CertificateFiles) Reload() error {
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s, key %s: %w", c.certFile, c.keyFile, err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return fmt.Errorf("TLS certificate %s: %w", c.certFile, err)
		}
	}
	c.current.Store(&cert)
	return nil
}

// NotAfter is when the certificate in use expires.
func (c *CertificateFiles) NotAfter() time.Time { return c.current.Load().Leaf.NotAfter }

// TLSConfig is a configuration serving the certificate in use: what
// HTTPOptions.TLS takes.
func (c *CertificateFiles) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return c.current.Load(), nil
		},
	}
}
