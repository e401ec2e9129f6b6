package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/redisstore"
)

// Against a redis-server that speaks TLS on loopback and requires client
// certificates: with plughost's certificate and the right CA the store
// works (over TLS, with a password); without a client certificate it
// fails saying what to give; with a CA that did not issue Redis's
// certificate it fails naming verification. The password never shows.
func TestTLS(t *testing.T) {
	certs := testredis.NewCerts(t)
	srv := testredis.NewTLS(t, certs.Server())
	if reply, err := srv.Command("ACL", "SETUSER", "plughost", "on", ">hunter2secret", "~*", "&*", "+@all"); err != nil || reply != "+OK" {
		t.Fatalf("ACL SETUSER: %q %v", reply, err)
	}
	url := strings.Replace(srv.TLSURL(0), "rediss://", "rediss://plughost:hunter2secret@", 1)
	openTLS := func(o redisstore.Options) *redisstore.Store {
		t.Helper()
		o.URL, o.Prefix, o.IdleTimeout = secret.URL(url), "tls:", time.Minute
		s, err := redisstore.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	ctx := context.Background()

	s := openTLS(redisstore.Options{TLSCAFile: certs.CAFile, TLSCertFile: certs.ClientCertFile, TLSKeyFile: certs.ClientKey})
	if _, err := s.Check(ctx); err != nil {
		t.Fatalf("Check over mutual TLS: %v", err)
	}
	if err := s.Create(ctx, "a", host.SessionRecord{Listed: 7}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Load(ctx, "a"); err != nil || st.Listed != 7 {
		t.Errorf("Load over TLS: %+v %v", st, err)
	}

	for _, c := range []struct {
		name string
		opts redisstore.Options
		want []string
	}{
		{"no client certificate", redisstore.Options{TLSCAFile: certs.CAFile},
			[]string{"Redis asked for a client certificate and plughost has none", "tools.mcp.gateway.store.tls_cert_file and tls_key_file"}},
		{"a CA that did not issue Redis's certificate", redisstore.Options{TLSCAFile: certs.OtherCAFile, TLSCertFile: certs.ClientCertFile, TLSKeyFile: certs.ClientKey},
			[]string{"x509: certificate signed by unknown authority", "failed verification", "tools.mcp.gateway.store.tls_ca_file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := openTLS(c.opts).Check(ctx)
			if !errors.Is(err, host.ErrStoreUnavailable) || !strings.Contains(err.Error(), "redis at rediss://plughost:****@127.0.0.1:") ||
				strings.Contains(err.Error(), "hunter2secret") {
				t.Errorf("Check: %v, want ErrStoreUnavailable naming the store, password masked", err)
			}
			for _, want := range c.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Check: %v, want it to say %q", err, want)
				}
			}
		})
	}
}

// Open refuses TLS keys it cannot use, naming the key.
func TestTLSOpenRefuses(t *testing.T) {
	certs := testredis.NewCerts(t)
	for _, c := range []struct {
		name string
		o    redisstore.Options
		want string
	}{
		{"tls keys with redis://", redisstore.Options{URL: "redis://:pw-secret-1@127.0.0.1:1/0", TLSCAFile: certs.CAFile}, "tools.mcp.gateway.store.tls_ca_file: is set but tools.mcp.gateway.store.url does not use TLS"},
		{"a CA file that is not there", redisstore.Options{URL: "rediss://:pw-secret-1@127.0.0.1:1/0", TLSCAFile: certs.CAFile + ".missing"}, "tools.mcp.gateway.store.tls_ca_file: cannot be read"},
		{"a certificate without its key", redisstore.Options{URL: "rediss://:pw-secret-1@127.0.0.1:1/0", TLSCertFile: certs.ClientCertFile}, "tools.mcp.gateway.store.tls_key_file: is required with tls_cert_file"},
		{"skip_verify in the url", redisstore.Options{URL: "rediss://:pw-secret-1@127.0.0.1:1/0?skip_verify=true"}, "plughost refuses skip_verify"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := redisstore.Open(c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw-secret-1") {
				t.Errorf("Open: %v, want %q, password masked", err, c.want)
			}
		})
	}
}
