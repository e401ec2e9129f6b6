//go:build unix

package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// `plughost call --json` prints a tool result with every member the server
// sent, and the plain form still prints the text of an item that has
// members of its own.
func TestCallJSONKeepsEveryMember(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"v": testserver("-vendor-result")}}))
	r := c.run(t, "call", "mcp_v_vendor_result", "{}", "--json")
	if r.code != 0 {
		t.Fatalf("want exit 0, got %s", r)
	}
	d := json.NewDecoder(strings.NewReader(r.stdout))
	d.UseNumber()
	var got struct {
		Meta    map[string]map[string]any `json:"_meta"`
		Trace   map[string]any            `json:"x-trace"`
		Content []map[string]any          `json:"content"`
	}
	if err := d.Decode(&got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	if got.Meta["io.example/trace"]["big"] != json.Number("12345678901234567890") || got.Trace == nil ||
		len(got.Content) != 3 || got.Content[0]["x-lang"] != "en" || got.Content[1]["x-alt"] != "a cat" {
		t.Errorf("members the server sent are missing:\n%s", r)
	}
	r = c.run(t, "call", "mcp_v_vendor_result", "{}")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "vendor text\n[image image/png") {
		t.Errorf("plain call: want the item's text, then the image summary; got %s", r)
	}
}
