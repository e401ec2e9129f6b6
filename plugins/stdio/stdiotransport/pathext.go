package stdiotransport

import (
	"path/filepath"
	"strings"
)

// defaultPathExt is what cmd.exe tries when PATHEXT is unset.
const defaultPathExt = ".COM;.EXE;.BAT;.CMD"

// searchPathExt finds command the way cmd.exe does on Windows: a name with
// an extension is looked for as it is, one without is tried with each
// extension of pathext in turn in every dir — so "npx" is found as npx.cmd,
// the form in which Node.js installs it. exists reports whether a path is
// a regular file. "" when nothing matches.
func searchPathExt(command string, dirs []string, pathext string, exists func(string) bool) string {
	if pathext == "" {
		pathext = defaultPathExt
	}
	var exts []string
	if filepath.Ext(command) != "" {
		exts = append(exts, "")
	}
	for _, e := range strings.Split(pathext, ";") {
		if e = strings.TrimSpace(e); e != "" {
			exts = append(exts, strings.ToLower(e))
		}
	}
	for _, dir := range dirs {
		for _, e := range exts {
			if p := filepath.Join(dir, command+e); exists(p) {
				return p
			}
		}
	}
	return ""
}

// envValueFold is envValue with the key matched without regard to case,
// as Windows treats environment names ("Path", "PATH").
func envValueFold(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, key) {
			v = val
		}
	}
	return v
}
