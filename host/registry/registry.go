// Package registry holds the agent-facing tool set: every connected server's
// tools under their final `mcp_<server>_<tool>` names. Names are assigned over
// the whole set at once (host/naming), so they do not depend on the order in
// which servers connected; each change publishes a new immutable Snapshot.
package registry

import (
	"encoding/json"
	"sort"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/naming"
)

// Tool is one server tool as the agent sees it.
type Tool struct {
	// Name is the agent-facing name, `mcp_<server>_<tool>` after naming rules.
	Name string `json:"name"`
	// Server and ServerTool are the names the config and the server use.
	Server     string `json:"server"`
	ServerTool string `json:"server_tool"`
	// Description is the server's description of the tool.
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON schema for its arguments.
	InputSchema json.RawMessage `json:"input_schema"`
	// Def is the full definition as the server listed it.
	Def mcp.Tool `json:"-"`
}

// Snapshot is an immutable view of the registry; safe for concurrent use.
type Snapshot struct {
	sorted []Tool
	byName map[string]int
}

// Tools returns every tool, sorted by Name (stable across calls, so prompt
// caches built on the list survive).
func (s *Snapshot) Tools() []Tool { return append([]Tool(nil), s.sorted...) }

// Lookup finds a tool by its agent-facing name.
func (s *Snapshot) Lookup(name string) (Tool, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Tool{}, false
	}
	return s.sorted[i], true
}

// Len returns the number of tools.
func (s *Snapshot) Len() int { return len(s.sorted) }

// Registry collects the tools of every server. Safe for concurrent use.
type Registry struct {
	mu      sync.Mutex
	servers map[string][]mcp.Tool
	snap    *Snapshot
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{servers: map[string][]mcp.Tool{}, snap: &Snapshot{byName: map[string]int{}}}
}

// Snapshot returns the current view.
func (r *Registry) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snap
}

// SetServer replaces one server's tools (nil or empty removes the server)
// and republishes the names of the whole set.
func (r *Registry) SetServer(server string, tools []mcp.Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(tools) == 0 {
		delete(r.servers, server)
	} else {
		r.servers[server] = tools
	}
	r.snap = build(r.servers)
}

func build(servers map[string][]mcp.Tool) *Snapshot {
	var pairs []naming.Pair
	for srv, tools := range servers {
		for _, t := range tools {
			pairs = append(pairs, naming.Pair{Server: srv, Tool: t.Name})
		}
	}
	names := naming.Assign(pairs)
	snap := &Snapshot{byName: make(map[string]int, len(pairs))}
	for srv, tools := range servers {
		seen := make(map[string]bool, len(tools))
		for _, t := range tools {
			if seen[t.Name] {
				continue // a server listing a tool twice gets it once
			}
			seen[t.Name] = true
			snap.sorted = append(snap.sorted, Tool{
				Name:        names[naming.Pair{Server: srv, Tool: t.Name}],
				Server:      srv,
				ServerTool:  t.Name,
				Description: t.Description,
				InputSchema: schemaOf(t),
				Def:         t,
			})
		}
	}
	sort.Slice(snap.sorted, func(i, j int) bool { return snap.sorted[i].Name < snap.sorted[j].Name })
	for i, t := range snap.sorted {
		snap.byName[t.Name] = i
	}
	return snap
}

func schemaOf(t mcp.Tool) json.RawMessage {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}
