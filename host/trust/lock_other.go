//go:build !unix && !windows

package trust

import "os"

// lockingWorks reports whether lockFile excludes other processes here: on
// systems with neither flock nor LockFileEx (plan9, wasm) it does not, and
// two processes pinning at the same moment may lose one's pins; writers
// in one process are still serialized by the store's mutex, and every
// write still replaces the file atomically.
const lockingWorks = false

// tryLock takes no lock: there is none to take here (see lockingWorks).
func tryLock(*os.File) (bool, error) { return true, nil }

// unlock releases nothing.
func unlock(*os.File) error { return nil }
