package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
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
	err := members(raw, func(key string, start, end int) error {
		value := raw[start:end]
		switch key {
		case "name":
			d.nameAt = [2]int{start, end}
			return json.Unmarshal(value, &d.name)
		case "description":
			if string(value) != "null" {
				return json.Unmarshal(value, &d.description)
			}
		case "inputSchema":
			d.schema = value
		case "outputSchema":
			if string(value) != "null" {
				d.output = value
			}
		}
		return nil
	})
	if err != nil {
		return definition{}, fmt.Errorf("tool definition: %w", err)
	}
	if d.name == "" {
		return definition{}, errors.New(`tool definition: no "name"`)
	}
	return d, nil
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

// members calls f with each top-level member of the JSON object raw: its
// key and the byte range of its value.
func members(raw []byte, f func(key string, start, end int) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
		end := int(dec.InputOffset())
		if err := f(key, end-len(value), end); err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the object")
	}
	return nil
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
