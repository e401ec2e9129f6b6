package copyfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// New copies content and mode, and refuses a destination that exists. On
// Windows the mode is writable or read-only, as perm's owner-write bit
// says.
func TestNew(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dst             string
		perm, want, win os.FileMode
	}{
		{"b", 0o700, 0o700, 0o666},
		{"read-only", 0o500, 0o500, 0o444},
	} {
		dst := filepath.Join(dir, c.dst)
		if err := New(src, dst, c.perm); err != nil {
			t.Fatal(err)
		}
		want := c.want
		if runtime.GOOS == "windows" {
			want = c.win
		}
		b, err := os.ReadFile(dst)
		fi, serr := os.Stat(dst)
		if err != nil || serr != nil || string(b) != "#!/bin/sh\n" || fi.Mode().Perm() != want {
			t.Fatalf("copy %q (%v), mode %v (%v), want mode %v", b, err, fi.Mode(), serr, want)
		}
		if err := New(src, dst, c.perm); err == nil {
			t.Errorf("copying onto the existing file %s succeeded", c.dst)
		}
	}
}
