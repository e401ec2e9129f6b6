package reqconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// errCanceledByHost is the cause of a request cancelled by notifications/cancelled.
var errCanceledByHost = errors.New("cancelled by the host")

// call is one host request in flight.
type call struct {
	key string
	id  json.RawMessage // the host's id, byte for byte
	req transport.JSONRPCRequest
	// ctx lives as long as the connection, with the deadline the message
	// carried; cancel ends it with a cause (errCanceledByHost, …).
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// startCall registers a host request and sends it from a goroutine of its own.
func (c *conn) startCall(ctx context.Context, m message) error {
	cl := c.newCall(ctx, m)
	c.mu.Lock()
	if c.closed.Load() || c.endErr != nil {
		c.mu.Unlock()
		cl.cancel(nil)
		return c.endError("send")
	}
	if _, dup := c.calls[cl.key]; dup {
		c.mu.Unlock()
		cl.cancel(nil)
		return pluginapi.Errorf("send", pluginapi.KindInternal, "request id %s is already in flight", m.id)
	}
	c.calls[cl.key] = cl
	if m.method == string(mcp.MethodInitialize) {
		c.handshake = &handshake{id: m.reqID, params: m.params}
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go c.run(cl)
	return nil
}

func (c *conn) newCall(ctx context.Context, m message) *call {
	cctx, cancelCause := context.WithCancelCause(c.ctx)
	cancel := cancelCause
	if dl, ok := ctx.Deadline(); ok {
		dctx, stop := context.WithDeadline(cctx, dl)
		cctx = dctx
		cancel = func(cause error) { cancelCause(cause); stop() }
	}
	cctx = context.WithValue(cctx, hostRequestKey{}, m.id)
	return &call{key: idKey(m.reqID), id: m.id, req: m.request(), ctx: cctx, cancel: cancel}
}

// hostRequestKey carries, in the context of a host request's call, the
// request's id as the host sent it: a server request made on that call's
// response stream gets it as its related request (see serverRequest).
type hostRequestKey struct{}

// run sends cl and queues its response. A request the server answered with
// HTTP 404 for the session was never processed: it is re-sent once, on a new
// session. Any other failure may have happened after the server got the
// request, so it is answered with an error and never re-sent.
func (c *conn) run(cl *call) {
	defer c.wg.Done()
	defer c.forget(cl)
	resent := false
	for {
		s := c.acquire()
		if s == nil {
			return // the connection ended; Recv reports it
		}
		resp, err := s.tr.SendRequest(cl.ctx, cl.req)
		c.release(s)
		switch {
		case errors.Is(context.Cause(cl.ctx), errCanceledByHost):
			// The host gave up on it and ignores whatever comes back.
			c.log.Debug("dropping the outcome of a request the host cancelled", "method", cl.req.Method, "id", string(cl.id))
		case err == nil && resp == nil:
			c.q.put(errorMessage(cl.id, mcp.INTERNAL_ERROR, pluginapi.KindInternal,
				fmt.Sprintf("the transport returned no response to %s", cl.req.Method)))
		case err == nil:
			if cl.req.Method == string(mcp.MethodInitialize) && resp.Error == nil {
				c.negotiated(s, resp.Result)
			}
			c.q.put(responseMessage(cl.id, resp))
		case cl.ctx.Err() != nil:
			c.interrupted(cl)
		case errors.Is(err, transport.ErrSessionTerminated) && !resent && cl.req.Method != string(mcp.MethodInitialize):
			c.log.Debug("the server does not know the session; re-sending on a new one", "method", cl.req.Method, "id", string(cl.id))
			if rerr := c.renew(cl.ctx, s); rerr != nil {
				c.renewFailed(cl, rerr)
				return
			}
			resent = true
			continue
		default:
			c.log.Warn("request failed in the transport", "method", cl.req.Method, "id", string(cl.id))
			c.log.Debug("transport failure", "method", cl.req.Method, "error", err)
			msg, known := failureMessage(cl, err)
			c.q.put(msg)
			if !known {
				c.checkAlive(err)
			}
		}
		return
	}
}

// forget removes cl from the calls in flight and releases its context.
func (c *conn) forget(cl *call) {
	c.mu.Lock()
	if c.calls[cl.key] == cl {
		delete(c.calls, cl.key)
	}
	c.mu.Unlock()
	cl.cancel(nil)
}

// interrupted answers a request whose context ended: a passed deadline gets
// an error response; a request cancelled by the end of the connection gets
// none (nobody waits for it).
func (c *conn) interrupted(cl *call) {
	if !errors.Is(context.Cause(cl.ctx), context.DeadlineExceeded) {
		return
	}
	c.q.put(errorMessage(cl.id, mcp.REQUEST_INTERRUPTED, pluginapi.KindTimeout,
		fmt.Sprintf("the deadline passed before the server answered %s; the server may or may not have processed it", cl.req.Method)))
}

// renewFailed answers a request that could not be re-sent on a new session.
func (c *conn) renewFailed(cl *call, err error) {
	if cl.ctx.Err() != nil {
		c.interrupted(cl)
		return
	}
	if c.down("send") != nil {
		return
	}
	c.q.put(errorMessage(cl.id, mcp.INTERNAL_ERROR, pluginapi.KindConnect,
		fmt.Sprintf("the server no longer knows the session (HTTP 404) and starting a new session failed: %s; %s was not processed",
			describe(err), cl.req.Method)))
}

// failureMessage describes a transport failure of cl, saying whether the
// server may have processed the request. known reports a failure that says
// the server answered (HTTP 401, 404, …) or a timeout, as opposed to one
// that may mean the server is gone.
func failureMessage(cl *call, err error) (msg json.RawMessage, known bool) {
	method := cl.req.Method
	var text string
	kind := pluginapi.KindConnect
	switch {
	case pluginapi.KindOf(err) == pluginapi.KindUnauthorized:
		// The host's credentials said why (the user must log in, …).
		var pe *pluginapi.Error
		errors.As(err, &pe)
		return errorMessage(cl.id, mcp.INTERNAL_ERROR, pluginapi.KindUnauthorized,
			fmt.Sprintf("%s was not processed: %s", method, describe(pe.Err))), true
	case pluginapi.KindOf(err) == pluginapi.KindMessageTooLarge:
		// The server answered: the answer, not the request, is what failed.
		return errorMessage(cl.id, mcp.INTERNAL_ERROR, pluginapi.KindMessageTooLarge, tooLargeText(method, err)), true
	case errors.Is(err, transport.ErrSessionTerminated):
		text = fmt.Sprintf("the server does not know the session (HTTP 404), even on a new session; %s was not processed", method)
	case errors.Is(err, transport.ErrLegacySSEServer):
		text = fmt.Sprintf("the server refused %s over streamable HTTP; it probably speaks only the legacy SSE transport (type \"sse\")", method)
	case errors.Is(err, transport.ErrAuthorizationRequired), errors.Is(err, transport.ErrOAuthAuthorizationRequired), errors.Is(err, transport.ErrUnauthorized):
		text = fmt.Sprintf("the server requires authorization (HTTP 401); %s was not processed", method)
	case errors.Is(err, context.DeadlineExceeded):
		kind = pluginapi.KindTimeout
		text = fmt.Sprintf("the transport timed out waiting for the response to %s; the server may or may not have processed it: %s", method, describe(err))
	default:
		text = fmt.Sprintf("transport failure during %s; the server may or may not have processed it, so it was not retried: %s", method, describe(err))
		return errorMessage(cl.id, mcp.INTERNAL_ERROR, kind, text), false
	}
	return errorMessage(cl.id, mcp.INTERNAL_ERROR, kind, text), true
}

// tooLargeText says that the server processed method but its answer was
// over a size limit: the limit, and the setting that raises it when the
// error names one (a result over max_result_mb).
func tooLargeText(method string, err error) string {
	var tooLarge *pluginapi.MessageTooLargeError
	if !errors.As(err, &tooLarge) {
		return fmt.Sprintf("the server processed %s, but its answer was too large to read: %s", method, describe(err))
	}
	what := tooLarge.What
	if what != "result" {
		what = "message"
	}
	text := fmt.Sprintf("the server processed %s, but its answer was larger than the %s limit on one %s (refused after %d bytes) and was not read",
		method, pluginapi.FormatBytes(tooLarge.Limit), what, tooLarge.Seen)
	if tooLarge.Setting != "" {
		text += fmt.Sprintf("; raise %s to accept larger %ss", tooLarge.Setting, what)
	}
	return text
}

// cancelCall cancels the in-flight request a notifications/cancelled names,
// which aborts its HTTP request.
func (c *conn) cancelCall(m message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(m.params, &p); err != nil || nonNull(p.RequestID) == nil {
		c.log.Debug("notifications/cancelled without a usable requestId")
		return
	}
	var id mcp.RequestId
	if err := json.Unmarshal(p.RequestID, &id); err != nil {
		c.log.Debug("notifications/cancelled with an invalid requestId")
		return
	}
	c.mu.Lock()
	cl := c.calls[idKey(id)]
	c.mu.Unlock()
	if cl != nil {
		cl.cancel(errCanceledByHost)
	}
}
