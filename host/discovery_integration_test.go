//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/host"
)

func toolNames(t *testing.T, s *host.Session) []string {
	t.Helper()
	var out []string
	tools, err := s.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func endTurn(t *testing.T, s *host.Session) {
	t.Helper()
	if err := s.EndTurn(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// search calls a search tool and returns its text.
func search(t *testing.T, s *host.Session, tool, key, value string) string {
	t.Helper()
	res := call(t, s, tool, map[string]any{key: value})
	if res.IsError {
		t.Fatalf("%s(%q) failed: %s", tool, value, text(t, res))
	}
	return text(t, res)
}

func TestDiscoveryThroughRealPlugins(t *testing.T) {
	integration(t)
	pinned := server()
	pinned["deferred"] = false
	hidden := server()
	hidden["trust"] = "off" // its tool added at runtime is searchable at once (trust is tested in trust_integration_test.go)
	h := startHost(t, map[string]any{"pinned": pinned, "hidden": hidden}, func(c map[string]any) {
		c["discovery"] = map[string]any{"enabled": true, "ttl": 2, "max_search_results": 3, "use_bm25": true, "use_regex": true}
	})
	s, other := h.NewSession(), h.NewSession()
	names := toolNames(t, s)
	for _, want := range []string{"tool_search_tool_bm25", "tool_search_tool_regex", "mcp_pinned_echo"} {
		if !slices.Contains(names, want) {
			t.Fatalf("visible tools %v lack %s", names, want)
		}
	}
	if slices.Contains(names, "mcp_hidden_echo") {
		t.Fatalf("deferred server's tool visible before any search: %v", names)
	}
	if !slices.IsSorted(names) {
		t.Errorf("visible tools not sorted: %v", names)
	}

	found := search(t, s, "tool_search_tool_bm25", "query", "process environment variables")
	if !strings.Contains(found, "mcp_hidden_env") {
		t.Fatalf("bm25 search did not find mcp_hidden_env:\n%s", found)
	}
	if !slices.Contains(toolNames(t, s), "mcp_hidden_env") {
		t.Fatal("found tool was not unlocked")
	}
	if slices.Contains(toolNames(t, other), "mcp_hidden_env") {
		t.Fatal("an unlock leaked into another session")
	}
	endTurn(t, s)
	if !slices.Contains(toolNames(t, s), "mcp_hidden_env") {
		t.Fatal("unlock expired after one turn with ttl 2")
	}
	endTurn(t, s)
	if slices.Contains(toolNames(t, s), "mcp_hidden_env") {
		t.Fatal("unlock still visible after ttl turns")
	}

	if found := search(t, s, "tool_search_tool_regex", "pattern", "^mcp_hidden_pi"); !strings.Contains(found, "mcp_hidden_pid") {
		t.Fatalf("regex search did not find mcp_hidden_pid:\n%s", found)
	}

	// Calling a hidden tool by its exact name unlocks and runs it.
	if got := text(t, call(t, other, "mcp_hidden_echo", map[string]any{"text": "direct"})); got != "direct" {
		t.Fatalf("exact-name call: %q", got)
	}
	if !slices.Contains(toolNames(t, other), "mcp_hidden_echo") {
		t.Fatal("exact-name call did not unlock the tool")
	}

	// A tool the server adds at runtime becomes searchable (list_changed → re-index).
	call(t, other, "mcp_hidden_add_tool", map[string]any{"name": "quasar_frobnicator"})
	waitFor(t, h, "the new tool to be searchable", func() bool {
		res := call(t, s, "tool_search_tool_bm25", map[string]any{"query": "quasar frobnicator"})
		return strings.Contains(text(t, res), "mcp_hidden_quasar_frobnicator")
	})

	// No match: a helpful answer, not an empty list.
	res := call(t, s, "tool_search_tool_bm25", map[string]any{"query": "zzzxqv"})
	if got := text(t, res); !strings.Contains(got, "hidden") || strings.TrimSpace(got) == "[]" {
		t.Errorf("no-match answer unhelpful: %q", got)
	}
	// A bad regex shows the parse problem.
	res = call(t, s, "tool_search_tool_regex", map[string]any{"pattern": "(unclosed"})
	if !res.IsError || !strings.Contains(text(t, res), "missing closing )") {
		t.Errorf("bad regex: %+v", text(t, res))
	}
	raw, _ := json.Marshal(map[string]any{"query": "x"})
	if _, err := s.Call(t.Context(), "mcp_hidden_nosuch", raw); err == nil {
		t.Error("unknown tool accepted")
	}
}

func TestDiscoveryOffShowsEverything(t *testing.T) {
	integration(t)
	deferred := server()
	deferred["deferred"] = true // ignored with discovery off
	h := startHost(t, map[string]any{"a": deferred})
	names := toolNames(t, h.NewSession())
	if !slices.Contains(names, "mcp_a_echo") || slices.Contains(names, "tool_search_tool_bm25") {
		t.Fatalf("discovery off: tools %v; want every tool and no search tools", names)
	}
}
