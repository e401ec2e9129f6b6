package config

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
)

const (
	envPrefix = "PLUGHOST_"
	// EnvConfigFile names the user config file when no explicit one is given.
	EnvConfigFile = "PLUGHOST_CONFIG"
)

// envVar is one environment variable that addresses a config path.
type envVar struct {
	name, value string
}

// configVars returns the PLUGHOST_ variables of environ that address config
// paths, sorted by name (a later duplicate wins). A variable addresses a path
// when its name after the prefix contains "__" or is TOOLS; others, such as
// PLUGHOST_CONFIG, are not config paths and are left to their users.
func configVars(environ []string) []envVar {
	var vars []envVar
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		rest, hasPrefix := strings.CutPrefix(name, envPrefix)
		if !ok || !hasPrefix || name == EnvConfigFile {
			continue
		}
		if strings.Contains(rest, "__") || strings.EqualFold(rest, "tools") {
			vars = append(vars, envVar{name: name, value: value})
		}
	}
	slices.SortStableFunc(vars, func(a, b envVar) int { return cmp.Compare(a.name, b.name) })
	return vars
}

// lookupEnv returns the value of name in environ (the last one wins). On
// Windows, whose variable names ignore case, Path is PATH.
func lookupEnv(environ []string, name string) string {
	value := ""
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == name || runtime.GOOS == "windows" && strings.EqualFold(k, name)) {
			value = v
		}
	}
	return value
}

// homeOf returns the user's home directory that environ names: HOME, on
// Windows USERPROFILE, as os.UserHomeDir reads them.
func homeOf(environ []string) string {
	if runtime.GOOS == "windows" {
		return lookupEnv(environ, "USERPROFILE")
	}
	return lookupEnv(environ, "HOME")
}

// envKeys maps the segments of a variable name to config keys. Schema keys
// are matched ignoring case. A map key (a server name, an env or header name,
// a plugin type) matches an existing key of the lower layers exactly, else
// ignoring case; a new one is lowercased, except env and header names, which
// are kept as written.
func envKeys(root *node, segs []string, current map[string]any) []string {
	keys := make([]string, 0, len(segs))
	n, cur := root, any(current)
	for _, seg := range segs {
		key := strings.ToLower(seg)
		if n != nil && n.kind == kindMap {
			key = mapKey(seg, keys, cur)
		}
		keys = append(keys, key)
		n, cur = descend(n, key), descendValue(cur, key)
	}
	return keys
}

func mapKey(seg string, parents []string, cur any) string {
	m, _ := cur.(map[string]any)
	if _, ok := m[seg]; ok {
		return seg
	}
	var match []string
	for k := range m {
		if strings.EqualFold(k, seg) {
			match = append(match, k)
		}
	}
	if len(match) == 1 {
		return match[0]
	}
	if p := parents[len(parents)-1]; p == "env" || p == "headers" {
		return seg
	}
	return strings.ToLower(seg)
}

func descend(n *node, key string) *node {
	switch {
	case n == nil:
		return nil
	case n.kind == kindObject:
		return n.fields[key]
	case n.kind == kindMap:
		return n.elem
	}
	return nil
}

func descendValue(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

// leafBelow returns a message if keys go below a value that has no keys (a
// boolean, a number, a string or an array), else "".
func leafBelow(root *node, keys []string) string {
	n := root
	for i, key := range keys {
		if n != nil && n.kind != kindObject && n.kind != kindMap {
			return fmt.Sprintf("%s is %s and has no keys below it, so %q cannot be set",
				pathOf(keys[:i]...), n.describe(), pathOf(keys...))
		}
		n = descend(n, key)
	}
	return ""
}

// nest builds the layer {k1: {k2: ... value}}.
func nest(keys []string, value any) map[string]any {
	for i := len(keys) - 1; i > 0; i-- {
		value = map[string]any{keys[i]: value}
	}
	return map[string]any{keys[0]: value}
}
