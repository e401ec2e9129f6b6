//go:build !windows

package ownerfile

import (
	"fmt"
	"os"
)

// unixModes says mode bits decide who may read a file here.
const unixModes = true

// Restrict makes f readable and writable by its owner only. Call it on a
// file just created, before writing to it.
func Restrict(f *os.File) error { return f.Chmod(0o600) }

// Exposed says how other users may read the file at path ("has mode 0644")
// and the command that fixes it; "" when only its owner may.
func Exposed(path string) (problem, fix string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("has mode %04o", perm), "chmod 600 " + path, nil
	}
	return "", "", nil
}
