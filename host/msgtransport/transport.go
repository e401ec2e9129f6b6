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
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/rawjson"
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
	stop      context.CancelFunc
	lastID    atomic.Uint64 // of the requests Call sends

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
	ctx, stop := context.WithCancel(context.Background())
	return &Transport{
		conn:          conn,
		logger:        logger,
		ctx:           ctx,
		stop:          stop,
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

// Call sends a request for method with params under an id of its own
// ("plughost-<n>"; mcp-go's client numbers its requests, so the two never
// clash) and returns the raw "result" of the response. The result shares the
// response message's bytes, which nothing else reads: the caller owns it and
// may decode it in place. A JSON-RPC error response is returned as the error
// mcp-go's client would return for it. When ctx ends before the response,
// the server is sent notifications/cancelled for the request, as mcp-go's
// client does for its own.
func (t *Transport) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := mcp.NewRequestId("plughost-" + strconv.FormatUint(t.lastID.Add(1), 10))
	resp, err := t.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params})
	if err != nil {
		if ctx.Err() != nil {
			t.cancel(id, ctx.Err())
		}
		return nil, err
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// cancelGrace bounds the send of a notifications/cancelled.
const cancelGrace = time.Second

// cancel tells the server to stop working on request id.
func (t *Transport) cancel(id mcp.RequestId, why error) {
	msg, err := json.Marshal(map[string]any{
		"jsonrpc": mcp.JSONRPC_VERSION,
		"method":  string(mcp.MethodNotificationCancelled),
		"params":  map[string]any{"requestId": id, "reason": why.Error()},
	})
	if err != nil {
		return
	}
	ctx, stop := context.WithTimeout(t.ctx, cancelGrace)
	defer stop()
	if err := t.conn.Send(ctx, msg); err != nil {
		t.logger.Debug("cannot send notifications/cancelled", "id", id, "error", err)
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
	t.stop()
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

// envelope is enough of a JSON-RPC message to route it. ID and Result share
// the message's bytes (a result of megabytes is never copied here).
type envelope struct {
	ID     json.RawMessage
	Method string
	Result json.RawMessage
	Error  *mcp.JSONRPCErrorDetails
}

// parseEnvelope reads the routing members of msg in one pass over it,
// checking that msg is a valid JSON object.
func parseEnvelope(msg json.RawMessage) (envelope, error) {
	var env envelope
	var err error
	view := rawjson.View(msg)
	ok := rawjson.ScanMembers(view, func(key string, start, end int) bool {
		v := msg[start:end:end]
		switch key {
		case "id":
			env.ID = v
		case "method":
			err = json.Unmarshal(v, &env.Method)
		case "result":
			env.Result = v
		case "error":
			if string(v) != "null" {
				err = json.Unmarshal(v, &env.Error)
			}
		}
		return err == nil
	})
	if err == nil && !ok {
		err = errors.New("not a valid JSON object")
	}
	return env, err
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
	env, err := parseEnvelope(msg)
	if err != nil {
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
