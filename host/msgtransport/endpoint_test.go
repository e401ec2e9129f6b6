package msgtransport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// fakeConn is an in-memory Conn: toServer receives what the transport sends,
// fromServer feeds what Recv returns.
type fakeConn struct {
	toServer   chan json.RawMessage
	fromServer chan json.RawMessage
	endErr     chan error
	closeOnce  sync.Once
	closed     chan struct{}
}

func newFakeConn() *fakeConn {
	return &fakeConn{
		toServer:   make(chan json.RawMessage, 64),
		fromServer: make(chan json.RawMessage, 64),
		endErr:     make(chan error, 1),
		closed:     make(chan struct{}),
	}
}

func (c *fakeConn) Send(ctx context.Context, msg json.RawMessage) error {
	select {
	case c.toServer <- msg:
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	}
}

func (c *fakeConn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case m := <-c.fromServer:
		return m, nil
	case err := <-c.endErr:
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *fakeConn) SessionID() string { return "sid" }
func (c *fakeConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func request(id int64, method string) transport.JSONRPCRequest {
	return transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: method}
}

func started(t *testing.T) (*Endpoint, *fakeConn) {
	t.Helper()
	conn := newFakeConn()
	tr := New(conn, nil)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr, conn
}

func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out: %s", what)
	}
}

func TestResponsesCorrelateOutOfOrder(t *testing.T) {
	tr, conn := started(t)
	type out struct {
		id   int64
		resp *transport.JSONRPCResponse
		err  error
	}
	results := make(chan out, 2)
	for _, id := range []int64{1, 2} {
		go func() {
			r, err := tr.SendRequest(context.Background(), request(id, "tools/list"))
			results <- out{id, r, err}
		}()
	}
	<-conn.toServer
	<-conn.toServer
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`)
	for i := 0; i < 2; i++ {
		r := <-results
		if r.err != nil {
			t.Fatalf("id %d: %v", r.id, r.err)
		}
		switch r.id {
		case 1:
			if r.resp.Error == nil || r.resp.Error.Message != "nope" {
				t.Errorf("id 1: got %+v, want the error response", r.resp)
			}
		case 2:
			if string(r.resp.Result) != `{"n":2}` {
				t.Errorf("id 2: result %s", r.resp.Result)
			}
		}
	}
}

func TestNotificationsInOrderAndOffTheReadLoop(t *testing.T) {
	tr, conn := started(t)
	release := make(chan struct{})
	var mu sync.Mutex
	var got []string
	all := make(chan struct{})
	handler := func(method string, _ json.RawMessage) {
		<-release // a slow handler must not hold up the read loop
		mu.Lock()
		got = append(got, method)
		if len(got) == 3 {
			close(all)
		}
		mu.Unlock()
	}
	tr.SetRawHandlers(RawHandlers{Notification: handler, Request: func(context.Context, ServerRequest) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}})
	for _, m := range []string{"a", "b", "c"} {
		conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","method":"` + m + `"}`)
	}
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
	select { // the read loop goes on while a notification handler is blocked
	case <-conn.toServer:
	case <-time.After(10 * time.Second):
		t.Fatal("timed out: no answer to a server request while a notification handler is blocked")
	}
	close(release)
	within(t, all, "all notifications")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Fatalf("notifications %v, want [a b c] in order", got)
	}
}

func TestServerRequestIsAnswered(t *testing.T) {
	tr, conn := started(t)
	tr.SetRawHandlers(RawHandlers{Request: func(context.Context, ServerRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"roots":[]}`), nil
	}})
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
	var resp struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	select {
	case msg := <-conn.toServer:
		if err := json.Unmarshal(msg, &resp); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the server's request")
	}
	if resp.ID != "srv-1" || string(resp.Result) != `{"roots":[]}` {
		t.Fatalf("answer %+v", resp)
	}
}

func TestConnectionEndFailsPendingCalls(t *testing.T) {
	tr, conn := started(t)
	crash := errors.New("server exited: exit status 3")
	errc := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(context.Background(), request(1, "tools/call"))
		errc <- err
	}()
	<-conn.toServer
	conn.endErr <- crash
	select {
	case err := <-errc:
		if !errors.Is(err, crash) {
			t.Fatalf("pending call: %v, want the connection's end error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pending call not failed")
	}
	within(t, tr.Done(), "Done")
	if _, err := tr.SendRequest(context.Background(), request(2, "ping")); !errors.Is(err, crash) {
		t.Fatalf("call after the end: %v, want the end error", err)
	}
}

func TestCancelledCallReturnsAndForgetsID(t *testing.T) {
	tr, conn := started(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(ctx, request(1, "tools/call"))
		errc <- err
	}()
	<-conn.toServer
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The id is free again, and a late response for it is dropped quietly.
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	go func() {
		_, err := tr.SendRequest(context.Background(), request(1, "ping"))
		errc <- err
	}()
	<-conn.toServer
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if err := <-errc; err != nil {
		t.Fatalf("reused id: %v", err)
	}
}

func TestCloseFailsPending(t *testing.T) {
	tr, conn := started(t)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.SendRequest(context.Background(), request(1, "tools/call"))
		errc <- err
	}()
	<-conn.toServer
	tr.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

// serverAnswer reads the request Call sent and answers it with body
// (the members after "id").
func serverAnswer(t *testing.T, conn *fakeConn, body string) map[string]any {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(<-conn.toServer, &req); err != nil {
		t.Fatal(err)
	}
	id, _ := json.Marshal(req["id"])
	conn.fromServer <- json.RawMessage(`{"jsonrpc":"2.0","id":` + string(id) + `,` + body + `}`)
	return req
}

func TestRequestReturnsTheRawResult(t *testing.T) {
	tr, conn := started(t)
	type out struct {
		res json.RawMessage
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := tr.Request(context.Background(), Request{Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)})
		done <- out{res, err}
	}()
	req := serverAnswer(t, conn, `"result": {"content":[{"type":"text","text":"a\nb"}]} `)
	if id, _ := req["id"].(string); !strings.HasPrefix(id, "plughost-") || req["method"] != "tools/call" {
		t.Errorf("request %v; want method tools/call and a plughost-<n> id", req)
	}
	got := <-done
	if got.err != nil || string(got.res) != `{"content":[{"type":"text","text":"a\nb"}]}` {
		t.Errorf("Request = %s, %v; want the result exactly as sent", got.res, got.err)
	}
}

func TestRequestReturnsTheServerError(t *testing.T) {
	tr, conn := started(t)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Request(context.Background(), Request{Method: "tools/call"})
		errc <- err
	}()
	serverAnswer(t, conn, `"error":{"code":-32602,"message":"unknown tool: x"}`)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "unknown tool: x") {
		t.Errorf("Request error = %v; want the server's error message", err)
	}
}

func TestCancelledRequestTellsTheServer(t *testing.T) {
	tr, conn := started(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Request(ctx, Request{Method: "tools/call"})
		errc <- err
	}()
	var req map[string]any
	if err := json.Unmarshal(<-conn.toServer, &req); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	var note struct {
		Method string
		Params struct{ RequestID any }
	}
	if err := json.Unmarshal(<-conn.toServer, &note); err != nil {
		t.Fatal(err)
	}
	if note.Method != "notifications/cancelled" || note.Params.RequestID != req["id"] {
		t.Errorf("after cancel the server got %+v; want notifications/cancelled for %v", note, req["id"])
	}
}
