package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/plughost/plughost/lib/rawjson"
)

// definition is one tool definition as a server listed it, read once: the
// raw JSON object (compacted only if it spanned lines), where its "name"
// value sits, and the fields plughost itself needs.
type definition struct {
	raw         json.RawMessage
	nameAt      [2]int // byte range of the "name" value in raw
	name        string
	description string
	schema      json.RawMessage // a sub-slice of raw; nil when absent
	output      json.RawMessage // outputSchema, a sub-slice of raw; nil when absent
}

// parseDefinition reads a tool definition. The object is kept byte for byte
// (a definition spanning several lines is compacted, which changes only
// whitespace, so it fits the newline-delimited stdio framing); it must be a
// JSON object with a non-empty string "name".
func parseDefinition(raw json.RawMessage) (definition, error) {
	raw = bytes.TrimSpace(raw)
	if bytes.ContainsAny(raw, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return definition{}, fmt.Errorf("tool definition: %w", err)
		}
		raw = b.Bytes()
	}
	d := definition{raw: raw, nameAt: [2]int{-1, -1}}
	text := rawjson.View(raw) // read only here; what is kept is cloned
	var bad error
	ok := rawjson.ScanMembers(text, func(key string, start, end int) bool {
		value := text[start:end]
		switch key {
		case "name":
			d.nameAt = [2]int{start, end}
			d.name, bad = stringValue(key, value)
		case "description":
			if value != "null" {
				d.description, bad = stringValue(key, value)
			}
		case "inputSchema":
			d.schema = raw[start:end]
		case "outputSchema":
			if value != "null" {
				d.output = raw[start:end]
			}
		}
		return bad == nil
	})
	switch {
	case bad != nil:
		return definition{}, fmt.Errorf("tool definition: %w", bad)
	case !ok:
		return definition{}, errors.New("tool definition: not one valid JSON object")
	case d.name == "":
		return definition{}, errors.New(`tool definition: no "name"`)
	}
	return d, nil
}

// stringValue decodes a member that must be a JSON string.
func stringValue(key, value string) (string, error) {
	if value == "" || value[0] != '"' {
		return "", fmt.Errorf("%q is not a string", key)
	}
	return strings.Clone(rawjson.DecodeString(value)), nil
}

// withName returns the definition with its "name" value replaced by name;
// every other byte is the server's.
func (d definition) withName(name string) (json.RawMessage, [2]int) {
	if name == d.name {
		return d.raw, d.nameAt
	}
	quoted, _ := json.Marshal(name) // a string always encodes
	out := make([]byte, 0, len(d.raw)-(d.nameAt[1]-d.nameAt[0])+len(quoted))
	out = append(out, d.raw[:d.nameAt[0]]...)
	out = append(out, quoted...)
	out = append(out, d.raw[d.nameAt[1]:]...)
	return out, [2]int{d.nameAt[0], d.nameAt[0] + len(quoted)}
}

// hashOf identifies a definition: equal bytes, equal hash.
func hashOf(def []byte) uint64 {
	h := fnv.New64a()
	h.Write(def)
	return h.Sum64()
}

// NewTool builds a tool plughost itself provides (a search or paging tool)
// with its definition: name, description and input schema.
func NewTool(name, description string, schema json.RawMessage) Tool {
	if !json.Valid(schema) {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	def, _ := json.Marshal(struct { // strings and valid JSON always encode
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}{name, description, schema})
	return Tool{Name: name, Description: description, InputSchema: schema, Definition: def, Hash: hashOf(def)}
}
