package gateway_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/internal/testbin"
)

// server-everything behind the stdio gateway: each tools/call,
// resources/read, prompts/get and relayed sampling request is one audit
// line, and an argument's text is nowhere in the file.
func TestEverythingAudit(t *testing.T) {
	integration(t)
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	const argSecret = "canary-everything-arg-5e1d"
	dir := t.TempDir()
	h := startHost(t, map[string]any{
		"everything": map[string]any{"enabled": true, "command": "node", "args": []string{everything, "stdio"}},
	}, func(m map[string]any) {
		m["audit"] = map[string]any{"enabled": true, "dir": dir, "max_file_mb": 1, "max_files": 1}
	})
	c := startFaithful(t, stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio), true)

	c.call(t, "mcp_everything_echo", map[string]any{"message": argSecret})
	c.call(t, "mcp_everything_trigger-sampling-request", map[string]any{"prompt": argSecret, "maxTokens": 5})
	list, err := c.ListResources(ctx20(t), mcp.ListResourcesRequest{})
	if err != nil || len(list.Resources) == 0 {
		t.Fatalf("resources/list: %v, %v", list, err)
	}
	if _, err := c.ReadResource(ctx20(t), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: list.Resources[0].URI}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPrompt(ctx20(t), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "mcp_everything_args-prompt", Arguments: map[string]string{"city": argSecret}}}); err != nil {
		t.Fatal(err)
	}
	h.Close() // writes out what is queued

	raw, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), argSecret) {
		t.Errorf("the audit file shows an argument:\n%s", raw)
	}
	var got []string
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		var r struct{ Client, Server, Method, Name, Outcome string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if r.Name == list.Resources[0].URI {
			r.Name = "<first resource>"
		}
		got = append(got, strings.Join([]string{r.Client, r.Server, r.Method, r.Name, r.Outcome}, " "))
	}
	want := []string{
		"admin everything tools/call echo ok",
		"admin everything sampling/createMessage  ok",
		"admin everything tools/call trigger-sampling-request ok",
		"admin everything resources/read <first resource> ok",
		"admin everything prompts/get args-prompt ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s\n%s", diff, raw)
	}
}
