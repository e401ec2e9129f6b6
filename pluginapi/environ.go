package pluginapi

import (
	"runtime"
	"strings"
)

// baseEnvKeys are the variables a stdio MCP server inherits by default (spec:
// "inherits only PATH, HOME, USER, LANG, LC_ALL, TERM, SHELL, TMPDIR and XDG_*").
var baseEnvKeys = [...]string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR"}

// windowsEnvKeys are the basic process variables a Windows program needs.
var windowsEnvKeys = [...]string{
	"SYSTEMROOT", "SystemRoot", "COMSPEC", "PATHEXT", "WINDIR", "TEMP", "TMP",
	"USERPROFILE", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "SystemDrive",
}

// IsBaseEnvKey reports whether key is one a server inherits by default: the
// spec's allowlist, every XDG_* variable, and on Windows the basic process
// variables.
func IsBaseEnvKey(key string) bool {
	if strings.HasPrefix(key, "XDG_") {
		return true
	}
	for _, k := range baseEnvKeys {
		if key == k {
			return true
		}
	}
	if runtime.GOOS == "windows" {
		for _, k := range windowsEnvKeys {
			if strings.EqualFold(key, k) {
				return true
			}
		}
	}
	return false
}

// BaseEnviron filters environ ("KEY=value" items) down to the default
// allowlist. The host starts plugin processes with it, so a plugin never sees
// the host's secrets unless a server asks for them (inherit_env).
func BaseEnviron(environ []string) []string {
	out := make([]string, 0, 16)
	for _, kv := range environ {
		key, _, ok := strings.Cut(kv, "=")
		if ok && IsBaseEnvKey(key) {
			out = append(out, kv)
		}
	}
	return out
}
