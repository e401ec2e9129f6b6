package main

import (
	"errors"
	"fmt"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/host/plugindir"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/plughost/plughost/host/config"
	"github.com/plughost/plughost/host/config/jsonedit"
	"github.com/plughost/plughost/host/config/userfile"
)

// userEdit is one read-check-write of the user's config file: edits apply to
// a candidate copy; commit validates nothing, check does (with the runtime's
// validator), and the file is written only by commit.
type userEdit struct {
	opts config.LoadOptions
	file *userfile.File
	data []byte // the candidate content
}

// beginEdit reads the user config file (which may be missing). Only the user
// file is ever written, never the merged layers.
func (g *globals) beginEdit() (*userEdit, error) {
	home, _ := os.UserHomeDir()
	opts := config.LoadOptions{UserFile: g.configPath, Environ: os.Environ(), Home: home, AllowMissing: true}
	l, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	f, err := userfile.Read(l.UserFile)
	if err != nil {
		return nil, err
	}
	opts.UserFile = f.Path
	return &userEdit{opts: opts, file: f, data: f.Data}, nil
}

// notJSON explains how to recover from a user file that cannot be edited
// by key because it is not valid JSON.
func (e *userEdit) notJSON(err error) error {
	if errors.Is(err, jsonedit.ErrInvalid) {
		_, p, lerr := config.CheckUserData(e.opts, e.data)
		detail := "it is not valid JSON"
		if lerr == nil && len(p.Fatal) > 0 {
			detail = p.Fatal[0].Error()
		}
		return fmt.Errorf("cannot change %s: %s; fix it with `plughost mcp edit`, then run this command again", e.file.Path, detail)
	}
	var noe *jsonedit.NotObjectError
	if errors.As(err, &noe) {
		return fmt.Errorf("cannot change %s: %s; fix it with `plughost mcp edit`", e.file.Path, strings.ReplaceAll(noe.Error(), `" "`, `.`))
	}
	return err
}

// serverNames returns the servers of the user file, in file order.
func (e *userEdit) serverNames() ([]string, error) {
	names, err := jsonedit.Keys(e.data, "tools", "mcp", "servers")
	if err != nil {
		return nil, e.notJSON(err)
	}
	return names, nil
}

func (e *userEdit) has(name string) (bool, error) {
	names, err := e.serverNames()
	return slices.Contains(names, name), err
}

func (e *userEdit) set(value any, keys ...string) error {
	out, err := jsonedit.Set(e.data, value, keys...)
	if err != nil {
		return e.notJSON(err)
	}
	if len(e.data) == 0 || e.data[len(e.data)-1] == '\n' {
		out = ensureNewline(out) // a file that ended with a newline still does
	}
	e.data = out
	return nil
}

func (e *userEdit) remove(keys ...string) (bool, error) {
	out, found, err := jsonedit.Delete(e.data, keys...)
	if err != nil {
		return false, e.notJSON(err)
	}
	e.data = out
	return found, nil
}

func ensureNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return append(b, '\n')
	}
	return b
}

// mcpEnabled reports whether tools.mcp.enabled is on with the file as read.
func (e *userEdit) mcpEnabled() bool {
	l, _, err := config.CheckUserData(e.opts, e.file.Data)
	return err == nil && l.Config.MCP.Enabled
}

// invalidError lists the problems that stopped a write.
type invalidError struct {
	file     string
	problems []*config.ValidationError
	hint     string
}

func (e *invalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nothing was written to %s: the config would be invalid:", e.file)
	for _, p := range e.problems {
		b.WriteString("\n  " + strings.ReplaceAll(p.Error(), "\n", "\n    "))
	}
	if e.hint != "" {
		b.WriteString("\n" + e.hint)
	}
	return b.String()
}

// check validates the candidate with the runtime's validator. New global
// problems and problems of the servers in changed stop the write. Problems
// that were already in the file as read, and problems of servers this
// command did not touch, are returned as warnings (the command does not make
// them worse, and refusing would leave no way to change the file but an
// editor), as are commands not found on PATH. A strict check (mcp edit,
// whose result must be valid as a whole) blocks on every problem.
func (e *userEdit) check(strict bool, changed ...string) ([]string, error) {
	l, p, err := config.CheckUserData(e.opts, e.data)
	if err != nil {
		return nil, err
	}
	old := map[string]bool{}
	if e.file.Exists && !strict {
		if _, before, err := config.CheckUserData(e.opts, e.file.Data); err == nil {
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
		return nil, &invalidError{file: e.file.Path, problems: blocking}
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

// commit writes the candidate (atomically, 0600, with a backup), unless the
// file changed since it was read.
func (e *userEdit) commit() error {
	return e.file.Write(e.data)
}

// printWarnings prints each warning on stderr.
func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
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
