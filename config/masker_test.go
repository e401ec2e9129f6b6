package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plughost/plughost/lib/secret"
)

// NewMasker knows every kind of configured secret, including the values of
// a relative env_file and of disabled servers.
func TestNewMasker(t *testing.T) {
	dir := t.TempDir()
	envFile := "# comment\nexport FILE_TOKEN=\"file-canary-1\"\nPLAIN=file-canary-2-long\nBROKEN LINE\n"
	if err := os.WriteFile(filepath.Join(dir, "srv.env"), []byte(envFile), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{MCP: MCP{Servers: map[string]Server{
		"local": {Enabled: true, Command: "x", EnvFile: "srv.env", Env: map[string]secret.String{"API_KEY": "env-canary", "DEBUG": "1"}},
		"remote": {Enabled: false, URL: "https://bob:url-canary-pw@h/mcp?api_key=query-canary&page=2",
			Headers: map[string]secret.String{"X-Tenant": "hdr-canary"}},
		"third": {Enabled: true, Type: "ws", Extra: map[string]secret.String{"auth": `{"token":"extra-canary","n":5}`}},
		"login": {Enabled: true, Type: "http", URL: "https://h/mcp", OAuth: &OAuth{ClientID: "c", ClientSecret: "oauth-canary-secret"}},
	}}}
	m := NewMasker(cfg, dir)
	text := "env-canary file-canary-1 \"file-canary-1\" file-canary-2-long url-canary-pw query-canary hdr-canary extra-canary oauth-canary-secret DEBUG=1 page=2"
	got := m.Mask(text)
	for _, canary := range []string{"env-canary", "file-canary", "url-canary", "query-canary", "hdr-canary", "extra-canary", "oauth-canary"} {
		if strings.Contains(got, canary) {
			t.Errorf("%s not masked: %s", canary, got)
		}
	}
	if !strings.HasSuffix(got, "DEBUG=1 page=2") {
		t.Errorf("short and non-secret values must stay: %s", got)
	}
	if NewMasker(nil, dir).Mask("x") != "x" {
		t.Errorf("nil config")
	}
}

// A missing env_file adds nothing and breaks nothing.
func TestNewMaskerMissingEnvFile(t *testing.T) {
	cfg := &Config{MCP: MCP{Servers: map[string]Server{"s": {Enabled: true, Command: "x", EnvFile: "/nonexistent/env"}}}}
	if got := NewMasker(cfg, t.TempDir()).Mask("hello world"); got != "hello world" {
		t.Errorf("got %q", got)
	}
}
