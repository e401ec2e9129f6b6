package bench

import (
	"io"
	"net"
	"net/url"
	"sync"
	"time"
)

// delayProxy is a TCP proxy that holds every chunk of data for a fixed time
// before passing it on, in both directions: a stand-in for network latency
// on loopback, applied alike to every setup measured through it.
type delayProxy struct {
	ln    net.Listener
	url   string
	delay time.Duration
	wg    sync.WaitGroup
}

func newDelayProxy(target string, delay time.Duration) (*delayProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	backend := u.Host
	u.Host = ln.Addr().String()
	p := &delayProxy{ln: ln, url: u.String(), delay: delay}
	p.wg.Add(1)
	go p.serve(backend)
	return p, nil
}

func (p *delayProxy) serve(backend string) {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", backend)
		if err != nil {
			c.Close()
			continue
		}
		go p.pipe(b, c)
		go p.pipe(c, b)
	}
}

// pipe copies src to dst, each chunk delivered delay after it was read, in
// order (a queue, so the delay is latency, not a bandwidth cap).
func (p *delayProxy) pipe(dst, src net.Conn) {
	type chunk struct {
		data []byte
		at   time.Time
	}
	q := make(chan chunk, 1024)
	go func() {
		defer dst.Close()
		for c := range q {
			time.Sleep(time.Until(c.at))
			if _, err := dst.Write(c.data); err != nil {
				return
			}
		}
	}()
	defer close(q)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			q <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(p.delay)}
		}
		if err != nil {
			if err != io.EOF {
				src.Close()
			}
			return
		}
	}
}

func (p *delayProxy) Close() error {
	err := p.ln.Close()
	p.wg.Wait()
	return err
}
