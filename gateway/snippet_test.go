package gateway

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
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
		if got := URL(tcp); got != want {
			t.Errorf("URL(%s) = %s, want %s", addr, got, want)
		}
	}
}

// The snippet's JSON blocks parse and carry the URL, the bearer token and
// the stdio command.
func TestClientSnippet(t *testing.T) {
	s := ClientSnippet("http://127.0.0.1:1/mcp", "tok-0123456789abcdef", "/bin/plughost")
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
	httpEntry, stdioEntry := blocks[0]["mcpServers"]["plughost"], blocks[1]["mcpServers"]["plughost"]
	headers, _ := httpEntry["headers"].(map[string]any)
	if httpEntry["url"] != "http://127.0.0.1:1/mcp" || httpEntry["type"] != "http" || headers["Authorization"] != "Bearer tok-0123456789abcdef" {
		t.Errorf("http entry: %v", httpEntry)
	}
	if stdioEntry["command"] != "/bin/plughost" {
		t.Errorf("stdio entry: %v", stdioEntry)
	}
	if !strings.Contains(s, `claude mcp add --transport http plughost http://127.0.0.1:1/mcp --header "Authorization: Bearer tok-0123456789abcdef"`) {
		t.Errorf("no claude mcp add line:\n%s", s)
	}
	if !strings.Contains(s, "http://127.0.0.1:1/servers/<name>/mcp") {
		t.Errorf("no per-server endpoint:\n%s", s)
	}
	if noAuth := ClientSnippet("http://127.0.0.1:1/mcp", "", "/bin/plughost"); strings.Contains(noAuth, "Authorization") {
		t.Errorf("snippet without a token mentions Authorization:\n%s", noAuth)
	}
}
