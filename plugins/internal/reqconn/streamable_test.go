package reqconn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/pluginapi"
)

// restartableServer is a real mcp-go streamable HTTP server whose instance
// can be replaced, forgetting every session (the next request with an old
// session id gets 404).
type restartableServer struct {
	t        *testing.T
	url      string
	current  atomic.Pointer[server.StreamableHTTPServer]
	started  chan string // names of the "slow" calls that started
	aborted  chan string // names of the "slow" calls whose context ended
	restarts atomic.Int32
}

func newRestartableServer(t *testing.T) *restartableServer {
	rs := &restartableServer{t: t, started: make(chan string, 8), aborted: make(chan string, 8)}
	rs.restart()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.current.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rs.url = ts.URL
	return rs
}

// restart replaces the server instance: a new MCP server with no sessions.
func (rs *restartableServer) restart() {
	n := rs.restarts.Add(1)
	s := server.NewMCPServer("reqconn-test", fmt.Sprint(n), server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("slow"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rs.started <- "slow"
			select {
			case <-ctx.Done():
				rs.aborted <- "slow"
				return nil, ctx.Err()
			case <-time.After(wait):
				return mcp.NewToolResultText("finished"), nil
			}
		})
	h := server.NewStreamableHTTPServer(s, server.WithStateful(true))
	if old := rs.current.Swap(h); old != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		old.Shutdown(ctx)
	}
	rs.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		h.Shutdown(ctx)
	})
}

func (rs *restartableServer) factory() (transport.Interface, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	return transport.NewStreamableHTTP(rs.url, transport.WithHTTPLogger(quiet))
}

// request sends a request and returns its response, skipping other messages.
func request(t *testing.T, c pluginapi.Conn, id int, method string, params any) response {
	t.Helper()
	send(t, c, string(toJSON(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})))
	for {
		raw := recv(t, c)
		r := parseResponse(t, raw)
		if string(r.ID) == fmt.Sprint(id) {
			if r.Error != nil {
				t.Fatalf("%s: error response %s", method, raw)
			}
			return r
		}
	}
}

func callEcho(t *testing.T, c pluginapi.Conn, id int, text string) string {
	t.Helper()
	r := request(t, c, id, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	var res mcp.CallToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("tools/call result %s: %v", r.Result, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call result %s: want one content item", r.Result)
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok || res.IsError {
		t.Fatalf("tools/call result %s: want text", r.Result)
	}
	return tc.Text
}

func TestStreamableHTTP(t *testing.T) {
	rs := newRestartableServer(t)
	c, err := Open(context.Background(), rs.factory, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })

	r := request(t, c, 1, "initialize", map[string]any{
		"protocolVersion": mcp.ProtocolVersion20251125,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "reqconn-test", "version": "1"},
	})
	if got := protocolVersion(r.Result); got != mcp.ProtocolVersion20251125 {
		t.Fatalf("negotiated protocol version %q, want %q", got, mcp.ProtocolVersion20251125)
	}
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	first := c.SessionID()
	if first == "" {
		t.Fatal("no session id after initialize")
	}

	r = request(t, c, 2, "tools/list", map[string]any{})
	var list mcp.ListToolsResult
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatalf("tools/list result: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"echo", "slow"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := callEcho(t, c, 3, "héllo"); got != "héllo" {
		t.Errorf("echo = %q", got)
	}

	t.Run("cancellation reaches the server", func(t *testing.T) {
		send(t, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
		<-rs.started
		send(t, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"test"}}`)
		select {
		case <-rs.aborted:
		case <-time.After(wait):
			t.Fatal("the tool's context did not end after notifications/cancelled")
		}
	})

	t.Run("session loss", func(t *testing.T) {
		rs.restart() // the new instance answers 404 to the old session id
		if got := callEcho(t, c, 5, "again"); got != "again" {
			t.Errorf("echo after the server forgot the session = %q", got)
		}
		if got := c.SessionID(); got == "" || got == first {
			t.Errorf("SessionID after re-initialization = %q; want a new one (was %q)", got, first)
		}
		if got := callEcho(t, c, 6, "still"); got != "still" {
			t.Errorf("echo on the new session = %q", got)
		}
		recvNone(t, c) // nothing else: the replayed initialize's response was swallowed
	})
}
