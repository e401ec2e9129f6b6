//go:build !windows

package atomicfile

import "os"

// rename is os.Rename: here a file open elsewhere can be replaced.
func rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }
