//go:build unix

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/proctree"
)

// kill -9 of serve while clients call through the gateway leaves no torn
// line: every line of every audit file parses, and the secrets (one
// configured, one only in arguments) appear nowhere.
func TestAuditSurvivesKill(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	const envSecret, argSecret = "canary-env-kill-71c0", "canary-arg-kill-2b9e"
	srv := testserver()
	srv["env"] = map[string]any{"API_TOKEN": envSecret}
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": srv},
		"audit": map[string]any{"max_file_mb": 0.02, "max_files": 3}}))
	procs := proctree.Descendants(g.pid)
	t.Cleanup(func() { proctree.Kill(procs) })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var calls atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 8 {
		mc := gatewayClient(ctx, t, g)
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = "mcp_one_echo", map[string]any{"text": argSecret + strings.Repeat("x", i*n%300)}
				if _, err := mc.CallTool(ctx, req); err != nil {
					return // serve was killed
				}
				calls.Add(1)
			}
		})
	}
	for calls.Load() < 300 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(g.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()

	dir := filepath.Join(c.home, ".plughost", "audit")
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(names) < 2 || len(names) > 4 {
		t.Errorf("audit files %v: want the current one and 1 to 3 rotated ones", names)
	}
	lines := 0
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{envSecret, argSecret} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("%s shows %q", name, secret)
			}
		}
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			t.Errorf("%s ends in a torn line: %q", name, raw[max(0, len(raw)-200):])
		}
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			var r struct{ Method, Outcome string }
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Method == "" || r.Outcome == "" {
				t.Errorf("%s: line %q: %v", name, sc.Text(), err)
			}
			lines++
		}
	}
	if lines == 0 {
		t.Errorf("no audit line written for %d calls", calls.Load())
	}
	t.Logf("%d calls before kill -9, %d lines in %d files", calls.Load(), lines, len(names))
}

// gatewayClient is an initialized MCP client of g.
func gatewayClient(ctx context.Context, t *testing.T, g servedGateway) *client.Client {
	t.Helper()
	return mcpClient(ctx, t, g.url, g.token)
}

// mcpClient is an initialized MCP client of the gateway endpoint url,
// sending token; it is closed when the test ends.
func mcpClient(ctx context.Context, t *testing.T, url, token string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	mc := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mc.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := mc.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return mc
}
