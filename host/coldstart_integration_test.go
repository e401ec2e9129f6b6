//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/supervisor"
	"github.com/plughost/plughost/pluginapi"
)

// startedHost starts a host on servers without waiting for them: what a
// client connecting right after start-up meets.
func startedHost(t *testing.T, opts host.Options, servers map[string]any, mutate ...func(mcpCfg map[string]any)) *host.Host {
	t.Helper()
	mcpCfg := map[string]any{"enabled": true, "servers": servers,
		"restart": map[string]any{"initial_backoff_seconds": 60, "max_backoff_seconds": 60}}
	for _, f := range mutate {
		f(mcpCfg)
	}
	h, err := newHostOpts(t, mcpCfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.Start(context.Background())
	t.Cleanup(func() { h.Close() })
	return h
}

// answer is what one request of a cold-start test got.
type answer struct {
	what string
	body string // the result's text, or the raw result
	err  error
}

// coldRequests sends, each in its own goroutine, a tools/call, a
// prompts/get and a resources/read naming server "slow" (the test server
// with -faithful) on an aggregate session, and a tools/call on a session
// scoped to it; the answers come on the channel.
func coldRequests(t *testing.T, h *host.Host) <-chan answer {
	t.Helper()
	ctx := context.Background()
	s := h.NewSession()
	scoped, err := h.CreateSession(ctx, host.SessionRecord{Scope: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan answer, 4)
	go func() {
		res, err := s.Call(ctx, "mcp_slow_echo", json.RawMessage(`{"text":"cold"}`))
		out <- answer{"tools/call", resultText(res), err}
	}()
	go func() {
		res, err := scoped.Call(ctx, "echo", json.RawMessage(`{"text":"cold, scoped"}`))
		out <- answer{"tools/call scoped", resultText(res), err}
	}()
	go func() {
		raw, err := s.Request(ctx, "prompts/get", json.RawMessage(`{"name":"mcp_slow_greet","arguments":{"who":"you"}}`), host.CallOptions{})
		out <- answer{"prompts/get", string(raw), err}
	}()
	go func() {
		raw, err := s.Request(ctx, "resources/read", json.RawMessage(`{"uri":"test://slow/own"}`), host.CallOptions{})
		out <- answer{"resources/read", string(raw), err}
	}()
	return out
}

// resultText is the text of a call's result ("" for none).
func resultText(res host.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if c.Type == host.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "")
}

// A request naming a server that is still starting waits for it and is
// answered once it is up — a tools/call, a prompts/get and a
// resources/read on the aggregate session, a tools/call on a session
// scoped to it — while a call to another server is not delayed at all.
// The slow server starts only when the test opens its gate, so nothing
// here depends on timing.
func TestRequestsWaitForAStartingServer(t *testing.T) {
	integration(t)
	gate := filepath.Join(t.TempDir(), "gate")
	h := startedHost(t, host.Options{}, map[string]any{
		"slow": server("-faithful", "-name", "slow", "-start-gate", gate),
		"fast": server(),
	})
	waitFor(t, h, "fast to connect", func() bool { return state(h, "fast").State == supervisor.StateConnected })
	answers := coldRequests(t, h)

	if got := text(t, call(t, h.NewSession(), "mcp_fast_echo", map[string]any{"text": "not delayed"})); got != "not delayed" {
		t.Errorf("fast echo while slow starts: %q", got)
	}
	select {
	case a := <-answers:
		t.Fatalf("%s was answered while its server was still starting: %q %v", a.what, a.body, a.err)
	default:
	}
	if st := state(h, "slow"); st.State != supervisor.StateConnecting {
		t.Fatalf("slow: %+v; want it still starting (its gate is closed)", st)
	}

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"tools/call": "cold", "tools/call scoped": "cold, scoped",
		"prompts/get": "Hello, you, from slow", "resources/read": "own text of slow",
	}
	for range want {
		select {
		case a := <-answers:
			if a.err != nil || !strings.Contains(a.body, want[a.what]) {
				t.Errorf("%s once the server is up: %q %v; want %q", a.what, a.body, a.err, want[a.what])
			}
		case <-time.After(time.Minute):
			t.Fatalf("no answer a minute after the gate opened; statuses %+v", h.Statuses())
		}
	}
}

// A server whose start fails while requests wait for it fails them at
// once — not at its start bound (here two minutes) — with its state and
// last error.
func TestAFailedStartFailsTheWaitingRequests(t *testing.T) {
	integration(t)
	gate := filepath.Join(t.TempDir(), "gate")
	slow := server("-faithful", "-name", "slow", "-start-gate", gate, "-fail-start")
	slow["timeouts"] = map[string]any{"start_seconds": 60, "initialize_seconds": 60}
	h := startedHost(t, host.Options{}, map[string]any{"slow": slow})
	answers := coldRequests(t, h)
	select {
	case a := <-answers:
		t.Fatalf("%s was answered while its server was still starting: %q %v", a.what, a.body, a.err)
	default:
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := time.Now()
	for range 4 {
		select {
		case a := <-answers:
			msg := ""
			if a.err != nil {
				msg = a.err.Error()
			}
			if !strings.Contains(msg, "state error") || !strings.Contains(msg, "last error: ") {
				t.Errorf("%s of a server whose start failed: %q %v; want an error with its state and last error", a.what, a.body, a.err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no answer a minute after the start failed; statuses %+v", h.Statuses())
		}
	}
	t.Logf("the waiting requests failed %s after the gate opened", time.Since(opened).Round(time.Millisecond))
}

// A server that never comes up (it never answers initialize) fails a
// request waiting for it at its start bound, with a message naming the
// setting to raise — not at once, and not at the call timeout.
func TestANeverStartingServerFailsAtItsBound(t *testing.T) {
	integration(t)
	hung := server("-hang-initialize")
	hung["timeouts"] = map[string]any{"start_seconds": 1, "initialize_seconds": 1}
	h := startedHost(t, host.Options{}, map[string]any{"hung": hung})
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.NewSession().Call(ctx, "mcp_hung_echo", json.RawMessage(`{"text":"x"}`))
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "initialize_seconds") {
		t.Fatalf("a call to a server that never answers initialize: %v; want an error naming timeouts.initialize_seconds", err)
	}
	if took < time.Second || took > 30*time.Second {
		t.Errorf("it failed after %s; want about its start bound (1 s + 1 s)", took)
	}
	t.Logf("failed after %s: %v", took.Round(time.Millisecond), err)
}

// The wait itself is bounded by timeouts.start_seconds +
// initialize_seconds: a server still listing its tools after that
// (list_tools_seconds is a minute here) fails the request with a message
// naming both settings.
func TestWaitingForAStartIsBounded(t *testing.T) {
	s := &scripted{hangList: true, work: func(c *scriptedConn, id, _ json.RawMessage) { c.reply(id, `{"content":[]}`) }}
	x := map[string]any{"enabled": true, "command": "scripted",
		"timeouts": map[string]any{"start_seconds": 1, "initialize_seconds": 1, "list_tools_seconds": 60}}
	h := startedHost(t, host.Options{Transports: map[string]pluginapi.Transport{"stdio": s}}, map[string]any{"x": x})
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := h.NewSession().Call(ctx, "mcp_x_work", nil)
	took := time.Since(began)
	want := `server "x" is still starting after 2s, the bound of timeouts.start_seconds + timeouts.initialize_seconds`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a call to a server still starting past its bound: %v; want %q", err, want)
	}
	if took < 2*time.Second || took > 30*time.Second {
		t.Errorf("it failed after %s; want its bound, 2 s", took)
	}
}
