// Package registry holds the agent-facing tool set: every connected server's
// tools under their final `mcp_<server>_<tool>` names. Names are assigned over
// the whole set at once (host/naming), so they do not depend on the order in
// which servers connected; each change publishes a new immutable Snapshot,
// which every session shares (a session never copies the catalog).
//
// Definitions are kept as the servers listed them, byte for byte, except the
// name (Tool.Definition), so a client of the gateway sees exactly what the
// server declared: schema keywords, output schema, annotations, execution.
package registry

import (
	"encoding/json"
	"maps"
	"sort"
	"sync"

	"github.com/plughost/plughost/host/access"
	"github.com/plughost/plughost/host/naming"
)

// Tool is one server tool as the agent sees it. Tools of a Snapshot are
// shared by every session: treat their byte slices as read-only.
type Tool struct {
	// Name is the agent-facing name, `mcp_<server>_<tool>` after naming rules.
	Name string `json:"name"`
	// Server and ServerTool are the names the config and the server use.
	Server     string `json:"server"`
	ServerTool string `json:"server_tool"`
	// Description is the server's description of the tool.
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON schema for its arguments, as listed
	// (nil when the server gave none).
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the tool's outputSchema as listed, nil when it
	// declares none.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Definition is the tool's definition as a client receives it: the
	// server's own JSON object, byte for byte, with only "name" replaced by
	// Name.
	Definition json.RawMessage `json:"-"`
	// Listed is the definition exactly as the server listed it (its own
	// name; compacted if it spanned lines), for a client of that server
	// alone. nil for tools plughost provides.
	Listed json.RawMessage `json:"-"`
	// ListedHash identifies Listed as Hash does Definition.
	ListedHash uint64 `json:"-"`
	// Hash identifies Definition: tools with equal definitions have equal
	// hashes, so a change of a tool list can be detected without comparing
	// lists.
	Hash uint64 `json:"-"`
}

// Snapshot is an immutable view of the registry; safe for concurrent use.
type Snapshot struct {
	sorted   []Tool
	byName   map[string]int
	byServer map[string][]int // indexes into sorted, in name order
	held     []Tool           // quarantined tools, sorted by Name; in no list
}

// Tools returns a copy of every tool, sorted by Name (stable across calls,
// so prompt caches built on the list survive).
func (s *Snapshot) Tools() []Tool { return append([]Tool(nil), s.sorted...) }

// Sorted returns every tool sorted by Name without copying: the slice is
// shared by every reader and must not be modified.
func (s *Snapshot) Sorted() []Tool { return s.sorted }

// Lookup finds a tool by its agent-facing name.
func (s *Snapshot) Lookup(name string) (Tool, bool) {
	i, ok := s.byName[name]
	if !ok {
		return Tool{}, false
	}
	return s.sorted[i], true
}

// Server returns the tools of one server, sorted by name.
func (s *Snapshot) Server(name string) []Tool {
	idx := s.byServer[name]
	out := make([]Tool, len(idx))
	for i, j := range idx {
		out[i] = s.sorted[j]
	}
	return out
}

// Quarantined finds a quarantined tool by the agent-facing name it will
// have once approved. A quarantined tool is in no list, search or lookup:
// this is only for telling a caller why a name it called is refused.
func (s *Snapshot) Quarantined(name string) (Tool, bool) {
	i := sort.Search(len(s.held), func(i int) bool { return s.held[i].Name >= name })
	if i < len(s.held) && s.held[i].Name == name {
		return s.held[i], true
	}
	return Tool{}, false
}

// QuarantinedOf returns server's quarantined tools, sorted by name.
func (s *Snapshot) QuarantinedOf(server string) []Tool {
	var out []Tool
	for _, t := range s.held {
		if t.Server == server {
			out = append(out, t)
		}
	}
	return out
}

// Len returns the number of tools.
func (s *Snapshot) Len() int { return len(s.sorted) }

// NewSnapshot indexes tools that already carry their agent-facing names (for
// tests and for tool sets built outside a Registry). Tools without a
// Definition get one from their name, description and schema.
func NewSnapshot(tools []Tool) *Snapshot {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		if len(t.Definition) == 0 {
			built := NewTool(t.Name, t.Description, t.InputSchema)
			t.Definition, t.Hash = built.Definition, built.Hash
		}
		out[i] = t
	}
	return index(out)
}

func index(tools []Tool) *Snapshot {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	s := &Snapshot{sorted: tools, byName: make(map[string]int, len(tools)), byServer: map[string][]int{}}
	for i, t := range tools {
		s.byName[t.Name] = i
		s.byServer[t.Server] = append(s.byServer[t.Server], i)
	}
	return s
}

// Registry collects the tools of every server. Safe for concurrent use.
type Registry struct {
	mu         sync.Mutex
	servers    map[string]*serverTools
	filters    map[string]access.Filter   // a server's include_tools/exclude_tools
	quarantine map[string]map[string]bool // a server's quarantined tools, by its own names
	snap       *Snapshot
}

// serverTools is one server's listed definitions, parsed once, and the
// tools last built from them (reused while their names stay the same).
type serverTools struct {
	listed []json.RawMessage // as SetServer got them, to skip a repeated call
	defs   []definition
	built  map[string]Tool // by the server's tool name
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{servers: map[string]*serverTools{}, filters: map[string]access.Filter{}, quarantine: map[string]map[string]bool{}, snap: index(nil)}
}

// SetFilter sets which of server's tools the registry keeps (its
// include_tools/exclude_tools): the others are left out of every snapshot,
// so no list, search or call ever finds them. It reports whether the
// filter changed (a new snapshot was then published). The zero Filter
// keeps every tool.
func (r *Registry) SetFilter(server string, f access.Filter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.filters[server].Equal(f) {
		return false
	}
	if f.IsZero() {
		delete(r.filters, server)
	} else {
		r.filters[server] = f
	}
	if _, ok := r.servers[server]; ok {
		r.snap = r.build()
	}
	return true
}

// SetQuarantine sets which of server's tools (by the server's own names)
// are quarantined: they keep their agent-facing names, so approving one
// does not rename others, but no list, search or lookup finds them
// (Snapshot.Quarantined does, to explain a refused call). Tools a filter
// leaves out are not quarantined: they do not exist for any client. It
// reports whether the set changed; an empty set clears it.
func (r *Registry) SetQuarantine(server string, tools []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make(map[string]bool, len(tools))
	for _, t := range tools {
		next[t] = true
	}
	if maps.Equal(r.quarantine[server], next) {
		return false
	}
	if len(next) == 0 {
		delete(r.quarantine, server)
	} else {
		r.quarantine[server] = next
	}
	if _, ok := r.servers[server]; ok {
		r.snap = r.build()
	}
	return true
}

// Snapshot returns the current view.
func (r *Registry) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snap
}

// SetServer replaces one server's tools with the definitions it listed (raw
// JSON objects; nil or empty removes the server) and republishes the names
// of the whole set. Definitions that are not objects with a name are
// skipped; a tool listed twice is kept once. Calling it again with the very
// same slice changes nothing.
func (r *Registry) SetServer(server string, defs []json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(defs) == 0 {
		if _, ok := r.servers[server]; !ok {
			return
		}
		delete(r.servers, server)
	} else {
		if prev, ok := r.servers[server]; ok && sameSlice(prev.listed, defs) {
			return
		}
		r.servers[server] = parseServer(defs)
	}
	r.snap = r.build()
}

func sameSlice(a, b []json.RawMessage) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

func parseServer(listed []json.RawMessage) *serverTools {
	st := &serverTools{listed: listed, built: map[string]Tool{}}
	seen := make(map[string]bool, len(listed))
	for _, raw := range listed {
		d, err := parseDefinition(raw)
		if err != nil || seen[d.name] {
			continue // not a usable definition, or a server listing a tool twice: kept once
		}
		seen[d.name] = true
		st.defs = append(st.defs, d)
	}
	return st
}

// build assigns names over every server and builds the snapshot. A tool
// whose name did not change is reused as is. Callers hold r.mu.
func (r *Registry) build() *Snapshot {
	var pairs []naming.Pair
	for srv, st := range r.servers {
		f := r.filters[srv]
		for _, d := range st.defs {
			if f.Keeps(d.name) {
				pairs = append(pairs, naming.Pair{Server: srv, Tool: d.name})
			}
		}
	}
	names := naming.Assign(pairs)
	tools := make([]Tool, 0, len(pairs))
	var held []Tool
	for srv, st := range r.servers {
		f, q := r.filters[srv], r.quarantine[srv]
		for _, d := range st.defs {
			if !f.Keeps(d.name) {
				continue
			}
			name := names[naming.Pair{Server: srv, Tool: d.name}]
			t, ok := st.built[d.name]
			if !ok || t.Name != name {
				t = toolOf(srv, name, d)
				st.built[d.name] = t
			}
			if q[d.name] {
				held = append(held, t)
				continue
			}
			tools = append(tools, t)
		}
	}
	snap := index(tools)
	sort.Slice(held, func(i, j int) bool { return held[i].Name < held[j].Name })
	snap.held = held
	return snap
}

func toolOf(server, name string, d definition) Tool {
	def, _ := d.withName(name)
	return Tool{
		Name: name, Server: server, ServerTool: d.name, Description: d.description,
		InputSchema: d.schema, OutputSchema: d.output, Definition: def, Listed: d.raw, Hash: hashOf(def), ListedHash: hashOf(d.raw),
	}
}
