//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// A result over max_message_mb relayed by a plugin — the stdio plugin with
// direct pipes off, the http plugin (a JSON answer, and an answer framed as
// an event stream), the sse plugin's event stream — is spooled as on the
// direct pipes: the call gets a bounded view naming a 0600 file that holds
// the whole text, and the server and its connection stay up. Over
// max_result_mb the call fails naming that setting (and the per-server one)
// without doubting that the server processed it.
func TestRelayedLargeResultSpooled(t *testing.T) {
	integration(t)
	t.Parallel() // its own host, servers and workspace
	httpSrv := serveTestServer(t, "http", "127.0.0.1:0")
	sseSrv := serveTestServer(t, "sse", "127.0.0.1:0")
	for _, tc := range []struct {
		name   string
		entry  map[string]any
		notify bool // the http answer comes as an event stream
	}{
		{"stdio_relay", server(), false},
		{"http_json", remoteEntry("http", httpSrv.url), false},
		{"http_event_stream", remoteEntry("http", httpSrv.url), true},
		{"sse", remoteEntry("sse", sseSrv.url), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHostOpts(t, host.Options{RelayOnly: true}, map[string]any{"big": tc.entry}, func(m map[string]any) {
				m["max_message_mb"] = 1
				m["max_result_mb"] = 8
			})
			before := mustBeConnected(t, h, "big")
			s := h.NewSession()
			res := call(t, s, "mcp_big_big", map[string]any{"chars": 3_000_000, "notify": tc.notify})
			view := text(t, res)
			if res.IsError || len(view) > 20_000 {
				t.Fatalf("isError %v, view of %d chars: %.300q; want a bounded view", res.IsError, len(view), view)
			}
			path := regexp.MustCompile(`(/\S+\.txt)`).FindString(view)
			if path == "" || filepath.Dir(path) != filepath.Join(filepath.Dir(filepath.Dir(path)), "mcp") ||
				!strings.Contains(path, filepath.Join(".artifacts", "mcp", "big__result-")) || !strings.Contains(view, "max_message_mb") {
				t.Fatalf("view names no big__result-… artifact under .artifacts/mcp or not the setting: %.400q", view)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != 3_000_000 || strings.Trim(string(b), "x") != "" {
				t.Errorf("artifact holds %d bytes; want the 3,000,000 x's", len(b))
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("artifact mode: %v, %v; want 0600", fi.Mode().Perm(), err)
			}
			if got := text(t, call(t, s, "mcp_big_echo", map[string]any{"text": "still here"})); got != "still here" {
				t.Errorf("a call after the spooled result: %q", got)
			}
			after := state(h, "big")
			if after.State != supervisor.StateConnected || after.Restarts != 0 || after.PluginPID != before.PluginPID || after.ServerPID != before.ServerPID {
				t.Errorf("server after a spooled result: %+v; want the same connection (before: %+v)", after, before)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			_, err = s.Call(ctx, "mcp_big_big", json.RawMessage(`{"chars": 9000000}`))
			wants := []string{"larger than the 8 MiB limit",
				"raise tools.mcp.max_result_mb (or tools.mcp.servers.big.max_result_mb for this server alone) to accept larger results"}
			if tc.name == "http_json" { // reqconn's own words: the server did process the call
				wants = append(wants, "the server processed tools/call, but its answer was larger than the 8 MiB limit on one result")
			}
			for _, want := range wants {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("a 9 MB result: error %v; want it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "max_message_mb") {
				t.Errorf("a result over max_result_mb: error %v names max_message_mb too", err)
			}
			if strings.Contains(err.Error(), "may or may not") {
				t.Errorf("a result over max_result_mb: error %v doubts the server processed the call; it did", err)
			}
			// The stdio relay gives up the server, as the direct pipes do
			// (where the next message starts is unknown); a remote answer
			// fails only its call.
			restarts := 0
			if tc.name == "stdio_relay" {
				restarts = 1
			}
			waitFor(t, h, "big to be connected", func() bool {
				st := state(h, "big")
				return st.State == supervisor.StateConnected && st.Restarts >= restarts
			})
			if got := text(t, call(t, s, "mcp_big_echo", map[string]any{"text": "back"})); got != "back" {
				t.Errorf("a call after the refused result: %q", got)
			}
			if st := state(h, "big"); tc.name != "stdio_relay" && st.Restarts != 0 {
				t.Errorf("a remote server restarted after a refused result: %+v", st)
			}
		})
	}
}
