package dashboard_test

import (
	"testing"

	"github.com/plughost/plughost/internal/testbin"
)

// demoServers is a small, realistic set for the screenshots: plughost's
// demo server, npm's reference servers when installed, one server that
// fails and one disabled.
func demoServers(t *testing.T, dir string) (servers map[string]any, calls [][2]string) {
	toolbox := map[string]any{"enabled": true, "command": "plughost", "args": []string{"demo-server"}, "deferred": false}
	servers = map[string]any{
		"toolbox":  toolbox,
		"postgres": map[string]any{"enabled": true, "command": "/opt/mcp/postgres-mcp", "env": map[string]string{"DATABASE_URI": "postgresql://app:demo-password@db/app"}},
		"slack":    map[string]any{"enabled": false, "command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-slack"}},
	}
	calls = [][2]string{
		{"mcp_toolbox_calculate", `{"expression": "(2 + 3) * 4"}`},
		{"mcp_toolbox_current_time", `{}`},
		{"mcp_toolbox_hash", `{"text": "hello"}`},
	}
	if fs, err := testbin.NPMServer("@modelcontextprotocol/server-filesystem", "dist/index.js"); err == nil {
		servers["filesystem"] = map[string]any{"enabled": true, "command": "node", "args": []string{fs, dir}}
		calls = append(calls, [2]string{"mcp_filesystem_list_allowed_directories", `{}`})
	} else {
		t.Logf("screenshots without the filesystem server: %v", err)
	}
	if ev, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js"); err == nil {
		servers["everything"] = map[string]any{"enabled": true, "command": "node", "args": []string{ev, "stdio"}}
		calls = append(calls, [2]string{"mcp_everything_echo", `{"message": "hi"}`})
	}
	return servers, calls
}

// exerciseDemo makes tool calls so the charts have something to show.
func exerciseDemo(t *testing.T, s *serve, servers map[string]any, calls [][2]string) {
	t.Helper()
	var names []string
	for n := range servers {
		names = append(names, n)
	}
	s.waitStates(t, names...)
	for i := range 60 {
		c := calls[i%len(calls)]
		if st, body := s.api(t, "POST", "/api/tools/"+c[0]+"/call", c[1]); st != 200 {
			t.Fatalf("demo call %s: %d %s", c[0], st, body)
		}
	}
}
