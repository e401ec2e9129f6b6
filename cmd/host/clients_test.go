//go:build unix

package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clientEntry decodes tools.mcp.gateway.clients[name] of a config file.
func clientEntry(t *testing.T, path, name string) (map[string]any, bool) {
	t.Helper()
	var doc struct {
		Tools struct {
			MCP struct {
				Gateway struct {
					Clients map[string]map[string]any `json:"clients"`
				} `json:"gateway"`
			} `json:"mcp"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(readFile(t, path), &doc); err != nil {
		t.Fatal(err)
	}
	c, ok := doc.Tools.MCP.Gateway.Clients[name]
	return c, ok
}

var printedToken = regexp.MustCompile(`(?m)^([A-Za-z0-9_-]{43})$`)

// The client commands write the user file (0600, the token's digest only),
// print a new token exactly once, and never show a token or digest in a
// list.
func TestMCPClientCommands(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	cfg := c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"gh": testserver(), "fs": testserver()}}))

	r := c.run(t, "mcp", "client", "add", "ci", "--servers", "gh,nope")
	if r.code != 1 || !strings.Contains(r.stderr, `--servers: client "ci": no configured server named "nope"; configured servers: fs, gh`) {
		t.Errorf("add with an unknown server: %s", r)
	}
	if r = c.run(t, "mcp", "client", "add", "ci"); r.code != 2 || !strings.Contains(r.stderr, "--servers is required") {
		t.Errorf("add without --servers: %s", r)
	}

	r = c.run(t, "mcp", "client", "add", "ci", "--servers", "gh", "--exclude-tools", "mcp_gh_delete*")
	m := printedToken.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		t.Fatalf("add: %s", r)
	}
	token := m[1]
	entry, ok := clientEntry(t, cfg, "ci")
	digest, _ := entry["token_sha256"].(string)
	if !ok || len(digest) != 64 || strings.Contains(string(readFile(t, cfg)), token) {
		t.Errorf("the file must hold the token's digest, not the token: %v", entry)
	}
	if diff := cmp.Diff(map[string]any{"token_sha256": digest, "servers": []any{"gh"}, "exclude_tools": []any{"mcp_gh_delete*"}}, entry); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}

	r = c.run(t, "mcp", "client", "add", "bot", "--servers", "fs", "--include-tools", "mcp_fs_read*", "--json")
	var added struct{ Name, Token string }
	if err := json.Unmarshal([]byte(r.stdout), &added); err != nil || added.Name != "bot" || len(added.Token) != 43 {
		t.Fatalf("add --json: %s (%v)", r, err)
	}
	if r = c.run(t, "mcp", "client", "add", "bot", "--servers", "fs"); r.code != 1 || !strings.Contains(r.stderr, `client "bot" already exists`) {
		t.Errorf("add of an existing client: %s", r)
	}

	for _, args := range [][]string{{"mcp", "client", "list"}, {"mcp", "client", "list", "--json"}} {
		r = c.run(t, args...)
		noSecrets(t, r, token, added.Token, digest)
		if r.code != 0 || !strings.Contains(r.stdout, "mcp_gh_delete*") || !strings.Contains(r.stdout, "bot") {
			t.Errorf("%v: %s", args, r)
		}
	}
	r = c.run(t, "mcp", "client", "list", "--json")
	var listed []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 2 || listed[0]["name"] != "bot" {
		t.Errorf("list --json: %s", r)
	}

	r = c.run(t, "mcp", "client", "rotate", "ci", "--json")
	var rotated struct{ Name, Token string }
	if err := json.Unmarshal([]byte(r.stdout), &rotated); err != nil || rotated.Name != "ci" || rotated.Token == token {
		t.Fatalf("rotate --json: %s", r)
	}
	if e, _ := clientEntry(t, cfg, "ci"); e["token_sha256"] == digest || e["servers"] == nil {
		t.Errorf("rotate kept the digest or lost the entry: %v", e)
	}
	if r = c.run(t, "mcp", "client", "rotate", "ci"); r.code != 0 || printedToken.FindString(r.stdout) == "" {
		t.Errorf("rotate: %s", r)
	}
	if r = c.run(t, "mcp", "client", "rotate", "nope"); r.code != 1 || !strings.Contains(r.stderr, `no client named "nope"`) || !strings.Contains(r.stderr, "configured: ci, bot") {
		t.Errorf("rotate of an unknown client: %s", r)
	}

	if r = c.run(t, "mcp", "client", "remove", "bot"); r.code != 0 {
		t.Errorf("remove: %s", r)
	}
	if _, ok := clientEntry(t, cfg, "bot"); ok {
		t.Error("remove left the entry")
	}
	if r = c.run(t, "mcp", "client", "remove", "bot"); r.code != 1 || !strings.Contains(r.stderr, `no client named "bot"`) {
		t.Errorf("remove of a removed client: %s", r)
	}
	if r = c.run(t, "mcp", "client", "add", "a b", "--servers", "gh"); r.code == 0 || !strings.Contains(r.stderr, `client name "a b"`) {
		t.Errorf("add with a bad name: %s", r)
	}
	if fi := statMode(t, cfg); fi != 0o600 {
		t.Errorf("config file mode %04o, want 0600", fi)
	}
}

// A running serve applies client edits on reload: a new client's token
// opens /mcp (its scope only) and not /api; rotation and removal stop the
// old token; the token never appears in serve's logs.
func TestServeClients(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	g := startServe(t, c, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"one": testserver(), "two": testserver()}}))
	waitConnected(t, g, "one", "two")
	applied := 0
	waitApplied := func(what string) {
		t.Helper()
		applied++
		n := applied
		g.stderr.waitFor(t, 30*time.Second, what, func(s string) bool {
			return strings.Count(s, "config applied (config file changed)") >= n
		})
	}
	r := c.run(t, "--config", g.config, "mcp", "client", "add", "ci", "--servers", "one", "--json")
	var added struct{ Token string }
	if err := json.Unmarshal([]byte(r.stdout), &added); err != nil {
		t.Fatalf("add: %s", r)
	}
	waitApplied("the new client")

	status, body := rpc(t, g.url, added.Token, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`)
	if status != http.StatusOK {
		t.Fatalf("client initialize: %d %s", status, body)
	}
	api := strings.TrimSuffix(g.url, "/mcp") + "/api/servers"
	if code := httpGet(t, api, added.Token); code != http.StatusForbidden {
		t.Errorf("client token on /api: %d, want 403", code)
	}
	if code := httpGet(t, api, g.token); code != http.StatusOK {
		t.Errorf("admin token on /api: %d, want 200", code)
	}
	two := strings.TrimSuffix(g.url, "/mcp") + "/servers/two/mcp"
	if status, body := rpc(t, two, added.Token, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); status != http.StatusForbidden {
		t.Errorf("client on /servers/two/mcp: %d %s, want 403", status, body)
	}

	r = c.run(t, "--config", g.config, "mcp", "client", "rotate", "ci", "--json")
	var rotated struct{ Token string }
	if err := json.Unmarshal([]byte(r.stdout), &rotated); err != nil {
		t.Fatalf("rotate: %s", r)
	}
	waitApplied("the rotation")
	if status, _ := rpc(t, g.url, added.Token, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusUnauthorized {
		t.Errorf("old token after rotate: %d, want 401", status)
	}
	if status, _ := rpc(t, g.url, rotated.Token, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}`); status != http.StatusOK {
		t.Errorf("new token after rotate: %d", status)
	}
	if r = c.run(t, "--config", g.config, "mcp", "client", "remove", "ci"); r.code != 0 {
		t.Fatalf("remove: %s", r)
	}
	waitApplied("the removal")
	if status, _ := rpc(t, g.url, rotated.Token, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusUnauthorized {
		t.Errorf("removed client's token: %d, want 401", status)
	}
	for _, tok := range []string{added.Token, rotated.Token} {
		if strings.Contains(g.stderr.String(), tok) {
			t.Error("a client token appears in serve's log")
		}
	}
}

// mcp edit NAME --include-tools/--exclude-tools sets a server's tool
// filters in the file; an empty value removes a list; a bad glob
// writes nothing.
func TestMCPEditToolFilter(t *testing.T) {
	c := newCLI(t)
	t.Parallel()
	cfg := c.writeUserConfig(t, mcpConfig(map[string]any{"enabled": true, "servers": map[string]any{"gh": testserver()}}))
	if r := c.run(t, "mcp", "edit", "gh", "--exclude-tools", "delete_*,drop_*", "--include-tools", "get_*"); r.code != 0 {
		t.Fatalf("edit: %s", r)
	}
	gh := servers(t, cfg)["gh"]
	if diff := cmp.Diff([]any{"delete_*", "drop_*"}, gh["exclude_tools"]); diff != "" {
		t.Errorf("exclude_tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"get_*"}, gh["include_tools"]); diff != "" {
		t.Errorf("include_tools (-want +got):\n%s", diff)
	}
	if r := c.run(t, "mcp", "edit", "gh", "--include-tools", ""); r.code != 0 {
		t.Fatalf("edit clearing include_tools: %s", r)
	}
	if gh := servers(t, cfg)["gh"]; gh["include_tools"] != nil || gh["exclude_tools"] == nil {
		t.Errorf("after clearing include_tools: %v", gh)
	}
	before := string(readFile(t, cfg))
	if r := c.run(t, "mcp", "edit", "gh", "--exclude-tools", "[x"); r.code != 1 || !strings.Contains(r.stderr, "tools.mcp.servers.gh.exclude_tools[0]") {
		t.Errorf("edit with a bad glob: %s", r)
	}
	if string(readFile(t, cfg)) != before {
		t.Error("a refused edit changed the file")
	}
	if r := c.run(t, "mcp", "edit", "nope", "--exclude-tools", "x"); r.code != 1 || !strings.Contains(r.stderr, `no server named "nope"`) {
		t.Errorf("edit of an unknown server: %s", r)
	}
	if r := c.run(t, "mcp", "edit", "--exclude-tools", "x"); r.code != 2 {
		t.Errorf("filters without a name: %s", r)
	}
}

func rpc(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func httpGet(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func statMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
