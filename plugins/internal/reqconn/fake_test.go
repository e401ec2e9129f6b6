package reqconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// wait bounds every wait in these tests.
const wait = 10 * time.Second

// fakeServer scripts the fake transports of one test: each factory call
// makes a new fakeTransport (a new "session").
type fakeServer struct {
	// handle answers requests; nil means defaultHandle.
	handle func(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error)
	// notifyErr, when set, is the error SendNotification returns.
	notifyErr func(f *fakeTransport, n mcp.JSONRPCNotification) error
	// start, when set, is what Start does.
	start func(ctx context.Context) error
	// factoryErrs are returned by successive factory calls (nil: succeed).
	factoryErrs []error

	mu        sync.Mutex
	factories int
	made      []*fakeTransport
}

func (s *fakeServer) factory() (transport.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.factories++
	if len(s.factoryErrs) > 0 {
		err := s.factoryErrs[0]
		s.factoryErrs = s.factoryErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	f := &fakeTransport{srv: s, n: len(s.made) + 1}
	s.made = append(s.made, f)
	return f, nil
}

func (s *fakeServer) transports() []*fakeTransport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*fakeTransport(nil), s.made...)
}

func (s *fakeServer) factoryCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.factories
}

// fakeTransport is a scripted transport.BidirectionalInterface that records
// what it is asked to send.
type fakeTransport struct {
	srv *fakeServer
	n   int

	mu       sync.Mutex
	started  bool
	closed   bool
	version  string
	requests []transport.JSONRPCRequest
	notes    []mcp.JSONRPCNotification
	onNote   func(mcp.JSONRPCNotification)
	onReq    transport.RequestHandler
	onLost   func(error)
}

var (
	_ transport.BidirectionalInterface = (*fakeTransport)(nil)
	_ transport.HTTPConnection         = (*fakeTransport)(nil)
)

func (f *fakeTransport) Start(ctx context.Context) error {
	if f.srv.start != nil {
		if err := f.srv.start(ctx); err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.started = true
	f.mu.Unlock()
	return nil
}

func (f *fakeTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if f.srv.handle != nil {
		return f.srv.handle(f, ctx, req)
	}
	return defaultHandle(f, ctx, req)
}

func (f *fakeTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	f.mu.Lock()
	f.notes = append(f.notes, n)
	f.mu.Unlock()
	if f.srv.notifyErr != nil {
		return f.srv.notifyErr(f, n)
	}
	return nil
}

func (f *fakeTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	f.mu.Lock()
	f.onNote = h
	f.mu.Unlock()
}

func (f *fakeTransport) SetRequestHandler(h transport.RequestHandler) {
	f.mu.Lock()
	f.onReq = h
	f.mu.Unlock()
}

func (f *fakeTransport) SetConnectionLostHandler(h func(error)) {
	f.mu.Lock()
	f.onLost = h
	f.mu.Unlock()
}

func (f *fakeTransport) SetProtocolVersion(v string) {
	f.mu.Lock()
	f.version = v
	f.mu.Unlock()
}

func (f *fakeTransport) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return nil
}

func (f *fakeTransport) GetSessionId() string { return fmt.Sprintf("session-%d", f.n) }

func (f *fakeTransport) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func (f *fakeTransport) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, r.Method)
	}
	return out
}

func (f *fakeTransport) sentNotes() []mcp.JSONRPCNotification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mcp.JSONRPCNotification(nil), f.notes...)
}

func (f *fakeTransport) handlers() (func(mcp.JSONRPCNotification), transport.RequestHandler, func(error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.onNote, f.onReq, f.onLost
}

// defaultHandle is a well-behaved server: initialize, ping, echo (returns its
// params and the session number), block (waits for ctx), and a JSON-RPC
// error for anything else.
func defaultHandle(f *fakeTransport, ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	switch req.Method {
	case "initialize":
		return result(req.ID, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}`), nil
	case "ping":
		return result(req.ID, `{}`), nil
	case "echo", "tools/list":
		params, _ := json.Marshal(req.Params)
		return result(req.ID, fmt.Sprintf(`{"session":%d,"params":%s}`, f.n, params)), nil
	case "block":
		<-ctx.Done()
		return nil, fmt.Errorf("failed to send request: %w", ctx.Err())
	default:
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "no method "+req.Method, nil), nil
	}
}

func result(id mcp.RequestId, js string) *transport.JSONRPCResponse {
	return transport.NewJSONRPCResultResponse(id, json.RawMessage(js))
}

// open opens a conn over srv's fakes, closed when the test ends.
func open(t *testing.T, srv *fakeServer, opts Options) pluginapi.Conn {
	t.Helper()
	c, err := Open(context.Background(), srv.factory, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c pluginapi.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := c.Send(ctx, json.RawMessage(msg)); err != nil {
		t.Fatalf("Send(%s): %v", msg, err)
	}
}

func recv(t *testing.T, c pluginapi.Conn) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	msg, err := c.Recv(ctx)
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	return msg
}

// recvNone checks that nothing arrives for a while.
func recvNone(t *testing.T, c pluginapi.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if msg, err := c.Recv(ctx); err == nil {
		t.Fatalf("Recv gave %s; want nothing", msg)
	} else if pluginapi.KindOf(err) != pluginapi.KindTimeout {
		t.Fatalf("Recv: %v; want a timeout", err)
	}
}

// decode turns JSON into plain Go values for cmp.
func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

func toJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// response is the shape of a JSON-RPC response, id kept raw.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Kind pluginapi.Kind `json:"kind"`
		} `json:"data"`
	} `json:"error"`
}

func parseResponse(t *testing.T, raw []byte) response {
	t.Helper()
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("response %s: %v", raw, err)
	}
	return r
}

var errBoom = errors.New("boom")
