package discovery

import (
	"github.com/plughost/plughost/config"
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

// Validate checks s with the configuration's one discovery check
// (config.CheckDiscovery): with discovery on, at least one engine, a TTL of
// at least 1 and 1 to config.MaxSearchResultsLimit results. Problems are
// *config.ValidationError values naming the JSON path.
func (s Settings) Validate() error {
	return config.CheckDiscovery(config.Discovery{
		Enabled: s.Enabled, TTL: s.TTL, MaxSearchResults: s.MaxResults, UseBM25: s.UseBM25, UseRegex: s.UseRegex,
	})
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
	return func(server string) bool { return servers[server].Deferred(discoveryEnabled) }
}
