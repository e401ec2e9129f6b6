package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
)

// Through the front door, every route but /healthz needs the token: missing or wrong → 401, a
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
	var r host.Readiness
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

// /metrics counts calls, errors, searches and unlocks per server and tool.
func TestMetrics(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"s": testserver(nil), "p": testserver(map[string]any{"deferred": false})},
		func(m map[string]any) { m["discovery"] = map[string]any{"enabled": true} })
	url, _ := serveHTTP(t, h)
	c := connect(t, url)
	c.call(t, "tool_search_tool_bm25", map[string]any{"query": "echo text unchanged"})
	c.call(t, "mcp_s_echo", map[string]any{"text": "x"})
	c.call(t, "mcp_s_echo", map[string]any{"text": "y"})
	c.call(t, "mcp_s_pid", nil) // hidden, called by its exact name: unlocked
	c.call(t, "mcp_p_crash", nil)
	c.tryCall("mcp_nope", nil)

	req, _ := http.NewRequest("GET", strings.TrimSuffix(url, gateway.MCPPath)+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testToken.Reveal())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	wantContains := []string{
		`plughost_tool_calls_total{server="s",tool="echo"} 2`,
		`plughost_tool_calls_total{server="plughost",tool="tool_search_tool_bm25"} 1`,
		`plughost_searches_total{tool="tool_search_tool_bm25"} 1`,
		`plughost_tool_errors_total{kind="call",server="p",tool="crash"} 1`,
		`plughost_tool_call_duration_seconds_count{server="s",tool="echo"} 2`,
		`plughost_unknown_tool_calls_total 1`,
		`plughost_server_restarts_total{server="p"}`,
		`plughost_gateway_sessions 1`,
	}
	for _, w := range wantContains {
		if !strings.Contains(string(body), w) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
	// The search unlocked some tools (echo among them), the exact-name call one more.
	var unlocks float64
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "plughost_unlocks_total "); ok {
			if _, err := fmt.Sscan(v, &unlocks); err != nil {
				t.Fatal(err)
			}
		}
	}
	if unlocks < 2 {
		t.Errorf("plughost_unlocks_total = %v, want at least 2 (a search and an exact-name call)", unlocks)
	}
}
