package audit

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"

	"github.com/plughost/plughost/lib/ownerfile"
)

// openAppend opens (creating) the log file at path to append to it, a new
// one created with an ACL that grants its owner alone
// (ownerfile.SecurityAttributes): set afterwards by name, the ACL would
// miss a file that another process rotated in between. It
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
		access = windows.FILE_APPEND_DATA | windows.FILE_READ_DATA | windows.FILE_READ_ATTRIBUTES | windows.SYNCHRONIZE // READ_DATA for LockFileEx
		share  = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	)
	owner, err := ownerfile.SecurityAttributes()
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	// Create a new file, or open the one there; once more if that one is
	// removed (rotated) in between.
	for range 3 {
		h, err := windows.CreateFile(name, access, share, owner, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
		if err == nil {
			return os.NewFile(uintptr(h), path), nil
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

// appendLocked writes b at the end of f holding an exclusive lock
// (LockFileEx) on one byte far past any end the file reaches, so that the
// writes of processes sharing the file (plughost stdio beside serve) take
// turns: Windows documents a handle opened to append only as writing at the
// end, not that two processes' writes there never overlap, and wine's do
// overlap.
func appendLocked(f *os.File, b []byte) (int, error) {
	h := windows.Handle(f.Fd())
	at := windows.Overlapped{OffsetHigh: 1 << 30} // byte 1<<62
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &at); err != nil {
		return 0, fmt.Errorf("lock %s to append: %w", f.Name(), err)
	}
	defer func() { _ = windows.UnlockFileEx(h, 0, 1, 0, &at) }()
	return f.Write(b)
}
