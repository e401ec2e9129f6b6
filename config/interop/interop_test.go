package interop

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/secret"
)

func TestImport(t *testing.T) {
	tests := []struct {
		name, in, format string
		wantFormat       string
		want             []Imported
		notes            []string // substrings, one per note
		err              string
	}{
		{
			name: "claude desktop, file order kept",
			in: `{"mcpServers": {"zeta": {"command": "npx", "args": ["-y", "x"], "env": {"T": "s3cret"}},
				"alpha": {"url": "https://e.example/mcp", "type": "streamableHttp", "headers": {"A": "b"}, "disabled": true}}}`,
			wantFormat: Claude,
			want: []Imported{
				{"zeta", config.Server{Enabled: true, Command: "npx", Args: []string{"-y", "x"}, Env: map[string]secret.String{"T": "s3cret"}}},
				{"alpha", config.Server{Type: "http", URL: "https://e.example/mcp", Headers: map[string]secret.String{"A": "b"}}},
			},
		},
		{
			name:   "cursor with unknown fields",
			in:     `{"mcpServers": {"fs": {"command": "node", "cwd": "/x", "autoApprove": []}}}`,
			format: Cursor, wantFormat: Cursor,
			want:  []Imported{{"fs", config.Server{Enabled: true, Command: "node"}}},
			notes: []string{`"autoApprove" has no plughost equivalent`, `"cwd" has no plughost equivalent`},
		},
		{
			name:       "vscode mcp.json with an input variable",
			in:         `{"inputs": [], "servers": {"gh": {"type": "stdio", "command": "gh-mcp", "envFile": "${workspaceFolder}/.env", "env": {"TOKEN": "${input:tok}"}}}}`,
			wantFormat: VSCode,
			want:       []Imported{{"gh", config.Server{Enabled: true, Type: "stdio", Command: "gh-mcp", EnvFile: "${workspaceFolder}/.env", Env: map[string]secret.String{"TOKEN": "${input:tok}"}}}},
			notes:      []string{"envFile contains a ${...} variable", "env.TOKEN contains a ${...} variable"},
		},
		{
			name:       "vscode settings.json",
			in:         `{"editor.fontSize": 12, "mcp": {"servers": {"r": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}}`,
			wantFormat: VSCode,
			want:       []Imported{{"r", config.Server{Enabled: true, Type: "sse", URL: "http://127.0.0.1:1/sse"}}},
		},
		{name: "format mismatch", in: `{"mcpServers": {}}`, format: VSCode, err: `expected a top-level "servers" or "mcp.servers" object`},
		{name: "no server list", in: `{"x": 1}`, err: `"mcpServers" (claude, cursor) or "servers"`},
		{name: "not JSON", in: `{"mcpServers": `, err: "not valid JSON"},
		{name: "unknown format", in: `{}`, format: "zed", err: `unknown format "zed"`},
		{name: "wrong type, no value shown", in: `{"mcpServers": {"a": {"env": {"K": 12345}}}}`, err: `server "a": field "env" must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import([]byte(tt.in), tt.format)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "12345") {
					t.Errorf("the error shows a value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tt.wantFormat {
				t.Errorf("format = %q, want %q", res.Format, tt.wantFormat)
			}
			if diff := cmp.Diff(tt.want, res.Servers); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
			if len(res.Notes) != len(tt.notes) {
				t.Fatalf("notes = %q, want %d", res.Notes, len(tt.notes))
			}
			for i, n := range tt.notes {
				if !strings.Contains(res.Notes[i], n) {
					t.Errorf("note %d = %q, want it to contain %q", i, res.Notes[i], n)
				}
			}
		})
	}
}

func TestExportRoundTrip(t *testing.T) {
	no := false
	servers := map[string]config.Server{
		"local":  {Enabled: true, Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]secret.String{"TOKEN": "tok-123"}, DeferredOverride: &no},
		"remote": {Enabled: true, Type: "http", URL: "https://e.example/mcp", Headers: map[string]secret.String{"Authorization": "Bearer abc"}},
		"legacy": {Enabled: true, URL: "https://e.example/sse"},
		"off":    {Enabled: false, Command: "x"},
		"slack":  {Enabled: true, Type: "slack", Command: "npx"},
	}
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			masked, notes, err := Export(servers, format, false)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(masked); strings.Contains(s, "tok-123") || strings.Contains(s, "Bearer abc") {
				t.Errorf("masked export shows a secret:\n%s", s)
			}
			for _, want := range []string{`"off" is disabled`, `"slack" uses the "slack" transport`, `"local": "deferred"`} {
				if !strings.Contains(strings.Join(notes, "\n"), want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
			b, _, err := Export(servers, format, true)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Import(b, "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]config.Server{}
			for _, s := range res.Servers {
				got[s.Name] = s.Server
			}
			want := map[string]config.Server{
				"local":  {Enabled: true, Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]secret.String{"TOKEN": "tok-123"}},
				"remote": {Enabled: true, Type: "http", URL: "https://e.example/mcp", Headers: map[string]secret.String{"Authorization": "Bearer abc"}},
				"legacy": {Enabled: true, URL: "https://e.example/sse"},
			}
			// The detected transport is written out, so it survives.
			want["legacy"] = config.Server{Enabled: true, Type: "sse", URL: "https://e.example/sse"}
			if format == VSCode {
				l := want["local"]
				l.Type = "stdio"
				want["local"] = l
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
