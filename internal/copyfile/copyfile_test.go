package copyfile

import (
	"os"
	"path/filepath"
	"testing"
)

// New copies content and mode, and refuses a destination that exists.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := New(src, dst, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	fi, serr := os.Stat(dst)
	if err != nil || serr != nil || string(b) != "#!/bin/sh\n" || fi.Mode().Perm() != 0o700 {
		t.Fatalf("copy %q (%v), mode %v (%v)", b, err, fi.Mode(), serr)
	}
	if err := New(src, dst, 0o700); err == nil {
		t.Error("copying onto an existing file succeeded")
	}
}
