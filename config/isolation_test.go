package config

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidateIsolation(t *testing.T) {
	runServerCases(t, []serverCase{
		{name: "session ok", server: `{"enabled":true,"command":"x","isolation":"session","isolation_idle_seconds":60,"max_sessions":4}`},
		{name: "shared with roots ok", server: `{"enabled":true,"command":"x","isolation":"shared","roots":[` + jsonString(testRootDir) + `,"` + testRootURI + `"]}`},
		{
			name: "unknown mode", server: `{"enabled":true,"command":"x","isolation":"foo"}`,
			want: []string{srv + `.isolation: must be "shared" or "session", got "foo"; remove it for "shared" (one connection for every session)`},
		},
		{
			name: "negative bounds", server: `{"enabled":true,"command":"x","isolation":"session","isolation_idle_seconds":-1,"max_sessions":-2}`,
			want: []string{
				srv + `.isolation_idle_seconds: must be a positive number of seconds, got -1; remove it for the default (300)`,
				srv + `.max_sessions: must be a positive number of sessions, got -2; remove it for the default (32)`,
			},
		},
		{
			name: "relative root", server: `{"enabled":true,"command":"x","roots":[` + jsonString(testAbs) + `,"rel/dir","https://x/y"]}`,
			want: []string{
				srv + `.roots[1]: "rel/dir" is neither an absolute path nor a file:// URI; ` + testRootHint,
				srv + `.roots[2]: "https://x/y" is neither an absolute path nor a file:// URI; ` + testRootHint,
			},
		},
	})
}

func TestIsolationDefaults(t *testing.T) {
	var s Server
	if s.IsolationMode() != IsolationShared || s.IsolationIdle() != 300*time.Second || s.SessionLimit() != 32 {
		t.Errorf("defaults = %q %v %d", s.IsolationMode(), s.IsolationIdle(), s.SessionLimit())
	}
	s = Server{Isolation: "session", IsolationIdleSeconds: 5, MaxSessions: 2, Roots: []string{testRootDir + string(filepath.Separator), testRootURI, "rel"}}
	if s.IsolationMode() != IsolationSession || s.IsolationIdle() != 5*time.Second || s.SessionLimit() != 2 {
		t.Errorf("set = %q %v %d", s.IsolationMode(), s.IsolationIdle(), s.SessionLimit())
	}
	want := []Root{{URI: testRootDirURI, Name: "data"}, {URI: testRootURI, Name: "proj"}}
	if diff := cmp.Diff(want, s.RootList()); diff != "" {
		t.Errorf("RootList (-want +got):\n%s", diff)
	}
}

// TestRootForms checks which roots entries each system takes and the URI
// each becomes: on Windows an absolute path has a drive or is a UNC path,
// and a path without either, which Unix takes, is refused. A zero Root is a
// refused entry.
func TestRootForms(t *testing.T) {
	for _, c := range []struct {
		entry         string
		unix, windows Root
	}{
		{"/srv/data/", Root{"file:///srv/data", "data"}, Root{}},
		{"/a b", Root{"file:///a%20b", "a b"}, Root{}},
		{"file:///home/u/proj", Root{"file:///home/u/proj", "proj"}, Root{}},
		{"file://localhost/srv/data", Root{"file://localhost/srv/data", "data"}, Root{}},
		{`C:\srv\data\`, Root{}, Root{"file:///C:/srv/data", "data"}},
		{"C:/srv/a b", Root{}, Root{"file:///C:/srv/a%20b", "a b"}},
		{"file:///C:/Users/u/proj", Root{"file:///C:/Users/u/proj", "proj"}, Root{"file:///C:/Users/u/proj", "proj"}},
		{"file://localhost/C:/proj", Root{"file://localhost/C:/proj", "proj"}, Root{"file://localhost/C:/proj", "proj"}},
		{`\\host\share\dir`, Root{}, Root{"file://host/share/dir", "dir"}},
		{"file://host/share/dir", Root{}, Root{"file://host/share/dir", "dir"}},
		{`\\?\C:\dir`, Root{}, Root{}},
		{"C:dir", Root{}, Root{}},
		{"file:///C:", Root{"file:///C:", "C:"}, Root{}},
		{"file:rel", Root{}, Root{}},
		{"rel/dir", Root{}, Root{}},
		{"https://x/y", Root{}, Root{}},
	} {
		want := c.unix
		if runtime.GOOS == "windows" {
			want = c.windows
		}
		got, ok := parseRoot(c.entry)
		if got != want || ok != (want != Root{}) {
			t.Errorf("parseRoot(%q) = %+v, %v; want %+v", c.entry, got, ok, want)
		}
	}
}

func TestTrustSettings(t *testing.T) {
	ld := loadUser(t, `{"tools":{"mcp":{"trust":{"mode":"approve","scan":"block"},"servers":{
		"a":{"enabled":true,"command":"c","trust":"pinned","trust_scan":"quarantine"},
		"b":{"enabled":true,"command":"c","trust":"off"}}}}}`)
	p := ld.Validate(ValidateOptions{})
	got := messages(p.All())
	for _, want := range []string{
		`tools.mcp.trust.scan: must be "warn" or "quarantine", got "block"`,
		`tools.mcp.servers.a.trust: must be "pin", "approve" or "off", got "pinned"; remove it to use tools.mcp.trust.mode`,
	} {
		if !slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("no problem %q in %q", want, got)
		}
	}
	if err := p.ServerErr("b"); err != nil {
		t.Errorf("server b: %v", err)
	}
	g := ld.Config.MCP.Trust
	a, b := ld.Config.MCP.Servers["a"], ld.Config.MCP.Servers["b"]
	if a.ScanMode(g) != ScanQuarantine || b.ScanMode(g) != "block" || b.TrustMode(g) != TrustOff || (Server{}).TrustMode(Trust{}) != TrustPin || (Server{}).ScanMode(Trust{}) != ScanWarn {
		t.Errorf("effective modes: a scan %q, b scan %q, b trust %q", a.ScanMode(g), b.ScanMode(g), b.TrustMode(g))
	}
}
