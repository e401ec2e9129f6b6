package trust

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/plughost/plughost/lib/ownerfile"
)

// lockWait bounds how long a writer waits for another one to release the
// pins file's lock: a write holds it for milliseconds.
const lockWait = 10 * time.Second

// lockFile takes the exclusive advisory lock on the lock file at path
// (created if needed, kept to its owner), waiting until ctx ends or
// lockWait has passed, and returns the function that releases it. Every
// plughost writer of the pins file takes it, in any process.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := openLock(path)
	if err != nil {
		return nil, fmt.Errorf("lock the pins file: %w", err)
	}
	deadline := time.Now().Add(lockWait)
	wait := time.Millisecond
	for {
		locked, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock the pins file: %s: %w", path, err)
		}
		if locked {
			return func() {
				_ = unlock(f) // closing the file releases the lock anyway
				f.Close()
			}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock the pins file: another plughost has held %s for %s; try again when it is done", path, lockWait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock the pins file: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 20*time.Millisecond)
	}
}

// openLock opens the lock file at path, creating it, if missing, mode 0600
// (on Windows with an owner-only ACL: ownerfile.Restrict), so that no other
// account may hold the lock.
func openLock(path string) (*os.File, error) {
	for range 3 { // once more if the file is removed in between
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
		if err == nil {
			if err := ownerfile.Restrict(f); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_RDWR, 0)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("open %s: removed each time it was opened", path)
}
