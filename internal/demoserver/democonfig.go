package demoserver

import "encoding/json"

// Config returns the built-in demo configuration: MCP enabled and one stdio
// server, "demo", that runs `<executable> demo-server`. plughost uses it when
// the user has no config file, so something useful happens with no setup.
func Config(executable string) []byte {
	cfg := map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true,
		"servers": map[string]any{
			"demo": map[string]any{
				"enabled": true,
				"command": executable,
				"args":    []string{"demo-server"},
			},
		},
	}}}
	b, _ := json.MarshalIndent(cfg, "", "  ") // a map of plain values always encodes
	return b
}
