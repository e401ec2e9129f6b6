package gateway

import (
	"bytes"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/registry"
)

// publishFunc hands mcp-go a session's complete tool list; notify asks for
// notifications/tools/list_changed.
type publishFunc func(tools []server.ServerTool, notify bool)

// session is one MCP session: its host.Session and what its client was
// last told. Safe for concurrent use.
type session struct {
	g       *Gateway
	id      string
	hs      *host.Session
	publish publishFunc

	mu        sync.Mutex
	shown     []registry.Tool // the list the client was last given
	published bool            // publish ran at least once
	dirty     bool            // what mcp-go holds differs from shown (pending calls)
	pending   map[string]int  // hidden tools being called by their exact name
}

func newSession(g *Gateway, id string, publish publishFunc) *session {
	return &session{g: g, id: id, hs: g.h.NewSession(), publish: publish, pending: map[string]int{}}
}

// sync publishes the session's visible tools if they changed since the
// client last saw them, with notifications/tools/list_changed. It returns
// the names that became visible.
func (s *session) sync() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tools := s.hs.Tools()
	if s.published && !s.dirty && sameTools(tools, s.shown) {
		return nil
	}
	added := newNames(s.shown, tools)
	notify := s.published && !sameTools(tools, s.shown)
	s.shown, s.published, s.dirty = tools, true, len(s.pending) > 0
	s.publish(s.serverTools(tools), notify)
	return added
}

// visible reports whether the client was last shown the tool name.
func (s *session) visible(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.shown {
		if t.Name == name {
			return true
		}
	}
	return false
}

// beginHidden makes mcp-go route a call of a tool the client was not shown
// (a hidden tool called by its exact name, which unlocks it) to the
// gateway; the tool is not announced until the call made it visible.
func (s *session) beginHidden(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[name]++
	s.dirty = true
	s.publish(s.serverTools(s.shown), false)
}

// endHidden undoes beginHidden once a call of name is over (a no-op for
// calls that needed none).
func (s *session) endHidden(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.pending[name]; ok {
		if n <= 1 {
			delete(s.pending, name)
		} else {
			s.pending[name] = n - 1
		}
	}
}

// serverTools converts tools, plus the pending hidden ones, for mcp-go;
// every call goes to the gateway's handler. Callers hold s.mu.
func (s *session) serverTools(tools []registry.Tool) []server.ServerTool {
	out := make([]server.ServerTool, 0, len(tools)+len(s.pending))
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		out = append(out, server.ServerTool{Tool: toMCP(t), Handler: s.g.handle})
		seen[t.Name] = true
	}
	for name := range s.pending {
		if !seen[name] {
			out = append(out, server.ServerTool{Tool: mcp.NewToolWithRawSchema(name, "", []byte(`{"type":"object"}`)), Handler: s.g.handle})
		}
	}
	return out
}

// toMCP is the definition of t as the client sees it: the server's own
// definition (title, annotations, output schema …) under the agent-facing
// name, or, for tools the host itself provides, name, description and
// schema.
func toMCP(t registry.Tool) mcp.Tool {
	d := t.Def
	d.Name, d.Description = t.Name, t.Description
	d.InputSchema, d.RawInputSchema = mcp.ToolInputSchema{}, t.InputSchema
	if len(d.RawInputSchema) == 0 {
		d.RawInputSchema = []byte(`{"type":"object"}`)
	}
	d.Execution = nil // task-augmented execution is not relayed
	return d
}

// sameTools reports whether two tool lists would look the same to a client.
func sameTools(a, b []registry.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description ||
			!bytes.Equal(a[i].InputSchema, b[i].InputSchema) || a[i].Def.Title != b[i].Def.Title {
			return false
		}
	}
	return true
}

// newNames returns the names of now that are not in before.
func newNames(before, now []registry.Tool) []string {
	had := make(map[string]bool, len(before))
	for _, t := range before {
		had[t.Name] = true
	}
	var out []string
	for _, t := range now {
		if !had[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}
