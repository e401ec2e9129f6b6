package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plughost/plughost/internal/ownertest"
	"github.com/plughost/plughost/internal/wine"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", ".plughost", "config.json")
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Exists || f.Data != nil {
		t.Fatalf("missing file read as existing: %+v", f)
	}
	if err := f.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "{}\n" {
		t.Errorf("content = %q", got)
	}
	ownertest.Private(t, path)
	// On Windows the directory's ACL is inherited; the file's own protected
	// ACL is what keeps it private there.
	if m := mode(t, filepath.Dir(path)); runtime.GOOS != "windows" && m != 0o700 {
		t.Errorf("dir mode %v, want 0700", m)
	}
	if _, err := os.Stat(f.BackupPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup was made of a file that did not exist: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".config.json.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestWriteKeepsBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write([]byte("v2")); err != nil {
		t.Fatal(err)
	}
	if err := f.Write([]byte("v3")); err != nil {
		t.Fatalf("second write from the same File: %v", err)
	}
	got := map[string]string{"file": content(t, path), "backup": content(t, f.BackupPath())}
	if diff := cmp.Diff(map[string]string{"file": "v3", "backup": "v2"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, p := range []string{path, f.BackupPath()} {
		ownertest.Private(t, p)
	}
}

func TestConcurrentChangeRefused(t *testing.T) {
	tests := []struct {
		name    string
		initial *string
		change  func(path string) error
	}{
		{"modified", ptr("v1"), func(p string) error { return os.WriteFile(p, []byte("theirs"), 0o600) }},
		{"same size, other bytes", ptr("v1"), func(p string) error { return os.WriteFile(p, []byte("v2"), 0o600) }},
		{"deleted", ptr("v1"), os.Remove},
		{"created", nil, func(p string) error { return os.WriteFile(p, []byte("theirs"), 0o600) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if tt.initial != nil {
				if err := os.WriteFile(path, []byte(*tt.initial), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			f, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			err = f.Write([]byte("mine"))
			var ce *ChangedError
			if !errors.As(err, &ce) {
				t.Fatalf("Write = %v, want *ChangedError", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(before) {
				t.Errorf("file overwritten: %q → %q", before, after)
			}
			if _, err := os.Stat(f.BackupPath()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused write made a backup: %v", err)
			}
		})
	}
}

// Two writers that read the same version race; the lock and the fingerprint
// let exactly one of them win.
func TestRacingWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("v0"), 0o600); err != nil {
		t.Fatal(err)
	}
	const n = 8
	files := make([]*File, n)
	for i := range files {
		f, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = f
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { errs[i] = f.Write([]byte{'w', byte('0' + i)}) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		var ce *ChangedError
		switch {
		case err == nil:
			won++
			if got := content(t, path); got != string([]byte{'w', byte('0' + i)}) {
				t.Errorf("winner %d's content not on disk: %q", i, got)
			}
		case !errors.As(err, &ce):
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers succeeded, want exactly 1", won)
	}
	if got := content(t, path+".bak"); got != "v0" {
		t.Errorf("backup = %q, want the version all of them read", got)
	}
}

func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "plughost.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.json")
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("SKIP: Windows creates symlinks only in Developer Mode or with SeCreateSymbolicLinkPrivilege: %v", err)
		}
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); err != nil && wine.Running() {
		t.Skipf("SKIP: wine 8's CreateSymbolicLinkW is a stub that reports success and creates nothing (Lstat: %v)", err)
	}
	f, err := Read(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write([]byte("v2")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file: %v", err)
	}
	if got := content(t, target); got != "v2" {
		t.Errorf("target = %q, want v2", got)
	}
}

func ptr(s string) *string { return &s }

// Temporary files of an interrupted earlier write (of the file or of its
// backup) are removed by the next write; other files are left alone.
func TestWriteRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	leftovers := []string{".config.json.tmp-123", ".config.json.bak.tmp-456"}
	keep := []string{"config.json.tmp-notours", ".other.json.tmp-1"}
	for _, name := range append(append([]string{}, leftovers...), keep...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	for _, name := range leftovers {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was not removed: %v", name, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// A File read under the lock writes without taking it again, and every
// other plughost writer waits until it is released: a second locked
// reader sees the first one's write, never the version before it.
func TestReadLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadLocked(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan string, 1)
	go func() {
		g, err := ReadLocked(path)
		if err != nil {
			seen <- err.Error()
			return
		}
		defer g.Unlock()
		seen <- string(g.Data)
	}()
	if err := f.Write([]byte("v2")); err != nil {
		t.Fatalf("write under the lock: %v", err)
	}
	f.Unlock()
	f.Unlock() // a second Unlock does nothing
	if got := <-seen; got != "v2" {
		t.Errorf("the second locked reader read %q; want v2, written before the first released the lock", got)
	}
}
