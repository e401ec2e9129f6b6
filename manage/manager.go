package manage

import (
	"encoding/json"
	"fmt"

	"github.com/plughost/plughost/config"
)

// Options locate the configuration.
type Options struct {
	// UserFile is an explicit user config file (--config); "" means
	// $PLUGHOST_CONFIG from Environ, else ~/.plughost/config.json.
	UserFile string
	// Environ is the environment the layers are read from (os.Environ()).
	Environ []string
	// Home is the user's home directory ("" means HOME from Environ,
	// USERPROFILE on Windows).
	Home string
	// Sets are --set items, applied over every layer when loading. Edits
	// check the user file against the layers without them.
	Sets []string
	// DemoCommand runs the built-in demo server (e.g. [plughost,
	// demo-server]). With it, Load falls back to the demo config when no
	// user config exists anywhere; without it, it never does.
	DemoCommand []string
}

// Manager loads, edits and applies one configuration. It holds no state
// besides its options: every call reads the files afresh. It is safe for
// concurrent use; writes are serialized by the user file's lock.
type Manager struct {
	opts Options
}

// New returns a Manager for the configuration opts locate.
func New(opts Options) *Manager { return &Manager{opts: opts} }

// Loaded is a configuration as loaded.
type Loaded struct {
	*config.Loaded
	// Demo reports that no user config exists anywhere, so the built-in
	// demo config was loaded instead of the user file.
	Demo bool
}

func (m *Manager) loadOptions() config.LoadOptions {
	return config.LoadOptions{UserFile: m.opts.UserFile, Environ: m.opts.Environ, Home: m.opts.Home, Sets: m.opts.Sets}
}

// UserFile returns the absolute path of the user config file, whether or
// not it exists ("" when there is none: no explicit file and no home).
func (m *Manager) UserFile() string {
	path, _ := config.UserFilePath(m.loadOptions())
	return path
}

// HasSets reports whether --set items override the layers.
func (m *Manager) HasSets() bool { return len(m.opts.Sets) > 0 }

// Load reads and merges every layer. With no user config anywhere (no
// explicit file, no $PLUGHOST_CONFIG, no ~/.plughost/config.json) and a
// DemoCommand, it loads the built-in demo config as the user layer and says
// so in Demo.
func (m *Manager) Load() (*Loaded, error) {
	opts := m.loadOptions()
	l, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	_, explicit := config.UserFilePath(opts)
	if l.UserFileExists || explicit || len(m.opts.DemoCommand) == 0 {
		return &Loaded{Loaded: l}, nil
	}
	opts.UserData, err = demoConfig(m.opts.DemoCommand)
	if err != nil {
		return nil, err
	}
	l, err = config.Load(opts)
	if err != nil {
		return nil, err
	}
	return &Loaded{Loaded: l, Demo: true}, nil
}

// demoConfig is the built-in demo configuration: MCP enabled and one stdio
// server, "demo", that runs command, so something useful happens with no
// setup.
func demoConfig(command []string) ([]byte, error) {
	demo := config.Server{Enabled: true, Command: command[0], Args: command[1:]}
	entry, err := demo.FileJSON()
	if err != nil {
		return nil, fmt.Errorf("demo config: %w", err)
	}
	b, err := json.Marshal(map[string]any{"tools": map[string]any{"mcp": map[string]any{
		"enabled": true, "servers": map[string]json.RawMessage{"demo": entry},
	}}})
	if err != nil {
		return nil, fmt.Errorf("demo config: %w", err)
	}
	return b, nil
}
