// Package msgtransport is the host's JSON-RPC end of one MCP server
// connection, over anything that sends and receives whole JSON-RPC messages
// (a plugin's Connect stream, or a server's pipes handed over directly). The
// supervisor sends every request through it as raw JSON (initialize,
// tools/list, tools/call and the requests it forwards); no MCP client library
// runs on top. It correlates responses with requests by their JSON-RPC id,
// dispatches the server's notifications and requests, raw, off the read
// loop (RawHandlers), and applies the flood limit to what the server sends
// on its own.
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

	"github.com/plughost/plughost/lib/rawjson"
	"github.com/plughost/plughost/pluginapi"
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

// Endpoint is the host's JSON-RPC end of one server connection: it
// writes requests, matches answers to them by id and dispatches what the
// server sends on its own. It is safe for concurrent use.
type Endpoint struct {
	conn   Conn
	logger hclog.Logger

	startOnce sync.Once
	ctx       context.Context
	stop      context.CancelFunc
	lastID    atomic.Uint64 // of the requests Request sends

	mu           sync.Mutex
	pending      map[string]chan reply
	onRaw        RawHandlers
	endErr       error                         // why the connection ended
	ended        chan struct{}                 // closed when the read loop stops
	serving      map[string]context.CancelFunc // server requests being answered, by id
	dispatched   uint64                        // sequence number of the last notification handled
	dispatchWake chan struct{}                 // closed when dispatched moves, if someone waits

	queued        uint64 // sequence number of the last notification queued (read loop only)
	notifications chan notification

	flood      *floodMeter // nil: no flood limit; under mu
	onThrottle func()
}

// notification is a server notification waiting for dispatch.
type notification struct {
	seq    uint64
	method string
	params json.RawMessage
}

// reply is a response for a caller, and the sequence number of the last
// notification the server sent before it: the caller returns only once that
// one was handled, so what a server sent during a request (progress, log
// messages) is handled before the request's answer.
type reply struct {
	id     json.RawMessage // as the server wrote it
	result json.RawMessage
	err    *mcp.JSONRPCErrorDetails
	after  uint64
}

// RawHandlers receive what the server sends on its own as raw JSON (see
// SetRawHandlers).
type RawHandlers struct {
	// Notification gets every notification, in the order sent, off the
	// read loop. params is nil when the notification has none. It must
	// not block: a request's response is returned only after the
	// notifications the server sent before it were handled, so what a
	// server sends during a request reaches its handler before the answer.
	Notification func(method string, params json.RawMessage)
	// Request answers a server→client request; each runs in a goroutine
	// of its own, with a ctx that ends when the server cancels the request
	// (notifications/cancelled) or the connection ends. An *RPCError picks
	// the error answered; any other error is answered as -32603.
	Request func(ctx context.Context, req ServerRequest) (json.RawMessage, error)
}

// ServerRequest is a request the server sent to the client.
type ServerRequest struct {
	// Method and Params are the request's; Params is nil when it has none,
	// and has the transport's related-request mark taken out.
	Method string
	Params json.RawMessage
	// Related is the id (as JSON, e.g. "plughost-7" quoted) of the host's
	// request during which the server sent this one, when the transport
	// said (pluginapi.RelatedRequestMetaKey); empty otherwise.
	Related string
}

// Request is a request the host sends to the server.
type Request struct {
	// Method and Params (raw JSON, nil for none) are the request's.
	Method string
	Params json.RawMessage
	// OnID, when set, is called with the request's JSON-RPC id (as JSON,
	// e.g. "plughost-7" quoted) before it is sent, so the caller can
	// recognise the server requests related to it (ServerRequest.Related).
	OnID func(id string)
}

// RPCError is a JSON-RPC error: a server's error answer to a request
// (Request returns it as is), or the error a raw request handler answers
// with.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code) }

// New returns an Endpoint over conn. Start must be called before use.
func New(conn Conn, logger hclog.Logger) *Endpoint {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Endpoint{
		conn:          conn,
		logger:        logger,
		ctx:           ctx,
		stop:          stop,
		pending:       make(map[string]chan reply),
		serving:       make(map[string]context.CancelFunc),
		ended:         make(chan struct{}),
		notifications: make(chan notification, notificationQueue),
	}
}

// Start launches the read loop and the notification dispatcher. It is idempotent.
func (t *Endpoint) Start(context.Context) error {
	t.startOnce.Do(func() {
		go t.readLoop()
		go t.dispatchNotifications()
	})
	return nil
}

// Done is closed when the connection has ended; Err then says why.
func (t *Endpoint) Done() <-chan struct{} { return t.ended }

// Err returns why the connection ended, or nil while it is up.
func (t *Endpoint) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endErr
}

// SendRequest sends request and waits for its response, ctx's end, or the
// connection's end (whose error it returns, so a crash fails in-flight calls).
func (t *Endpoint) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	msg, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encode request %s: %w", request.Method, err)
	}
	key, err := idKey(request.ID)
	if err != nil {
		return nil, err
	}
	r, err := t.exchange(ctx, key, msg)
	if err != nil {
		return nil, err
	}
	var id mcp.RequestId
	_ = json.Unmarshal(r.id, &id) // the id it was sent with: it decodes
	return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: r.result, Error: r.err}, nil
}

// exchange sends msg, a request whose id encodes as key, and waits for its
// response; the notifications the server sent before the response are
// handled first.
func (t *Endpoint) exchange(ctx context.Context, key string, msg []byte) (reply, error) {
	ch := make(chan reply, 1)
	if err := t.addPending(key, ch); err != nil {
		return reply{}, err
	}
	defer t.removePending(key)
	if err := t.conn.Send(ctx, msg); err != nil {
		return reply{}, t.betterError(err)
	}
	select {
	case r := <-ch:
		t.waitDispatched(ctx, r.after)
		return r, nil
	case <-ctx.Done():
		return reply{}, ctx.Err()
	case <-t.ended:
		return reply{}, t.Err()
	}
}

// waitDispatched returns once notification seq was handled (or ctx
// ended), when a notification handler is set (RawHandlers.Notification,
// which must not block).
func (t *Endpoint) waitDispatched(ctx context.Context, seq uint64) {
	for {
		t.mu.Lock()
		if t.dispatched >= seq || t.onRaw.Notification == nil {
			t.mu.Unlock()
			return
		}
		if t.dispatchWake == nil {
			t.dispatchWake = make(chan struct{})
		}
		wake := t.dispatchWake
		t.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return
		}
	}
}

// Request sends a request for method with params (raw JSON, sent as is; nil
// for none) under an id of its own and returns the raw "result" of the
// response, which the caller owns. A JSON-RPC error answer is returned as an
// *RPCError, code, message and data as the server sent them. When ctx ends
// before the response, the server is sent notifications/cancelled.
func (t *Endpoint) Request(ctx context.Context, r Request) (json.RawMessage, error) {
	method, params := r.Method, r.Params
	id := "plughost-" + strconv.FormatUint(t.lastID.Add(1), 10)
	key := strconv.Quote(id)
	m, _ := json.Marshal(method) // a string always encodes
	msg := make([]byte, 0, len(params)+len(method)+len(key)+48)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, key...)
	msg = append(msg, `,"method":`...)
	msg = append(msg, m...)
	if len(params) > 0 {
		msg = append(msg, `,"params":`...)
		msg = append(msg, params...)
	}
	msg = append(msg, '}')
	if r.OnID != nil {
		r.OnID(key)
	}
	answer, err := t.exchange(ctx, key, msg)
	if err != nil {
		if ctx.Err() != nil {
			t.cancel(mcp.NewRequestId(id), ctx.Err())
		}
		return nil, err
	}
	if answer.err != nil {
		return nil, rpcErrorOf(answer.err)
	}
	return answer.result, nil
}

// takeRelated takes the transport's related-request mark out of a server
// request's params: the id, and the params as the server sent them.
func takeRelated(params json.RawMessage) (string, json.RawMessage, bool) {
	start, end, ok := rawjson.Member(params, "_meta", pluginapi.RelatedRequestMetaKey)
	if !ok {
		return "", params, false
	}
	id := string(bytes.TrimSpace(params[start:end]))
	out, _ := rawjson.Delete(params, "_meta", pluginapi.RelatedRequestMetaKey)
	if ms, me, ok := rawjson.Member(out, "_meta"); ok && isEmptyObject(out[ms:me]) {
		out, _ = rawjson.Delete(out, "_meta")
	}
	return id, out, true
}

func isEmptyObject(b []byte) bool {
	empty := true
	ok := rawjson.ScanMembers(rawjson.View(b), func(string, int, int) bool { empty = false; return true })
	return ok && empty
}

// rpcErrorOf is the *RPCError of an error answer.
func rpcErrorOf(d *mcp.JSONRPCErrorDetails) *RPCError {
	e := &RPCError{Code: d.Code, Message: d.Message}
	if d.Data != nil {
		e.Data, _ = json.Marshal(d.Data) // decoded from JSON: it encodes
	}
	return e
}

// cancelGrace bounds the send of a notifications/cancelled.
const cancelGrace = time.Second

// cancel tells the server to stop working on request id.
func (t *Endpoint) cancel(id mcp.RequestId, why error) {
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
func (t *Endpoint) betterError(sendErr error) error {
	select {
	case <-t.ended:
		return t.Err()
	default:
		return sendErr
	}
}

func (t *Endpoint) addPending(key string, ch chan reply) error {
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

func (t *Endpoint) removePending(key string) {
	t.mu.Lock()
	delete(t.pending, key)
	t.mu.Unlock()
}

// SendNotification sends a notification to the server.
func (t *Endpoint) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	msg, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode notification %s: %w", n.Method, err)
	}
	if err := t.conn.Send(ctx, msg); err != nil {
		return t.betterError(err)
	}
	return nil
}

// SetRawHandlers sets handlers that receive the server's notifications and
// requests as raw JSON. Until they are set, notifications are dropped and
// requests answered -32601 (method not found).
func (t *Endpoint) SetRawHandlers(h RawHandlers) {
	t.mu.Lock()
	t.onRaw = h
	t.mu.Unlock()
}

// Close closes the connection and fails every pending call.
func (t *Endpoint) Close() error {
	t.finish(ErrClosed)
	err := t.conn.Close()
	t.stop()
	return err
}

// finish records why the connection ended (first reason wins) and wakes
// everyone waiting. It reports whether this call was the first.
func (t *Endpoint) finish(reason error) bool {
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
	Params json.RawMessage
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
		case "params":
			env.Params = v
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

func (t *Endpoint) readLoop() {
	for {
		msg, err := t.conn.Recv(t.ctx)
		if err == nil {
			err = t.route(msg)
		}
		if err != nil {
			t.finish(err)
			close(t.notifications)
			return
		}
	}
}

// route passes one message on: a response to its caller, a notification
// to the dispatcher, a request to a handler of its own. What the server
// sends on its own goes through the flood limit first; an error ends the
// connection.
func (t *Endpoint) route(msg json.RawMessage) error {
	env, err := parseEnvelope(msg)
	if err != nil {
		t.logger.Warn("dropping malformed message from server", "error", err, "bytes", len(msg))
		return nil
	}
	hasID := len(env.ID) > 0 && !bytes.Equal(env.ID, []byte("null"))
	if env.Method != "" {
		if err := t.meter(); err != nil {
			return err
		}
	}
	switch {
	case env.Method != "" && hasID:
		t.startServing(env)
	case env.Method != "":
		if env.Method == string(mcp.MethodNotificationCancelled) {
			t.stopServing(env.Params)
		}
		t.queued++
		t.notifications <- notification{seq: t.queued, method: env.Method, params: env.Params}
	case hasID:
		t.deliver(env)
	default:
		t.logger.Warn("dropping message that is neither request, response nor notification", "bytes", len(msg))
	}
	return nil
}

func (t *Endpoint) deliver(env envelope) {
	id := bytes.TrimSpace(env.ID)
	t.mu.Lock()
	ch := t.pending[string(id)] // looked up without a copy of the id
	t.mu.Unlock()
	if ch == nil {
		t.logger.Debug("response for unknown or abandoned request", "id", string(id))
		return
	}
	ch <- reply{id: id, result: env.Result, err: env.Error, after: t.queued}
}

func (t *Endpoint) dispatchNotifications() {
	for n := range t.notifications {
		t.mu.Lock()
		raw := t.onRaw.Notification
		t.mu.Unlock()
		if raw != nil {
			raw(n.method, n.params)
		}
		t.mu.Lock()
		t.dispatched = n.seq
		if t.dispatchWake != nil {
			close(t.dispatchWake)
			t.dispatchWake = nil
		}
		t.mu.Unlock()
	}
}

// startServing answers a server→client request in a goroutine of its own,
// with the raw handler (-32601 when none is set).
func (t *Endpoint) startServing(env envelope) {
	t.mu.Lock()
	raw := t.onRaw.Request
	if raw == nil {
		t.mu.Unlock()
		go t.answer(env.ID, env.Method, nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: "client does not handle " + env.Method})
		return
	}
	key := string(bytes.TrimSpace(env.ID))
	ctx, cancel := context.WithCancel(t.ctx)
	req := ServerRequest{Method: env.Method, Params: env.Params}
	if related, params, ok := takeRelated(env.Params); ok {
		req.Related, req.Params = related, params
	}
	if prev := t.serving[key]; prev != nil {
		prev() // the server reused an id: the older request is abandoned
	}
	t.serving[key] = cancel
	t.mu.Unlock()
	go func() {
		defer func() {
			t.mu.Lock()
			if t.serving[key] != nil {
				delete(t.serving, key)
			}
			t.mu.Unlock()
			cancel()
		}()
		result, err := raw(ctx, req)
		t.answer(env.ID, env.Method, result, err)
	}()
}

// stopServing cancels the server request a notifications/cancelled names.
func (t *Endpoint) stopServing(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	t.mu.Lock()
	cancel := t.serving[string(bytes.TrimSpace(p.RequestID))]
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answer sends the response to server request id: result, or err as a
// JSON-RPC error.
func (t *Endpoint) answer(id json.RawMessage, method string, result json.RawMessage, err error) {
	var out []byte
	if err == nil {
		if len(result) == 0 {
			result = json.RawMessage("{}")
		}
		out = make([]byte, 0, len(id)+len(result)+36)
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, id...)
		out = append(out, `,"result":`...)
		out = append(out, result...)
		out = append(out, '}')
	} else {
		var re *RPCError
		if !errors.As(err, &re) {
			re = &RPCError{Code: mcp.INTERNAL_ERROR, Message: err.Error()}
		}
		out, err = json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *RPCError       `json:"error"`
		}{mcp.JSONRPC_VERSION, id, re})
		if err != nil {
			t.logger.Warn("cannot encode the answer to a server request", "method", method, "error", err)
			return
		}
	}
	if err := t.conn.Send(t.ctx, out); err != nil {
		t.logger.Debug("cannot answer server request", "method", method, "error", err)
	}
}

func idKey(id mcp.RequestId) (string, error) {
	b, err := json.Marshal(id)
	if err != nil {
		return "", fmt.Errorf("encode request id: %w", err)
	}
	return string(b), nil
}
