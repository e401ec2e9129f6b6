package discovery

import (
	"errors"
	"fmt"

	"github.com/plughost/plughost/host/config"
)

// Settings are the effective tools.mcp.discovery options.
type Settings struct {
	// Enabled hides the tools of deferred servers behind the search tools.
	Enabled bool
	// TTL is the number of turns a found tool stays unlocked.
	TTL int
	// MaxResults caps the tools one search returns.
	MaxResults int
	// UseBM25 offers tool_search_tool_bm25.
	UseBM25 bool
	// UseRegex offers tool_search_tool_regex.
	UseRegex bool
}

// ErrNoSearchEngine is returned (wrapped) by Settings.Validate when discovery
// is on but neither search tool is, so hidden tools could never be found.
var ErrNoSearchEngine = errors.New("discovery is enabled but both search tools are off")

// Validate checks s. With discovery off the other fields are unused and not
// checked; with it on at least one engine is required, and TTL and
// MaxResults must be at least 1.
func (s Settings) Validate() error {
	if !s.Enabled {
		return nil
	}
	if !s.UseBM25 && !s.UseRegex {
		return fmt.Errorf("%w, so hidden tools could never be found; set tools.mcp.discovery.use_bm25 "+
			"or tools.mcp.discovery.use_regex to true, or tools.mcp.discovery.enabled to false", ErrNoSearchEngine)
	}
	if s.TTL < 1 {
		return fmt.Errorf("tools.mcp.discovery.ttl must be at least 1, got %d", s.TTL)
	}
	if s.MaxResults < 1 {
		return fmt.Errorf("tools.mcp.discovery.max_search_results must be at least 1, got %d", s.MaxResults)
	}
	return nil
}

// FromConfig returns the validated Settings of a tools.mcp.discovery section.
func FromConfig(d config.Discovery) (Settings, error) {
	s := Settings{
		Enabled: d.Enabled, TTL: d.TTL, MaxResults: d.MaxSearchResults,
		UseBM25: d.UseBM25, UseRegex: d.UseRegex,
	}
	if err := s.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// DeferredFunc returns the per-server "deferred" predicate of a config: the
// effective config.Server.Deferred of each server. A server the config does
// not name follows the global default (deferred exactly when discovery is on).
func DeferredFunc(servers map[string]config.Server, discoveryEnabled bool) func(server string) bool {
	return func(server string) bool {
		srv, ok := servers[server]
		if !ok {
			return discoveryEnabled
		}
		return srv.Deferred(discoveryEnabled)
	}
}
