package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/jsonedit"
	"github.com/plughost/plughost/lib/secret"
)

// Imported is one imported server: its name and its entry in plughost's
// shape.
type Imported struct {
	// Name is the server's name in the file.
	Name string
	// Server is the entry to write.
	Server config.Server
}

// Result is what Import found in a file.
type Result struct {
	// Format is the format read (detected when none was given).
	Format string
	// Servers are in file order.
	Servers []Imported
	// Notes name every field left out or copied with a caveat.
	Notes []string
}

// foreign is a server entry of another client.
type foreign struct {
	Type      string            `json:"type"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	EnvFile   string            `json:"envFile"`
	URL       string            `json:"url"`
	ServerURL string            `json:"serverUrl"`
	Headers   map[string]string `json:"headers"`
	Disabled  bool              `json:"disabled"`
}

var foreignKeys = []string{"type", "command", "args", "env", "envFile", "url", "serverUrl", "headers", "disabled"}

// Import reads the servers of another client's config file. format "" means
// detect it from the top-level keys.
func Import(data []byte, format string) (Result, error) {
	keys, format, err := locate(data, format)
	if err != nil {
		return Result{}, err
	}
	res := Result{Format: format}
	names, err := jsonedit.Keys(data, keys...)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", strings.Join(keys, "."), err)
	}
	for _, name := range names {
		raw, _, _ := jsonedit.Get(data, append(keys, name)...)
		s, notes, err := convert(name, raw)
		if err != nil {
			return Result{}, err
		}
		res.Servers = append(res.Servers, s)
		res.Notes = append(res.Notes, notes...)
	}
	return res, nil
}

// locate finds the server map: the keys leading to it and the format.
func locate(data []byte, format string) ([]string, string, error) {
	if format != "" {
		if err := checkFormat(format); err != nil {
			return nil, "", err
		}
	}
	if _, err := jsonedit.Keys(data); err != nil {
		if errors.Is(err, jsonedit.ErrInvalid) {
			return nil, "", errors.New("the file is not valid JSON")
		}
		return nil, "", err
	}
	candidates := []struct {
		keys   []string
		format string
	}{{[]string{"mcpServers"}, Claude}, {[]string{"servers"}, VSCode}, {[]string{"mcp", "servers"}, VSCode}}
	for _, c := range candidates {
		if _, ok, _ := jsonedit.Get(data, c.keys...); !ok {
			continue
		}
		switch {
		case format == "":
			return c.keys, c.format, nil
		case format == c.format || format == Cursor && c.format == Claude:
			return c.keys, format, nil
		}
	}
	want := `"mcpServers" (claude, cursor) or "servers" / "mcp.servers" (vscode)`
	if format != "" {
		want = map[string]string{Claude: `"mcpServers"`, Cursor: `"mcpServers"`, VSCode: `"servers" or "mcp.servers"`}[format]
	}
	return nil, "", fmt.Errorf("no server list found: expected a top-level %s object", want)
}

func convert(name string, raw json.RawMessage) (Imported, []string, error) {
	var f foreign
	if err := json.Unmarshal(raw, &f); err != nil {
		return Imported{}, nil, fmt.Errorf("server %q: %s", name, describe(err))
	}
	var all map[string]json.RawMessage
	_ = json.Unmarshal(raw, &all) // decoded above, so an object
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		if !slices.Contains(foreignKeys, k) {
			notes = append(notes, fmt.Sprintf("server %q: field %q has no plughost equivalent and was left out", name, k))
		}
	}
	e := config.Server{
		Enabled: !f.Disabled, Type: importType(f.Type), Command: f.Command, Args: f.Args,
		Env: secrets(f.Env), EnvFile: f.EnvFile, URL: secret.URL(f.URL), Headers: secrets(f.Headers),
	}
	if e.URL == "" {
		e.URL = secret.URL(f.ServerURL)
	}
	notes = append(notes, variableNotes(name, e)...)
	return Imported{Name: name, Server: e}, notes, nil
}

// importType maps other clients' transport names to plughost's.
func importType(t string) string {
	switch strings.ToLower(t) {
	case "streamablehttp", "streamable_http", "streamable-http":
		return config.TransportHTTP
	case "stdio", "sse", "http":
		return strings.ToLower(t)
	}
	return t
}

// variableNotes warns about ${...} placeholders (VS Code's ${input:id},
// ${env:NAME}, ${workspaceFolder}), which plughost does not expand.
func variableNotes(name string, e config.Server) []string {
	var notes []string
	check := func(field, v string) {
		if strings.Contains(v, "${") {
			notes = append(notes, fmt.Sprintf("server %q: %s contains a ${...} variable, which plughost does not expand; it was copied literally — replace it with the real value", name, field))
		}
	}
	check("command", e.Command)
	check("url", e.URL.Reveal())
	check("envFile", e.EnvFile)
	for i, a := range e.Args {
		check(fmt.Sprintf("args[%d]", i), a)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		check(fmt.Sprintf("env.%s", k), e.Env[k].Reveal())
	}
	for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
		check(fmt.Sprintf("headers.%s", k), e.Headers[k].Reveal())
	}
	return notes
}

// secrets wraps the values of m as secrets; nil stays nil.
func secrets(m map[string]string) map[string]secret.String {
	if m == nil {
		return nil
	}
	out := make(map[string]secret.String, len(m))
	for k, v := range m {
		out[k] = secret.String(v)
	}
	return out
}

// describe explains a decoding error without quoting values (which may be
// secrets).
func describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q must be a %s, got a JSON %s", te.Field, te.Type.Kind(), te.Value)
	}
	return "not a JSON object"
}
