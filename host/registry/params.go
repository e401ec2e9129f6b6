package registry

import (
	"encoding/json"
	"sort"
)

// Param is one top-level parameter of a tool, read from its input schema.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
}

// Params lists the top-level parameters of the tool's input schema, required
// ones first, then by name. A schema it cannot read gives no parameters.
func (t Tool) Params() []Param {
	var schema struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(t.InputSchema, &schema) != nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range schema.Required {
		required[r] = true
	}
	out := make([]Param, 0, len(schema.Properties))
	for name, p := range schema.Properties {
		out = append(out, Param{Name: name, Type: typeName(p.Type), Required: required[name], Description: p.Description})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// typeName renders a JSON-schema "type", which is a string or a list.
func typeName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		s := ""
		for i, x := range t {
			if i > 0 {
				s += "|"
			}
			s += typeName(x)
		}
		return s
	}
	return ""
}
