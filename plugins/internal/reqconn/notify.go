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

// notify delivers a host notification to the server within ctx.
// notifications/cancelled first cancels the request it names, then is
// forwarded too, since servers on older transports expect it. A notification
// the server rejects with HTTP 404 for the session is re-sent once on a new
// session, except the two that only make sense on the old one (cancelled,
// whose request is gone, and initialized, which the replay already sent).
func (c *conn) notify(ctx context.Context, m message) error {
	cancelled := m.method == string(mcp.MethodNotificationCancelled)
	if cancelled {
		c.cancelCall(m)
	}
	n, err := m.notification()
	if err != nil {
		return pluginapi.Errorf("send", pluginapi.KindInternal, "%w", err)
	}
	retry := !cancelled && m.method != string(mcp.MethodNotificationInitialized)
	for {
		s := c.acquire()
		if s == nil {
			return c.endError("send")
		}
		err := s.tr.SendNotification(ctx, n)
		c.release(s)
		if err == nil {
			return nil
		}
		if retry && errors.Is(err, transport.ErrSessionTerminated) && ctx.Err() == nil {
			retry = false
			if c.renew(ctx, s) == nil {
				continue
			}
		}
		return c.notifyError(ctx, m.method, err)
	}
}

func (c *conn) notifyError(ctx context.Context, method string, err error) error {
	if ctx.Err() != nil {
		return ctxError("send", ctx.Err())
	}
	if down := c.down("send"); down != nil {
		return down
	}
	c.log.Debug("notification failed in the transport", "method", method, "error", err)
	return pluginapi.Errorf("send", pluginapi.KindConnect, "send %s to the server: %s", method, describe(err))
}

// serverNotification queues a notification from the server for Recv; it
// waits while too many are queued (see queue).
func (c *conn) serverNotification(n mcp.JSONRPCNotification) {
	msg, err := serverNotificationMessage(n)
	if err != nil {
		c.log.Warn("dropping a server notification that cannot be encoded", "method", n.Method, "error", err)
		return
	}
	if !c.q.putNotification(c.ended, msg) {
		c.log.Debug("dropping a server notification: the connection ended", "method", n.Method)
	}
}

// serverRequest hands a server→client request to the host and waits for the
// host's response (sent back through Send), ctx's end or the connection's.
func (c *conn) serverRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	req.JSONRPC = mcp.JSONRPC_VERSION
	if id, ok := ctx.Value(hostRequestKey{}).(json.RawMessage); ok {
		req.Params = withRelatedRequest(req.Params, id)
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode server request %s: %w", req.Method, err)
	}
	key := idKey(req.ID)
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	if c.closed.Load() || c.endErr != nil {
		c.mu.Unlock()
		return nil, errClosed
	}
	if _, dup := c.waiting[key]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("server request id %s is already waiting for the host", req.ID.String())
	}
	c.waiting[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, key)
		c.mu.Unlock()
	}()

	c.q.put(msg)
	select {
	case raw := <-ch:
		return hostResponse(req.ID, raw)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ended:
		return nil, errClosed
	}
}

// answerServer hands the host's response to the server request waiting for it.
func (c *conn) answerServer(m message) {
	key := idKey(m.reqID)
	c.mu.Lock()
	ch := c.waiting[key]
	delete(c.waiting, key)
	c.mu.Unlock()
	if ch == nil {
		c.log.Debug("dropping a response to a server request nobody waits for", "id", string(m.id))
		return
	}
	ch <- m.raw
}

// withRelatedRequest marks a server request's params as made during the
// host request id (pluginapi.RelatedRequestMetaKey). Params that are not an
// object are left alone.
func withRelatedRequest(params any, id json.RawMessage) any {
	var p map[string]any
	switch v := params.(type) {
	case nil:
		p = map[string]any{}
	case map[string]any:
		p = v
	default:
		return params
	}
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		if _, set := p["_meta"]; set {
			return params // a _meta that is not an object: leave it as the server sent it
		}
		meta = map[string]any{}
	}
	meta[pluginapi.RelatedRequestMetaKey] = id
	p["_meta"] = meta
	return p
}
