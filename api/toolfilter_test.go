package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plughost/plughost/api"
)

// A server's include_tools/exclude_tools written through PUT
// /api/servers/{name} hide its tools at once, without restarting it; a bad
// glob is refused naming the field.
func TestServerToolFilter(t *testing.T) {
	f := newFixture(t)
	pid := f.serverPID(t, "a")
	code, body := f.do(t, "GET", "/api/servers/a", "")
	var d api.ServerDetail
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil {
		t.Fatalf("GET /api/servers/a: %d %s", code, body)
	}
	entry := map[string]any{"enabled": true, "command": d.Config.Command, "args": d.Config.Args,
		"env": map[string]string{"TOKEN": "****"}, "exclude_tools": []string{"echo", "slee*"}}
	code, body = f.do(t, "PUT", "/api/servers/a", mustMarshal(map[string]any{"server": entry, "if_version": d.Version}))
	if code != 200 {
		t.Fatalf("PUT with exclude_tools: %d %s", code, body)
	}
	for _, gone := range []string{"mcp_a_echo", "mcp_a_sleep"} {
		if _, ok := f.h.Registry().Lookup(gone); ok {
			t.Errorf("%s is still in the registry after exclude_tools", gone)
		}
	}
	if _, ok := f.h.Registry().Lookup("mcp_a_noop"); !ok {
		t.Error("mcp_a_noop was hidden too")
	}
	if now := f.serverPID(t, "a"); now != pid {
		t.Errorf("the server was restarted for a tool filter: pid %s → %s", pid, now)
	}
	code, body = f.do(t, "GET", "/api/servers/a", "")
	d = api.ServerDetail{}
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil || strings.Join(d.Config.ExcludeTools, ",") != "echo,slee*" {
		t.Errorf("GET after the PUT does not show exclude_tools: %s", body)
	}

	entry["include_tools"] = []string{"[bad"}
	code, body = f.do(t, "PUT", "/api/servers/a", mustMarshal(map[string]any{"server": entry}))
	if code != 422 || !strings.Contains(body, "tools.mcp.servers.a.include_tools[0]") {
		t.Errorf("PUT with a bad glob: %d %s, want 422 naming the field", code, body)
	}
}

// serverPID is the pid the test server of name reports.
func (f *fixture) serverPID(t *testing.T, name string) string {
	t.Helper()
	res, err := f.h.NewSession().Call(t.Context(), "mcp_"+name+"_pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	return string(b)
}
