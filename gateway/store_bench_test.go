package gateway_test

import (
	"strings"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/internal/testredis"
	"github.com/plughost/plughost/lib/secret"
	"github.com/plughost/plughost/pluginapi"
	"github.com/plughost/plughost/redisstore"
)

// BenchmarkToolsCallStore is tools/call through the HTTP handler in process
// with each session store, calls of many sessions in parallel, each call
// ending a turn of an unlock (so each writes the session): what the Redis
// store costs a call in CPU, beside the in-memory store in one run.
func BenchmarkToolsCallStore(b *testing.B) {
	srv := testredis.New(b)
	for _, kind := range []string{"memory", "redis"} {
		b.Run(kind, func(b *testing.B) {
			opts := host.Options{Transports: map[string]pluginapi.Transport{
				"stdio": inprocess.New(map[string]*mcpserver.MCPServer{"gh": newFake(3).MCPServer, "fs": newFake(0).MCPServer})}}
			if kind == "redis" {
				store, err := redisstore.Open(redisstore.Options{URL: secret.URL(srv.URL(0)), Prefix: "bench:", IdleTimeout: 30 * time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				defer store.Close()
				opts.SessionStore = store
			}
			h := startHostWith(b, opts, map[string]any{
				"gh": map[string]any{"enabled": true, "command": "in-process"},
				"fs": map[string]any{"enabled": true, "command": "in-process", "deferred": false},
			}, func(mcpCfg map[string]any) {
				mcpCfg["discovery"] = map[string]any{"enabled": true, "ttl": 1_000_000_000, "use_regex": true}
				mcpCfg["trust"] = map[string]any{"mode": "off"}
			})
			post := poster(gateway.New(h, gateway.Options{}).HTTPHandler())
			const call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mcp_fs_echo","arguments":{"text":"hello"}}}`
			b.SetParallelism(4)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
				id := init.Header().Get("Mcp-Session-Id")
				if rec := post(id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_search_tool_regex","arguments":{"pattern":"^mcp_gh_tool_0$"}}}`); !strings.Contains(rec.Body.String(), "mcp_gh_tool_0") {
					b.Errorf("search: %s", rec.Body)
					return
				}
				for pb.Next() {
					if rec := post(id, call); rec.Code != 200 || !strings.Contains(rec.Body.String(), "hello") {
						b.Errorf("%d %s", rec.Code, rec.Body)
						return
					}
				}
			})
		})
	}
}
