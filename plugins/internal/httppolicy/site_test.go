package httppolicy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// hit is one request a test site received.
type hit struct {
	Scheme, Method, Path, APIKey, Body string
}

// site is a test server that serves plain HTTP and TLS on the same port (it
// peeks at the first byte of each connection: 0x16 opens a TLS handshake), so
// that http://127.0.0.1:P/ can redirect to https://127.0.0.1:P/. It records
// every request and answers the redirects registered with redirect.
type site struct {
	Port     string
	certPool *x509.CertPool

	mu        sync.Mutex
	hits      []hit
	redirects map[string]redirect // scheme + " " + path → where to
}

type redirect struct {
	location string
	code     int
}

func newSite(t *testing.T) *site {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &site{redirects: map[string]redirect{}}
	_, s.Port, _ = net.SplitHostPort(ln.Addr().String())

	plainL, tlsL := newChanListener(ln.Addr()), newChanListener(ln.Addr())
	plain, secure := httptest.NewUnstartedServer(s), httptest.NewUnstartedServer(s)
	plain.Listener.Close()
	secure.Listener.Close()
	plain.Listener, secure.Listener = plainL, tlsL
	plain.Start()
	secure.StartTLS()
	s.certPool = x509.NewCertPool()
	s.certPool.AddCert(secure.Certificate())

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); route(c, plainL, tlsL) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		plain.Close()
		secure.Close()
		plainL.Close()
		tlsL.Close()
		wg.Wait()
	})
	return s
}

// route hands a connection to the TLS or the plain listener by its first byte.
func route(c net.Conn, plain, secure *chanListener) {
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	first, err := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	pc := &peekedConn{Conn: c, r: br}
	if first[0] == 0x16 {
		secure.deliver(pc)
	} else {
		plain.deliver(pc)
	}
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// chanListener is a net.Listener fed by route.
type chanListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) deliver(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.hits = append(s.hits, hit{Scheme: scheme, Method: r.Method, Path: r.URL.Path,
		APIKey: r.Header.Get("X-Api-Key"), Body: string(body)})
	rd, ok := s.redirects[scheme+" "+r.URL.Path]
	s.mu.Unlock()
	if ok {
		http.Redirect(w, r, rd.location, rd.code)
		return
	}
	_, _ = io.WriteString(w, "ok")
}

// redirect makes scheme://…/path answer code with Location: location.
func (s *site) redirect(scheme, path, location string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redirects[scheme+" "+path] = redirect{location: location, code: code}
}

// hitsTo returns the requests received for path.
func (s *site) hitsTo(path string) []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hit
	for _, h := range s.hits {
		if h.Path == path {
			out = append(out, h)
		}
	}
	return out
}

// base returns a transport that trusts the sites' test certificate.
func (s *site) base() *http.Transport {
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.certPool}}
}
