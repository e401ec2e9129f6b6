package discovery

import (
	"errors"

	"github.com/plughost/plughost/host/registry"
)

// Hit is one search result: a tool's agent-facing name and its score.
type Hit struct {
	ID    string
	Score float64
}

// Searcher ranks tools for the search tools. IDs are agent-facing tool
// names. The index may hold tools of every server; discovery filters the
// hits down to the tools that are hidden by default. Implementations must be
// safe for concurrent use.
type Searcher interface {
	// Search returns up to k tools best matching a keyword query.
	Search(query string, k int) ([]Hit, error)
	// Regex returns up to k tools matching a case-insensitive RE2 pattern.
	Regex(pattern string, k int) ([]Hit, error)
}

// Deps are what Rules need from the host.
type Deps struct {
	// Searcher ranks tools; required when discovery is on.
	Searcher Searcher
	// Deferred reports whether a server's tools are hidden by default (see
	// DeferredFunc). Nil means every server follows the global default. It
	// is consulted only when discovery is on.
	Deferred func(server string) bool
}

// Rules are the discovery rules shared by every session of a host. Rules
// are immutable and safe for concurrent use.
type Rules struct {
	settings Settings
	deps     Deps
	search   []SearchTool
}

// New validates settings and returns the rules.
func New(settings Settings, deps Deps) (*Rules, error) {
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	if settings.Enabled && deps.Searcher == nil {
		return nil, errors.New("discovery: enabled without a searcher")
	}
	return &Rules{settings: settings, deps: deps, search: searchTools(settings)}, nil
}

// Settings returns the settings the rules were built with.
func (r *Rules) Settings() Settings { return r.settings }

// SearchTools returns the definitions of the search tools the model gets:
// none with discovery off, otherwise those of the enabled engines (BM25
// first).
func (r *Rules) SearchTools() []SearchTool { return append([]SearchTool(nil), r.search...) }

// SearchToolNames returns the names of the search tools, BM25 first.
func (r *Rules) SearchToolNames() []string {
	out := make([]string, len(r.search))
	for i, t := range r.search {
		out[i] = t.Name
	}
	return out
}

// IsSearchTool reports whether name is a search tool this host offers.
func (r *Rules) IsSearchTool(name string) bool {
	for _, t := range r.search {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Hidden reports whether t is hidden unless a session unlocked it: with
// discovery on, the tools of deferred servers.
func (r *Rules) Hidden(t registry.Tool) bool {
	if !r.settings.Enabled {
		return false
	}
	if r.deps.Deferred == nil {
		return true
	}
	return r.deps.Deferred(t.Server)
}
