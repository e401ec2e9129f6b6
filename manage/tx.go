package manage

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/config/jsonedit"
	"github.com/plughost/plughost/config/userfile"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/plugindir"
)

// Tx is one read-check-write of the user's config file. Edits apply to a
// candidate copy; Check validates it with the runtime's validator; Commit
// writes it, unless the file changed since Begin read it. Only the user
// file is ever written, never the merged layers, and it is edited in place:
// keys plughost does not know, key order and number text are kept. A Tx is
// not safe for concurrent use.
type Tx struct {
	opts config.LoadOptions // the layers to check the candidate with
	file *userfile.File
	data []byte // the candidate content
}

// Begin reads the user config file (which may be missing).
func (m *Manager) Begin() (*Tx, error) { return m.open(userfile.Read) }

// beginLocked is Begin under the file's lock, kept until Tx.unlock: no
// other plughost writer can change the file before this Tx commits.
func (m *Manager) beginLocked() (*Tx, error) { return m.open(userfile.ReadLocked) }

func (m *Manager) open(read func(string) (*userfile.File, error)) (*Tx, error) {
	opts := m.loadOptions()
	opts.Sets, opts.AllowMissing = nil, true
	path, _ := config.UserFilePath(opts)
	f, err := read(path)
	if err != nil {
		return nil, err
	}
	opts.UserFile = f.Path
	return &Tx{opts: opts, file: f, data: f.Data}, nil
}

// unlock releases the lock of a Tx from beginLocked.
func (tx *Tx) unlock() { tx.file.Unlock() }

// File returns the path of the user file (a symlink resolved).
func (tx *Tx) File() string { return tx.file.Path }

// Exists reports whether the user file existed when read.
func (tx *Tx) Exists() bool { return tx.file.Exists }

// Data returns the file's content as read (nil when it did not exist).
func (tx *Tx) Data() []byte { return tx.file.Data }

// Version identifies the content read (see userfile.File.Version).
func (tx *Tx) Version() string { return tx.file.Version() }

// BackupPath is where Commit keeps the previous version.
func (tx *Tx) BackupPath() string { return tx.file.BackupPath() }

// Servers returns the servers of the candidate, in file order.
func (tx *Tx) Servers() ([]string, error) {
	names, err := jsonedit.Keys(tx.data, "tools", "mcp", "servers")
	if err != nil {
		return nil, tx.notEditable(err)
	}
	return names, nil
}

// SetServer writes s as tools.mcp.servers[name] of the candidate, replacing
// an entry of that name in its place.
func (tx *Tx) SetServer(name string, s config.Server) error {
	entry, err := s.FileJSON()
	if err != nil {
		return fmt.Errorf("server %q: %w", name, err)
	}
	return tx.set(entry, "tools", "mcp", "servers", name)
}

// RemoveServer deletes tools.mcp.servers[name] (every occurrence) from the
// candidate and reports whether it was there.
func (tx *Tx) RemoveServer(name string) (bool, error) {
	out, found, err := jsonedit.Delete(tx.data, "tools", "mcp", "servers", name)
	if err != nil {
		return false, tx.notEditable(err)
	}
	tx.data = out
	return found, nil
}

// SetText replaces the whole candidate (an edit of the file as text).
func (tx *Tx) SetText(data []byte) { tx.data = data }

// EnableIfFirst sets tools.mcp.enabled to true when the file has no server
// yet and the integration is off (adding the first server should make
// plughost run it). It reports whether it did.
func (tx *Tx) EnableIfFirst() (bool, error) {
	names, err := tx.Servers()
	if err != nil || len(names) > 0 || tx.mcpEnabled() {
		return false, err
	}
	return true, tx.set(true, "tools", "mcp", "enabled")
}

func (tx *Tx) set(value any, keys ...string) error {
	out, err := jsonedit.Set(tx.data, value, keys...)
	if err != nil {
		return tx.notEditable(err)
	}
	if len(tx.data) == 0 || tx.data[len(tx.data)-1] == '\n' {
		out = ensureNewline(out) // a file that ended with a newline still does
	}
	tx.data = out
	return nil
}

func ensureNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return append(b, '\n')
	}
	return b
}

// mcpEnabled reports whether tools.mcp.enabled is on with the file as read.
func (tx *Tx) mcpEnabled() bool {
	l, _, err := config.CheckUserData(tx.opts, tx.file.Data)
	return err == nil && l.Config.MCP.Enabled
}

// notEditable explains a file that cannot be edited by key.
func (tx *Tx) notEditable(err error) error {
	if errors.Is(err, jsonedit.ErrInvalid) {
		_, p, lerr := config.CheckUserData(tx.opts, tx.data)
		detail := "it is not valid JSON"
		if lerr == nil && len(p.Fatal) > 0 {
			detail = p.Fatal[0].Error()
		}
		return &NotEditableError{File: tx.file.Path, Detail: detail, Invalid: true}
	}
	var noe *jsonedit.NotObjectError
	if errors.As(err, &noe) {
		return &NotEditableError{File: tx.file.Path, Detail: strings.ReplaceAll(noe.Error(), `" "`, `.`)}
	}
	return err
}

// Check validates the candidate with the runtime's validator. New global
// problems and problems of the servers in changed stop the write (an
// *InvalidError). Problems that were already in the file as read, and
// problems of servers the edit did not touch, are returned as warnings (the
// edit does not make them worse, and refusing would leave no way to change
// the file but an editor), as are commands not found on PATH and transport
// plugins not installed yet. A strict check (a whole-file edit, whose
// result must be valid as a whole) blocks on every problem.
func (tx *Tx) Check(strict bool, changed ...string) ([]string, error) {
	l, p, err := config.CheckUserData(tx.opts, tx.data)
	if err != nil {
		return nil, err
	}
	old := map[string]bool{}
	if tx.file.Exists && !strict {
		if _, before, err := config.CheckUserData(tx.opts, tx.file.Data); err == nil {
			for _, pr := range before.All() {
				old[pr.Error()] = true
			}
		}
	}
	var blocking []*config.ValidationError
	var warnings []string
	consider := func(pr *config.ValidationError, mayBlock bool) {
		switch {
		case old[pr.Error()]:
			warnings = append(warnings, "already in the file, not changed by this command: "+pr.Error())
		case mayBlock:
			blocking = append(blocking, pr)
		default:
			warnings = append(warnings, pr.Error())
		}
	}
	for _, pr := range p.Fatal {
		consider(pr, true)
	}
	for _, name := range slices.Sorted(maps.Keys(p.Servers)) {
		for _, pr := range p.Servers[name] {
			consider(pr, strict || slices.Contains(changed, name))
		}
	}
	if len(blocking) > 0 {
		return nil, &InvalidError{File: tx.file.Path, Problems: blocking}
	}
	for _, name := range changed {
		if w := config.CommandWarning(name, l.Config.MCP.Servers[name]); w != "" {
			warnings = append(warnings, w)
		}
		if w := pluginWarning(l.Config, name); w != "" {
			warnings = append(warnings, w)
		}
	}
	return warnings, nil
}

// Commit writes the candidate (atomically, mode 0600, the previous version
// kept at BackupPath), unless the file changed since it was read: then it
// returns a *ConflictError and writes nothing.
func (tx *Tx) Commit() error {
	err := tx.file.Write(tx.data)
	var changed *userfile.ChangedError
	if errors.As(err, &changed) {
		return &ConflictError{File: changed.Path}
	}
	return err
}

// pluginWarning says when server name uses a third-party transport type
// whose plugin executable is not installed yet: the write is fine, but the
// server cannot start until it is.
func pluginWarning(cfg *config.Config, name string) string {
	srv, ok := cfg.MCP.Servers[name]
	if !ok || !slices.Contains(config.ThirdPartyTypes(cfg), srv.Transport()) {
		return ""
	}
	if _, err := plugindir.Locate(srv.Transport(), host.PluginSearchDirs(cfg)); err != nil {
		return fmt.Sprintf("server %q will not start until its transport plugin is installed: %v", name, err)
	}
	return ""
}
