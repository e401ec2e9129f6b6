package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
)

// TLS to Redis: the tls_* keys need a rediss:// url and files that exist
// and parse (a certificate with its key); skip_verify is refused, as a key
// and in the url. Each problem names its key and never the password.
func TestValidateStoreTLS(t *testing.T) {
	certs := testredis.NewCerts(t)
	notPEM := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tlsStore := func(url string, mutate func(*Store)) Store {
		s := Store{Type: StoreRedis, URL: secret.URL(url), Prefix: "p:"}
		if mutate != nil {
			mutate(&s)
		}
		return s
	}
	const rediss, redis = "rediss://:s3cretpw@redis:6380/0", "redis://:s3cretpw@redis:6379/0"
	for _, c := range []struct {
		name  string
		store Store
		want  string // problem path ("" for none)
		msg   string
	}{
		{"rediss with the system's CAs", tlsStore(rediss, nil), "", ""},
		{"mutual TLS", tlsStore(rediss, func(s *Store) {
			s.TLSCAFile, s.TLSCertFile, s.TLSKeyFile = certs.CAFile, certs.ClientCertFile, certs.ClientKey
		}), "", ""},
		{"memory with a CA", Store{Type: StoreMemory, TLSCAFile: certs.CAFile}, "tools.mcp.gateway.store.tls_ca_file", `the store type is "memory"`},
		{"redis:// with a client certificate", tlsStore(redis, func(s *Store) { s.TLSCertFile, s.TLSKeyFile = certs.ClientCertFile, certs.ClientKey }),
			"tools.mcp.gateway.store.tls_cert_file", "write the url as rediss://"},
		{"a certificate without its key", tlsStore(rediss, func(s *Store) { s.TLSCertFile = certs.ClientCertFile }),
			"tools.mcp.gateway.store.tls_key_file", "is required with tls_cert_file"},
		{"a key without its certificate", tlsStore(rediss, func(s *Store) { s.TLSKeyFile = certs.ClientKey }),
			"tools.mcp.gateway.store.tls_cert_file", "is required with tls_key_file"},
		{"a CA file that is not there", tlsStore(rediss, func(s *Store) { s.TLSCAFile = certs.CAFile + ".gone" }),
			"tools.mcp.gateway.store.tls_ca_file", "cannot be read"},
		{"a CA file that is not PEM", tlsStore(rediss, func(s *Store) { s.TLSCAFile = notPEM }),
			"tools.mcp.gateway.store.tls_ca_file", "holds no PEM certificate"},
		{"a key that is not the certificate's", tlsStore(rediss, func(s *Store) { s.TLSCertFile, s.TLSKeyFile = certs.ClientCertFile, certs.ServerKey }),
			"tools.mcp.gateway.store.tls_cert_file", "are not a certificate and its private key"},
		{"skip_verify", tlsStore(rediss, func(s *Store) { s.SkipVerify = true }), "tools.mcp.gateway.store.skip_verify", "is refused"},
		{"skip_verify in the url", tlsStore(rediss+"?skip_verify=true", nil), "tools.mcp.gateway.store.url", "plughost refuses skip_verify"},
	} {
		t.Run(c.name, func(t *testing.T) { wantStoreProblem(t, c.store, c.want, c.msg) })
	}
}

// The tls_* paths may start with ~, like every path in the config.
func TestStoreTLSPathsExpandHome(t *testing.T) {
	dir := t.TempDir()
	l, err := Load(LoadOptions{UserFile: filepath.Join(dir, "c.json"), SystemDir: filepath.Join(dir, "none"), Home: dir,
		UserData: []byte(`{"tools":{"mcp":{"gateway":{"store":{"type":"redis","url":"rediss://redis:6380/0",` +
			`"tls_ca_file":"~/ca.pem","tls_cert_file":"~/c.pem","tls_key_file":"~/k.pem"}}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	s := l.Config.MCP.Gateway.Store
	if s.TLSCAFile != filepath.Join(dir, "ca.pem") || s.TLSCertFile != filepath.Join(dir, "c.pem") || s.TLSKeyFile != filepath.Join(dir, "k.pem") {
		t.Errorf("tls paths: %q %q %q, want them under %s", s.TLSCAFile, s.TLSCertFile, s.TLSKeyFile, dir)
	}
}
