package testredis

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TLS is how a NewTLS server speaks TLS: its certificate and key, and the
// CA it requires clients' certificates to be issued by.
type TLS struct {
	CertFile, KeyFile, CAFile string
}

// NewTLS is New for a server that also listens with TLS on TLSAddr and
// requires a client certificate there (--tls-auth-clients yes). Its plain
// port (Addr, loopback) stays open for Command and the start-up check. A
// redis-server built without TLS skips the test, loudly.
func NewTLS(t testing.TB, files TLS) *Server {
	t.Helper()
	skipWithout(t)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartWith(t.TempDir(), "--tls-port", strconv.Itoa(port), "--tls-cert-file", files.CertFile,
		"--tls-key-file", files.KeyFile, "--tls-ca-cert-file", files.CAFile, "--tls-auth-clients", "yes")
	if err != nil {
		if strings.Contains(err.Error(), "TLS") || strings.Contains(err.Error(), "tls-port") {
			msg := fmt.Sprintf("this redis-server cannot serve TLS (built without it?): %v", err)
			fmt.Fprintf(os.Stderr, "\n*** SKIP %s: %s ***\n\n", t.Name(), msg)
			t.Skip(msg)
		}
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	s.TLSAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return s
}

// TLSURL returns the rediss:// URL of database db on the TLS port.
func (s *Server) TLSURL(db int) string { return fmt.Sprintf("rediss://%s/%d", s.TLSAddr, db) }
