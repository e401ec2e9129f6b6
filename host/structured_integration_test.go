//go:build unix

package host_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/internal/testbin"
)

// bigFile writes a file of about n bytes of numbered text lines.
func bigFile(t *testing.T, dir string, n int) (string, string) {
	t.Helper()
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%70))
		b.WriteString(" — données\n")
	}
	path := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b.String()
}

// server-filesystem copies a file's whole text into structuredContent
// ({"content": text}) and declares an outputSchema for it. Reading 1.4 MB
// must reach the caller bounded — text and structuredContent alike — with
// the structured copy still valid against that schema, and the whole value
// in an artifact.
func TestFilesystemReadBoundsStructuredContent(t *testing.T) {
	integration(t)
	filesystem, err := testbin.NPMServer("@modelcontextprotocol/server-filesystem", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	root, ws := t.TempDir(), t.TempDir()
	path, content := bigFile(t, root, 1_400_000)
	h := startHost(t, map[string]any{
		"fs": map[string]any{"enabled": true, "command": "node", "args": []string{filesystem, root}},
	}, withWorkspace(ws))
	s := h.NewSession()
	res := call(t, s, "mcp_fs_read_text_file", map[string]any{"path": path})
	wire, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a %d-byte read reaches the caller as %d bytes of result JSON", len(content), len(wire))
	if res.IsError || len(wire) > 40_000 {
		t.Fatalf("result of %d bytes (isError %v); want a success result within about twice the 16384-char budget", len(wire), res.IsError)
	}
	sc := res.StructuredContent
	var cut struct{ Content string }
	if json.Unmarshal(sc, &cut) != nil || !strings.Contains(cut.Content, "[STRING CUT - ") || !strings.HasPrefix(content, cut.Content[:60]) {
		t.Fatalf("structuredContent %.300s; want {\"content\": head … note … tail}", sc)
	}
	tool, ok := h.Registry().Lookup("mcp_fs_read_text_file")
	if !ok || tool.OutputSchema == nil {
		t.Fatal("read_text_file declares no outputSchema; the test needs one")
	}
	// The whole structuredContent is in the file the text names.
	text := text(t, res)
	i := strings.Index(text, "[structuredContent cut to fit")
	if i < 0 {
		t.Fatalf("no structuredContent note in the text: %q", text[max(0, len(text)-400):])
	}
	ref := text[i:]
	start := strings.Index(ref, "[file:") + len("[file:")
	saved, err := os.ReadFile(ref[start : start+strings.Index(ref[start:], "]")])
	if err != nil {
		t.Fatal(err)
	}
	var whole struct{ Content string }
	if err := json.Unmarshal(saved, &whole); err != nil || whole.Content != content {
		t.Errorf("the artifact does not hold the whole structuredContent (%d bytes, %v)", len(saved), err)
	}
	if !strings.Contains(text, "[MCP RESULT TRUNCATED - ") {
		t.Errorf("the text itself was not bounded")
	}
}
