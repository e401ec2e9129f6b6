package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/knadh/koanf/v2"

	koanfd "github.com/plughost/plughost/koanf.d"
)

// delim is koanf's key delimiter. Server names may contain dots, so the
// delimiter is a control character no sensible key contains; the loader
// never addresses keys by delimited path anyway, it merges whole maps.
const delim = "\x1f"

// LoadOptions says where Load finds each layer.
type LoadOptions struct {
	// UserFile is an explicit user config file (--config); "" means
	// $PLUGHOST_CONFIG from Environ, else <Home>/.plughost/config.json.
	UserFile string
	// UserData, when non-nil, is used as the user file's content instead of
	// reading it: front ends validate a candidate edit before writing it.
	UserData []byte
	// AllowMissing makes a missing explicit user file an empty layer rather
	// than an error (for commands that create the file).
	AllowMissing bool
	// SystemDir holds *.json layers applied in name order; "" means
	// DefaultSystemDir(Environ): /etc/plughost/koanf.d, on Windows
	// %ProgramData%\plughost\koanf.d. A missing directory is fine.
	SystemDir string
	// Defaults are the lowest layers (NN-*.json at the root); nil means the
	// layers embedded in the binary.
	Defaults fs.FS
	// Environ is the environment to read, as from os.Environ; Load never
	// reads the process environment itself.
	Environ []string
	// Sets are the --set items, "path=value", applied last in order (see the
	// package documentation for the syntax).
	Sets []string
	// Home is the user's home directory; "" means HOME from Environ
	// (USERPROFILE on Windows). It
	// locates the default user file and expands a leading ~ in paths.
	Home string
}

// Loaded is the result of Load.
type Loaded struct {
	// Config is the merged, typed configuration.
	Config *Config
	// UserFile is the user file path that was used (whether or not it exists).
	UserFile string
	// UserFileExists reports whether the user file was found.
	UserFileExists bool
	// UserBytes is the user file's raw content, for editors that must keep
	// the keys and layout they do not change; nil if it does not exist.
	UserBytes []byte
	// Sources names every layer applied, lowest first.
	Sources []string
	// Warnings are things to fix that do not stop plughost, such as a user
	// file holding secrets with a mode that lets other users read it. Front
	// ends show them (stderr, the log, the API).
	Warnings []string

	// problems are those found in the raw layers; Validate adds them.
	problems []layerProblem
}

// Validate checks l.Config like the package-level Validate and adds the
// problems found while loading: malformed files, unknown keys, values of the
// wrong JSON type, servers without "enabled". Unknown keys of a server whose
// transport is a third-party type are not problems: they are kept in
// Server.Extra for its plugin, which validates them.
func (l *Loaded) Validate(opts ValidateOptions) Problems {
	var p Problems
	for _, lp := range l.problems {
		switch {
		case lp.extraKey && !reportsExtra(l.Config.MCP.Servers[lp.server]):
		case lp.inServer:
			p.addServer(lp.server, lp.err)
		default:
			p.Fatal = append(p.Fatal, lp.err)
		}
	}
	v := validate(l.Config, opts, false)
	p.Fatal = append(p.Fatal, v.Fatal...)
	for name, list := range v.Servers {
		for _, e := range list {
			p.addServer(name, e)
		}
	}
	return p
}

// reportsExtra reports whether unknown keys of s are errors: they are unless
// s uses a third-party transport.
func reportsExtra(s Server) bool {
	t := s.Transport()
	return t == "" || IsBuiltin(t)
}

// Load reads and merges the layers, lowest first: the defaults (embedded
// koanf.d), SystemDir/*.json, the user file, PLUGHOST_ environment variables
// and --set items. Problems in the layers' content (malformed JSON, unknown
// keys, wrong types) do not fail Load: the offending value is left out and
// Loaded.Validate reports it. Load fails only when a file cannot be read or
// an explicit user file is missing.
func Load(opts LoadOptions) (*Loaded, error) {
	home := opts.Home
	if home == "" {
		home = homeOf(opts.Environ)
	}
	ld := &loader{schema: schema(), k: koanf.NewWithConf(koanf.Conf{Delim: delim})}
	out := &Loaded{}
	steps := []func() error{
		func() error { return ld.defaults(opts.Defaults) },
		func() error { return ld.systemDir(orDefault(opts.SystemDir, DefaultSystemDir(opts.Environ))) },
		func() error { return ld.userFile(opts, home, out) },
		func() error { ld.environment(opts.Environ); return nil },
		func() error { ld.sets(opts.Sets); return nil },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	cfg, err := ld.decode()
	if err != nil {
		return nil, err
	}
	expandPaths(cfg, home)
	out.Config, out.Sources, out.problems = cfg, ld.sources, ld.probs
	return out, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// loader accumulates the layers in a koanf instance.
type loader struct {
	schema  *node
	k       *koanf.Koanf
	sources []string
	probs   []layerProblem
}

// mapProvider is a koanf.Provider for an already parsed layer.
type mapProvider map[string]any

// ReadBytes is not supported: the layer is already parsed.
func (m mapProvider) ReadBytes() ([]byte, error) {
	return nil, errors.New("config: mapProvider has no bytes")
}

// Read returns the parsed layer.
func (m mapProvider) Read() (map[string]any, error) { return m, nil }

// apply checks one parsed layer and merges what is valid of it.
func (ld *loader) apply(source string, layer map[string]any) {
	c := &checker{source: source}
	clean, ok := c.check(ld.schema, layer, loc{})
	ld.probs = append(ld.probs, c.probs...)
	ld.sources = append(ld.sources, source)
	if m, isMap := clean.(map[string]any); ok && isMap {
		// Load only fails if the provider does, and mapProvider does not.
		_ = ld.k.Load(mapProvider(m), nil)
	}
}

// applyFile parses a file's content and applies it.
func (ld *loader) applyFile(name string, data []byte) {
	layer, msg := parseLayer(name, data)
	if msg != "" {
		ld.probs = append(ld.probs, layerProblem{err: &ValidationError{Msg: msg}})
		return
	}
	ld.apply(name, layer)
}

var layerName = regexp.MustCompile(`^[0-9]{2}-.*\.json$`)

func (ld *loader) defaults(fsys fs.FS) error {
	if fsys == nil {
		fsys = koanfd.Layers()
	}
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return fmt.Errorf("list default layers: %w", err)
	}
	slices.Sort(names)
	for _, name := range names {
		if !layerName.MatchString(name) {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("read default layer %s: %w", name, err)
		}
		ld.applyFile("default layer koanf.d/"+name, data)
	}
	return nil
}

func (ld *loader) systemDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		// Windows reports a file opened as a directory as a missing path
		// (ERROR_PATH_NOT_FOUND): only a dir that is really absent is fine.
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return fmt.Errorf("read system config dir: %s is not a directory", dir)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read system config dir: %w", err)
	}
	for _, e := range entries { // os.ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := ld.readFile(path)
		if err != nil {
			return fmt.Errorf("read system config layer: %w", err)
		}
		if data != nil {
			ld.applyFile(path, data)
		}
	}
	return nil
}

// userFilePath resolves the user file and whether it was named explicitly.
func userFilePath(opts LoadOptions, home string) (string, bool) {
	switch env := lookupEnv(opts.Environ, EnvConfigFile); {
	case opts.UserFile != "":
		return ExpandHome(opts.UserFile, home), true
	case env != "":
		return ExpandHome(env, home), true
	case home != "":
		return filepath.Join(home, ".plughost", "config.json"), false
	}
	return "", false
}

// UserFilePath returns the absolute path of the user file Load would read
// with opts ("" when there is none: no explicit file and no home), whether or
// not it exists, and whether it was named explicitly (--config or
// PLUGHOST_CONFIG).
func UserFilePath(opts LoadOptions) (path string, explicit bool) {
	home := opts.Home
	if home == "" {
		home = homeOf(opts.Environ)
	}
	path, explicit = userFilePath(opts, home)
	if abs, err := filepath.Abs(path); err == nil && path != "" {
		path = abs
	}
	return path, explicit
}

func (ld *loader) userFile(opts LoadOptions, home string, out *Loaded) error {
	opts.Home = home
	path, explicit := UserFilePath(opts)
	out.UserFile = path
	data := opts.UserData
	if data == nil && path != "" {
		var err error
		data, err = ld.readFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && (!explicit || opts.AllowMissing):
			return nil
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("config file %s does not exist; create it (plughost mcp add creates it) or point --config or %s at an existing file", path, EnvConfigFile)
		case err != nil:
			return fmt.Errorf("read config file: %w", err)
		case data == nil: // over MaxFileBytes: reported, not read
			out.UserFileExists = true
			return nil
		}
	}
	if data == nil {
		return nil
	}
	out.UserFileExists, out.UserBytes = true, data
	if len(data) > MaxFileBytes {
		ld.tooLarge(orDefault(path, "the user config"), int64(len(data)))
		return nil
	}
	if opts.UserData != nil {
		_, err := os.Stat(path)
		out.UserFileExists = path != "" && err == nil
	} else if w := modeWarning(path, data); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	ld.applyFile(orDefault(path, "user config"), data)
	return nil
}

func (ld *loader) environment(environ []string) {
	for _, v := range configVars(environ) {
		source := "environment variable " + v.name
		segs := strings.Split(strings.TrimPrefix(v.name, envPrefix), "__")
		if slices.Contains(segs, "") {
			ld.fatal(source + ` has an empty key (three or more "_" in a row, or a trailing "__"); separate keys with exactly "__", e.g. PLUGHOST_TOOLS__MCP__ENABLED`)
			continue
		}
		keys := envKeys(ld.schema, segs, ld.k.Raw())
		ld.applyPath(source, keys, v.value)
	}
}

func (ld *loader) sets(items []string) {
	for i, item := range items {
		keys, value, err := parseSet(item)
		if err != nil {
			ld.fatal(setItemName(i, item) + ": " + err.Error())
			continue
		}
		ld.applyPath("--set "+pathOf(keys...), keys, value)
	}
}

// setItemName names a malformed --set item for a message: by its path when
// it has an "=", else by its position, so that a message never shows a value
// (which may be a secret).
func setItemName(i int, item string) string {
	if p, _, ok := strings.Cut(item, "="); ok {
		return fmt.Sprintf("--set %q", trunc(p))
	}
	return fmt.Sprintf("--set item %d", i+1)
}

// applyPath applies a single value addressed by keys.
func (ld *loader) applyPath(source string, keys []string, value string) {
	if msg := leafBelow(ld.schema, keys); msg != "" {
		ld.fatal(msg + " (" + source + ")")
		return
	}
	ld.apply(source, nest(keys, rawText(value)))
}

func (ld *loader) fatal(msg string) {
	ld.probs = append(ld.probs, layerProblem{err: &ValidationError{Msg: msg}})
}

// decode checks the merged servers and decodes the merged layers.
func (ld *loader) decode() (*Config, error) {
	raw := ld.k.Raw()
	ld.checkServers(raw)
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("encode merged config: %w", err)
	}
	var f fileShape
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("decode merged config: %w", err)
	}
	return &Config{MCP: f.Tools.MCP, Chat: f.Chat}, nil
}

// checkServers removes servers set to null and reports servers without
// "enabled" (which may come from any layer, so only the merge can tell).
func (ld *loader) checkServers(raw map[string]any) {
	tools, _ := raw["tools"].(map[string]any)
	mcp, _ := tools["mcp"].(map[string]any)
	servers, _ := mcp["servers"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s, ok := servers[name].(map[string]any)
		if !ok {
			delete(servers, name)
			continue
		}
		path := serverPath(name, "enabled")
		if _, ok := s["enabled"]; !ok && !ld.reported(path) {
			ld.probs = append(ld.probs, layerProblem{
				err: &ValidationError{
					Path: path,
					Msg:  `required key is missing; add "enabled": true to use the server (or false to keep it configured but off)`,
				},
				server: name, inServer: true,
			})
		}
	}
}

// reported reports whether a problem at path was already found.
func (ld *loader) reported(path string) bool {
	return slices.ContainsFunc(ld.probs, func(p layerProblem) bool { return p.err.Path == path })
}

// expandPaths expands a leading ~ in the paths of cfg.
func expandPaths(cfg *Config, home string) {
	m := &cfg.MCP
	m.Workspace = ExpandHome(m.Workspace, home)
	m.Audit.Dir = ExpandHome(m.Audit.Dir, home)
	m.Trust.PinsFile = ExpandHome(m.Trust.PinsFile, home)
	m.Gateway.TokenFile = ExpandHome(m.Gateway.TokenFile, home)
	st := &m.Gateway.Store
	st.TLSCAFile, st.TLSCertFile, st.TLSKeyFile = ExpandHome(st.TLSCAFile, home), ExpandHome(st.TLSCertFile, home), ExpandHome(st.TLSKeyFile, home)
	for i, d := range m.Plugins.Dirs {
		m.Plugins.Dirs[i] = ExpandHome(d, home)
	}
	for name, s := range m.Servers {
		s.EnvFile = ExpandHome(s.EnvFile, home)
		m.Servers[name] = s
	}
}

// ExpandHome replaces a leading "~" or "~/" of p with home, and on Windows,
// where a backslash separates too, a leading ~\ as well. It returns p
// unchanged if it has no such prefix or home is empty.
func ExpandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if len(p) >= 2 && p[0] == '~' && os.IsPathSeparator(p[1]) {
		return filepath.Join(home, p[2:])
	}
	return p
}

// Defaults returns the configuration of the embedded default layers alone,
// for embedders that build a Config in Go. Paths are not expanded.
func Defaults() (*Config, error) {
	ld := &loader{schema: schema(), k: koanf.NewWithConf(koanf.Conf{Delim: delim})}
	if err := ld.defaults(nil); err != nil {
		return nil, err
	}
	cfg, err := ld.decode()
	if err != nil {
		return nil, err
	}
	if len(ld.probs) > 0 {
		return nil, fmt.Errorf("embedded default layers: %w", ld.probs[0].err)
	}
	return cfg, nil
}
