package redisstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/redis/go-redis/v9"

	"github.com/plughost/plughost/config"
)

// useTLS sets up TLS for a rediss:// URL (ro.TLSConfig, set by
// redis.ParseURL): the CAs and client certificate of the tls_* keys, and a
// dialer whose failures say what to fix. A redis:// URL is left alone
// (config refuses tls_* keys with it).
func useTLS(ro *redis.Options, o Options) error {
	tc, err := config.Store{URL: o.URL, TLSCAFile: o.TLSCAFile, TLSCertFile: o.TLSCertFile, TLSKeyFile: o.TLSKeyFile}.TLSConfig()
	if err != nil || tc == nil || ro.TLSConfig == nil {
		return err
	}
	tc.ServerName = ro.TLSConfig.ServerName
	ro.TLSConfig = tc
	ro.Dialer = tlsDialer(ro)
	return nil
}

// tlsDialer dials Redis with TLS as go-redis would, explaining a failed
// handshake (explainTLS).
func tlsDialer(ro *redis.Options) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: ro.DialTimeout}, Config: ro.TLSConfig}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, explainTLS(err)
		}
		return explainedConn{conn.(*tls.Conn)}, nil
	}
}

// explainedConn is a TLS connection whose errors are explained: with TLS
// 1.3 a server refusing the client's certificate says so only after the
// handshake, on the first read (and every write after it fails alike).
type explainedConn struct{ *tls.Conn }

func (c explainedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		err = explainTLS(err)
	}
	return n, err
}

func (c explainedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		err = explainTLS(err)
	}
	return n, err
}

// explainTLS adds to a TLS failure what would fix it: a certificate of
// Redis's that did not verify, or a handshake Redis refused (an alert it
// sent: most often, a client certificate it requires or rejects). Other
// errors are returned as they are.
func explainTLS(err error) error {
	var unverified *tls.CertificateVerificationError
	if errors.As(err, &unverified) {
		return &tlsFailure{err, "Redis's TLS certificate failed verification; give the CA that signs it in " +
			"tools.mcp.gateway.store.tls_ca_file, and name Redis in the url by a host name the certificate holds"}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return &tlsFailure{err, "Redis refused the TLS connection; if it requires client certificates (tls-auth-clients), " +
			"give plughost's in tools.mcp.gateway.store.tls_cert_file and tls_key_file, issued by a CA Redis trusts"}
	}
	return err
}

// tlsFailure is a TLS failure and what would fix it. It does not unwrap:
// go-redis hands on the error of a new connection's set-up with one layer
// peeled off, which would drop the hint. Nothing decides by its cause.
type tlsFailure struct {
	err  error
	hint string
}

func (e *tlsFailure) Error() string { return fmt.Sprintf("%v: %s", e.err, e.hint) }
