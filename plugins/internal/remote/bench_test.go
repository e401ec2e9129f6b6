package remote

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/plughost/plughost/pluginapi"
)

// BenchmarkHTTPRoundTrip measures one tools/call through the http transport
// in process (no plugin hop): the cost reqconn and mcp-go add per message.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	srv := startServer(b, KindHTTP)
	cfg, _ := json.Marshal(map[string]any{"url": srv.URL})
	conn, err := New(KindHTTP, nil, nil).Open(context.Background(), pluginapi.OpenRequest{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	send := func(id int, method string, params any) json.RawMessage {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err := conn.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
		for {
			m, err := conn.Recv(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var r struct{ ID *int }
			if json.Unmarshal(m, &r) == nil && r.ID != nil && *r.ID == id {
				return m
			}
		}
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "b", "version": "1"}})
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	conn.Send(ctx, note)
	i := 10
	for b.Loop() {
		i++
		send(i, "tools/call", map[string]any{"name": "noop", "arguments": map[string]any{}})
	}
}
