package gateway_test

import (
	"regexp"
	"strings"
	"testing"
)

// A large result reaches an MCP client of the gateway bounded, with the
// truncation notice and a [file:...] reference, and the client pages the
// full payload with read_file and search_files through the same gateway.
func TestLargeResultThroughGateway(t *testing.T) {
	integration(t)
	ws := t.TempDir()
	h := startHost(t, map[string]any{"s": testserver(nil)}, func(m map[string]any) {
		m["workspace"] = ws
		m["max_inline_text_chars"] = 1000
	})
	url, _ := serveHTTP(t, h)
	c := connect(t, url)

	names := c.toolNames(t)
	if !has(names, "read_file") || !has(names, "search_files") {
		t.Fatalf("tools/list = %v, want read_file and search_files", names)
	}
	const total = 2_000_000
	res := c.call(t, "mcp_s_big", map[string]any{"chars": total})
	got := text(res)
	notice := "[MCP RESULT TRUNCATED - 1999000 chars omitted out of 2000000 total]"
	if res.IsError || !strings.Contains(got, notice) {
		t.Fatalf("big result: isError=%v, %d chars, want the notice %q", res.IsError, len(got), notice)
	}
	if head := strings.Repeat("x", 400) + "\n" + notice; !strings.HasPrefix(got, head) {
		t.Errorf("bounded text does not start with 400 chars of the head and the notice: %.500q", got)
	}
	m := regexp.MustCompile(`\[file:([^\]]+)\]`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no [file:...] reference in %.2000q", got)
	}
	page := c.call(t, "read_file", map[string]any{"path": m[1]})
	if page.IsError || !strings.Contains(text(page), strings.Repeat("x", 500)) {
		t.Fatalf("read_file %s: isError=%v %.300q", m[1], page.IsError, text(page))
	}
	found := c.call(t, "search_files", map[string]any{"pattern": "x{50}"})
	if found.IsError || !strings.Contains(text(found), m[1][strings.LastIndex(m[1], "/")+1:]) {
		t.Fatalf("search_files: isError=%v %.500q, want a match in %s", found.IsError, text(found), m[1])
	}
	escape := c.call(t, "read_file", map[string]any{"path": "../../etc/passwd"})
	if !escape.IsError {
		t.Errorf("read_file outside the workspace: %.200q, want an isError result", text(escape))
	}
}
