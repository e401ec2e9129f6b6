//go:build unix

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

// A server that answers with junk on its stdout instead of JSON-RPC fails
// within the junk grace (10 s) with an error that says so and quotes the
// line, not after the initialize timeout — direct pipes and the plugin
// relay alike.
func TestGarbageServerNamesBadOutput(t *testing.T) {
	integration(t)
	for _, relay := range []bool{false, true} {
		t.Run(fmt.Sprintf("relay_only=%v", relay), func(t *testing.T) {
			t.Parallel()
			// Before the guard, the server waited for this timeout (and
			// WaitSettled gives up after 60 s).
			h := startHostOpts(t, host.Options{RelayOnly: relay}, map[string]any{"garbage": server("-garbage")}, func(m map[string]any) {
				m["timeouts"] = map[string]any{"initialize_seconds": 120}
			})
			waitFor(t, h, "garbage to fail", func() bool { return state(h, "garbage").LastError != "" })
			st := state(h, "garbage")
			for _, want := range []string{"not a JSON-RPC message", `"garbage line 1: this server prints logs on stdout"`, "no JSON-RPC message followed within 10s"} {
				if !strings.Contains(st.LastError, want) {
					t.Errorf("last error %q; want it to contain %q", st.LastError, want)
				}
			}
		})
	}
}

// A line of junk on stdout once the server has spoken JSON-RPC is skipped:
// the call it came with succeeds and the server is not restarted (servers
// that log on stdout now and then keep working).
func TestJunkMidSessionSkipped(t *testing.T) {
	integration(t)
	for _, relay := range []bool{false, true} {
		t.Run(fmt.Sprintf("relay_only=%v", relay), func(t *testing.T) {
			h := startHostOpts(t, host.Options{RelayOnly: relay}, map[string]any{"junk": server("-junk-tool")})
			s := h.NewSession()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := s.Call(ctx, "mcp_junk_junk", json.RawMessage(`{"text": "Listening on port 3000"}`))
			if err != nil || res.IsError || text(t, res) != "ok" {
				t.Fatalf("call with a junk line beside its answer: %v, %+v", err, res)
			}
			if st := state(h, "junk"); st.Restarts != 0 || st.State != supervisor.StateConnected {
				t.Errorf("server after a junk line: %+v", st)
			}
		})
	}
}
