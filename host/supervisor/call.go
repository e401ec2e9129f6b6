package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/pluginapi"
)

// ErrNotConnected is wrapped by Call's error when the server has no live connection.
var ErrNotConnected = errors.New("server is not connected")

// Call runs tool with args on the server. A tool's own failure is a result with
// IsError set; an error means the call could not be made or completed: the
// server is down, it crashed mid-call (then it is being restarted), or the call
// timed out (then the server was told to cancel it).
func (s *Server) Call(ctx context.Context, tool string, args any) (*mcp.CallToolResult, error) {
	s.mu.RLock()
	sess, st, limit := s.live, s.status, s.spec.Timeouts.Call
	s.mu.RUnlock()
	if sess == nil {
		reason := ""
		if st.LastError != "" {
			reason = "; last error: " + st.LastError
		}
		return nil, fmt.Errorf("server %q (%s%s): %w", s.spec.Name, st.State, reason, ErrNotConnected)
	}
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := callTool(callCtx, sess, tool, args)
	if err == nil {
		return res, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("server %q: tool %q: cancelled by the caller: %w", s.spec.Name, tool, ctx.Err())
	case callCtx.Err() != nil || deadlinePassed(callCtx):
		return nil, fmt.Errorf("server %q: tool %q: no result within %s (raise timeouts.call_seconds to wait longer); the server was asked to cancel: %w",
			s.spec.Name, tool, limit, callCtx.Err())
	}
	switch pluginapi.KindOf(err) {
	case pluginapi.KindMessageTooLarge:
		return nil, fmt.Errorf("server %q: tool %q: %w; the server is being restarted", s.spec.Name, tool, s.withLimitHint(err))
	case pluginapi.KindServerExited, pluginapi.KindPluginExited:
		return nil, fmt.Errorf("server %q crashed during tool %q and is being restarted: %w", s.spec.Name, tool, err)
	}
	return nil, fmt.Errorf("server %q: tool %q: %w", s.spec.Name, tool, err)
}

// callParams are the params of a tools/call request.
type callParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

// callTool sends a raw tools/call and decodes its result leanly: the text of
// a large result is decoded into the message's own buffer, never copied (see
// callresult), where mcp-go's client would decode it through several
// generic copies.
func callTool(ctx context.Context, sess *session, tool string, args any) (*mcp.CallToolResult, error) {
	raw, err := sess.transport.Call(ctx, string(mcp.MethodToolsCall), callParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	return callresult.Decode(raw)
}

// deadlinePassed reports whether ctx's deadline is (all but) reached. The
// plugin works to the same deadline, so its "deadline passed" answer can
// arrive a moment before ctx itself is done; it is still this call's timeout.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < deadlineSlack
}

// deadlineSlack is how close to its deadline a failed call counts as timed out.
const deadlineSlack = 50 * time.Millisecond
