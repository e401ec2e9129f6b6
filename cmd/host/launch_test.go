//go:build linux

package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// noFollow is a client that reports redirects instead of following them,
// on a connection of its own each time.
func noFollow() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
}

// The browser is given a loopback address, never the link; a connection
// the owner check refuses gets nothing and does not use the redirect up;
// the first visit of the user's browser is sent on to the link, after
// which the address answers no more.
func TestOpenSecretly(t *testing.T) {
	const link = "http://127.0.0.1:8765/#code=0123456789abcdef0123456789abcdef"
	var conns atomic.Int32
	firstIsStranger := func(net.Conn) bool { return conns.Add(1) > 1 }
	var opened string
	var stranger, visit *http.Response
	var strangerErr, visitErr error
	open := func(u string) error {
		opened = u
		stranger, strangerErr = noFollow().Get(u) // refused: the connection is closed unanswered
		visit, visitErr = noFollow().Get(u)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := openSecretly(ctx, link, open, firstIsStranger); err != nil {
		t.Fatal(err)
	}
	if opened == link || len(opened) < len("http://127.0.0.1:1/") || opened[:17] != "http://127.0.0.1:" {
		t.Errorf("the browser was given %q, want a loopback address that is not the link", opened)
	}
	if strangerErr == nil {
		stranger.Body.Close()
		t.Errorf("a connection the owner check refused was answered: %d", stranger.StatusCode)
	}
	if visitErr != nil || visit.StatusCode != http.StatusSeeOther || visit.Header.Get("Location") != link {
		t.Fatalf("the browser's visit: %v %v, want 303 to the link", visit, visitErr)
	}
	visit.Body.Close()
	if r, err := noFollow().Get(opened); err == nil {
		r.Body.Close()
		t.Errorf("the address still answers after the visit: %d", r.StatusCode)
	}
}

// A browser that never comes ends the wait with the context's error; one
// that cannot start is reported as such.
func TestOpenSecretlyGivesUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := openSecretly(ctx, "http://x/#code=1", func(string) error { return nil }, ownConn)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("no visit: %v, want the deadline", err)
	}
	broken := errors.New("no browser")
	if err := openSecretly(context.Background(), "http://x/#code=1", func(string) error { return broken }, ownConn); !errors.Is(err, broken) {
		t.Errorf("a launcher that fails: %v", err)
	}
}

// The redirect answers one visit; a favicon request does not use it up; a
// second visit is told the link was used.
func TestRedirectOnce(t *testing.T) {
	rd := newRedirect("http://127.0.0.1:1/#code=x")
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		rd.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	if rec := get("/favicon.ico"); rec.Code != http.StatusNotFound {
		t.Errorf("favicon: %d", rec.Code)
	}
	if rec := get("/"); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "http://127.0.0.1:1/#code=x" ||
		rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("first visit: %d %v", rec.Code, rec.Header())
	}
	if rec := get("/"); rec.Code != http.StatusGone {
		t.Errorf("second visit: %d", rec.Code)
	}
}

// A connection of this process is the user's own.
func TestOwnConn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the owner of a socket is read from /proc/net/tcp")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	if uid, err := peerUID(s); err != nil || uid != os.Getuid() || !ownConn(s) {
		t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Getuid())
	}
}
