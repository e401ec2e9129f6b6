package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// A line that is not JSON-RPC on a server's stdout fails that server at once
// with an error that says so and quotes the line (configured secrets
// masked), and the server is restarted — the call it stood in for does not
// wait for its timeout. Direct pipes and the plugin relay alike; the other
// server is untouched.
func TestBadOutputFailsServerClearly(t *testing.T) {
	integration(t)
	const canary = "CANARY-badoutput-7f3e"
	for _, relay := range []bool{false, true} {
		t.Run(fmt.Sprintf("relay_only=%v", relay), func(t *testing.T) {
			junk := server("-junk-tool")
			junk["env"] = map[string]any{"API_KEY": canary}
			h := startHostOpts(t, host.Options{RelayOnly: relay}, map[string]any{"junk": junk, "other": server()},
				func(m map[string]any) {
					// A call waiting for its timeout would take this long.
					m["timeouts"] = map[string]any{"call_seconds": 120}
				})
			s := h.NewSession()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err := s.Call(ctx, "mcp_junk_junk", json.RawMessage(`{"text": "Listening on port 3000, key `+canary+`"}`))
			if err == nil {
				t.Fatal("a call answered by a junk line on stdout succeeded")
			}
			if time.Since(start) > 50*time.Second {
				t.Errorf("the call failed only after %v: it waited for a timeout", time.Since(start))
			}
			for _, want := range []string{"junk", "not a JSON-RPC message", "Listening on port 3000", "being restarted"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("call error %q; want it to contain %q", err, want)
				}
			}
			waitFor(t, h, "junk to restart", func() bool {
				st := state(h, "junk")
				return st.State == supervisor.StateConnected && st.Restarts >= 1
			})
			last := state(h, "junk").LastError
			if !strings.Contains(last, "not a JSON-RPC message") {
				t.Errorf("last error %q; want it to say what went wrong", last)
			}
			for what, s := range map[string]string{"call error": err.Error(), "last error": last} {
				if strings.Contains(s, canary) {
					t.Errorf("%s shows the configured secret: %q", what, s)
				}
			}
			if st := state(h, "other"); st.Restarts != 0 || st.State != supervisor.StateConnected {
				t.Errorf("the other server was affected: %+v", st)
			}
		})
	}
}

// A server that answers initialize with junk fails to connect with the
// bad-output error, not an initialize timeout.
func TestGarbageServerNamesBadOutput(t *testing.T) {
	integration(t)
	h := startHost(t, map[string]any{"garbage": server("-garbage")}, func(m map[string]any) {
		m["timeouts"] = map[string]any{"initialize_seconds": 120}
	})
	waitFor(t, h, "garbage to fail", func() bool { return state(h, "garbage").LastError != "" })
	st := state(h, "garbage")
	if !strings.Contains(st.LastError, "not a JSON-RPC message") || !strings.Contains(st.LastError, "garbage line 1") {
		t.Errorf("last error %q; want the bad-output error quoting the line", st.LastError)
	}
}
