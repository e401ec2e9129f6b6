package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
)

// coldRequests are the requests a client sends right after initialize
// naming server "slow" (the test server with -faithful), and what each
// answer holds once the server is up.
var coldRequests = []struct{ method, params, up string }{
	{"tools/call", `{"name":"mcp_slow_echo","arguments":{"text":"cold"}}`, `"text":"cold"`},
	{"prompts/get", `{"name":"mcp_slow_greet","arguments":{"who":"you"}}`, "Hello, you, from slow"},
	{"resources/read", `{"uri":"test://slow/own"}`, "own text of slow"},
}

// Through /mcp, a client's first requests naming a server that is still
// starting wait for it: answered once it is up, failed at once with its
// state and last error when its start fails, failed at its start bound
// naming the setting when it never comes up. A call to another server
// meanwhile is answered at once. The slow server starts when the test
// opens its gate: nothing depends on timing.
func TestColdStartOverHTTP(t *testing.T) {
	integration(t)
	for _, c := range []struct {
		name     string
		args     []string       // the slow server's flags beside -faithful and its gate
		timeouts map[string]any // its timeouts
		gated    bool           // it waits for the gate: the requests wait until the test opens it
		want     func(method string) []string
	}{
		{"up", nil, nil, true, func(method string) []string {
			for _, r := range coldRequests {
				if r.method == method {
					return []string{`"result"`, r.up}
				}
			}
			return nil
		}},
		{"start fails", []string{"-fail-start"}, map[string]any{"start_seconds": 60, "initialize_seconds": 60}, true,
			func(string) []string { return []string{`"error"`, "state error", "last error: "} }},
		{"never up", []string{"-hang-initialize"}, map[string]any{"start_seconds": 1, "initialize_seconds": 1}, false,
			func(string) []string { return []string{`"error"`, "initialize_seconds"} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			gate := filepath.Join(t.TempDir(), "gate")
			args := append([]string{"-faithful", "-name", "slow"}, c.args...)
			if c.gated {
				args = append(args, "-start-gate", gate)
			}
			slow := testserver(nil, args...)
			if c.timeouts != nil {
				slow["timeouts"] = c.timeouts
			}
			h := startedHost(t, host.Options{}, map[string]any{"slow": slow, "fast": testserver(nil)},
				func(m map[string]any) {
					m["restart"] = map[string]any{"initial_backoff_seconds": 60, "max_backoff_seconds": 60}
				})
			waitState(t, h, "fast", supervisor.StateConnected)
			url, _ := serveHTTP(t, h)
			client := newRaw(t, url)
			client.initialize()
			type answer struct {
				method string
				r      reply
			}
			answers := make(chan answer, len(coldRequests))
			for i, r := range coldRequests {
				go func() { answers <- answer{r.method, client.request(i+1, r.method, r.params)} }()
			}

			fast := client.request(9, "tools/call", `{"name":"mcp_fast_echo","arguments":{"text":"not delayed"}}`)
			if !strings.Contains(fast.body, `"not delayed"`) {
				t.Errorf("a call to another server while slow starts: %d %s", fast.status, fast.body)
			}
			if c.gated {
				select {
				case a := <-answers:
					t.Fatalf("%s was answered while its server was still starting: %s", a.method, a.r.body)
				default:
				}
				if err := os.WriteFile(gate, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for range coldRequests {
				select {
				case a := <-answers:
					t.Logf("%s: %s", a.method, a.r.body)
					for _, w := range c.want(a.method) {
						if !strings.Contains(a.r.body, w) {
							t.Errorf("%s: %d %s; want it to hold %q", a.method, a.r.status, a.r.body, w)
						}
					}
				case <-time.After(time.Minute):
					t.Fatalf("no answer a minute after the gate opened; statuses %+v", h.Statuses())
				}
			}
		})
	}
}

// waitState waits until server is in state want.
func waitState(t *testing.T, h *host.Host, server string, want supervisor.State) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		changed := h.Changed()
		if st, _ := h.Status(server); st.State == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s is not %s after a minute: %+v", server, want, h.Statuses())
		}
	}
}
