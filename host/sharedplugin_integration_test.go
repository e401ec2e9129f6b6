//go:build unix

package host_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/internal/testwait"
)

// Servers on direct pipes with the same plugin environment share one
// stdio plugin process; a server with inherit_env (another environment)
// gets its own. Status and Diagnostics still describe each server's own
// process, and removing one server leaves the shared process to the
// others, until the last one goes.
func TestServersShareAPluginProcess(t *testing.T) {
	integration(t)
	inherit := server()
	inherit["inherit_env"] = true
	cfg := map[string]any{
		"enabled": true,
		"restart": map[string]any{"initial_backoff_seconds": 0.2, "max_backoff_seconds": 1},
		"servers": map[string]any{"a": server(), "b": server(), "c": server(), "own": inherit},
	}
	h, apply := reloadable(t, cfg)
	s := h.NewSession()
	shared := state(h, "a").PluginPID
	if shared == 0 {
		t.Fatalf("no plugin pid: %+v", state(h, "a"))
	}
	seen := map[int]string{}
	for _, name := range []string{"a", "b", "c", "own"} {
		st := state(h, name)
		if want := name != "own"; (st.PluginPID == shared) != want {
			t.Errorf("%s: plugin pid %d, shared process %d; sharing it should be %v", name, st.PluginPID, shared, want)
		}
		pid, _ := pidOf(t, s, name)
		if st.ServerPID != pid || seen[pid] != "" {
			t.Errorf("%s: status server pid %d, the server says %d (seen for %q)", name, st.ServerPID, pid, seen[pid])
		}
		seen[pid] = name
		if d, _ := h.Diagnostics(context.Background(), name); d.PID != pid {
			t.Errorf("%s: diagnostics pid %d, want its own server's %d", name, d.PID, pid)
		}
	}

	aPID := state(h, "a").ServerPID
	delete(cfg["servers"].(map[string]any), "a")
	if _, err := apply(cfg); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(10*time.Second, func() bool { return !alive(aPID) }) {
		t.Errorf("a's server %d still runs after a was removed", aPID)
	}
	for _, name := range []string{"b", "c"} {
		if st := state(h, name); st.State != supervisor.StateConnected || st.PluginPID != shared || st.Restarts != 0 {
			t.Errorf("%s after a left: %+v; want connected on the same process %d", name, st, shared)
		}
		if got := text(t, call(t, s, "mcp_"+name+"_echo", map[string]any{"text": "still"})); got != "still" {
			t.Errorf("%s echo after a left: %q", name, got)
		}
	}
	if !alive(shared) {
		t.Fatalf("the shared plugin %d ended while b and c hold it", shared)
	}
	h.Close()
	if !testwait.Until(10*time.Second, func() bool { return !alive(shared) }) {
		t.Errorf("the shared plugin %d outlived its last server", shared)
	}
}

// A stdio plugin that does not advertise shared-process (here the logging
// transport installed as mcp-transport-stdio) is never shared: servers
// that start together each get a process of their own.
func TestUnshareablePluginRunsPerServer(t *testing.T) {
	integration(t)
	dir := t.TempDir()
	install(t, filepath.Join(bins.PluginDir(), "mcp-transport-logging"), filepath.Join(dir, "mcp-transport-stdio"))
	h := startHostInDir(t, dir, nil, map[string]any{"x": server(), "y": server(), "z": server()})
	pids := map[int]string{}
	for _, name := range []string{"x", "y", "z"} {
		st := state(h, name)
		if st.State != supervisor.StateConnected || st.PluginPID == 0 || pids[st.PluginPID] != "" {
			t.Errorf("%s: %+v; want connected on a plugin process of its own (pids so far %v)", name, st, pids)
		}
		pids[st.PluginPID] = name
	}
	if got := text(t, call(t, h.NewSession(), "mcp_y_echo", map[string]any{"text": "own"})); got != "own" {
		t.Errorf("y echo: %q", got)
	}
}
