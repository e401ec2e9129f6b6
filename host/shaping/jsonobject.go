package shaping

import "encoding/json"

// scanObject checks that s is exactly one valid JSON object, with nothing but
// JSON whitespace around it, and calls visit for each member in order with
// the decoded key and the value as written (a substring of s, so nothing is
// copied). It returns false as soon as s proves invalid or visit returns
// false. String values are checked here in one pass over their bytes; other
// values are delimited here and checked by json.Valid, which does not
// allocate. Members before an invalid part may already have been visited.
func scanObject(s string, visit func(key, value string) bool) bool {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return skipSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return false
		}
		keyEnd, ok := stringEnd(s, i)
		if !ok {
			return false
		}
		key := decodeKey(s[i:keyEnd])
		i = skipSpace(s, keyEnd)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		i = skipSpace(s, i+1)
		end, ok := valueEnd(s, i)
		if !ok || !visit(key, s[i:end]) {
			return false
		}
		i = skipSpace(s, end)
		if i >= len(s) {
			return false
		}
		switch s[i] {
		case ',':
			i = skipSpace(s, i+1)
		case '}':
			return skipSpace(s, i+1) == len(s)
		default:
			return false
		}
	}
}

// valueEnd returns the index just past the valid JSON value that starts at
// s[i], or false if there is none.
func valueEnd(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	var end int
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		var ok bool
		if end, ok = compositeEnd(s, i); !ok {
			return 0, false
		}
	default: // a number, true, false or null: up to the next delimiter
		end = i
		for end < len(s) && !isValueDelim(s[end]) {
			end++
		}
	}
	// []byte(…) is not copied: the compiler sees that json.Valid only reads it.
	return end, end > i && json.Valid([]byte(s[i:end]))
}

// compositeEnd returns the index just past the bracket that closes the
// object or array opening at s[i], skipping (and checking) strings; the
// value in between is not checked.
func compositeEnd(s string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			end, ok := stringEnd(s, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isValueDelim(c byte) bool { return isSpace(c) || c == ',' || c == '}' || c == ']' }
