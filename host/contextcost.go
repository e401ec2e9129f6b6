package host

import (
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/plughost/plughost/host/config"
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
// setting is honoured, so pinned servers count with discovery on.
func (h *Host) ContextCosts() ([]ContextCost, error) {
	catalog := map[string][]mcp.Tool{}
	for _, t := range h.registry.Snapshot().Tools() {
		catalog[t.Server] = append(catalog[t.Server], t.Def)
	}
	cfg := h.st().cfg
	return contextCosts(catalog, cfg.MCP.Servers, cfg.MCP.Discovery)
}

// CatalogContextCosts measures a catalog given as server → tools as the
// servers list them, as if every server were connected and deferred: with
// discovery off and on. No server runs.
func CatalogContextCosts(catalog map[string][]mcp.Tool) ([]ContextCost, error) {
	d, err := config.Defaults()
	if err != nil {
		return nil, err
	}
	return contextCosts(catalog, nil, d.MCP.Discovery)
}

// contextCosts lists the tools of a new session of a host that has catalog
// connected, under each setup, and measures them.
func contextCosts(catalog map[string][]mcp.Tool, servers map[string]config.Server, d config.Discovery) ([]ContextCost, error) {
	var out []ContextCost
	for _, s := range costSetups(d) {
		cfg, err := config.Defaults()
		if err != nil {
			return nil, err
		}
		cfg.MCP.Discovery = s.discovery
		cfg.MCP.Servers = map[string]config.Server{}
		for name, srv := range servers {
			// Only "deferred" matters; disabled servers list no tool.
			cfg.MCP.Servers[name] = config.Server{Command: "-", DeferredOverride: srv.DeferredOverride}
		}
		h, err := New(cfg, Options{})
		if err != nil {
			return nil, err
		}
		for _, name := range slices.Sorted(maps.Keys(catalog)) {
			h.registry.SetServer(name, catalog[name])
		}
		tools := h.NewSession().Tools()
		b := discovery.DefinitionBytes(tools)
		out = append(out, ContextCost{Setup: s.name, Tools: len(tools), Bytes: b, Tokens: discovery.EstimateTokens(b)})
		if err := h.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
