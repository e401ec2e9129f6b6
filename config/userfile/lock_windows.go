//go:build windows

package userfile

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive lock (LockFileEx) on the first byte of path,
// created if needed, retrying until wait has passed, and returns the
// function that releases it. Windows enforces the lock on every handle,
// which is what serializes two plughost processes writing the config.
func lock(path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock config file: %w", err)
	}
	h := windows.Handle(f.Fd())
	deadline := time.Now().Add(wait)
	for {
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
		if err == nil {
			return func() {
				_ = windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped))
				f.Close()
			}, nil
		}
		if !errors.Is(err, windows.ERROR_LOCK_VIOLATION) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock config file: another plughost has held %s for %s; wait for it to finish and run the command again: %w", path, wait, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
