// Package atomicfile replaces small private files (the config, the pins
// of tool trust) so that no reader ever sees part of one and a crash
// leaves the old or the new file, never a mix.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plughost/plughost/lib/ownerfile"
)

// tempPattern is the name pattern of Write's temporary files for path.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// Write replaces path with data: a temporary file in the same directory,
// mode 0600 (on Windows an owner-only ACL), fsynced, renamed over path
// (whatever mode path had; on Windows after waiting up to 2s for readers
// that hold path open), then the directory fsynced to make the rename
// durable.
func Write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = ownerfile.Restrict(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced (Windows), the rename is left to the file system.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// RemoveLeftovers removes the temporary files of writes to path that a
// crash interrupted. Call it under the file's lock: then no such file
// belongs to a write under way.
func RemoveLeftovers(path string) {
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path))) // the pattern is well-formed
	for _, name := range left {
		_ = os.Remove(name) // best effort: a leftover we cannot remove harms nothing
	}
}

// ReadFile reads the whole of path, a file that Write replaces, opened with
// Open.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
