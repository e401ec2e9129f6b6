// Package catalog holds the one-click server presets the dashboard
// offers (the Catalog tab, GET /api/catalog): popular MCP servers with the
// credentials and arguments each needs. The catalog is data, not code: an
// embedded JSON file (presets.json), which a user file
// (~/.plughost/catalog.json, same format) extends or overrides preset by
// preset. Every preset is validated when loaded; Build turns one into a
// config.Server from the values a user typed, which front ends then add
// through package manage (so the config validator applies, as for any server).
//
// The file format is documented in docs/api.md ("Catalog file").
package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/secret"
)

//go:embed presets.json
var embedded []byte

// Credential kinds: where a credential is stored in the server entry.
const (
	KindEnv    = "env"    // an environment variable of a stdio server
	KindHeader = "header" // an HTTP header of a remote server
)

// Argument kinds: how a front end asks for an argument.
const (
	KindPath = "path" // a file or directory path
	KindText = "text" // one line of text
	KindList = "list" // several values, one per line
)

// List is the catalog: its presets, sorted by name.
type List struct {
	// Presets are the presets, sorted by name.
	Presets []Preset `json:"presets"`
}

// Preset is one server of the catalog.
type Preset struct {
	// ID identifies the preset (lower-case letters, digits and dashes); it
	// is also the name a server installed from it gets by default.
	ID string `json:"id"`
	// Name is the preset's display name.
	Name string `json:"name"`
	// Description says what the server does, in one or two sentences.
	Description string `json:"description"`
	// Homepage documents the server.
	Homepage string `json:"homepage,omitempty"`
	// Transport is the server's effective transport (derived from Server).
	Transport string `json:"transport"`
	// Server is the entry's template: any string in args, url, env values
	// and header values may hold {{key}} placeholders of Arguments; an args
	// element that is exactly {{key}} of a list argument becomes one
	// element per value, and one of an empty optional argument is left out
	// (an env or header whose value is exactly such a placeholder too).
	Server json.RawMessage `json:"server"`
	// Credentials are the secrets asked at install, stored as env or
	// header values (masked afterwards everywhere).
	Credentials []Credential `json:"credentials"`
	// Arguments are the other values asked at install.
	Arguments []Argument `json:"arguments"`
}

// Credential is a secret a preset needs.
type Credential struct {
	// Key is the environment variable or header name.
	Key string `json:"key"`
	// Label names it for people.
	Label string `json:"label"`
	// Kind is KindEnv or KindHeader.
	Kind string `json:"kind"`
	// Format, when set, is the stored value with {{value}} standing for
	// what the user typed, e.g. "Bearer {{value}}".
	Format string `json:"format,omitempty"`
	// Secret is true: credentials are always masked.
	Secret bool `json:"secret"`
	// Help says where to get it.
	Help string `json:"help,omitempty"`
	// Required refuses an install without it.
	Required bool `json:"required"`
}

// Argument is a non-secret value a preset asks for.
type Argument struct {
	// Key is the placeholder name ({{key}} in the template).
	Key string `json:"key"`
	// Label names it for people.
	Label string `json:"label"`
	// Help explains it.
	Help string `json:"help,omitempty"`
	// Default is used when the user gives no value (a list's values one
	// per line).
	Default string `json:"default,omitempty"`
	// Required refuses an install without a value (or a default).
	Required bool `json:"required"`
	// Kind is KindPath, KindText or KindList.
	Kind string `json:"kind"`
}

// UserFile returns the catalog file of a home directory:
// <home>/.plughost/catalog.json.
func UserFile(home string) string { return filepath.Join(home, ".plughost", "catalog.json") }

// Load returns the embedded catalog, extended by the presets of the user
// file path ("" or a missing file adds nothing): a user preset with the id
// of an embedded one replaces it. A preset that is not valid is an error
// naming it and the file.
func Load(path string) (*List, error) {
	base, err := parse("the embedded catalog", embedded)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return base, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return base, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog file: %w", err)
	}
	user, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	for _, p := range user.Presets {
		if i := slices.IndexFunc(base.Presets, func(b Preset) bool { return b.ID == p.ID }); i >= 0 {
			base.Presets[i] = p
		} else {
			base.Presets = append(base.Presets, p)
		}
	}
	base.sort()
	return base, nil
}

// Embedded returns the embedded catalog alone.
func Embedded() (*List, error) { return parse("the embedded catalog", embedded) }

func parse(source string, data []byte) (*List, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c List
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: not a catalog file ({\"presets\": [...]}, see docs/api.md): %w", source, err)
	}
	seen := map[string]bool{}
	for i := range c.Presets {
		p := &c.Presets[i]
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("%s: preset %d (%q): %w", source, i+1, p.ID, err)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("%s: preset %q appears twice; give each preset its own id", source, p.ID)
		}
		seen[p.ID] = true
		if p.Credentials == nil {
			p.Credentials = []Credential{}
		}
		if p.Arguments == nil {
			p.Arguments = []Argument{}
		}
	}
	c.sort()
	return &c, nil
}

func (c *List) sort() {
	slices.SortFunc(c.Presets, func(a, b Preset) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
}

// Find returns the preset of an id.
func (c *List) Find(id string) (Preset, bool) {
	i := slices.IndexFunc(c.Presets, func(p Preset) bool { return p.ID == id })
	if i < 0 {
		return Preset{}, false
	}
	return c.Presets[i], true
}

// IDs returns every preset's id, sorted.
func (c *List) IDs() []string {
	out := make([]string, len(c.Presets))
	for i, p := range c.Presets {
		out[i] = p.ID
	}
	slices.Sort(out)
	return out
}

var (
	idPattern          = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	placeholderPattern = regexp.MustCompile(`\{\{([^{}]*)\}\}`)
)

// check validates a preset and fills in its transport.
func (p *Preset) check() error {
	switch {
	case !idPattern.MatchString(p.ID):
		return fmt.Errorf("id must be lower-case letters, digits and dashes")
	case p.Name == "":
		return fmt.Errorf("name is missing")
	case p.Description == "":
		return fmt.Errorf("description is missing")
	}
	tmpl, err := p.template()
	if err != nil {
		return err
	}
	if p.Transport = tmpl.Transport(); !config.IsBuiltin(p.Transport) {
		return fmt.Errorf("server: set \"command\" (stdio) or \"url\" with \"type\" sse or http")
	}
	keys := map[string]string{}
	for _, c := range p.Credentials {
		switch {
		case c.Key == "" || c.Label == "":
			return fmt.Errorf("a credential needs a key and a label")
		case c.Kind != KindEnv && c.Kind != KindHeader:
			return fmt.Errorf("credential %q: kind must be %q or %q", c.Key, KindEnv, KindHeader)
		case c.Kind == KindEnv && p.Transport != config.TransportStdio, c.Kind == KindHeader && p.Transport == config.TransportStdio:
			return fmt.Errorf("credential %q: a %s server takes no %s credentials", c.Key, p.Transport, c.Kind)
		case c.Format != "" && !strings.Contains(c.Format, "{{value}}"):
			return fmt.Errorf("credential %q: format must contain {{value}}", c.Key)
		case keys["c:"+c.Key] != "":
			return fmt.Errorf("credential %q appears twice", c.Key)
		}
		keys["c:"+c.Key] = c.Kind
	}
	for _, a := range p.Arguments {
		switch {
		case a.Key == "" || a.Label == "":
			return fmt.Errorf("an argument needs a key and a label")
		case a.Kind != KindPath && a.Kind != KindText && a.Kind != KindList:
			return fmt.Errorf("argument %q: kind must be %s, %s or %s", a.Key, KindPath, KindText, KindList)
		case keys["a:"+a.Key] != "":
			return fmt.Errorf("argument %q appears twice", a.Key)
		}
		keys["a:"+a.Key] = a.Kind
	}
	var problem error
	used := map[string]bool{}
	visit(tmpl, func(field, s string, whole bool) {
		for _, m := range placeholderPattern.FindAllStringSubmatch(s, -1) {
			kind, ok := keys["a:"+m[1]]
			used[m[1]] = true
			switch {
			case !ok && problem == nil:
				problem = fmt.Errorf("server.%s uses {{%s}}, which is not one of its arguments", field, m[1])
			case kind == KindList && (!whole || s != m[0]) && problem == nil:
				problem = fmt.Errorf("server.%s: the list argument {{%s}} must be a whole args element", field, m[1])
			}
		}
	})
	if problem != nil {
		return problem
	}
	for _, a := range p.Arguments {
		if !used[a.Key] {
			return fmt.Errorf("argument %q is not used in server (write {{%s}} where its value goes)", a.Key, a.Key)
		}
	}
	return nil
}

// template decodes the server template.
func (p *Preset) template() (config.Server, error) {
	var s config.Server
	if len(p.Server) == 0 {
		return s, fmt.Errorf("server is missing")
	}
	if err := json.Unmarshal(p.Server, &s); err != nil {
		return s, fmt.Errorf("server: %w", err)
	}
	if len(s.Extra) > 0 {
		return s, fmt.Errorf("server: unknown keys (the catalog offers built-in transports only)")
	}
	return s, nil
}

// visit calls f with every templated string of s: its name as a path, the
// text, and whether it is a whole args element.
func visit(s config.Server, f func(field, s string, whole bool)) {
	for i, a := range s.Args {
		f(fmt.Sprintf("args[%d]", i), a, true)
	}
	f("url", s.URL.Reveal(), false)
	for k, v := range s.Env {
		f("env."+k, v.Reveal(), false)
	}
	for k, v := range s.Headers {
		f("headers."+k, v.Reveal(), false)
	}
}

// Input is what a user gives to install a preset.
type Input struct {
	// Credentials maps a credential's key to its value.
	Credentials map[string]string `json:"credentials"`
	// Arguments maps an argument's key to its value: a string, or for a
	// list a JSON array of strings or a string with one value per line.
	Arguments map[string]Value `json:"arguments"`
	// Home expands a leading ~ of path and list arguments ("" leaves it).
	Home string `json:"-"`
}

// Value is an argument's value: one or more strings.
type Value []string

// UnmarshalJSON accepts a string or an array of strings.
func (v *Value) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = Value{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("an argument's value must be a string or an array of strings")
	}
	*v = list
	return nil
}

// InputError lists what is wrong with an Input: each problem's path is
// credentials.<key> or arguments.<key>.
type InputError struct {
	// Preset is the preset's id.
	Preset string
	// Problems are the problems, each with its path.
	Problems []*config.ValidationError
}

// Error implements error.
func (e *InputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "preset %q cannot be installed:", e.Preset)
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.Error())
	}
	return b.String()
}

// Build returns the server entry of preset p with in's values: the
// template's placeholders filled in, the credentials stored as env or
// header values. A missing required value or an unknown key is an
// *InputError. The entry is not validated here: add it through
// package manage, which runs the config validator.
func (p Preset) Build(in Input) (config.Server, error) {
	s, err := p.template()
	if err != nil {
		return config.Server{}, fmt.Errorf("preset %q: %w", p.ID, err)
	}
	ie := &InputError{Preset: p.ID}
	problem := func(path, msg string) {
		ie.Problems = append(ie.Problems, &config.ValidationError{Path: path, Msg: msg})
	}
	values := map[string][]string{}
	for _, a := range p.Arguments {
		v := clean(in.Arguments[a.Key], a.Kind == KindList)
		if len(v) == 0 && a.Default != "" {
			v = clean(Value{a.Default}, a.Kind == KindList)
		}
		if len(v) == 0 && a.Required {
			problem("arguments."+a.Key, fmt.Sprintf("%s is required: %s", a.Label, a.Help))
		}
		if len(v) > 1 && a.Kind != KindList {
			problem("arguments."+a.Key, fmt.Sprintf("%s takes one value", a.Label))
		}
		if a.Kind != KindText && in.Home != "" {
			for i := range v {
				v[i] = config.ExpandHome(v[i], in.Home)
			}
		}
		values[a.Key] = v
	}
	for k := range in.Arguments {
		if !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Key == k }) {
			problem("arguments."+k, fmt.Sprintf("preset %q has no argument %q", p.ID, k))
		}
	}
	for k := range in.Credentials {
		if !slices.ContainsFunc(p.Credentials, func(c Credential) bool { return c.Key == k }) {
			problem("credentials."+k, fmt.Sprintf("preset %q has no credential %q", p.ID, k))
		}
	}
	for _, c := range p.Credentials {
		v := strings.TrimSpace(in.Credentials[c.Key])
		if v == "" {
			if c.Required {
				problem("credentials."+c.Key, fmt.Sprintf("%s is required: %s", c.Label, c.Help))
			}
			continue
		}
		if c.Format != "" {
			v = strings.ReplaceAll(c.Format, "{{value}}", v)
		}
		switch c.Kind {
		case KindEnv:
			s.Env = setSecret(s.Env, c.Key, v)
		case KindHeader:
			s.Headers = setSecret(s.Headers, c.Key, v)
		}
	}
	if len(ie.Problems) > 0 {
		return config.Server{}, ie
	}
	fill(&s, values)
	return s, nil
}

// clean trims the values, splits a list's lines and drops empty ones.
func clean(v Value, list bool) []string {
	var out []string
	for _, s := range v {
		parts := []string{s}
		if list {
			parts = strings.Split(s, "\n")
		}
		for _, part := range parts {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func setSecret(m map[string]secret.String, k, v string) map[string]secret.String {
	if m == nil {
		m = map[string]secret.String{}
	}
	m[k] = secret.String(v)
	return m
}

// fill replaces the placeholders of s with values.
func fill(s *config.Server, values map[string][]string) {
	subst := func(text string) string {
		return placeholderPattern.ReplaceAllStringFunc(text, func(m string) string {
			return strings.Join(values[m[2:len(m)-2]], ",")
		})
	}
	empty := func(text string) bool {
		m := placeholderPattern.FindStringSubmatch(text)
		return m != nil && m[0] == text && len(values[m[1]]) == 0
	}
	var args []string
	for _, a := range s.Args {
		m := placeholderPattern.FindStringSubmatch(a)
		if m != nil && m[0] == a {
			args = append(args, values[m[1]]...) // a list, one value, or nothing
			continue
		}
		args = append(args, subst(a))
	}
	s.Args = args
	s.URL = secret.URL(subst(s.URL.Reveal()))
	for _, m := range []map[string]secret.String{s.Env, s.Headers} {
		for k, v := range m {
			if empty(v.Reveal()) {
				delete(m, k)
				continue
			}
			m[k] = secret.String(subst(v.Reveal()))
		}
	}
}
