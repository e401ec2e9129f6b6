//go:build windows

package atomicfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// Open opens path, a file that Write replaces, for reading. It shares the
// file for deletion, which os.Open does not: a Write of another process
// then replaces the file while it is open, rather than waiting for it, and
// opening it while that Write renames does not fail with a sharing
// violation.
func Open(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	const share = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	h, err := windows.CreateFile(name, windows.GENERIC_READ, share, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
