package ownerfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plughost/plughost/internal/wine"
)

// TestRestrictThenExposed runs on every system (Windows under wine too):
// a file Restrict made is not exposed; on Unix, one opened to others is.
func TestRestrictThenExposed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = Restrict(f)
	f.Close() // before any Fatal: Windows cannot remove an open file
	if err != nil {
		t.Fatal(err)
	}
	if wine.Running() {
		t.Skip("SKIP the ACL read-back: wine derives a file's ACL from its Unix mode bits and keeps none set on it; Restrict itself succeeded")
	}
	if problem, _, err := Exposed(path); err != nil || problem != "" {
		t.Fatalf("Exposed after Restrict = %q, %v; want nothing", problem, err)
	}
	if !unixModes {
		return
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	problem, fix, err := Exposed(path)
	if err != nil || problem != "has mode 0644" || fix != "chmod 600 "+path {
		t.Fatalf("Exposed(0644) = %q, %q, %v", problem, fix, err)
	}
}
