package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// A reader that opens the file with ReadFile while another goroutine keeps
// replacing it always reads one whole version, never an error: on Windows
// it shares the file for deletion, so that a rename under way does not
// make its open fail. It pauses between reads, as readers of a config do:
// a Windows rename waits for the file to be closed.
func TestReadFileWhileWritesReplaceIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := Write(path, []byte("version 0")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 1; i <= 200 && err == nil; i++ {
			err = Write(path, []byte(fmt.Sprint("version ", i)))
		}
		done <- err
	}()
	for reads := 0; ; reads++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Write while readers read: %v", err)
			}
			if reads == 0 {
				t.Fatal("no read happened while the writes ran")
			}
			return
		default:
		}
		b, err := ReadFile(path)
		if err != nil {
			t.Fatalf("ReadFile while Write replaces the file, read %d: %v", reads, err)
		}
		if !strings.HasPrefix(string(b), "version ") {
			t.Fatalf("read %d: %q, not one whole version", reads, b)
		}
		time.Sleep(time.Millisecond)
	}
}
