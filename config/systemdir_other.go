//go:build !windows

package config

// DefaultSystemDir returns the directory of the system-wide layers Load
// reads when LoadOptions.SystemDir is "": /etc/plughost/koanf.d. environ
// is not consulted here; on Windows it locates %ProgramData%.
func DefaultSystemDir(environ []string) string { return "/etc/plughost/koanf.d" }
