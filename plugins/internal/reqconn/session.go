package reqconn

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// session is one started transport. The fields after tr are guarded by conn.mu.
type session struct {
	tr transport.Interface
	// cancel ends the context Start was given: the legacy SSE transport reads
	// its stream, and a listening streamable HTTP transport its GET, under it.
	cancel    context.CancelFunc
	closeOnce sync.Once
	closeErr  error

	refs    int  // calls using tr right now
	retired bool // replaced by a newer session: close once refs is 0
}

// close closes the transport and ends its Start context. Idempotent.
func (s *session) close() error {
	s.closeOnce.Do(func() {
		s.closeErr = s.tr.Close()
		s.cancel()
	})
	return s.closeErr
}

// connectionLoser is implemented by transports that report the end of a
// long-lived connection (the legacy SSE transport: the GET stream).
type connectionLoser interface {
	SetConnectionLostHandler(func(error))
}

// startSession makes a transport, wires its handlers and starts it. ctx
// bounds the start; the transport itself lives until the session is closed,
// so Start gets a context derived from the connection's, not ctx.
func (c *conn) startSession(ctx context.Context) (*session, error) {
	tr, err := c.factory()
	if err != nil {
		return nil, fmt.Errorf("create transport: %w", err)
	}
	if tr == nil {
		return nil, pluginapi.Errorf("open", pluginapi.KindInternal, "transport factory returned nil")
	}
	sctx, cancel := context.WithCancel(c.ctx)
	s := &session{tr: tr, cancel: cancel}
	c.wire(s)
	stop := context.AfterFunc(ctx, cancel)
	err = tr.Start(sctx)
	if !stop() { // ctx ended during Start, which may have left it half started
		s.close()
		return nil, fmt.Errorf("start transport: %w", context.Cause(ctx))
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("start transport: %w", err)
	}
	return s, nil
}

// wire points the transport's callbacks at the connection. They are set
// before Start so that nothing the server sends early is lost.
func (c *conn) wire(s *session) {
	s.tr.SetNotificationHandler(c.serverNotification)
	if bi, ok := s.tr.(transport.BidirectionalInterface); ok {
		bi.SetRequestHandler(c.serverRequest)
	}
	if cl, ok := s.tr.(connectionLoser); ok {
		cl.SetConnectionLostHandler(func(err error) { c.lost(s, err) })
	}
}

// lost ends the connection when the current session's long-lived
// connection breaks: the legacy SSE transport does not reconnect.
func (c *conn) lost(s *session, err error) {
	c.mu.Lock()
	current := c.cur == s
	c.mu.Unlock()
	if !current {
		return
	}
	c.fail(pluginapi.Errorf("recv", pluginapi.KindServerExited, "the connection to the server was lost: %s", describe(err)))
}

// acquire returns the current session, counted as in use, or nil once the
// connection has ended. Every acquire is paired with a release.
func (c *conn) acquire() *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() || c.endErr != nil || c.cur == nil {
		return nil
	}
	c.cur.refs++
	return c.cur
}

// release ends a use of s, closing s if it was retired and this was the last.
func (c *conn) release(s *session) {
	c.mu.Lock()
	s.refs--
	last := s.retired && s.refs == 0
	if last {
		_, last = c.sessions[s]
		delete(c.sessions, s)
	}
	c.mu.Unlock()
	if last {
		c.closeRetired(s)
	}
}

func (c *conn) closeRetired(s *session) {
	if err := s.close(); err != nil {
		c.log.Debug("closing the previous session's transport failed", "error", err)
	}
}

// handshake is the host's initialize request, kept to replay it on a new session.
type handshake struct {
	id      mcp.RequestId
	params  json.RawMessage
	version string // protocol version the server chose, once known
}

// negotiated records the protocol version of an initialize result and hands
// it to an HTTP transport, which sends it in the MCP-Protocol-Version header
// (mcp-go's client does that itself, but here the client is in the host).
func (c *conn) negotiated(s *session, result json.RawMessage) {
	v := protocolVersion(result)
	if v == "" {
		return
	}
	if hc, ok := s.tr.(transport.HTTPConnection); ok {
		hc.SetProtocolVersion(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handshake == nil {
		return
	}
	if prev := c.handshake.version; prev != "" && prev != v {
		c.log.Warn("the new session uses another protocol version than the host negotiated", "was", prev, "now", v)
		return
	}
	c.handshake.version = v
}
