//go:build unix

package host_test

import (
	"context"
	"testing"

	"github.com/plughost/plughost/host/supervisor"
)

// Testing a running server (the dashboard's Test button) uses a connection
// of its own: the live connection keeps its tools, status and processes,
// and calls keep working. A disabled server can be tested too. Calls are
// counted per server.
func TestTestLeavesLiveServerAlone(t *testing.T) {
	integration(t)
	off := server()
	off["enabled"] = false
	h := startHost(t, map[string]any{"a": server(), "off": off})
	s := h.NewSession()
	defer s.Close(context.Background())
	pid, _ := pidOf(t, s, "a")
	before := state(h, "a")
	tools := len(h.ServerTools("a"))
	if before.State != supervisor.StateConnected || tools == 0 || before.ServerPID == 0 {
		t.Fatalf("before: %+v, %d tools", before, tools)
	}
	rep, err := h.Test(context.Background(), "a")
	if err != nil || !rep.OK || len(rep.Tools) != tools || rep.DefinitionBytes == 0 {
		t.Fatalf("test of a live server: %+v, %v", rep, err)
	}
	after := state(h, "a")
	if after.State != supervisor.StateConnected || after.Tools != before.Tools || after.ServerPID != before.ServerPID ||
		after.PluginPID != before.PluginPID || after.Restarts != before.Restarts || len(h.ServerTools("a")) != tools {
		t.Errorf("the test disturbed the live server:\nbefore %+v\nafter  %+v (%d tools)", before, after, len(h.ServerTools("a")))
	}
	if again, _ := pidOf(t, s, "a"); again != pid {
		t.Errorf("calls after the test reach pid %d, before %d", again, pid)
	}
	if st := h.CallStats("a"); st.Calls != 2 || st.Errors != 0 || st.P50ms <= 0 {
		t.Errorf("call stats of a: %+v", st.Summary)
	}
	rep, err = h.Test(context.Background(), "off")
	if err != nil || !rep.OK || len(rep.Tools) != tools {
		t.Errorf("test of a disabled server: %+v, %v", rep, err)
	}
	if st := state(h, "off"); st.State != supervisor.StateDisabled {
		t.Errorf("the disabled server after its test: %+v", st)
	}
}
