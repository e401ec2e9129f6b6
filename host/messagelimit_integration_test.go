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

// A message over tools.mcp.max_message_mb fails only its server, clearly
// (the call's error and the status name the limit and the setting that
// raises it), and the server is restarted — on the direct-pipes path and on
// the plugin relay alike. Messages at the limit pass.
func TestMessageOverLimitFailsAndRestartsServer(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	for _, relay := range []bool{false, true} {
		t.Run(fmt.Sprintf("relay_only=%v", relay), func(t *testing.T) {
			h := startHostOpts(t, host.Options{RelayOnly: relay},
				map[string]any{"big": server(), "other": server()},
				// max_result_mb at the message limit: no result is spooled
				// (spool_integration_test.go covers spooling).
				func(m map[string]any) { m["max_message_mb"], m["max_result_mb"] = 1, 1 })
			s := h.NewSession()
			if got := len(text(t, call(t, s, "mcp_other_echo", map[string]any{"text": "warm"}))); got != 4 {
				t.Fatalf("warm-up call returned %d chars", got)
			}
			// Just under the limit with its JSON-RPC envelope: accepted.
			srv, _ := h.Server("big")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if res, err := srv.CallTool(ctx, supervisor.ToolCall{Tool: "big", Args: map[string]any{"chars": 1<<20 - 200}}); err != nil || len(res.Content) != 1 {
				t.Fatalf("a message under the limit: %v", err)
			}

			_, err := s.Call(ctx, "mcp_big_big", json.RawMessage(`{"chars": 3000000}`))
			for _, want := range []string{"larger than the 1 MiB limit", "tools.mcp.max_message_mb", "restarted"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("call with a 3 MB answer: error %v; want it to contain %q", err, want)
				}
			}
			waitFor(t, h, "big to restart", func() bool {
				st := state(h, "big")
				return st.State == supervisor.StateConnected && st.Restarts >= 1
			})
			if last := state(h, "big").LastError; !strings.Contains(last, "1 MiB") || !strings.Contains(last, "max_message_mb") {
				t.Errorf("last error %q; want it to name the 1 MiB limit and the setting", last)
			}
			if got := text(t, call(t, s, "mcp_big_echo", map[string]any{"text": "back"})); got != "back" {
				t.Errorf("after restart: %q", got)
			}
			if st := state(h, "other"); st.Restarts != 0 {
				t.Errorf("the other server was affected: %+v", st)
			}
		})
	}
}

// A server's own max_message_mb overrides the global limit, and the error
// names that key.
func TestServerMessageLimitOverride(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	big := server()
	big["max_message_mb"] = 2
	big["max_result_mb"] = 2 // no spooling
	h := startHost(t, map[string]any{"big": big}, func(m map[string]any) { m["max_message_mb"] = 1 })
	s := h.NewSession()
	if got := len(text(t, call(t, s, "mcp_big_big", map[string]any{"chars": 1_500_000}))); got == 0 {
		t.Fatal("a 1.5 MB answer under the server's 2 MiB limit returned no text")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Call(ctx, "mcp_big_big", json.RawMessage(`{"chars": 2500000}`))
	if err == nil || !strings.Contains(err.Error(), "2 MiB") || !strings.Contains(err.Error(), "tools.mcp.servers.big.max_message_mb") {
		t.Fatalf("error %v; want the 2 MiB limit and the server's key", err)
	}
}
