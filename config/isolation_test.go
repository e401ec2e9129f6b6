package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidateIsolation(t *testing.T) {
	runServerCases(t, []serverCase{
		{name: "session ok", server: `{"enabled":true,"command":"x","isolation":"session","isolation_idle_seconds":60,"max_sessions":4}`},
		{name: "shared with roots ok", server: `{"enabled":true,"command":"x","isolation":"shared","roots":["/srv/data","file:///home/u/proj"]}`},
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
			name: "relative root", server: `{"enabled":true,"command":"x","roots":["/ok","rel/dir","https://x/y"]}`,
			want: []string{
				srv + `.roots[1]: "rel/dir" is neither an absolute path nor a file:// URI; write it as "/abs/dir" or "file:///abs/dir"`,
				srv + `.roots[2]: "https://x/y" is neither an absolute path nor a file:// URI; write it as "/abs/dir" or "file:///abs/dir"`,
			},
		},
	})
}

func TestIsolationDefaults(t *testing.T) {
	var s Server
	if s.IsolationMode() != IsolationShared || s.IsolationIdle() != 300*time.Second || s.SessionLimit() != 32 {
		t.Errorf("defaults = %q %v %d", s.IsolationMode(), s.IsolationIdle(), s.SessionLimit())
	}
	s = Server{Isolation: "session", IsolationIdleSeconds: 5, MaxSessions: 2, Roots: []string{"/srv/data/", "file:///home/u/proj", "rel"}}
	if s.IsolationMode() != IsolationSession || s.IsolationIdle() != 5*time.Second || s.SessionLimit() != 2 {
		t.Errorf("set = %q %v %d", s.IsolationMode(), s.IsolationIdle(), s.SessionLimit())
	}
	want := []Root{{URI: "file:///srv/data", Name: "data"}, {URI: "file:///home/u/proj", Name: "proj"}}
	if diff := cmp.Diff(want, s.RootList()); diff != "" {
		t.Errorf("RootList (-want +got):\n%s", diff)
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
