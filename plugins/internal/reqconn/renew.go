package reqconn

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/pluginapi"
)

// renewal is one attempt to replace a session the server forgot. Every
// request that fails on that session while it runs waits for the same one.
type renewal struct {
	done chan struct{}
	err  error // set before done closes
}

// renew makes sure the session that failed is no longer current: it starts a
// new session, or waits for the one already starting, or returns at once if
// another request already replaced it. It runs detached from any one
// request (under SessionTimeout) so a request giving up does not abort the
// others' recovery; ctx bounds only the wait.
//
// A failed attempt leaves the old session in place: the next request that
// fails on it tries again, so the connection recovers once the server is
// back. Only when the new session could not reach the server at all does
// the connection end (KindServerExited), as after a failed probe: the
// host's supervisor then reconnects with backoff.
func (c *conn) renew(ctx context.Context, failed *session) error {
	c.mu.Lock()
	if c.closed.Load() || c.endErr != nil {
		c.mu.Unlock()
		return errClosed
	}
	if c.cur != failed {
		c.mu.Unlock()
		return nil
	}
	r := c.renewal
	if r == nil {
		r = &renewal{done: make(chan struct{})}
		c.renewal = r
		c.wg.Add(1)
		go c.runRenewal(r)
	}
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (c *conn) runRenewal(r *renewal) {
	defer c.wg.Done()
	c.log.Info("the server no longer knows the session; starting a new one")
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.SessionTimeout)
	defer cancel()
	s, err := c.reestablish(ctx)
	if err != nil && unreachable(err) && c.ctx.Err() == nil {
		c.fail(pluginapi.Errorf("recv", pluginapi.KindServerExited,
			"the server no longer knows the session and cannot be reached to start a new one: %s", describe(err)))
	}

	var old *session
	c.mu.Lock()
	c.renewal = nil
	switch {
	case err != nil:
	case c.closed.Load() || c.endErr != nil:
		err = errClosed
	default:
		old = c.cur
		c.cur = s
		c.sessions[s] = struct{}{}
		old.retired = true
		if old.refs == 0 {
			delete(c.sessions, old)
		} else {
			old = nil // the last request using it closes it
		}
		s = nil
	}
	r.err = err
	close(r.done)
	c.mu.Unlock()

	if s != nil {
		s.close() // started, but the connection closed meanwhile
	}
	if old != nil {
		c.closeRetired(old)
	}
	if err != nil {
		// The error may quote an HTTP body: the details go to the requests'
		// error responses and to debug logs only.
		c.log.Warn("starting a new session failed; the requests that needed it get the reason")
		c.log.Debug("starting a new session failed", "error", err)
		return
	}
	c.log.Info("new session started; re-sending the requests it did not process")
}

// reestablish starts a new transport and replays the host's handshake on it:
// initialize with the host's original params (the response is swallowed:
// the host already has one), then notifications/initialized.
func (c *conn) reestablish(ctx context.Context) (*session, error) {
	c.mu.Lock()
	hs := c.handshake
	c.mu.Unlock()
	if hs == nil {
		return nil, errors.New("the host has not sent initialize, so there is nothing to replay")
	}
	s, err := c.startSession(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.replay(ctx, s, hs); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (c *conn) replay(ctx context.Context, s *session, hs *handshake) error {
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: hs.id, Method: string(mcp.MethodInitialize)}
	if hs.params != nil {
		req.Params = hs.params
	}
	resp, err := s.tr.SendRequest(ctx, req)
	if err != nil {
		return fmt.Errorf("replay initialize: %w", err)
	}
	if resp == nil {
		return errors.New("replay initialize: no response")
	}
	if resp.Error != nil {
		return fmt.Errorf("replay initialize: the server answered error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	c.negotiated(s, resp.Result)
	n := mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationInitialized)},
	}
	if err := s.tr.SendNotification(ctx, n); err != nil {
		return fmt.Errorf("replay notifications/initialized: %w", err)
	}
	return nil
}
