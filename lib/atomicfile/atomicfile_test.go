package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plughost/plughost/internal/ownertest"
)

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
	ownertest.Private(t, path)
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
