package gateway_test

import (
	"context"
	"github.com/google/go-cmp/cmp"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/gateway"
)

// Over stdio the one session sees the tools, calls them, and is told when
// a search unlocked some.
func TestStdio(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"s": testserver(nil)}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true}
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- gateway.New(h, gateway.Options{}).ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	errR, errW := io.Pipe() // the client's "stderr": nothing is written to it
	t.Cleanup(func() { errW.Close() })
	c := start(t, transport.NewIO(outR, inW, errR))
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
