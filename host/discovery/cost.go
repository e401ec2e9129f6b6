package discovery

import (
	"encoding/json"

	"github.com/plughost/plughost/host/registry"
)

// definition is what a model receives for one tool.
type definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// DefinitionBytes is the size of the tool definitions a model receives for
// tools (name, description and input schema of each, as compact JSON): the
// context a tool list costs on every request.
func DefinitionBytes(tools []registry.Tool) int {
	n := 0
	for _, t := range tools {
		schema := t.InputSchema
		if !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		b, err := json.Marshal(definition{Name: t.Name, Description: t.Description, InputSchema: schema})
		if err != nil {
			continue // a definition that cannot be encoded is not sent either
		}
		n += len(b)
	}
	return n
}

// EstimateTokens estimates the tokens of n bytes of JSON (about 4 bytes per
// token for English text and JSON with common tokenizers).
func EstimateTokens(bytes int) int { return (bytes + 3) / 4 }

// SearchToolDefs returns the search tools of the rules as registry tools,
// definitions included, BM25 first.
func (r *Rules) SearchToolDefs() []registry.Tool { return asTools(r.search) }

func asTools(search []SearchTool) []registry.Tool {
	var out []registry.Tool
	for _, st := range search {
		out = append(out, registry.NewTool(st.Name, st.Description, st.InputSchema))
	}
	return out
}
