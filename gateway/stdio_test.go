package gateway_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/gateway"
)

// Over stdio the one session sees the tools, calls them, and is told when
// a search unlocked some.
func TestStdio(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"s": testserver(nil)}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true}
	})
	c := start(t, stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio))
	if diff := cmp.Diff([]string{"read_file", "search_files", "tool_search_tool_bm25"}, c.toolNames(t)); diff != "" {
		t.Fatalf("tools with discovery on: want only the search and paging tools (-want +got):\n%s", diff)
	}
	c.call(t, "tool_search_tool_bm25", map[string]any{"query": "echo text unchanged"})
	c.waitChanged(t, "after a search over stdio")
	if got := c.toolNames(t); !has(got, "mcp_s_echo") {
		t.Fatalf("after the search: %v", got)
	}
	if res := c.call(t, "mcp_s_echo", map[string]any{"text": "over stdio"}); text(res) != "over stdio" {
		t.Fatalf("echo: %q", text(res))
	}
}
