package reqconn

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// checkAlive tells a dropped connection from a server that is gone after a
// request failed in the transport. HTTP transports have no connection to
// watch, so it pings the server: a ping that cannot reach it at all (the
// server refuses connections, its name does not resolve, …) ends the
// connection with KindServerExited, and the host's supervisor reconnects
// with backoff. Any answer, even an HTTP error or a 404 for the session,
// means the server is there. At most one probe runs at a time.
func (c *conn) checkAlive(cause error) {
	c.mu.Lock()
	if c.probing || c.closed.Load() || c.endErr != nil {
		c.mu.Unlock()
		return
	}
	c.probing = true
	c.probes++
	id := mcp.NewRequestId(fmt.Sprintf("reqconn-probe-%d", c.probes))
	c.wg.Add(1)
	c.mu.Unlock()
	go c.probe(id, cause)
}

func (c *conn) probe(id mcp.RequestId, cause error) {
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		c.probing = false
		c.mu.Unlock()
	}()
	s := c.acquire()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.ProbeTimeout)
	_, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: string(mcp.MethodPing)})
	cancel()
	c.release(s)
	if c.ctx.Err() != nil || !unreachable(err) {
		return
	}
	c.fail(pluginapi.Errorf("recv", pluginapi.KindServerExited,
		"the server cannot be reached: %s (after a request failed with: %s)", describe(err), describe(cause)))
}

// unreachable reports whether err says the HTTP request could not be made
// or answered at all, as opposed to a timeout or an HTTP-level answer.
func unreachable(err error) bool {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) || pluginapi.KindOf(err) == pluginapi.KindUnauthorized {
		return false
	}
	return !ue.Timeout() && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// describe is err's message with the query and credentials of any URL in it
// removed: server URLs may carry API keys.
func describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && (u.RawQuery != "" || u.User != nil || u.Fragment != "") {
			u.RawQuery, u.User, u.Fragment = "", nil, ""
			msg = strings.ReplaceAll(msg, ue.URL, u.String())
		}
	}
	return msg
}
