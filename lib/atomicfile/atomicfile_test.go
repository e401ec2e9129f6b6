package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
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
	fi, _ := os.Stat(path)
	if err != nil || string(got) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("after Write: %q %v, mode %v; want \"new\", 0600", got, err, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only f.json", len(entries))
	}
	if err := Write(filepath.Join(dir, "no", "such"), []byte("x")); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}
