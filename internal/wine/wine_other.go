//go:build !windows

package wine

// Running is false: only Windows binaries run under wine.
func Running() bool { return false }
