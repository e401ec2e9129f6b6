package userfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plughost/plughost/lib/atomicfile"
)

// File is the user config file as read, with the fingerprint of that version.
// It is not safe for concurrent use.
type File struct {
	// Path is the file written (a symlink is resolved to its target, so a
	// config kept in a dotfiles repository stays a link).
	Path string
	// Data is the content read; nil when the file did not exist.
	Data []byte
	// Exists reports whether the file existed when read.
	Exists bool

	sum    [sha256.Size]byte
	unlock func() // set by ReadLocked until Unlock
}

// ChangedError reports that the file changed on disk after it was read, so
// writing would overwrite someone else's change.
type ChangedError struct {
	// Path is the file that changed.
	Path string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s was changed by someone else since this command read it; nothing was written — run the command again to apply it to the new version", e.Path)
}

// lockWait is how long a writer waits for another one to release the lock.
const lockWait = 10 * time.Second

// Read reads the file at path; a missing file is an empty, not existing File.
func Read(path string) (*File, error) {
	path, err := resolve(path)
	if err != nil {
		return nil, err
	}
	return read(path)
}

// ReadLocked is Read under the file's advisory lock, which it keeps until
// Unlock: every plughost writer takes that lock to write, so none can
// change the file between this read and the File's Write. Call Unlock
// when done, written or not.
func ReadLocked(path string) (*File, error) {
	path, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create config directory: %w", err)
	}
	unlock, err := lock(path+".lock", lockWait)
	if err != nil {
		return nil, err
	}
	f, err := read(path)
	if err != nil {
		unlock()
		return nil, err
	}
	f.unlock = unlock
	return f, nil
}

// Unlock releases the lock ReadLocked took. It does nothing for a File
// from Read, or when called again.
func (f *File) Unlock() {
	if f.unlock != nil {
		f.unlock()
		f.unlock = nil
	}
}

// resolve checks path and resolves a symlink to its target.
func resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("no config file path (set HOME, --config or PLUGHOST_CONFIG)")
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path, nil
}

func read(path string) (*File, error) {
	data, exists, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return &File{Path: path, Data: data, Exists: exists, sum: sha256.Sum256(data)}, nil
}

func readFile(path string) ([]byte, bool, error) {
	data, err := atomicfile.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read config file: %w", err)
	}
	return data, true, nil
}

// Version identifies the content read: the hex sha256 of the file's bytes
// (of no bytes when it did not exist). A caller that read a version earlier
// passes it back to refuse a write over a newer one (see Write's check).
func (f *File) Version() string { return hex.EncodeToString(f.sum[:]) }

// BackupPath is where Write keeps the previous version.
func (f *File) BackupPath() string { return f.Path + ".bak" }

// Unchanged reports whether the file on disk is still the version read.
func (f *File) Unchanged() (bool, error) {
	data, exists, err := readFile(f.Path)
	if err != nil {
		return false, err
	}
	return exists == f.Exists && sha256.Sum256(data) == f.sum, nil
}

// Write replaces the file with data, unless it changed since it was read
// (then it returns a *ChangedError and leaves it alone). The previous
// version, if any, is kept at BackupPath. On success f holds data as its new
// version, so a later Write builds on this one. It takes the file's lock
// for the check and the rename, unless f holds it already (ReadLocked).
func (f *File) Write(data []byte) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create config directory: %w", err)
	}
	if f.unlock == nil {
		unlock, err := lock(f.Path+".lock", lockWait)
		if err != nil {
			return err
		}
		defer unlock()
	}
	removeLeftovers(f.Path)
	same, err := f.Unchanged()
	if err != nil {
		return err
	}
	if !same {
		return &ChangedError{Path: f.Path}
	}
	if f.Exists && !bytes.Equal(f.Data, data) {
		if err := writeAtomic(f.BackupPath(), f.Data); err != nil {
			return fmt.Errorf("keep the previous version: %w", err)
		}
	}
	if err := writeAtomic(f.Path, data); err != nil {
		return err
	}
	f.Data, f.Exists, f.sum = data, true, sha256.Sum256(data)
	return nil
}

// removeLeftovers removes the temporary files of writes to the file and to
// its backup that were interrupted (a crash between create and rename).
// Writers hold the lock, so under it no such file belongs to a live write.
func removeLeftovers(path string) {
	atomicfile.RemoveLeftovers(path)
	atomicfile.RemoveLeftovers(path + ".bak")
}

// writeAtomic writes data to path through a temporary file in the same
// directory: fsync, chmod 0600, rename, fsync the directory.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }
