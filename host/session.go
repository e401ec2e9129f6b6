package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/artifacts"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/host/shaping"
)

// Session is one agent conversation's view of the host: the tools its model
// sees (with discovery on: the search tools, pinned servers' tools, and what
// this session unlocked) and the calls it makes. Sessions never see each
// other's unlocks; a Session is safe for concurrent use.
type Session struct {
	h *Host
	d *discovery.Session
}

// NewSession starts a session.
func (h *Host) NewSession() *Session { return &Session{h: h, d: h.rules.NewSession()} }

// Tools returns the tools this session's model sees now, sorted by name so
// the list is stable across turns (prompt caches survive).
func (s *Session) Tools() []registry.Tool {
	out := s.d.Visible(s.h.registry.Snapshot().Tools())
	for _, st := range s.h.rules.SearchTools() {
		out = append(out, registry.Tool{Name: st.Name, Description: st.Description, InputSchema: st.InputSchema})
	}
	out = append(out, pagingTools()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// EndTurn marks the end of one conversational turn: tools unlocked by a
// search stay visible for tools.mcp.discovery.ttl turns, counted here.
func (s *Session) EndTurn() { s.d.EndTurn() }

// Close ends the session.
func (s *Session) Close() error { return nil }

// UnknownToolError is returned for a tool name that no server provides; it
// lists the closest names (and the search tools, with discovery on).
type UnknownToolError = discovery.UnknownToolError

// Call runs the tool with agent-facing name with args (a JSON object; empty
// means {}). A search tool searches and unlocks; a hidden tool called by its
// exact name is unlocked and run; read_file and search_files page saved
// results. MCP results go through the shaping chain: oversized text is
// bounded and its full payload saved in the workspace. A tool's own failure is a result with
// IsError set; an error means the call could not be made: unknown tool,
// server down, crash or timeout.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil, fmt.Errorf("tool %q: arguments must be a JSON object, like {\"key\": \"value\"}", name)
	}
	if artifacts.IsTool(name) {
		return s.h.callPaging(ctx, name, args), nil
	}
	snap := s.h.registry.Snapshot()
	if s.h.rules.IsSearchTool(name) {
		text, isError := s.d.HandleSearch(name, args, snap.Tools())
		res := mcp.NewToolResultText(text)
		res.IsError = isError
		return res, nil
	}
	if _, err := s.d.CallAllowed(name, snap.Tools()); err != nil {
		return nil, err
	}
	tool, ok := snap.Lookup(name)
	if !ok {
		return nil, &UnknownToolError{Name: name, Closest: snap.Closest(name, 3)}
	}
	size := 0
	call := shaping.Call{Server: tool.Server, Tool: tool.ServerTool, Name: name, Args: args, OutputSchema: outputSchema(tool)}
	res, err := s.h.call(context.WithValue(ctx, resultSizeKey{}, &size), call)
	if size >= largeResultBytes {
		s.h.afterLargeCall()
	}
	return res, err
}

// IsSearchTool reports whether name is one of the discovery search tools of
// this session (a call of one searches and unlocks; it does not end a turn).
func (s *Session) IsSearchTool(name string) bool { return s.h.rules.IsSearchTool(name) }

// Callable reports whether Call would accept the tool name now — a tool of
// Tools(), a search tool, or a hidden tool called by its exact name — and
// otherwise returns an *UnknownToolError naming the closest tools. Nothing
// is unlocked or run.
func (s *Session) Callable(name string) error {
	if s.h.rules.IsSearchTool(name) {
		return nil
	}
	snap := s.h.registry.Snapshot()
	if _, ok := snap.Lookup(name); ok {
		return nil
	}
	for _, t := range s.Tools() {
		if t.Name == name {
			return nil
		}
	}
	e := &UnknownToolError{Name: name, Closest: snap.Closest(name, 3)}
	for _, st := range s.h.rules.SearchTools() {
		e.SearchTools = append(e.SearchTools, st.Name)
	}
	return e
}

// outputSchema returns a tool's outputSchema as the server listed it, nil
// when it declares none.
func outputSchema(t registry.Tool) json.RawMessage {
	d := t.Def
	if len(d.RawOutputSchema) > 0 {
		return d.RawOutputSchema
	}
	if d.OutputSchema.Type == "" {
		return nil
	}
	b, err := json.Marshal(d.OutputSchema)
	if err != nil {
		return nil
	}
	return b
}
