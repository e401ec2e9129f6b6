package httppolicy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestWithMCPGo runs real mcp-go sessions over a policy client: configured
// headers reach every request, and configured protocol headers (a forged
// session id, a wrong content type) do not break the session.
func TestWithMCPGo(t *testing.T) {
	mcpSrv := server.NewMCPServer("test", "1.0.0")
	mcpSrv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hi"), nil
	})
	configured := map[string]string{
		"X-Api-Key":      apiKey,
		"Mcp-Session-Id": "forged",
		"Content-Type":   "text/plain",
	}
	cases := []struct {
		name    string
		handler http.Handler
		connect func(url string, c *http.Client) (transport.Interface, error)
	}{{
		name:    "streamable http",
		handler: server.NewStreamableHTTPServer(mcpSrv),
		connect: func(url string, c *http.Client) (transport.Interface, error) {
			return transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(c))
		},
	}, {
		name:    "sse",
		handler: server.NewSSEServer(mcpSrv),
		connect: func(url string, c *http.Client) (transport.Interface, error) {
			return transport.NewSSE(url, transport.WithHTTPClient(c))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			keys := map[string]bool{} // X-Api-Key values seen
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				keys[r.Header.Get("X-Api-Key")] = true
				mu.Unlock()
				tc.handler.ServeHTTP(w, r)
			}))
			defer srv.Close()
			url := srv.URL + "/mcp"
			if tc.name == "sse" {
				url = srv.URL + "/sse"
			}
			hc, err := NewClient(Policy{ServerURL: url, Headers: configured})
			if err != nil {
				t.Fatal(err)
			}
			tr, err := tc.connect(url, hc)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
			defer c.Close()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != 1 || res.Tools[0].Name != "echo" {
				t.Errorf("tools = %+v, want [echo]", res.Tools)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(map[string]bool{apiKey: true}, keys); diff != "" {
				t.Errorf("X-Api-Key values received (-want +got):\n%s", diff)
			}
		})
	}
}
