//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// browserDoor attacks what the front door owes browsers and strangers: a
// web page on another origin (another local port included) must not reach
// the MCP endpoints — with auth off that check is all that stands between
// a page and the tools — unless allowed_origins lists it; a refusal must
// name no path of the machine and must not wait for a body the client
// trickles; and a message with a key twice, which readers resolve
// differently, must be refused.
func (s *suite) browserDoor() error {
	const listed, foreign = "http://localhost:6274", "http://localhost:3000"
	const readTimeout = 30
	open, err := s.startServe("browser-door-noauth", serveOptions{
		servers: map[string]any{"steady": s.stdio()},
		gateway: map[string]any{"auth": false, "allowed_origins": []string{listed}},
	})
	if err != nil {
		return err
	}
	sv, err := s.startServe("browser-door", serveOptions{
		servers: map[string]any{"steady": s.stdio()},
		gateway: map[string]any{"read_timeout_seconds": readTimeout},
	})
	if err != nil {
		return err
	}
	for _, v := range []*serve{open, sv} {
		if _, err := v.waitServers(90*time.Second, "servers connected", connected("steady")); err != nil {
			return err
		}
	}
	ctx := context.Background()
	s.checkOrigins(ctx, open, listed, foreign)
	s.checkUnauthorized(ctx, sv)
	s.checkTrickle(sv, readTimeout)
	return s.checkDuplicateKeys(ctx, sv)
}

// checkOrigins posts tools/list (no token: auth is off) to both kinds of
// endpoint from a foreign page, a listed one, plughost's own and a
// sandboxed frame ("null").
func (s *suite) checkOrigins(ctx context.Context, sv *serve, listed, foreign string) {
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`)
	for _, path := range []string{"/mcp", "/servers/steady/mcp"} {
		var observed []string
		ok := true
		for _, o := range []struct {
			origin string
			want   int
		}{{foreign, http.StatusForbidden}, {"null", http.StatusForbidden}, {listed, http.StatusOK}, {sv.base, http.StatusOK}} {
			status, body, hdr, err := originPost(ctx, sv.base+path, o.origin, list)
			observed = append(observed, fmt.Sprintf("%s → %d%s", o.origin, status, errText(err)))
			ok = ok && err == nil && status == o.want
			if o.origin == listed {
				ok = ok && hdr.Get("Access-Control-Allow-Origin") == listed
			}
			if o.want == http.StatusForbidden {
				ok = ok && strings.Contains(body, "allowed_origins") && !strings.Contains(body, `"result"`)
			}
		}
		s.check("browser-door", "page origins on "+path+" (auth off)",
			"a foreign page and a sandboxed frame 403 (naming allowed_origins); the listed page 200 with Access-Control-Allow-Origin; plughost's own page 200",
			strings.Join(observed, "; "), ok)
	}
}

// checkUnauthorized reads the 401s: they say how to authenticate and name
// no path of the machine (the token file, HOME).
func (s *suite) checkUnauthorized(ctx context.Context, sv *serve) {
	for _, auth := range []string{"", "Bearer not-the-token"} {
		status, body, err := rawPost(ctx, sv.base+"/mcp", auth, strings.NewReader("{}"), 2)
		name := "401 without a token"
		if auth != "" {
			name = "401 with a wrong token"
		}
		ok := err == nil && status == http.StatusUnauthorized && strings.Contains(body, "tools.mcp.gateway.token_file") && !strings.Contains(body, sv.dir)
		s.check("browser-door", name, "401 naming the setting that holds the token, no path of the machine",
			fmt.Sprintf("HTTP %d %v: %s", status, errText(err), oneLine(body, 200)), ok)
	}
}

// checkTrickle sends an unauthenticated request's headers and then its
// body one byte every 200 ms, and measures how long the connection is held.
func (s *suite) checkTrickle(sv *serve, readTimeout int) {
	answered, closed, status, err := trickle(strings.TrimPrefix(sv.base, "http://"))
	s.check("browser-door", "unauthenticated body trickled (1 byte / 200 ms)",
		fmt.Sprintf("401 at once and the connection closed within 2 s (not held for the %d s read timeout)", readTimeout),
		fmt.Sprintf("HTTP %d after %.2f s, connection closed after %.2f s %s", status, answered.Seconds(), closed.Seconds(), errText(err)),
		err == nil && status == http.StatusUnauthorized && closed < 2*time.Second)
}

// checkDuplicateKeys sends messages with a key twice — the method, and a
// tool argument — and then a good call.
func (s *suite) checkDuplicateKeys(ctx context.Context, sv *serve) error {
	c := sv.newClient()
	defer c.close(ctx)
	if err := c.initialize(ctx); err != nil {
		return err
	}
	for _, t := range []struct{ name, body, key string }{
		{"\"method\" twice", `{"jsonrpc":"2.0","id":70,"method":"tools/list","method":"tools/call","params":{"name":"mcp_steady_echo","arguments":{"text":"x"}}}`, `"method" at /`},
		{"an argument twice", `{"jsonrpc":"2.0","id":71,"method":"tools/call","params":{"name":"mcp_steady_echo","arguments":{"text":"a","text":"b"}}}`, `"text" at /params/arguments`},
	} {
		status, body, _, err := c.post(ctx, []byte(t.body))
		var r rpc
		_ = json.Unmarshal(body, &r)
		after := c.call(ctx, "mcp_steady_echo", map[string]any{"text": "still here"})
		ok := err == nil && status == http.StatusBadRequest && r.Error != nil && r.Error.Code == -32600 &&
			strings.Contains(r.Error.Message, "duplicate key "+t.key) && after.text == "still here"
		s.check("browser-door", "a JSON key given twice: "+t.name, "-32600 naming the key and where it is; the next call works",
			fmt.Sprintf("HTTP %d %v: %s; a call afterwards: %q", status, errText(err), oneLine(string(body), 200), oneLine(after.text+after.failure(), 60)), ok)
	}
	return nil
}

// originPost posts body (no token) as a page of origin would.
func originPost(ctx context.Context, url, origin string, body []byte) (int, string, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), resp.Header, nil
}

// trickle sends a POST's headers without a token, promising a 10 kB body,
// then the body one byte every 200 ms; it returns when the answer came and
// when the server closed the connection, both from the end of the headers.
func trickle(addr string) (answered, closed time.Duration, status int, err error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, 0, 0, err
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{", addr); err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	type end struct {
		answered, closed time.Duration
		status           int
		err              error
	}
	done := make(chan end, 1)
	go func() {
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			done <- end{err: fmt.Errorf("no answer: %w", err)}
			return
		}
		e := end{answered: time.Since(start), status: resp.StatusCode}
		_, _ = io.Copy(io.Discard, r) // until the server closes
		e.closed = time.Since(start)
		done <- e
	}()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case e := <-done:
			return e.answered, e.closed, e.status, e.err
		case <-tick.C:
			if time.Since(start) > 60*time.Second {
				return 0, time.Since(start), 0, fmt.Errorf("still open after %s", time.Since(start).Round(time.Second))
			}
			_, _ = conn.Write([]byte(" ")) // a write error: the server closed; the reader reports it
		}
	}
}
