package jsonedit

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigConfig is a pretty-printed config with n stdio servers.
func bigConfig(n int) []byte {
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("server-%03d", i)] = map[string]any{
			"enabled": true, "command": "npx", "args": []string{"-y", fmt.Sprintf("@example/server-%d", i)},
			"env": map[string]string{"TOKEN": "secret"},
		}
	}
	b, _ := json.MarshalIndent(map[string]any{"tools": map[string]any{"mcp": map[string]any{"enabled": true, "servers": servers}}}, "", "  ")
	return b
}

// BenchmarkSet adds one server to a config of 200 (about 30 KB).
func BenchmarkSet(b *testing.B) {
	data := bigConfig(200)
	entry := map[string]any{"enabled": true, "command": "node", "args": []string{"x.js"}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Set(data, entry, "tools", "mcp", "servers", "new.server"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDelete removes one server from a config of 200.
func BenchmarkDelete(b *testing.B) {
	data := bigConfig(200)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Delete(data, "tools", "mcp", "servers", "server-100"); err != nil {
			b.Fatal(err)
		}
	}
}
