package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// rawText is a value written as text (an environment variable or a --set
// item): it is read as JSON when it is valid JSON, else as a string.
type rawText string

// layerProblem is a problem found in one layer, with what Loaded.Validate
// needs to classify it.
type layerProblem struct {
	err    *ValidationError
	server string // the server it concerns, if inServer
	// inServer is set for problems at or below tools.mcp.servers.<name>.
	inServer bool
	// extraKey is set for an unknown key directly in a server object, which is
	// reported only if the server's transport is built in.
	extraKey bool
}

// checker checks one layer against the schema, reports unknown keys and
// wrong types, and returns the layer with the bad values removed so that the
// merged result always decodes.
type checker struct {
	source string // where the layer comes from, for messages
	probs  []layerProblem
}

// loc is a position in a layer: the keys leading to it and its path.
type loc struct {
	keys []string
	path string
}

func (l loc) child(key string) loc {
	return loc{keys: append(slices.Clip(l.keys), key), path: joinPath(l.path, key)}
}

func (l loc) index(i int) loc {
	return loc{keys: l.keys, path: indexPath(l.path, i)}
}

// server returns the server a location is in, if any.
func (l loc) server() (string, bool) {
	if len(l.keys) >= 4 && l.keys[0] == "tools" && l.keys[1] == "mcp" && l.keys[2] == "servers" {
		return l.keys[3], true
	}
	return "", false
}

func (c *checker) add(at loc, extraKey bool, msg string) {
	name, inServer := at.server()
	c.probs = append(c.probs, layerProblem{
		err:    &ValidationError{Path: at.path, Msg: msg},
		server: name, inServer: inServer, extraKey: extraKey,
	})
}

// in returns " in <source>" for messages.
func (c *checker) in() string {
	if c.source == "" {
		return ""
	}
	return " in " + c.source
}

// check returns v cleaned for n and whether anything usable is left.
func (c *checker) check(n *node, v any, at loc) (any, bool) {
	if t, ok := v.(rawText); ok {
		v = coerce(n, string(t))
	}
	if v == nil {
		if !n.nullable {
			c.typeError(n, v, at)
		}
		return nil, n.nullable
	}
	switch n.kind {
	case kindObject:
		return c.object(n, v, at)
	case kindMap:
		return c.mapping(n, v, at)
	case kindList:
		return c.list(n, v, at)
	}
	return c.scalar(n, v, at)
}

func (c *checker) object(n *node, v any, at loc) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.typeError(n, v, at)
		return nil, false
	}
	out := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		f := n.fields[key]
		if f == nil {
			c.add(at.child(key), n.open, unknownKeyMsg(key, n.names, c.in()))
			if n.open {
				out[key] = plain(m[key])
			}
			continue
		}
		if cv, ok := c.check(f, m[key], at.child(key)); ok {
			out[key] = cv
		}
	}
	return out, true
}

func (c *checker) mapping(n *node, v any, at loc) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.typeError(n, v, at)
		return nil, false
	}
	out := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(m)) {
		v := m[key]
		if t, ok := v.(rawText); ok {
			v = coerce(n.elem, string(t))
		}
		// A null server removes a server defined by a lower layer.
		if v == nil && n.elem.open {
			out[key] = nil
			continue
		}
		if cv, ok := c.check(n.elem, v, at.child(key)); ok {
			out[key] = cv
		}
	}
	return out, true
}

func (c *checker) list(n *node, v any, at loc) (any, bool) {
	items, ok := v.([]any)
	if !ok {
		c.typeError(n, v, at)
		return nil, false
	}
	out := make([]any, 0, len(items))
	good := true
	for i, item := range items {
		cv, ok := c.check(n.elem, item, at.index(i))
		good = good && ok && cv != nil
		out = append(out, cv)
	}
	// A list with a bad item is dropped whole: a partial list would silently
	// change the meaning (of args, say).
	return out, good
}

func (c *checker) scalar(n *node, v any, at loc) (any, bool) {
	switch n.kind {
	case kindBool:
		if _, ok := v.(bool); ok {
			return v, true
		}
	case kindString:
		if _, ok := v.(string); ok {
			return v, true
		}
	case kindInt:
		if num, ok := v.(json.Number); ok {
			if i, ok := asInt(num); ok {
				return i, true
			}
		}
	case kindNumber:
		if num, ok := v.(json.Number); ok {
			if f, err := num.Float64(); err == nil && !math.IsInf(f, 0) {
				return num, true
			}
			c.add(at, false, fmt.Sprintf("number %s is out of range%s; %s", trunc(string(num)), c.in(), n.hint()))
			return nil, false
		}
	}
	c.typeError(n, v, at)
	return nil, false
}

// asInt returns num as an integer JSON number if it is a whole number that
// fits an int (5.0 is accepted and normalised to 5).
func asInt(num json.Number) (json.Number, bool) {
	if i, err := strconv.ParseInt(string(num), 10, 64); err == nil && i == int64(int(i)) {
		return json.Number(strconv.FormatInt(i, 10)), true
	}
	f, err := num.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return "", false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}

func (c *checker) typeError(n *node, v any, at loc) {
	msg := fmt.Sprintf("expected %s, got %s%s; %s", n.describe(), describeValue(v, n.hidesValues()), c.in(), n.hint())
	c.add(at, false, msg)
}

// describeValue names a JSON value for a message, quoting it unless hide.
func describeValue(v any, hide bool) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if hide {
			return "a boolean"
		}
		return "boolean " + strconv.FormatBool(v)
	case json.Number:
		if hide {
			return "a number"
		}
		return "number " + trunc(string(v))
	case string:
		if hide {
			return "a string"
		}
		return "string " + strconv.Quote(trunc(v))
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// trunc shortens s for a message.
func trunc(s string) string {
	const limit = 40
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-3]) + "..."
	}
	return s
}

// unknownKeyMsg reports an unknown key, suggesting the closest known one;
// in says where the key was found (may be empty).
func unknownKeyMsg(key string, known []string, in string) string {
	if s := closest(key, known); s != "" {
		return fmt.Sprintf("unknown key %q (did you mean %q?)%s", trunc(key), s, in)
	}
	return fmt.Sprintf("unknown key %q%s; remove it or use one of the known keys: %s", trunc(key), in, strings.Join(known, ", "))
}

// coerce reads text for n: JSON when it is valid JSON, else the text itself.
// Where a string is expected the text is taken as is, so that
// PLUGHOST_..._COMMAND=123 means the string "123"; where a boolean is
// expected TRUE and False are accepted too.
func coerce(n *node, text string) any {
	if n.kind == kindBool {
		switch strings.ToLower(text) {
		case "true":
			return true
		case "false":
			return false
		}
	}
	v, err := decodeJSON([]byte(text))
	if err != nil {
		return text
	}
	if _, isString := v.(string); n.kind == kindString && !isString {
		return text
	}
	return v
}

// plain turns the rawText values of an unchecked subtree into what they hold.
func plain(v any) any {
	switch v := v.(type) {
	case rawText:
		if d, err := decodeJSON([]byte(v)); err == nil {
			return d
		}
		return string(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plain(e)
		}
		return out
	}
	return v
}
