package config

import (
	"path/filepath"
	"strings"
)

// programDataFallback is %ProgramData% on a Windows installed to C:, used
// when environ does not say (or says something that is not absolute).
const programDataFallback = `C:\ProgramData`

// DefaultSystemDir returns the directory of the system-wide layers Load
// reads when LoadOptions.SystemDir is "": %ProgramData%\plughost\koanf.d,
// where Windows keeps machine-wide application data, with ProgramData read
// from environ (its name in any case, as Windows compares them) and
// C:\ProgramData when it is unset or not an absolute path.
func DefaultSystemDir(environ []string) string {
	dir := ""
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, "ProgramData") {
			dir = v // the last one wins, as in lookupEnv
		}
	}
	if !filepath.IsAbs(dir) {
		dir = programDataFallback
	}
	return filepath.Join(dir, "plughost", "koanf.d")
}
