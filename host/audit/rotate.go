package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// File names in the log directory: the current file, and the rotated ones
// named by when they were rotated (they sort oldest first).
const (
	currentName   = "audit.jsonl"
	rotatedPrefix = "audit-"
	rotatedSuffix = ".jsonl"
	rotatedTime   = "20060102T150405.000Z"
)

// rotator appends to the current file and rotates it when the next write
// would take it over maxBytes, keeping at most keep rotated files. Not
// safe for concurrent use: Log.Run alone writes.
type rotator struct {
	dir      string
	maxBytes int64
	keep     int
	f        *os.File // nil until opened, and after a failure
	size     int64
}

// write appends b (whole lines) with one write: a process killed meanwhile
// leaves the file with or without all of b, never part of a line, as the
// file is opened O_APPEND (on Windows to append only, each write under a
// lock) and a write to a regular file is not split.
func (r *rotator) write(b []byte, now time.Time) error {
	if r.f == nil {
		if err := r.open(); err != nil {
			return err
		}
	}
	if r.size > 0 && r.size+int64(len(b)) > r.maxBytes && r.rotatedElsewhere() {
		if err := r.reopen(); err != nil {
			return err
		}
	}
	if r.size > 0 && r.size+int64(len(b)) > r.maxBytes {
		if err := r.rotate(now); err != nil {
			return err
		}
	}
	n, err := appendLocked(r.f, b)
	r.size += int64(n)
	if err != nil {
		r.close()
		return fmt.Errorf("audit log: write %s: %w", r.path(), err)
	}
	return nil
}

func (r *rotator) path() string { return filepath.Join(r.dir, currentName) }

// open opens (creating) the directory, mode 0700, and the current file,
// mode 0600 (on Windows an owner-only ACL).
func (r *rotator) open() error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("audit log: create directory: %w", err)
	}
	f, err := openAppend(r.path())
	if err != nil {
		return fmt.Errorf("audit log: open: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("audit log: open: %w", err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// rotatedElsewhere reports whether another process sharing the directory
// (plughost stdio beside serve) rotated the file meanwhile: the name then
// is another file than the one open.
func (r *rotator) rotatedElsewhere() bool {
	open, err := r.f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(r.path())
	return err != nil || !os.SameFile(open, named)
}

// reopen opens the file the name now holds.
func (r *rotator) reopen() error {
	r.close()
	return r.open()
}

// rotate renames the current file to audit-<time>.jsonl, opens a new one
// and removes the oldest rotated files beyond keep.
func (r *rotator) rotate(now time.Time) error {
	r.close()
	stamp := now.UTC().Format(rotatedTime)
	name := rotatedPrefix + stamp + rotatedSuffix
	for i := 1; exists(filepath.Join(r.dir, name)); i++ { // two rotations in one millisecond
		name = fmt.Sprintf("%s%s-%d%s", rotatedPrefix, stamp, i, rotatedSuffix)
	}
	if err := os.Rename(r.path(), filepath.Join(r.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	if err := r.open(); err != nil {
		return err
	}
	return r.prune()
}

// prune removes the oldest rotated files beyond keep.
func (r *rotator) prune() error {
	old, err := rotatedFiles(r.dir)
	if err != nil {
		return err
	}
	var errs []error
	for len(old) > r.keep {
		if err := os.Remove(filepath.Join(r.dir, old[0])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("audit log: remove old file: %w", err))
		}
		old = old[1:]
	}
	return errors.Join(errs...)
}

// rotatedFiles lists the rotated files of dir, oldest first.
func rotatedFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit log: list rotated files: %w", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, rotatedPrefix) && strings.HasSuffix(n, rotatedSuffix) {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, compareRotated)
	return names, nil
}

// compareRotated orders rotated names by time, then by the -<n> suffix of
// those rotated in the same millisecond (none is 0).
func compareRotated(a, b string) int {
	ta, na := splitRotated(a)
	tb, nb := splitRotated(b)
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	return na - nb
}

// splitRotated splits audit-<time>[-<n>].jsonl into time and n.
func splitRotated(name string) (stamp string, n int) {
	s := strings.TrimSuffix(strings.TrimPrefix(name, rotatedPrefix), rotatedSuffix)
	stamp, suffix, _ := strings.Cut(s, "-")
	n, _ = strconv.Atoi(suffix) // none, or not a number: 0
	return stamp, n
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func (r *rotator) close() {
	if r.f != nil {
		_ = r.f.Close() // written with write(2), nothing buffered to lose
		r.f = nil
	}
}
