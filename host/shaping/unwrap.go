package shaping

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// KnownResultKeys returns the keys that may sit beside "result" in a text
// result that Unwrap rewrites, sorted. A wrapper with any other key is left
// verbatim, since its meaning is unknown.
func KnownResultKeys() []string { return slices.Clone(knownResultKeys[:]) }

var knownResultKeys = [...]string{
	"content_type", "count", "cursor", "duration_ms", "elapsed_ms", "encoding", "error", "format",
	"has_more", "id", "language", "length", "message", "metadata", "mimeType", "mime_type",
	"next_cursor", "ok", "page", "path", "request_id", "source", "status", "success",
	"timestamp", "took_ms", "total", "truncated", "url", "warnings",
}

// Tags of the block Unwrap appends for the keys beside "result".
const (
	metadataOpen  = "<mcp-result-metadata>"
	metadataClose = "</mcp-result-metadata>"
)

// Unwrap rewrites an oversized text result (one text item of more than
// budget characters) that is a JSON object {"result": "<non-empty string>",
// …} whose other keys are all in KnownResultKeys(): the text becomes the
// result string, with real newlines, followed by a <mcp-result-metadata>
// block holding the other keys as a JSON object (keys sorted, values as the
// server wrote them). Anything else — another shape, an unknown or repeated
// key, a result that is not a non-empty string — stays verbatim; a result
// string that itself holds JSON is not unwrapped further. A budget of 0 or
// less disables the link. Only the
// text changes: structuredContent and _meta are not part of the rewrite.
func Unwrap(budget int) Middleware {
	if budget <= 0 {
		return func(next Handler) Handler { return next }
	}
	return func(next Handler) Handler {
		return func(ctx context.Context, call Call) (*mcp.CallToolResult, error) {
			res, err := next(ctx, call)
			if err != nil || res == nil {
				return res, err
			}
			text, n := textOf(res)
			if n != 1 || len(text) <= budget || !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") ||
				utf8.RuneCountInString(text) <= budget {
				return res, nil
			}
			unwrapped, ok := UnwrapText(text)
			if !ok {
				return res, nil
			}
			rec := recordOf(ctx)
			rec.unwrapped = true
			rec.keepPayload(unwrapped)
			return withText(res, unwrapped), nil
		}
	}
}

// UnwrapText applies Unwrap's rule to one text regardless of its size and
// reports whether it did.
func UnwrapText(text string) (string, bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return "", false
	}
	fields, ok := objectFields(trimmed)
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
	return result + metadataBlock(result, fields), true
}

// objectFields decodes a JSON object's members with their raw values; it
// fails on anything but exactly one object, and on a repeated key (decoding
// would silently drop one of them).
func objectFields(s string) (map[string]json.RawMessage, bool) {
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

// metadataBlock renders the keys beside "result" as a compact JSON object
// (keys sorted) inside the metadata tags, on lines of their own.
func metadataBlock(result string, fields map[string]json.RawMessage) string {
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
