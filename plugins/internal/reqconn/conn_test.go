package reqconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/internal/testwait"
	"github.com/plughost/plughost/pluginapi"
)

func TestRequestRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		msg        string
		wantID     string // the response's id, byte for byte
		wantParams any    // what the server got
		wantResult any    // the response's result
		wantError  int    // the response's error code, 0 for none
	}{
		{
			name:       "number id",
			msg:        `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}`,
			wantID:     `7`,
			wantParams: map[string]any{"a": 1.0},
			wantResult: map[string]any{"session": 1.0, "params": map[string]any{"a": 1.0}},
		},
		{
			name:       "string id",
			msg:        `{"jsonrpc":"2.0","id":"abc","method":"echo","params":{"b":"x"}}`,
			wantID:     `"abc"`,
			wantParams: map[string]any{"b": "x"},
			wantResult: map[string]any{"session": 1.0, "params": map[string]any{"b": "x"}},
		},
		{
			name:       "string id that looks like a number",
			msg:        `{"jsonrpc":"2.0","id":"7","method":"echo","params":{}}`,
			wantID:     `"7"`,
			wantParams: map[string]any{},
			wantResult: map[string]any{"session": 1.0, "params": map[string]any{}},
		},
		{
			name:       "number id beyond float64 precision",
			msg:        `{"jsonrpc":"2.0","id":9007199254740993,"method":"echo","params":{}}`,
			wantID:     `9007199254740993`,
			wantParams: map[string]any{},
			wantResult: map[string]any{"session": 1.0, "params": map[string]any{}},
		},
		{
			name:       "fractional id",
			msg:        `{"jsonrpc":"2.0","id":1.5,"method":"echo"}`,
			wantID:     `1.5`,
			wantParams: nil,
			wantResult: map[string]any{"session": 1.0, "params": nil},
		},
		{
			name:      "server error response",
			msg:       `{"jsonrpc":"2.0","id":8,"method":"nope"}`,
			wantID:    `8`,
			wantError: mcp.METHOD_NOT_FOUND,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{}
			c := open(t, srv, Options{})
			send(t, c, tt.msg)
			r := parseResponse(t, recv(t, c))
			if string(r.ID) != tt.wantID {
				t.Errorf("response id = %s, want %s", r.ID, tt.wantID)
			}
			if tt.wantError != 0 {
				if r.Error == nil || r.Error.Code != tt.wantError {
					t.Fatalf("response error = %+v, want code %d", r.Error, tt.wantError)
				}
				return
			}
			if diff := cmp.Diff(tt.wantResult, decode(t, r.Result)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			f := srv.transports()[0]
			if diff := cmp.Diff([]string{"echo"}, f.methods()); diff != "" {
				t.Fatalf("server requests (-want +got):\n%s", diff)
			}
			if got := decode(t, toJSON(t, f.requests[0].Params)); !cmp.Equal(tt.wantParams, got) {
				t.Errorf("server got params %v, want %v", got, tt.wantParams)
			}
		})
	}
}

func TestTransportFailure(t *testing.T) {
	tests := []struct {
		name      string
		fail      error         // what SendRequest returns for "call"
		deadline  time.Duration // on the Send ctx, 0 for none
		wantCode  int
		wantKind  pluginapi.Kind
		wantInMsg string
		exactMsg  bool // the message is wantInMsg and nothing else
	}{
		{
			name:      "network failure may have run",
			fail:      fmt.Errorf("failed to send request: %w", errBoom),
			wantCode:  mcp.INTERNAL_ERROR,
			wantKind:  pluginapi.KindConnect,
			wantInMsg: "may or may not have processed it, so it was not retried: failed to send request: boom",
		},
		{
			name:      "deadline passed",
			deadline:  50 * time.Millisecond,
			wantCode:  mcp.REQUEST_INTERRUPTED,
			wantKind:  pluginapi.KindTimeout,
			wantInMsg: "the deadline passed before the server answered call",
		},
		{
			name:      "unauthorized",
			fail:      &transport.AuthorizationRequiredError{},
			wantCode:  mcp.INTERNAL_ERROR,
			wantKind:  pluginapi.KindConnect,
			wantInMsg: "requires authorization (HTTP 401); call was not processed",
		},
		{
			name: "answer over the result limit",
			fail: fmt.Errorf("failed to decode response: %w", &pluginapi.Error{Op: "recv", Kind: pluginapi.KindMessageTooLarge,
				Err: &pluginapi.MessageTooLargeError{Limit: 8 << 20, Seen: 8<<20 + 1, What: "result", Setting: "tools.mcp.max_result_mb (or tools.mcp.servers.s.max_result_mb for this server alone)"}}),
			wantCode:  mcp.INTERNAL_ERROR,
			wantKind:  pluginapi.KindMessageTooLarge,
			wantInMsg: "the server processed call, but its answer was larger than the 8 MiB limit on one result (refused after 8388609 bytes) and was not read; raise tools.mcp.max_result_mb (or tools.mcp.servers.s.max_result_mb for this server alone) to accept larger results",
			exactMsg:  true,
		},
		{
			name:      "url query is not repeated",
			fail:      fmt.Errorf("failed to send request: %w", &url.Error{Op: "Post", URL: "http://h/mcp?key=SECRET", Err: io.ErrUnexpectedEOF}),
			wantCode:  mcp.INTERNAL_ERROR,
			wantKind:  pluginapi.KindConnect,
			wantInMsg: `Post "http://h/mcp": unexpected EOF`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
				if req.Method != "call" {
					return defaultHandle(f, ctx, req)
				}
				if tt.fail != nil {
					return nil, tt.fail
				}
				<-ctx.Done()
				return nil, fmt.Errorf("failed to send request: %w", ctx.Err())
			}}
			c := open(t, srv, Options{})
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			if err := c.Send(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"call"}`)); err != nil {
				t.Fatalf("Send: %v", err)
			}
			raw := recv(t, c)
			r := parseResponse(t, raw)
			if string(r.ID) != "3" || r.Error == nil {
				t.Fatalf("got %s; want an error response for id 3", raw)
			}
			if r.Error.Code != tt.wantCode || r.Error.Data.Kind != tt.wantKind || !strings.Contains(r.Error.Message, tt.wantInMsg) ||
				(tt.exactMsg && r.Error.Message != tt.wantInMsg) {
				t.Errorf("error = %+v; want code %d, kind %s, message containing %q", *r.Error, tt.wantCode, tt.wantKind, tt.wantInMsg)
			}
			if strings.Contains(string(raw), "SECRET") {
				t.Errorf("error response repeats the URL query: %s", raw)
			}
			// Never re-sent, and the connection stays usable.
			send(t, c, `{"jsonrpc":"2.0","id":4,"method":"echo"}`)
			if r := parseResponse(t, recv(t, c)); string(r.ID) != "4" || r.Error != nil {
				t.Fatalf("after the failure, echo gave %+v", r)
			}
			calls := 0
			for _, m := range srv.transports()[0].methods() {
				if m == "call" {
					calls++
				}
			}
			if calls != 1 || srv.factoryCalls() != 1 {
				t.Errorf("call sent %d times over %d sessions; want once over one", calls, srv.factoryCalls())
			}
		})
	}
}

func TestSendExpiredDeadline(t *testing.T) {
	c := open(t, &fakeServer{}, Options{})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	err := c.Send(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"echo"}`))
	if k := pluginapi.KindOf(err); k != pluginapi.KindTimeout {
		t.Fatalf("Send with an expired deadline: %v (kind %q); want %q", err, k, pluginapi.KindTimeout)
	}
}

func TestSendRejects(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"empty", ``},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`},
		{"not JSON", `{"jsonrpc"`},
		{"no method no id", `{"jsonrpc":"2.0","result":{}}`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"echo"}`},
		{"notification params not an object", `{"jsonrpc":"2.0","method":"notifications/x","params":[1]}`},
	}
	c := open(t, &fakeServer{}, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Send(context.Background(), json.RawMessage(tt.msg))
			if k := pluginapi.KindOf(err); k != pluginapi.KindInternal {
				t.Fatalf("Send(%s) = %v; want a %q error", tt.msg, err, pluginapi.KindInternal)
			}
		})
	}
}

func TestDuplicateRequestID(t *testing.T) {
	c := open(t, &fakeServer{}, Options{})
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"block"}`)
	err := c.Send(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"echo"}`))
	if err == nil || !strings.Contains(err.Error(), "already in flight") {
		t.Fatalf("second Send with id 1 = %v; want an 'already in flight' error", err)
	}
}

func TestCancellation(t *testing.T) {
	tests := []struct {
		id           string
		answerAnyway bool // the server still answers after the abort
	}{
		{id: `5`},
		{id: `"five"`, answerAnyway: true},
	}
	for _, tt := range tests {
		id := tt.id
		t.Run(id, func(t *testing.T) {
			started := make(chan struct{})
			aborted := make(chan error, 1)
			srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
				if req.Method != "slow" {
					return defaultHandle(f, ctx, req)
				}
				close(started)
				<-ctx.Done()
				aborted <- context.Cause(ctx)
				if tt.answerAnyway {
					return transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "context canceled", nil), nil
				}
				return nil, fmt.Errorf("failed to send request: %w", ctx.Err())
			}}
			c := open(t, srv, Options{})
			send(t, c, `{"jsonrpc":"2.0","id":`+id+`,"method":"slow"}`)
			<-started
			cancelMsg := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"user"}}`
			send(t, c, cancelMsg)
			select {
			case cause := <-aborted:
				if !errors.Is(cause, errCanceledByHost) {
					t.Errorf("request context ended with %v; want %v", cause, errCanceledByHost)
				}
			case <-time.After(wait):
				t.Fatal("the in-flight request's context was not cancelled")
			}
			notes := srv.transports()[0].sentNotes()
			if len(notes) != 1 {
				t.Fatalf("server got %d notifications; want the forwarded cancellation", len(notes))
			}
			if diff := cmp.Diff(decode(t, []byte(cancelMsg)), decode(t, toJSON(t, notes[0]))); diff != "" {
				t.Errorf("forwarded cancellation (-want +got):\n%s", diff)
			}
			// No response for the cancelled request: the next message is the next response.
			send(t, c, `{"jsonrpc":"2.0","id":6,"method":"echo"}`)
			if r := parseResponse(t, recv(t, c)); string(r.ID) != "6" {
				t.Fatalf("got a response for id %s; want 6 (nothing for the cancelled request)", r.ID)
			}
		})
	}
}

func TestHostNotificationForwarded(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"no params", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"params with _meta and a big number", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"k":"v"},"n":9007199254740993}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{}
			c := open(t, srv, Options{})
			send(t, c, tt.msg)
			notes := srv.transports()[0].sentNotes()
			if len(notes) != 1 {
				t.Fatalf("server got %d notifications; want 1", len(notes))
			}
			if got := string(toJSON(t, notes[0])); got != compact(t, tt.msg) {
				t.Errorf("server got %s; want %s", got, compact(t, tt.msg))
			}
		})
	}
}

func TestHostNotificationError(t *testing.T) {
	srv := &fakeServer{notifyErr: func(*fakeTransport, mcp.JSONRPCNotification) error {
		return fmt.Errorf("notification failed with status %d", 500)
	}}
	c := open(t, srv, Options{})
	err := c.Send(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if k := pluginapi.KindOf(err); k != pluginapi.KindConnect {
		t.Fatalf("Send = %v; want a %q error", err, pluginapi.KindConnect)
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return string(toJSON(t, v)) // sorted keys, like mcp-go's map-based encoding
}

func TestServerNotification(t *testing.T) {
	tests := []struct {
		name string
		msg  string
	}{
		{"progress", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}`},
		{"no params", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{"_meta", `{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"a":1},"level":"info","data":"x"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{}
			c := open(t, srv, Options{})
			var n mcp.JSONRPCNotification
			if err := json.Unmarshal([]byte(tt.msg), &n); err != nil {
				t.Fatal(err)
			}
			onNote, _, _ := srv.transports()[0].handlers()
			onNote(n)
			if diff := cmp.Diff(decode(t, []byte(tt.msg)), decode(t, recv(t, c))); diff != "" {
				t.Errorf("host got (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotificationBackpressure(t *testing.T) {
	srv := &fakeServer{}
	c := open(t, srv, Options{MaxQueuedNotifications: 2})
	onNote, _, _ := srv.transports()[0].handlers()
	note := func(i int) mcp.JSONRPCNotification {
		return mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{
			Method: "notifications/progress",
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"progress": i}},
		}}
	}
	onNote(note(1))
	onNote(note(2))
	third := make(chan struct{})
	go func() {
		onNote(note(3))
		close(third)
	}()
	select {
	case <-third:
		t.Fatal("a third notification was queued past the limit of 2")
	case <-time.After(50 * time.Millisecond):
	}
	var got []any
	got = append(got, decode(t, recv(t, c)))
	select {
	case <-third:
	case <-time.After(wait):
		t.Fatal("the third notification still waits after Recv made room")
	}
	got = append(got, decode(t, recv(t, c)), decode(t, recv(t, c)))
	var want []any
	for i := 1; i <= 3; i++ {
		want = append(want, decode(t, toJSON(t, note(i))))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications out of order (-want +got):\n%s", diff)
	}
}

func TestServerRequest(t *testing.T) {
	tests := []struct {
		name     string
		id       any
		answer   string // the host's response, %s is the id
		wantResp string // what the server's handler returns, as JSON
	}{
		{
			name:     "number id, result",
			id:       int64(3),
			answer:   `{"jsonrpc":"2.0","id":%s,"result":{"roots":[]}}`,
			wantResp: `{"jsonrpc":"2.0","id":3,"result":{"roots":[]}}`,
		},
		{
			name:     "string id, error",
			id:       "s-1",
			answer:   `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`,
			wantResp: `{"jsonrpc":"2.0","id":"s-1","error":{"code":-32601,"message":"no"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{}
			c := open(t, srv, Options{})
			_, onReq, _ := srv.transports()[0].handlers()
			req := transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(tt.id), Method: "roots/list", Params: map[string]any{"x": 1.0}}
			type result struct {
				resp *transport.JSONRPCResponse
				err  error
			}
			done := make(chan result, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				resp, err := onReq(ctx, req)
				done <- result{resp, err}
			}()
			got := recv(t, c)
			if diff := cmp.Diff(decode(t, toJSON(t, req)), decode(t, got)); diff != "" {
				t.Fatalf("host got (-want +got):\n%s", diff)
			}
			send(t, c, fmt.Sprintf(tt.answer, toJSON(t, tt.id)))
			r := <-done
			if r.err != nil {
				t.Fatalf("request handler: %v", r.err)
			}
			if r.resp.ID.Value() != req.ID.Value() {
				t.Errorf("response id %v (%T); want %v (%T)", r.resp.ID.Value(), r.resp.ID.Value(), req.ID.Value(), req.ID.Value())
			}
			if diff := cmp.Diff(decode(t, []byte(tt.wantResp)), decode(t, toJSON(t, r.resp))); diff != "" {
				t.Errorf("server got (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerRequestEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(c pluginapi.Conn, cancel context.CancelFunc)
	}{
		{"request context ends", func(_ pluginapi.Conn, cancel context.CancelFunc) { cancel() }},
		{"connection closes", func(c pluginapi.Conn, _ context.CancelFunc) { c.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &fakeServer{}
			c := open(t, srv, Options{})
			_, onReq, _ := srv.transports()[0].handlers()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := onReq(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "sampling/createMessage"})
				done <- err
			}()
			recv(t, c) // the host has it and does not answer
			tt.end(c, cancel)
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("request handler succeeded without an answer")
				}
			case <-time.After(wait):
				t.Fatal("request handler still waits")
			}
		})
	}
}

// initialize is what the host sends first in the session tests.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"1"}}}`

// handshake performs the host side of initialization.
func handshakeHost(t *testing.T, c pluginapi.Conn) {
	t.Helper()
	send(t, c, initialize)
	if r := parseResponse(t, recv(t, c)); string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// sessionLost fails method on the first session, like mcp-go's streamable
// HTTP transport once the server answered 404: every later request fails too.
func sessionLost(method string) func(*fakeTransport, context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if f.n == 1 && req.Method == method {
			return nil, fmt.Errorf("failed to send request: %w", transport.ErrSessionTerminated)
		}
		return defaultHandle(f, ctx, req)
	}
}

func TestSessionLoss(t *testing.T) {
	srv := &fakeServer{handle: sessionLost("tools/list")}
	c := open(t, srv, Options{})
	handshakeHost(t, c)
	if got := c.SessionID(); got != "session-1" {
		t.Fatalf("SessionID = %q, want session-1", got)
	}
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c"}}`)
	r := parseResponse(t, recv(t, c))
	if string(r.ID) != "2" || r.Error != nil {
		t.Fatalf("tools/list after session loss: %+v", r)
	}
	if diff := cmp.Diff(map[string]any{"session": 2.0, "params": map[string]any{"cursor": "c"}}, decode(t, r.Result)); diff != "" {
		t.Errorf("tools/list result (-want +got):\n%s", diff)
	}
	recvNone(t, c) // the replayed initialize's response is swallowed

	fs := srv.transports()
	if len(fs) != 2 {
		t.Fatalf("factory made %d transports; want 2", len(fs))
	}
	old, cur := fs[0], fs[1]
	if diff := cmp.Diff([]string{"initialize", "tools/list"}, old.methods()); diff != "" {
		t.Errorf("first session requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"initialize", "tools/list"}, cur.methods()); diff != "" {
		t.Errorf("second session requests (-want +got):\n%s", diff)
	}
	var hostInit struct{ Params any }
	json.Unmarshal([]byte(initialize), &hostInit)
	if diff := cmp.Diff(hostInit.Params, decode(t, toJSON(t, cur.requests[0].Params))); diff != "" {
		t.Errorf("replayed initialize params (-want +got):\n%s", diff)
	}
	var noteMethods []string
	for _, n := range cur.sentNotes() {
		noteMethods = append(noteMethods, n.Method)
	}
	if diff := cmp.Diff([]string{"notifications/initialized"}, noteMethods); diff != "" {
		t.Errorf("second session notifications (-want +got):\n%s", diff)
	}
	cur.mu.Lock()
	version := cur.version
	cur.mu.Unlock()
	if version != "2025-11-25" {
		t.Errorf("new transport's protocol version = %q, want 2025-11-25", version)
	}
	if !old.isClosed() || cur.isClosed() {
		t.Errorf("closed: old %v, new %v; want the old session closed, the new one open", old.isClosed(), cur.isClosed())
	}
	if got := c.SessionID(); got != "session-2" {
		t.Errorf("SessionID = %q, want session-2", got)
	}
}

func TestSessionLossNotification(t *testing.T) {
	srv := &fakeServer{notifyErr: func(f *fakeTransport, n mcp.JSONRPCNotification) error {
		if f.n == 1 && n.Method == "notifications/roots/list_changed" {
			return fmt.Errorf("failed to send request: %w", transport.ErrSessionTerminated)
		}
		return nil
	}}
	c := open(t, srv, Options{})
	handshakeHost(t, c)
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	fs := srv.transports()
	if len(fs) != 2 {
		t.Fatalf("factory made %d transports; want 2", len(fs))
	}
	var got []string
	for _, n := range fs[1].sentNotes() {
		got = append(got, n.Method)
	}
	if diff := cmp.Diff([]string{"notifications/initialized", "notifications/roots/list_changed"}, got); diff != "" {
		t.Errorf("second session notifications (-want +got):\n%s", diff)
	}
}

func TestSessionLossConcurrent(t *testing.T) {
	const n = 8
	var arrived sync.WaitGroup
	arrived.Add(n)
	srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if f.n == 1 && req.Method == "echo" {
			arrived.Done()
			arrived.Wait() // all n fail together
			return nil, fmt.Errorf("failed to send request: %w", transport.ErrSessionTerminated)
		}
		return defaultHandle(f, ctx, req)
	}}
	c := open(t, srv, Options{})
	handshakeHost(t, c)
	for i := range n {
		send(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, 10+i))
	}
	seen := map[string]bool{}
	for range n {
		r := parseResponse(t, recv(t, c))
		if r.Error != nil {
			t.Fatalf("id %s: %+v", r.ID, *r.Error)
		}
		seen[string(r.ID)] = true
	}
	if len(seen) != n {
		t.Errorf("got responses for %d ids; want %d", len(seen), n)
	}
	if got := srv.factoryCalls(); got != 2 {
		t.Errorf("factory called %d times; want 2 (one re-initialization)", got)
	}
	inits := 0
	for _, m := range srv.transports()[1].methods() {
		if m == "initialize" {
			inits++
		}
	}
	if inits != 1 {
		t.Errorf("new session got %d initialize requests; want 1", inits)
	}
}

func TestSessionLossRenewalFails(t *testing.T) {
	srv := &fakeServer{
		handle:      sessionLost("echo"),
		factoryErrs: []error{nil, errBoom}, // the first renewal cannot make a transport
	}
	c := open(t, srv, Options{})
	handshakeHost(t, c)

	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	r := parseResponse(t, recv(t, c))
	if r.Error == nil || !strings.Contains(r.Error.Message, "starting a new session failed") || !strings.Contains(r.Error.Message, "boom") {
		t.Fatalf("echo with a failed renewal: %s; want an error saying starting a new session failed", toJSON(t, r))
	}
	if r.Error.Data.Kind != pluginapi.KindConnect {
		t.Errorf("kind = %q, want %q", r.Error.Data.Kind, pluginapi.KindConnect)
	}

	// The connection stays usable: the next request tries again.
	send(t, c, `{"jsonrpc":"2.0","id":3,"method":"echo"}`)
	if r := parseResponse(t, recv(t, c)); string(r.ID) != "3" || r.Error != nil {
		t.Fatalf("echo after a later renewal: %s", toJSON(t, r))
	}
	if got := srv.factoryCalls(); got != 3 {
		t.Errorf("factory called %d times; want 3", got)
	}
	if got := c.SessionID(); got != "session-2" {
		t.Errorf("SessionID = %q, want session-2", got)
	}
}

func TestSessionLossServerGone(t *testing.T) {
	down := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: errors.New("connection refused")}
	srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if f.n > 1 {
			return nil, fmt.Errorf("failed to send request: %w", down)
		}
		return sessionLost("echo")(f, ctx, req)
	}}
	c := open(t, srv, Options{})
	handshakeHost(t, c)
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var err error
	for err == nil { // skip the request's own error response, if it was queued first
		_, err = c.Recv(ctx)
	}
	if k := pluginapi.KindOf(err); k != pluginapi.KindServerExited || !strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("Recv = %v (kind %q); want %q saying the server cannot be reached", err, k, pluginapi.KindServerExited)
	}
	if !srv.transports()[1].isClosed() {
		t.Error("the transport of the failed new session was not closed")
	}
}

func TestSessionLossWithoutInitialize(t *testing.T) {
	srv := &fakeServer{handle: sessionLost("echo")}
	c := open(t, srv, Options{})
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	r := parseResponse(t, recv(t, c))
	if r.Error == nil || !strings.Contains(r.Error.Message, "has not sent initialize") {
		t.Fatalf("got %s; want an error saying there is no initialize to replay", toJSON(t, r))
	}
	if got := srv.factoryCalls(); got != 1 {
		t.Errorf("factory called %d times; want 1", got)
	}
}

func TestServerUnreachable(t *testing.T) {
	down := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
	srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method == "initialize" {
			return defaultHandle(f, ctx, req)
		}
		return nil, fmt.Errorf("failed to send request: %w", down)
	}}
	c := open(t, srv, Options{})
	handshakeHost(t, c)
	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	if r := parseResponse(t, recv(t, c)); string(r.ID) != "2" || r.Error == nil {
		t.Fatalf("got %s; want an error response for id 2 first", toJSON(t, r))
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := c.Recv(ctx)
	if k := pluginapi.KindOf(err); k != pluginapi.KindServerExited || !strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("Recv = %v (kind %q); want %q saying the server cannot be reached", err, k, pluginapi.KindServerExited)
	}
	if err := c.Send(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"echo"}`)); pluginapi.KindOf(err) != pluginapi.KindServerExited {
		t.Errorf("Send after the end = %v; want %q", err, pluginapi.KindServerExited)
	}
}

func TestConnectionLost(t *testing.T) {
	srv := &fakeServer{}
	c := open(t, srv, Options{})
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"block"}`)
	_, _, onLost := srv.transports()[0].handlers()
	onLost(io.ErrUnexpectedEOF)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, err := c.Recv(ctx)
	if k := pluginapi.KindOf(err); k != pluginapi.KindServerExited || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("Recv = %v (kind %q); want %q with the reason", err, k, pluginapi.KindServerExited)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !srv.transports()[0].isClosed() {
		t.Error("transport not closed by Close")
	}
}

func TestClose(t *testing.T) {
	aborted := make(chan struct{})
	srv := &fakeServer{handle: func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method == "block" {
			defer close(aborted)
		}
		return defaultHandle(f, ctx, req)
	}}
	c := open(t, srv, Options{})
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"block"}`)
	recvErr := make(chan error, 1)
	go func() {
		_, err := c.Recv(context.Background())
		recvErr <- err
	}()
	testwait.Eventually(t, wait, "the request to reach the transport", func() bool { return len(srv.transports()[0].methods()) == 1 })
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-aborted:
	default:
		t.Error("Close returned before the in-flight request was cancelled")
	}
	select {
	case err := <-recvErr:
		if err != io.EOF {
			t.Errorf("blocked Recv = %v; want io.EOF", err)
		}
	case <-time.After(wait):
		t.Fatal("Recv still blocked after Close")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Recv(context.Background()); err != io.EOF {
		t.Errorf("Recv after Close = %v; want io.EOF", err)
	}
	if err := c.Send(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)); pluginapi.KindOf(err) != pluginapi.KindServerExited {
		t.Errorf("Send after Close = %v; want a %q error", err, pluginapi.KindServerExited)
	}
	if !srv.transports()[0].isClosed() {
		t.Error("transport not closed")
	}
}

func TestOpenErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		srv      *fakeServer
		wantKind pluginapi.Kind
		closed   bool // the transport made must be closed
	}{
		{"cancelled context", cancelled, &fakeServer{}, pluginapi.KindCanceled, false},
		{"factory fails", context.Background(), &fakeServer{factoryErrs: []error{errBoom}}, pluginapi.KindConnect, false},
		{"factory says invalid config", context.Background(),
			&fakeServer{factoryErrs: []error{pluginapi.Errorf("x", pluginapi.KindInvalidConfig, "bad url")}}, pluginapi.KindInvalidConfig, false},
		{"start fails", context.Background(), &fakeServer{start: func(context.Context) error { return errBoom }}, pluginapi.KindConnect, true},
		{"start outlives ctx", timeoutCtx(t, 20*time.Millisecond),
			&fakeServer{start: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}, pluginapi.KindTimeout, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(tt.ctx, tt.srv.factory, Options{})
			if err == nil {
				c.Close()
				t.Fatal("Open succeeded")
			}
			var pe *pluginapi.Error
			if !errors.As(err, &pe) || pe.Kind != tt.wantKind || pe.Op != "open" {
				t.Fatalf("Open = %v; want an open error of kind %q", err, tt.wantKind)
			}
			if tt.closed && !tt.srv.transports()[0].isClosed() {
				t.Error("the transport that failed to start was not closed")
			}
		})
	}
}

func timeoutCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestStartContextOutlivesOpen checks that the transport's Start context is
// not the one Open was given: SSE reads its stream under it.
func TestStartContextOutlivesOpen(t *testing.T) {
	startCtx := make(chan context.Context, 1)
	srv := &fakeServer{start: func(ctx context.Context) error { startCtx <- ctx; return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Open(ctx, srv.factory, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	sctx := <-startCtx
	if sctx.Err() != nil {
		t.Fatal("the transport's Start context ended with Open's")
	}
	c.Close()
	if sctx.Err() == nil {
		t.Fatal("the transport's Start context outlived Close")
	}
}
