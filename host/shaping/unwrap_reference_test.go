package shaping

// The implementation of UnwrapText before it scanned the object in place,
// kept unchanged (but renamed) as the reference the new one must match byte
// for byte: it decodes with encoding/json's Decoder, RawMessage and
// Unmarshal, which is simple and obviously right but costs about seven times
// the payload in memory.

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// referenceUnwrapText applies Unwrap's rule to one text regardless of its size and
// reports whether it did.
func referenceUnwrapText(text string) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return "", false
	}
	fields, ok := referenceObjectFields(trimmed)
	if !ok {
		return "", false
	}
	raw, ok := fields["result"]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var result string
	if err := json.Unmarshal(raw, &result); err != nil || result == "" {
		return "", false
	}
	delete(fields, "result")
	for k := range fields {
		if !slices.Contains(knownResultKeys[:], k) {
			return "", false
		}
	}
	if len(fields) == 0 {
		return result, true
	}
	return result + referenceMetadataBlock(result, fields), true
}

// referenceObjectFields decodes a JSON object's members with their raw values; it
// fails on anything but exactly one object, and on a repeated key (decoding
// would silently drop one of them).
func referenceObjectFields(s string) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		if _, dup := fields[key]; dup {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		fields[key] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return fields, true
}

// referenceMetadataBlock renders the keys beside "result" as a compact JSON object
// (keys sorted) inside the metadata tags, on lines of their own.
func referenceMetadataBlock(result string, fields map[string]json.RawMessage) string {
	var b bytes.Buffer
	if !strings.HasSuffix(result, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("\n" + metadataOpen + "\n{")
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k) // a string always marshals
		b.Write(kb)
		b.WriteByte(':')
		if err := json.Compact(&b, fields[k]); err != nil {
			b.Write(fields[k]) // already validated by the decoder; kept as sent
		}
	}
	b.WriteString("}\n" + metadataClose + "\n")
	return b.String()
}
