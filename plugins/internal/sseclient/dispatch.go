package sseclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// answerTimeout bounds POSTing the answer to a server request once the
// handler returned (or the stream ended).
const answerTimeout = 30 * time.Second

// envelope is what routes a message: a request has a method and an id, a
// notification a method only, a response an id only.
type envelope struct {
	ID     json.RawMessage          `json:"id"`
	Method string                   `json:"method"`
	Params json.RawMessage          `json:"params"`
	Result json.RawMessage          `json:"result"`
	Error  *mcp.JSONRPCErrorDetails `json:"error"`
}

// dispatch routes one message of the stream.
func (t *Transport) dispatch(ctx context.Context, data []byte) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		t.opts.Logger.Warn("dropping a message of the SSE stream that is not a JSON-RPC object", "error", err)
		return
	}
	var id mcp.RequestId
	hasID := len(env.ID) > 0 && string(env.ID) != "null"
	if hasID {
		if err := json.Unmarshal(env.ID, &id); err != nil {
			t.opts.Logger.Warn("dropping a message of the SSE stream whose id is neither a string nor a number", "id", string(env.ID))
			return
		}
	}
	switch {
	case env.Method != "" && hasID:
		t.request(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: env.Method, Params: paramsOf(env)})
	case env.Method != "":
		t.notification(data, env.Method)
	case hasID:
		t.response(&transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: env.Result, Error: env.Error})
	default:
		t.opts.Logger.Warn("dropping a message of the SSE stream with neither a method nor an id")
	}
}

// paramsOf keeps a request's params as the server wrote them (nil when
// absent), so numbers and key order reach the handler unchanged.
func paramsOf(env envelope) any {
	if len(env.Params) == 0 || string(env.Params) == "null" {
		return nil
	}
	return env.Params
}

// notification hands a notification to the handler, in stream order.
func (t *Transport) notification(data []byte, method string) {
	var n mcp.JSONRPCNotification
	if err := json.Unmarshal(data, &n); err != nil {
		t.opts.Logger.Warn("dropping a notification of the SSE stream that cannot be decoded", "method", method, "error", err)
		return
	}
	t.mu.Lock()
	h := t.onNote
	t.mu.Unlock()
	if h != nil {
		h(n)
	}
}

// response hands a response to the request waiting for it.
func (t *Transport) response(resp *transport.JSONRPCResponse) {
	key := resp.ID.String()
	t.mu.Lock()
	ch := t.pending[key]
	delete(t.pending, key)
	t.mu.Unlock()
	if ch == nil {
		t.opts.Logger.Debug("dropping a response nobody waits for (its request ended)", "id", resp.ID.Value())
		return
	}
	ch <- resp
}

// request runs the request handler for a server request in a goroutine of
// its own and POSTs its answer: the handler's response, or an error
// response saying why there is none, so the server never waits in vain.
// At most Options.MaxServerRequests are handled at once; one past it is
// answered with an error at once.
func (t *Transport) request(ctx context.Context, req transport.JSONRPCRequest) {
	t.mu.Lock()
	h := t.onReq
	t.mu.Unlock()
	release := func() { <-t.slots }
	select {
	case t.slots <- struct{}{}:
	default:
		release = func() {}
		h = func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
			return nil, fmt.Errorf("%d of the server's requests are already waiting for an answer", cap(t.slots))
		}
	}
	t.workers.Add(1) // the stream's reader, a worker itself, is the caller: Close cannot be past Wait
	go func() {
		defer t.workers.Done()
		resp := t.handle(ctx, h, req)
		release()
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
		defer cancel()
		switch err := t.post(actx, resp, nil); {
		case errors.Is(err, transport.ErrTransportClosed):
			t.opts.Logger.Debug("not answering a server request: the transport was closed", "method", req.Method, "id", req.ID.Value())
		case err != nil:
			t.opts.Logger.Warn("the answer to a server request could not be sent", "method", req.Method, "id", req.ID.Value(), "error", err)
		}
	}()
}

// handle runs h for req and returns the response to send.
func (t *Transport) handle(ctx context.Context, h transport.RequestHandler, req transport.JSONRPCRequest) *transport.JSONRPCResponse {
	if h == nil {
		t.opts.Logger.Warn("answering a server request with an error: this client takes no requests", "method", req.Method, "id", req.ID.Value())
		return errorResponse(req.ID, mcp.METHOD_NOT_FOUND, fmt.Sprintf("the client does not handle %s", req.Method))
	}
	resp, err := h(ctx, req)
	switch {
	case err != nil:
		t.opts.Logger.Warn("answering a server request with an error: it could not be relayed", "method", req.Method, "id", req.ID.Value(), "error", err)
		return errorResponse(req.ID, mcp.INTERNAL_ERROR, fmt.Sprintf("the client could not answer %s: %v", req.Method, err))
	case resp == nil:
		t.opts.Logger.Warn("answering a server request with an error: the client gave no answer", "method", req.Method, "id", req.ID.Value())
		return errorResponse(req.ID, mcp.INTERNAL_ERROR, fmt.Sprintf("the client gave no answer to %s", req.Method))
	}
	resp.JSONRPC, resp.ID = mcp.JSONRPC_VERSION, req.ID
	if resp.Error == nil && len(resp.Result) == 0 {
		resp.Result = json.RawMessage("{}")
	}
	return resp
}

func errorResponse(id mcp.RequestId, code int, msg string) *transport.JSONRPCResponse {
	return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &mcp.JSONRPCErrorDetails{Code: code, Message: msg}}
}
