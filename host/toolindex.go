package host

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host/discovery"
	"github.com/plughost/plughost/host/registry"
	"github.com/plughost/plughost/search"
)

// newRules builds the discovery rules of cfg, and the tool index when its
// discovery needs one. The rules are part of a config's state: a reload
// that changes discovery makes new rules, and every session's next call
// or turn follows them.
func (h *Host) newRules(cfg *config.Config) (*discovery.Rules, error) {
	settings, err := discovery.FromConfig(cfg.MCP.Discovery)
	if err != nil {
		return nil, err
	}
	if err := h.ensureIndex(cfg.MCP.Discovery); err != nil {
		return nil, err
	}
	return discovery.New(settings, discovery.Deps{
		Searcher: searcher{h},
		Deferred: discovery.DeferredFunc(cfg.MCP.Servers, settings.Enabled),
	})
}

// ensureIndex makes the tool index discovery d needs, filled with every
// tool: when discovery is on and there is none yet, or its semantic
// settings changed (they are the index's own). Once made, an index is kept
// current until Close, also while discovery is off.
func (h *Host) ensureIndex(d config.Discovery) error {
	h.indexMu.Lock()
	if !d.Enabled || (h.index != nil && reflect.DeepEqual(h.indexSemantic, d.Semantic)) {
		h.indexMu.Unlock()
		return nil
	}
	ix, err := search.New(searchOptions(d.Semantic, h.opts.Environ, h.logger)...)
	if err != nil {
		h.indexMu.Unlock()
		return fmt.Errorf("tool index: %w", err)
	}
	old := h.index
	h.index, h.indexSemantic, h.indexed = ix, d.Semantic, map[string][]string{}
	h.indexMu.Unlock()
	if old != nil {
		_ = old.Close() // a search under way on it fails once, as a tool error
	}
	h.reindex()
	return nil
}

// currentIndex returns the tool index, nil when discovery was never on.
func (h *Host) currentIndex() *search.Index {
	h.indexMu.Lock()
	defer h.indexMu.Unlock()
	return h.index
}

// searcher adapts the host's search index to what discovery needs.
type searcher struct{ h *Host }

func (s searcher) Search(query string, k int) ([]discovery.Hit, error) {
	ix := s.h.currentIndex()
	if ix == nil {
		return nil, errors.New("the tool index is not ready")
	}
	hits, err := ix.Search(query, k)
	return convertHits(hits), err
}

func (s searcher) Regex(pattern string, k int) ([]discovery.Hit, error) {
	ix := s.h.currentIndex()
	if ix == nil {
		return nil, errors.New("the tool index is not ready")
	}
	hits, err := ix.Regex(pattern, k)
	return convertHits(hits), err
}

func convertHits(hits []search.Hit) []discovery.Hit {
	out := make([]discovery.Hit, len(hits))
	for i, h := range hits {
		out[i] = discovery.Hit{ID: h.ID, Score: h.Score}
	}
	return out
}

// reindex brings the tool index in line with the registry: every server
// whose agent-facing names changed (its own tools, or a rename caused by
// another server's names) is re-indexed, all in one batch (a bluge batch has
// a fixed cost of ~10 ms, so servers connecting together share one). Calls
// are serialized.
func (h *Host) reindex() {
	h.indexMu.Lock()
	defer h.indexMu.Unlock()
	if h.index == nil {
		return
	}
	byServer := h.toolsByServer()
	for server := range h.indexed {
		if _, ok := byServer[server]; !ok {
			byServer[server] = nil // gone: remove its documents
		}
	}
	changed := map[string][]search.Doc{}
	names := map[string][]string{}
	for server, tools := range byServer {
		ns := make([]string, len(tools))
		for i, t := range tools {
			ns[i] = t.Name
		}
		if !slices.Equal(ns, h.indexed[server]) {
			changed[server], names[server] = docsOf(tools), ns
		}
	}
	if len(changed) == 0 {
		return
	}
	if err := h.index.ReplaceServers(changed); err != nil {
		h.logger.Error("re-indexing tools failed", "servers", len(changed), "error", err)
		return
	}
	for server, ns := range names {
		if len(ns) == 0 {
			delete(h.indexed, server)
		} else {
			h.indexed[server] = ns
		}
	}
}

// toolsByServer groups the registry's tools by server.
func (h *Host) toolsByServer() map[string][]registry.Tool {
	out := map[string][]registry.Tool{}
	for _, t := range h.registry.Snapshot().Tools() {
		out[t.Server] = append(out[t.Server], t)
	}
	return out
}

// docsOf turns registry tools into index documents (ID = agent-facing name).
func docsOf(tools []registry.Tool) []search.Doc {
	docs := make([]search.Doc, len(tools))
	for i, t := range tools {
		var params []search.Param
		for _, p := range t.Params() {
			params = append(params, search.Param{Name: p.Name, Description: p.Description})
		}
		docs[i] = search.Doc{ID: t.Name, Server: t.Server, Name: t.ServerTool, Description: t.Description, Params: params}
	}
	return docs
}

// SearchResult is one tool found by Host.Search.
type SearchResult struct {
	Tool  registry.Tool `json:"tool"`
	Score float64       `json:"score"`
}

// Search ranks the connected servers' tools for query (BM25, or an RE2
// pattern when regex is set), the way the discovery search tools do, but over
// every tool and without unlocking anything. It works with discovery off too
// (over a temporary index).
func (h *Host) Search(query string, k int, regex bool) ([]SearchResult, error) {
	ix := h.currentIndex()
	if ix == nil {
		tmp, err := search.New(searchOptions(h.st().cfg.MCP.Discovery.Semantic, h.opts.Environ, h.logger)...)
		if err != nil {
			return nil, err
		}
		defer tmp.Close()
		all := map[string][]search.Doc{}
		for server, tools := range h.toolsByServer() {
			all[server] = docsOf(tools)
		}
		if err := tmp.ReplaceServers(all); err != nil {
			return nil, err
		}
		ix = tmp
	}
	run := ix.Search
	if regex {
		run = ix.Regex
	}
	hits, err := run(query, k)
	if err != nil {
		return nil, err
	}
	snap := h.registry.Snapshot()
	out := make([]SearchResult, 0, len(hits))
	for _, hit := range hits {
		if t, ok := snap.Lookup(hit.ID); ok {
			out = append(out, SearchResult{Tool: t, Score: hit.Score})
		}
	}
	return out, nil
}
