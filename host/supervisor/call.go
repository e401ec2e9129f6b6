package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/pluginapi"
)

// ErrNotConnected is wrapped by Call's error when the server has no live connection.
var ErrNotConnected = errors.New("server is not connected")

// ToolCall is one tools/call request.
type ToolCall struct {
	// Tool is the server's own tool name.
	Tool string
	// Args are the arguments (raw JSON or any value that encodes).
	Args any
	// Meta is the request's _meta as the server gets it (a progress token,
	// …); nil for none.
	Meta json.RawMessage
	// OnID, when set, is called with the request's JSON-RPC id before it
	// is sent (see Request.OnID).
	OnID func(id string)
}

// CallTool runs a tool on the server and decodes its result leanly (see
// callresult.Decode). A tool's own failure is a result with IsError set; an error means the call could not be made or
// completed: the server is down, it crashed mid-call (then it is being
// restarted), or the call timed out (then the server was told to cancel
// it).
func (s *Server) CallTool(ctx context.Context, c ToolCall) (callresult.Result, error) {
	conn, limit, err := s.liveConnection()
	if err != nil {
		return callresult.Result{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := callTool(callCtx, conn, c)
	if err != nil {
		return callresult.Result{}, s.requestError(ctx, callCtx, fmt.Sprintf("tool %q", c.Tool), limit, maskAnswerError(s.spec.Masker, err))
	}
	return res, nil
}

// requestError explains why a request (what names it) failed: the caller
// cancelled it, it timed out (the server was told to cancel), the message
// was too large, the server wrote junk on its stdout, the server crashed, or the server's own error answer
// (an *RPCError, wrapped: errors.As finds it).
func (s *Server) requestError(ctx, callCtx context.Context, what string, limit time.Duration, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("server %q: %s: cancelled by the caller: %w", s.spec.Name, what, ctx.Err())
	case callCtx.Err() != nil || deadlinePassed(callCtx):
		return fmt.Errorf("server %q: %s: no result within %s (raise timeouts.call_seconds to wait longer); the server was asked to cancel: %w",
			s.spec.Name, what, limit, callCtx.Err())
	}
	switch pluginapi.KindOf(err) {
	case pluginapi.KindMessageTooLarge:
		return fmt.Errorf("server %q: %s: %w; the server is being restarted", s.spec.Name, what, s.withLimitHint(err))
	case pluginapi.KindBadOutput:
		return fmt.Errorf("server %q: %s: %w; the server is being restarted", s.spec.Name, what, err)
	case pluginapi.KindServerExited, pluginapi.KindPluginExited:
		return fmt.Errorf("server %q crashed during %s and is being restarted: %w", s.spec.Name, what, err)
	}
	return fmt.Errorf("server %q: %s: %w", s.spec.Name, what, err)
}

// callParams are the params of a tools/call request.
type callParams struct {
	Name      string          `json:"name"`
	Arguments any             `json:"arguments,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// encode returns the params as JSON; raw arguments and _meta are written as
// they are, byte for byte.
func (c ToolCall) encode() (json.RawMessage, error) {
	args, raw := c.Args.(json.RawMessage)
	if !raw || len(args) == 0 {
		b, err := json.Marshal(callParams{Name: c.Tool, Arguments: c.Args, Meta: c.Meta})
		if err != nil {
			return nil, fmt.Errorf("encode the arguments of %q: %w", c.Tool, err)
		}
		return b, nil
	}
	name, _ := json.Marshal(c.Tool) // a string always encodes
	out := make([]byte, 0, len(name)+len(args)+len(c.Meta)+32)
	out = append(out, `{"name":`...)
	out = append(out, name...)
	out = append(out, `,"arguments":`...)
	out = append(out, args...)
	if len(c.Meta) > 0 {
		out = append(out, `,"_meta":`...)
		out = append(out, c.Meta...)
	}
	return append(out, '}'), nil
}

// callTool sends a raw tools/call and decodes its result leanly: the text of
// a large result is decoded into the message's own buffer, never copied (see
// callresult), where mcp-go's client would decode it through several
// generic copies. A JSON-RPC error answer is an *RPCError.
func callTool(ctx context.Context, conn *connection, c ToolCall) (callresult.Result, error) {
	params, err := c.encode()
	if err != nil {
		return callresult.Result{}, err
	}
	raw, err := conn.transport.Request(ctx, Request{Method: string(mcp.MethodToolsCall), Params: params, OnID: c.OnID})
	if err != nil {
		return callresult.Result{}, err
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
