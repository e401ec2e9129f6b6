package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestLoadDefaults(t *testing.T) {
	e := newTestEnv(t)
	ld := mustLoad(t, e.opts())
	want := MCP{
		Discovery:          Discovery{TTL: 5, MaxSearchResults: 5, UseBM25: true},
		MaxInlineTextChars: 16384,
		MaxMessageMB:       64,
		MaxResultMB:        256,
		Workspace:          filepath.Join(e.home, ".plughost", "workspace"),
		Artifacts:          Artifacts{MaxAgeHours: 168, MaxTotalMB: 1024, SearchTimeoutSeconds: 10, SearchMaxMB: 256},
		Audit:              Audit{Enabled: true, Dir: filepath.Join(e.home, ".plughost", "audit"), MaxFileMB: 10, MaxFiles: 10},
		Trust:              Trust{Mode: TrustPin, Scan: ScanWarn, PinsFile: filepath.Join(e.home, ".plughost", "pins.json")},
		Timeouts:           TimeoutSeconds{Start: 15, Initialize: 30, ListTools: 30, Call: 120},
		Restart:            Restart{InitialBackoffSeconds: 1, MaxBackoffSeconds: 60},
		Plugins:            Plugins{Dirs: []string{}, SHA256: map[string]string{}},
		Servers:            map[string]Server{},
		Gateway: Gateway{Listen: "127.0.0.1:8765", Auth: true, TokenFile: filepath.Join(e.home, ".plughost", "gateway.token"),
			SessionIdleMinutes: 30, MaxRequestMB: 8, ReadTimeoutSeconds: 30, IdleTimeoutSeconds: 120, ShutdownSeconds: 10, AllowedOrigins: []string{},
			Store: Store{Type: StoreMemory, Prefix: "plughost:"}},
	}
	if diff := cmp.Diff(want, ld.Config.MCP); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
	if p := ld.Validate(ValidateOptions{}); !p.Empty() {
		t.Errorf("defaults have problems: %v", messages(p.All()))
	}
	if diff := cmp.Diff([]string{"default layer koanf.d/00-defaults.json"}, ld.Sources); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
	if ld.UserFile != e.user || ld.UserFileExists || ld.UserBytes != nil {
		t.Errorf("user file = %q exists=%v bytes=%q", ld.UserFile, ld.UserFileExists, ld.UserBytes)
	}
}

func TestDefaultsFunction(t *testing.T) {
	cfg, err := Defaults()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MCP.MaxInlineTextChars != 16384 || cfg.MCP.Workspace != "~/.plughost/workspace" {
		t.Errorf("Defaults() = %+v", cfg.MCP)
	}
	if p := Validate(cfg, ValidateOptions{}); !p.Empty() {
		t.Errorf("Defaults() has problems: %v", messages(p.All()))
	}
}

// TestLayerPrecedence sets the same key (ttl) in every layer and removes the
// highest layer one at a time: each time the next layer down must win.
func TestLayerPrecedence(t *testing.T) {
	defaults := minimalDefaults(`{"tools":{"mcp":{"discovery":{"ttl":1,"max_search_results":1}}}}`)
	tests := []struct {
		name                    string
		system, user, env, set  string
		wantTTL, wantMaxResults int
		wantSources             int
	}{
		{name: "defaults only", wantTTL: 1, wantMaxResults: 1, wantSources: 1},
		{name: "system dir", system: "2", wantTTL: 2, wantMaxResults: 1, wantSources: 2},
		{name: "user file", system: "2", user: "3", wantTTL: 3, wantMaxResults: 1, wantSources: 3},
		{name: "env", system: "2", user: "3", env: "4", wantTTL: 4, wantMaxResults: 1, wantSources: 4},
		{name: "set", system: "2", user: "3", env: "4", set: "5", wantTTL: 5, wantMaxResults: 1, wantSources: 5},
		{name: "set over defaults", set: "5", wantTTL: 5, wantMaxResults: 1, wantSources: 2},
		{name: "env over system", system: "2", env: "4", wantTTL: 4, wantMaxResults: 1, wantSources: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			opts := e.opts()
			opts.Defaults = defaults
			if tt.system != "" {
				writeFile(t, filepath.Join(e.system, "50-site.json"), `{"tools":{"mcp":{"discovery":{"ttl":`+tt.system+`}}}}`)
			}
			if tt.user != "" {
				writeFile(t, e.user, `{"tools":{"mcp":{"discovery":{"ttl":`+tt.user+`}}}}`)
			}
			if tt.env != "" {
				opts.Environ = []string{"PLUGHOST_TOOLS__MCP__DISCOVERY__TTL=" + tt.env}
			}
			if tt.set != "" {
				opts.Sets = []string{"tools.mcp.discovery.ttl=" + tt.set}
			}
			ld := mustLoad(t, opts)
			got := []int{ld.Config.MCP.Discovery.TTL, ld.Config.MCP.Discovery.MaxSearchResults, len(ld.Sources)}
			want := []int{tt.wantTTL, tt.wantMaxResults, tt.wantSources}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[ttl max_search_results sources] mismatch (-want +got):\n%s\nsources: %q", diff, ld.Sources)
			}
		})
	}
}

func TestSystemDirOrderAndFilter(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, filepath.Join(e.system, "20-b.json"), `{"tools":{"mcp":{"discovery":{"ttl":20}}}}`)
	writeFile(t, filepath.Join(e.system, "10-a.json"), `{"tools":{"mcp":{"discovery":{"ttl":10,"max_search_results":10}}}}`)
	writeFile(t, filepath.Join(e.system, "99-notes.txt"), `not json`)
	if err := os.Mkdir(filepath.Join(e.system, "30-dir.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	ld := mustLoad(t, e.opts())
	if got := ld.Config.MCP.Discovery; got.TTL != 20 || got.MaxSearchResults != 10 {
		t.Errorf("discovery = %+v, want ttl 20 (later file) and max 10", got)
	}
	want := []string{"default layer koanf.d/00-defaults.json", filepath.Join(e.system, "10-a.json"), filepath.Join(e.system, "20-b.json")}
	if diff := cmp.Diff(want, ld.Sources); diff != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", diff)
	}
}

func TestDefaultLayersOnlyNN(t *testing.T) {
	e := newTestEnv(t)
	opts := e.opts()
	opts.Defaults = fstest.MapFS{
		"00-defaults.json": {Data: []byte(`{"tools":{"mcp":{"discovery":{"ttl":1}}}}`)},
		"10-more.json":     {Data: []byte(`{"tools":{"mcp":{"discovery":{"ttl":2}}}}`)},
		"demo.json":        {Data: []byte(`{"tools":{"mcp":{"discovery":{"ttl":3}}}}`)},
	}
	ld := mustLoad(t, opts)
	if got := ld.Config.MCP.Discovery.TTL; got != 2 {
		t.Errorf("ttl = %d, want 2 (demo.json is not a layer)", got)
	}
}

func TestUserFileResolution(t *testing.T) {
	e := newTestEnv(t)
	explicit := filepath.Join(e.home, "explicit.json")
	fromEnv := filepath.Join(e.home, "env.json")
	writeFile(t, explicit, `{"tools":{"mcp":{"discovery":{"ttl":7}}}}`)
	writeFile(t, fromEnv, `{"tools":{"mcp":{"discovery":{"ttl":8}}}}`)
	writeFile(t, e.user, `{"tools":{"mcp":{"discovery":{"ttl":9}}}}`)
	tests := []struct {
		name     string
		userFile string
		environ  []string
		wantFile string
		wantTTL  int
	}{
		{"explicit wins", explicit, []string{"PLUGHOST_CONFIG=" + fromEnv}, explicit, 7},
		{"PLUGHOST_CONFIG", "", []string{"PLUGHOST_CONFIG=" + fromEnv}, fromEnv, 8},
		{"default", "", nil, e.user, 9},
		{"HOME from environ", "", []string{testHomeVar + "=" + e.home}, e.user, 9},
		{"explicit with ~", "~/explicit.json", nil, explicit, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := e.opts()
			opts.UserFile, opts.Environ = tt.userFile, tt.environ
			if tt.name == "HOME from environ" {
				opts.Home = ""
			}
			ld := mustLoad(t, opts)
			raw, _ := os.ReadFile(tt.wantFile)
			got := []any{ld.UserFile, ld.UserFileExists, string(ld.UserBytes), ld.Config.MCP.Discovery.TTL}
			want := []any{tt.wantFile, true, string(raw), tt.wantTTL}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[file exists bytes ttl] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMissingUserFile(t *testing.T) {
	e := newTestEnv(t)
	missing := filepath.Join(e.home, "nope.json")
	t.Run("missing default is fine", func(t *testing.T) {
		ld := mustLoad(t, e.opts())
		if ld.UserFileExists {
			t.Error("UserFileExists = true")
		}
	})
	for _, tt := range []struct {
		name string
		opts func(*LoadOptions)
	}{
		{"explicit", func(o *LoadOptions) { o.UserFile = missing }},
		{"PLUGHOST_CONFIG", func(o *LoadOptions) { o.Environ = []string{"PLUGHOST_CONFIG=" + missing} }},
	} {
		t.Run("missing "+tt.name+" is an error", func(t *testing.T) {
			opts := e.opts()
			tt.opts(&opts)
			_, err := Load(opts)
			if err == nil || !strings.Contains(err.Error(), missing) {
				t.Fatalf("err = %v, want one naming %s", err, missing)
			}
		})
		t.Run("missing "+tt.name+" with AllowMissing", func(t *testing.T) {
			opts := e.opts()
			tt.opts(&opts)
			opts.AllowMissing = true
			ld := mustLoad(t, opts)
			if ld.UserFile != missing || ld.UserFileExists {
				t.Errorf("UserFile = %q, exists = %v", ld.UserFile, ld.UserFileExists)
			}
		})
	}
}

func TestUnreadableSystemDir(t *testing.T) {
	e := newTestEnv(t)
	opts := e.opts()
	opts.SystemDir = e.user // a file, not a dir
	writeFile(t, e.user, `{}`)
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Load with a file as system dir: err = %v, want one saying it is not a directory", err)
	}
}

func TestUserData(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.user, `{"tools":{"mcp":{"discovery":{"ttl":9}}}}`)
	opts := e.opts()
	opts.UserData = []byte(`{"tools":{"mcp":{"discovery":{"ttl":3}}}}`)
	ld := mustLoad(t, opts)
	got := []any{ld.Config.MCP.Discovery.TTL, ld.UserFile, ld.UserFileExists, string(ld.UserBytes)}
	want := []any{3, e.user, true, string(opts.UserData)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestMalformedJSON(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{
			"trailing comma", "{\n  \"tools\": {\"mcp\": {\"enabled\": true,}}\n}",
			"%s: invalid JSON at line 2, column 37: invalid character '}' looking for beginning of object key string; fix the syntax there (a missing or trailing comma, or a missing quote, is the usual cause)",
		},
		{
			"truncated", "{\"tools\": {\n",
			"%s: invalid JSON at line 2, column 1: unexpected end of input (is a closing } or ] missing?); fix the syntax there (a missing or trailing comma, or a missing quote, is the usual cause)",
		},
		{
			"second value", "{}\n\n  {}",
			"%s: invalid JSON at line 3, column 3: unexpected data after the top-level value; fix the syntax there (a missing or trailing comma, or a missing quote, is the usual cause)",
		},
		{
			"not an object", `["a"]`,
			`%s: expected a JSON object at the top level, got an array; write the config as {"tools": {"mcp": {...}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			writeFile(t, e.user, tt.data)
			ld := mustLoad(t, e.opts())
			p := ld.Validate(ValidateOptions{})
			want := []string{strings.ReplaceAll(tt.want, "%s", e.user)}
			if diff := cmp.Diff(want, messages(p.Fatal)); diff != "" {
				t.Errorf("fatal mismatch (-want +got):\n%s", diff)
			}
			if ld.Config.MCP.Discovery.TTL != 5 {
				t.Error("the malformed layer must be skipped, the defaults kept")
			}
			if string(ld.UserBytes) != tt.data {
				t.Error("UserBytes must hold the raw file")
			}
		})
	}
}

func TestEmptyAndBOMFiles(t *testing.T) {
	for _, data := range []string{"", "  \n", "\xef\xbb\xbf{\"tools\":{}}"} {
		ld := loadUser(t, data)
		if p := ld.Validate(ValidateOptions{}); !p.Empty() {
			t.Errorf("%q: problems %v", data, messages(p.All()))
		}
	}
}

func TestDottedServerNames(t *testing.T) {
	tests := []struct {
		name string
		opts func(e testEnv, o *LoadOptions)
	}{
		{"file", func(e testEnv, o *LoadOptions) {
			writeFile(t, e.user, `{"tools":{"mcp":{"servers":{"my.server":{"enabled":true,"command":"run"}}}}}`)
		}},
		{"system dir", func(e testEnv, o *LoadOptions) {
			writeFile(t, filepath.Join(e.system, "10.json"), `{"tools":{"mcp":{"servers":{"my.server":{"enabled":true,"command":"run"}}}}}`)
		}},
		{"env", func(e testEnv, o *LoadOptions) {
			o.Environ = []string{
				"PLUGHOST_TOOLS__MCP__SERVERS__MY.SERVER__ENABLED=true",
				"PLUGHOST_TOOLS__MCP__SERVERS__MY.SERVER__COMMAND=run",
			}
		}},
		{"set", func(e testEnv, o *LoadOptions) {
			o.Sets = []string{`tools.mcp.servers["my.server"].enabled=true`, `tools.mcp.servers["my.server"].command=run`}
		}},
		{"set whole server", func(e testEnv, o *LoadOptions) {
			o.Sets = []string{`tools.mcp.servers["my.server"]={"enabled":true,"command":"run"}`}
		}},
		{"file then env and set", func(e testEnv, o *LoadOptions) {
			writeFile(t, e.user, `{"tools":{"mcp":{"servers":{"my.server":{"enabled":false,"command":"old"}}}}}`)
			o.Environ = []string{"PLUGHOST_TOOLS__MCP__SERVERS__MY.SERVER__ENABLED=true"}
			o.Sets = []string{`tools.mcp.servers["my.server"].command=run`}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			opts := e.opts()
			tt.opts(e, &opts)
			ld := mustLoad(t, opts)
			if p := ld.Validate(ValidateOptions{}); !p.Empty() {
				t.Fatalf("problems: %v", messages(p.All()))
			}
			want := map[string]Server{"my.server": {Enabled: true, Command: "run"}}
			if diff := cmp.Diff(want, ld.Config.MCP.Servers); diff != "" {
				t.Errorf("servers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvMapping(t *testing.T) {
	user := `{"tools":{"mcp":{"servers":{"GitHub":{"enabled":true,"command":"npx","env":{"Token":"a"},"headers":{}}}}}}`
	tests := []struct {
		name    string
		environ []string
		check   func(MCP) any
		want    any
	}{
		{"bool", []string{"PLUGHOST_TOOLS__MCP__DISCOVERY__ENABLED=true"}, func(m MCP) any { return m.Discovery.Enabled }, true},
		{"bool any case", []string{"PLUGHOST_TOOLS__MCP__ENABLED=TRUE"}, func(m MCP) any { return m.Enabled }, true},
		{"int", []string{"PLUGHOST_TOOLS__MCP__MAX_INLINE_TEXT_CHARS=1000"}, func(m MCP) any { return m.MaxInlineTextChars }, 1000},
		{"float", []string{"PLUGHOST_TOOLS__MCP__TIMEOUTS__CALL_SECONDS=2.5"}, func(m MCP) any { return m.Timeouts.Call }, 2.5},
		{"lowercase name", []string{"plughost_tools__mcp__enabled=true"}, func(m MCP) any { return m.Enabled }, false},
		{"string kept as text", []string{"PLUGHOST_TOOLS__MCP__WORKSPACE=123"}, func(m MCP) any { return m.Workspace }, "123"},
		{"JSON string", []string{`PLUGHOST_TOOLS__MCP__WORKSPACE="/w s"`}, func(m MCP) any { return m.Workspace }, "/w s"},
		{"array as JSON", []string{`PLUGHOST_TOOLS__MCP__PLUGINS__DIRS=["/a","/b"]`}, func(m MCP) any { return m.Plugins.Dirs }, []string{"/a", "/b"}},
		{"object as JSON", []string{`PLUGHOST_TOOLS__MCP__DISCOVERY={"ttl":9}`}, func(m MCP) any { return m.Discovery }, Discovery{TTL: 9, MaxSearchResults: 5, UseBM25: true}},
		{"specific after object", []string{`PLUGHOST_TOOLS__MCP__DISCOVERY={"ttl":9}`, "PLUGHOST_TOOLS__MCP__DISCOVERY__TTL=4"}, func(m MCP) any { return m.Discovery.TTL }, 4},
		{"whole tools", []string{`PLUGHOST_TOOLS={"mcp":{"enabled":true}}`}, func(m MCP) any { return m.Enabled }, true},
		{"last duplicate wins", []string{"PLUGHOST_TOOLS__MCP__DISCOVERY__TTL=2", "PLUGHOST_TOOLS__MCP__DISCOVERY__TTL=3"}, func(m MCP) any { return m.Discovery.TTL }, 3},
		{"existing server, any case", []string{"PLUGHOST_TOOLS__MCP__SERVERS__GITHUB__ARGS=[\"-y\"]"}, func(m MCP) any { return len(m.Servers) == 1 && len(m.Servers["GitHub"].Args) == 1 }, true},
		{"new server lowercased", []string{"PLUGHOST_TOOLS__MCP__SERVERS__NEW__ENABLED=false", "PLUGHOST_TOOLS__MCP__SERVERS__NEW__URL=https://x/y"}, func(m MCP) any { return m.Servers["new"].URL.Reveal() }, "https://x/y"},
		{"env name kept", []string{"PLUGHOST_TOOLS__MCP__SERVERS__GITHUB__ENV__API_KEY=k"}, func(m MCP) any { return m.Servers["GitHub"].Env["API_KEY"].Reveal() }, "k"},
		{"env name matches existing", []string{"PLUGHOST_TOOLS__MCP__SERVERS__GITHUB__ENV__TOKEN=b"}, func(m MCP) any { return m.Servers["GitHub"].Env["Token"].Reveal() }, "b"},
		{"secret string kept as text", []string{"PLUGHOST_TOOLS__MCP__SERVERS__GITHUB__ENV__N=42"}, func(m MCP) any { return m.Servers["GitHub"].Env["N"].Reveal() }, "42"},
		{"plugin type lowercased", []string{"PLUGHOST_TOOLS__MCP__PLUGINS__SHA256__STDIO=" + strings.Repeat("a", 64)}, func(m MCP) any { return len(m.Plugins.SHA256["stdio"]) }, 64},
		{"other vars ignored", []string{"PLUGHOST_CONFIG_X=1", "PLUGHOST_LOG_LEVEL=debug", "HOME=/x", "PLUGHOST_=", "PLUGHOST_TOOLS__MCP__ENABLED"}, func(m MCP) any { return m.Enabled }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := mustLoad(t, LoadOptions{UserData: []byte(user), Home: "/h", SystemDir: t.TempDir(), Environ: tt.environ})
			if p := ld.Validate(ValidateOptions{}); !p.Empty() {
				t.Fatalf("problems: %v", messages(p.All()))
			}
			if diff := cmp.Diff(tt.want, tt.check(ld.Config.MCP)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvAndSetProblems(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		sets    []string
		fatal   []string
		servers map[string][]string
	}{
		{
			name:    "unknown env key names the variable",
			environ: []string{"PLUGHOST_TOOLS__MCP__DISCOVERY__ENABELD=true"},
			fatal:   []string{`tools.mcp.discovery.enabeld: unknown key "enabeld" (did you mean "enabled"?) in environment variable PLUGHOST_TOOLS__MCP__DISCOVERY__ENABELD`},
		},
		{
			name:    "unknown top-level env key",
			environ: []string{"PLUGHOST_TOOLZ__MCP__ENABLED=true"},
			fatal:   []string{`toolz: unknown key "toolz" (did you mean "tools"?) in environment variable PLUGHOST_TOOLZ__MCP__ENABLED`},
		},
		{
			name:    "empty env segment",
			environ: []string{"PLUGHOST_TOOLS____MCP=1"},
			fatal:   []string{`environment variable PLUGHOST_TOOLS____MCP has an empty key (three or more "_" in a row, or a trailing "__"); separate keys with exactly "__", e.g. PLUGHOST_TOOLS__MCP__ENABLED`},
		},
		{
			name:    "env below a leaf",
			environ: []string{"PLUGHOST_TOOLS__MCP__ENABLED__X=1"},
			fatal:   []string{`tools.mcp.enabled is a boolean and has no keys below it, so "tools.mcp.enabled.x" cannot be set (environment variable PLUGHOST_TOOLS__MCP__ENABLED__X)`},
		},
		{
			name:    "env wrong type",
			environ: []string{"PLUGHOST_TOOLS__MCP__DISCOVERY__TTL=often"},
			fatal:   []string{`tools.mcp.discovery.ttl: expected an integer, got string "often" in environment variable PLUGHOST_TOOLS__MCP__DISCOVERY__TTL; write a whole number such as 5, without quotes`},
		},
		{
			name:  "set unknown key",
			sets:  []string{"tools.mcp.discovery.tll=3"},
			fatal: []string{`tools.mcp.discovery.tll: unknown key "tll" (did you mean "ttl"?) in --set tools.mcp.discovery.tll`},
		},
		{
			name: "set syntax",
			sets: []string{"tools.mcp.enabled", `tools.mcp.servers["a.b.enabled=true`, "tools..mcp=1"},
			fatal: []string{
				`--set item 1: missing "=": write --set path=value, e.g. --set tools.mcp.enabled=true`,
				`--set "tools.mcp.servers[\"a.b.enabled": a bracketed key must be a double-quoted string, e.g. servers["my.server"]`,
				`--set "tools..mcp": empty key in the path: write keys separated by single dots, e.g. tools.mcp.discovery.ttl=3`,
			},
		},
		{
			name: "set server field wrong type",
			sets: []string{`tools.mcp.servers.x={"enabled":true,"command":"c"}`, "tools.mcp.servers.x.args=-y"},
			servers: map[string][]string{"x": {
				`tools.mcp.servers.x.args: expected an array of strings, got string "-y" in --set tools.mcp.servers.x.args; write a JSON array such as ["a", "b"]`,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := mustLoad(t, LoadOptions{Home: "/h", SystemDir: t.TempDir(), Environ: tt.environ, Sets: tt.sets, UserData: []byte{}})
			p := ld.Validate(ValidateOptions{})
			if diff := cmp.Diff(tt.fatal, messages(p.Fatal)); diff != "" {
				t.Errorf("fatal mismatch (-want +got):\n%s", diff)
			}
			got := map[string][]string{}
			for name, list := range p.Servers {
				got[name] = messages(list)
			}
			if tt.servers == nil {
				tt.servers = map[string][]string{}
			}
			if diff := cmp.Diff(tt.servers, got); diff != "" {
				t.Errorf("servers mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNullRemovesServer(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, filepath.Join(e.system, "10.json"), `{"tools":{"mcp":{"servers":{"a":{"enabled":true,"command":"x"},"b":{"enabled":true,"command":"y"}}}}}`)
	writeFile(t, e.user, `{"tools":{"mcp":{"servers":{"a":null}}}}`)
	ld := mustLoad(t, e.opts())
	if diff := cmp.Diff([]string{"b"}, keys(ld.Config.MCP.Servers)); diff != "" {
		t.Errorf("servers mismatch (-want +got):\n%s", diff)
	}
}

func keys(m map[string]Server) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestHomeExpansion(t *testing.T) {
	ld := loadUser(t, `{"tools":{"mcp":{"workspace":"~/ws","plugins":{"dirs":["~/p",`+jsonString(testAbs)+`,"~"]},
		"servers":{"s":{"enabled":true,"command":"c","env_file":"~/.env"}}}}}`)
	got := []string{ld.Config.MCP.Workspace, ld.Config.MCP.Servers["s"].EnvFile}
	got = append(got, ld.Config.MCP.Plugins.Dirs...)
	want := []string{filepath.Join(testHome, "ws"), filepath.Join(testHome, ".env"), filepath.Join(testHome, "p"), testAbs, testHome}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got := ExpandHome("~x/y", "/h"); got != "~x/y" {
		t.Errorf("ExpandHome(~x/y) = %q", got)
	}
	if got := ExpandHome("~/y", ""); got != "~/y" {
		t.Errorf("ExpandHome with no home = %q", got)
	}
	// A backslash separates only on Windows; elsewhere it is part of a name.
	want = []string{`~\y`, `~\`}
	if runtime.GOOS == "windows" {
		want = []string{filepath.Join(testHome, "y"), testHome}
	}
	if got := []string{ExpandHome(`~\y`, testHome), ExpandHome(`~\`, testHome)}; !slices.Equal(got, want) {
		t.Errorf("ExpandHome(~\\y), ExpandHome(~\\) = %q, want %q", got, want)
	}
}

func TestArraysReplace(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, filepath.Join(e.system, "10.json"), `{"tools":{"mcp":{"servers":{"a":{"enabled":true,"command":"x","args":["1","2","3"]}}}}}`)
	writeFile(t, e.user, `{"tools":{"mcp":{"servers":{"a":{"args":["9"]}}}}}`)
	ld := mustLoad(t, e.opts())
	if diff := cmp.Diff([]string{"9"}, ld.Config.MCP.Servers["a"].Args); diff != "" {
		t.Errorf("args mismatch (-want +got):\n%s", diff)
	}
}

func TestThirdPartyExtraKeys(t *testing.T) {
	ld := loadUser(t, `{"tools":{"mcp":{"servers":{
		"ws":{"enabled":true,"type":"websocket","url":"wss://x","proxy":{"host":"p"}},
		"std":{"enabled":true,"command":"c","proxy":"p"}}}}}`)
	p := ld.Validate(ValidateOptions{ExtraTypes: []string{"websocket"}})
	if err := p.ServerErr("ws"); err != nil {
		t.Errorf("third-party server: %v", err)
	}
	want := []string{`tools.mcp.servers.std.proxy: unknown key "proxy" in ` + testUserFile + `; remove it or use one of the known keys: args, command, deferred, enabled, env, env_file, exclude_tools, headers, include_tools, inherit_env, isolation, isolation_idle_seconds, max_message_mb, max_result_mb, max_sessions, oauth, roots, timeouts, trust, trust_scan, type, url`}
	if diff := cmp.Diff(want, messages(p.Servers["std"])); diff != "" {
		t.Errorf("built-in server with unknown key (-want +got):\n%s", diff)
	}
	if p := ld.Validate(ValidateOptions{}); !strings.Contains(fmt.Sprint(p.ServerErr("ws")), `unknown transport "websocket"`) {
		t.Errorf("without ExtraTypes: %v", p.ServerErr("ws"))
	}
	raw, err := ld.Config.MCP.Servers["ws"].TransportConfig("/cfg")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"url": "wss://x", "proxy": map[string]any{"host": "p"}}, got); diff != "" {
		t.Errorf("transport config mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadErrorsAreNotValidationErrors(t *testing.T) {
	_, err := Load(LoadOptions{UserFile: "/nonexistent/x.json", SystemDir: t.TempDir()})
	var ve *ValidationError
	if err == nil || errors.As(err, &ve) || !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("err = %v", err)
	}
}

func TestNullRemovesServerFromEnvAndSet(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.user, `{"tools":{"mcp":{"servers":{"a":{"enabled":true,"command":"x"},"b":{"enabled":true,"command":"y"},"c":{"enabled":true,"command":"z"}}}}}`)
	opts := e.opts()
	opts.Environ = []string{"PLUGHOST_TOOLS__MCP__SERVERS__A=null"}
	opts.Sets = []string{"tools.mcp.servers.b=null"}
	ld := mustLoad(t, opts)
	if diff := cmp.Diff([]string{"c"}, keys(ld.Config.MCP.Servers)); diff != "" {
		t.Errorf("servers mismatch (-want +got):\n%s", diff)
	}
}

func TestRelativeUserFileIsMadeAbsolute(t *testing.T) {
	e := newTestEnv(t)
	t.Chdir(e.home)
	writeFile(t, filepath.Join(e.home, "rel.json"), `{}`)
	opts := e.opts()
	opts.UserFile = "rel.json"
	ld := mustLoad(t, opts)
	if ld.UserFile != filepath.Join(e.home, "rel.json") || !ld.UserFileExists {
		t.Errorf("UserFile = %q, exists = %v", ld.UserFile, ld.UserFileExists)
	}
}

// TestSpecExamples loads the examples of the spec: all valid except the
// slack server's "type": "slack", which disables that server only.
func TestSpecExamples(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		servers map[string]string // server -> effective transport
		bad     []string
	}{
		{
			name: "stdio",
			json: `{"tools": {"mcp": {"enabled": true, "servers": {
  "filesystem": {"enabled": true, "command": "npx",
                 "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}}}}`,
			servers: map[string]string{"filesystem": "stdio"},
		},
		{
			name: "remote sse with header",
			json: `{"tools": {"mcp": {"enabled": true, "servers": {
  "remote-mcp": {"enabled": true, "type": "sse", "url": "https://example.com/mcp",
                 "headers": {"Authorization": "Bearer YOUR_TOKEN"}}}}}}`,
			servers: map[string]string{"remote-mcp": "sse"},
		},
		{
			name: "discovery with slack",
			json: `{"tools": {"mcp": {"enabled": true,
  "discovery": {"enabled": true, "ttl": 5, "max_search_results": 5, "use_bm25": true, "use_regex": false},
  "servers": {
    "github": {"enabled": true, "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "YOUR_GITHUB_TOKEN"}},
    "postgres": {"enabled": true, "command": "npx",
                 "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://user:password@localhost/dbname"]},
    "slack": {"enabled": true, "type": "slack", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-slack"],
              "env": {"SLACK_BOT_TOKEN": "YOUR_SLACK_BOT_TOKEN", "SLACK_TEAM_ID": "YOUR_SLACK_TEAM_ID"}}}}}}`,
			servers: map[string]string{"github": "stdio", "postgres": "stdio", "slack": "slack"},
			bad:     []string{"slack"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := loadUser(t, tt.json)
			p := ld.Validate(ValidateOptions{})
			if err := p.Err(); err != nil {
				t.Fatalf("fatal: %v", err)
			}
			got := map[string]string{}
			for name, s := range ld.Config.MCP.Servers {
				got[name] = s.Transport()
			}
			if diff := cmp.Diff(tt.servers, got); diff != "" {
				t.Errorf("transports mismatch (-want +got):\n%s", diff)
			}
			var bad []string
			for name := range p.Servers {
				bad = append(bad, name)
			}
			if diff := cmp.Diff(tt.bad, bad); diff != "" {
				t.Errorf("servers with problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// tools.mcp.gateway.allowed_origins is read from a file like any key, and
// an entry that is not an origin is a problem naming its path and the form.
func TestAllowedOriginsFromFile(t *testing.T) {
	e := newTestEnv(t)
	writeFile(t, e.user, `{"tools":{"mcp":{"gateway":{"allowed_origins":["http://localhost:6274","localhost:3000"]}}}}`)
	ld := mustLoad(t, e.opts())
	if diff := cmp.Diff([]string{"http://localhost:6274", "localhost:3000"}, ld.Config.MCP.Gateway.AllowedOrigins); diff != "" {
		t.Errorf("allowed_origins (-want +got):\n%s", diff)
	}
	all := ld.Validate(ValidateOptions{}).All()
	if len(all) != 1 || all[0].Path != "tools.mcp.gateway.allowed_origins[1]" ||
		!strings.Contains(all[0].Msg, `"localhost:3000" is not an origin`) || !strings.Contains(all[0].Msg, "scheme://host[:port]") {
		t.Errorf("problems: %v, want one at tools.mcp.gateway.allowed_origins[1] saying how to write an origin", all)
	}
	writeFile(t, e.user, `{"tools":{"mcp":{"gateway":{"allowed_origins":"http://localhost:6274"}}}}`)
	all = mustLoad(t, e.opts()).Validate(ValidateOptions{}).All()
	if len(all) != 1 || all[0].Path != "tools.mcp.gateway.allowed_origins" || !strings.Contains(all[0].Msg, "expected an array of strings") {
		t.Errorf("a string for the list: %v", all)
	}
}
