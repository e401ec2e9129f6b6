package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/plughost/plughost/host/gateway"
)

// Every route but /healthz needs the token: missing or wrong → 401, a
// token in the query string → 400 even when it is right; the right one in
// the header gets through, and an mcp-go client with it works.
func TestAuth(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"s": testserver(nil)}, nil)
	url, _ := serveHTTP(t, h)
	base := strings.TrimSuffix(url, gateway.MCPPath)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		name, method, path, auth string
		want                     int
		body                     string // expected in the response body
	}{
		{"no token", "POST", "/mcp", "", 401, "missing bearer token"},
		{"wrong token", "POST", "/mcp", "Bearer wrong-token-0123456789abcdef", 401, "wrong bearer token"},
		{"wrong scheme", "POST", "/mcp", "Basic " + testToken.Reveal(), 401, "missing bearer token"},
		{"token in query", "POST", "/mcp?token=" + testToken.Reveal(), "", 400, "token in the URL"},
		{"access_token in query with header", "POST", "/mcp?access_token=" + testToken.Reveal(), "Bearer " + testToken.Reveal(), 400, "token in the URL"},
		{"right token", "POST", "/mcp", "Bearer " + testToken.Reveal(), 200, `"serverInfo"`},
		{"readyz without token", "GET", "/readyz", "", 401, "missing bearer token"},
		{"readyz", "GET", "/readyz", "Bearer " + testToken.Reveal(), 200, `"ready":true`},
		{"metrics without token", "GET", "/metrics", "", 401, "missing bearer token"},
		{"metrics", "GET", "/metrics", "Bearer " + testToken.Reveal(), 200, `plughost_server_up{server="s",state="connected"} 1`},
		{"healthz is open", "GET", "/healthz", "", 200, `"ok"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.want || !strings.Contains(string(body), c.body) {
				t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.path, resp.StatusCode, body, c.want, c.body)
			}
			if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if strings.Contains(string(body), testToken.Reveal()) {
				t.Error("the response echoes the token")
			}
		})
	}
}

// /readyz is 503 while an enabled server is down, and says which.
func TestReadyzDown(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{
		"up":   testserver(nil),
		"down": map[string]any{"enabled": true, "command": "/nonexistent/server"},
		"off":  testserver(map[string]any{"enabled": false}),
	}, nil)
	url, _ := serveHTTP(t, h)
	req, _ := http.NewRequestWithContext(context.Background(), "GET", strings.TrimSuffix(url, gateway.MCPPath)+"/readyz", nil)
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r gateway.Readiness
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	up := map[string]bool{}
	for _, s := range r.Servers {
		up[s.Name] = s.Up
	}
	if resp.StatusCode != 503 || r.Ready || !up["up"] || up["down"] || up["off"] || len(r.Servers) != 3 {
		t.Errorf("readyz: %d %+v, want 503, not ready, only \"up\" up", resp.StatusCode, r)
	}
}

// Without a token, the gateway serves only on loopback.
func TestNoTokenNeedsLoopback(t *testing.T) {
	if _, err := gateway.Listen("0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "auth") {
		t.Errorf("Listen(0.0.0.0:0, no auth) = %v, want an error about auth", err)
	}
	ln, err := gateway.Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(nil, gateway.Options{})
	err = gw.ServeHTTP(context.Background(), gateway.HTTPOptions{Listener: ln})
	if err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Errorf("ServeHTTP on 0.0.0.0 without a token = %v, want a refusal", err)
	}
}
