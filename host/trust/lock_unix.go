//go:build unix

package trust

import (
	"errors"
	"os"
	"syscall"
)

// lockingWorks reports whether lockFile excludes other processes here.
const lockingWorks = true

// tryLock takes an exclusive flock on f without waiting; false when
// another open file holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// unlock releases tryLock's lock.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
