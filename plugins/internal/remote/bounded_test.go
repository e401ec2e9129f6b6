package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/plughost/plughost/pluginapi"
)

func TestEventLimitBody(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		ok     bool
	}{
		{"small events", "data: 12345\n\ndata: 12345\n\n", true},
		{"small events, CRLF", "data: 12345\r\n\r\ndata: 12345\r\n\r\n", true},
		{"one event over", "data: 1234567890123456789\n\n", false},
		{"many lines of one event over", "data: 12345\ndata: 12345\ndata: 12345\n\n", false},
		{"endless line", strings.Repeat("x", 100), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read: event boundaries split across reads.
			body := &eventLimitBody{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(tt.stream))), limit: 20}
			_, err := io.ReadAll(body)
			if tt.ok && err != nil {
				t.Errorf("read: %v", err)
			}
			if !tt.ok && pluginapi.KindOf(err) != pluginapi.KindMessageTooLarge {
				t.Errorf("read: %v; want KindMessageTooLarge", err)
			}
		})
	}
}

func TestTotalLimitBody(t *testing.T) {
	body := &totalLimitBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", 21))), limit: 20}
	_, err := io.ReadAll(body)
	if pluginapi.KindOf(err) != pluginapi.KindMessageTooLarge || !strings.Contains(err.Error(), "response body larger than the 20 bytes limit") {
		t.Errorf("read: %v; want the response body over the limit", err)
	}
	body = &totalLimitBody{ReadCloser: io.NopCloser(strings.NewReader(strings.Repeat("x", 20))), limit: 20}
	if b, err := io.ReadAll(body); err != nil || len(b) != 20 {
		t.Errorf("a body at the limit: %d bytes, %v", len(b), err)
	}
}

// A remote server's answer over the message limit is refused once the limit
// is passed, not read whole: over streamable HTTP the call gets an error
// naming the limit and the server stays connected; over legacy SSE the
// stream carrying it breaks, and the call or the connection ends saying why.
func TestRemoteAnswerOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes: heavy integration test, skipped under -short")
	}
	const limit = 1 << 20
	for _, kind := range []string{KindHTTP, KindSSE} {
		t.Run(kind, func(t *testing.T) {
			srv := startServer(t, kind)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			conn, send := openLimited(ctx, t, kind, nil, "big", srv.URL, limit)
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if _, err := conn.Recv(ctx); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{"chars":3000000}}}`)
			msg, err := conn.Recv(ctx)
			if kind == KindSSE {
				// The stream carrying the answer breaks. Whether the call is
				// first answered with an error naming the limit or the
				// connection ends naming it depends on which the plugin sees
				// first; either tells the client why, neither reads it whole.
				answered := err == nil && strings.Contains(string(msg), "larger than the 1 MiB limit") && strings.Contains(string(msg), `"id":2`)
				ended := pluginapi.KindOf(err) == pluginapi.KindServerExited && strings.Contains(err.Error(), "larger than the 1 MiB limit")
				if !answered && !ended {
					t.Fatalf("recv: %s, %v; want an error answer to id 2 or the connection's end, naming the limit", truncated(msg), err)
				}
				return
			}
			if err != nil || !strings.Contains(string(msg), "larger than the 1 MiB limit") || !strings.Contains(string(msg), `"id":2`) {
				t.Fatalf("recv: %s, %v; want an error response to id 2 naming the limit", truncated(msg), err)
			}
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"chars":1000}}}`)
			if msg, err := conn.Recv(ctx); err != nil || !strings.Contains(string(msg), `"id":3`) || strings.Contains(string(msg), `"error"`) {
				t.Fatalf("a small call afterwards: %s, %v", truncated(msg), err)
			}
		})
	}
}

func truncated(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Every event stream is bounded, GETs included: the standalone GET stream
// of a streamable-HTTP session with a refusal that logs, a GET resuming a
// POST's answer (Last-Event-ID) as that answer would be (spooled when a
// spool is set).
func TestEveryEventStreamIsBounded(t *testing.T) {
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	spool := &pluginapi.ResultSpool{Dir: t.TempDir(), MaxBytes: 100}
	tests := []struct {
		name      string
		method    string
		lastEvent string
		spool     *pluginapi.ResultSpool
		want      string
	}{
		{"standalone GET", http.MethodGet, "", nil, "standalone"},
		{"standalone GET with a spool", http.MethodGet, "", spool, "standalone"},
		{"resumed GET", http.MethodGet, "event-2", nil, "limit"},
		{"resumed GET with a spool", http.MethodGet, "event-2", spool, "spool"},
		{"POST", http.MethodPost, "", nil, "limit"},
		{"POST with a spool", http.MethodPost, "", spool, "spool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &boundedBodies{base: base, limit: 20, spool: tt.spool}
			req, _ := http.NewRequest(tt.method, "http://server/mcp", nil)
			if tt.lastEvent != "" {
				req.Header.Set("Last-Event-ID", tt.lastEvent)
			}
			resp, err := b.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%T", resp.Body)
			switch body := resp.Body.(type) {
			case *eventLimitBody:
				got = "limit"
				if body.refused != nil {
					got = "standalone"
				}
			case *eventSpoolBody:
				got = "spool"
			}
			if got != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
		})
	}
}

// openLimited opens a connection of kind to the server at url, named name,
// with a message limit, closed when the test ends; send sends one message
// or fails the test.
func openLimited(ctx context.Context, t *testing.T, kind string, logger hclog.Logger, name, url string, limit int) (conn pluginapi.Conn, send func(msg string)) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"url": url})
	conn, err := New(kind, logger, nil).Open(ctx, pluginapi.OpenRequest{ServerName: name, Config: cfg, MaxMessageBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, func(msg string) {
		t.Helper()
		if err := conn.Send(ctx, json.RawMessage(msg)); err != nil {
			t.Fatalf("send %s: %v", msg, err)
		}
	}
}
