package api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// Test, the tool list and the search preview: the test leaves the running
// server as it was, the preview unlocks nothing.
func TestInspectEndpoints(t *testing.T) {
	f := newFixture(t)
	before, _ := f.h.Status("a")
	code, body := f.do(t, "POST", "/api/servers/a/test", `{}`)
	var tr api.TestResult
	if code != 200 || json.Unmarshal([]byte(body), &tr) != nil || !tr.OK || tr.Tools != 11 || tr.DefinitionBytes == 0 || tr.ReadyMs < 0 {
		t.Fatalf("POST test: %d %s", code, body)
	}
	if after, _ := f.h.Status("a"); after.State != supervisor.StateConnected || after.ServerPID != before.ServerPID || after.Tools != 11 {
		t.Errorf("the test disturbed a: %+v", after)
	}
	if code, body = f.do(t, "POST", "/api/servers/nope/test", `{}`); code != 404 {
		t.Errorf("test of an unknown server: %d %s", code, body)
	}

	code, body = f.do(t, "GET", "/api/servers/a/tools", "")
	var tools api.ServerTools
	if code != 200 || json.Unmarshal([]byte(body), &tools) != nil || len(tools.Tools) != 11 {
		t.Fatalf("GET tools: %d %s", code, body)
	}
	if e := tools.Tools[slices.IndexFunc(tools.Tools, func(x api.ServerTool) bool { return x.Name == "mcp_a_echo" })]; e.ServerName != "echo" || len(e.InputSchema) == 0 {
		t.Errorf("echo: %+v", e)
	}

	// Discovery off: the search tool is not offered, and the preview says so.
	code, body = f.do(t, "POST", "/api/search", `{"query":"echo text","kind":"bm25"}`)
	var p host.SearchPreview
	if code != 200 || json.Unmarshal([]byte(body), &p) != nil || !p.IsError || len(p.WouldUnlock) != 0 {
		t.Errorf("search with discovery off: %d %s", code, body)
	}
	f.write(t, map[string]any{"a": f.server()}, func(m map[string]any) {
		m["discovery"] = map[string]any{"enabled": true, "use_regex": true}
	})
	if code, body = f.do(t, "POST", "/api/reload", ""); code != 200 {
		t.Fatalf("reload: %d %s", code, body)
	}
	f.waitState(t, "a", supervisor.StateConnected)
	for _, q := range []string{`{"query":"echo the text back","kind":"bm25"}`, `{"query":"^mcp_a_ech","kind":"regex"}`} {
		code, body = f.do(t, "POST", "/api/search", q)
		p = host.SearchPreview{}
		if code != 200 || json.Unmarshal([]byte(body), &p) != nil || p.IsError || !slices.Contains(p.WouldUnlock, "mcp_a_echo") ||
			p.Results[0].Server != "a" || !strings.Contains(p.Text, "mcp_a_echo") {
			t.Errorf("search %s: %d %s", q, code, body)
		}
	}
	if n := f.h.UnlockCount(); n != 0 {
		t.Errorf("the preview unlocked %d tools", n)
	}
	if code, body = f.do(t, "POST", "/api/search", `{"query":"x","kind":"fuzzy"}`); code != 400 {
		t.Errorf("unknown kind: %d %s", code, body)
	}
}
