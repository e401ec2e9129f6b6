package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/pluginapi"
)

// guardedServer is a stateful streamable-HTTP MCP server that refuses every
// request without an accepted header value (401) and records the DELETE
// requests that end sessions.
type guardedServer struct {
	url      string
	header   string // name of the header a request must carry
	mu       sync.Mutex
	accepted map[string]bool // values of header the server accepts
	deletes  []http.Header
	sessions map[string]bool // session id → still open
}

func newGuardedServer(t *testing.T, header string, accepted ...string) *guardedServer {
	g := &guardedServer{header: header, accepted: map[string]bool{}, sessions: map[string]bool{}}
	for _, v := range accepted {
		g.accepted[v] = true
	}
	mcpSrv := server.NewMCPServer("guarded", "1.0.0")
	mcpSrv.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	h := server.NewStreamableHTTPServer(mcpSrv, server.WithStateful(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		ok := g.accepted[r.Header.Get(g.header)]
		g.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			g.mu.Lock()
			g.deletes = append(g.deletes, r.Header.Clone())
			g.sessions[r.Header.Get("Mcp-Session-Id")] = false
			g.mu.Unlock()
		}
		h.ServeHTTP(w, r)
		if id := w.Header().Get("Mcp-Session-Id"); id != "" && r.Method == http.MethodPost {
			g.mu.Lock()
			if _, seen := g.sessions[id]; !seen {
				g.sessions[id] = true
			}
			g.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	g.url = srv.URL + "/mcp"
	return g
}

// accept replaces the accepted values.
func (g *guardedServer) accept(values ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.accepted = map[string]bool{}
	for _, v := range values {
		g.accepted[v] = true
	}
}

func (g *guardedServer) snapshot() (deletes []http.Header, open []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id, isOpen := range g.sessions {
		if isOpen {
			open = append(open, id)
		}
	}
	return append([]http.Header(nil), g.deletes...), open
}

// TestCloseDeletesSessionWithHeaders checks that closing a streamable-HTTP
// connection ends the server's session with a DELETE that carries the
// configured headers: a server that requires a token would otherwise refuse
// the DELETE and keep the session.
func TestCloseDeletesSessionWithHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts plugin processes: heavy integration test, skipped under -short")
	}
	for name, transport := range httpTransports() {
		for _, hdr := range []string{"Authorization", "X-Api-Key"} {
			t.Run(name+"/"+hdr, func(t *testing.T) {
				const secret = "Bearer s3cret-value"
				g := newGuardedServer(t, hdr, secret)
				cfg, _ := json.Marshal(map[string]any{"url": g.url, "headers": map[string]string{hdr: secret}})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				conn, err := transport(t).Open(ctx, pluginapi.OpenRequest{ServerName: "guarded", Config: cfg})
				if err != nil {
					t.Fatal(err)
				}
				initialize(t, ctx, conn)
				if _, open := g.snapshot(); len(open) != 1 {
					t.Fatalf("open sessions after initialize = %v, want one", open)
				}
				if err := conn.Close(); err != nil {
					t.Fatal(err)
				}
				deletes, open := g.snapshot()
				if len(deletes) != 1 {
					t.Fatalf("server got %d DELETE requests, want 1", len(deletes))
				}
				if got := deletes[0].Get(hdr); got != secret {
					t.Errorf("DELETE carried %s = %q, want the configured value", hdr, got)
				}
				if len(open) != 0 {
					t.Errorf("sessions still open after Close: %v", open)
				}
			})
		}
	}
}

// httpTransports returns the http transport in process and over the plugin
// binary (go-plugin gRPC relay).
func httpTransports() map[string]func(t *testing.T) pluginapi.Transport {
	return map[string]func(t *testing.T) pluginapi.Transport{
		"in-process": func(*testing.T) pluginapi.Transport { return New(KindHTTP, nil, nil) },
		"plugin": func(t *testing.T) pluginapi.Transport {
			client, err := pluginapi.NewClient(pluginapi.ClientConfig{
				Path:   filepath.Join(binDir, "mcp-transport-http"),
				Env:    pluginapi.BaseEnviron(os.Environ()),
				Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr}),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(client.Kill)
			return client.Transport()
		},
	}
}

// initialize runs the MCP handshake over conn.
func initialize(t *testing.T, ctx context.Context, conn pluginapi.Conn) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}}})
	if err := conn.Send(ctx, req); err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Recv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg), `"result"`) {
		t.Fatalf("initialize answered %s", msg)
	}
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err := conn.Send(ctx, note); err != nil {
		t.Fatal(err)
	}
}
