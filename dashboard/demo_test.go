package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoServers is a small, realistic set for the screenshots: a few
// connected servers, one that fails, one disabled.
func demoServers() map[string]any {
	gh := testServer(map[string]string{"GITHUB_TOKEN": "ghp_demo-secret-value"}, "-name", "github", "-tools", "6")
	gh["deferred"] = false
	fs := testServer(nil, "-name", "filesystem", "-tools", "12")
	mem := testServer(nil, "-name", "memory", "-tools", "4")
	broken := map[string]any{"enabled": true, "command": "/opt/mcp/postgres-server", "args": []string{"postgresql://localhost/app"}}
	off := testServer(nil, "-name", "slack")
	off["enabled"] = false
	return map[string]any{"github": gh, "filesystem": fs, "memory": mem, "postgres": broken, "slack": off}
}

// exerciseDemo makes a few tool calls so the charts have something to show.
func exerciseDemo(t *testing.T, s *serve) {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(s.home, ".plughost", "gateway.token"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		tool := []string{"mcp_github_echo", "mcp_filesystem_echo", "mcp_memory_noop"}[i%3]
		body := `{"text": "hello"}`
		if strings.HasSuffix(tool, "noop") {
			body = `{}`
		}
		req, _ := http.NewRequestWithContext(context.Background(), "POST", s.base+"/api/tools/"+tool+"/call", bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 && i < 3 {
			fmt.Fprintf(os.Stderr, "demo call %s: %s %s\n", tool, resp.Status, b)
		}
	}
}
