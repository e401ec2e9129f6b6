//go:build unix

package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const demoNotice = "using the built-in demo config"

// With no config anywhere, every command runs the built-in demo server.
func TestDemoConfigWithoutUserConfig(t *testing.T) {
	c := newCLI(t)
	t.Parallel()

	t.Run("mcp list", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "mcp", "list")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, demoNotice, c.userConfig())
		if diff := cmp.Diff(map[string]string{"demo": "connected, 7 tools"}, summaries(listRows(t, r.stdout))); diff != "" {
			t.Errorf("mcp list (-want +got):\n%s\n%s", diff, r)
		}
	})

	t.Run("tools", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "tools")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		wantContains(t, "stderr", r.stderr, demoNotice)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		var names []string
		for _, l := range lines[1:] {
			names = append(names, strings.Fields(l)[0])
		}
		want := []string{
			"mcp_demo_calculate", "mcp_demo_current_time", "mcp_demo_echo", "mcp_demo_generate_text",
			"mcp_demo_hash", "mcp_demo_sleep", "mcp_demo_text_stats",
			"read_file", "search_files", // the paging tools for saved results
		}
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("tool names (-want +got):\n%s\n%s", diff, r)
		}
	})

	t.Run("call calculate", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "call", "mcp_demo_calculate", `{"expression":"2*(3+4)"}`)
		if r.code != 0 || r.stdout != "14\n" {
			t.Errorf(`want exit 0 and stdout "14\n", got %s`, r)
		}
	})

	t.Run("call echo --json", func(t *testing.T) {
		t.Parallel()
		r := c.run(t, "call", "mcp_demo_echo", `{"text":"hi"}`, "--json")
		if r.code != 0 {
			t.Fatalf("want exit 0, got %s", r)
		}
		type content struct{ Type, Text string }
		var got struct {
			Content []content `json:"content"`
			IsError bool      `json:"isError"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("stdout is not a JSON CallToolResult: %v\n%s", err, r)
		}
		want := []content{{Type: "text", Text: "hi"}}
		if diff := cmp.Diff(want, got.Content); diff != "" || got.IsError {
			t.Errorf("result content (-want +got):\n%s\nisError %v", diff, got.IsError)
		}
	})
}
