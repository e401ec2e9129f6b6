package search

import "strings"

// exactKey normalises an identifier or a query for exact-match comparison:
// split like the analyzer (separators, camelCase), lower-cased, joined by one
// space, but neither stemmed nor stripped of stop words. So
// "get_file_contents", "Get-File-Contents", "getFileContents" and
// "get file contents" share a key.
func exactKey(s string) string {
	spans := identSpans([]byte(s))
	parts := make([]string, len(spans))
	for i, sp := range spans {
		parts[i] = strings.ToLower(s[sp[0]:sp[1]])
	}
	return strings.Join(parts, " ")
}

// exactKeys returns the keys under which d is an exact match: its ID, its
// tool name, and server + tool name.
func exactKeys(d Doc) []string {
	keys := []string{exactKey(d.ID), exactKey(d.Name), exactKey(d.Server + " " + d.Name)}
	out := keys[:0]
	seen := map[string]bool{"": true}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
