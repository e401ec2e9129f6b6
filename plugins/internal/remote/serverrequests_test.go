package remote

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// A legacy SSE server's requests to the client come out of the sse
// transport as messages, and the host's answer goes back to the server,
// which finishes the call with it — in process and over the plugin
// binary. The server is the test server's SSE bridge (mcp-go's stdio
// server, which asks its client; mcp-go's SSE server cannot).
func TestSSEServerRequestsReachTheHost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server and plugin processes: heavy integration test, skipped under -short")
	}
	transports := map[string]func(t *testing.T) pluginapi.Transport{
		"in-process": func(*testing.T) pluginapi.Transport { return New(KindSSE, nil, nil) },
		"plugin": func(t *testing.T) pluginapi.Transport {
			client, err := pluginapi.NewClient(pluginapi.ClientConfig{
				Path:   filepath.Join(binDir, "mcp-transport-sse"),
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
	for name, tr := range transports {
		t.Run(name, func(t *testing.T) {
			srv := startServer(t, "sse-bridge", "-faithful")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cfg, _ := json.Marshal(map[string]any{"url": srv.URL})
			conn, err := tr(t).Open(ctx, pluginapi.OpenRequest{ServerName: "bridge", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			exchange := func(msg string) json.RawMessage {
				t.Helper()
				if err := conn.Send(ctx, json.RawMessage(msg)); err != nil {
					t.Fatalf("send %s: %v", msg, err)
				}
				got, err := conn.Recv(ctx)
				if err != nil {
					t.Fatalf("recv after %s: %v", msg, err)
				}
				return got
			}
			exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
				`"capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			if err := conn.Send(ctx, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
				t.Fatal(err)
			}
			asked := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"prompt":"hi"}}}`)
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(asked, &req); err != nil || req.Method != "sampling/createMessage" || len(req.ID) == 0 {
				t.Fatalf("the host got %s; want the server's sampling/createMessage request", asked)
			}
			result := exchange(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"role":"assistant",` +
				`"content":{"type":"text","text":"answered by the host"},"model":"m"}}`)
			if !strings.Contains(string(result), `"id":2`) || !strings.Contains(string(result), "answered by the host") {
				t.Errorf("the call answered %s; want its result with the host's answer", result)
			}
		})
	}
}
