//go:build unix

package main_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/proctree"
)

// listed is one row of `mcp list --json`.
type listed struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	ServerPID int    `json:"server_pid"`
	LastError string `json:"last_error"`
}

// serveList runs `mcp list --json` (plus args) on config and returns the rows
// by name and the run.
func serveList(t *testing.T, c *cli, config string, args ...string) (map[string]listed, result) {
	t.Helper()
	r := c.run(t, append([]string{"--config", config, "mcp", "list", "--json"}, args...)...)
	var rows []listed
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil {
		t.Fatalf("mcp list --json: %s", r)
	}
	out := map[string]listed{}
	for _, row := range rows {
		out[row.Name] = row
	}
	return out, r
}

// serverPIDs returns the pids of serve's testserver processes.
func serverPIDs(serve int) map[int]bool {
	out := map[int]bool{}
	for _, p := range proctree.Descendants(serve) {
		if p.Name == "testserver" {
			out[p.PID] = true
		}
	}
	return out
}

// waitConnected waits until serve logged each server connected.
func waitConnected(t *testing.T, g servedGateway, names ...string) {
	t.Helper()
	for _, name := range names {
		re := regexp.MustCompile(`(?m)^\S+\s+` + regexp.QuoteMeta(name) + `\s+connected, `)
		g.stderr.waitFor(t, 30*time.Second, name+" connected", re.MatchString)
	}
}

// With a serve of the same config running, list, show, tools and call
// answer from it: the servers listed are serve's own processes, and no
// second set is started.
func TestCLIAsksRunningServe(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	rows, r := serveList(t, c, g.config)
	if rows["one"].State != "connected" || !serverPIDs(g.pid)[rows["one"].ServerPID] {
		t.Errorf("mcp list: %+v; want serve's own testserver (pids %v)", rows, serverPIDs(g.pid))
	}
	wantContains(t, "stderr", r.stderr, "live state from plughost serve")

	r = c.run(t, "--config", g.config, "mcp", "show", "one")
	wantContains(t, "show", r.stdout, "Status:", "connected, 11 tools", "mcp_one_echo")
	r = c.run(t, "--config", g.config, "tools")
	wantContains(t, "tools", r.stdout, "mcp_one_echo", "read_file")
	r = c.run(t, "--config", g.config, "call", "mcp_one_echo", `{"text": "via serve"}`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "via serve" {
		t.Errorf("call through serve: %s", r)
	}
	r = c.run(t, "--config", g.config, "mcp", "show", "nope")
	if r.code != 1 || !strings.Contains(r.stderr, `no server named "nope"`) {
		t.Errorf("show of an unknown server through serve: %s", r)
	}
	// --set changes the config: the command runs its own servers.
	rows, r = serveList(t, c, g.config, "--set", "tools.mcp.max_inline_text_chars=1000")
	if strings.Contains(r.stderr, "live state") || serverPIDs(g.pid)[rows["one"].ServerPID] {
		t.Errorf("with --set the list came from serve: %s", r)
	}
	// The API is behind the token.
	resp, err := http.Get(strings.TrimSuffix(g.url, "/mcp") + "/api/servers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/api/servers without the token: %d", resp.StatusCode)
	}
}

// A runtime file left by a serve that is gone is ignored.
func TestCLIIgnoresStaleServe(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	run, _ := filepath.Glob(filepath.Join(c.home, ".plughost", "run", "serve-*.json"))
	if len(run) != 1 {
		t.Fatalf("runtime files: %v", run)
	}
	b, err := os.ReadFile(run[0])
	if err != nil {
		t.Fatal(err)
	}
	stale := regexp.MustCompile(`"pid": \d+`).ReplaceAll(b, []byte(`"pid": 4194304`))
	if err := os.WriteFile(run[0], stale, 0o600); err != nil {
		t.Fatal(err)
	}
	rows, r := serveList(t, c, g.config)
	if strings.Contains(r.stderr, "live state") || serverPIDs(g.pid)[rows["one"].ServerPID] || rows["one"].State != "connected" {
		t.Errorf("a stale runtime file was used: %s", r)
	}
}

// serve applies edits of its config file: an added server starts, the
// others keep their processes; an invalid file is refused, logged and
// reported by `mcp list`, and the previous config keeps running.
func TestServeReloadsOnEdit(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver(), "two": testserver()}}))
	waitConnected(t, g, "one", "two")
	before, _ := serveList(t, c, g.config)

	r := c.run(t, "--config", g.config, "mcp", "add", "three", "--", filepath.Join(bins, "testserver"))
	if r.code != 0 {
		t.Fatalf("mcp add: %s", r)
	}
	g.stderr.waitFor(t, 30*time.Second, "the edit applied and three connected", func(s string) bool {
		return strings.Contains(s, "config applied (config file changed): added three") &&
			regexp.MustCompile(`(?m)^\S+\s+three\s+connected, `).MatchString(s)
	})
	after, _ := serveList(t, c, g.config)
	for _, name := range []string{"one", "two"} {
		if after[name].ServerPID != before[name].ServerPID {
			t.Errorf("%s was restarted by adding another server: pid %d → %d", name, before[name].ServerPID, after[name].ServerPID)
		}
	}
	if after["three"].State != "connected" {
		t.Errorf("three: %+v", after["three"])
	}

	b, err := os.ReadFile(g.config)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `"enabled": true`, `"enabled": true, "max_inline_text_chars": 5`, 1)
	if err := os.WriteFile(g.config, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	g.stderr.waitFor(t, 30*time.Second, "the invalid file refused", func(s string) bool {
		return strings.Contains(s, "config not applied (config file changed); still running the previous one") &&
			strings.Contains(s, "tools.mcp.max_inline_text_chars: must be at least 256")
	})
	rows, r := serveList(t, c, g.config)
	wantContains(t, "mcp list stderr", r.stderr, "serve kept its previous config", "tools.mcp.max_inline_text_chars")
	if rows["three"].ServerPID != after["three"].ServerPID {
		t.Errorf("the refused file changed the servers: %+v", rows)
	}
}

// With --no-watch, edits wait for SIGHUP.
func TestServeReloadsOnSIGHUP(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}), "--no-watch")
	writeConfig(t, g.config, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver(), "two": testserver()}}))
	if err := syscall.Kill(g.pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	g.stderr.waitFor(t, 30*time.Second, "the reload on SIGHUP", func(s string) bool {
		return strings.Contains(s, "config applied (SIGHUP): added two")
	})
	if strings.Contains(g.stderr.String(), "config file changed") {
		t.Errorf("serve --no-watch reacted to the file:\n%s", g.stderr)
	}
}

// A typo in a running server's entry ("enabled": "yes") does not stop it:
// serve logs the problem, the server keeps its process, and `mcp list` and
// `mcp show` say it still runs its previous settings, with the problem's
// JSON path. A new server with the same typo is invalid. Before, the typo
// stopped the server ("invalid config").
func TestServeKeepsServerOnInvalidEntry(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver()}}))
	waitConnected(t, g, "one")
	before, _ := serveList(t, c, g.config)

	typo := testserver()
	typo["enabled"] = "yes"
	writeConfig(t, g.config, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": typo, "two": typo}}))
	const kept = "config entry invalid, still running previous settings: tools.mcp.servers.one.enabled: "
	g.stderr.waitFor(t, 30*time.Second, "the reload keeping one", func(s string) bool {
		return strings.Contains(s, "kept the previous settings (invalid entry) of one") && strings.Contains(s, "  one: "+kept)
	})
	rows, r := serveList(t, c, g.config)
	if rows["one"].State != "connected" || rows["one"].ServerPID != before["one"].ServerPID || !strings.HasPrefix(rows["one"].LastError, kept) {
		t.Errorf("mcp list --json: one is %+v; want connected, pid %d, the problem first in last_error", rows["one"], before["one"].ServerPID)
	}
	if rows["two"].State != "invalid" || !strings.Contains(rows["two"].LastError, "tools.mcp.servers.two.enabled") {
		t.Errorf("mcp list --json: two is %+v; want invalid, naming the field", rows["two"])
	}
	if r.code != 0 {
		t.Errorf("mcp list: %s", r)
	}
	r = c.run(t, "--config", g.config, "mcp", "list")
	wantContains(t, "mcp list", r.stdout, "connected, 11 tools", kept)
	r = c.run(t, "--config", g.config, "mcp", "show", "one")
	wantContains(t, "mcp show", r.stdout, "connected, 11 tools", kept)
}
