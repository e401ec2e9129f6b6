package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/pluginapi"
)

// MemoryResult is the heap that open gateway sessions hold.
type MemoryResult struct {
	// Catalog is the number of tools served; Sessions the sessions opened.
	Catalog   int  `json:"catalog"`
	Sessions  int  `json:"sessions"`
	Discovery bool `json:"discovery"`
	// Unlocked is how many tools each session unlocked (discovery on).
	Unlocked int `json:"unlocked_per_session"`
	// HeapBytes is the live heap the sessions added, after a GC;
	// PerSession is HeapBytes / Sessions.
	HeapBytes  int64 `json:"heap_bytes"`
	PerSession int64 `json:"per_session_bytes"`
}

// SessionMemory serves one in-process server of catalog tools through a
// gateway (in process, so nothing but the gateway and the host is on the
// heap besides the server itself) and opens sessions sessions, each of
// which initializes, searches (with discovery on, unlocking up to 5 tools),
// lists its tools and calls one; it reports the live heap they added.
func SessionMemory(ctx context.Context, catalog, sessions int, discovery bool) (MemoryResult, error) {
	r := MemoryResult{Catalog: catalog, Sessions: sessions, Discovery: discovery}
	h, err := catalogHost(ctx, catalog, discovery)
	if err != nil {
		return r, err
	}
	defer h.Close()
	gw := gateway.New(h, gateway.Options{Version: "bench", MaxMessageBytes: 64 << 20})
	handler := gw.HTTPHandler()
	for i := range 5 { // warm up: the view, the index's caches
		id, _, err := openSession(handler, i, discovery)
		if err != nil {
			return r, err
		}
		if err := h.Session(id).Close(ctx); err != nil {
			return r, err
		}
	}
	before := liveHeap()
	unlocked := 0
	for i := range sessions {
		_, n, err := openSession(handler, i, discovery)
		if err != nil {
			return r, fmt.Errorf("session %d: %w", i, err)
		}
		unlocked += n
	}
	after := liveHeap()
	runtime.KeepAlive(h)
	r.HeapBytes = after - before
	r.PerSession = r.HeapBytes / int64(sessions)
	r.Unlocked = unlocked / sessions
	return r, nil
}

// liveHeap returns the live heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// catalogHost starts a host with one in-process server listing n tools.
func catalogHost(ctx context.Context, n int, discovery bool) (*host.Host, error) {
	srv := server.NewMCPServer("catalog", "1", server.WithToolCapabilities(true))
	tools := make([]server.ServerTool, n)
	for i := range tools {
		tools[i] = server.ServerTool{
			Tool: mcp.NewTool(fmt.Sprintf("tool_%d", i),
				mcp.WithDescription(fmt.Sprintf("Synthetic tool number %d of a large catalog; returns ok.", i)),
				mcp.WithString("input", mcp.Description("Anything."))),
			Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			},
		}
	}
	srv.AddTools(tools...)
	tr := inprocess.New(map[string]*server.MCPServer{"cat": srv})
	raw, _ := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "discovery": map[string]any{"enabled": discovery},
		"servers": map[string]any{"cat": map[string]any{"enabled": true, "command": "in-process"}},
		// Trust off: this measures what a session holds. The home (so the
		// pins file) is removed below while the host runs, and pins read
		// again meanwhile would count against the sessions.
		"trust": map[string]any{"mode": "off"},
	}}})
	dir, err := os.MkdirTemp("", "plughost-bench-memory-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	l, err := config.Load(config.LoadOptions{UserFile: filepath.Join(dir, "c.json"), UserData: raw,
		SystemDir: filepath.Join(dir, "none"), Home: dir})
	if err != nil {
		return nil, err
	}
	h, err := host.NewFromLoaded(l, host.Options{ConfigDir: dir, Transports: map[string]pluginapi.Transport{"stdio": tr}})
	if err != nil {
		return nil, err
	}
	h.Start(ctx)
	if err := waitConnected(ctx, h, 1); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// openSession runs one session's exchanges through handler and returns its
// id and how many tools it unlocked.
func openSession(handler http.Handler, i int, discovery bool) (string, int, error) {
	post := func(id, body string) (*httptest.ResponseRecorder, error) {
		req := httptest.NewRequest("POST", gateway.MCPPath, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			return rec, fmt.Errorf("%s: HTTP %d %s", body[:min(len(body), 60)], rec.Code, rec.Body.String())
		}
		return rec, nil
	}
	rec, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil {
		return "", 0, err
	}
	id := rec.Header().Get("Mcp-Session-Id")
	unlocked := 0
	if discovery {
		rec, err := post(id, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_search_tool_bm25","arguments":{"query":"synthetic tool number %d"}}}`, i))
		if err != nil {
			return "", 0, err
		}
		unlocked = strings.Count(rec.Body.String(), `\"name\":\"mcp_cat_tool_`)
	}
	if _, err := post(id, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`); err != nil {
		return "", 0, err
	}
	if _, err := post(id, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mcp_cat_tool_%d","arguments":{}}}`, i)); err != nil {
		return "", 0, err
	}
	return id, unlocked, nil
}
