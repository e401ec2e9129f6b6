package manage

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/jsonedit"
)

// Settings are the global settings a front end shows (the dashboard's
// Settings tab), under their keys in tools.mcp; SettingsOf sets every
// field. A front end changes them, and any other tools.mcp key but the
// servers, with UpdateSettings.
type Settings struct {
	// Enabled is tools.mcp.enabled.
	Enabled *bool `json:"enabled,omitempty"`
	// Discovery is tools.mcp.discovery.
	Discovery *DiscoverySettings `json:"discovery,omitempty"`
	// MaxInlineTextChars is tools.mcp.max_inline_text_chars.
	MaxInlineTextChars *int `json:"max_inline_text_chars,omitempty"`
	// MaxMessageMB is tools.mcp.max_message_mb.
	MaxMessageMB *int `json:"max_message_mb,omitempty"`
	// MaxResultMB is tools.mcp.max_result_mb.
	MaxResultMB *int `json:"max_result_mb,omitempty"`
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
		MaxMessageMB:       &m.MaxMessageMB,
		MaxResultMB:        &m.MaxResultMB,
		Workspace:          &m.Workspace,
		Artifacts:          &ArtifactSettings{MaxAgeHours: &a.MaxAgeHours, MaxTotalMB: &a.MaxTotalMB},
	}
}

// UpdateSettings merges patch into tools.mcp of the user file, checked with
// the runtime's validator first. patch is a JSON object of tools.mcp keys
// applied as a JSON merge patch (RFC 7396): an object merges key by key,
// null removes the key (the value of the lower layers, usually the default,
// applies again) and any other value replaces the one written. Every key
// is judged by the validator: an unknown key, a value of the wrong type or
// out of range, or discovery on with both search tools off, is an
// *InvalidError naming its JSON path, and nothing is written. Servers are
// not settings: "servers" is refused (AddServer and the others change
// them).
func (m *Manager) UpdateSettings(patch json.RawMessage, o WriteOptions) (WriteResult, error) {
	edits, problem := settingEdits(patch)
	if problem != nil {
		return WriteResult{}, &InvalidError{File: m.UserFile(), Problems: []*config.ValidationError{problem}}
	}
	keys := make([][]string, len(edits))
	for i, e := range edits {
		keys[i] = e.keys
	}
	var res WriteResult
	err := m.write(o, keys, func(tx *Tx) error {
		for _, e := range edits {
			if err := tx.apply(e); err != nil {
				return err
			}
		}
		var err error
		res, err = tx.commitChecked()
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

// settingEdit is one leaf of a settings patch: the value to write at keys,
// or nil to remove the key.
type settingEdit struct {
	keys  []string
	value json.RawMessage
}

// settingEdits flattens a settings patch into its leaves under tools.mcp, in
// a stable order, or returns the problem that refuses it.
func settingEdits(patch json.RawMessage) ([]settingEdit, *config.ValidationError) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(patch, &top); err != nil || top == nil {
		return nil, &config.ValidationError{Path: "tools.mcp",
			Msg: `the settings must be a JSON object of tools.mcp keys, e.g. {"discovery": {"ttl": 3}}`}
	}
	if _, ok := top["servers"]; ok {
		return nil, &config.ValidationError{Path: "tools.mcp.servers",
			Msg: "servers are not settings; add, change or remove them with /api/servers (or plughost mcp add, remove and edit)"}
	}
	var out []settingEdit
	flatten([]string{"tools", "mcp"}, top, &out)
	return out, nil
}

// flatten appends the leaves of obj, found at keys, to out.
func flatten(keys []string, obj map[string]json.RawMessage, out *[]settingEdit) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		at := append(slices.Clip(keys), k)
		raw := bytes.TrimSpace(obj[k])
		var inner map[string]json.RawMessage
		switch {
		case string(raw) == "null":
			*out = append(*out, settingEdit{keys: at})
		case len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &inner) == nil:
			flatten(at, inner, out)
		default:
			*out = append(*out, settingEdit{keys: at, value: raw})
		}
	}
}

// apply makes one settings edit on the candidate.
func (tx *Tx) apply(e settingEdit) error {
	if e.value != nil {
		return tx.set(e.value, e.keys...)
	}
	out, _, err := jsonedit.Delete(tx.data, e.keys...)
	if err != nil {
		return tx.notEditable(err)
	}
	tx.data = out
	return nil
}
