package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/plughost/plughost/pluginapi"
)

// fakeTransport records the OpenRequest and returns a fakeConn.
type fakeTransport struct {
	features []string
	opened   pluginapi.OpenRequest
	conn     *fakeConn
}

func (f *fakeTransport) Describe(context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{Name: "stdio", Version: "9", Features: f.features}, nil
}

func (f *fakeTransport) Validate(context.Context, json.RawMessage) error { return nil }

func (f *fakeTransport) Open(_ context.Context, req pluginapi.OpenRequest) (pluginapi.Conn, error) {
	f.opened = req
	return f.conn, nil
}

// fakeConn hands out queued messages and records sent ones; it can hand off
// pipes, which the wrapper must hide.
type fakeConn struct {
	queue   []json.RawMessage
	sent    []json.RawMessage
	sendErr error
}

func (f *fakeConn) Send(_ context.Context, msg json.RawMessage) error {
	f.sent = append(f.sent, msg)
	return f.sendErr
}

func (f *fakeConn) Recv(context.Context) (json.RawMessage, error) {
	if len(f.queue) == 0 {
		return nil, pluginapi.Errorf("recv", pluginapi.KindServerExited, "server exited")
	}
	msg := f.queue[0]
	f.queue = f.queue[1:]
	return msg, nil
}

func (f *fakeConn) SessionID() string { return "sid" }
func (f *fakeConn) Close() error      { return nil }
func (f *fakeConn) Diagnostics() pluginapi.Diagnostics {
	return pluginapi.Diagnostics{PID: 42, Stderr: "tail"}
}
func (f *fakeConn) HandOff() (stdin, stdout *os.File, err error) { return nil, nil, nil }

// jsonLines decodes hclog JSON output, leaving out the timestamps.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		delete(m, "@timestamp")
		lines = append(lines, m)
	}
	return lines
}

func TestDescribeHidesDirectPipes(t *testing.T) {
	inner := &fakeTransport{features: []string{pluginapi.FeatureDiagnostics, pluginapi.FeatureDirectPipes}}
	d, err := newTransport(inner, hclog.NewNullLogger()).Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := pluginapi.Description{Name: "logging", Version: version, Features: []string{pluginapi.FeatureDiagnostics}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
}

func TestConnLogsMessagesNotBodies(t *testing.T) {
	const secret = "hunter2-in-the-arguments"
	result := json.RawMessage(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + secret + `"}]}}`)
	inner := &fakeTransport{conn: &fakeConn{queue: []json.RawMessage{result}}}
	var buf bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Name: "logging", JSONFormat: true, Output: &buf})
	c, err := newTransport(inner, logger).Open(t.Context(), pluginapi.OpenRequest{
		ServerName: "srv", Config: json.RawMessage(`{"command":"x"}`), WantDirectPipes: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if inner.opened.WantDirectPipes {
		t.Error("the wrapped transport was asked for direct pipes; messages would skip the log")
	}
	if _, ok := c.(pluginapi.PipeHandoff); ok {
		t.Error("the logging conn offers PipeHandoff; messages would skip the log")
	}
	if d := c.(pluginapi.DiagnosticsProvider).Diagnostics(); d.PID != 42 {
		t.Errorf("Diagnostics = %+v; want the wrapped connection's", d)
	}
	call := json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"token":"` + secret + `"}}}`)
	if err := c.Send(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	if msg, err := c.Recv(t.Context()); err != nil || !bytes.Equal(msg, result) {
		t.Fatalf("Recv = %s, %v; want the wrapped connection's message unchanged", msg, err)
	}
	inner.conn.sendErr = pluginapi.Errorf("send", pluginapi.KindTimeout, "deadline while writing %s", call)
	if err := c.Send(t.Context(), call); pluginapi.KindOf(err) != pluginapi.KindTimeout {
		t.Errorf("Send error %v; want the wrapped transport's error unchanged", err)
	}
	if _, err := c.Recv(t.Context()); pluginapi.KindOf(err) != pluginapi.KindServerExited {
		t.Errorf("Recv error %v; want the wrapped transport's error unchanged", err)
	}
	if len(inner.conn.sent) != 2 || !bytes.Equal(inner.conn.sent[0], call) {
		t.Errorf("the wrapped connection got %q; want the message twice, unchanged", inner.conn.sent)
	}

	line := func(level, msg string, kv ...any) map[string]any {
		m := map[string]any{"@level": level, "@module": "logging", "@message": msg, "server": "srv"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	callSize, resultSize := float64(len(call)), float64(len(result))
	want := []map[string]any{
		line("info", "connection opened", "version", version),
		line("info", "message", "direction", toServer, "kind", "request", "method", "tools/call", "id", "3", "bytes", callSize),
		line("info", "message", "direction", toHost, "kind", "response", "id", "3", "bytes", resultSize),
		line("warn", "message not delivered", "direction", toServer, "kind", "request", "method", "tools/call",
			"id", "3", "bytes", callSize, "error_kind", "timeout"),
		line("info", "connection ended", "error_kind", "server_exited"),
	}
	if diff := cmp.Diff(want, jsonLines(t, buf.String())); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
	if strings.Contains(buf.String(), secret) {
		t.Errorf("the log holds a message body:\n%s", buf.String())
	}
}
