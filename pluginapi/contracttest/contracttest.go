// Package contracttest is the suite every transport plugin must pass. Run it
// against the in-process implementation and against the built plugin binary
// (pluginapi.NewClient): both must behave the same, which is what proves the
// gRPC hop preserves messages, errors and deadlines.
package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plughost/plughost/pluginapi"
)

// Harness describes the transport under test.
type Harness struct {
	// Transport is the implementation under test.
	Transport pluginapi.Transport
	// Config opens a connection to an MCP server offering the tools "echo"
	// ({"text": string} → the text) and "crash" (ends the server process).
	Config json.RawMessage
	// InvalidConfigs must each be rejected by Validate and Open.
	InvalidConfigs []json.RawMessage
	// WantDirectPipes opens connections asking for the direct-pipes fast path.
	WantDirectPipes bool
}

// timeout bounds every wait in the suite; generous for slow CI machines.
const timeout = 30 * time.Second

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, h Harness) {
	t.Run("Describe", func(t *testing.T) { testDescribe(t, h) })
	t.Run("Validate", func(t *testing.T) { testValidate(t, h) })
	t.Run("OpenCancelled", func(t *testing.T) { testOpenCancelled(t, h) })
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, h) })
	t.Run("ConcurrentRequests", func(t *testing.T) { testConcurrent(t, h) })
	t.Run("LargeMessage", func(t *testing.T) { testLarge(t, h) })
	t.Run("ExpiredSendDeadline", func(t *testing.T) { testExpiredSend(t, h) })
	t.Run("Close", func(t *testing.T) { testClose(t, h) })
	// Last: for a remote server the crash ends the server for good.
	t.Run("ServerExit", func(t *testing.T) { testServerExit(t, h) })
}

func testDescribe(t *testing.T, h Harness) {
	d, err := h.Transport.Describe(ctx(t))
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if d.Name == "" || d.Version == "" {
		t.Fatalf("Describe = %+v; want a name and a version", d)
	}
}

func testValidate(t *testing.T, h Harness) {
	if err := h.Transport.Validate(ctx(t), h.Config); err != nil {
		t.Fatalf("Validate(valid config): %v", err)
	}
	if len(h.InvalidConfigs) == 0 {
		t.Fatal("harness has no invalid configs; the suite needs at least one")
	}
	for i, bad := range h.InvalidConfigs {
		err := h.Transport.Validate(ctx(t), bad)
		if k := pluginapi.KindOf(err); k != pluginapi.KindInvalidConfig {
			t.Errorf("Validate(invalid #%d %s): kind %q, err %v; want %q", i, bad, k, err, pluginapi.KindInvalidConfig)
		}
		conn, err := h.Transport.Open(ctx(t), pluginapi.OpenRequest{ServerName: "bad", Config: bad})
		if err == nil {
			conn.Close()
			t.Errorf("Open(invalid #%d) succeeded", i)
		} else if k := pluginapi.KindOf(err); k != pluginapi.KindInvalidConfig {
			t.Errorf("Open(invalid #%d): kind %q (%v); want %q", i, k, err, pluginapi.KindInvalidConfig)
		}
	}
}

func testOpenCancelled(t *testing.T, h Harness) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	conn, err := h.Transport.Open(c, pluginapi.OpenRequest{ServerName: "t", Config: h.Config})
	if err == nil {
		conn.Close()
		t.Fatal("Open with a cancelled context succeeded")
	}
	if k := pluginapi.KindOf(err); k != pluginapi.KindCanceled && k != pluginapi.KindTimeout {
		t.Fatalf("Open with a cancelled context: kind %q (%v); want canceled or timeout", k, err)
	}
}

func testRoundTrip(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	resp := request(t, conn, 10, "tools/list", map[string]any{})
	var list struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &list); err != nil {
		t.Fatalf("tools/list response %s: %v", resp, err)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
	}
	if !contains(names, "echo") {
		t.Fatalf("tools/list gave %v; want echo among them", names)
	}
	text := callEcho(t, conn, 11, "héllo, wörld")
	if text != "héllo, wörld" {
		t.Fatalf("echo returned %q", text)
	}
}

func testConcurrent(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	const n = 32
	for i := 0; i < n; i++ {
		send(t, conn, callMsg(100+i, "echo", map[string]any{"text": fmt.Sprint("msg-", i)}))
	}
	seen := map[int]string{}
	for len(seen) < n {
		msg := recv(t, conn)
		var r struct {
			ID     *int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msg, &r); err != nil || r.ID == nil {
			continue // a notification
		}
		if len(r.Result.Content) == 0 {
			t.Fatalf("response %s has no content", msg)
		}
		seen[*r.ID] = r.Result.Content[0].Text
	}
	for i := 0; i < n; i++ {
		if got, want := seen[100+i], fmt.Sprint("msg-", i); got != want {
			t.Errorf("id %d: got %q, want %q", 100+i, got, want)
		}
	}
}

func testLarge(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	big := strings.Repeat("0123456789abcdef", 1<<17) // 2 MiB
	if got := callEcho(t, conn, 20, big); got != big {
		t.Fatalf("2 MiB echo came back with %d bytes", len(got))
	}
}

func testExpiredSend(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	c, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	err := conn.Send(c, callMsg(30, "echo", map[string]any{"text": "late"}))
	if err == nil {
		t.Fatal("Send with an expired deadline succeeded")
	}
	if k := pluginapi.KindOf(err); k != pluginapi.KindTimeout {
		t.Fatalf("Send with an expired deadline: kind %q (%v); want timeout", k, err)
	}
	if got := callEcho(t, conn, 31, "still up"); got != "still up" {
		t.Fatalf("connection unusable after a refused send: %q", got)
	}
}

func testServerExit(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	send(t, conn, callMsg(40, "crash", map[string]any{}))
	c, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		_, err := conn.Recv(c)
		if err == nil {
			continue
		}
		if k := pluginapi.KindOf(err); k != pluginapi.KindServerExited {
			t.Fatalf("after the server exited, Recv: kind %q (%v); want %q", k, err, pluginapi.KindServerExited)
		}
		return
	}
}

func testClose(t *testing.T, h Harness) {
	conn := openInitialized(t, h)
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := conn.Recv(context.Background()); err != nil {
				done <- err
				return
			}
		}
	}()
	if err := conn.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := conn.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Recv returned no error after Close")
		}
	case <-time.After(timeout):
		t.Fatal("Recv still blocked after Close")
	}
	if err := conn.Send(ctx(t), callMsg(50, "echo", map[string]any{"text": "x"})); err == nil {
		t.Fatal("Send after Close succeeded")
	}
}

// openInitialized opens a connection and performs the MCP handshake.
func openInitialized(t *testing.T, h Harness) pluginapi.Conn {
	t.Helper()
	conn, err := h.Transport.Open(ctx(t), pluginapi.OpenRequest{ServerName: "contract", Config: h.Config, WantDirectPipes: h.WantDirectPipes})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	request(t, conn, 1, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "contracttest", "version": "1"},
	})
	send(t, conn, mustJSON(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}))
	return conn
}

func callEcho(t *testing.T, conn pluginapi.Conn, id int, text string) string {
	t.Helper()
	resp := request(t, conn, id, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": text}})
	var r struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || len(r.Result.Content) == 0 {
		t.Fatalf("echo response (%d bytes) unusable: %v", len(resp), err)
	}
	return r.Result.Content[0].Text
}

func callMsg(id int, tool string, args map[string]any) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return b
}

// request sends a request and returns the response with the same id,
// skipping notifications and unrelated messages.
func request(t *testing.T, conn pluginapi.Conn, id int, method string, params any) json.RawMessage {
	t.Helper()
	send(t, conn, mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
	for {
		msg := recv(t, conn)
		var r struct {
			ID    *int            `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(msg, &r) == nil && r.ID != nil && *r.ID == id {
			if len(r.Error) > 0 {
				t.Fatalf("%s: error response %s", method, r.Error)
			}
			return msg
		}
	}
}

func send(t *testing.T, conn pluginapi.Conn, msg json.RawMessage) {
	t.Helper()
	if err := conn.Send(ctx(t), msg); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

// recv waits for the next message, failing the test after timeout. Recv runs
// in a goroutine so a transport that ignores ctx still cannot hang the suite.
func recv(t *testing.T, conn pluginapi.Conn) json.RawMessage {
	t.Helper()
	type result struct {
		msg json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, err := conn.Recv(context.Background())
		ch <- result{m, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Recv: %v", r.err)
		}
		return r.msg
	case <-time.After(timeout):
		t.Fatalf("Recv: nothing within %s", timeout)
		return nil
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return c
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
