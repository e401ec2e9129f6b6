// Package copyfile copies a file to a new one: the test binaries' copies
// (internal/testbin) and the executables bench footprint runs from copies
// of their own (internal/bench).
package copyfile

import (
	"io"
	"os"
)

// New copies the file src to dst, which must not exist yet, with mode perm.
// On Windows only perm's owner-write bit counts (without it the copy is
// read-only): there a file runs by its name's extension, not a mode bit.
func New(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
