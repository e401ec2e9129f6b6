//go:build unix

package main_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/syncbuf"
	"github.com/plughost/plughost/internal/testbin"
)

// Reading a 1.4 MB file from the real server-filesystem through `plughost
// stdio` (the gateway): the client receives a bounded text and a bounded
// structuredContent — the bytes on the wire are logged — and the MCP
// Inspector's CLI, a client that validates results against the tool's
// outputSchema, accepts the result.
func TestStdioBoundsFilesystemRead(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	filesystem, err := testbin.NPMServer("@modelcontextprotocol/server-filesystem", "dist/index.js")
	if err != nil {
		t.Skipf("SKIPPING the server-filesystem test: %v", err)
	}
	root, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(root, "big.txt")
	var b strings.Builder
	for i := 0; b.Len() < 1_400_000; i++ {
		b.WriteString("line " + strings.Repeat("x", i%70) + "\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.json")
	writeConfig(t, path, mcpConfig(map[string]any{"enabled": true, "workspace": filepath.Join(dir, "ws"),
		"servers": map[string]any{"fs": map[string]any{"enabled": true, "command": "node", "args": []string{filesystem, root}}}}))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "--config", path, "stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen syncbuf.Buffer
	mc := client.NewClient(transport.NewIO(io.TeeReader(stdout, &seen), stdin, io.NopCloser(strings.NewReader(""))),
		client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := mc.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "mcp_fs_read_text_file", map[string]any{"path": file}
	res, err := mc.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("read_text_file: %+v %v", res, err)
	}
	stdin.Close()
	_ = cmd.Wait()
	mc.Close()
	largest := 0
	sc := bufio.NewScanner(strings.NewReader(seen.String()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		largest = max(largest, len(sc.Bytes()))
	}
	t.Logf("a %d-byte read_text_file reaches the client as a %d-byte JSON-RPC response", b.Len(), largest)
	if largest > 40_000 {
		t.Errorf("the response is %d bytes; want it bounded to about twice the 16384-char budget", largest)
	}

	dir2, err := inspectorDir()
	if err != nil {
		t.Skipf("SKIPPING the validating-client half: %v", err)
	}
	out := inspector(t, c, dir2, filepath.Join(bins, "plughost"), "--config", path, "stdio",
		"--method", "tools/call", "--tool-name", "mcp_fs_read_text_file", "--tool-arg", "path="+file)
	wantContains(t, "inspector tools/call", out, `"structuredContent"`, "[STRING CUT - ")
}
