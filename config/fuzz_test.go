package config

import (
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzLoadJSON feeds arbitrary bytes as the user file: loading, validating,
// building transport configs and printing must never panic.
func FuzzLoadJSON(f *testing.F) {
	seeds := []string{
		``, `{}`, `[]`, `null`, `{"tools":null}`, `{"tools":{"mcp":[]}}`,
		`{"tools":{"mcp":{"servers":{"a":null,"b":1,"c":{"enabled":true,"command":"x","env":{"A":1}}}}}}`,
		`{"tools":{"mcp":{"discovery":{"enabled":true,"use_bm25":false,"ttl":1e400}}}}`,
		`{"tools":{"mcp":{"servers":{"x.y":{"enabled":true,"type":"slack","extra":{"a":[1,{}]}}}}}}`,
		`{"tools":{"mcp":{"servers":{"r":{"enabled":true,"url":"https://x","oauth":{"callback_port":-1},"headers":{"Authorization":"x"}}}}}}`,
		`{"tools":{"mcp":{"timeouts":{"call_seconds":-0.0},"max_inline_text_chars":9223372036854775808}}}`,
		"{\"tools\":{\"mcp\":{\"servers\":{\"\x1f\":{\"enabled\":true,\"command\":\"c\"}}}}}",
		`{"a":1,}`, "\xef\xbb\xbf{}", `{"tools":{"mcp":{"servers":{"s":{"enabled":true,"command":"c"}}}}} {}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ld, err := Load(LoadOptions{
			UserData: data, Home: "/h", SystemDir: "/nonexistent-plughost-dir",
			Environ: []string{"PLUGHOST_TOOLS__MCP__SERVERS__S__ENABLED=true"},
			Sets:    []string{`tools.mcp.servers["x.y"].args=["a"]`},
		})
		if err != nil {
			return
		}
		p := ld.Validate(ValidateOptions{ExtraTypes: []string{"slack"}})
		_ = p.Err()
		for name, s := range ld.Config.MCP.Servers {
			_ = p.ServerErr(name)
			_ = s.Transport()
			_ = s.Deferred(true)
			_ = s.Timeouts(ld.Config.MCP.Timeouts.Durations())
			if raw, err := s.TransportConfig("/cfg"); err == nil && !json.Valid(raw) {
				t.Errorf("server %q: invalid transport config %s", name, raw)
			}
		}
		if _, err := json.Marshal(ld.Config); err != nil {
			t.Errorf("marshal config: %v", err)
		}
		_ = fmt.Sprintf("%+v", ld.Config)
	})
}
