package rawjson

import "encoding/json"

// ScanObject checks that s is exactly one valid JSON object, with nothing but
// JSON whitespace around it, and calls visit for each member in order with
// the decoded key and the value as written (a substring of s, so nothing is
// copied). It returns false as soon as s proves invalid or visit returns
// false. String values are checked here in one pass over their bytes; other
// values are delimited here and checked by json.Valid, which does not
// allocate. Members before an invalid part may already have been visited.
func ScanObject(s string, visit func(key, value string) bool) bool {
	return ScanMembers(s, func(key string, start, end int) bool { return visit(key, s[start:end]) })
}

// ScanMembers is ScanObject reporting each value as its bounds in s
// (s[start:end]), so a caller holding the bytes behind s can slice them.
func ScanMembers(s string, visit func(key string, start, end int) bool) bool {
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
		keyEnd, ok := StringEnd(s, i)
		if !ok {
			return false
		}
		key := DecodeString(s[i:keyEnd])
		i = skipSpace(s, keyEnd)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		i = skipSpace(s, i+1)
		end, ok := ValueEnd(s, i)
		if !ok || !visit(key, i, end) {
			return false
		}
		i, ok = next(s, end, '}')
		if !ok || i < 0 {
			return ok
		}
	}
}

// ScanElements checks that s is exactly one valid JSON array, with nothing
// but JSON whitespace around it, and calls visit with the bounds of each
// element in s, in order. It returns false as soon as s proves invalid or
// visit returns false.
func ScanElements(s string, visit func(start, end int) bool) bool {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return skipSpace(s, i+1) == len(s)
	}
	for {
		end, ok := ValueEnd(s, i)
		if !ok || !visit(i, end) {
			return false
		}
		i, ok = next(s, end, ']')
		if !ok || i < 0 {
			return ok
		}
	}
}

// next moves past the separator after a member or element ending at end:
// the start of the next one, or -1 with true when closer ended the object or
// array (and only whitespace follows), or false when s is invalid there.
func next(s string, end int, closer byte) (int, bool) {
	i := skipSpace(s, end)
	switch {
	case i >= len(s):
		return 0, false
	case s[i] == ',':
		return skipSpace(s, i+1), true
	case s[i] == closer:
		return -1, skipSpace(s, i+1) == len(s)
	}
	return 0, false
}

// ValueEnd returns the index just past the valid JSON value that starts at
// s[i], or false if there is none.
func ValueEnd(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	var end int
	switch s[i] {
	case '"':
		return StringEnd(s, i)
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
			end, ok := StringEnd(s, j)
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
