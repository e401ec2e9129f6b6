package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// openSecretly opens link in the browser without link reaching any
// command line: a browser launcher's arguments are visible to every user
// of the machine (ps), and link holds a login code. The browser is given
// instead the address of a one-shot redirect served here on loopback,
// which sends it on to link. Only connections owned accepts are answered
// (ownConn: this user's processes), and the first request for the redirect
// ends it. openSecretly returns once the browser was sent on, or with
// ctx's error when it did not come (ctx bounds the wait: the code's
// lifetime).
func openSecretly(ctx context.Context, link string, open func(string) error, owned func(net.Conn) bool) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the browser: %w", err)
	}
	r := newRedirect(link)
	srv := &http.Server{Handler: r}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ownerListener{ln, owned}) }()
	defer func() {
		_ = srv.Shutdown(context.WithoutCancel(ctx)) // lets the redirect's answer out
		<-served
	}()
	if err := open("http://" + ln.Addr().String() + "/"); err != nil {
		return err
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redirect answers the first GET / with a redirect to its link, and every
// later request with 410.
type redirect struct {
	link string
	once sync.Once
	done chan struct{}
}

func newRedirect(link string) *redirect { return &redirect{link: link, done: make(chan struct{})} }

func (rd *redirect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" || r.Method != http.MethodGet {
		http.NotFound(w, r) // a favicon: not the browser's visit
		return
	}
	first := false
	rd.once.Do(func() { first = true })
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if !first {
		http.Error(w, "plughost: this login link was used already; run plughost dashboard again", http.StatusGone)
		return
	}
	http.Redirect(w, r, rd.link, http.StatusSeeOther)
	close(rd.done)
}

// ownerListener accepts only the connections owned reports as coming from
// this user; the others are closed unanswered.
type ownerListener struct {
	net.Listener
	owned func(net.Conn) bool
}

func (l ownerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || l.owned(c) {
			return c, err
		}
		_ = c.Close()
	}
}
