package gateway_test

import (
	"bufio"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/plughost/plughost/gateway"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/listenurl"
	"github.com/plughost/plughost/internal/testbin"
)

// sseAsk is one tool of a server that asks its client something, and what
// the tool's result holds once the gateway's client answered.
type sseAsk struct {
	method, tool string
	args         map[string]any
	want         string
}

// A legacy-SSE server's requests to the client — sampling, elicitation,
// roots — reach a client of the gateway that answers them, and each call
// completes with the client's answer: on /mcp, /servers/<name>/mcp and
// stdio, behind the real sse plugin. The servers: the Go test server's SSE
// bridge (mcp-go's SSE server sends no requests) and server-everything in
// sse mode. mcp-go's SSE client transport drops requests from the server,
// so the call used to hang to its timeout with nothing logged.
func TestSSEServerRequestsReachTheClient(t *testing.T) {
	integration(t)
	t.Parallel() // its own servers, host and front door
	servers := map[string]struct {
		start func(t *testing.T) string
		iso   map[string]any // isolation settings
		asks  []sseAsk
	}{
		"testserver": {
			start: func(t *testing.T) string {
				url, stop, err := listenurl.Start(exec.Command(bins.Path("testserver"), "-serve", "sse-bridge", "-faithful"), 20*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(stop)
				return url
			},
			// The bridge serves one stream at a time: a shared connection,
			// whose roots/list plughost answers with the configured roots.
			iso: map[string]any{"roots": []string{"/work"}},
			asks: []sseAsk{
				{"sampling/createMessage", "sample", map[string]any{"prompt": "hi"}, "sampled by the test client"},
				{"elicitation/create", "elicit", map[string]any{"message": "name?"}, `"zed"`},
				{"roots/list", "roots", nil, "file:///work"},
			},
		},
		"server-everything": {
			start: func(t *testing.T) string { return startEverything(t, "sse") + "/sse" },
			// A connection of the session's own: the client's roots reach it.
			iso: map[string]any{"isolation": "session"},
			asks: []sseAsk{
				{"sampling/createMessage", "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}, "sampled by the test client"},
				{"elicitation/create", "trigger-elicitation-request", map[string]any{}, "zed"},
				{"roots/list", "get-roots-list", map[string]any{}, "file:///work"},
			},
		},
	}
	doors := []struct {
		name, prefix string
		tr           func(t *testing.T, h *host.Host, gw string) transport.Interface
	}{
		{"/mcp", "mcp_e_", func(t *testing.T, _ *host.Host, gw string) transport.Interface { return httpTransport(t, gw) }},
		{"/servers/e/mcp", "", func(t *testing.T, _ *host.Host, gw string) transport.Interface {
			return httpTransport(t, strings.TrimSuffix(gw, "/mcp")+"/servers/e/mcp")
		}},
		{"/stdio", "mcp_e_", func(t *testing.T, h *host.Host, _ string) transport.Interface {
			return stdioPipes(t, gateway.New(h, gateway.Options{}).ServeStdio)
		}},
	}
	for name, srv := range servers {
		for _, door := range doors {
			// A server and a host per door: server-everything asks for roots
			// once per connection and then answers from its cache.
			t.Run(name+door.name, func(t *testing.T) {
				t.Parallel() // a server and a host of its own
				entry := map[string]any{"enabled": true, "type": "sse", "url": srv.start(t), "timeouts": map[string]any{"call_seconds": 15}}
				maps.Copy(entry, srv.iso)
				h := startHost(t, map[string]any{"e": entry}, nil)
				gw, _ := serveHTTP(t, h)
				c := startFaithful(t, door.tr(t, h, gw), true)
				for _, ask := range srv.asks {
					res, err := c.tryCall(door.prefix+ask.tool, ask.args)
					if err != nil {
						t.Errorf("%s (%s): %v", ask.tool, ask.method, err)
						continue
					}
					if got := text(res); res.IsError || !strings.Contains(got, ask.want) {
						t.Errorf("%s (%s) answered %q (isError %v); want the client's answer, with %q", ask.tool, ask.method, got, res.IsError, ask.want)
					}
				}
				c.mu.Lock()
				asked := slices.Clone(c.asked)
				c.mu.Unlock()
				for _, ask := range srv.asks {
					if ask.method == "roots/list" && srv.iso["isolation"] != "session" {
						if slices.Contains(asked, ask.method) {
							t.Errorf("the client was asked roots/list for a shared connection; plughost must answer it")
						}
						continue
					}
					if !slices.Contains(asked, ask.method) {
						t.Errorf("the client was asked %v; want %s among them", asked, ask.method)
					}
				}
			})
		}
	}
}

// startEverything runs npm's server-everything in mode ("sse",
// "streamableHttp") on a free loopback port until the test ends and
// returns its base URL, once it says it listens. It skips the test when
// the npm server is not installed.
func startEverything(t *testing.T, mode string) string {
	t.Helper()
	everything, err := testbin.NPMServer("@modelcontextprotocol/server-everything", "dist/index.js")
	if err != nil {
		loudSkip(t, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command("node", everything, mode)
	cmd.Env = append(os.Environ(), "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := make(chan struct{})
	go func() {
		said := false
		lines := bufio.NewScanner(stderr) // read to the end: node must not block on its stderr
		for lines.Scan() {
			// "Server is running on port N" (sse), "… listening on port N" (streamableHttp)
			if !said && strings.Contains(lines.Text(), " on port ") && !strings.Contains(lines.Text(), "in use") {
				said = true
				close(listening)
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(20 * time.Second):
		t.Fatalf("server-everything (%s) did not say it listens within 20s", mode)
	}
	return "http://127.0.0.1:" + port
}
