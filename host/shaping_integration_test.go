//go:build unix

package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/testbin"
)

const fiveMB = 5_000_000

// withWorkspace sets tools.mcp.workspace.
func withWorkspace(ws string) func(map[string]any) {
	return func(m map[string]any) { m["workspace"] = ws }
}

// rawCall calls a tool on the server directly, past the shaping chain: what
// the server really sent, in mcp-go's type.
func rawCall(t *testing.T, h *host.Host, server, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	srv, ok := h.Server(server)
	if !ok {
		t.Fatalf("no server %s", server)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := srv.CallTool(ctx, supervisor.ToolCall{Tool: tool, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	return res.ToMCP()
}

// checkBounded checks the inline text of a shaped 5 MB-class result against
// the full text the server sent, and returns the artifact's path.
func checkBounded(t *testing.T, inline, full, artifactDir string) string {
	t.Helper()
	const budget, head, tail = 16384, 6553, 9831
	total := len(full) // ASCII
	i := strings.LastIndex(inline, "\n[file:")
	if i < 0 || !strings.HasSuffix(inline, "]") {
		t.Fatalf("no [file:...] reference at the end: %q", inline[max(0, len(inline)-200):])
	}
	path := inline[i+len("\n[file:") : len(inline)-1]
	want := full[:head] + fmt.Sprintf("\n[MCP RESULT TRUNCATED - %d chars omitted out of %d total]\n", total-budget, total) + full[total-tail:]
	if inline[:i] != want {
		t.Errorf("bounded text is not head 6553 + exact notice + tail 9831 (got %d chars)", len(inline[:i]))
	}
	if filepath.Dir(path) != artifactDir {
		t.Errorf("artifact in %s, want %s", filepath.Dir(path), artifactDir)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != full {
		t.Errorf("artifact (%d bytes) is not the full payload (%d bytes) byte for byte", len(saved), len(full))
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("artifact mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	return path
}

func TestLargeResultThroughPlugin(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	ws := t.TempDir()
	h := startHost(t, map[string]any{
		"demo": map[string]any{"enabled": true, "command": bins.Path("plughost"), "args": []string{"demo-server"}},
	}, withWorkspace(ws))
	if st := state(h, "demo"); st.State != supervisor.StateConnected {
		t.Fatalf("demo: %+v", st)
	}
	s := h.NewSession()
	args := map[string]any{"chars": fiveMB, "seed": 7}
	full := text(t, host.FromMCP(rawCall(t, h, "demo", "generate_text", args)))
	if len(full) != fiveMB {
		t.Fatalf("server sent %d chars", len(full))
	}
	res := call(t, s, "mcp_demo_generate_text", args)
	path := checkBounded(t, text(t, res), full, filepath.Join(ws, ".artifacts", "mcp"))

	// read_file pages the artifact.
	page := text(t, call(t, s, "read_file", map[string]any{"path": path, "offset": 2, "limit": 2}))
	lines := strings.Split(full, "\n")
	n := len(lines)
	if strings.HasSuffix(full, "\n") {
		n--
	}
	want := fmt.Sprintf("%s: lines 2-3 of %d\n%6d\t%s\n%6d\t%s\n[%d more lines: call read_file with offset=4]\n",
		path, n, 2, cut(lines[1]), 3, cut(lines[2]), n-3)
	if diff := cmp.Diff(want, page); diff != "" {
		t.Errorf("read_file page (-want +got):\n%s", diff)
	}
	// search_files finds text in it; paths outside the workspace are refused.
	found := text(t, call(t, s, "search_files", map[string]any{"pattern": "^Lorem", "max_results": 3}))
	if !strings.Contains(found, path+":") {
		t.Errorf("search_files did not search the artifact:\n%s", found)
	}
	refused := call(t, s, "read_file", map[string]any{"path": "../../etc/passwd"})
	if !refused.IsError || !strings.Contains(text(t, refused), `must not contain ".."`) {
		t.Errorf("escape not refused: %+v", refused)
	}
	names := map[string]bool{}
	for _, n := range toolNames(t, s) {
		names[n] = true
	}
	if !names["read_file"] || !names["search_files"] {
		t.Errorf("session does not offer the paging tools: %v", names)
	}
	if m := h.ShapingMetrics(); m.Truncated != 1 || m.Saved != 1 {
		t.Errorf("metrics = %+v", m)
	}
}

// cut renders a line as read_file does (lines over 2000 bytes are cut).
func cut(l string) string {
	if len(l) <= 2000 {
		return l
	}
	return l[:2000] + fmt.Sprintf("… [line cut: %d more bytes]", len(l)-2000)
}

func TestLargeAndBinaryResultsFromServerEverything(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	ws := t.TempDir()
	h := startHost(t, map[string]any{
		"everything": map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"}},
	}, withWorkspace(ws))
	if st := state(h, "everything"); st.State != supervisor.StateConnected {
		t.Fatalf("everything: %+v", st)
	}
	s := h.NewSession()

	t.Run("5 MB echo bounded and saved", func(t *testing.T) {
		msg := strings.Repeat("0123456789abcdef\n", fiveMB/17+1)[:fiveMB]
		res := call(t, s, "mcp_everything_echo", map[string]any{"message": msg})
		checkBounded(t, text(t, res), "Echo: "+msg, filepath.Join(ws, ".artifacts", "mcp"))
	})
	t.Run("image kept, not inlined as text", func(t *testing.T) {
		res := call(t, s, "mcp_everything_get-tiny-image", map[string]any{})
		raw := rawCall(t, h, "everything", "get-tiny-image", map[string]any{})
		if diff := cmp.Diff(raw.Content, res.ToMCP().Content); diff != "" {
			t.Errorf("content changed (-raw +shaped):\n%s", diff)
		}
		img := res.Content[1]
		if img.Type != host.ContentImage || len(img.Data) < 1000 || strings.Contains(text(t, res), img.Data[:100]) {
			t.Errorf("image not kept apart from the text: %+v", res.Content)
		}
	})
	t.Run("structuredContent untouched", func(t *testing.T) {
		args := map[string]any{"location": "Chicago"}
		res := call(t, s, "mcp_everything_get-structured-content", args).ToMCP()
		raw := rawCall(t, h, "everything", "get-structured-content", args)
		if res.StructuredContent == nil || !cmp.Equal(raw.StructuredContent, res.StructuredContent) || !cmp.Equal(raw.Content, res.Content) {
			t.Errorf("structured result changed: raw %+v shaped %+v", raw, res)
		}
	})
	t.Run("resource links summarized", func(t *testing.T) {
		res := call(t, s, "mcp_everything_get-resource-links", map[string]any{"count": 2})
		got := text(t, res)
		if !strings.Contains(got, "[resource link: Blob Resource 1 <") || !strings.Contains(got, "[resource link: Text Resource 2 <") {
			t.Errorf("links not summarized: %q", got)
		}
		links := 0
		for _, c := range res.Content {
			if c.Type == host.ContentResourceLink {
				links++
			}
		}
		if links != 2 {
			t.Errorf("resource links not kept for the caller: %+v", res.Content)
		}
	})
}
