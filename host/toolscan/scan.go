package toolscan

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// A textKind says which rules a piece of text is checked against.
type textKind int

const (
	kindName      textKind = iota // the tool's name: hidden characters only
	kindProse                     // description, title, default, enum …: every rule
	kindParamName                 // a property name: hidden characters, secrets, instructions
)

// text is one string of a definition and where it sits.
type text struct {
	field    string
	s        string
	kind     textKind
	inSchema bool // inside inputSchema or outputSchema
	long     int  // length in characters above which it is "very long"; 0: no limit
}

// param is one property of the input schema.
type param struct {
	name, field, desc string
}

// maxTextChars is the length above which a description (or any other text
// of a definition) is "very long" for the hidden-text rule; see
// docs/security.md for why this number.
const maxTextChars = 5000

// Scan checks one tool definition as a server lists it (a JSON object with
// name, description, inputSchema, outputSchema, annotations; unknown keys
// ignored) and returns its findings, in a stable order; nil when clean. A
// definition that is not a JSON object is one finding-free nil (the registry
// already drops those). The snake_case keys input_schema and output_schema,
// as plughost tools --json prints them, are read too.
func Scan(def json.RawMessage) []Finding {
	var obj map[string]json.RawMessage
	if json.Unmarshal(def, &obj) != nil || obj == nil {
		return nil
	}
	texts, params := collect(obj)
	name := stringOf(obj["name"])
	var fs findings
	for _, t := range texts {
		checkText(&fs, t, name)
	}
	checkParams(&fs, texts, params)
	return fs.sorted()
}

// collect lists every string of the definition a model reads, in a fixed
// order, and the input schema's parameters.
func collect(obj map[string]json.RawMessage) ([]text, []param) {
	var texts []text
	add := func(field string, raw json.RawMessage, kind textKind, long int) {
		if s := stringOf(raw); s != "" {
			texts = append(texts, text{field: field, s: s, kind: kind, long: long})
		}
	}
	add("name", obj["name"], kindName, 0)
	add("title", obj["title"], kindProse, maxTextChars)
	add("description", obj["description"], kindProse, maxTextChars)
	if raw, ok := obj["annotations"]; ok {
		var ann map[string]json.RawMessage
		if json.Unmarshal(raw, &ann) == nil {
			for _, k := range sortedKeys(ann) {
				add("annotations."+k, ann[k], kindProse, maxTextChars)
			}
		}
	}
	var params []param
	for _, key := range []string{"inputSchema", "input_schema", "outputSchema", "output_schema"} {
		raw, ok := obj[key]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		w := walker{texts: &texts}
		if strings.HasPrefix(key, "in") {
			w.params = &params
		}
		w.schema(key, v)
	}
	return texts, params
}

// walker collects the strings of a JSON schema that a model reads.
type walker struct {
	texts  *[]text
	params *[]param // nil for the output schema
	depth  int
}

// proseKeys are the schema keywords whose strings are text for the model.
var proseKeys = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"enum": true, "const": true, "$comment": true, "example": true,
}

func (w walker) schema(path string, v any) {
	if w.depth > 32 { // a schema deeper than this is not for a model either
		return
	}
	w.depth++
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			sub := path + "." + k
			switch {
			case k == "properties":
				w.properties(sub, v[k])
			case proseKeys[k]:
				w.strings(sub, v[k])
			default:
				w.schema(sub, v[k])
			}
		}
	case []any:
		for i, e := range v {
			w.schema(path+"["+strconv.Itoa(i)+"]", e)
		}
	}
}

func (w walker) properties(path string, v any) {
	props, ok := v.(map[string]any)
	if !ok {
		w.schema(path, v)
		return
	}
	for _, name := range sortedKeys(props) {
		field := path + "." + name
		*w.texts = append(*w.texts, text{field: field, s: name, kind: kindParamName, inSchema: true})
		if w.params != nil && w.depth == 1 {
			p := param{name: name, field: field}
			if m, ok := props[name].(map[string]any); ok {
				p.desc, _ = m["description"].(string)
			}
			*w.params = append(*w.params, p)
		}
		w.schema(field, props[name])
	}
}

// strings collects the strings under a prose keyword (a string, or arrays
// of them as enum and examples hold).
func (w walker) strings(path string, v any) {
	switch v := v.(type) {
	case string:
		if v != "" {
			*w.texts = append(*w.texts, text{field: path, s: v, kind: kindProse, inSchema: true, long: maxTextChars})
		}
	case []any:
		for i, e := range v {
			w.strings(path+"["+strconv.Itoa(i)+"]", e)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			w.strings(path+"."+k, v[k])
		}
	}
}

func stringOf(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// findings collects findings, one per rule and field.
type findings struct {
	list []Finding
	seen map[[2]string]bool
}

func (f *findings) add(rule, field, excerpt string) {
	key := [2]string{rule, field}
	if f.seen[key] {
		return
	}
	if f.seen == nil {
		f.seen = map[[2]string]bool{}
	}
	f.seen[key] = true
	f.list = append(f.list, Finding{Rule: rule, Field: field, Excerpt: excerpt})
}

// sorted keeps the fields in the order they were collected and orders
// each field's findings by rule.
func (f *findings) sorted() []Finding {
	order := map[string]int{}
	for _, x := range f.list {
		if _, ok := order[x.Field]; !ok {
			order[x.Field] = len(order)
		}
	}
	sort.SliceStable(f.list, func(i, j int) bool {
		a, b := f.list[i], f.list[j]
		if order[a.Field] != order[b.Field] {
			return order[a.Field] < order[b.Field]
		}
		return ruleRank(a.Rule) < ruleRank(b.Rule)
	})
	return f.list
}
