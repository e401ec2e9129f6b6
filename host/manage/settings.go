package manage

import (
	"github.com/plughost/plughost/host/config"
)

// Settings are the global settings a front end edits (the dashboard's
// Settings tab), under their keys in tools.mcp. In an update every field is
// optional: a nil field is left as the file has it.
type Settings struct {
	// Enabled is tools.mcp.enabled.
	Enabled *bool `json:"enabled,omitempty"`
	// Discovery is tools.mcp.discovery.
	Discovery *DiscoverySettings `json:"discovery,omitempty"`
	// MaxInlineTextChars is tools.mcp.max_inline_text_chars.
	MaxInlineTextChars *int `json:"max_inline_text_chars,omitempty"`
	// Workspace is tools.mcp.workspace.
	Workspace *string `json:"workspace,omitempty"`
	// Artifacts is tools.mcp.artifacts (how long saved results are kept).
	Artifacts *ArtifactSettings `json:"artifacts,omitempty"`
}

// DiscoverySettings are the editable keys of tools.mcp.discovery.
type DiscoverySettings struct {
	// Enabled is tools.mcp.discovery.enabled.
	Enabled *bool `json:"enabled,omitempty"`
	// TTL is tools.mcp.discovery.ttl.
	TTL *int `json:"ttl,omitempty"`
	// MaxSearchResults is tools.mcp.discovery.max_search_results.
	MaxSearchResults *int `json:"max_search_results,omitempty"`
	// UseBM25 is tools.mcp.discovery.use_bm25.
	UseBM25 *bool `json:"use_bm25,omitempty"`
	// UseRegex is tools.mcp.discovery.use_regex.
	UseRegex *bool `json:"use_regex,omitempty"`
}

// ArtifactSettings are the retention keys of tools.mcp.artifacts.
type ArtifactSettings struct {
	// MaxAgeHours is tools.mcp.artifacts.max_age_hours.
	MaxAgeHours *float64 `json:"max_age_hours,omitempty"`
	// MaxTotalMB is tools.mcp.artifacts.max_total_mb.
	MaxTotalMB *float64 `json:"max_total_mb,omitempty"`
}

// SettingsOf returns the settings of an effective config, every field set.
func SettingsOf(cfg *config.Config) Settings {
	m := cfg.MCP
	d, a := m.Discovery, m.Artifacts
	return Settings{
		Enabled: &m.Enabled,
		Discovery: &DiscoverySettings{Enabled: &d.Enabled, TTL: &d.TTL, MaxSearchResults: &d.MaxSearchResults,
			UseBM25: &d.UseBM25, UseRegex: &d.UseRegex},
		MaxInlineTextChars: &m.MaxInlineTextChars,
		Workspace:          &m.Workspace,
		Artifacts:          &ArtifactSettings{MaxAgeHours: &a.MaxAgeHours, MaxTotalMB: &a.MaxTotalMB},
	}
}

// setting is one key of Settings: its path under tools.mcp and its value
// (nil when not set).
type setting struct {
	keys  []string
	value any
}

// fields lists the settings s sets, in a stable order.
func (s Settings) fields() []setting {
	var out []setting
	add := func(v any, set bool, keys ...string) {
		if set {
			out = append(out, setting{keys: append([]string{"tools", "mcp"}, keys...), value: v})
		}
	}
	add(deref(s.Enabled), s.Enabled != nil, "enabled")
	if d := s.Discovery; d != nil {
		add(deref(d.Enabled), d.Enabled != nil, "discovery", "enabled")
		add(deref(d.TTL), d.TTL != nil, "discovery", "ttl")
		add(deref(d.MaxSearchResults), d.MaxSearchResults != nil, "discovery", "max_search_results")
		add(deref(d.UseBM25), d.UseBM25 != nil, "discovery", "use_bm25")
		add(deref(d.UseRegex), d.UseRegex != nil, "discovery", "use_regex")
	}
	add(deref(s.MaxInlineTextChars), s.MaxInlineTextChars != nil, "max_inline_text_chars")
	add(deref(s.Workspace), s.Workspace != nil, "workspace")
	if a := s.Artifacts; a != nil {
		add(deref(a.MaxAgeHours), a.MaxAgeHours != nil, "artifacts", "max_age_hours")
		add(deref(a.MaxTotalMB), a.MaxTotalMB != nil, "artifacts", "max_total_mb")
	}
	return out
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// UpdateSettings writes the settings s sets into the user file, checked
// with the runtime's validator first: a value out of range, or discovery on
// with both search tools off, is an *InvalidError naming the key, and
// nothing is written.
func (m *Manager) UpdateSettings(s Settings, o WriteOptions) (WriteResult, error) {
	tx, err := m.begin(o)
	if err != nil {
		return WriteResult{}, err
	}
	for _, f := range s.fields() {
		if err := tx.set(f.value, f.keys...); err != nil {
			return WriteResult{}, err
		}
	}
	return tx.commitChecked()
}
