package audit

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"

	"github.com/plughost/plughost/lib/ownerfile"
)

// openAppend opens (creating) the log file at path to append to it, a new
// one with an ACL that grants its owner alone (ownerfile.Restrict). It
// shares the file for deletion, which os.OpenFile does not: without it
// Windows refuses another process (plughost stdio beside serve) the rename
// of a rotation, and the removal of an old file, while this one has it
// open, and that process's records are lost. With it, as on Unix, this
// handle follows the renamed file and rotatedElsewhere sees the change.
func openAppend(path string) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	const (
		access = windows.FILE_APPEND_DATA | windows.FILE_READ_ATTRIBUTES | windows.SYNCHRONIZE
		share  = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	)
	// Create a new file, or open the one there; once more if that one is
	// removed (rotated) in between.
	for range 3 {
		h, err := windows.CreateFile(name, access, share, nil, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
		if err == nil {
			f := os.NewFile(uintptr(h), path)
			if err := ownerfile.Restrict(f); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if !errors.Is(err, windows.ERROR_FILE_EXISTS) {
			return nil, &os.PathError{Op: "create", Path: path, Err: err}
		}
		h, err = windows.CreateFile(name, access, share, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
		if err == nil {
			return os.NewFile(uintptr(h), path), nil
		}
		if !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return nil, fmt.Errorf("open %s: removed each time it was opened", path)
}
