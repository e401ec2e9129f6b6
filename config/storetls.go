package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
)

// TLS to Redis: a rediss:// URL connects with TLS, verifying Redis's
// certificate against the system's CAs or tls_ca_file; tls_cert_file and
// tls_key_file add a client certificate for a Redis that requires one
// (tls-auth-clients). Verification cannot be turned off (skip_verify, as a
// key or in the URL's query, is refused): the URL carries Redis's
// password, and a private CA is one file away.

// storeTLSProblem is what is wrong with the store's TLS keys: the key
// (under tools.mcp.gateway.store) and the message.
type storeTLSProblem struct{ key, msg string }

// tlsKeys lists the TLS keys that are set.
func (s Store) tlsKeys() []string {
	var keys []string
	for _, k := range []struct {
		name string
		set  bool
	}{{"tls_ca_file", s.TLSCAFile != ""}, {"tls_cert_file", s.TLSCertFile != ""}, {"tls_key_file", s.TLSKeyFile != ""}, {"skip_verify", s.SkipVerify}} {
		if k.set {
			keys = append(keys, k.name)
		}
	}
	return keys
}

// TLSConfig returns the TLS settings of a Redis store: nil for a redis://
// URL, else the CAs that verify Redis (tls_ca_file; the system's when it
// is empty) and the client certificate (tls_cert_file, tls_key_file). It
// reads the files; an error names the key and what would fix it. The
// caller sets ServerName (the URL's host).
func (s Store) TLSConfig() (*tls.Config, error) {
	tc, prob := s.tlsConfig()
	if prob != nil {
		return nil, fmt.Errorf("tools.mcp.gateway.store.%s: %s", prob.key, prob.msg)
	}
	return tc, nil
}

func (s Store) tlsConfig() (*tls.Config, *storeTLSProblem) {
	if s.SkipVerify {
		return nil, &storeTLSProblem{"skip_verify", "is refused: without verifying Redis's certificate anyone on the path can pose as Redis " +
			"and read its password and every session; remove it and give the CA that signs Redis's certificate in tools.mcp.gateway.store.tls_ca_file"}
	}
	u, err := url.Parse(s.URL.Reveal())
	if err != nil || u.Scheme != "rediss" {
		if keys := s.tlsKeys(); len(keys) > 0 {
			return nil, &storeTLSProblem{keys[0], "is set but tools.mcp.gateway.store.url does not use TLS (redis://); " +
				"write the url as rediss://… to reach Redis over TLS, or remove " + keys[0]}
		}
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.TLSCAFile != "" {
		pem, err := os.ReadFile(s.TLSCAFile)
		if err != nil {
			return nil, &storeTLSProblem{"tls_ca_file", fmt.Sprintf("cannot be read (%v); give the PEM file of the CA that signs Redis's certificate", err)}
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &storeTLSProblem{"tls_ca_file", fmt.Sprintf("%s holds no PEM certificate; give the PEM file of the CA that signs Redis's certificate", s.TLSCAFile)}
		}
	}
	if (s.TLSCertFile == "") != (s.TLSKeyFile == "") {
		missing, given := "tls_key_file", "tls_cert_file"
		if s.TLSCertFile == "" {
			missing, given = given, missing
		}
		return nil, &storeTLSProblem{missing, fmt.Sprintf("is required with %s: a client certificate needs its key (both PEM files), or remove %s", given, given)}
	}
	if s.TLSCertFile != "" {
		cert, prob := loadKeyPair(s.TLSCertFile, s.TLSKeyFile)
		if prob != nil {
			return nil, prob
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// loadKeyPair reads a client certificate and its key, each problem named
// by its key. A message never holds the key file's content.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, *storeTLSProblem) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, &storeTLSProblem{"tls_cert_file", fmt.Sprintf("cannot be read (%v); give the PEM file of plughost's client certificate", err)}
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, &storeTLSProblem{"tls_key_file", fmt.Sprintf("cannot be read (%v); give the PEM file of the client certificate's private key", err)}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, &storeTLSProblem{"tls_cert_file", fmt.Sprintf("%s and tls_key_file %s are not a certificate and its private key in PEM (%v); "+
			"give the client certificate and the key it was issued for", certFile, keyFile, err)}
	}
	return cert, nil
}
