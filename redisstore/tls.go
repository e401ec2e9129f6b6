package redisstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"

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
	netDialer := &net.Dialer{Timeout: ro.DialTimeout}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		cfg, asked := ro.TLSConfig, new(atomic.Bool)
		if len(cfg.Certificates) == 0 {
			cfg = cfg.Clone()
			cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				asked.Store(true)
				return &tls.Certificate{}, nil // none to give: the handshake goes on without
			}
		}
		conn, err := (&tls.Dialer{NetDialer: netDialer, Config: cfg}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, explainTLS(err, asked.Load())
		}
		return &explainedConn{Conn: conn.(*tls.Conn), certAsked: asked}, nil
	}
}

// explainedConn is a TLS connection whose errors are explained: with TLS
// 1.3 a server refusing the client's certificate says so only after the
// handshake, on the first read (or, when its alert is lost to the closed
// connection, as a reset).
type explainedConn struct {
	*tls.Conn
	// certAsked: Redis asked for a client certificate and there was none,
	// and nothing was read since (once Redis answers, it took the
	// connection without one).
	certAsked *atomic.Bool
}

func (c *explainedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.certAsked.Store(false)
	}
	if err != nil {
		err = explainTLS(err, c.certAsked.Load())
	}
	return n, err
}

func (c *explainedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		err = explainTLS(err, c.certAsked.Load())
	}
	return n, err
}

// explainTLS adds to a TLS failure what would fix it: a certificate of
// Redis's that did not verify; a connection Redis ended after asking for a
// client certificate that plughost does not have (certAsked); a handshake
// Redis refused (an alert it sent: most often, a client certificate it
// rejects). Other errors are returned as they are.
func explainTLS(err error, certAsked bool) error {
	var unverified *tls.CertificateVerificationError
	var op *net.OpError
	switch {
	case errors.As(err, &unverified):
		return &tlsFailure{err, "Redis's TLS certificate failed verification; give the CA that signs it in " +
			"tools.mcp.gateway.store.tls_ca_file, and name Redis in the url by a host name the certificate holds"}
	case certAsked && !errors.Is(err, os.ErrDeadlineExceeded):
		return &tlsFailure{err, "Redis asked for a client certificate and plughost has none; if Redis requires one (tls-auth-clients), " +
			"give plughost's in tools.mcp.gateway.store.tls_cert_file and tls_key_file, issued by a CA Redis trusts"}
	case errors.As(err, &op) && op.Op == "remote error":
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
