package config

import (
	"fmt"
	"strconv"
	"strings"
)

// plainKey reports whether key can be written after a dot in a path; other
// keys are written as ["key"].
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// joinPath appends key to the path p: p.key or p["key"].
func joinPath(p, key string) string {
	switch {
	case !plainKey(key):
		return p + "[" + strconv.Quote(key) + "]"
	case p == "":
		return key
	}
	return p + "." + key
}

// indexPath appends an array index to p.
func indexPath(p string, i int) string { return fmt.Sprintf("%s[%d]", p, i) }

// pathOf joins keys into a path.
func pathOf(keys ...string) string {
	p := ""
	for _, k := range keys {
		p = joinPath(p, k)
	}
	return p
}

// serverPath returns the path of a server or of a key below it.
func serverPath(name string, keys ...string) string {
	return pathOf(append([]string{"tools", "mcp", "servers", name}, keys...)...)
}

// parseSet splits a --set item "path=value" into the path's keys and the
// value text. Keys are separated by dots; a key containing dots (or any
// character other than letters, digits, _ and -) is written in brackets as a
// double-quoted string: tools.mcp.servers["my.server"].enabled=true. The
// first = outside brackets ends the path.
func parseSet(item string) (keys []string, value string, err error) {
	rest := item
	expectKey := true
	for {
		switch {
		case strings.HasPrefix(rest, "["):
			key, n, err := quotedKey(rest)
			if err != nil {
				return nil, "", err
			}
			keys, rest, expectKey = append(keys, key), rest[n:], false
		case strings.HasPrefix(rest, "=") && !expectKey:
			return keys, rest[1:], nil
		case strings.HasPrefix(rest, ".") && !expectKey:
			rest, expectKey = rest[1:], true
		case expectKey:
			end := strings.IndexAny(rest, ".[=")
			if end <= 0 {
				return nil, "", setSyntaxError(end)
			}
			keys, rest, expectKey = append(keys, rest[:end]), rest[end:], false
		default:
			return nil, "", fmt.Errorf(`expected ".", "[" or "=" after %q`, pathOf(keys...))
		}
	}
}

func setSyntaxError(end int) error {
	if end < 0 {
		return fmt.Errorf(`missing "=": write --set path=value, e.g. --set tools.mcp.enabled=true`)
	}
	return fmt.Errorf(`empty key in the path: write keys separated by single dots, e.g. tools.mcp.discovery.ttl=3`)
}

// quotedKey reads ["key"] at the start of s and returns the key and the
// length read.
func quotedKey(s string) (string, int, error) {
	bad := fmt.Errorf(`a bracketed key must be a double-quoted string, e.g. servers["my.server"]`)
	if len(s) < 2 || s[1] != '"' {
		return "", 0, bad
	}
	for i := 2; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			key, err := strconv.Unquote(s[1 : i+1])
			if err != nil || i+1 >= len(s) || s[i+1] != ']' {
				return "", 0, bad
			}
			return key, i + 2, nil
		}
	}
	return "", 0, bad
}

// JSONPath returns the JSON path of keys as messages write it, e.g.
// tools.mcp.discovery.ttl or tools.mcp.servers["my.server"].
func JSONPath(keys ...string) string { return pathOf(keys...) }

// ServerPath returns the JSON path of a server entry or of a key below it,
// e.g. tools.mcp.servers.github.command or tools.mcp.servers["my.server"].type,
// for messages that point the user at the place to fix.
func ServerPath(name string, keys ...string) string { return serverPath(name, keys...) }
