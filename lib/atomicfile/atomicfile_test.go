package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/wine"
	"github.com/plughost/plughost/lib/ownerfile"
)

// ownerOnly checks that only the file's owner may read it: mode 0600 on
// Unix; on Windows, where mode bits say nothing of that, an ACL that
// ownerfile.Exposed finds nothing wrong with.
func ownerOnly(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s mode %v, want 0600", path, m)
		}
		return
	}
	if wine.Running() {
		t.Logf("SKIP the ACL check of %s: wine derives a file's ACL from its Unix mode bits and keeps none set on it", path)
		return
	}
	if problem, _, err := ownerfile.Exposed(path); err != nil || problem != "" {
		t.Errorf("%s: Exposed = %q, %v; want only its owner to have access", path, problem, err)
	}
}

func TestWriteReplacesWithMode0600AndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(dir, ".f.json.tmp-123")
	if err := os.WriteFile(leftover, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	RemoveLeftovers(path)
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("leftover of an interrupted write is still there: %v", err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Errorf("after Write: %q %v; want \"new\"", got, err)
	}
	ownerOnly(t, path)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only f.json", len(entries))
	}
	if err := Write(filepath.Join(dir, "no", "such"), []byte("x")); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}

// A reader that has the file open when Write renames over it (another
// plughost reading the config) delays the write, never fails it: Windows
// refuses to replace a file open without FILE_SHARE_DELETE, which Go's
// os.Open and most programs do not ask for, until it is closed.
func TestWriteWhileAReaderHasTheFileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Write(path, []byte("new")) }()
	time.Sleep(100 * time.Millisecond)
	r.Close()
	if err := <-done; err != nil {
		t.Fatalf("Write while a reader had the file open: %v", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
		t.Errorf("after Write: %q %v; want \"new\"", got, err)
	}
}
