package discovery

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

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
	// Closest returns up to n known tool names nearest to name, for the
	// error on an unknown tool. Nil means no suggestions.
	Closest func(name string, n int) []string
}

// Rules are the discovery rules shared by every session of a host. Their
// settings can be replaced while sessions use them (a config reload): each
// decision reads the settings current at that moment. Rules are safe for
// concurrent use.
type Rules struct {
	deps     Deps
	settings atomic.Pointer[Settings]
}

// New validates settings and returns the rules.
func New(settings Settings, deps Deps) (*Rules, error) {
	r := &Rules{deps: deps}
	if err := r.SetSettings(settings); err != nil {
		return nil, err
	}
	return r, nil
}

// SetSettings validates settings and makes them the rules' settings from the
// next decision on; invalid settings leave the rules as they were. Sessions
// keep their unlocks.
func (r *Rules) SetSettings(settings Settings) error {
	if err := settings.Validate(); err != nil {
		return err
	}
	if settings.Enabled && r.deps.Searcher == nil {
		return errors.New("discovery: enabled without a searcher")
	}
	r.settings.Store(&settings)
	return nil
}

// Settings returns the current settings.
func (r *Rules) Settings() Settings { return *r.settings.Load() }

// SearchTools returns the definitions of the search tools the model gets:
// none with discovery off, otherwise those of the enabled engines (BM25
// first).
func (r *Rules) SearchTools() []SearchTool { return searchTools(r.Settings()) }

// IsSearchTool reports whether name is a search tool this host offers.
func (r *Rules) IsSearchTool(name string) bool {
	for _, t := range r.SearchTools() {
		if t.Name == name {
			return true
		}
	}
	return false
}

// deferred reports whether t is hidden unless unlocked.
func (r *Rules) deferred(t registry.Tool) bool {
	if !r.Settings().Enabled {
		return false
	}
	if r.deps.Deferred == nil {
		return true
	}
	return r.deps.Deferred(t.Server)
}

// closest returns the suggestions for an unknown tool name.
func (r *Rules) closest(name string) []string {
	if r.deps.Closest == nil {
		return nil
	}
	return r.deps.Closest(name, 3)
}

// UnknownToolError is returned for a tool name that no server provides.
type UnknownToolError struct {
	// Name is the name the model called.
	Name string
	// Closest are the nearest known tool names, best first.
	Closest []string
	// SearchTools are the search tools the model may use to find the tool
	// it meant; empty with discovery off.
	SearchTools []string
}

// Error implements error.
func (e *UnknownToolError) Error() string {
	msg := fmt.Sprintf("unknown tool %q: no tool of that name exists", e.Name)
	if len(e.Closest) > 0 {
		msg = fmt.Sprintf("unknown tool %q; closest names: %s", e.Name, strings.Join(e.Closest, ", "))
	}
	if len(e.SearchTools) > 0 {
		msg += "; or find the tool you need with " + strings.Join(e.SearchTools, " or ")
	}
	return msg
}

// unknownTool builds the error for a call of name.
func (r *Rules) unknownTool(name string) *UnknownToolError {
	e := &UnknownToolError{Name: name, Closest: r.closest(name)}
	for _, t := range r.SearchTools() {
		e.SearchTools = append(e.SearchTools, t.Name)
	}
	return e
}
