//go:build !windows

package atomicfile

import "os"

// Open opens path, a file that Write replaces, for reading: os.Open, as
// here a file open elsewhere can be replaced.
func Open(path string) (*os.File, error) { return os.Open(path) }
