package host

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/discovery"
)

// ContextCost is the size of the tool definitions a model receives on
// every request under one setting: the tools a new session lists
// (Session.Tools), as the names, descriptions and input schemas it sends.
type ContextCost struct {
	// Setup names the setting, e.g. "discovery on, bm25".
	Setup string `json:"setup"`
	// Tools is how many tools the session lists.
	Tools int `json:"tools"`
	// Bytes is the size of their definitions as compact JSON.
	Bytes int `json:"bytes"`
	// Tokens estimates Bytes in tokens (discovery.EstimateTokens).
	Tokens int `json:"estimated_tokens"`
}

// costSetup is one discovery setting to measure.
type costSetup struct {
	name      string
	discovery config.Discovery
}

// costSetups are the settings measured: discovery off, then on with BM25,
// then with both engines.
func costSetups(d config.Discovery) []costSetup {
	off := d
	off.Enabled = false
	bm25 := config.Discovery{Enabled: true, TTL: max(d.TTL, 1), MaxSearchResults: max(d.MaxSearchResults, 1), UseBM25: true}
	both := bm25
	both.UseRegex = true
	return []costSetup{
		{"discovery off (every tool)", off},
		{"discovery on, bm25", bm25},
		{"discovery on, bm25 + regex", both},
	}
}

// ContextCosts measures the host's current catalog (every connected
// server's tools) with discovery off and on; each server's "deferred"
// setting is honoured, so servers that opt out of deferral count with discovery on.
func (h *Host) ContextCosts(ctx context.Context) ([]ContextCost, error) {
	st := h.st()
	catalog := map[string][]json.RawMessage{}
	for name, s := range st.servers {
		if defs := s.sup.Definitions(); len(defs) > 0 {
			catalog[name] = defs
		}
	}
	return contextCosts(ctx, catalog, st.cfg.MCP.Servers, st.cfg.MCP.Discovery)
}

// CatalogContextCosts measures a catalog given as server → tool
// definitions as the servers list them (tools/list entries), as if every
// server were connected and deferred: with discovery off and on. No server
// runs.
func CatalogContextCosts(ctx context.Context, catalog map[string][]json.RawMessage) ([]ContextCost, error) {
	d, err := config.Defaults()
	if err != nil {
		return nil, err
	}
	return contextCosts(ctx, catalog, nil, d.MCP.Discovery)
}

// contextCosts lists the tools of a new session of a host that has catalog
// connected, under each setup, and measures them.
func contextCosts(ctx context.Context, catalog map[string][]json.RawMessage, servers map[string]config.Server, d config.Discovery) ([]ContextCost, error) {
	var out []ContextCost
	for _, s := range costSetups(d) {
		c, err := costOf(ctx, s, catalog, servers)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// costOf measures what a new session lists under one setup, in a host that
// runs nothing and has catalog in its registry.
func costOf(ctx context.Context, s costSetup, catalog map[string][]json.RawMessage, servers map[string]config.Server) (ContextCost, error) {
	cfg, err := config.Defaults()
	if err != nil {
		return ContextCost{}, err
	}
	cfg.MCP.Discovery = s.discovery
	cfg.MCP.Servers = map[string]config.Server{}
	for name, srv := range servers {
		// Only "deferred" matters; disabled servers list no tool.
		cfg.MCP.Servers[name] = config.Server{Command: "-", DeferredOverride: srv.DeferredOverride}
	}
	h, err := New(cfg, Options{SessionStore: NewMemorySessionStore(MemorySessionStoreOptions{})})
	if err != nil {
		return ContextCost{}, err
	}
	defer h.Close()
	for _, name := range slices.Sorted(maps.Keys(catalog)) {
		h.registry.SetServer(name, catalog[name])
	}
	tools, err := h.NewSession().Tools(ctx)
	if err != nil {
		return ContextCost{}, err
	}
	b := discovery.DefinitionBytes(tools)
	return ContextCost{Setup: s.name, Tools: len(tools), Bytes: b, Tokens: discovery.EstimateTokens(b)}, nil
}
