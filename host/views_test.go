package host_test

import (
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
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
	} {
		if got := host.DescribeState(c.st); got != c.want {
			t.Errorf("DescribeState(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
}

// A host that was never started has not probed its enabled servers; the
// views say so, and carry the deferred rule's state and reason.
func TestServerViewsNotStarted(t *testing.T) {
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
	got := map[string]host.ServerView{}
	for _, v := range h.ServerViews() {
		got[v.Name] = v
	}
	for name, want := range map[string]struct {
		state    supervisor.State
		deferred bool
		why      string
	}{
		"a": {host.StateNotProbed, true, "global"},
		"p": {host.StateNotProbed, false, "pinned"},
		"z": {supervisor.StateDisabled, true, "global"},
	} {
		v := got[name]
		if v.State != want.state || v.Deferred != want.deferred || v.DeferredReason != want.why || v.Transport != "stdio" || !v.Detected {
			t.Errorf("%s: %+v; want state %s, deferred %v (%s), stdio detected", name, v, want.state, want.deferred, want.why)
		}
	}
}
