//go:build windows

package atomicfile

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameWait is how long rename retries while another process has the
// file open; readers of a small file hold it for milliseconds.
const renameWait = 2 * time.Second

// rename is os.Rename, retried while another process has newpath open:
// Windows refuses to replace a file opened without FILE_SHARE_DELETE
// (Go's os.Open and most programs open so) with ERROR_ACCESS_DENIED or
// ERROR_SHARING_VIOLATION until it is closed, so a plughost reading the
// config would otherwise fail another one's write.
func rename(oldpath, newpath string) error {
	deadline := time.Now().Add(renameWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err := os.Rename(oldpath, newpath)
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

// transient reports whether err is how Windows refuses to replace a file
// that another handle holds open.
func transient(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
