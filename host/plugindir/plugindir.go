// Package plugindir finds transport plugin executables: transport type T is
// served by an executable named `mcp-transport-T` in one of the plugin dirs.
package plugindir

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/plughost/plughost/config"
)

// Prefix is the executable name prefix of every transport plugin.
const Prefix = "mcp-transport-"

// validType keeps a type from naming a path ("../../bin/sh").
var validType = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// NotFoundError says which executable was looked for where.
type NotFoundError struct {
	Type       string
	Executable string
	Dirs       []string
}

// Error implements error.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no transport plugin for type %q: executable %q not found in %s (built-in types: %s; install a plugin named %s there, or fix the type)",
		e.Type, e.Executable, strings.Join(quoteAll(e.Dirs), ", "), strings.Join(config.BuiltinTransports(), ", "), e.Executable)
}

func quoteAll(dirs []string) []string {
	if len(dirs) == 0 {
		return []string{"(no plugin dirs configured)"}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = quotePath(d)
	}
	return out
}

// DefaultDirs returns the default search path: `plugins/` beside the running
// executable, then `<home>/.plughost/plugins`.
func DefaultDirs(executable, home string) []string {
	var dirs []string
	if executable != "" {
		if resolved, err := filepath.EvalSymlinks(executable); err == nil {
			executable = resolved
		}
		dirs = append(dirs, filepath.Join(filepath.Dir(executable), "plugins"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".plughost", "plugins"))
	}
	return dirs
}

// Locate returns the path of the plugin executable for transport type typ,
// searching dirs in order. On Windows the executable is
// mcp-transport-T.exe.
func Locate(typ string, dirs []string) (string, error) {
	exe := Prefix + typ + exeSuffix
	if !validType.MatchString(typ) {
		return "", &NotFoundError{Type: typ, Executable: exe, Dirs: dirs}
	}
	for _, d := range dirs {
		p := filepath.Join(d, exe)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && executable(fi.Mode()) {
			return p, nil
		}
	}
	return "", &NotFoundError{Type: typ, Executable: exe, Dirs: dirs}
}
