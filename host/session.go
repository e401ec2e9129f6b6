package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/registry"
)

// Session is one agent conversation's view of the host: the tools it sees and
// the calls it makes. Sessions are independent of each other; a Session is
// safe for concurrent use.
type Session struct {
	h *Host
}

// NewSession starts a session.
func (h *Host) NewSession() *Session { return &Session{h: h} }

// Tools returns the tools this session's model sees, sorted by name so the
// list is stable across turns (prompt caches survive).
func (s *Session) Tools() []registry.Tool { return s.h.registry.Snapshot().Tools() }

// EndTurn marks the end of one conversational turn. Turns age the tools a
// session unlocked through discovery search; until discovery lands (issue 4)
// every tool is visible and there is nothing to age.
func (s *Session) EndTurn() {}

// Close ends the session.
func (s *Session) Close() error { return nil }

// UnknownToolError is returned for a tool name that no server provides.
type UnknownToolError struct {
	Name    string
	Closest []string
}

// Error implements error.
func (e *UnknownToolError) Error() string {
	if len(e.Closest) == 0 {
		return fmt.Sprintf("unknown tool %q: no MCP tools are available (check `plughost mcp list`)", e.Name)
	}
	return fmt.Sprintf("unknown tool %q; closest names: %s", e.Name, strings.Join(e.Closest, ", "))
}

// Call runs the tool with agent-facing name with args (a JSON object; empty
// means {}). A tool's own failure is a result with IsError set; an error means
// the call could not be made: unknown tool, server down, crash or timeout.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	snap := s.h.registry.Snapshot()
	tool, ok := snap.Lookup(name)
	if !ok {
		return nil, &UnknownToolError{Name: name, Closest: snap.Closest(name, 3)}
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, fmt.Errorf("tool %q: arguments must be a JSON object, like {\"key\": \"value\"}", name)
	}
	srv, ok := s.h.servers[tool.Server]
	if !ok {
		return nil, fmt.Errorf("tool %q: server %q is not running", name, tool.Server)
	}
	return srv.Call(ctx, tool.ServerTool, args)
}
