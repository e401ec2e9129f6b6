package config

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/lib/secret"
)

func TestTransport(t *testing.T) {
	tests := []struct {
		name string
		s    Server
		want string
	}{
		{"url means sse", Server{URL: "https://x"}, "sse"},
		{"command means stdio", Server{Command: "npx"}, "stdio"},
		{"explicit stdio", Server{Type: "stdio", Command: "npx"}, "stdio"},
		{"explicit sse", Server{Type: "sse", URL: "https://x"}, "sse"},
		{"explicit http", Server{Type: "http", URL: "https://x"}, "http"},
		{"streamable-http is http", Server{Type: "streamable-http", URL: "https://x"}, "http"},
		{"explicit type wins over detection", Server{Type: "http", Command: "c", URL: "https://x"}, "http"},
		{"third-party type kept", Server{Type: "websocket", URL: "wss://x"}, "websocket"},
		{"neither", Server{}, ""},
		{"both without type", Server{Command: "c", URL: "https://x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Transport(); got != tt.want {
				t.Errorf("Transport() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDeferred is the spec's truth table: with discovery off, deferred is
// ignored and tools stay visible; with it on, an omitted deferred follows
// the global default (deferred), false pins the server visible and true
// defers it.
func TestDeferred(t *testing.T) {
	tests := []struct {
		name      string
		discovery bool
		deferred  *bool
		want      bool
	}{
		{"off, omitted", false, nil, false},
		{"off, false", false, ptr(false), false},
		{"off, true is ignored", false, ptr(true), false},
		{"on, omitted follows global", true, nil, true},
		{"on, false pins visible", true, ptr(false), false},
		{"on, true defers", true, ptr(true), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Server{DeferredOverride: tt.deferred}).Deferred(tt.discovery); got != tt.want {
				t.Errorf("Deferred(%v) = %v, want %v", tt.discovery, got, tt.want)
			}
		})
	}
}

// TestDeferredFromJSON runs the spec's second example through Load.
func TestDeferredFromJSON(t *testing.T) {
	ld := loadUser(t, `{"tools": {"mcp": {"enabled": true,
  "discovery": {"enabled": true, "ttl": 5, "max_search_results": 5, "use_bm25": true},
  "servers": {
    "filesystem": {"enabled": true, "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/workspace"], "deferred": false},
    "context7": {"enabled": true, "command": "npx", "args": ["-y", "@upstash/context7-mcp"]},
    "aws": {"enabled": true, "command": "npx", "args": ["-y", "aws-mcp-server"], "deferred": true}}}}}`)
	if p := ld.Validate(ValidateOptions{}); !p.Empty() {
		t.Fatalf("problems: %v", messages(p.All()))
	}
	got := map[string][2]bool{}
	for name, s := range ld.Config.MCP.Servers {
		got[name] = [2]bool{s.Deferred(true), s.Deferred(false)}
	}
	want := map[string][2]bool{"filesystem": {false, false}, "context7": {true, false}, "aws": {true, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("[discovery on, off] mismatch (-want +got):\n%s", diff)
	}
}

func TestTimeouts(t *testing.T) {
	global := TimeoutSeconds{Start: 15, Initialize: 30, ListTools: 30, Call: 120}.Durations()
	tests := []struct {
		name string
		o    TimeoutOverrides
		want Timeouts
	}{
		{"no overrides", TimeoutOverrides{}, Timeouts{15 * time.Second, 30 * time.Second, 30 * time.Second, 120 * time.Second}},
		{"call only", TimeoutOverrides{Call: ptr(2.5)}, Timeouts{15 * time.Second, 30 * time.Second, 30 * time.Second, 2500 * time.Millisecond}},
		{"all", TimeoutOverrides{Start: ptr(1.0), Initialize: ptr(2.0), ListTools: ptr(3.0), Call: ptr(4.0)}, Timeouts{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}},
		{"huge saturates", TimeoutOverrides{Call: ptr(1e300)}, Timeouts{15 * time.Second, 30 * time.Second, 30 * time.Second, time.Duration(1<<63 - 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, (Server{TimeoutOverrides: tt.o}).Timeouts(global)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	r := Restart{InitialBackoffSeconds: 0.5, MaxBackoffSeconds: 60}
	if r.InitialBackoff() != 500*time.Millisecond || r.MaxBackoff() != time.Minute {
		t.Errorf("restart = %v, %v", r.InitialBackoff(), r.MaxBackoff())
	}
}

func TestTransportConfig(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		s    Server
		want string
	}{
		{
			name: "stdio reveals env and makes env_file absolute",
			s: Server{
				Enabled: true, DeferredOverride: ptr(true), Command: "npx", Args: []string{"-y", "srv"},
				Env: map[string]secret.String{"TOKEN": "t0k"}, EnvFile: "sub/.env", InheritEnv: true,
				TimeoutOverrides: TimeoutOverrides{Call: ptr(1.0)},
			},
			want: `{"command":"npx","args":["-y","srv"],"env":{"TOKEN":"t0k"},"env_file":` + jsonString(filepath.Join(dir, "sub", ".env")) + `,"inherit_env":true}`,
		},
		{
			name: "stdio minimal",
			s:    Server{Enabled: true, Command: "srv", EnvFile: testAbs + "/../abs/.env"},
			want: `{"command":"srv","env_file":` + jsonString(filepath.Join(testAbs, ".env")) + `}`,
		},
		{
			name: "sse reveals headers",
			s:    Server{Enabled: true, URL: "https://x/mcp", Headers: map[string]secret.String{"Authorization": "Bearer b"}},
			want: `{"url":"https://x/mcp","headers":{"Authorization":"Bearer b"}}`,
		},
		{
			name: "oauth is the host's: not sent to the transport",
			s: Server{Enabled: true, Type: "streamable-http", URL: "https://x/mcp",
				OAuth: &OAuth{Scopes: []string{"a"}, CallbackPort: 8080, ClientID: "c", ClientSecret: "s3cret"}},
			want: `{"url":"https://x/mcp"}`,
		},
		{
			name: "third-party gets everything but host keys",
			s: Server{
				Enabled: true, DeferredOverride: ptr(false), Type: "slack", Command: "npx", Args: []string{"a"},
				Env: map[string]secret.String{"K": "v"}, URL: "wss://x", TimeoutOverrides: TimeoutOverrides{Call: ptr(1.0)},
				Extra: map[string]secret.String{"team": `"T1"`, "command": `"ignored"`},
			},
			want: `{"args":["a"],"command":"npx","env":{"K":"v"},"team":"T1","url":"wss://x"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.s.TransportConfig(dir)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("unexpanded ~ is an error", func(t *testing.T) {
		if _, err := (Server{Command: "c", EnvFile: "~/.env"}).TransportConfig(dir); err == nil {
			t.Error("want an error")
		}
	})
}

func TestConfigJSON(t *testing.T) {
	cfg := Config{MCP: MCP{Enabled: true, Servers: map[string]Server{
		"s": {Enabled: true, Command: "c", Env: map[string]secret.String{"K": "v4lue"}, Headers: map[string]secret.String{"H": "h"}},
	}}}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := cfg
	want.MCP.Servers = map[string]Server{"s": {Enabled: true, Command: "c",
		Env: map[string]secret.String{"K": secret.Masked}, Headers: map[string]secret.String{"H": secret.Masked}}}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("round trip (secrets masked) mismatch (-want +got):\n%s", diff)
	}
	var m map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["tools"]["mcp"]["enabled"] != true {
		t.Errorf("shape: %s (%v)", b, err)
	}
}

func TestPackageRunner(t *testing.T) {
	for _, c := range []struct {
		s    Server
		want string
	}{
		{Server{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}, "npx"},
		{Server{Command: "/usr/local/bin/uvx", Args: []string{"mcp-server-git"}}, "uvx"},
		{Server{Command: `C:\Program Files\nodejs\NPX.CMD`}, "npx"},
		{Server{Command: "pnpm", Args: []string{"dlx", "x"}}, "pnpm dlx"},
		{Server{Command: "pnpm", Args: []string{"exec", "x"}}, ""},
		{Server{Command: "node", Args: []string{"server.js"}}, ""},
		{Server{URL: "https://example.com/mcp", Type: TransportHTTP}, ""},
	} {
		if got := c.s.PackageRunner(); got != c.want {
			t.Errorf("PackageRunner(%s %v) = %q, want %q", c.s.Command, c.s.Args, got, c.want)
		}
	}
}
