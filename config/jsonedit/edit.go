package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// defaultUnit is the indentation step of a document that shows none.
const defaultUnit = "  "

// load parses data; a blank document is an empty object.
func load(data []byte) ([]byte, *node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := parse(data)
	return data, root, err
}

// Get returns the raw text of the value at keys, and whether it exists.
func Get(data []byte, keys ...string) (json.RawMessage, bool, error) {
	data, root, err := load(data)
	if err != nil {
		return nil, false, err
	}
	n, depth, err := walk(root, keys)
	if err != nil || depth < len(keys) {
		return nil, false, err
	}
	return json.RawMessage(data[n.start:n.end]), true, nil
}

// Keys returns the keys of the object at keys in document order (a repeated
// key once), or nil if there is no value there. A value that is not an
// object is an error.
func Keys(data []byte, keys ...string) ([]string, error) {
	_, root, err := load(data)
	if err != nil {
		return nil, err
	}
	n, depth, err := walk(root, keys)
	if err != nil || depth < len(keys) {
		return nil, err
	}
	if n.kind != '{' {
		return nil, &NotObjectError{Keys: keys}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range n.members {
		if !seen[m.key] {
			seen[m.key] = true
			out = append(out, m.key)
		}
	}
	return out, nil
}

// Set sets the value at keys to value (encoded with encoding/json; a
// json.RawMessage is used as it is, keeping its number text), creating the
// objects on the way. An existing member keeps its place; a new one is added
// after its siblings. At least one key is required.
func Set(data []byte, value any, keys ...string) ([]byte, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("jsonedit: Set needs at least one key")
	}
	for _, k := range keys {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("jsonedit: key %q is not valid UTF-8", k)
		}
	}
	raw, err := encode(value)
	if err != nil {
		return nil, err
	}
	data, root, err := load(data)
	if err != nil {
		return nil, err
	}
	n, depth, err := walk(root, keys)
	if err != nil {
		return nil, err
	}
	ed := editor{data: data, unit: unitOf(data, root)}
	if depth == len(keys) {
		parent, _, _ := walk(root, keys[:len(keys)-1])
		m, _, _ := parent.find(keys[len(keys)-1])
		return ed.replace(parent, m, raw), nil
	}
	if n.kind != '{' {
		return nil, &NotObjectError{Keys: keys[:depth]}
	}
	for i := len(keys) - 1; i > depth; i-- {
		raw = wrap(keys[i], raw)
	}
	return ed.insert(n, keys[depth], raw), nil
}

// Delete removes the member at keys (every occurrence of a repeated key) and
// reports whether there was one.
func Delete(data []byte, keys ...string) ([]byte, bool, error) {
	if len(keys) == 0 {
		return nil, false, fmt.Errorf("jsonedit: Delete needs at least one key")
	}
	orig := data
	data, root, err := load(data)
	if err != nil {
		return nil, false, err
	}
	parent, depth, err := walk(root, keys[:len(keys)-1])
	if err != nil || depth < len(keys)-1 || parent.kind != '{' {
		return orig, false, err
	}
	found := false
	for {
		_, i, ok := parent.find(keys[len(keys)-1])
		if !ok && !found {
			return orig, false, nil
		}
		if !ok {
			return data, true, nil
		}
		found = true
		data = remove(data, parent, i)
		if root, err = parse(data); err != nil {
			return nil, false, fmt.Errorf("jsonedit: delete produced invalid JSON: %w", err)
		}
		parent, _, _ = walk(root, keys[:len(keys)-1])
	}
}

// remove cuts member i out of obj together with one separating comma.
func remove(data []byte, obj *node, i int) []byte {
	ms := obj.members
	var from, to int
	switch {
	case len(ms) == 1:
		from, to = obj.start+1, obj.end-1
	case i < len(ms)-1:
		from, to = ms[i].keyStart, ms[i+1].keyStart
	default:
		from, to = ms[i-1].val.end, ms[i].val.end
	}
	return splice(data, from, to, nil)
}

func splice(data []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(with))
	out = append(out, data[:from]...)
	out = append(out, with...)
	return append(out, data[to:]...)
}

// encode turns value into compact JSON without HTML escaping.
func encode(value any) ([]byte, error) {
	if raw, ok := value.(json.RawMessage); ok {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, fmt.Errorf("jsonedit: value: %w", err)
		}
		return buf.Bytes(), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		return nil, fmt.Errorf("jsonedit: encode value: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// wrap returns {"key": raw}.
func wrap(key string, raw []byte) []byte {
	k, _ := encode(key) // a string always encodes
	return append(append(append([]byte("{"), k...), ':'), append(raw, '}')...)
}

// editor formats inserted values like the document around them.
type editor struct {
	data []byte
	unit string
}

// layout is how an object lays out its members.
type layout struct {
	pretty bool   // one member per line
	indent string // leading whitespace of a member line
	sep    string // between a key and its value, e.g. ": "
	comma  string // after a comma in a one-line object, e.g. " "
}

func (ed editor) layoutOf(obj *node) layout {
	if len(obj.members) == 0 {
		// An empty object shows no layout: follow the document's (one that
		// is only "{}" gets the pretty form).
		before := strings.TrimPrefix(string(bytes.TrimSpace(ed.data[:obj.start])), bom)
		pretty := bytes.IndexByte(bytes.TrimSpace(ed.data), '\n') >= 0 || before == ""
		l := layout{pretty: pretty, indent: lineIndent(ed.data, obj.start) + ed.unit, sep: ":"}
		if pretty {
			l.sep = ": "
		}
		return l
	}
	first := obj.members[0]
	gap := string(ed.data[obj.start+1 : first.keyStart])
	l := layout{sep: string(ed.data[first.keyEnd:first.val.start]), comma: " "}
	if i := strings.LastIndexByte(gap, '\n'); i >= 0 {
		l.pretty, l.indent = true, gap[i+1:]
	} else if gap == "" && !strings.Contains(l.sep, " ") {
		l.comma = ""
	}
	return l
}

func (ed editor) format(raw []byte, l layout) []byte {
	if !l.pretty {
		return raw
	}
	var buf bytes.Buffer
	_ = json.Indent(&buf, raw, l.indent, ed.unit) // raw is valid compact JSON
	return buf.Bytes()
}

func (ed editor) replace(parent *node, m member, raw []byte) []byte {
	return splice(ed.data, m.val.start, m.val.end, ed.format(raw, ed.layoutOf(parent)))
}

func (ed editor) insert(obj *node, key string, raw []byte) []byte {
	l := ed.layoutOf(obj)
	k, _ := encode(key)
	entry := append(append(k, l.sep...), ed.format(raw, l)...)
	if len(obj.members) == 0 {
		var inner []byte
		if l.pretty {
			own := lineIndent(ed.data, obj.start)
			inner = append(append([]byte("\n"+l.indent), entry...), "\n"+own...)
		} else {
			inner = entry
		}
		return splice(ed.data, obj.start+1, obj.end-1, inner)
	}
	last := obj.members[len(obj.members)-1].val.end
	var add []byte
	if l.pretty {
		add = append([]byte(",\n"+l.indent), entry...)
	} else {
		add = append([]byte(","+l.comma), entry...)
	}
	return splice(ed.data, last, last, add)
}

// lineIndent returns the whitespace that begins the line holding pos.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// unitOf guesses the document's indentation step from the first object laid
// out one member per line.
func unitOf(data []byte, n *node) string {
	if n.kind != '{' || len(n.members) == 0 {
		return defaultUnit
	}
	gap := string(data[n.start+1 : n.members[0].keyStart])
	if i := strings.LastIndexByte(gap, '\n'); i >= 0 {
		own := lineIndent(data, n.start)
		if step, ok := strings.CutPrefix(gap[i+1:], own); ok && step != "" {
			return step
		}
	}
	for _, m := range n.members {
		if u := unitOf(data, m.val); u != defaultUnit {
			return u
		}
	}
	return defaultUnit
}
