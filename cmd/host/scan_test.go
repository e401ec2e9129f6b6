//go:build unix

package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpus is a file of host/toolscan's test corpus.
func corpus(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "host", "toolscan", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// scanJSON is what mcp scan --json prints.
type scanJSON struct {
	Tools []struct {
		Name     string              `json:"name"`
		Server   string              `json:"server"`
		Findings []map[string]string `json:"findings"`
	} `json:"tools"`
}

func TestScanToolsFile(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	t.Run("poisoned", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--tools", corpus(t, "poisoned.json"))
		if r.code != 3 {
			t.Fatalf("want exit 3 (flagged)\n%s", r)
		}
		wantContains(t, "stdout", r.stdout, "add\n  model-instructions  description  Adds two numbers. <IMPORTANT>", "\nsend<U+200D>_email\n", "tools scanned,")
		wantContains(t, "stderr", r.stderr, "tools flagged by the scan")
	})
	t.Run("clean", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--tools", corpus(t, "benign.json"))
		if r.code != 0 || !strings.HasSuffix(r.stdout, " tools scanned, 0 flagged\n") || strings.Contains(r.stdout, "  ") {
			t.Fatalf("want exit 0 and only the summary\n%s", r)
		}
	})
	t.Run("json lists every tool", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--json", "--tools", corpus(t, "benign.json"))
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &top); err != nil || len(top) != 1 || top["tools"] == nil {
			t.Fatalf("want exactly {\"tools\": [...]}, got %v\n%s", err, r)
		}
		var out scanJSON
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Tools) < 30 || out.Tools[0].Findings == nil || !strings.Contains(r.stdout, `"findings": []`) {
			t.Errorf("want every tool listed with findings []\n%s", r.stdout)
		}
	})
	t.Run("json findings", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--json", "--tools", corpus(t, "poisoned.json"))
		if r.code != 3 {
			t.Fatalf("want exit 3\n%s", r)
		}
		var out scanJSON
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		f := out.Tools[0].Findings[0]
		if out.Tools[0].Name != "add" || len(f) != 3 || f["rule"] != "model-instructions" || f["field"] != "description" || f["excerpt"] == "" {
			t.Errorf("first tool %+v", out.Tools[0])
		}
	})
	t.Run("bad file", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(bad, []byte(`{"tools": [{"name": "a"}, 7]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := c.run(t, "mcp", "scan", "--tools", bad)
		if r.code != 1 {
			t.Fatalf("want exit 1\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, "bad.json", "$.tools[1]", "found a number, expected a tool object")
	})
	t.Run("missing file", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--tools", filepath.Join(t.TempDir(), "nope.json"))
		if r.code != 1 {
			t.Fatalf("want exit 1\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, "nope.json")
	})
	t.Run("file and servers", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--tools", "x.json", "github")
		if r.code != 2 {
			t.Fatalf("want exit 2 (usage)\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, "takes no server names")
	})
}

func TestScanStdin(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(ctx, "mcp", "scan", "--tools", "-")
	cmd.Stdin = strings.NewReader(`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "description": "Hi\u200bthere \u001b[8m"}]}}`)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("want exit 3, got %v\n%s", err, stdout.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "Hi<U+200B>there") || strings.Contains(out, "\x1b") {
		t.Errorf("invisible characters not shown or escapes printed raw:\n%q", out)
	}
}

// The live definitions of a configured test server, one of whose tools
// carries terminal escapes in its description.
func TestScanLive(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{
		"clean": testserver(),
		"esc":   testserver("-escapes"),
	}}))
	t.Run("all servers", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "--json")
		if r.code != 3 {
			t.Fatalf("want exit 3\n%s", r)
		}
		var out scanJSON
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		var servers []string
		flagged := map[string][]map[string]string{}
		for _, tool := range out.Tools {
			if !slices.Contains(servers, tool.Server) {
				servers = append(servers, tool.Server)
			}
			if len(tool.Findings) > 0 {
				flagged[tool.Server+"/"+tool.Name] = tool.Findings
			}
		}
		slices.Sort(servers)
		if !slices.Equal(servers, []string{"clean", "esc"}) {
			t.Errorf("servers %v, want clean and esc", servers)
		}
		fs := flagged["esc/escapes"]
		if len(fs) == 0 || fs[0]["rule"] != "hidden-text" {
			t.Errorf("esc/escapes not flagged as hidden-text: %v", flagged)
		}
	})
	t.Run("text", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "esc")
		if r.code != 3 || strings.Contains(r.stdout, "\x1b") {
			t.Fatalf("want exit 3 and no raw escapes\n%q", r.stdout)
		}
		wantContains(t, "stdout", r.stdout, "esc/escapes\n", "hidden-text", "flagged\n")
	})
	t.Run("clean server", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "clean")
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		wantContains(t, "stdout", r.stdout, " tools scanned, 0 flagged")
	})
	t.Run("unknown server", func(t *testing.T) {
		r := c.run(t, "mcp", "scan", "nosuch")
		if r.code != 2 {
			t.Fatalf("want exit 2\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, `no server named "nosuch"`, "clean, esc")
	})
}
