package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/testwait"
)

// Two sessions of one gateway keep their own unlocks: a search in one
// shows the found tools there only (with list_changed), the other still
// sees only the search tool and the pinned server; the unlock expires after
// ttl turns (with list_changed), and a hidden tool called by its exact name
// runs and is unlocked in that session only.
func TestSessionsHaveTheirOwnUnlocks(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{
		"hidden": testserver(nil),
		"pinned": testserver(map[string]any{"deferred": false}),
	}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "ttl": 2, "max_search_results": 3}
	})
	url, _ := serveHTTP(t, h)
	a, b := connect(t, url), connect(t, url)

	base := []string{"mcp_pinned_add_tool", "mcp_pinned_big", "mcp_pinned_crash", "mcp_pinned_echo", "mcp_pinned_env",
		"mcp_pinned_headers", "mcp_pinned_noop", "mcp_pinned_pid", "mcp_pinned_remove_tool", "mcp_pinned_sleep",
		"mcp_pinned_stderr", "read_file", "search_files", "tool_search_tool_bm25"}
	for _, c := range []*mcpClient{a, b} {
		if diff := cmp.Diff(base, c.toolNames(t)); diff != "" {
			t.Fatalf("initial tools (-want +got):\n%s", diff)
		}
	}

	res := a.call(t, "tool_search_tool_bm25", map[string]any{"query": "returns text unchanged echo"})
	if res.IsError || !strings.Contains(text(res), "mcp_hidden_echo") {
		t.Fatalf("search result: %v %q", res.IsError, text(res))
	}
	a.waitChanged(t, "after a search unlocked tools")
	if got := a.toolNames(t); !has(got, "mcp_hidden_echo") {
		t.Fatalf("session A after the search: %v, want mcp_hidden_echo", got)
	}
	if got := b.toolNames(t); has(got, "mcp_hidden_echo") {
		t.Fatalf("session B sees A's unlock: %v", got)
	}
	select {
	case <-b.changed:
		t.Fatal("session B got list_changed for session A's unlock")
	case <-time.After(200 * time.Millisecond):
	}

	// B calls a hidden tool by its exact name: it runs and is unlocked in B.
	if res := b.call(t, "mcp_hidden_pid", nil); res.IsError {
		t.Fatalf("exact-name call of a hidden tool: %q", text(res))
	}
	b.waitChanged(t, "after an exact-name call unlocked a tool")
	if got := b.toolNames(t); !has(got, "mcp_hidden_pid") || has(got, "mcp_hidden_echo") {
		t.Fatalf("session B: %v, want mcp_hidden_pid and not mcp_hidden_echo", got)
	}

	// ttl 2: A's unlock survives one non-search call and ends with the second.
	a.drain()
	if res := a.call(t, "mcp_pinned_noop", nil); res.IsError {
		t.Fatal(text(res))
	}
	if got := a.toolNames(t); !has(got, "mcp_hidden_echo") {
		t.Fatalf("unlock expired after one turn of two: %v", got)
	}
	if res := a.call(t, "mcp_pinned_noop", nil); res.IsError {
		t.Fatal(text(res))
	}
	a.waitChanged(t, "after the unlock expired")
	if got := a.toolNames(t); has(got, "mcp_hidden_echo") {
		t.Fatalf("unlock still visible after ttl turns: %v", got)
	}
}

// An unknown tool is refused with the closest names; bad arguments and a
// tool's own failure come back as isError results.
func TestErrors(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"s": testserver(nil)}, nil)
	url, _ := serveHTTP(t, h)
	c := connect(t, url)

	_, err := c.tryCall("mcp_s_ech", map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "mcp_s_ech"`) || !strings.Contains(err.Error(), "mcp_s_echo") {
		t.Fatalf("unknown tool: err = %v, want one naming the tool and mcp_s_echo", err)
	}
	res := c.call(t, "mcp_s_echo", map[string]any{"text": "hello"})
	if res.IsError || text(res) != "hello" {
		t.Fatalf("echo: %v %q", res.IsError, text(res))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "mcp_s_echo", []string{"not", "an", "object"}
	res, err = c.CallTool(ctx, req)
	if err != nil || !res.IsError || !strings.Contains(text(res), "must be a JSON object") || !strings.Contains(text(res), "mcp_s_echo") {
		t.Fatalf("arguments that are no object: %v %+v, want an isError result naming the tool and saying why", err, res)
	}
	// A sleep longer than the call timeout: an isError result naming the setting.
	h2 := startHost(t, map[string]any{"slow": testserver(map[string]any{"timeouts": map[string]any{"call_seconds": 0.3}})}, nil)
	url2, _ := serveHTTP(t, h2)
	c2 := connect(t, url2)
	res = c2.call(t, "mcp_slow_sleep", map[string]any{"seconds": 5})
	if !res.IsError || !strings.Contains(text(res), "call_seconds") {
		t.Fatalf("timeout: isError=%v %q, want an isError result naming call_seconds", res.IsError, text(res))
	}
}

// A server that crashes while a client is connected fails only its own
// calls (as isError results), the other server keeps working, its tools
// stay listed while it restarts — the client's list does not flap, so it
// gets no list_changed — and the server comes back.
func TestUpstreamCrash(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"a": testserver(nil), "b": testserver(nil)}, nil)
	url, _ := serveHTTP(t, h)
	c := connect(t, url)
	before := c.toolNames(t)
	if !has(before, "mcp_a_echo") || !has(before, "mcp_b_echo") {
		t.Fatalf("tools: %v", before)
	}
	c.drain()
	res := c.call(t, "mcp_a_crash", nil)
	if !res.IsError || !strings.Contains(text(res), "crash") {
		t.Fatalf("call that crashed its server: isError=%v %q, want an isError result saying it crashed", res.IsError, text(res))
	}
	if res := c.call(t, "mcp_b_echo", map[string]any{"text": "still here"}); res.IsError || text(res) != "still here" {
		t.Errorf("other server after the crash: %v %q", res.IsError, text(res))
	}
	if got := c.toolNames(t); !cmp.Equal(got, before) {
		t.Errorf("tools while a restarts: %v, want the same list as before %v", got, before)
	}
	testwait.Eventually(t, 30*time.Second, `server "a" to answer again`, func() bool {
		res := c.call(t, "mcp_a_echo", map[string]any{"text": "back"})
		if !res.IsError && text(res) == "back" {
			return true
		}
		if !strings.Contains(text(res), `server "a"`) {
			t.Fatalf("call during the restart: %q, want an isError result naming server \"a\" until it is back", text(res))
		}
		return false
	})
	select {
	case <-c.changed:
		t.Error("list_changed for a crash and restart that left the list as it was")
	case <-time.After(200 * time.Millisecond):
	}
}

// When an upstream server's tool list changes, every connected session is
// told and sees the new tool; with discovery on, a new tool of a deferred
// server stays hidden (no notification for a list that did not change).
func TestUpstreamListChanged(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{
		"a":      testserver(map[string]any{"deferred": false}),
		"hidden": testserver(nil),
	}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true}
		m["trust"] = map[string]any{"mode": "off"} // tools added upstream are listed at once (trust_test.go covers pinning)
	})
	url, _ := serveHTTP(t, h)
	c, other := connect(t, url), connect(t, url)
	if got := other.toolNames(t); has(got, "mcp_a_extra") {
		t.Fatalf("tool exists before add_tool: %v", got)
	}
	other.drain()
	if res := c.call(t, "mcp_a_add_tool", map[string]any{"name": "extra"}); res.IsError {
		t.Fatal(text(res))
	}
	other.waitChanged(t, "after the upstream server added a tool")
	other.waitTools(t, "mcp_a_extra", func(n []string) bool { return has(n, "mcp_a_extra") })

	// A deferred server's new tool does not change what sessions see. The
	// exact-name call of add_tool unlocks add_tool itself (one notification);
	// the tool it adds stays hidden (no second one).
	other.drain()
	c.drain()
	if res := c.call(t, "mcp_hidden_add_tool", map[string]any{"name": "secret"}); res.IsError {
		t.Fatal(text(res))
	}
	c.waitChanged(t, "after the exact-name call unlocked mcp_hidden_add_tool")
	added := func() bool { _, ok := h.Registry().Lookup("mcp_hidden_secret"); return ok }
	if !testwait.Until(2*time.Second, added) {
		t.Fatal("mcp_hidden_secret never reached the registry")
	}
	select {
	case <-other.changed:
		t.Error("list_changed for a hidden server's new tool")
	case <-time.After(300 * time.Millisecond):
	}
	if got := other.toolNames(t); has(got, "mcp_hidden_secret") || has(got, "mcp_hidden_add_tool") {
		t.Errorf("other session sees hidden tools: %v", got)
	}
}
