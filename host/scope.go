package host

import (
	"context"
	"encoding/json"
	"hash/fnv"

	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/registry"
)

// A session scoped to one server (SessionRecord.Scope; the gateway's
// /servers/<name>/mcp) sees that server alone, as if connected to it
// directly: its tools under their own names and definitions (discovery
// does not apply: the client chose the server), plus read_file and
// search_files for results the shaping chain saved, unless the server has
// tools of those names; its resources, prompts and tasks as they are.

// fingerprint identifies the tool list a session with state st sees.
func (h *Host) fingerprint(v *discovery.View, st SessionRecord) uint64 {
	rule, err := h.ClientRule(st.ClientName)
	if err != nil { // the client is gone: its sessions fail before listing
		return 1
	}
	if st.Scope == "" && !rule.IsLimited() {
		return v.Fingerprint(st.Unlocks())
	}
	if st.Scope == "" {
		return v.FingerprintFor(st.Unlocks(), func(t registry.Tool) bool { return t.Server == "" || rule.Allows(t.Server, t.Name) }) | 1
	}
	f := fnv.New64a()
	var b [8]byte
	for _, t := range v.Snapshot().Server(st.Scope) {
		if !rule.Allows(t.Server, t.Name) {
			continue
		}
		for i := range b {
			b[i] = byte(t.ListedHash >> (8 * i))
		}
		f.Write(b[:])
	}
	return f.Sum64() | 1 // never 0, which means "not set"
}

// serverTool finds a server's tool by the server's own name.
func serverTool(snap *registry.Snapshot, server, name string) (registry.Tool, bool) {
	for _, t := range snap.Server(server) {
		if t.ServerTool == name {
			return t, true
		}
	}
	return registry.Tool{}, false
}

// ToolDefinitions returns the definitions of the tools the session's client
// sees, as JSON objects in list order: Visible's definitions (names
// mcp_<server>_<tool>), or for a session scoped to one server that
// server's definitions exactly as it listed them, then read_file and
// search_files unless the server has tools of those names. Like Visible,
// it records the list as learned (see TakeListChange).
func (s *Session) ToolDefinitions(ctx context.Context) ([]json.RawMessage, error) {
	scope, rule, err := s.access(ctx)
	if err != nil {
		return nil, err
	}
	if scope == "" {
		tools, err := s.Visible(ctx)
		out := make([]json.RawMessage, len(tools))
		for i, t := range tools {
			out[i] = t.Definition
		}
		return out, err
	}
	v := s.h.view()
	tools := v.Snapshot().Server(scope)
	out := make([]json.RawMessage, 0, len(tools)+2)
	taken := map[string]bool{}
	for _, t := range tools {
		if !rule.Allows(t.Server, t.Name) {
			continue
		}
		out = append(out, t.Listed)
		taken[t.ServerTool] = true
	}
	for _, p := range pagingTools() {
		if !taken[p.Name] {
			out = append(out, p.Definition)
		}
	}
	_, err = s.learn(ctx, v)
	return out, err
}

// learn records the list the session sees in v as the one its client
// learned, and reports whether it differs from the one it had learned.
func (s *Session) learn(ctx context.Context, v *discovery.View) (bool, error) {
	changed := false
	_, err := s.update(ctx, func(st *SessionRecord) error {
		fp := s.h.fingerprint(v, *st)
		if changed = st.Listed != fp; !changed {
			return ErrSessionUnchanged
		}
		st.Listed = fp
		return nil
	})
	return changed, err
}

// Scope returns the server the session is scoped to ("" for every server;
// see SessionRecord.Scope).
func (s *Session) Scope(ctx context.Context) (string, error) { return s.scopeOf(ctx) }

// HasServerTool reports whether server lists a tool of its own name name.
func (h *Host) HasServerTool(server, name string) bool {
	_, ok := serverTool(h.Registry(), server, name)
	return ok
}
