// Package msgtransport runs mcp-go's client over a message connection: it
// implements mcp-go's transport.BidirectionalInterface on top of anything that
// can send and receive whole JSON-RPC messages (a plugin's Connect stream, or
// a server's pipes handed over directly). It correlates responses with
// requests by their JSON-RPC id and dispatches server notifications and
// requests off the read loop.
package msgtransport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Conn moves whole JSON-RPC messages; pluginapi.Conn satisfies it.
type Conn interface {
	Send(ctx context.Context, msg json.RawMessage) error
	Recv(ctx context.Context) (json.RawMessage, error)
	SessionID() string
	Close() error
}

// ErrClosed is returned for calls made after Close.
var ErrClosed = errors.New("connection closed")

// notificationQueue bounds how many server notifications wait for dispatch
// before the read loop pauses (backpressure instead of unbounded memory).
const notificationQueue = 256

// Transport adapts a Conn to mcp-go. It is safe for concurrent use.
type Transport struct {
	conn   Conn
	logger hclog.Logger

	startOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc

	mu             sync.Mutex
	pending        map[string]chan *transport.JSONRPCResponse
	onNotification func(mcp.JSONRPCNotification)
	onRequest      transport.RequestHandler
	onLost         func(error)
	endErr         error         // why the connection ended
	ended          chan struct{} // closed when the read loop stops

	notifications chan mcp.JSONRPCNotification
}

// New returns a Transport over conn. Start must be called before use (mcp-go's
// client.Start does it).
func New(conn Conn, logger hclog.Logger) *Transport {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Transport{
		conn:          conn,
		logger:        logger,
		ctx:           ctx,
		cancel:        cancel,
		pending:       make(map[string]chan *transport.JSONRPCResponse),
		ended:         make(chan struct{}),
		notifications: make(chan mcp.JSONRPCNotification, notificationQueue),
	}
}

// Start launches the read loop and the notification dispatcher. It is idempotent.
func (t *Transport) Start(context.Context) error {
	t.startOnce.Do(func() {
		go t.readLoop()
		go t.dispatchNotifications()
	})
	return nil
}

// Done is closed when the connection has ended; Err then says why.
func (t *Transport) Done() <-chan struct{} { return t.ended }

// Err returns why the connection ended, or nil while it is up.
func (t *Transport) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endErr
}

// SendRequest sends request and waits for its response, ctx's end, or the
// connection's end (whose error it returns, so a crash fails in-flight calls).
func (t *Transport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	msg, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encode request %s: %w", request.Method, err)
	}
	key, err := idKey(request.ID)
	if err != nil {
		return nil, err
	}
	ch := make(chan *transport.JSONRPCResponse, 1)
	if err := t.addPending(key, ch); err != nil {
		return nil, err
	}
	defer t.removePending(key)
	if err := t.conn.Send(ctx, msg); err != nil {
		return nil, t.betterError(err)
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ended:
		return nil, t.Err()
	}
}

// betterError prefers the connection's end reason (e.g. "server exited: …")
// over the bare send failure it caused, when the end is already known.
func (t *Transport) betterError(sendErr error) error {
	select {
	case <-t.ended:
		return t.Err()
	default:
		return sendErr
	}
}

func (t *Transport) addPending(key string, ch chan *transport.JSONRPCResponse) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.endErr != nil {
		return t.endErr
	}
	if _, dup := t.pending[key]; dup {
		return fmt.Errorf("request id %s is already in flight", key)
	}
	t.pending[key] = ch
	return nil
}

func (t *Transport) removePending(key string) {
	t.mu.Lock()
	delete(t.pending, key)
	t.mu.Unlock()
}

// SendNotification sends a notification to the server.
func (t *Transport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	msg, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode notification %s: %w", n.Method, err)
	}
	if err := t.conn.Send(ctx, msg); err != nil {
		return t.betterError(err)
	}
	return nil
}

// SetNotificationHandler sets the handler for server notifications.
func (t *Transport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.mu.Lock()
	t.onNotification = h
	t.mu.Unlock()
}

// SetRequestHandler sets the handler for server→client requests.
func (t *Transport) SetRequestHandler(h transport.RequestHandler) {
	t.mu.Lock()
	t.onRequest = h
	t.mu.Unlock()
}

// SetConnectionLostHandler sets a callback run once when the connection ends
// other than by Close.
func (t *Transport) SetConnectionLostHandler(h func(error)) {
	t.mu.Lock()
	t.onLost = h
	t.mu.Unlock()
}

// Close closes the connection and fails every pending call.
func (t *Transport) Close() error {
	t.finish(ErrClosed)
	err := t.conn.Close()
	t.cancel()
	return err
}

// GetSessionId returns the transport session id.
func (t *Transport) GetSessionId() string { return t.conn.SessionID() }

// finish records why the connection ended (first reason wins) and wakes
// everyone waiting. It reports whether this call was the first.
func (t *Transport) finish(reason error) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.endErr != nil {
		return false
	}
	t.endErr = reason
	close(t.ended)
	return true
}

// envelope is enough of a JSON-RPC message to route it.
type envelope struct {
	ID     json.RawMessage          `json:"id,omitempty"`
	Method string                   `json:"method,omitempty"`
	Result json.RawMessage          `json:"result,omitempty"`
	Error  *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
}

func (t *Transport) readLoop() {
	for {
		msg, err := t.conn.Recv(t.ctx)
		if err != nil {
			if t.finish(err) {
				t.mu.Lock()
				lost := t.onLost
				t.mu.Unlock()
				if lost != nil {
					lost(err)
				}
			}
			close(t.notifications)
			return
		}
		t.route(msg)
	}
}

func (t *Transport) route(msg json.RawMessage) {
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		t.logger.Warn("dropping malformed message from server", "error", err, "bytes", len(msg))
		return
	}
	hasID := len(env.ID) > 0 && !bytes.Equal(env.ID, []byte("null"))
	switch {
	case env.Method != "" && hasID:
		go t.handleRequest(msg)
	case env.Method != "":
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(msg, &n); err != nil {
			t.logger.Warn("dropping malformed notification", "method", env.Method, "error", err)
			return
		}
		t.notifications <- n
	case hasID:
		t.deliver(env)
	default:
		t.logger.Warn("dropping message that is neither request, response nor notification", "bytes", len(msg))
	}
}

func (t *Transport) deliver(env envelope) {
	key := string(bytes.TrimSpace(env.ID))
	t.mu.Lock()
	ch := t.pending[key]
	t.mu.Unlock()
	if ch == nil {
		t.logger.Debug("response for unknown or abandoned request", "id", key)
		return
	}
	var id mcp.RequestId
	_ = json.Unmarshal(env.ID, &id)
	ch <- &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: env.Result, Error: env.Error}
}

func (t *Transport) dispatchNotifications() {
	for n := range t.notifications {
		t.mu.Lock()
		h := t.onNotification
		t.mu.Unlock()
		if h != nil {
			h(n)
		}
	}
}

func (t *Transport) handleRequest(msg json.RawMessage) {
	var req transport.JSONRPCRequest
	if err := json.Unmarshal(msg, &req); err != nil {
		t.logger.Warn("dropping malformed request from server", "error", err)
		return
	}
	t.mu.Lock()
	h := t.onRequest
	t.mu.Unlock()
	var resp *transport.JSONRPCResponse
	if h == nil {
		resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "client does not handle "+req.Method, nil)
	} else {
		r, err := h(t.ctx, req)
		switch {
		case err != nil:
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		case r == nil:
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "no response", nil)
		default:
			resp = r
		}
	}
	out, err := json.Marshal(resp)
	if err != nil {
		t.logger.Warn("cannot encode response to server request", "method", req.Method, "error", err)
		return
	}
	if err := t.conn.Send(t.ctx, out); err != nil {
		t.logger.Debug("cannot answer server request", "method", req.Method, "error", err)
	}
}

func idKey(id mcp.RequestId) (string, error) {
	b, err := json.Marshal(id)
	if err != nil {
		return "", fmt.Errorf("encode request id: %w", err)
	}
	return string(b), nil
}
