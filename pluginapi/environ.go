package pluginapi

import (
	"runtime"
	"slices"
	"strings"
)

// baseEnvKeys are the variables a stdio MCP server inherits by default (spec:
// "inherits only PATH, HOME, USER, LANG, LC_ALL, TERM, SHELL, TMPDIR and XDG_*").
var baseEnvKeys = [...]string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR"}

// windowsEnvKeys are the basic process variables a Windows program needs,
// none of them a secret: SYSTEMROOT and WINDIR to load system DLLs, COMSPEC
// and PATHEXT to run scripts such as npx.cmd, TEMP and TMP, the profile
// folders (USERPROFILE, HOMEDRIVE and HOMEPATH, APPDATA and LOCALAPPDATA,
// where npm keeps its cache), PROGRAMDATA, PROGRAMFILES, SYSTEMDRIVE,
// USERNAME (the USER of Windows) and PROCESSOR_ARCHITECTURE. They include
// every variable the MCP SDKs pass to a server on Windows by default, so a
// server that works under their clients works here.
var windowsEnvKeys = [...]string{
	"SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
	"PROGRAMDATA", "PROGRAMFILES", "SYSTEMDRIVE", "USERNAME", "PROCESSOR_ARCHITECTURE",
}

// IsBaseEnvKey reports whether key is one a server inherits by default on
// this system (see IsBaseEnvKeyOn).
func IsBaseEnvKey(key string) bool { return IsBaseEnvKeyOn(runtime.GOOS, key) }

// IsBaseEnvKeyOn reports whether key is one a server inherits by default on
// goos (a GOOS value): the spec's allowlist, every XDG_* variable, and on
// Windows the basic process variables, with keys compared ignoring case
// there as Windows does.
func IsBaseEnvKeyOn(goos, key string) bool {
	if goos == "windows" {
		key = strings.ToUpper(key)
	}
	if strings.HasPrefix(key, "XDG_") || slices.Contains(baseEnvKeys[:], key) {
		return true
	}
	return goos == "windows" && slices.Contains(windowsEnvKeys[:], key)
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
