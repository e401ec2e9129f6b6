package shaping

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plughost/plughost/host/callresult"
	"github.com/plughost/plughost/lib/rawjson"
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
	return onResult(func(ctx context.Context, call Call, res callresult.Result) callresult.Result {
		text, n := textOf(res)
		if n != 1 || len(text) <= budget || !strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") ||
			utf8.RuneCountInString(text) <= budget {
			return res
		}
		unwrapped, ok := UnwrapText(text)
		if !ok {
			return res
		}
		rec := call.record()
		rec.unwrapped = true
		rec.keepPayload(unwrapped)
		return withText(res, unwrapped)
	})
}

// UnwrapText applies Unwrap's rule to one text regardless of its size and
// reports whether it did. Its extra memory is the unwrapped text plus the
// metadata block: the object is scanned in place, and the result string is
// decoded straight into a buffer of its final size (a first pass counts).
func UnwrapText(text string) (string, bool) {
	result, siblings, ok := wrappedMembers(text)
	if !ok || result[0] != '"' {
		return "", false
	}
	quoted := result[1 : len(result)-1]
	n := rawjson.Unquote(quoted, nil)
	if n == 0 {
		return "", false
	}
	if len(siblings) == 0 {
		var b strings.Builder
		b.Grow(n)
		rawjson.Unquote(quoted, &b)
		return b.String(), true
	}
	meta := metadataBlock(siblings)
	var b strings.Builder
	b.Grow(n + 1 + len(meta)) // 1 for the newline a result without one gets
	rawjson.Unquote(quoted, &b)
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(meta)
	return b.String(), true
}

// wrappedMembers returns the raw value of "result" and the other members of
// text if it is exactly one JSON object (around whitespace) that has a
// "result" and no other keys than KnownResultKeys(), none repeated.
func wrappedMembers(text string) (result string, siblings []member, ok bool) {
	trimmed := strings.TrimSpace(text)
	if !strings.HasPrefix(trimmed, "{") {
		return "", nil, false
	}
	ok = rawjson.ScanObject(trimmed, func(key, value string) bool {
		switch {
		case key == "result" && result != "", // a raw value is never ""
			slices.ContainsFunc(siblings, func(m member) bool { return m.key == key }):
			return false // a repeated key: decoding would silently drop one
		case key == "result":
			result = value
		case slices.Contains(knownResultKeys[:], key):
			siblings = append(siblings, member{key, value})
		default:
			return false
		}
		return true
	})
	return result, siblings, ok && result != ""
}

// member is one member of a JSON object: its decoded key and its value as
// written.
type member struct{ key, value string }

// metadataBlock renders the members beside "result" as a compact JSON object
// (keys sorted, values as sent) inside the metadata tags, on lines of their
// own; the newline that ends the result is not part of it.
func metadataBlock(members []member) string {
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	var b bytes.Buffer
	b.WriteString("\n" + metadataOpen + "\n{")
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		// Known keys need no escaping, so the quoted key is what
		// json.Marshal would write.
		b.WriteByte('"')
		b.WriteString(m.key)
		b.WriteString(`":`)
		if err := json.Compact(&b, []byte(m.value)); err != nil {
			b.WriteString(m.value) // already validated by scanObject; kept as sent
		}
	}
	b.WriteString("}\n" + metadataClose + "\n")
	return b.String()
}
