package manage

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/catalog"
	"github.com/plughost/plughost/config/jsonedit"
	"github.com/plughost/plughost/config/userfile"
	"github.com/plughost/plughost/lib/secret"
)

// Version returns the version of the user file as it is now (see
// Tx.Version): what a front end shows beside config-derived data and sends
// back as WriteOptions.IfVersion.
func (m *Manager) Version() (string, error) {
	path := m.UserFile()
	if path == "" {
		return "", fmt.Errorf("no user config file (set HOME, --config or PLUGHOST_CONFIG)")
	}
	f, err := userfile.Read(path)
	if err != nil {
		return "", err
	}
	return f.Version(), nil
}

// UpdateServer replaces tools.mcp.servers[name], which must exist, with s
// (checked with the runtime's validator first). A secret of s whose value is
// exactly secret.Masked ("****", what every front end shows instead of a
// secret) keeps the value stored under the same key (KeepMasked): a form
// that shows a masked secret and sends it back unchanged does not overwrite
// it. A key s does not have is removed.
func (m *Manager) UpdateServer(name string, s config.Server, o WriteOptions) (WriteResult, error) {
	var res WriteResult
	err := m.write(o, serverKeys(name), func(tx *Tx) error {
		stored, err := tx.storedServer(name)
		if err != nil {
			return err
		}
		if err := tx.SetServer(name, KeepMasked(s, stored)); err != nil {
			return err
		}
		res, err = tx.commitChecked(name)
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

// SetEnabled sets tools.mcp.servers[name].enabled, leaving the rest of the
// entry as written.
func (m *Manager) SetEnabled(name string, enabled bool, o WriteOptions) (WriteResult, error) {
	var res WriteResult
	err := m.write(o, serverKeys(name), func(tx *Tx) error {
		if _, err := tx.storedServer(name); err != nil {
			return err
		}
		if err := tx.set(enabled, "tools", "mcp", "servers", name, "enabled"); err != nil {
			return err
		}
		var err error
		res, err = tx.commitChecked(name)
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

// storedServer returns the user file's entry of server name (secrets as
// written), or a *NotFoundError.
func (tx *Tx) storedServer(name string) (config.Server, error) {
	names, err := tx.Servers()
	if err != nil {
		return config.Server{}, err
	}
	raw, ok, err := jsonedit.Get(tx.data, "tools", "mcp", "servers", name)
	if err != nil {
		return config.Server{}, tx.notEditable(err)
	}
	if !ok {
		return config.Server{}, &NotFoundError{Name: name, File: tx.File(), FileExists: tx.Exists(), Configured: names}
	}
	var s config.Server
	if err := json.Unmarshal(raw, &s); err != nil {
		return config.Server{}, &NotEditableError{File: tx.File(), Detail: fmt.Sprintf("%s is not a server object: %v", config.ServerPath(name), err)}
	}
	return s, nil
}

// KeepMasked is the one rule for secrets sent back by a front end: in s
// (the server as the front end sends it), every env value, header value,
// oauth client secret and unknown-key value that is exactly secret.Masked,
// and a url equal to the stored url's masked form, is replaced by the value
// stored under the same key. A masked value with nothing stored under its
// key is left as it is, for the validator to refuse (the mask is not a
// value anyone means to store) with the field's JSON path.
func KeepMasked(s, stored config.Server) config.Server {
	keep := func(m, old map[string]secret.String) map[string]secret.String {
		if len(m) == 0 {
			return m
		}
		out := maps.Clone(m)
		for k, v := range m {
			if old, ok := old[k]; ok && v.Reveal() == secret.Masked {
				out[k] = old
			}
		}
		return out
	}
	s.Env = keep(s.Env, stored.Env)
	s.Headers = keep(s.Headers, stored.Headers)
	if len(s.Extra) > 0 {
		masked := map[string]secret.String{}
		for k, v := range s.Extra {
			if v.Reveal() == `"`+secret.Masked+`"` {
				masked[k] = secret.Masked
			}
		}
		kept := keep(masked, stored.Extra)
		s.Extra = maps.Clone(s.Extra)
		for k, v := range kept {
			if v != secret.Masked {
				s.Extra[k] = v
			}
		}
	}
	if s.URL != "" && s.URL != stored.URL && s.URL.Reveal() == stored.URL.String() {
		s.URL = stored.URL
	}
	if s.OAuth != nil && s.OAuth.ClientSecret.Reveal() == secret.Masked && stored.OAuth != nil && stored.OAuth.ClientSecret != "" {
		oauth := *s.OAuth
		oauth.ClientSecret = stored.OAuth.ClientSecret
		s.OAuth = &oauth
	}
	return s
}

// Install adds a server built from catalog preset p with the user's values
// (catalog.Preset.Build) as tools.mcp.servers[name] (p's id when name is
// ""), exactly as AddServer adds any server: the validator applies and the
// first server turns the integration on. Missing or unknown values are an
// *InvalidError whose problems are at credentials.<key> or
// arguments.<key>; nothing is written then.
func (m *Manager) Install(p catalog.Preset, name string, in catalog.Input, o AddOptions) (AddResult, error) {
	if name == "" {
		name = p.ID
	}
	if in.Home == "" {
		in.Home = m.home()
	}
	s, err := p.Build(in)
	var ie *catalog.InputError
	if errors.As(err, &ie) {
		return AddResult{}, &InvalidError{File: m.UserFile(), Problems: ie.Problems}
	}
	if err != nil {
		return AddResult{}, err
	}
	return m.AddServer(name, s, o)
}

// CatalogFile returns the user's catalog file (see catalog.UserFile), ""
// without a home directory.
func (m *Manager) CatalogFile() string {
	if h := m.home(); h != "" {
		return catalog.UserFile(h)
	}
	return ""
}

// home is the user's home directory: Options.Home, else HOME of Environ.
func (m *Manager) home() string {
	if m.opts.Home != "" {
		return m.opts.Home
	}
	for _, kv := range m.opts.Environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return ""
}

// ToolFilterEdit changes a server's include_tools and exclude_tools: a
// list that is set replaces the stored one (empty removes the key); nil
// leaves it as written.
type ToolFilterEdit struct {
	// Include and Exclude are the new lists; nil keeps the stored one.
	Include, Exclude *[]string
}

// SetToolFilter sets tools.mcp.servers[name].include_tools and/or
// exclude_tools, leaving the rest of the entry as written. A running
// serve applies it at its next reload without restarting the server.
func (m *Manager) SetToolFilter(name string, e ToolFilterEdit, o WriteOptions) (WriteResult, error) {
	var res WriteResult
	err := m.write(o, serverKeys(name), func(tx *Tx) error {
		if _, err := tx.storedServer(name); err != nil {
			return err
		}
		for key, list := range map[string]*[]string{"include_tools": e.Include, "exclude_tools": e.Exclude} {
			if err := tx.setList(list, "tools", "mcp", "servers", name, key); err != nil {
				return err
			}
		}
		var err error
		res, err = tx.commitChecked(name)
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

// setList writes a list at keys (nil: unchanged; empty: the key removed).
func (tx *Tx) setList(list *[]string, keys ...string) error {
	switch {
	case list == nil:
		return nil
	case len(*list) == 0:
		out, _, err := jsonedit.Delete(tx.data, keys...)
		if err != nil {
			return tx.notEditable(err)
		}
		tx.data = out
		return nil
	}
	return tx.set(*list, keys...)
}
