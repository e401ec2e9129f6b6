package api_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/api"
	"github.com/plughost/plughost/host/supervisor"
)

// errorOf decodes an error answer.
func errorOf(t *testing.T, body string) api.Error {
	t.Helper()
	var eb struct {
		Error api.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &eb); err != nil {
		t.Fatalf("not an error answer: %s", body)
	}
	return eb.Error
}

func (f *fixture) version(t *testing.T) string {
	t.Helper()
	code, body := f.do(t, "GET", "/api/servers", "")
	var list api.ServerList
	if code != 200 || json.Unmarshal([]byte(body), &list) != nil || list.Version == "" {
		t.Fatalf("GET /api/servers: %d %s", code, body)
	}
	return list.Version
}

func (f *fixture) fileBytes(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(f.file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) waitState(t *testing.T, name string, want supervisor.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		ch := f.h.Changed()
		if st, ok := f.h.Status(name); ok && st.State == want {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			st, _ := f.h.Status(name)
			t.Fatalf("server %s: state %s (%s); want %s", name, st.State, st.LastError, want)
		}
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Add, read, change (a masked secret kept), disable and remove a server;
// every answer masks the secret and carries the new version.
func TestServerCRUD(t *testing.T) {
	f := newFixture(t)
	v := f.version(t)
	add := mustMarshal(map[string]any{"name": "b", "server": f.server(), "if_version": v})
	code, body := f.do(t, "POST", "/api/servers", add)
	var w api.ServerWritten
	if code != 201 || json.Unmarshal([]byte(body), &w) != nil || w.Server == nil || w.Version == v || !w.Apply.OK {
		t.Fatalf("POST /api/servers: %d %s", code, body)
	}
	f.waitState(t, "b", supervisor.StateConnected)
	add = mustMarshal(map[string]any{"name": "b", "server": f.server(), "if_version": w.Version})
	if code, body = f.do(t, "POST", "/api/servers", add); code != 409 || errorOf(t, body).Code != api.CodeExists {
		t.Errorf("adding b again: %d %s; want 409 exists", code, body)
	}

	code, body = f.do(t, "GET", "/api/servers/b", "")
	var d api.ServerDetail
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil || d.Version != w.Version || d.Config.Env["TOKEN"] != "****" || len(d.Stats.Series) != 30 {
		t.Fatalf("GET /api/servers/b: %d %s", code, body)
	}

	// The form sends back what it was shown: the masked value keeps the secret.
	shown := map[string]any{"enabled": true, "command": d.Config.Command, "args": []string{"-name", "renamed"},
		"env": map[string]string{"TOKEN": "****", "OTHER": "x"}}
	code, body = f.do(t, "PUT", "/api/servers/b", mustMarshal(map[string]any{"server": shown, "if_version": d.Version}))
	if code != 200 || json.Unmarshal([]byte(body), &w) != nil {
		t.Fatalf("PUT /api/servers/b: %d %s", code, body)
	}
	if file := f.fileBytes(t); !strings.Contains(file, `"TOKEN":"`+secretValue+`"`) || !strings.Contains(file, `"renamed"`) || strings.Contains(file, "****") {
		t.Errorf("file after the PUT:\n%s", file)
	}

	code, body = f.do(t, "POST", "/api/servers/b/enabled", mustMarshal(map[string]any{"enabled": false, "if_version": w.Version}))
	if code != 200 || json.Unmarshal([]byte(body), &w) != nil || w.Server == nil || w.Server.Enabled || w.Server.State != supervisor.StateDisabled {
		t.Fatalf("disable b: %d %s", code, body)
	}
	code, body = f.do(t, "DELETE", "/api/servers/b?if_version="+w.Version, "")
	w = api.ServerWritten{}
	if code != 200 || json.Unmarshal([]byte(body), &w) != nil || w.Server != nil {
		t.Fatalf("DELETE b: %d %s", code, body)
	}
	if _, ok := f.h.Status("b"); ok {
		t.Error("b still runs after DELETE")
	}
	if code, body = f.do(t, "DELETE", "/api/servers/b", ""); code != 404 {
		t.Errorf("DELETE of a removed server: %d %s", code, body)
	}
}

// A write from a stale view (the file was edited behind the API's back) is
// refused with 409 and changes nothing; so is invalid input (422 naming the
// field), a foreign origin or a form body.
func TestWritesRefused(t *testing.T) {
	f := newFixture(t)
	stale := f.version(t)
	f.write(t, map[string]any{"a": f.server(), "c": f.server()}) // behind the API's back
	before := f.fileBytes(t)
	refused := func(what string, code int, body string, wantCode int, wantError string) {
		t.Helper()
		if code != wantCode || errorOf(t, body).Code != wantError {
			t.Errorf("%s: %d %s; want %d %s", what, code, body, wantCode, wantError)
		}
		if f.fileBytes(t) != before {
			t.Fatalf("%s changed the file", what)
		}
	}
	code, body := f.do(t, "PUT", "/api/servers/a", mustMarshal(map[string]any{"server": f.server("-name", "x"), "if_version": stale}))
	refused("PUT with a stale version", code, body, 409, api.CodeConflict)
	code, body = f.do(t, "POST", "/api/servers", mustMarshal(map[string]any{"name": "d", "server": f.server()}), "If-Match", stale)
	refused("POST with a stale If-Match", code, body, 409, api.CodeConflict)
	code, body = f.do(t, "DELETE", "/api/servers/a", mustMarshal(map[string]any{"if_version": stale}))
	refused("DELETE with a stale version", code, body, 409, api.CodeConflict)
	code, body = f.do(t, "PUT", "/api/settings", `{"settings":{"max_inline_text_chars":5000},"if_version":"`+stale+`"}`)
	refused("PUT settings with a stale version", code, body, 409, api.CodeConflict)

	code, body = f.do(t, "POST", "/api/servers", `{"name":"r","server":{"enabled":true,"url":"ftp://x","env":{"K":"v"}}}`)
	refused("an invalid server", code, body, 422, api.CodeInvalidConfig)
	paths := map[string]bool{}
	for _, p := range errorOf(t, body).Problems {
		paths[p.Path] = true
	}
	if !paths["tools.mcp.servers.r.url"] || !paths["tools.mcp.servers.r.env"] {
		t.Errorf("problems %s lack the url and env paths", body)
	}
	code, body = f.do(t, "PUT", "/api/servers/a", `{"server":{"enabled":true,"command":"x","headers":{"H":"****"}}}`)
	refused("a mask with nothing stored", code, body, 422, api.CodeInvalidConfig)
	code, body = f.do(t, "POST", "/api/servers", `{"name":`)
	refused("a body that is not JSON", code, body, 400, api.CodeBadRequest)
	code, body = f.do(t, "POST", "/api/servers/a/enabled", `{"enabled":false}`, "Origin", "https://evil.example")
	refused("a foreign origin", code, body, 403, api.CodeForbidden)
	code, body = f.do(t, "PUT", "/api/settings", `{"settings":{"discovery":{"enabled":true,"use_bm25":false,"use_regex":false}}}`)
	refused("discovery without a search tool", code, body, 422, api.CodeInvalidConfig)
	if p := errorOf(t, body).Problems; len(p) != 1 || p[0].Path != "tools.mcp.discovery.use_bm25" {
		t.Errorf("settings problems: %s", body)
	}
}

func TestSettings(t *testing.T) {
	f := newFixture(t)
	code, body := f.do(t, "GET", "/api/settings", "")
	var s api.SettingsBody
	if code != 200 || json.Unmarshal([]byte(body), &s) != nil || s.Version == "" || s.Settings.Discovery == nil ||
		s.Settings.Artifacts == nil || *s.Settings.MaxInlineTextChars == 0 || len(s.ContextCost.Costs) == 0 {
		t.Fatalf("GET /api/settings: %d %s", code, body)
	}
	code, body = f.do(t, "PUT", "/api/settings", `{"settings":{"max_inline_text_chars":5000,"discovery":{"ttl":9}},"if_version":"`+s.Version+`"}`)
	if code != 200 || json.Unmarshal([]byte(body), &s) != nil || *s.Settings.MaxInlineTextChars != 5000 || *s.Settings.Discovery.TTL != 9 {
		t.Fatalf("PUT /api/settings: %d %s", code, body)
	}
	if f.h.Config().MCP.MaxInlineTextChars != 5000 {
		t.Error("the running host did not apply the new settings")
	}
	if file := f.fileBytes(t); !strings.Contains(file, `"ttl": 9`) && !strings.Contains(file, `"ttl":9`) {
		t.Errorf("file:\n%s", file)
	}
}

// The catalog lists the embedded presets and the user's; installing one
// with a credential stores it as env, masked in every answer, and the
// server connects with it.
func TestCatalogInstall(t *testing.T) {
	f := newFixture(t)
	catalog := map[string]any{"presets": []any{map[string]any{
		"id": "canary", "name": "Canary", "description": "The test server, needing a token.",
		"server":      map[string]any{"enabled": true, "command": bins.Path("testserver"), "args": []string{"-echo-env", "-name", "{{label}}"}},
		"credentials": []any{map[string]any{"key": "TOKEN", "label": "Token", "kind": "env", "secret": true, "required": true}},
		"arguments":   []any{map[string]any{"key": "label", "label": "Label", "kind": "text", "default": "canary", "required": true}},
	}}}
	if err := os.WriteFile(filepath.Join(filepath.Dir(f.file), "catalog.json"), []byte(mustMarshal(catalog)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, body := f.do(t, "GET", "/api/catalog", "")
	var c api.CatalogBody
	if code != 200 || json.Unmarshal([]byte(body), &c) != nil || len(c.Presets) < 16 {
		t.Fatalf("GET /api/catalog: %d %s", code, body)
	}
	code, body = f.do(t, "POST", "/api/catalog/canary/install", `{"name":"can"}`)
	if code != 422 || len(errorOf(t, body).Problems) != 1 || errorOf(t, body).Problems[0].Path != "credentials.TOKEN" {
		t.Errorf("install without the credential: %d %s", code, body)
	}
	code, body = f.do(t, "POST", "/api/catalog/nope/install", `{}`)
	if code != 404 {
		t.Errorf("install of an unknown preset: %d %s", code, body)
	}
	code, body = f.do(t, "POST", "/api/catalog/canary/install", mustMarshal(map[string]any{"name": "can",
		"credentials": map[string]string{"TOKEN": secretValue}, "if_version": f.version(t)}))
	if code != 201 {
		t.Fatalf("install: %d %s", code, body)
	}
	f.waitState(t, "can", supervisor.StateConnected)
	code, body = f.do(t, "GET", "/api/servers", "")
	var list api.ServerList
	if code != 200 || json.Unmarshal([]byte(body), &list) != nil {
		t.Fatal(body)
	}
	for _, r := range list.Servers {
		if r.Name == "can" && (!strings.Contains(r.StderrTail, "TOKEN=****") || r.Auth != "none") {
			t.Errorf("the installed server's row: %+v", r)
		}
	}
	if !strings.Contains(f.fileBytes(t), `"TOKEN":"`+secretValue+`"`) {
		t.Error("the credential was not stored")
	}
}

// Every value the validator refuses is answered 422 with the JSON path of
// the field and a message saying how to fix it, and nothing is written:
// nothing is stored as sent or dropped on the floor.
func TestValuesRefusedNotDropped(t *testing.T) {
	f := newFixture(t)
	before := f.fileBytes(t)
	stdio := func(extra string) string {
		return `{"enabled":true,"command":"` + bins.Path("testserver") + `"` + extra + `}`
	}
	long := strings.Repeat("n", 10000)
	for _, c := range []struct {
		what, method, path, body string
		wantPath, wantMsg        string
	}{
		{"a masked env value on a new server", "POST", "/api/servers", `{"name":"k","server":` + stdio(`,"env":{"K":"****"}`) + `}`,
			"tools.mcp.servers.k.env.K", `is "****", the mask plughost shows in place of a secret`},
		{"a negative max_message_mb setting", "PUT", "/api/settings", `{"settings":{"max_message_mb":-1}}`,
			"tools.mcp.max_message_mb", "must be between 1 and 1024 (MiB), got -1"},
		{"a negative max_message_mb of a server", "POST", "/api/servers", `{"name":"m","server":` + stdio(`,"max_message_mb":-1`) + `}`,
			"tools.mcp.servers.m.max_message_mb", "must be between 1 and 1024 (MiB), got -1"},
		{"an unknown settings key", "PUT", "/api/settings", `{"settings":{"max_inline_text_charz":5000}}`,
			"tools.mcp.max_inline_text_charz", `unknown key "max_inline_text_charz" (did you mean "max_inline_text_chars"?)`},
		{"an unknown nested settings key", "PUT", "/api/settings", `{"settings":{"discovery":{"tll":3}}}`,
			"tools.mcp.discovery.tll", `unknown key "tll" (did you mean "ttl"?)`},
		{"servers through the settings", "PUT", "/api/settings", `{"settings":{"servers":{"x":{"enabled":true}}}}`,
			"tools.mcp.servers", "/api/servers"},
		{"a negative discovery.ttl with discovery off", "PUT", "/api/settings", `{"settings":{"discovery":{"enabled":false,"ttl":-1}}}`,
			"tools.mcp.discovery.ttl", "must be at least 1, got -1"},
		{"a wrong type in the settings", "PUT", "/api/settings", `{"settings":{"discovery":{"ttl":"five"}}}`,
			"tools.mcp.discovery.ttl", "expected an integer"},
		{"a name with a path", "POST", "/api/servers", `{"name":"../../x","server":` + stdio("") + `}`,
			`tools.mcp.servers["../../x"]`, `the server name "../../x" starts with "."; rename the server (e.g. "x")`},
		{"a name of 10,000 characters", "POST", "/api/servers", `{"name":"` + long + `","server":` + stdio("") + `}`,
			`tools.mcp.servers.` + long, "is 10000 characters long"},
		{"a name the dashboard's help refuses", "POST", "/api/servers", `{"name":"my server!","server":` + stdio("") + `}`,
			`tools.mcp.servers["my server!"]`, `contains " "; rename the server (e.g. "my-server")`},
		{"an empty name", "POST", "/api/servers", `{"name":"","server":` + stdio("") + `}`,
			"name", "the server name is empty"},
		{"a name through the catalog", "POST", "/api/catalog/memory/install", `{"name":"my server!"}`,
			`tools.mcp.servers["my server!"]`, `contains " "`},
	} {
		code, body := f.do(t, c.method, c.path, c.body)
		e := errorOf(t, body)
		found := false
		for _, p := range e.Problems {
			found = found || p.Path == c.wantPath && strings.Contains(p.Msg, c.wantMsg)
		}
		if code != 422 || e.Code != api.CodeInvalidConfig || !found {
			t.Errorf("%s: %d %.600s; want 422 with a problem at %.80s saying %q", c.what, code, body, c.wantPath, c.wantMsg)
		}
		if f.fileBytes(t) != before {
			t.Fatalf("%s changed the file:\n%s", c.what, f.fileBytes(t))
		}
	}
}
