package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// covered are the keys of a tool definition that trust covers: what the
// model reads and what decides how a call is made. Others (_meta,
// execution, icons…) may change without a new approval.
var covered = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// Canonical returns the parts of a tool definition (a JSON object as a
// server lists it) that trust covers — name, title, description,
// inputSchema, outputSchema, annotations — as compact JSON with object keys
// sorted at every depth, so a re-ordering or re-indentation is not a change
// but any other byte of those fields is. Other keys (_meta, execution,
// icons…) are left out. Numbers are kept as written and strings are not
// HTML-escaped, so the result shows what the server sent. An error names
// what is wrong (not an object, no string name).
func Canonical(def json.RawMessage) (json.RawMessage, error) {
	tool, err := decodeObject(def)
	if err != nil {
		return nil, err
	}
	name, ok := tool["name"].(string)
	if !ok || name == "" {
		return nil, fmt.Errorf("tool definition: %s, want a non-empty string name", describeName(tool["name"]))
	}
	kept := make(map[string]any, len(covered))
	for _, k := range covered {
		if v, ok := tool[k]; ok {
			kept[k] = v
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <IMPORTANT> readable in a stored pin
	// encoding/json writes map keys sorted, at every depth, and a
	// json.Number as its literal: that is the canonical form.
	if err := enc.Encode(kept); err != nil {
		return nil, fmt.Errorf("tool %q: encode definition: %w", name, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeObject decodes one JSON object, numbers as json.Number.
func decodeObject(def json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(def))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("tool definition is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("tool definition is not valid JSON: more data after the object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tool definition is %s, want a JSON object", jsonKind(v))
	}
	return obj, nil
}

// describeName says what a definition has instead of a usable name.
func describeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "no name"
	case string:
		if v == "" {
			return "an empty name"
		}
	}
	return "name is " + jsonKind(v)
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// Digest returns "sha256:<hex>" of Canonical(def).
func Digest(def json.RawMessage) (string, error) {
	c, err := Canonical(def)
	if err != nil {
		return "", err
	}
	return digestOf(c), nil
}

// CanonicalDigest returns Canonical(def) and its digest at once (one
// canonicalization instead of two).
func CanonicalDigest(def json.RawMessage) (json.RawMessage, string, error) {
	c, err := Canonical(def)
	if err != nil {
		return nil, "", err
	}
	return c, digestOf(c), nil
}

// digestOf returns the digest of a definition already canonical.
func digestOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
