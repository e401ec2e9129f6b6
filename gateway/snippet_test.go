package gateway_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plughost/plughost/gateway"
)

func TestURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8765": "http://127.0.0.1:8765/mcp",
		"0.0.0.0:9000":   "http://127.0.0.1:9000/mcp",
		"[::]:9000":      "http://127.0.0.1:9000/mcp",
		"[::1]:9000":     "http://[::1]:9000/mcp",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := gateway.URL(tcp); got != want {
			t.Errorf("URL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// snippetBlocks parses the snippet's two JSON blocks: the HTTP entry and
// the stdio entry.
func snippetBlocks(t *testing.T, s string) (httpEntry, stdioEntry map[string]any) {
	t.Helper()
	var blocks []map[string]map[string]map[string]any
	for _, part := range strings.Split(s, "\n{")[1:] {
		end := strings.Index(part, "\n}")
		var v map[string]map[string]map[string]any
		if err := json.Unmarshal([]byte("{"+part[:end+2]), &v); err != nil {
			t.Fatalf("snippet block does not parse: %v\n%s", err, s)
		}
		blocks = append(blocks, v)
	}
	if len(blocks) != 2 {
		t.Fatalf("%d JSON blocks, want 2:\n%s", len(blocks), s)
	}
	return blocks[0]["mcpServers"]["plughost"], blocks[1]["mcpServers"]["plughost"]
}

// The snippet's JSON blocks parse and carry the URL, the bearer token (or,
// when it is not to be shown, where to read it) and the stdio command with
// the config file serve runs.
func TestClientSnippet(t *testing.T) {
	const tok = "tok-0123456789abcdef"
	base := gateway.Snippet{URL: "http://127.0.0.1:1/mcp", Token: tok, TokenFile: "/home/u/.plughost/gateway.token", Exe: "/bin/plughost"}
	for _, c := range []struct {
		name        string
		edit        func(*gateway.Snippet)
		header      string   // the Authorization value in the JSON ("" for none)
		has, hasNot []string // text the snippet holds, and must not
		args        []string
	}{
		{"shown", func(s *gateway.Snippet) { s.ShowToken = true }, "Bearer " + tok,
			[]string{`claude mcp add --transport http plughost http://127.0.0.1:1/mcp --header "Authorization: Bearer ` + tok + `"`, "http://127.0.0.1:1/servers/<name>/mcp"},
			[]string{"gateway.token"}, []string{"stdio"}},
		{"not shown", func(*gateway.Snippet) {}, "Bearer <token>",
			[]string{`--header "Authorization: Bearer $(cat /home/u/.plughost/gateway.token)"`, "it is in /home/u/.plughost/gateway.token;", "cat /home/u/.plughost/gateway.token"},
			[]string{tok}, []string{"stdio"}},
		{"token file with a space", func(s *gateway.Snippet) { s.TokenFile = "/home/u/my dir/tok" }, "Bearer <token>",
			[]string{`$(cat '/home/u/my dir/tok')`, "cat '/home/u/my dir/tok'"}, []string{tok}, []string{"stdio"}},
		{"no auth", func(s *gateway.Snippet) { s.Token = "" }, "",
			nil, []string{"Authorization", "token"}, []string{"stdio"}},
		{"named config", func(s *gateway.Snippet) { s.ShowToken, s.ConfigFile = true, "/etc/plughost/team.json" }, "Bearer " + tok,
			nil, nil, []string{"--config", "/etc/plughost/team.json", "stdio"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			s := gateway.ClientSnippet(o)
			httpEntry, stdioEntry := snippetBlocks(t, s)
			headers, _ := httpEntry["headers"].(map[string]any)
			if got, _ := headers["Authorization"].(string); httpEntry["url"] != "http://127.0.0.1:1/mcp" || httpEntry["type"] != "http" || got != c.header {
				t.Errorf("http entry: %v, want Authorization %q", httpEntry, c.header)
			}
			var args []string
			for _, a := range stdioEntry["args"].([]any) {
				args = append(args, a.(string))
			}
			if diff := cmp.Diff(c.args, args); diff != "" || stdioEntry["command"] != "/bin/plughost" {
				t.Errorf("stdio entry %v (-want +got args):\n%s", stdioEntry, diff)
			}
			for _, want := range c.has {
				if !strings.Contains(s, want) {
					t.Errorf("no %q in:\n%s", want, s)
				}
			}
			for _, not := range c.hasNot {
				if strings.Contains(s, not) {
					t.Errorf("%q in:\n%s", not, s)
				}
			}
		})
	}
}

// Connect gives each client its configuration, with the token only when
// it is to be shown.
func TestConnect(t *testing.T) {
	const tok = "tok-0123456789abcdef"
	s := gateway.Snippet{URL: "http://127.0.0.1:1/mcp", Token: tok, TokenFile: "/t/gateway.token", Exe: "/bin/plughost", ConfigFile: "/c.json"}
	byID := func(c gateway.Connection) map[string]string {
		m := map[string]string{}
		for _, cc := range c.Clients {
			m[cc.ID] = cc.Text
		}
		return m
	}
	hidden := gateway.Connect(s)
	if !hidden.Auth || hidden.TokenFile != "/t/gateway.token" || hidden.ServerURL != "http://127.0.0.1:1/servers/<name>/mcp" {
		t.Errorf("connection: %+v", hidden)
	}
	for id, text := range byID(hidden) {
		if strings.Contains(text, tok) {
			t.Errorf("%s shows the token without being asked:\n%s", id, text)
		}
	}
	s.ShowToken = true
	got := byID(gateway.Connect(s))
	want := map[string]string{
		"claude-code": `claude mcp add --transport http plughost http://127.0.0.1:1/mcp --header "Authorization: Bearer ` + tok + `"`,
		"stdio":       "/bin/plughost --config /c.json stdio",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s = %q, want %q", id, got[id], w)
		}
	}
	var vscode struct {
		Servers map[string]struct {
			Type, URL string
			Headers   map[string]string
		}
	}
	if err := json.Unmarshal([]byte(got["vscode"]), &vscode); err != nil || vscode.Servers["plughost"].Headers["Authorization"] != "Bearer "+tok {
		t.Errorf("vscode: %v %s", err, got["vscode"])
	}
	for _, id := range []string{"claude-desktop", "cursor"} {
		if !json.Valid([]byte(got[id])) || !strings.Contains(got[id], "mcpServers") {
			t.Errorf("%s is not an mcpServers file:\n%s", id, got[id])
		}
	}
}
