//go:build unix

package host_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/oauth/tokens"
	"github.com/plughost/plughost/pluginapi"
)

func TestDescribeState(t *testing.T) {
	for _, c := range []struct {
		st   supervisor.Status
		want string
	}{
		{supervisor.Status{State: supervisor.StateConnected, Tools: 1, StartupDuration: 1500 * time.Microsecond}, "connected, 1 tool (started in 2ms)"},
		{supervisor.Status{State: supervisor.StateConnected, Tools: 0}, "connected, 0 tools (started in 0s)"},
		{supervisor.Status{State: supervisor.StateConnected, Tools: 7, Warnings: []string{"plain http"}}, "connected, 7 tools (started in 0s); warning: plain http"},
		{supervisor.Status{State: supervisor.StateInvalid, LastError: "a: x\nb: y"}, "invalid config: a: x; b: y"},
		{supervisor.Status{State: supervisor.StateDisabled, LastError: "tools.mcp.enabled is false"}, "disabled (tools.mcp.enabled is false)"},
		{supervisor.Status{State: supervisor.StateDisabled}, "disabled"},
		{supervisor.Status{State: supervisor.StateError, LastError: "boom"}, "error: boom"},
		{supervisor.Status{State: supervisor.StateConnecting}, "connecting"},
		{supervisor.Status{Name: "gh", State: supervisor.StateNeedsLogin, Auth: &tokens.Status{NeedsLogin: true, Reason: "not logged in"}},
			"needs login (not logged in): run `plughost mcp login gh`"},
		{supervisor.Status{State: supervisor.StateConnected, Tools: 2, Auth: &tokens.Status{LoggedIn: true}}, "connected, 2 tools (started in 0s); logged in"},
	} {
		if got := host.DescribeState(c.st); got != c.want {
			t.Errorf("DescribeState(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
}

// A host that was never started has not probed its enabled servers; the
// views say so, and carry the deferred rule's state and reason.
func TestServerViewsNotStarted(t *testing.T) {
	if testing.Short() { // a server's type is checked against the built plugins
		t.Skip("needs the plugin binaries TestMain builds: heavy integration test, skipped under -short")
	}
	pinned := server()
	pinned["deferred"] = false
	off := server()
	off["enabled"] = false
	h, err := newHost(t, map[string]any{
		"enabled": true, "discovery": map[string]any{"enabled": true},
		"servers": map[string]any{"a": server(), "p": pinned, "z": off},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got := map[string]host.ServerListing{}
	for _, v := range h.ServerListings() {
		got[v.Name] = v
	}
	for name, want := range map[string]struct {
		state    supervisor.State
		deferred bool
		why      string
	}{
		"a": {host.StateNotProbed, true, "global"},
		"p": {host.StateNotProbed, false, "opt-out"},
		"z": {supervisor.StateDisabled, true, "global"},
	} {
		v := got[name]
		if v.State != want.state || v.Deferred != want.deferred || v.DeferredReason != want.why || v.Transport != "stdio" || !v.Detected {
			t.Errorf("%s: %+v; want state %s, deferred %v (%s), stdio detected", name, v, want.state, want.deferred, want.why)
		}
	}
}

func TestLoginText(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	cases := []struct {
		name string
		st   *tokens.Status
		want string
	}{
		{"no oauth", nil, ""},
		{"logged in", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(3*time.Hour + 20*time.Minute), Scopes: []string{"a", "b"}},
			"logged in (expires in 3h20m, scopes a b)"},
		{"no expiry", &tokens.Status{LoggedIn: true}, "logged in"},
		{"expired, refreshable", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(-time.Second), Refreshable: true},
			"logged in (expired, refreshed on next use)"},
		{"not logged in", &tokens.Status{NeedsLogin: true, Reason: "not logged in"}, "needs login: not logged in"},
		{"step-up", &tokens.Status{LoggedIn: true, ExpiresAt: now.Add(90 * time.Second), NeedsLogin: true,
			Reason: "the server asks for more scope: write", WantScopes: []string{"read", "write"}},
			"logged in (expires in 1m); needs login: the server asks for more scope: write (scopes read write)"},
		{"unreadable", &tokens.Status{Error: "the token file x is damaged"}, "login unreadable: the token file x is damaged"},
	}
	for _, tc := range cases {
		if got := host.LoginText(tc.st, now); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// ServerRows asks every server's plugin for its stderr tail at once, each
// call bounded on its own: here no plugin answers until every one was
// asked, so asking one after the other would time out and show no tail.
func TestServerRowsAskPluginsAtOnce(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	servers := map[string]any{}
	for _, n := range names {
		servers[n] = server()
	}
	h, err := newHost(t, map[string]any{"enabled": true, "servers": servers})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var asked atomic.Int32
	all := make(chan struct{}) // closed once every server was asked
	host.SetDiagnosticsHook(h, func(ctx context.Context, name string) (pluginapi.Diagnostics, bool) {
		if _, bounded := ctx.Deadline(); !bounded {
			t.Errorf("%s: asked for its stderr tail without a time bound", name)
		}
		if asked.Add(1) == int32(len(names)) {
			close(all)
		}
		select {
		case <-all:
			return pluginapi.Diagnostics{Stderr: "start\nstderr of " + name + "\n"}, true
		case <-ctx.Done():
			return pluginapi.Diagnostics{}, false
		}
	})
	rows := h.ServerRows(context.Background())
	var got []string
	for _, r := range rows {
		got = append(got, r.Name+": "+r.StderrTail)
	}
	var want []string
	for _, n := range names {
		want = append(want, n+": start\nstderr of "+n)
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q; want %q (every server's tail, in name order)", got, want)
	}
}

// BenchmarkServerRowsStuckPlugins lists 8 servers whose plugins never
// answer for their stderr tails: the listing costs one diagnostics bound
// (1 s), not one per server (docs/benchmarks.md).
func BenchmarkServerRowsStuckPlugins(b *testing.B) {
	servers := map[string]any{}
	for i := range 8 {
		servers[string(rune('a'+i))] = server()
	}
	h, err := newHost(b, map[string]any{"enabled": true, "servers": servers})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	host.SetDiagnosticsHook(h, func(ctx context.Context, _ string) (pluginapi.Diagnostics, bool) {
		<-ctx.Done()
		return pluginapi.Diagnostics{}, false
	})
	for b.Loop() {
		h.ServerRows(context.Background())
	}
}

// ServerDetail asks the server's plugin for its stderr tail with a bound,
// as ServerRows does: a stuck plugin (stopped with SIGSTOP) costs a detail
// about a second, not forever.
func TestServerDetailWithAStuckPlugin(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"stuck": server()})
	pid := state(h, "stuck").PluginPID
	if pid == 0 {
		t.Fatal("no plugin pid")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // before the host closes
	done := make(chan error, 1)
	began := time.Now()
	go func() {
		d, err := h.ServerDetail(context.Background(), "stuck")
		if err == nil && d.Name != "stuck" {
			err = fmt.Errorf("detail of %q", d.Name)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("the detail of a server with a stuck plugin took %s", time.Since(began).Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatal("ServerDetail still waits for a stuck plugin after 20 s")
	}
}
