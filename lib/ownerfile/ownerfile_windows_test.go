package ownerfile

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/plughost/plughost/internal/wine"
)

// A file created with SecurityAttributes is not exposed from its first
// moment, and is an ordinary file to write and read.
func TestSecurityAttributes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sa, err := SecurityAttributes()
	if err != nil {
		t.Fatal(err)
	}
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(name, windows.GENERIC_WRITE, 0, sa, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatalf("CreateFile with SecurityAttributes: %v", err)
	}
	f := os.NewFile(uintptr(h), path)
	_, err = f.WriteString("line\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "line\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if wine.Running() {
		t.Skip("SKIP the ACL read-back: wine derives a file's ACL from its Unix mode bits and keeps none set on it; the file was created with the descriptor")
	}
	if problem, _, err := Exposed(path); err != nil || problem != "" {
		t.Fatalf("Exposed = %q, %v; want nothing", problem, err)
	}
}
