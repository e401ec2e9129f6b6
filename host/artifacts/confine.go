package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// PathError is a path the paging tools refuse: outside the workspace, with a
// ".." component, or empty. Msg says what to pass instead.
type PathError struct {
	// Path is the path as given.
	Path string
	// Msg explains the refusal.
	Msg string
}

// Error returns "path <path>: <msg>".
func (e *PathError) Error() string { return fmt.Sprintf("path %q: %s", e.Path, e.Msg) }

// relPath turns a path given by the model (absolute inside the workspace,
// or relative to it) into a clean workspace-relative path. It rejects ".."
// components outright, even when they would stay inside, so that no path
// trick is ever needed to read an artifact.
func (s *Store) relPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", &PathError{Path: p, Msg: "is empty; pass the path from a [file:...] reference"}
	}
	if slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		return "", &PathError{Path: p, Msg: `must not contain ".."; pass a path inside the workspace ` + s.workspace}
	}
	if !filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	for _, base := range s.workspaceForms() {
		if rel, err := filepath.Rel(base, filepath.Clean(p)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel, nil
		}
	}
	if s.client != "" {
		return "", notFound(p)
	}
	return "", &PathError{Path: p, Msg: "is outside the workspace " + s.workspace + "; only files in the workspace can be read"}
}

// workspaceForms returns the workspace path as configured and with symbolic
// links resolved, so an absolute path in either form is recognised.
func (s *Store) workspaceForms() []string {
	forms := []string{s.workspace}
	if real, err := filepath.EvalSymlinks(s.workspace); err == nil && real != s.workspace {
		forms = append(forms, real)
	}
	return forms
}

// open opens a workspace file for reading through an os.Root, which refuses
// any symbolic link or path that leads outside the workspace. The file is
// marked in use until release is called.
func (s *Store) open(p string) (f *os.File, rel string, release func(), err error) {
	rel, err = s.relPath(p)
	if err != nil {
		return nil, "", nil, err
	}
	root, err := openRoot(s.workspace)
	if err != nil {
		return nil, "", nil, err
	}
	defer root.Close()
	if fi, err := root.Stat(rel); err != nil && s.client != "" {
		return nil, "", nil, notFound(p) // missing, or a link leading out: alike
	} else if err != nil {
		return nil, "", nil, fmt.Errorf("open %s in the workspace: %w", rel, err)
	} else if err := regularFile(p, fi); err != nil {
		return nil, "", nil, err // never opened: opening a FIFO blocks
	}
	release = s.acquire(filepath.Join(s.workspace, rel))
	f, err = openRegular(root, p, rel)
	if err != nil {
		release()
		if s.client != "" && !isPathError(err) {
			err = notFound(p)
		}
		return nil, "", nil, err
	}
	return f, rel, release, nil
}

// openRegular opens rel for reading without blocking, and refuses it unless
// it is a regular file: a file swapped for a FIFO after the check in open
// must not hang the call (O_NONBLOCK does not change reads of a regular
// file).
func openRegular(root *os.Root, p, rel string) (*os.File, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s in the workspace: %w", rel, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = regularFile(p, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// isPathError reports whether err is a refusal that names only the path
// as given.
func isPathError(err error) bool {
	var pe *PathError
	return errors.As(err, &pe)
}

// regularFile refuses anything but a regular file, naming what it is.
func regularFile(p string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return &PathError{Path: p, Msg: "is " + what + "; only regular files can be read or searched (a directory can be searched with search_files)"}
}

func openRoot(workspace string) (*os.Root, error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", workspace, err)
	}
	return root, nil
}

// absPath returns the absolute form of a workspace-relative path, as shown
// to the model.
func (s *Store) absPath(rel string) string { return filepath.Join(s.workspace, rel) }
